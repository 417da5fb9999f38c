//! Issue 22, quotas, rate limits and the fair check queue of `durak serve`, against a real
//! server on loopback (`common/server.rs`), each limit small in a `--config` file so the tests
//! are quick: an author's uploads per UTC day (429, `Retry-After`, and `durak submit`'s words),
//! their storage (413 with what is used), failed versions' files swept with their pages kept,
//! login and token attempts per client address (429, `Retry-After`) with `X-Forwarded-For`
//! believed only from `trusted_proxies`, and builds and checks taken in turn by author, never
//! two of one author's at once (the order is asserted, not times: `bench/fair_queue.sh`
//! measures them). Also what the sandbox does to builds: one that tries the network is told
//! so, and a background process a build leaves is killed.

mod common;

use common::server::{sh_bot, wait_for, Browser, Server};
use common::DURAK;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;

fn server(tmp: &Path, config: &str, extra: &[&str]) -> Server {
    let path = tmp.join("serve.toml");
    std::fs::write(&path, config).unwrap();
    let mut args = vec!["--config", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::start(&tmp.join("data"), &args)
}

/// One request over a plain socket: (status, head, body).
fn raw(
    s: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let addr = s.url.trim_start_matches("http://");
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    c.write_all(head.as_bytes()).unwrap();
    c.write_all(body).unwrap();
    let mut answer = Vec::new();
    let _ = c.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

/// The value of `name` in a response head.
fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_string())
    })
}

fn upload_raw(s: &Server, token: &str, bytes: &[u8]) -> (u16, String, String) {
    let auth = format!("Bearer {token}");
    raw(
        s,
        "POST",
        "/api/submit",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/gzip"),
        ],
        bytes,
    )
}

fn pack(dir: &Path) -> Vec<u8> {
    durak_service::archive::pack(dir).unwrap()
}

#[test]
fn an_author_over_the_daily_quota_is_answered_429_with_when_it_resets() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), "[quota]\nsubmissions_per_day = 2\n", &[]);
    let token = s.author("ada");
    for name in ["one", "two"] {
        let a = s.upload(&token, &pack(&sh_bot(tmp.path(), name, "", None)));
        assert_eq!(a.status, 201, "{name}: {}", a.json);
    }
    let three = pack(&sh_bot(tmp.path(), "three", "", None));
    let (status, head, body) = upload_raw(&s, &token, &three);
    assert_eq!(status, 429, "{head}\n{body}");
    assert!(
        body.contains("submissions_per_day = 2") && body.contains("00:00 UTC"),
        "{body}"
    );
    let wait: u64 = header(&head, "retry-after")
        .expect("a Retry-After header")
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&wait), "{head}");
    // No version was made of it.
    assert_eq!(s.get("/api/bots/three/versions/1").status, 404);
    // Another author has a count of their own, and the organiser none.
    let other = s.author("grace");
    let a = s.upload(&other, &three);
    assert_eq!(a.status, 201, "{}", a.json);
    // `durak submit --server` says it in words.
    let out = Command::new(DURAK)
        .args([
            "submit", "--server", &s.url, "--token", &token, "--wait-s", "0",
        ])
        .arg(tmp.path().join("three"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("REFUSED (429)")
            && err.contains("submissions_per_day = 2")
            && err.contains("the server takes another upload from you in"),
        "{err}"
    );
}

/// Bytes that do not compress (a simple xorshift stream).
fn noise(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn an_upload_that_would_pass_the_authors_storage_is_refused_with_what_is_used() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), "[quota]\nstorage = \"100K\"\n", &[]);
    let token = s.author("ada");
    let a = s.upload(&token, &pack(&sh_bot(tmp.path(), "small", "", None)));
    assert_eq!(a.status, 201, "{}", a.json);
    let big = sh_bot(tmp.path(), "big", "", None);
    std::fs::write(big.join("weights.bin"), noise(60_000)).unwrap();
    // 60 KB packed, and as much unpacked: over 100K with what `small` keeps.
    let (status, _, body) = upload_raw(&s, &token, &pack(&big));
    assert_eq!(status, 413, "{body}");
    assert!(
        body.contains("[quota] storage") && body.contains("you use") && body.contains("fix:"),
        "{body}"
    );
    assert_eq!(s.get("/api/bots/big/versions/1").status, 404);
}

#[test]
fn failed_versions_files_are_swept_and_their_pages_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let config = "[quota]\nfailed_keep_days = 0\n";
    let mut s = server(tmp.path(), config, &[]);
    let token = s.author("ada");
    // A bot that ends before its hello: it fails its check.
    let a = s.upload(
        &token,
        &pack(&sh_bot(tmp.path(), "quitter", "exit 3", None)),
    );
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("quitter", 1);
    assert_eq!(v["state"], "failed", "{v}");
    let id = v["id"].as_i64().unwrap();
    let archive = s.data.join(format!("uploads/v{id}.archive"));
    let folder = s.data.join(format!("bots/v{id}"));
    assert!(archive.exists() && folder.exists());
    assert!(v["files_removed"].is_null(), "{v}");
    // The sweep runs at the start (and every hour): the next start removes them.
    s.stop();
    let s = server(tmp.path(), config, &[]);
    let v = wait_for("the failed version's files to be swept", 30, || {
        let v = s.get("/api/bots/quitter/versions/1").json;
        (!v["files_removed"].is_null()).then_some(v)
    });
    assert!(!archive.exists() && !folder.exists());
    assert_eq!(v["state"], "failed");
    assert!(v["reason"].as_str().is_some_and(|r| !r.is_empty()), "{v}");
    let page = s.get("/bots/quitter/versions/1");
    assert_eq!(page.status, 200);
    let html = page.json["text"].as_str().unwrap();
    assert!(
        html.contains("id=\"files-removed\"") && html.contains("failed_keep_days"),
        "{html}"
    );
}

#[test]
fn login_and_token_attempts_are_limited_per_address() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(
        tmp.path(),
        "[limits]\nauth_burst = 3\nauth_every_s = 60\n",
        &[],
    );
    let token = s.author("ada"); // one registration: one attempt
                                 // A browser's login form, with its CSRF cookie and token (else it is refused before it
                                 // is an attempt: tests/serve_access.rs).
    let b = Browser::open(&s);
    for i in 0..2 {
        let (status, _, body) = b.post("/login", "/login", "token=dk_wrong");
        assert_ne!(status, 429, "attempt {i}: {body}");
        assert!(body.contains("no account"), "attempt {i}: {body}");
    }
    let (status, head, body) = b.post("/login", "/login", "token=dk_wrong");
    assert_eq!(status, 429, "{body}");
    assert!(header(&head, "retry-after").is_some(), "{head}");
    assert!(
        body.contains("too many login, registration or token attempts"),
        "{body}"
    );
    // The API's attempts share the bucket: registration, and a token that opens nothing.
    let (status, head, body) = raw(
        &s,
        "POST",
        "/api/accounts",
        &[("Content-Type", "application/json")],
        br#"{"name":"mallory"}"#,
    );
    assert_eq!(status, 429, "{body}");
    assert!(header(&head, "retry-after").is_some(), "{head}");
    assert!(body.contains("\"retry_after_s\""), "{body}");
    let (status, _, body) = raw(
        &s,
        "GET",
        "/api/me",
        &[("Authorization", "Bearer dk_guess")],
        b"",
    );
    assert_eq!(status, 429, "{body}");
    // Now even a good token from this address is not looked at where an account is needed…
    let bearer = format!("Bearer {token}");
    let (status, _, body) = raw(&s, "GET", "/api/me", &[("Authorization", &bearer)], b"");
    assert_eq!(status, 429, "{body}");
    // …and the public pages are served as to anyone.
    assert_eq!(s.get("/api/leaderboard").status, 200);
    assert_eq!(s.get("/login").status, 200);
}

/// A login attempt through the form, with `X-Forwarded-For: xff`.
fn attempt(s: &Server, xff: &str) -> u16 {
    let b = Browser::open(s);
    let token = b.token("/login");
    let extra = format!("X-Forwarded-For: {xff}\r\n");
    b.post_with("/login", Some(&token), "token=dk_wrong", &extra)
        .0
}

#[test]
fn forwarded_for_counts_only_from_a_trusted_proxy() {
    let limits = "[limits]\nauth_burst = 2\nauth_every_s = 60\n";
    // No trusted proxy (the default): the header is ignored, every attempt is 127.0.0.1's.
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), limits, &[]);
    assert_ne!(attempt(&s, "198.51.100.1"), 429);
    assert_ne!(attempt(&s, "198.51.100.2"), 429);
    assert_eq!(
        attempt(&s, "198.51.100.3"),
        429,
        "a new X-Forwarded-For each time"
    );
    drop(s);
    // Loopback trusted (as behind nginx on the same host): each client has its own bucket,
    // taken from the right-most address that is not a proxy.
    let tmp = tempfile::tempdir().unwrap();
    let config = format!("trusted_proxies = [\"127.0.0.1\"]\n{limits}");
    let s = server(tmp.path(), &config, &[]);
    assert_ne!(attempt(&s, "198.51.100.1"), 429);
    assert_ne!(attempt(&s, "198.51.100.1"), 429);
    assert_eq!(attempt(&s, "198.51.100.1"), 429);
    // What the client wrote on the left does not make it someone else.
    assert_eq!(attempt(&s, "203.0.113.77, 198.51.100.1"), 429);
    assert_ne!(attempt(&s, "198.51.100.2"), 429, "another client");
    assert_ne!(
        attempt(&s, "198.51.100.2, 127.0.0.1"),
        429,
        "through two proxies"
    );
}

/// A slow build of author A holds one of the checker's two places; author B's bot is checked
/// (and enters the ladder) meanwhile, and A's second version waits for A's first: never two of
/// one author's at once.
#[test]
fn one_authors_slow_build_does_not_hold_another_authors_check() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), "[check]\nconcurrency = 2\n", &[]);
    let (ada, bob) = (s.author("ada"), s.author("bob"));
    for name in ["slow1", "slow2"] {
        let dir = sh_bot(tmp.path(), name, "", Some("sleep 40"));
        let a = s.upload(&ada, &pack(&dir));
        assert_eq!(a.status, 201, "{}", a.json);
    }
    wait_for("ada's first build to start", 30, || {
        (s.get("/api/bots/slow1/versions/1").json["state"] == "building").then_some(())
    });
    let a = s.upload(&bob, &pack(&sh_bot(tmp.path(), "quick", "", None)));
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("quick", 1);
    assert_eq!(v["state"], "active", "{v}");
    let state = |bot: &str| s.get(&format!("/api/bots/{bot}/versions/1")).json["state"].clone();
    assert_eq!(
        state("slow1"),
        "building",
        "bob passed while ada's build runs"
    );
    assert_eq!(state("slow2"), "queued", "ada's second waits for her first");
}

#[test]
fn a_build_that_tries_the_network_is_told_builds_have_none() {
    if !common::strict_ready() || common::require("python3", "python3").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), "", &["--sandbox", "strict"]);
    let token = s.author("ada");
    let build = "python3 -c \"import urllib.request; \
                 urllib.request.urlopen('http://deb.debian.org/', timeout=10)\"";
    let a = s.upload(
        &token,
        &pack(&sh_bot(tmp.path(), "online", "", Some(build))),
    );
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("online", 1);
    assert_eq!(v["state"], "failed", "{v}");
    let why = v["reason"].as_str().unwrap();
    assert!(
        why.contains("the build tried to reach the network")
            && why.contains("vendor your dependencies"),
        "{why}\n{}",
        v["build"]["output"]
    );
}

/// Processes whose command line holds `marker`.
fn processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        })
        .count()
}

#[test]
fn a_background_process_left_by_a_build_is_killed() {
    if !common::strict_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), "", &["--sandbox", "strict"]);
    let token = s.author("ada");
    let marker = "durak-build-left-behind";
    // The build returns at once (0), leaving a process that would sleep for ever.
    let build = format!("sh -c 'sleep 1000; : {marker}' > /dev/null 2>&1 & echo started");
    let a = s.upload(
        &token,
        &pack(&sh_bot(tmp.path(), "leaver", "", Some(&build))),
    );
    assert_eq!(a.status, 201, "{}", a.json);
    let v = s.checked("leaver", 1);
    assert_eq!(v["build"]["ok"], true, "{v}");
    wait_for("the process the build left to be killed", 20, || {
        (processes_with(marker) == 0).then_some(())
    });
}
