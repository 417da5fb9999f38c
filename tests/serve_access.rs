//! Issue 22: who may see and do what on the judge service (docs/SECURITY.md, "The judge
//! service: who sees and does what"; each row names its test here). Against a real server on
//! loopback whose ladder plays an author's bot that writes on stderr: a bot's log is shown to
//! its author and the organiser only; no page or API answer names a file of the server; every
//! route has a body limit; the API takes tokens, not the login cookie, and the forms a CSRF
//! token from the server's own pages; a wrong or revoked token is told so.

mod common;

use common::http::{peak_rss, resolve, stream_post};
use common::server::{raw_request, sh_bot, wait_for, Browser, Server, SH_BOT};
use durak_service::http::private::{HIDDEN_HEADER, NOTE};
use serde_json::{json, Value};
use std::path::Path;

/// What the bot of these tests writes on stderr before every line it reads.
const SECRET: &str = "my-secret-reasoning-4711";

fn raw(s: &Server, method: &str, path: &str, headers: &str, body: &str) -> (u16, String, String) {
    raw_request(&s.url, method, path, headers, body)
}

/// The bot: the tests' sh bot, writing [`SECRET`] on stderr before every line it reads.
fn chatty_bot(root: &Path, name: &str, build: Option<&str>) -> Vec<u8> {
    let dir = sh_bot(root, name, "", build);
    let script = SH_BOT.replace("PRELUDE", "").replace(
        "while read -r line; do",
        &format!("while read -r line; do\n  echo '{SECRET}' >&2"),
    );
    std::fs::write(dir.join("bot.sh"), script).unwrap();
    durak_service::archive::pack(&dir).unwrap()
}

/// A server whose ladder has played a game of ada's bot `chatty`: (server, ada's token,
/// bob's token, a worker token, the game's job and number).
struct Ladder {
    s: Server,
    ada: String,
    bob: String,
    worker: String,
    game: (i64, u64),
    _tmp: tempfile::TempDir,
}

/// (Its build says where it runs: the build's output names the server's folder.)
fn ladder_with_a_chatty_game() -> Ladder {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let ada = s.author("ada");
    let bob = s.author("bob");
    let up = s.upload(
        &ada,
        &chatty_bot(tmp.path(), "chatty", Some("echo built in $PWD")),
    );
    assert_eq!(up.status, 201, "{}", up.json);
    let v = s.checked("chatty", 1);
    assert_eq!(v["state"], "active", "{v}");
    let g = wait_for("a ladder game of chatty", 180, || {
        let v = s.get("/api/bots/chatty/versions/1").json;
        let g = &v["latest_games"][0];
        Some((g["job"].as_i64()?, g["game"].as_u64()?))
    });
    let w = s
        .org()
        .post_json("/api/worker-tokens", &json!({"label": "rack"}))
        .unwrap();
    assert_eq!(w.status, 201, "{}", w.json);
    Ladder {
        ada,
        bob,
        worker: w.json["token"].as_str().unwrap().to_string(),
        game: g,
        s,
        _tmp: tmp,
    }
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}\r\n")
}

/// Row "a bot's stderr": the replay, the game's JSON and its page show a bot's stderr to its
/// author and the organiser, and leave it out for anyone else (no login, another author, a
/// worker token), saying whose log it is.
#[test]
fn a_bots_stderr_is_shown_to_its_author_and_the_organiser_only() {
    let l = ladder_with_a_chatty_game();
    let s = &l.s;
    let (job, game) = l.game;
    let org = s.organiser.clone().unwrap();
    let replay = format!("/api/games/{job}/{game}/replay");
    let page = format!("/games/{job}/{game}");
    let api = format!("/api/games/{job}/{game}");
    let seat = s.get(&api).json["labels"]
        .as_array()
        .unwrap()
        .iter()
        .position(|l| l == "chatty v1")
        .expect("chatty plays the game");

    for (who, token) in [
        ("no login", None),
        ("another author", Some(l.bob.as_str())),
        ("a worker token", Some(l.worker.as_str())),
    ] {
        let (st, body, hidden) = s
            .client(token)
            .get_bytes(&replay, HIDDEN_HEADER, 64 << 20)
            .unwrap();
        let text = String::from_utf8(body).unwrap();
        assert_eq!(st, 200, "{who}: {text}");
        assert!(!text.contains(SECRET), "{who} reads the log: {text}");
        assert!(
            !text.contains("\"type\":\"stderr\""),
            "{who}: stderr lines left"
        );
        assert!(text.lines().count() > 5, "{who}: the game is there");
        let hidden = hidden.unwrap_or_default();
        assert!(
            hidden.split(',').any(|h| h == seat.to_string()),
            "{who}: {HIDDEN_HEADER}: {hidden:?}"
        );
        let headers = token.map(bearer).unwrap_or_default();
        let (st, _, html) = raw(s, "GET", &page, &headers, "");
        assert_eq!(st, 200, "{who}: {html}");
        assert!(!html.contains(SECRET), "{who} reads the log on the page");
        assert!(html.contains(NOTE), "{who}: the page says whose log it is");
        // The seat named once: its label, then the bot's own name (not 'chatty v1 (sh-bot)'
        // in parentheses).
        assert!(
            html.contains(&format!("Seat {seat} (chatty v1, named sh-bot): {NOTE}")),
            "{who}: {html}"
        );
        let (_, _, view) = raw(s, "GET", &api, &headers, "");
        let view: Value = serde_json::from_str(&view).unwrap();
        assert!(
            view["stderr_hidden"]
                .as_array()
                .unwrap()
                .contains(&json!(seat)),
            "{who}: {view}"
        );
        assert_eq!(view["stderr_note"], NOTE, "{who}: {view}");
    }
    for (who, token) in [("its author", &l.ada), ("the organiser", &org)] {
        let (st, body, hidden) = s
            .client(Some(token))
            .get_bytes(&replay, HIDDEN_HEADER, 64 << 20)
            .unwrap();
        let text = String::from_utf8(body).unwrap();
        assert_eq!(st, 200, "{who}: {text}");
        assert!(text.contains(SECRET), "{who} reads the log: {text}");
        assert!(
            !hidden
                .unwrap_or_default()
                .split(',')
                .any(|h| h == seat.to_string()),
            "{who}"
        );
        let (_, head, html) = raw(s, "GET", &page, &bearer(token), "");
        assert!(html.contains(SECRET), "{who} reads the log on the page");
        assert!(
            head.to_ascii_lowercase().contains("cache-control: private"),
            "a private view is never kept by a shared cache: {head}"
        );
    }
    // The author logged in on the pages (the cookie) reads it on the game's page too; bob
    // logged in does not.
    let mut b = Browser::open(s);
    assert_eq!(b.login(&l.ada).0, 303);
    assert!(b.get(&page).2.contains(SECRET), "the author, by the cookie");
    let mut b = Browser::open(s);
    assert_eq!(b.login(&l.bob).0, 303);
    assert!(
        !b.get(&page).2.contains(SECRET),
        "another author, by the cookie"
    );
    // The public page again, after the author's: nothing of the private view was kept.
    let (_, _, html) = raw(s, "GET", &page, "", "");
    assert!(!html.contains(SECRET));
}

/// A server without house bots (nothing plays): quick to start.
fn quiet(tmp: &Path) -> Server {
    // Who may do what, not how often: these tests make more token attempts from 127.0.0.1 than
    // the default per-address limit allows (the limits are tests/serve_limits.rs's).
    let config = tmp.join("serve.toml");
    std::fs::write(&config, "[limits]\nauth_burst = 100000\n").unwrap();
    let config = config.to_str().unwrap();
    Server::start(
        &tmp.join("data"),
        &["--house-bots", "none", "--config", config],
    )
}

/// Row "the login cookie on the API": a request to `/api/...` that carries only the login
/// cookie is refused (403, saying why) — the organiser's cookie does not pause the ladder —
/// and the same request with a token passes.
#[test]
fn the_api_takes_tokens_not_the_login_cookie() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let org = s.organiser.clone().unwrap();
    let mut b = Browser::open(&s);
    assert_eq!(b.login(&org).0, 303);
    for (method, path) in [
        ("POST", "/api/ladder/pause"),
        ("GET", "/api/me"),
        ("POST", "/api/invites"),
    ] {
        let (st, _, body) = raw(&s, method, path, &b.cookies(), "{}");
        assert_eq!(st, 403, "{method} {path}: {body}");
        assert!(body.contains("not the login cookie"), "{body}");
    }
    assert_eq!(
        s.get("/api/status").json["paused"],
        false,
        "the cookie paused nothing"
    );
    let (st, _, body) = raw(&s, "POST", "/api/ladder/pause", &bearer(&org), "{}");
    assert_eq!(st, 200, "{body}");
    assert_eq!(s.get("/api/status").json["paused"], true);
}

/// Row "forms": a form sent without its CSRF token, with another one, without the browser's
/// CSRF cookie, from a page of another origin (another port of the same host), as another site
/// (`Sec-Fetch-Site`) or as another type of body is refused (403, in words) and does nothing;
/// the real forms work.
#[test]
fn forms_need_their_csrf_token_and_this_servers_origin() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let ada = s.author("ada");
    let b = Browser::open(&s);
    let good = b.token("/login");
    let login = format!("token={ada}");
    let other_port = format!("Origin: http://127.0.0.1:{}\r\n", {
        let port: u16 = s.url.rsplit(':').next().unwrap().parse().unwrap();
        port.wrapping_add(1)
    });
    let refused = [
        ("no token", b.post_with("/login", None, &login, "")),
        (
            "another token",
            b.post_with("/login", Some(&"0".repeat(64)), &login, ""),
        ),
        (
            "another port's page",
            b.post_with("/login", Some(&good), &login, &other_port),
        ),
        (
            "another site's page",
            b.post_with(
                "/login",
                Some(&good),
                &login,
                "Origin: https://evil.example\r\n",
            ),
        ),
        (
            "a cross-site fetch",
            b.post_with(
                "/login",
                Some(&good),
                &login,
                "Sec-Fetch-Site: same-site\r\n",
            ),
        ),
        (
            "no CSRF cookie",
            raw(
                &s,
                "POST",
                "/login",
                "Content-Type: application/x-www-form-urlencoded\r\n",
                &format!("csrf={good}&{login}"),
            ),
        ),
        (
            "a text/plain form",
            raw(
                &s,
                "POST",
                "/login",
                &format!("{}Content-Type: text/plain\r\n", b.cookies()),
                &format!("csrf={good}&{login}"),
            ),
        ),
    ];
    for (what, (st, head, body)) in refused {
        assert_eq!(st, 403, "{what}: {head}{body}");
        assert!(body.contains("reload the page"), "{what}: {body}");
        assert!(
            super_cookie(&head).is_none(),
            "{what}: logged in anyway: {head}"
        );
    }
    // The real form logs in; then the logged-in forms want the session's token.
    let mut b = b;
    let (st, head, _) = b.login(&ada);
    assert_eq!(st, 303, "{head}");
    let (st, _, _) = b.post_with("/me/tokens", Some(&good), "label=x", "");
    assert_eq!(
        st, 403,
        "the token of the page before the login is not the session's"
    );
    let (st, _, body) = b.post("/me", "/me/tokens", "label=laptop");
    assert_eq!(st, 200, "{body}");
    assert!(body.contains("dk_"), "{body}");
    // The upload form: its first field is the token.
    let boundary = "XyZ";
    let multipart = |first: &str| {
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{first}\"\r\n\r\nx\r\n--{boundary}--\r\n"
        )
    };
    let headers = format!(
        "{}Content-Type: multipart/form-data; boundary={boundary}\r\n",
        b.cookies()
    );
    for first in ["archive", "csrf"] {
        let (st, _, body) = raw(&s, "POST", "/submit", &headers, &multipart(first));
        assert_eq!(st, 403, "{first}: {body}");
    }
}

fn super_cookie(head: &str) -> Option<String> {
    common::server::set_cookie(head, "durak_token").filter(|c| !c.is_empty())
}

/// Row "tokens": no token, an unknown one, a revoked one (with the day it was revoked) and a
/// worker token are each told so.
#[test]
fn a_wrong_or_revoked_token_is_told_so() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let ada = s.author("ada");
    let t = s
        .client(Some(&ada))
        .post_json("/api/tokens", &json!({"label": "old"}))
        .unwrap();
    assert_eq!(t.status, 201, "{}", t.json);
    let old = t.json["token"].as_str().unwrap().to_string();
    let r = s
        .client(Some(&ada))
        .delete(&format!("/api/tokens/{}", t.json["id"]))
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.json);
    let w = s.org().post_json("/api/worker-tokens", &json!({})).unwrap();
    let worker = w.json["token"].as_str().unwrap().to_string();
    let unknown = format!("dk_{}", "ab".repeat(32));
    for (token, status, words) in [
        (
            None,
            401,
            "this needs a token: send `Authorization: Bearer TOKEN`",
        ),
        (
            Some(unknown.as_str()),
            401,
            "this token is not known to this server",
        ),
        (Some(old.as_str()), 401, "this token was revoked on 20"),
        (Some(worker.as_str()), 401, "this is a worker token"),
    ] {
        let a = s.client(token).get("/api/me").unwrap();
        assert_eq!(a.status, status, "{token:?}: {}", a.json);
        assert!(a.error().contains(words), "{token:?}: {}", a.error());
    }
    let a = s.client(Some(&old)).get("/api/me").unwrap();
    assert!(a.error().contains("make a new one on /me"), "{}", a.error());
    assert_eq!(s.client(Some(&ada)).get("/api/me").unwrap().status, 200);
}

/// Row "request bodies": a 50 MB form (`POST /login`, streamed) and a 50 MB JSON body
/// (`POST /api/accounts`) are answered 413 without the server taking them into memory.
#[test]
fn every_route_has_a_body_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let b = Browser::open(&s);
    let before = peak_rss(&s);
    let total = 50 << 20;
    let form = format!(
        "{}Content-Type: application/x-www-form-urlencoded\r\n",
        b.cookies()
    );
    for (path, headers) in [
        ("/login", form.as_str()),
        ("/register", form.as_str()),
        ("/api/accounts", "Content-Type: application/json\r\n"),
        ("/api/tokens", "Content-Type: application/json\r\n"),
    ] {
        let (status, took, sent) = stream_post(&s, path, headers, "", total);
        eprintln!("{path}: {status} after {took:?}, {sent} bytes sent");
        assert!(matches!(status, 413 | 401), "{path}: {status}");
        if path != "/api/tokens" {
            assert_eq!(status, 413, "{path}");
        }
    }
    // The upload form, logged in: its first field (the CSRF token) is read no further than a
    // token's length, whatever its size.
    let ada = s.author("ada");
    let mut b = b;
    assert_eq!(b.login(&ada).0, 303);
    let headers = format!(
        "{}Content-Type: multipart/form-data; boundary=XyZ\r\n",
        b.cookies()
    );
    let first = "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n";
    let (status, took, sent) = stream_post(&s, "/submit", &headers, first, total);
    eprintln!("/submit: {status} after {took:?}, {sent} bytes sent");
    assert_eq!(status, 403, "a token of 50 MB is not the token");
    let after = peak_rss(&s);
    eprintln!(
        "peak RSS {} MiB before, {} MiB after",
        before >> 20,
        after >> 20
    );
    assert!(
        after < before + (40 << 20),
        "the server's peak memory grew from {before} to {after} bytes"
    );
}

/// Row "server paths" (and the tournament reports of row "a bot's stderr"): with games, a build whose output names its folder and a fixed
/// tournament, no page and no API answer (nor an error's words) holds the data directory's
/// absolute path or the test's temporary directory: a crawl of every page and file linked from
/// the leaderboard, the tournaments and the API's answers, for a reader without login and for
/// the author.
#[test]
fn no_page_or_api_answer_names_a_file_of_the_server() {
    let l = ladder_with_a_chatty_game();
    let s = &l.s;
    let t = s
        .org()
        .post_json("/api/tournaments", &json!({"games": 1}))
        .unwrap();
    assert_eq!(t.status, 201, "{}", t.json);
    let id = t.json["id"].as_i64().unwrap();
    wait_for("the tournament to end", 180, || {
        (s.get(&format!("/api/tournaments/{id}")).json["state"] == "done").then_some(())
    });
    let data = s.data.display().to_string();
    let tmp = l._tmp.path().display().to_string();
    let (job, game) = l.game;
    let mut todo: Vec<String> = [
        "/",
        "/tournaments",
        "/api/status",
        "/api/leaderboard",
        "/api/tournaments",
        "/api/bots/chatty",
        "/api/bots/chatty/versions/1",
        "/api/openapi.json",
        "/me",
        "/api/me",
        "/login",
        "/register",
        // Errors, in words.
        "/api/games/999/0",
        "/games/999/0",
        "/bots/nobody",
        "/api/tournaments/99",
        "/tournaments/99/report/index.html",
    ]
    .iter()
    .map(|p| p.to_string())
    .chain([
        format!("/api/tournaments/{id}"),
        format!("/tournaments/{id}/report/nothing.html"),
        format!("/api/games/{job}/{game}"),
        format!("/api/games/{job}/{game}/replay"),
    ])
    .collect();
    // The report's game pages (its games list loads them by script, not by link).
    let html = s.data.join(format!("tournaments/{id}/html"));
    let mut dirs = vec![html.join("g")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(&html).unwrap().display().to_string();
                todo.push(format!("/tournaments/{id}/report/{rel}"));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut built = false;
    let mut hidden_in_report = false;
    while let Some(path) = todo.pop() {
        if !seen.insert(path.clone()) || seen.len() > 400 {
            continue;
        }
        for headers in [String::new(), bearer(&l.ada)] {
            let (st, head, body) = raw(s, "GET", &path, &headers, "");
            for (what, p) in [
                ("the data directory", &data),
                ("the temporary directory", &tmp),
            ] {
                assert!(
                    !head.contains(p.as_str()) && !body.contains(p.as_str()),
                    "{path} ({st}) names {what} {p}: {}",
                    &body[body.find(p.as_str()).unwrap_or(0).saturating_sub(200)..]
                        [..400.min(body.len())]
                );
            }
            built |= body.contains("built in DATA/bots/");
            if headers.is_empty() {
                // Nor, for a reader without login, a bot's log (the tournament's report too).
                assert!(!body.contains(SECRET), "{path} shows chatty's stderr");
                hidden_in_report |=
                    path.contains("/report/g/") && body.contains("left out of this public report");
            }
            if headers.is_empty() && head.contains("text/html") {
                for h in body
                    .split("href=\"")
                    .skip(1)
                    .filter_map(|r| r.split('"').next())
                {
                    if let Some(p) = resolve(&path, h) {
                        if !p.starts_with("/assets/") {
                            todo.push(p);
                        }
                    }
                }
            }
        }
    }
    assert!(seen.len() > 20, "a crawl of {} pages: {seen:?}", seen.len());
    assert!(
        seen.iter().any(|p| p.contains("/report/g/")),
        "the tournament's game pages were crawled: {seen:?}"
    );
    assert!(
        built,
        "the build's output is shown, its folder named DATA/..."
    );
    assert!(
        hidden_in_report,
        "a game page of the report says the logs are left out"
    );
}

/// The rows of docs/SECURITY.md's table that are one request each: for every row, a request
/// per role (no login, an author, a worker token, the organiser), each allowed (any answer but
/// 401 and 403: a 404 for a version that is not there is allowed and found nothing) or refused
/// (401 or 403, in words).
#[test]
fn who_may_do_what() {
    let tmp = tempfile::tempdir().unwrap();
    let s = quiet(tmp.path());
    let ada = s.author("ada");
    let org = s.organiser.clone().unwrap();
    let w = s.org().post_json("/api/worker-tokens", &json!({})).unwrap();
    let worker = w.json["token"].as_str().unwrap().to_string();
    let roles = [
        ("no login", None),
        ("an author", Some(ada.as_str())),
        ("a worker token", Some(worker.as_str())),
        ("the organiser", Some(org.as_str())),
    ];
    // (row, method, path, allowed for: no login, author, worker, organiser)
    let y = true;
    let n = false;
    let table: &[(&str, &str, &str, [bool; 4])] = &[
        ("public pages and API", "GET", "/", [y, y, y, y]),
        ("public pages and API", "GET", "/tournaments", [y, y, y, y]),
        (
            "public pages and API",
            "GET",
            "/api/leaderboard",
            [y, y, y, y],
        ),
        ("public pages and API", "GET", "/api/status", [y, y, y, y]),
        (
            "public pages and API",
            "GET",
            "/api/tournaments",
            [y, y, y, y],
        ),
        ("their account and tokens", "GET", "/api/me", [n, y, n, y]),
        (
            "their account and tokens",
            "POST",
            "/api/tokens",
            [n, y, n, y],
        ),
        (
            "their account and tokens",
            "DELETE",
            "/api/tokens/999",
            [n, y, n, y],
        ),
        ("uploads", "POST", "/api/submit", [n, y, n, y]),
        ("ladder control", "POST", "/api/ladder/pause", [n, n, n, y]),
        ("ladder control", "POST", "/api/ladder/resume", [n, n, n, y]),
        (
            "ladder control",
            "POST",
            "/api/bots/nobody/versions/1/disqualify",
            [n, n, n, y],
        ),
        (
            "ladder control",
            "POST",
            "/api/bots/nobody/versions/1/remove",
            [n, n, n, y],
        ),
        ("ladder control", "POST", "/api/tournaments", [n, n, n, y]),
        ("invites", "POST", "/api/invites", [n, n, n, y]),
        ("worker tokens", "GET", "/api/worker-tokens", [n, n, n, y]),
        ("worker tokens", "POST", "/api/worker-tokens", [n, n, n, y]),
        ("worker routes", "POST", "/api/worker/claim", [n, n, y, n]),
        (
            "worker routes",
            "GET",
            "/api/worker/versions/999/bot",
            [n, n, y, n],
        ),
    ];
    for (row, method, path, allowed) in table {
        for ((role, token), ok) in roles.iter().zip(allowed) {
            let headers = token.map(bearer).unwrap_or_default();
            let (st, _, body) = raw(&s, method, path, &headers, "{}");
            if *ok {
                assert!(
                    !matches!(st, 401 | 403),
                    "{row}: {role} may {method} {path}: {st} {body}"
                );
            } else {
                assert!(
                    matches!(st, 401 | 403),
                    "{row}: {role} may not {method} {path}: {st} {body}"
                );
                assert!(body.contains("error") && body.len() > 40, "{body}");
            }
        }
    }
    // The author's own page, by the login cookie.
    let mut b = Browser::open(&s);
    assert_eq!(b.login(&ada).0, 303);
    let (st, _, me) = b.get("/me");
    assert!(st == 200 && me.contains("ada"), "{st} {me}");
}
