//! `durak replay --html` in a real browser (issue 5): Debian's Chromium, headless, loads the page
//! with no console message at all (errors, CSP violations, ...), stepping (URL fragment, scripted
//! arrow keys) changes what is shown, a seat's view hides the other hands, and the run saves a
//! screenshot (target/tmp/replay_html/*.png).
//!
//! Without Chromium the tests are skipped with a note (tests/common/system.rs); CI installs it
//! (`apt-get install -y chromium fonts-dejavu-core`) and requires it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

fn chromium() -> Option<&'static str> {
    static FOUND: OnceLock<Option<&'static str>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .into_iter()
            .find(|b| {
                Command::new(b)
                    .arg("--version")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            })
    })
}

macro_rules! require_chromium {
    () => {
        match common::require_with("chromium", "chromium fonts-dejavu-core", || {
            chromium()
                .map(PathBuf::from)
                .ok_or_else(|| "no chromium, chromium-browser or google-chrome on PATH".into())
        }) {
            Some(_) => chromium().expect("found"),
            None => return,
        }
    };
}

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay_html");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A real game: `durak play` writes the replay, `durak replay --html` the page. Written once.
fn page() -> &'static Path {
    static PAGE: OnceLock<PathBuf> = OnceLock::new();
    PAGE.get_or_init(|| {
        let dir = out_dir();
        let replays = dir.join("replays");
        let _ = std::fs::remove_dir_all(&replays);
        let o = Command::new(DURAK)
            .args([
                "play",
                "--variant",
                "prostoy",
                "--seed",
                "100",
                "--games",
                "1",
            ])
            .arg("--replay-dir")
            .arg(&replays)
            .args(["builtin:greedy", "builtin:random", "builtin:greedy"])
            .env("DURAK_EXE", DURAK)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let page = dir.join("game.html");
        let o = Command::new(DURAK)
            .arg("replay")
            .arg("--html")
            .arg(&page)
            .arg(replays.join("game-0000.jsonl"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        page
    })
}

/// Run headless Chromium on `url` with a fresh profile; returns (stdout, stderr).
fn run_chromium(browser: &str, url: &str, extra: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // Never hang the test suite on a stuck browser.
    let deadline = Instant::now() + Duration::from_secs(60);
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
            if !Path::new(&format!("/proc/{pid}")).exists() {
                return;
            }
        }
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    });
    let Output { stdout, stderr, .. } = child.wait_with_output().unwrap();
    let _ = watchdog.join();
    (
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// The console messages Chromium logged (any level: the page logs nothing when all is well).
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

fn url(page: &Path, fragment: &str) -> String {
    format!("file://{}#{fragment}", page.display())
}

/// The DOM after the page's script ran, checked for console messages.
fn dom(browser: &str, page: &Path, fragment: &str) -> String {
    let (out, err) = run_chromium(browser, &url(page, fragment), &["--dump-dom"]);
    let console = console_lines(&err);
    assert!(
        console.is_empty(),
        "#{fragment}: console messages: {console:#?}"
    );
    assert!(
        out.contains("id=\"seats\""),
        "#{fragment}: no DOM dumped; stderr:\n{err}"
    );
    out
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let i = text.find(start).unwrap_or_else(|| panic!("no {start:?}"));
    let rest = &text[i..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

fn body_attr(dom: &str, name: &str) -> String {
    let body = between(dom, "<body", ">");
    let key = format!("{name}=\"");
    let i = body
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {body}"));
    body[i + key.len()..].split('"').next().unwrap().to_string()
}

#[test]
fn the_console_check_catches_errors() {
    let browser = require_chromium!();
    let probe = out_dir().join("probe.html");
    std::fs::write(
        &probe,
        "<!DOCTYPE html><html><body><script>throw new Error('probe-error')</script></body></html>",
    )
    .unwrap();
    let (_, err) = run_chromium(browser, &url(&probe, ""), &["--dump-dom"]);
    let console = console_lines(&err);
    assert!(
        console.iter().any(|l| l.contains("probe-error")),
        "a thrown error must show in the console log, or the check below proves nothing: {err}"
    );
}

#[test]
fn stepping_and_views_in_the_browser() {
    let browser = require_chromium!();
    let page = page();
    let first = dom(browser, page, "step=1");
    assert_eq!(body_attr(&first, "data-step"), "1");
    assert_eq!(body_attr(&first, "data-view"), "full");
    assert!(first.contains("Step 1 / "), "the status line");
    let seats = between(&first, "id=\"seats\"", "</section>");
    assert!(
        !seats.contains("card back"),
        "the full view shows every hand"
    );
    assert_eq!(
        seats.matches("data-card=").count(),
        15,
        "3 hands of 5 cards"
    );

    // A later step shows something else.
    let later = dom(browser, page, "step=9");
    assert_eq!(body_attr(&later, "data-step"), "9");
    assert_ne!(
        between(&first, "id=\"felt\"", "id=\"decision\""),
        between(&later, "id=\"felt\"", "id=\"decision\""),
        "the table, stock or discard changed"
    );
    assert_ne!(
        between(&first, "id=\"title-bar\"", "</section>"),
        between(&later, "id=\"title-bar\"", "</section>")
    );

    // Arrow keys pressed by a script after loading: three steps on, one back.
    let pressed = dom(
        browser,
        page,
        "step=2&press=ArrowRight,ArrowRight,ArrowRight,ArrowLeft",
    );
    assert_eq!(body_attr(&pressed, "data-step"), "4");
    let end = dom(browser, page, "step=3&press=End");
    let last = body_attr(&end, "data-step");
    assert!(
        end.contains("class=\"result-box\""),
        "the last step shows the result"
    );
    assert!(last.parse::<usize>().unwrap() > 9);

    // Seat 1's view: its own five cards face up, the others' hands as backs.
    let seat = dom(browser, page, "step=1&seat=1");
    assert_eq!(body_attr(&seat, "data-view"), "1");
    let seats = between(&seat, "id=\"seats\"", "</section>");
    assert_eq!(seats.matches("card back").count(), 10, "{seats}");
    assert_eq!(seats.matches("data-card=").count(), 5, "{seats}");
    assert!(seat.contains("selected") || seat.contains("seat 1 ·"));
}

#[test]
fn a_fault_is_highlighted() {
    let browser = require_chromium!();
    let dir = out_dir();
    let replay =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("replay/tests/data/fault-malformed.jsonl");
    let page = dir.join("fault.html");
    let o = Command::new(DURAK)
        .arg("replay")
        .arg("--html")
        .arg(&page)
        .arg(&replay)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = dom(browser, &page, "press=End");
    assert!(d.contains("class=\"fault-box\""), "the fault banner");
    let seats = between(&d, "id=\"seats\"", "</section>");
    assert_eq!(
        seats.matches(" faulted").count(),
        1,
        "the faulting seat's panel: {seats}"
    );
    assert!(d.contains("sent a line that is not JSON"));
    let (_, err) = run_chromium(
        browser,
        &url(&page, "press=End"),
        &[
            &format!("--screenshot={}", dir.join("fault.png").display()),
            "--window-size=1280,900",
        ],
    );
    assert!(console_lines(&err).is_empty(), "{err}");
    assert!(dir.join("fault.png").is_file());
}

#[test]
fn screenshot() {
    let browser = require_chromium!();
    let shot = out_dir().join("screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let (_, err) = run_chromium(
        browser,
        &url(page(), "step=9"),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,900",
        ],
    );
    assert!(console_lines(&err).is_empty(), "{err}");
    let bytes = std::fs::read(&shot).unwrap_or_else(|e| panic!("{}: {e}\n{err}", shot.display()));
    assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
    assert!(bytes.len() > 20_000, "a real picture, not a blank page");
    eprintln!("screenshot: {}", shot.display());
}
