//! Issue 14: the judge service's live leaderboard (server-sent events), its cached version
//! pages, and the fixed tournaments' reports served over HTTP (safely: nothing outside the
//! report's folder), against a real server on loopback whose ladder plays the house bots; and
//! logging in and out (a session of its own in the cookie, ended by logging out).

mod common;

use common::server::{raw_request, wait_for, Browser, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A raw HTTP/1.0 request (nothing normalised on the way): (status, headers, body).
fn raw_get(s: &Server, path: &str) -> (u16, String, Vec<u8>) {
    let addr = s.url.trim_start_matches("http://");
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(c, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut all = Vec::new();
    c.read_to_end(&mut all).unwrap();
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers");
    let head = String::from_utf8_lossy(&all[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, all[split + 4..].to_vec())
}

/// A client of `GET /api/leaderboard/events` (HTTP/1.1: the body comes in chunks, and a
/// stream ended by the server has its last, empty chunk, which a cut connection has not).
struct Events {
    r: BufReader<TcpStream>,
    /// Text received and not yet taken as events.
    text: String,
}

impl Events {
    fn connect(s: &Server) -> (Events, String) {
        let addr = s.url.trim_start_matches("http://");
        let c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut w = &c;
        write!(
            w,
            "GET /api/leaderboard/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        let mut r = BufReader::new(c);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            assert!(r.read_line(&mut line).unwrap() > 0, "headers: {head}");
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        assert!(
            head.to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "{head}"
        );
        (
            Events {
                r,
                text: String::new(),
            },
            head,
        )
    }

    /// The next chunk of the body; `None` at its last (empty) chunk. Panics when the
    /// connection ends without it.
    fn chunk(&mut self) -> Option<String> {
        let mut size = String::new();
        let n = self.r.read_line(&mut size).expect("a chunk within 60 s");
        assert!(n > 0, "the connection was cut: the stream did not end");
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        let mut data = vec![0; size + 2];
        self.r.read_exact(&mut data).expect("the chunk");
        (size > 0).then(|| String::from_utf8_lossy(&data[..size]).into_owned())
    }

    /// The next event: (name, data as JSON); `None` when the stream ends.
    fn next(&mut self) -> Option<(String, Value)> {
        loop {
            if let Some(i) = self.text.find("\n\n") {
                let block: String = self.text.drain(..i + 2).collect();
                let (mut name, mut data) = (String::new(), String::new());
                for line in block.lines() {
                    if let Some(n) = line.strip_prefix("event:") {
                        name = n.trim().to_string();
                    } else if let Some(d) = line.strip_prefix("data:") {
                        data.push_str(d.trim_start());
                    }
                    // `:` lines are comments (the keep-alive).
                }
                if !data.is_empty() {
                    return Some((name, serde_json::from_str(&data).expect("JSON data")));
                }
                continue;
            }
            let c = self.chunk()?;
            self.text.push_str(&c);
        }
    }
}

#[test]
fn the_leaderboard_streams_its_changes_as_server_sent_events() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = Server::start(&tmp.path().join("data"), &[]);
    let settled = s.pause_and_settle();

    let (mut ev, head) = Events::connect(&s);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{head}"
    );
    // The first event at once: the leaderboard as GET /api/leaderboard gives it.
    let (name, first) = ev.next().expect("a first event");
    assert_eq!(name, "leaderboard");
    assert_eq!(first["paused"], true, "{first}");
    assert_eq!(
        first["rows"].as_array().unwrap().len(),
        2,
        "the house bots: {first}"
    );
    let plain = s.get("/api/leaderboard").json;
    assert_eq!(first["games"], plain["games"]);
    assert_eq!(first["rows"], plain["rows"]);
    let g0 = first["games"].as_u64().unwrap();
    assert!(g0 <= settled);

    // A client that never reads its events holds the server up in nothing.
    let (_idle, _) = Events::connect(&s);

    // Resumed: an event says so, then recorded games bring new ones, in order.
    assert_eq!(
        s.org()
            .post_json("/api/ladder/resume", &json!({}))
            .unwrap()
            .status,
        200
    );
    let until = Instant::now() + Duration::from_secs(120);
    let (mut resumed, mut more, mut last) = (false, None, g0);
    while more.is_none() {
        assert!(Instant::now() < until, "no event with more games in 120 s");
        let (_, lb) = ev.next().expect("the stream goes on");
        let g = lb["games"].as_u64().unwrap();
        assert!(g >= last, "games never go down: {last} then {g}");
        last = g;
        resumed |= lb["paused"] == false;
        if g > g0 {
            more = Some(lb);
        }
    }
    assert!(resumed, "the resume was an event");
    let lb = more.unwrap();
    assert!(
        lb["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["games"].as_u64() > Some(0)),
        "{lb}"
    );
    // A second client, and after it the first, still get events while the idle one sleeps.
    let (mut other, _) = Events::connect(&s);
    assert!(other.next().is_some());
    assert!(ev.next().is_some());

    // A clean stop ends the streams, with their last chunk: not cut when the process ends
    // (`chunk` panics then).
    s.stop();
    while ev.next().is_some() {}
}

#[test]
fn the_version_page_is_cached_until_games_or_the_ladder_change_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let path = "/api/bots/house-greedy/versions/1";
    let page = "/bots/house-greedy/versions/1";
    // Games come in: the page shows them (computed again once they do).
    let first = wait_for("house-greedy's first games", 60, || {
        let v = s.get(path).json;
        (v["games"].as_u64()? > 0).then_some(v)
    });
    let n0 = first["games"].as_u64().unwrap();
    wait_for("more games on the version's page", 60, || {
        let v = s.get(path).json;
        (v["games"].as_u64()? > n0).then_some(v)
    });
    // Paused, so that the JSON and the page below show the same latest games (while the
    // ladder plays, the game first in the JSON may have left the page's list by the time
    // the page is fetched).
    s.pause_and_settle();
    let later = s.get(path).json;
    let g = &later["latest_games"][0];
    assert_eq!(g["seats"].as_array().unwrap().len(), 2, "{g}");
    assert!(
        g["seats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l.as_str().unwrap().contains(" v1")),
        "labels by seat, from one query: {g}"
    );
    assert!(later["standing"]["games"].as_u64().is_some(), "{later}");
    let html = s.get(page).json["text"].as_str().unwrap().to_string();
    assert!(
        html.contains(&format!("/games/{}/{}", g["job"], g["game"])),
        "{html}"
    );

    // Paused, the page stays as it is; an organiser's decision shows at once.
    let a = s.get(path).json;
    std::thread::sleep(Duration::from_millis(400));
    let b = s.get(path).json;
    assert_eq!(a["games"], b["games"]);
    let dq = s
        .org()
        .post_json(
            "/api/bots/house-greedy/versions/1/disqualify",
            &json!({"reason": "a test"}),
        )
        .unwrap();
    assert_eq!(dq.status, 200, "{}", dq.json);
    let after = s.get(path).json;
    assert_eq!(
        after["state"], "disqualified",
        "not the cached view: {after}"
    );
    assert!(after["standing"].is_null(), "{after}");
    assert!(s.get(page).json["text"]
        .as_str()
        .unwrap()
        .contains("a test"));
}

#[test]
fn a_tournaments_full_report_is_served_and_nothing_outside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let t = s
        .org()
        .post_json("/api/tournaments", &json!({"games": 1}))
        .unwrap();
    assert_eq!(t.status, 201, "{}", t.json);
    let id = t.json["id"].as_i64().unwrap();
    let done = wait_for("the tournament to end", 120, || {
        let v = s.get(&format!("/api/tournaments/{id}")).json;
        (v["state"] != "running" && v["state"] != "queued").then_some(v)
    });
    assert_eq!(done["state"], "done", "{done}");
    let report = format!("/tournaments/{id}/report/index.html");
    assert_eq!(done["report"], report.as_str(), "{done}");

    // Linked from the list and the tournament's page.
    let list = s.get("/api/tournaments").json;
    assert_eq!(list["tournaments"][0]["report"], report.as_str(), "{list}");
    for p in ["/tournaments".to_string(), format!("/tournaments/{id}")] {
        let html = s.get(&p).json["text"].as_str().unwrap().to_string();
        assert!(html.contains(&format!("href=\"{report}\"")), "{p}: {html}");
    }

    // The report's pages, its files and the data it links to.
    let (status, head, body) = raw_get(&s, &report);
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("text/html"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-security-policy"),
        "{head}"
    );
    let index = String::from_utf8(body).unwrap();
    assert!(index.contains("Durak tournament"), "{index}");
    let hrefs: Vec<String> = index
        .split("href=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        // Not the page's own anchors, nor the favicon of nothing (`data:,`).
        .filter(|h| !h.starts_with('#') && !h.starts_with("http") && !h.starts_with("data:"))
        .map(str::to_string)
        .collect();
    assert!(hrefs.iter().any(|h| h.starts_with("bots/")), "{hrefs:?}");
    for h in &hrefs {
        // `../results.jsonl` from the report's folder is the tournament's own file (the report
        // links its copy in `data/` now; older reports link the original).
        let url = match h.strip_prefix("../") {
            Some(up) => format!("/tournaments/{id}/{up}"),
            None => format!("/tournaments/{id}/report/{h}"),
        };
        let (status, head, _) = raw_get(&s, &url);
        assert_eq!(status, 200, "{h}: {head}");
    }
    // A game's page (the replay viewer), found on disk and fetched.
    let html_dir = s.data.join(format!("tournaments/{id}/html"));
    let game = walk(&html_dir.join("g"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "html"))
        .expect("a game page");
    let rel = game.strip_prefix(&html_dir).unwrap().display().to_string();
    let (status, _, body) = raw_get(&s, &format!("/tournaments/{id}/report/{rel}"));
    assert_eq!(status, 200, "{rel}");
    let text = String::from_utf8(body).unwrap();
    assert!(text.contains("id=\"replay-data\""), "{text}");
    let (status, head, body) = raw_get(&s, &format!("/tournaments/{id}/results.jsonl"));
    assert_eq!(status, 200);
    assert!(head.contains("ndjson"), "{head}");
    assert!(String::from_utf8_lossy(&body).lines().count() >= 2);
    let (status, head, _) = raw_get(&s, &format!("/tournaments/{id}/report"));
    assert!(
        (300..400).contains(&status) && head.contains(&report),
        "{head}"
    );

    // Nothing outside: traversal, encoded or not, other files of the tournament, links.
    let db = std::fs::read(s.data.join("service.db")).unwrap();
    std::os::unix::fs::symlink(s.data.join("service.db"), html_dir.join("db.html")).unwrap();
    std::os::unix::fs::symlink(&s.data, html_dir.join("up")).unwrap();
    for p in [
        "report/../../../service.db",
        "report/..%2f..%2f..%2fservice.db",
        "report/%2e%2e/%2e%2e/%2e%2e/service.db",
        "report/g/../../../../service.db",
        "report/%2fetc%2fpasswd",
        "report/db.html",
        "report/up/service.db",
        "report/.%2e/results.jsonl",
        "lock",
        "settings.toml",
        "standings.txt",
        "..%2f..%2fservice.db",
    ] {
        let (status, head, body) = raw_get(&s, &format!("/tournaments/{id}/{p}"));
        assert!(matches!(status, 400 | 404), "{p}: {status} {head}");
        assert!(
            !body.starts_with(b"SQLite format") && body.len() < db.len(),
            "{p}: served the database"
        );
    }
    assert_eq!(raw_get(&s, "/tournaments/999/report/index.html").0, 404);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The login cookie is a session of its own, not the account's API token (which stays out of
/// the browser's cookie jar), stored hashed, and logging out ends it: the same cookie, sent
/// again (copied, stolen), opens nothing. (The forms carry their CSRF token: `Browser`.)
#[test]
fn logging_in_makes_a_session_and_logging_out_ends_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &["--house-bots", "none"]);
    let token = s.author("ada");
    let mut b = Browser::open(&s);
    let (st, head, _) = b.login(&token);
    assert_eq!(st, 303, "{head}");
    let cookie = b
        .session
        .clone()
        .unwrap_or_else(|| panic!("a cookie: {head}"));
    assert!(cookie.starts_with("ds_") && cookie != token, "{cookie}");
    assert!(head.contains("Max-Age=2592000"), "30 days: {head}");
    let (st, _, me) = b.get("/me");
    assert_eq!(st, 200);
    assert!(me.contains("ada"), "{me}");
    // Stored hashed.
    let db = durak_service::db::Db::open(&s.data.join("service.db")).unwrap();
    let hashes: Vec<String> = db
        .read(|c| {
            let mut st = c.prepare("SELECT hash FROM sessions")?;
            let r = st.query_map([], |r| r.get(0))?;
            r.collect()
        })
        .unwrap();
    assert_eq!(hashes, vec![durak_service::auth::hash(&cookie)]);
    // A session's token is no login of its own.
    let (st, _, _) = Browser::open(&s).login(&cookie);
    assert_eq!(st, 401);
    // Logging out ends the session; the API token still opens the account.
    let (st, head, _) = b.post("/me", "/logout", "");
    assert_eq!(st, 303, "{head}");
    assert!(head.contains("Max-Age=0"), "{head}");
    let (st, _, _) = b.get("/me");
    assert_eq!(st, 303, "the copied cookie opens nothing: to /login");
    let bearer = format!("Authorization: Bearer {token}\r\n");
    assert_eq!(raw_request(&s.url, "GET", "/api/me", &bearer, "").0, 200);
}

/// A version in the ladder keeps its page up to date (issue 24): the page names its JSON, its
/// games and state for `version.js` to compare, which reloads the newest unfiltered page only;
/// the script is served.
#[test]
fn a_playing_version_page_follows_its_games() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let api = "/api/bots/house-greedy/versions/1";
    let v = wait_for("house-greedy's first games", 60, || {
        let v = s.get(api).json;
        (v["games"].as_u64()? > 0).then_some(v)
    });
    let page = |path: &str| {
        let (st, head, body) = raw_request(&s.url, "GET", path, "", "");
        assert_eq!(st, 200, "{path}: {head}");
        body
    };
    let newest = page("/bots/house-greedy/versions/1");
    let live = newest
        .split("id=\"live\"")
        .nth(1)
        .expect("the live marker")
        .split('>')
        .next()
        .unwrap();
    assert!(live.contains(&format!("data-api=\"{api}\"")), "{live}");
    assert!(live.contains("data-state=\"active\""), "{live}");
    assert!(live.contains("data-reload=\"1\""), "{live}");
    let games: u64 = live
        .split("data-games=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(games >= v["games"].as_u64().unwrap(), "{live} {v}");
    let filtered = page("/bots/house-greedy/versions/1?result=won");
    assert!(
        filtered.contains("data-reload=\"0\""),
        "a filtered page is not reloaded"
    );
    let script = newest
        .split("src=\"/assets/version-")
        .nth(1)
        .expect("the version page's script")
        .split('"')
        .next()
        .unwrap();
    let (st, head, js) = raw_request(&s.url, "GET", &format!("/assets/version-{script}"), "", "");
    assert_eq!(st, 200, "{head}");
    assert!(js.contains("data") && js.contains("reload"), "{js}");
}
