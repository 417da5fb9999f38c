//! Headless Chromium for the tests of web pages: found or skipped
//! (`referee/tests/common/system.rs`), run with a fresh profile and a watchdog, its console messages, the DOM it dumps, and a harness
//! that measures a page in a frame of a given width.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub fn chromium() -> Option<&'static str> {
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

#[macro_export]
macro_rules! require_chromium {
    () => {
        match $crate::common::require_with("chromium", "chromium fonts-dejavu-core", || {
            $crate::common::browser::chromium()
                .map(std::path::PathBuf::from)
                .ok_or_else(|| "no chromium, chromium-browser or google-chrome on PATH".into())
        }) {
            Some(_) => $crate::common::browser::chromium().expect("found"),
            None => return,
        }
    };
}

/// Run headless Chromium on `url` with a fresh profile; returns (stdout, stderr).
pub fn run_chromium(browser: &str, url: &str, extra: &[&str]) -> (String, String) {
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

/// The console messages Chromium logged (any level: a page logs nothing when all is well).
pub fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

pub fn url(page: &Path, fragment: &str) -> String {
    format!("file://{}#{fragment}", page.display())
}

pub fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let i = text.find(start).unwrap_or_else(|| panic!("no {start:?}"));
    let rest = &text[i..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

pub fn body_attr(dom: &str, name: &str) -> String {
    let body = between(dom, "<body", ">");
    let key = format!("{name}=\"");
    let i = body
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {body}"));
    body[i + key.len()..].split('"').next().unwrap().to_string()
}

/// What a harness page measured of `page#fragment` in a frame `width` px wide, after `ms` of
/// (virtual) time: the frame's width, the document's scroll width, the first elements wider
/// than the frame, and `extra`'s result (a JavaScript expression of `d`, the frame's document,
/// e.g. the charts' sizes). The harness has no CSP of its own; Chromium lets it read the frame
/// with --allow-file-access-from-files.
pub fn measure(
    browser: &str,
    page: &Path,
    fragment: &str,
    width: u32,
    extra: &str,
) -> (u32, u32, String, String) {
    let harness = page.with_file_name(format!(
        "harness-{}-{width}.html",
        page.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::write(
        &harness,
        format!(
            r#"<!DOCTYPE html><html><body><iframe id="f" style="width:{width}px;height:900px;border:0" src="{}#{fragment}"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {{
  setTimeout(function () {{
    var d = this.contentDocument, w = d.documentElement.clientWidth, wide = [];
    d.querySelectorAll("body *").forEach(function (e) {{
      var r = e.getBoundingClientRect(), s = e.closest(".scroll");
      if (r.right > w + 0.5 && r.width > 0 && !s) wide.push(e.tagName + "." + e.className + " " + Math.round(r.right));
    }});
    document.body.setAttribute("data-width", w);
    document.body.setAttribute("data-scroll", d.documentElement.scrollWidth);
    document.body.setAttribute("data-wide", wide.slice(0, 5).join(" | ") || "none");
    document.body.setAttribute("data-extra", String((function (d) {{ return {extra}; }})(d)));
  }}.bind(this), 300);
}});
</script></body></html>"#,
            page.file_name().unwrap().to_string_lossy()
        ),
    )
    .unwrap();
    let (out, err) = run_chromium(
        browser,
        &url(&harness, ""),
        &[
            "--dump-dom",
            "--allow-file-access-from-files",
            "--virtual-time-budget=3000",
        ],
    );
    let body = between(&out, "<body", ">").to_string();
    let attr = |k: &str| -> String {
        let key = format!("{k}=\"");
        let i = body
            .find(&key)
            .unwrap_or_else(|| panic!("{}: no {k}: {body}\n{err}", page.display()));
        body[i + key.len()..].split('"').next().unwrap().to_string()
    };
    (
        attr("data-width").parse().unwrap(),
        attr("data-scroll").parse().unwrap(),
        attr("data-wide"),
        attr("data-extra").replace("&amp;", "&"),
    )
}

/// Serve `dir` over HTTP on 127.0.0.1 (a port of the system's choosing) for the rest of the test
/// binary: a GET's path is a file under `dir`, sent with its content type, else 404. Enough to
/// check that a page works from a server as well as from a folder on disk.
pub fn serve(dir: &Path) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(&stream);
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    return;
                }
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                let path = request.split(' ').nth(1).unwrap_or("/");
                let path = path.split(['?', '#']).next().unwrap_or("/");
                let file = dir.join(path.trim_start_matches('/'));
                let inside = !path.split('/').any(|p| p == "..");
                let (status, body) = match std::fs::read(&file) {
                    Ok(b) if inside => ("200 OK", b),
                    _ => ("404 Not Found", b"not found".to_vec()),
                };
                let kind = match file.extension().and_then(|e| e.to_str()) {
                    Some("html") => "text/html; charset=utf-8",
                    Some("js") => "text/javascript; charset=utf-8",
                    Some("css") => "text/css; charset=utf-8",
                    Some("json" | "jsonl") => "application/json",
                    Some("csv") => "text/csv; charset=utf-8",
                    _ => "application/octet-stream",
                };
                let mut out = &stream;
                let _ = write!(
                    out,
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = out.write_all(&body);
            });
        }
    });
    base
}
