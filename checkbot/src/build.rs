//! A bot's build step (`build` in `bot.toml`, or `durak check-bot --build CMD`): a shell command
//! run in the bot's folder before the check, within a time limit, its output kept for the
//! report. It runs as the user who runs durak, with their environment (compilers need `PATH`,
//! `HOME`, `JAVA_HOME`...): it is the author's own code on the author's machine. (The judge
//! service will run it in the sandbox.)

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The default time limit of a build.
pub const DEFAULT_BUILD_TIMEOUT_S: u64 = 600;

/// Lines of a build's output kept for the report.
const TAIL_LINES: usize = 40;

/// How a build went.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Build {
    pub command: String,
    pub dir: String,
    /// Whether it succeeded (exit status 0 within the time limit).
    pub ok: bool,
    /// What went wrong, in words, when it did not succeed.
    pub failure: Option<String>,
    /// The end of its output (stdout and stderr, in the order they came).
    pub output: String,
    pub elapsed_ms: u64,
}

/// Run `command` with `sh -c` in `dir`, at most `limit`; then kill it and everything it
/// started (its own process group).
pub fn run(command: &str, dir: &Path, limit: Duration) -> Build {
    let started = Instant::now();
    let mut build = Build {
        command: command.into(),
        dir: dir.display().to_string(),
        ok: false,
        failure: None,
        output: String::new(),
        elapsed_ms: 0,
    };
    // stderr joins stdout in the shell, so the output keeps its order.
    let spawned = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            build.failure = Some(format!(
                "cannot run sh -c {command:?} in {}: {e}",
                dir.display()
            ));
            return build;
        }
    };
    let reader = child.stdout.take().expect("piped");
    let drain = std::thread::spawn(move || {
        let mut reader = reader;
        let mut all = Vec::new();
        let _ = reader.read_to_end(&mut all);
        all
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() >= limit => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    if status.is_none() {
        // Too slow: the whole group goes.
        if let Some(pg) = rustix::process::Pid::from_raw(child.id() as i32) {
            let _ = rustix::process::kill_process_group(pg, rustix::process::Signal::KILL);
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    // A process the build left running may still hold the pipe: take what came so far.
    let bytes = wait_join(drain, Duration::from_secs(2)).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    if lines.len() > TAIL_LINES {
        tail = format!("... ({} lines before)\n{tail}", lines.len() - TAIL_LINES);
    }
    build.output = tail;
    build.elapsed_ms = started.elapsed().as_millis() as u64;
    match status {
        Some(s) if s.success() => build.ok = true,
        Some(s) => {
            build.failure = Some(format!(
                "the build {}",
                durak_referee::process::describe_exit(s)
            ))
        }
        None => {
            build.failure = Some(format!(
                "the build did not finish within {} s and was stopped",
                limit.as_secs()
            ))
        }
    }
    build
}

/// Join a thread, waiting at most `limit`.
fn wait_join<T: Send + 'static>(h: std::thread::JoinHandle<T>, limit: Duration) -> Option<T> {
    let until = Instant::now() + limit;
    while !h.is_finished() {
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    h.join().ok()
}

impl Build {
    /// The build in words, for people: what ran, how it ended, the end of its output.
    pub fn to_text(&self) -> String {
        let mut o = format!(
            "build: {} (in {}): {} in {:.1} s\n",
            self.command,
            self.dir,
            if self.ok { "done" } else { "FAILED" },
            self.elapsed_ms as f64 / 1000.0
        );
        if let Some(f) = &self.failure {
            o.push_str(&format!("  {f}\n"));
        }
        if !self.ok && !self.output.is_empty() {
            o.push_str("  its output ended with:\n");
            for l in self.output.lines() {
                o.push_str(&format!("  | {l}\n"));
            }
        }
        durak_protocol::text::escape_controls_multiline(&o).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_succeeds_fails_or_is_stopped_with_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let b = run(
            "echo compiling; touch made",
            dir.path(),
            Duration::from_secs(20),
        );
        assert!(b.ok, "{b:?}");
        assert!(dir.path().join("made").exists());
        let b = run(
            "echo 'Bot.java:3: error: ; expected' >&2; exit 1",
            dir.path(),
            Duration::from_secs(20),
        );
        assert!(!b.ok);
        assert_eq!(b.failure.as_deref(), Some("the build exited with code 1"));
        assert!(b.output.contains("Bot.java:3: error"), "{b:?}");
        assert!(
            b.to_text().contains("| Bot.java:3: error"),
            "{}",
            b.to_text()
        );
        let t = Instant::now();
        let b = run(
            "echo start; sleep 30",
            dir.path(),
            Duration::from_millis(500),
        );
        assert!(!b.ok);
        assert!(
            b.failure
                .as_deref()
                .unwrap()
                .contains("did not finish within"),
            "{b:?}"
        );
        assert!(b.output.contains("start"), "{b:?}");
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the build was stopped"
        );
    }
}
