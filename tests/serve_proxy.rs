//! Issue 22, behind a reverse proxy: Debian's nginx with `deploy/nginx/durak.conf` (its
//! addresses and files replaced by the test's, nothing else) in front of a plain-HTTP `durak
//! serve`, TLS at nginx with certificates made here (rcgen). Through it: `durak submit --server
//! https://... --ca-cert` passes; the live leaderboard's events arrive at once
//! (nginx does not buffer them). nginx runs on 127.0.0.1 with its own prefix, pid and temporary
//! directories in a temporary directory, in the foreground, and is killed at the end. Needs
//! nginx (`apt-get install nginx`; skipped with a note without it, except under CI).

mod common;

use common::server::{sh_bot, wait_for, Server};
use common::tls::Ca;
use common::{text, DURAK};
use durak_service::client::Client;
use durak_service::tls::client::Trust;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn nginx_binary() -> Option<PathBuf> {
    common::require_with("nginx", "nginx", || {
        common::which("nginx")
            .or_else(|| Some(PathBuf::from("/usr/sbin/nginx")).filter(|p| p.is_file()))
            .ok_or_else(|| "not found on PATH nor in /usr/sbin".to_string())
    })
}

/// A free port of 127.0.0.1 (bound, then let go).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx in the foreground; killed when dropped.
struct Nginx {
    child: Child,
    prefix: PathBuf,
}

impl Nginx {
    fn error_log(&self) -> String {
        std::fs::read_to_string(self.prefix.join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` with `from` replaced by `to`, which must be there.
fn replace(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "deploy/nginx/durak.conf no longer has {from:?}: update tests/serve_proxy.rs"
    );
    text.replace(from, to)
}

/// deploy/nginx/durak.conf with the test's addresses and files, in an nginx.conf of its own.
fn start_nginx(
    nginx: &Path,
    prefix: &Path,
    upstream: &str,
    cert: &Path,
    key: &Path,
) -> (Nginx, u16) {
    let conf = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nginx/durak.conf"),
    )
    .unwrap();
    let (https, http) = (free_port(), free_port());
    let mut site = replace(
        &conf,
        "listen 443 ssl http2;",
        &format!("listen 127.0.0.1:{https} ssl http2;"),
    );
    site = replace(&site, "listen [::]:443 ssl http2;", "");
    site = replace(&site, "listen 80;", &format!("listen 127.0.0.1:{http};"));
    site = replace(&site, "listen [::]:80;", "");
    site = replace(
        &site,
        "/etc/letsencrypt/live/judge.example.org/fullchain.pem",
        &cert.display().to_string(),
    );
    site = replace(
        &site,
        "/etc/letsencrypt/live/judge.example.org/privkey.pem",
        &key.display().to_string(),
    );
    site = replace(&site, "http://127.0.0.1:8080", upstream);
    site = replace(
        &site,
        "root /var/www/html;",
        &format!("root {};", prefix.join("www").display()),
    );
    std::fs::write(prefix.join("durak.conf"), site).unwrap();
    for d in ["body", "proxy", "fastcgi", "uwsgi", "scgi", "www"] {
        std::fs::create_dir_all(prefix.join(d)).unwrap();
    }
    let p = prefix.display();
    std::fs::write(
        prefix.join("nginx.conf"),
        format!(
            "daemon off;\n# One process (no master): killing it leaves no worker behind.\nmaster_process off;\npid {p}/nginx.pid;\nerror_log \
             {p}/error.log info;\nevents {{ worker_connections 64; }}\nhttp {{\n  access_log \
             {p}/access.log;\n  client_body_temp_path {p}/body;\n  proxy_temp_path {p}/proxy;\n  \
             fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path \
             {p}/scgi;\n  include {p}/durak.conf;\n}}\n"
        ),
    )
    .unwrap();
    let child = Command::new(nginx)
        .arg("-p")
        .arg(prefix)
        .arg("-c")
        .arg(prefix.join("nginx.conf"))
        .arg("-e")
        .arg(prefix.join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    (
        Nginx {
            child,
            prefix: prefix.to_path_buf(),
        },
        https,
    )
}

#[test]
fn a_submit_and_the_live_leaderboard_go_through_nginx_with_tls_at_the_proxy() {
    let Some(nginx) = nginx_binary() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let s = Server::start(&tmp.path().join("data"), &[]);
    assert!(s.url.starts_with("http://127.0.0.1:"), "{}", s.url);
    let ca = Ca::new("durak test CA");
    let ca_pem = ca.write(&tmp.path().join("ca.pem"));
    let files = ca.write_server(tmp.path(), &["localhost", "127.0.0.1"], false);
    let prefix = tmp.path().join("nginx");
    std::fs::create_dir(&prefix).unwrap();
    let (mut proxy, port) = start_nginx(&nginx, &prefix, &s.url, &files.cert, &files.key);
    let url = format!("https://127.0.0.1:{port}");
    let trust = Trust {
        ca_cert: Some(ca_pem.clone()),
        origin: "--ca-cert",
    };
    let client = |token: Option<&str>| {
        Client::with_trust(&url, token, Duration::from_secs(30), trust.clone()).unwrap()
    };
    wait_for("nginx to answer in front of the server", 30, || {
        if let Ok(Some(st)) = proxy.child.try_wait() {
            panic!("nginx ended ({st}):\n{}", proxy.error_log());
        }
        let a = client(None).get("/api/status").ok()?;
        (a.status == 200).then_some(())
    });
    assert_eq!(
        client(None).get("/api/status").unwrap().json["service"],
        "durak serve"
    );

    // A submission through the proxy.
    let token = s.author("ada");
    let bot = sh_bot(tmp.path(), "alpha", "", None);
    let out = Command::new(DURAK)
        .args(["submit", "--server", &url, "--token", &token, "--ca-cert"])
        .arg(&ca_pem)
        .args(["--wait-s", "180"])
        .arg(&bot)
        .env_remove("DURAK_CA_CERT")
        .output()
        .unwrap();
    let e = text(&out.stderr);
    assert!(out.status.success(), "{e}\n{}", proxy.error_log());
    assert!(
        e.contains("PASSED: alpha version 1 is in the ladder"),
        "{e}"
    );
    assert!(!e.contains("WARNING"), "{e}");

    // The live leaderboard: its first event at once, then another as games are recorded,
    // each as soon as the server sends it (nginx buffering them would hold them back).
    let started = Instant::now();
    let (status, mut events) = client(None).get_stream("/api/leaderboard/events").unwrap();
    assert_eq!(status, 200);
    let mut seen = Vec::new();
    let mut line = String::new();
    while seen.len() < 2 {
        line.clear();
        let n = events.read_line(&mut line).expect("the events stream");
        assert!(n > 0, "the stream ended after {} event(s)", seen.len());
        if let Some(data) = line.strip_prefix("data: ") {
            let v: serde_json::Value = serde_json::from_str(data.trim()).unwrap();
            seen.push((started.elapsed(), v));
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{} event(s) in 120 s",
            seen.len()
        );
    }
    assert!(
        seen[0].0 < Duration::from_secs(5),
        "the first event took {:?}: buffered by the proxy?",
        seen[0].0
    );
    assert!(seen[0].1["rows"].is_array(), "{}", seen[0].1);
    let _ = proxy.child.kill();
}
