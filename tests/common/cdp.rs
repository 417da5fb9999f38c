//! Headless Chromium driven over the DevTools protocol, for tests that click through pages: the
//! browser is started with `--remote-debugging-pipe` (commands in on its fd 3, answers and events
//! out on its fd 4, each message JSON ended by a NUL byte), so no port and no websocket crate.
//! One page (a target attached with a flat session); every wait is bounded and says what it
//! waited for; the browser is killed when dropped. What the page logs (exceptions, console
//! errors, CSP violations) is kept for the test to assert on.

use serde_json::{json, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct Page {
    child: Child,
    to: File,
    from: Receiver<Value>,
    next: u64,
    session: String,
    /// Problems the page reported: exceptions, console errors, failed loads, CSP violations.
    pub problems: Vec<String>,
    _profile: tempfile::TempDir,
}

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the array.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // Moved above 10, so that putting them at 3 and 4 in the child never overwrites one.
    let high = |fd: RawFd| {
        // SAFETY: F_DUPFD_CLOEXEC on an fd we own.
        let h = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) };
        assert!(h >= 10);
        // SAFETY: closing our own fd.
        unsafe { libc::close(fd) };
        h
    };
    (high(fds[0]), high(fds[1]))
}

impl Page {
    /// Start the browser with one blank page, `width` x `height`.
    pub fn open(browser: &str, width: u32, height: u32) -> Page {
        let profile = tempfile::tempdir().unwrap();
        let (cmd_read, cmd_write) = pipe();
        let (out_read, out_write) = pipe();
        let mut c = Command::new(browser);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={width},{height}"))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only dup2 (async-signal-safe) between fork and exec.
        unsafe {
            c.pre_exec(move || {
                if libc::dup2(cmd_read, 3) < 0 || libc::dup2(out_write, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = c.spawn().expect("chromium starts");
        // SAFETY: the child has its copies; ours of its ends close here.
        unsafe {
            libc::close(cmd_read);
            libc::close(out_write);
        }
        // SAFETY: fds we own, each wrapped once.
        let to = unsafe { File::from_raw_fd(cmd_write) };
        // SAFETY: as above: out_read is ours and wrapped once.
        let from_file = unsafe { File::from_raw_fd(out_read) };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(from_file);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if buf.last() == Some(&0) {
                            buf.pop();
                        }
                        if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                            if tx.send(v).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        let mut p = Page {
            child,
            to,
            from: rx,
            next: 0,
            session: String::new(),
            problems: Vec::new(),
            _profile: profile,
        };
        let target = p.call("Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].as_str().expect("a target").to_string();
        let attached = p.call(
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        );
        p.session = attached["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        for m in ["Page.enable", "Runtime.enable", "Log.enable"] {
            p.call(m, json!({}));
        }
        p.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        p
    }

    fn note(&mut self, event: &Value) {
        let params = &event["params"];
        match event["method"].as_str().unwrap_or("") {
            "Runtime.exceptionThrown" => self.problems.push(format!(
                "exception: {}",
                params["exceptionDetails"]["exception"]["description"]
                    .as_str()
                    .unwrap_or(&params["exceptionDetails"]["text"].to_string())
            )),
            "Runtime.consoleAPICalled" if params["type"] == "error" => self
                .problems
                .push(format!("console error: {}", params["args"])),
            "Log.entryAdded" => {
                let e = &params["entry"];
                let text = e["text"].as_str().unwrap_or("");
                let url = e["url"].as_str().unwrap_or("");
                // No favicon: the browser asks, the server has none; nothing else may fail.
                if e["level"] == "error" && !url.ends_with("/favicon.ico") {
                    self.problems.push(format!(
                        "{}: {text} ({url})",
                        e["source"].as_str().unwrap_or("")
                    ));
                }
            }
            _ => {}
        }
    }

    /// Send a command (on the page's session once attached) and wait for its answer, at most
    /// 60 s; panics on a protocol error.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params)
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    pub fn try_call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .map_err(|e| format!("the browser's pipe: {e}"))?;
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(v) if v["id"] == json!(id) => {
                    if let Some(e) = v.get("error") {
                        return Err(e.to_string());
                    }
                    return Ok(v["result"].clone());
                }
                Ok(v) => self.note(&v),
                Err(RecvTimeoutError::Timeout) => return Err("no answer in 60 s".into()),
                Err(RecvTimeoutError::Disconnected) => return Err("the browser ended".into()),
            }
        }
    }

    /// Evaluate a JavaScript expression; its value (awaited when a promise), or the error.
    pub fn eval(&mut self, expr: &str) -> Result<Value, String> {
        let r = self.try_call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(d) = r.get("exceptionDetails") {
            return Err(d.to_string());
        }
        Ok(r["result"]["value"].clone())
    }

    /// Go to `url` and wait until it has loaded.
    pub fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        let want = url.to_string();
        self.wait(
            &format!("{url} to load"),
            30,
            &format!(
                "document.readyState === 'complete' && location.href === {} ? true : null",
                serde_json::to_string(&want).unwrap()
            ),
        );
    }

    /// Evaluate `expr` every 100 ms until it gives something else than null, undefined or
    /// false (errors while a page changes count as not yet), for at most `secs` seconds.
    pub fn wait(&mut self, what: &str, secs: u64, expr: &str) -> Value {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let last = match self.eval(expr) {
                Ok(v) if !(v.is_null() || v == json!(false)) => return v,
                Ok(v) => v.to_string(),
                Err(e) => e,
            };
            assert!(
                Instant::now() < until,
                "gave up after {secs} s waiting for {what} (last: {last}); the page: {}",
                self.eval("location.href + ' ' + document.body.innerText.slice(0, 2000)")
                    .unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The page's address now.
    pub fn location(&mut self) -> String {
        self.eval("location.href")
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }

    /// Choose `file` in the file input `selector`, as a person does in the file dialog.
    pub fn set_file(&mut self, selector: &str, file: &Path) {
        let doc = self.call("DOM.getDocument", json!({}));
        let root = doc["root"]["nodeId"].clone();
        let node = self.call(
            "DOM.querySelector",
            json!({"nodeId": root, "selector": selector}),
        );
        assert_ne!(node["nodeId"], json!(0), "no {selector} on the page");
        self.call(
            "DOM.setFileInputFiles",
            json!({"nodeId": node["nodeId"], "files": [file.display().to_string()]}),
        );
    }

    /// A PNG of the whole page once it has loaded, written to `path` (tried again for a few
    /// seconds: a page that reloads itself has no size for a moment).
    pub fn screenshot(&mut self, path: &Path) {
        let until = Instant::now() + Duration::from_secs(5);
        let shot = loop {
            let loaded = self.eval("document.readyState === 'complete' && document.body !== null");
            if loaded == Ok(json!(true)) {
                match self.try_call(
                    "Page.captureScreenshot",
                    json!({"format": "png", "captureBeyondViewport": true}),
                ) {
                    Ok(shot) => break shot,
                    Err(e) if Instant::now() > until => panic!("a screenshot: {e}"),
                    Err(_) => {}
                }
            }
            assert!(
                Instant::now() < until,
                "the page did not load for a screenshot"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let data = base64(shot["data"].as_str().expect("png data"));
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(path, data).unwrap();
    }

    /// What the page logged that should not be (drained).
    pub fn take_problems(&mut self) -> Vec<String> {
        while let Ok(v) = self.from.try_recv() {
            self.note(&v);
        }
        std::mem::take(&mut self.problems)
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64, decoded (the screenshots' encoding).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
