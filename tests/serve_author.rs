//! Issue 25, the author's loop on `durak serve`: "is my new version better?" — a version that
//! passes its check plays the bot's previous version on paired deals under an SPRT, and the
//! verdict is on its JSON (`previous`), its page and in `durak submit`'s output; with
//! `[compare] require_not_worse` a worse version does not replace the old one.
//!
//! The bots are the tests' sh bot; the "weak" one exits at once when its hello announces the
//! comparison's matches here: a table plays whole jobs in one match (`MATCH_GAMES` at most), so
//! jobs of 13 deals at 2 seats (26 games, `deals_per_job = 13`) make matches of 182 games, never
//! the check's nor the ladder's (jobs of 4 games: 200) — so it loses every game of the
//! comparison and none elsewhere. The SPRT is
//! set wide (H1 at 200 Elo) so that it decides in a few deals.

mod common;

use common::server::{sh_bot, wait_for, Server};
use common::text;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The games a comparison's match announces: as many whole jobs of 13 deals at 2 seats as a
/// ladder match holds.
fn comparison_match() -> usize {
    let per_job = 13 * 2;
    durak_service::ladder::executor::MATCH_GAMES / per_job * per_job
}

/// The sh bot, or (`weak`) the one that leaves the comparison's matches at once.
fn bot(root: &Path, weak: bool) -> PathBuf {
    let dir = sh_bot(root, "alpha", "", None);
    if weak {
        let script = std::fs::read_to_string(dir.join("bot.sh")).unwrap();
        let script = script.replacen(
            "read -r line\n",
            &format!(
                "read -r line\ncase \"$line\" in *'\"games\":{},'*) exit 0;; esac\n",
                comparison_match()
            ),
            1,
        );
        std::fs::write(dir.join("bot.sh"), script).unwrap();
    }
    dir
}

fn server(tmp: &Path, require: bool) -> Server {
    server_with(tmp, require, &["--house-bots", "none"])
}

fn server_with(tmp: &Path, require: bool, extra: &[&str]) -> Server {
    let config = tmp.join("serve.toml");
    std::fs::write(
        &config,
        format!(
            "[compare]\nelo0 = 0\nelo1 = 200\ndeals_per_job = 13\nmax_games = 260\n\
             require_not_worse = {require}\n[challenges]\nmax_deals = 5\nper_day = 2\n"
        ),
    )
    .unwrap();
    let mut args = vec!["--config", config.to_str().unwrap()];
    args.extend(extra);
    Server::start(&tmp.join("data"), &args)
}

fn version(s: &Server, n: i64) -> Value {
    s.get(&format!("/api/bots/alpha/versions/{n}")).json
}

#[test]
fn a_worse_version_does_not_replace_the_old_one_when_the_organiser_requires_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), true);
    let token = s.author("ada");
    let out = s.submit_cli(&token, &bot(&tmp.path().join("v1"), false));
    assert!(out.status.success(), "{}\n{}", text(&out.stderr), s.log());
    assert!(
        version(&s, 1)["previous"].is_null(),
        "a first version has nothing to be compared with"
    );

    let out = s.submit_cli(&token, &bot(&tmp.path().join("v2"), true));
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}\n{}", s.log());
    assert!(e.contains("now plays its previous version"), "{e}");
    assert!(e.contains("comparison against version 1: worse"), "{e}");
    assert!(
        e.contains("FAILED: alpha version 2: worse than version 1"),
        "{e}"
    );

    let v2 = version(&s, 2);
    assert_eq!(v2["state"], "failed", "{v2}");
    let p = &v2["previous"];
    assert_eq!(p["version"], 1, "{p}");
    assert_eq!(
        (&p["state"], &p["verdict"]),
        (&"done".into(), &"worse".into())
    );
    let (games, deals) = (p["games"].as_u64().unwrap(), p["deals"].as_u64().unwrap());
    assert!(
        deals >= 1 && games >= 2 * deals,
        "paired: whole deals counted: {p}"
    );
    assert!(
        p["llr"].as_f64().unwrap() <= p["llr_bounds"][0].as_f64().unwrap(),
        "the test accepted H0: {p}"
    );
    assert_eq!(p["score"], 0.0, "{p}");
    assert_eq!(version(&s, 1)["state"], "active", "the old version stays");

    let page = s.get("/bots/alpha/versions/2").json["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        page.contains("Against") && page.contains(">worse<"),
        "{page}"
    );
    // Unrated: the comparison's games are on no leaderboard.
    let lb = s.get("/api/leaderboard").json;
    assert_eq!(lb["games"], 0, "{lb}");
}

#[test]
fn a_better_version_is_told_so_after_it_entered_the_ladder() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), false);
    let token = s.author("ada");
    let out = s.submit_cli(&token, &bot(&tmp.path().join("v1"), true));
    assert!(out.status.success(), "{}\n{}", text(&out.stderr), s.log());

    let out = s.submit_cli(&token, &bot(&tmp.path().join("v2"), false));
    let e = text(&out.stderr);
    assert!(out.status.success(), "{e}\n{}", s.log());
    assert!(
        e.contains("PASSED: alpha version 2 is in the ladder"),
        "{e}"
    );
    assert!(e.contains("comparison against version 1: "), "{e}");
    assert_eq!(version(&s, 1)["state"], "retired");

    let until = std::time::Instant::now() + std::time::Duration::from_secs(180);
    let p = loop {
        let v = version(&s, 2);
        if v["previous"]["state"] == "done" {
            break v["previous"].clone();
        }
        assert!(
            std::time::Instant::now() < until,
            "gave up after 180 s waiting for the comparison's verdict: {v}\n{}",
            s.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(p["verdict"], "better", "{p}\n{}", s.log());
    assert_eq!(p["score"], 1.0, "{p}");
    assert!(
        p["llr"].as_f64().unwrap() >= p["llr_bounds"][1].as_f64().unwrap(),
        "{p}"
    );
    assert!(p["elo_ci95"][0].as_f64().is_none_or(|low| low > 0.0), "{p}");
    // Once decided, nothing more is played for it.
    let db = durak_service::db::Db::open(&s.data.join("service.db")).unwrap();
    let open: i64 = db
        .read(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE kind = 'compare' AND state IN ('queued', \
                 'claimed')",
                [],
                |r| r.get(0),
            )
        })
        .unwrap();
    assert_eq!(open, 0);
    assert_eq!(version(&s, 2)["state"], "active");
}

#[test]
fn an_author_challenges_a_bot_of_the_ladder_within_the_cap_and_the_daily_quota() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server_with(tmp.path(), false, &[]);
    let token = s.author("ada");
    let other = s.author("bob");
    let out = s.submit_cli(&token, &bot(&tmp.path().join("v1"), false));
    assert!(out.status.success(), "{}\n{}", text(&out.stderr), s.log());
    let ada = s.client(Some(&token));
    let post = |c: &durak_service::client::Client, body: Value| {
        c.post_json("/api/challenges", &body).unwrap()
    };

    // Refused, each with its reason and fix (and not counted against the quota).
    let anon = post(
        &s.client(None),
        json!({"bot": "alpha", "opponent": "house-greedy", "deals": 1}),
    );
    assert_eq!(anon.status, 401, "{}", anon.json);
    for (body, status, says) in [
        (
            json!({"bot": "alpha", "opponent": "house-greedy", "deals": 6}),
            400,
            "max_deals",
        ),
        (
            json!({"bot": "alpha", "opponent": "house-greedy", "deals": 0}),
            400,
            "deals = 0",
        ),
        (
            json!({"bot": "alpha", "opponent": "nobody", "deals": 1}),
            404,
            "opponent = \"nobody\"",
        ),
        (
            json!({"bot": "alpha", "opponent": "alpha", "deals": 1}),
            400,
            "the bot itself",
        ),
    ] {
        let r = post(&ada, body.clone());
        assert_eq!(r.status, status, "{body}: {}", r.json);
        assert!(
            r.error().contains(says) && r.error().contains("fix:"),
            "{}",
            r.error()
        );
    }
    let theirs = post(
        &s.client(Some(&other)),
        json!({"bot": "alpha", "opponent": "house-greedy", "deals": 1}),
    );
    assert_eq!(theirs.status, 403, "{}", theirs.json);

    let made = post(
        &ada,
        json!({"bot": "alpha", "opponent": "house-greedy", "deals": 3}),
    );
    assert_eq!(made.status, 201, "{}", made.json);
    let id = made.json["id"].as_i64().unwrap();
    let c = wait_for("the challenge's games", 180, || {
        let c = s.get(&format!("/api/challenges/{id}")).json;
        (c["state"] == "done").then_some(c)
    });
    assert_eq!(
        (c["bot"].as_str(), c["opponent"].as_str()),
        (Some("alpha"), Some("house-greedy"))
    );
    assert_eq!(
        (c["games"].as_u64(), c["planned_games"].as_u64()),
        (Some(6), Some(6)),
        "{c}"
    );
    let sum = ["wins", "draws", "losses"]
        .iter()
        .map(|k| c[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(sum, 6, "{c}");
    let los = c["los"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&los), "{c}");
    let list = c["game_list"].as_array().unwrap();
    assert_eq!(list.len(), 6);
    assert!(
        list.iter()
            .all(|g| g["seats"][g["seat"].as_u64().unwrap() as usize] == "alpha v1"),
        "{c}"
    );
    assert_eq!(s.get(list[0]["url"].as_str().unwrap()).status, 200);
    assert_eq!(s.get(&format!("/api/challenges/{}", id + 100)).status, 404);

    // The form on a bot's page (with its CSRF token), for a logged-in author: the second
    // challenge of the day, and its page.
    let mut browser = common::server::Browser::open(&s);
    let (st, head, _) = browser.login(&token);
    assert!(st == 303 || st == 200, "{head}");
    let (_, _, page) = browser.get("/bots/house-random");
    assert!(page.contains("id=\"challenge\""), "{page}");
    let (st, head, _) = browser.post(
        "/bots/house-random",
        "/challenges",
        "opponent=house-random&bot=alpha&deals=1",
    );
    assert_eq!(st, 303, "{head}");
    assert!(head.contains(&format!("/challenges/{}", id + 1)), "{head}");
    let (st, _, page) = browser.get(&format!("/challenges/{id}"));
    assert_eq!(st, 200);
    assert!(
        page.contains("challenge-state") && page.contains("LOS"),
        "{page}"
    );
    let (st, _, _) = browser.post_with(
        "/challenges",
        None,
        "opponent=house-random&bot=alpha&deals=1",
        "",
    );
    assert_eq!(st, 403, "a form without its CSRF token is refused");

    // The daily quota: two a day here.
    let third = post(
        &ada,
        json!({"bot": "alpha", "opponent": "house-random", "deals": 1}),
    );
    assert_eq!(third.status, 429, "{}", third.json);
    assert!(third.error().contains("per_day = 2"), "{}", third.error());
    assert!(
        third.json["retry_after_s"].as_u64().is_some(),
        "{}",
        third.json
    );

    // Every game of the version, filtered and paged (the ladder paused and settled first, so
    // that the counts hold still).
    let p = s.org().post_json("/api/ladder/pause", &json!({})).unwrap();
    assert_eq!(p.status, 200, "{}", p.json);
    let mut last = u64::MAX;
    wait_for("the ladder to settle", 60, || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let n = s.games();
        let still = n == last;
        last = n;
        still.then_some(())
    });
    let games = |q: &str| s.get(&format!("/api/bots/alpha/versions/1/games?{q}")).json;
    let all = games("opponent=house-greedy&per_page=200");
    let total = all["total"].as_u64().unwrap();
    assert!(total >= 6, "the challenge's games at least: {all}");
    assert!(all["games"].as_array().unwrap().iter().all(|g| g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x == "house-greedy v1")));
    let by_result: u64 = ["won", "lost", "draw"]
        .iter()
        .map(|r| {
            games(&format!("opponent=house-greedy&result={r}"))["total"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert_eq!(by_result, total, "each game has one result");
    let paged = games("opponent=house-greedy&per_page=4&page=1");
    assert_eq!(paged["pages"].as_u64().unwrap(), total.div_ceil(4));
    assert_eq!(
        paged["games"].as_array().unwrap().len() as u64,
        (total - 4).min(4),
        "{paged}"
    );
    assert_eq!(paged["games"][0], all["games"][4], "page 1 follows page 0");
    assert_eq!(games("fault=1")["total"], 0, "the sh bot never faults");
    let h = all["head_to_head"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["opponent"] == "house-greedy v1")
        .cloned()
        .expect("greedy in the head to head");
    assert_eq!(h["games"].as_u64().unwrap(), total, "{h}");
    let sum: u64 = ["wins", "draws", "losses"]
        .iter()
        .map(|k| h[k].as_u64().unwrap())
        .sum();
    assert_eq!(sum, total, "{h}");
    // A game's lines as the author's bot read them, for `durak rerun`: its author only. (Its
    // hello only when its process started for this game: a table keeps its bots across jobs.)
    let g = &list[0];
    let raw = format!(
        "/api/games/{}/{}/seats/{}/raw",
        g["job"], g["game"], g["seat"]
    );
    let auth = format!("Authorization: Bearer {token}\r\n");
    let (st, head, text) = common::server::raw_request(&s.url, "GET", &raw, &auth, "");
    assert_eq!(st, 200, "{head}{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("stdin") && l.contains("\"type\":\"game_start\""))
            && text
                .lines()
                .any(|l| l.starts_with("stdin") && l.contains("\"type\":\"request\""))
            && text.lines().any(|l| l.starts_with("stdout")),
        "{text}"
    );
    assert!(
        head.to_ascii_lowercase().contains("x-durak-rerun: curl") && head.contains("durak rerun"),
        "{head}"
    );
    let bob = format!("Authorization: Bearer {other}\r\n");
    for who in ["", bob.as_str()] {
        let (st, _, body) = common::server::raw_request(&s.url, "GET", &raw, who, "");
        assert_eq!(st, 403, "its stderr is its author's: {body}");
    }

    let bad = s.get("/api/bots/alpha/versions/1/games?result=maybe");
    assert_eq!(bad.status, 400);
    assert!(bad.error().contains("fix:"), "{}", bad.error());
}
