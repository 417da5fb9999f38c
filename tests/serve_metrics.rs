//! Issue 24, metrics: `GET /metrics` in Prometheus's text format, for the organiser's token only
//! (or on `[metrics] listen` without one), against a real server on loopback. After games are
//! played the counters are there and move: the games recorded are the database's, a faulting
//! bot's fault kind is counted, and the HTTP series are labelled by route template, never by
//! the raw path.

mod common;

use common::server::{raw_request, wait_for, Browser, Server};
use common::DURAK;
use durak_service::db::Db;
use std::path::Path;
use std::process::Command;

/// `GET /metrics` with `headers`: (status, body).
fn scrape(url: &str, headers: &str) -> (u16, String) {
    let (status, _, body) = raw_request(url, "GET", "/metrics", headers, "");
    (status, body)
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}\r\n")
}

/// The value of the series `series` (its name and labels exactly as written), if shown.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(series)?.strip_prefix(' ')?;
        rest.trim().parse().ok()
    })
}

fn games_in_db(data: &Path) -> f64 {
    let db = Db::open(&data.join("service.db")).unwrap();
    db.read(|c| c.query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0)))
        .unwrap() as f64
}

#[test]
fn metrics_are_the_organisers_and_count_games_faults_and_routes() {
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("misbehave");
    let data = tmp.path().join("data");
    let s = Server::start(
        &data,
        // The default sandbox: the bot sees the flag file the test creates.
        &["--sandbox", "default", "--house-bots", "builtin:greedy"],
    );
    let org = s.organiser.clone().unwrap();
    let token = s.author("ada");

    // Who may read them: the organiser's token; not anonymous, not an author, not a cookie.
    let (st, body) = scrape(&s.url, "");
    assert_eq!(st, 401, "{body}");
    let (st, body) = scrape(&s.url, &bearer(&token));
    assert_eq!(st, 403, "an author's token: {body}");
    let mut b = Browser::open(&s);
    b.login(&org);
    assert!(b.session.is_some());
    let (st, body) = scrape(&s.url, &b.cookies());
    assert_eq!(st, 403, "the login cookie is not a token: {body}");
    let (st, before) = scrape(&s.url, &bearer(&org));
    assert_eq!(st, 200, "{before}");
    assert_eq!(value(&before, "durak_games_recorded_total"), Some(0.0));

    // A bot that plays, then answers nonsense once the flag exists (a `malformed` fault).
    let bot = common::server::flaky_bot(tmp.path(), "flaky", &flag);
    let out = s.submit_cli(&token, &bot);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    // A job of it done first: once flaky is suspended its open jobs stop where they are (a
    // table could be inside its first job when the flag came, and then none was done).
    wait_for("flaky's first job to be done", 60, || {
        let db = Db::open(&data.join("service.db")).ok()?;
        let done: i64 = db
            .read(|c| {
                c.query_row("SELECT COUNT(*) FROM jobs WHERE state = 'done'", [], |r| {
                    r.get(0)
                })
            })
            .ok()?;
        (done > 0).then_some(())
    });
    std::fs::write(&flag, "").unwrap();
    wait_for("flaky to be suspended", 120, || {
        (s.get("/api/bots/flaky/versions/1").json["state"] == "suspended").then_some(())
    });
    // A path no route has.
    let (st, _, _) = raw_request(&s.url, "GET", "/no/such/page-12345", "", "");
    assert_eq!(st, 404);

    // The games counter is the database's (the ladder stops once flaky is out: one bot left).
    let text = wait_for(
        "the games counter to equal the database's games",
        60,
        || {
            let (st, text) = scrape(&s.url, &bearer(&org));
            assert_eq!(st, 200);
            let n = value(&text, "durak_games_recorded_total")?;
            (n > 0.0 && n == games_in_db(&data)).then_some(text)
        },
    );
    let malformed = value(&text, "durak_faults_total{kind=\"malformed\"}").unwrap_or(0.0);
    assert!(malformed >= 3.0, "flaky's faults are counted: {text}");
    assert!(
        value(&text, "durak_recorder_commits_total").unwrap() >= 1.0,
        "{text}"
    );
    assert_eq!(
        value(&text, "durak_versions{state=\"suspended\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        value(&text, "durak_check_queue_length"),
        Some(0.0),
        "{text}"
    );
    assert!(
        value(&text, "durak_jobs{state=\"done\"}").unwrap() >= 1.0,
        "{text}"
    );
    assert!(
        value(
            &text,
            "durak_check_duration_seconds_count{outcome=\"passed\"}"
        )
        .unwrap()
            >= 1.0,
        "{text}"
    );
    assert!(text.contains("durak_leases_expired_total "), "{text}");

    // The HTTP series: by the route's template, never the raw path.
    let version_route = "durak_http_request_duration_seconds_count{route=\"/api/bots/{bot}/versions/{n}\",method=\"GET\",status=\"200\"}";
    assert!(value(&text, version_route).unwrap() >= 2.0, "{text}");
    assert!(!text.contains("/api/bots/flaky"), "no raw path: {text}");
    assert!(!text.contains("page-12345"), "no raw path: {text}");
    let unmatched = "durak_http_request_duration_seconds_count{route=\"unmatched\",method=\"GET\",status=\"404\"}";
    assert!(value(&text, unmatched).unwrap() >= 1.0, "{text}");
    let refused = "durak_http_request_duration_seconds_count{route=\"/metrics\",method=\"GET\",status=\"401\"}";
    assert_eq!(value(&text, refused), Some(1.0), "{text}");

    // After a restart the faults counter is the database's again, not 0: rebuilt from the
    // games table's faults (the ladder has one bot left, so no game changes it meanwhile).
    let in_db = faults_in_db(&data, "malformed");
    assert!(in_db >= 3.0, "the database holds flaky's faults");
    drop(b);
    let mut s = s;
    s.stop();
    let s = Server::start(
        &data,
        &["--sandbox", "default", "--house-bots", "builtin:greedy"],
    );
    let (st, text) = scrape(&s.url, &bearer(&org));
    assert_eq!(st, 200, "{text}");
    assert_eq!(
        value(&text, "durak_faults_total{kind=\"malformed\"}"),
        Some(in_db),
        "{text}"
    );
    assert_eq!(
        value(&text, "durak_games_recorded_total"),
        Some(games_in_db(&data)),
        "{text}"
    );
}

/// The faults of `kind` in the games table (each game's `faults` a JSON list).
fn faults_in_db(data: &Path, kind: &str) -> f64 {
    let db = Db::open(&data.join("service.db")).unwrap();
    let rows: Vec<String> = db
        .read(|c| {
            let mut s = c.prepare("SELECT faults FROM games")?;
            let rows = s.query_map([], |r| r.get(0))?;
            rows.collect()
        })
        .unwrap();
    rows.iter()
        .flat_map(|f| serde_json::from_str::<Vec<serde_json::Value>>(f).unwrap())
        .filter(|f| f["kind"] == kind)
        .count() as f64
}

#[test]
fn metrics_on_their_own_address_need_no_token_and_serve_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let conf = tmp.path().join("serve.toml");
    std::fs::write(&conf, "[metrics]\nlisten = \"127.0.0.1:0\"\n").unwrap();
    let s = Server::start(
        &tmp.path().join("data"),
        &["--config", conf.to_str().unwrap(), "--house-bots", "none"],
    );
    let log = s.log();
    let at = log
        .split("metrics on ")
        .nth(1)
        .unwrap_or_else(|| panic!("the metrics address on stderr: {log}"));
    let url = at.split("/metrics").next().unwrap().to_string();
    assert_ne!(url, s.url);
    let (st, text) = scrape(&url, "");
    assert_eq!(st, 200, "{text}");
    assert!(text.contains("durak_games_recorded_total 0"), "{text}");
    assert!(text.contains("# TYPE durak_jobs gauge"), "{text}");
    let (st, _, _) = raw_request(&url, "GET", "/api/status", "", "");
    assert_eq!(st, 404, "only /metrics there");
    // The main address still wants the organiser's token.
    assert_eq!(scrape(&s.url, "").0, 401);

    // A bad address is refused naming the key and the fix.
    std::fs::write(&conf, "[metrics]\nlisten = \"9100\"\n").unwrap();
    let out = Command::new(DURAK)
        .args(["serve", "--config", conf.to_str().unwrap(), "--data-dir"])
        .arg(tmp.path().join("other"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = common::text(&out.stderr);
    assert!(e.contains("[metrics] listen") && e.contains("fix:"), "{e}");
}
