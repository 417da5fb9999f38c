//! Issue 22: who may see and do what on the judge service (docs/SECURITY.md, "The judge
//! service: who sees and does what"; each row names its test here). Against a real server on
//! loopback whose ladder plays an author's bot that writes on stderr: a bot's log is shown to
//! its author and the organiser only; no page or API answer names a file of the server; every
//! route has a body limit; the API takes tokens, not the login cookie, and the forms a CSRF
//! token from the server's own pages; a wrong or revoked token is told so.

mod common;

use common::server::{sh_bot, wait_for, Server, SH_BOT};
use durak_service::http::private::{HIDDEN_HEADER, NOTE};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

/// What the bot of these tests writes on stderr before every line it reads.
const SECRET: &str = "my-secret-reasoning-4711";

/// A raw HTTP/1.0 request: (status, head, body).
fn raw(s: &Server, method: &str, path: &str, headers: &str, body: &str) -> (u16, String, String) {
    let addr = s.url.trim_start_matches("http://");
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        c,
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut all = Vec::new();
    c.read_to_end(&mut all).unwrap();
    let all = String::from_utf8_lossy(&all).to_string();
    let (head, body) = all.split_once("\r\n\r\n").unwrap_or((&all, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

/// The bot: the tests' sh bot, writing [`SECRET`] on stderr before every line it reads.
fn chatty_bot(root: &Path, name: &str) -> Vec<u8> {
    let dir = sh_bot(root, name, "", None);
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

fn ladder_with_a_chatty_game() -> Ladder {
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    let ada = s.author("ada");
    let bob = s.author("bob");
    let up = s.upload(&ada, &chatty_bot(tmp.path(), "chatty"));
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
            head.to_ascii_lowercase()
                .contains("cache-control: private"),
            "a private view is never kept by a shared cache: {head}"
        );
    }
    // The public page again, after the author's: nothing of the private view was kept.
    let (_, _, html) = raw(s, "GET", &page, "", "");
    assert!(!html.contains(SECRET));
}
