//! Issue 22, HTTPS: `durak serve --tls-cert FILE --tls-key FILE` serves HTTPS itself (rustls),
//! and the clients (`durak submit --server`, `durak worker`, `durak worker-token`) speak it,
//! trusting the platform's CAs plus `--ca-cert FILE` (or `DURAK_CA_CERT`). The certificates are
//! made here with rcgen (`common/tls.rs`), signed by test CAs, for 127.0.0.1.
//!
//! - A submit over HTTPS with the test CA passes; without it, it fails saying the certificate
//!   is not signed by a CA this machine trusts, and how to fix it.
//! - A certificate for another name, an expired one, a server that does not speak TLS: each is
//!   said in words with its fix.
//! - A renewed certificate (new files written) is served by the running server; a bad new file
//!   keeps the previous certificate and the server says why.
//! - A worker plays the ladder's jobs over HTTPS.

mod common;

use common::server::{sh_bot, wait_for, Server};
use common::tls::{Ca, ServerFiles};
use common::{text, DURAK};
use durak_service::client::Client;
use durak_service::tls::client::Trust;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `durak serve` over HTTPS with these files; its clients trust `ca`.
fn tls_server(data: &Path, files: &ServerFiles, ca: &Path, extra: &[&str]) -> Server {
    let (cert, key) = (
        files.cert.display().to_string(),
        files.key.display().to_string(),
    );
    let mut args = vec!["--tls-cert", cert.as_str(), "--tls-key", key.as_str()];
    args.extend_from_slice(extra);
    let mut s = Server::start(data, &args);
    s.ca = Some(ca.to_path_buf());
    s
}

/// A GET of /api/status trusting `ca` only besides the platform's: the error, if any.
fn status_error(url: &str, ca: Option<&Path>) -> Option<String> {
    let trust = Trust {
        ca_cert: ca.map(Path::to_path_buf),
        origin: "--ca-cert",
    };
    let c = Client::with_trust(url, None, Duration::from_secs(10), trust).unwrap();
    match c.get("/api/status") {
        Ok(a) => {
            assert_eq!(a.status, 200, "{}", a.json);
            None
        }
        Err(e) => Some(e.to_string()),
    }
}

/// `durak ARGS` without DURAK_CA_CERT (unless `env` sets it).
fn durak(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(DURAK);
    c.args(args).env_remove("DURAK_CA_CERT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("durak runs")
}

#[test]
fn a_submit_over_https_with_the_ca_passes_and_without_it_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new("durak test CA");
    let ca_pem = ca.write(&tmp.path().join("ca.pem"));
    let files = ca.write_server(tmp.path(), &["localhost", "127.0.0.1"], false);
    let s = tls_server(&tmp.path().join("data"), &files, &ca_pem, &[]);
    assert!(s.url.starts_with("https://127.0.0.1:"), "{}", s.log());
    assert!(
        s.log().contains("https://127.0.0.1:") && s.log().contains("/api/invites"),
        "the organiser's hint names https: {}",
        s.log()
    );
    let token = s.author("ada");
    let bot = sh_bot(tmp.path(), "alpha", "", None);
    let bot = bot.display().to_string();
    let ca_arg = ca_pem.display().to_string();

    // Without the CA: refused before anything is sent, with the fix.
    let out = durak(
        &["submit", "--server", &s.url, "--token", &token, &bot],
        &[],
    );
    let e = text(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(
        e.contains("not signed by a CA this machine trusts") && e.contains("--ca-cert FILE"),
        "{e}"
    );
    assert!(!e.contains("WARNING"), "https is not in clear: {e}");
    assert_eq!(
        s.get("/api/bots/alpha/versions/1").status,
        404,
        "nothing was uploaded"
    );

    // With it: uploaded, built, checked, in the ladder.
    let out = durak(
        &[
            "submit",
            "--server",
            &s.url,
            "--token",
            &token,
            "--ca-cert",
            &ca_arg,
            "--wait-s",
            "180",
            &bot,
        ],
        &[],
    );
    let e = text(&out.stderr);
    assert!(out.status.success(), "{e}\n{}", s.log());
    assert!(
        e.contains("PASSED: alpha version 1 is in the ladder"),
        "{e}"
    );

    // DURAK_CA_CERT does as --ca-cert; a CA file that is not one is named.
    let org = s.organiser.clone().unwrap();
    let out = durak(
        &["worker-token", "list", "--server", &s.url, "--token", &org],
        &[("DURAK_CA_CERT", &ca_arg)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bogus = tmp.path().join("bogus.pem");
    std::fs::write(&bogus, "hello\n").unwrap();
    let out = durak(
        &["worker-token", "list", "--server", &s.url, "--token", &org],
        &[("DURAK_CA_CERT", &bogus.display().to_string())],
    );
    let e = text(&out.stderr);
    assert!(
        !out.status.success() && e.contains("bogus.pem") && e.contains("DURAK_CA_CERT"),
        "{e}"
    );
}

#[test]
fn a_renewed_certificate_is_served_without_a_restart_and_a_bad_one_keeps_the_old() {
    let tmp = tempfile::tempdir().unwrap();
    let (ca1, ca2) = (Ca::new("durak test CA 1"), Ca::new("durak test CA 2"));
    let ca1_pem = ca1.write(&tmp.path().join("ca1.pem"));
    let ca2_pem = ca2.write(&tmp.path().join("ca2.pem"));
    // First a certificate for another name: the client says so.
    let files = ca1.write_server(tmp.path(), &["judge.example.org"], false);
    let mut s = tls_server(&tmp.path().join("data"), &files, &ca1_pem, &[]);
    let pid = s.child.id();
    let e = status_error(&s.url, Some(&ca1_pem)).expect("refused");
    assert!(
        e.contains("not for the host name \"127.0.0.1\"") && e.contains("fix:"),
        "{e}"
    );

    // Renewed, but expired: the running server serves it, and the client says it expired.
    ca1.write_server(tmp.path(), &["127.0.0.1"], true);
    let e = wait_for("the expired certificate to be served", 30, || {
        status_error(&s.url, Some(&ca1_pem)).filter(|e| e.contains("has expired"))
    });
    assert!(e.contains("renew"), "{e}");

    // A broken certificate file: the server keeps the previous one and says why.
    std::fs::write(&files.cert, "-----BEGIN CERTIFICATE-----\nnot base64\n").unwrap();
    // (The files are looked at when a client connects, at most every few seconds.)
    wait_for("the server to say the new files do not load", 30, || {
        let e = status_error(&s.url, Some(&ca1_pem)).expect("still the expired one");
        assert!(e.contains("has expired"), "{e}");
        s.log().contains("do not load").then_some(())
    });
    let log = s.log();
    assert!(
        log.contains("cert.pem") && log.contains("previous certificate is still served"),
        "{log}"
    );
    let e = status_error(&s.url, Some(&ca1_pem)).expect("still the expired one");
    assert!(e.contains("has expired"), "{e}");

    // A good renewal from another CA: served from now on, by the same process.
    ca2.write_server(tmp.path(), &["localhost", "127.0.0.1"], false);
    wait_for("the renewed certificate to be served", 30, || {
        status_error(&s.url, Some(&ca2_pem)).is_none().then_some(())
    });
    assert!(
        s.log().contains("a new certificate, served from now on"),
        "{}",
        s.log()
    );
    let e = status_error(&s.url, Some(&ca1_pem)).expect("CA 1 no longer signs it");
    assert!(e.contains("not signed by a CA this machine trusts"), "{e}");
    assert!(s.child.try_wait().unwrap().is_none(), "never restarted");
    assert_eq!(s.child.id(), pid);
    s.stop();
}

#[test]
fn a_bad_certificate_or_key_stops_the_start_naming_the_file_and_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new("durak test CA");
    let files = ca.write_server(tmp.path(), &["127.0.0.1"], false);
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let other_files = ca.write_server(&other, &["127.0.0.1"], false);
    let data = tmp.path().join("data").display().to_string();
    let serve = |cert: &Path, key: &Path| {
        durak(
            &[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--sandbox",
                "default",
                "--data-dir",
                &data,
                "--tls-cert",
                &cert.display().to_string(),
                "--tls-key",
                &key.display().to_string(),
            ],
            &[],
        )
    };
    let out = serve(&files.cert, &other_files.key);
    let e = text(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(
        e.contains("is not the key of") && e.contains("key.pem") && e.contains("fix:"),
        "{e}"
    );
    let out = serve(&files.cert, &tmp.path().join("missing.pem"));
    let e = text(&out.stderr);
    assert!(
        !out.status.success() && e.contains("missing.pem") && e.contains("--tls-key"),
        "{e}"
    );
    let out = serve(&files.key, &files.key);
    let e = text(&out.stderr);
    assert!(
        !out.status.success() && e.contains("no certificate in it") && e.contains("fullchain"),
        "{e}"
    );
    // In serve.toml: one without the other.
    let toml = tmp.path().join("serve.toml");
    std::fs::write(&toml, format!("[tls]\ncert = {:?}\n", files.cert)).unwrap();
    let out = durak(
        &[
            "serve",
            "--config",
            &toml.display().to_string(),
            "--data-dir",
            &data,
        ],
        &[],
    );
    let e = text(&out.stderr);
    assert!(
        !out.status.success()
            && e.contains("serve.toml")
            && e.contains("[tls] key")
            && e.contains("fix:"),
        "{e}"
    );
}

#[test]
fn a_client_says_when_the_server_does_not_speak_tls() {
    // A plain HTTP server on loopback that answers one request.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", l.local_addr().unwrap());
    let t = std::thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0u8; 512];
        let _ = c.read(&mut buf);
        let _ = c.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    });
    let e = status_error(&url, None).expect("refused");
    assert!(
        e.contains("does not speak TLS") && e.contains("http://"),
        "{e}"
    );
    t.join().unwrap();
}

#[test]
fn a_worker_plays_the_ladder_over_https() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new("durak test CA");
    let ca_pem = ca.write(&tmp.path().join("ca.pem"));
    let files = ca.write_server(tmp.path(), &["127.0.0.1"], false);
    let s = tls_server(
        &tmp.path().join("data"),
        &files,
        &ca_pem,
        &["--no-local-play", "--deals", "1"],
    );
    let org = s.organiser.clone().unwrap();
    let out = durak(
        &[
            "worker-token",
            "new",
            "--server",
            &s.url,
            "--token",
            &org,
            "--ca-cert",
            &ca_pem.display().to_string(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let token = text(&out.stdout).trim().to_string();
    let mut worker = Command::new(DURAK)
        .args(["worker", "--server", &s.url, "--token", &token, "--sandbox"])
        .arg(common::server::sandbox())
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .arg("--ca-cert")
        .arg(&ca_pem)
        .args(["--retry-s", "60"])
        .env_remove("DURAK_CA_CERT")
        .env("DURAK_EXE", DURAK)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("durak worker starts");
    let log = Arc::new(Mutex::new(String::new()));
    let stderr = worker.stderr.take().unwrap();
    let l = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            l.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
    // The house bots' jobs, played by the worker only (no local play), recorded.
    let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for("games played by the worker over https", 120, || {
            (s.games() >= 4).then_some(())
        })
    }));
    let _ = worker.kill();
    let _ = worker.wait();
    let log = log.lock().unwrap().clone();
    assert!(played.is_ok(), "worker:\n{log}\nserver:\n{}", s.log());
    assert!(log.contains(&format!("serving {}", s.url)), "{log}");
    assert!(!log.contains("WARNING"), "{log}");
}
