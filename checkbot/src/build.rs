//! A bot's build step (`build` in `bot.toml`, or `durak check-bot --build CMD`): a shell command
//! run in the bot's folder before the check, within a time limit, its output kept for the
//! report. It runs as the user who runs durak, with their environment (compilers need `PATH`,
//! `HOME`, `JAVA_HOME`...): it is the author's own code on the author's machine. The judge
//! service runs it in its sandbox, under its limits, through the same runner (`runner`).

pub mod runner;

use std::path::Path;
use std::time::Duration;

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

/// Run `command` with `sh -c` in `dir`, here, at most `limit`; then kill it and everything it
/// started (its own process group).
pub fn run(command: &str, dir: &Path, limit: Duration) -> Build {
    let mut build = Build {
        command: command.into(),
        dir: dir.display().to_string(),
        ok: false,
        failure: None,
        output: String::new(),
        elapsed_ms: 0,
    };
    let spec = runner::Spec {
        command,
        folder: dir,
        timeout: limit,
        isolation: None,
        disk: None,
        keep_lines: TAIL_LINES,
        line_chars: None,
    };
    let ran = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .and_then(|rt| rt.block_on(runner::run(&spec)));
    let ran = match ran {
        Ok(r) => r,
        Err(e) => {
            build.failure = Some(format!(
                "cannot run sh -c {command:?} in {}: {e}",
                dir.display()
            ));
            return build;
        }
    };
    build.output = ran.output.text().trim_end().to_string();
    build.elapsed_ms = ran.elapsed.as_millis() as u64;
    match (ran.stopped, ran.status) {
        (None, Some(s)) if s.success() => build.ok = true,
        (None, Some(s)) => {
            build.failure = Some(format!(
                "the build {}",
                durak_referee::process::describe_exit(s)
            ))
        }
        _ => {
            build.failure = Some(format!(
                "the build did not finish within {} s and was stopped",
                limit.as_secs()
            ))
        }
    }
    build
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
    use std::time::Instant;

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
