//! The endgame analysis in a process of its own: `durak analysis-worker`, which the server
//! starts when it runs as the `durak` binary ([`use_program`]), at the scheduler's idle
//! priority.
//!
//! Why not a thread of the server (issue 23): the server's memory is shared, copy-on-write,
//! with every bot's supervisor it forks, so a page the solver writes is copied, and each copy
//! flushes that page from every CPU running a thread of the server: an interrupt to the CPU
//! of a table, which waits for it. Solving in a thread at idle priority cost the ladder about
//! a third of its games per second (1,212 to 1,222 games/s without it against 825 to 929 with
//! it, docs/BENCHMARKS.md); in a process of its own, it shares no memory with the tables.
//!
//! The exchange, on the worker's stdin and stdout: the worker says [`HELLO`]; then for each
//! request (a line `LEN NAME`, then the replay's `LEN` bytes of JSON lines) it answers one JSON
//! line, `{"endgame": [...], "seats": [[...], ...]}` or `{"error": "..."}`. It ends at the end
//! of its stdin (the server stopped, or was killed). A worker that dies on a game costs only
//! that game's analysis (kept as analysed with no values); the next game starts a new one.

use super::{AnalysisError, GameAnalysis};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

/// The subcommand of the `durak` binary that runs [`main`].
pub const SUBCOMMAND: &str = "analysis-worker";
/// The worker's first line.
pub const HELLO: &str = "durak analysis-worker 1";

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Have the server's analysis run in `program analysis-worker` (`durak serve` gives its own
/// executable). Without it (a library's tests), the analysis runs in the server's thread.
pub fn use_program(program: PathBuf) {
    let _ = PROGRAM.set(program);
}

/// The program [`use_program`] set.
pub(super) fn program() -> Option<&'static PathBuf> {
    PROGRAM.get()
}

#[derive(Serialize, Deserialize)]
struct Answer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    endgame: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seats: Option<Vec<[u64; 3]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// `durak analysis-worker`: idle priority, [`HELLO`], then an answer per request until the end
/// of stdin.
pub fn main() -> std::io::Result<()> {
    super::idle_priority();
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut out = std::io::stdout().lock();
    writeln!(out, "{HELLO}")?;
    out.flush()?;
    let mut head = String::new();
    loop {
        head.clear();
        if input.read_line(&mut head)? == 0 {
            return Ok(());
        }
        let (len, name) = parse_head(&head)?;
        let mut text = vec![0; len];
        input.read_exact(&mut text)?;
        let answer = match super::compute(&text, name) {
            Ok(a) => Answer {
                endgame: Some(a.endgame),
                seats: Some(a.seats),
                error: None,
            },
            Err(e) => Answer {
                endgame: None,
                seats: None,
                error: Some(e.to_string()),
            },
        };
        serde_json::to_writer(&mut out, &answer)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
}

fn parse_head(head: &str) -> std::io::Result<(usize, &str)> {
    let bad = || std::io::Error::other(format!("not a request: {:?}", head.trim_end()));
    let (len, name) = head.trim_end().split_once(' ').ok_or_else(bad)?;
    Ok((len.parse().map_err(|_| bad())?, name))
}

/// The server's side: one worker process.
pub(super) struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    /// Start `program analysis-worker` and read its hello.
    pub(super) fn start(program: &std::path::Path) -> std::io::Result<Worker> {
        let mut child = Command::new(program)
            .arg(SUBCOMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut w = Worker {
            child,
            stdin,
            stdout,
        };
        let hello = w.line()?;
        if hello.trim_end() != HELLO {
            return Err(std::io::Error::other(format!(
                "{} {SUBCOMMAND} said {:?}, not {HELLO:?}",
                program.display(),
                hello.trim_end()
            )));
        }
        Ok(w)
    }

    /// The worker process's id.
    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut l = String::new();
        if self.stdout.read_line(&mut l)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the analysis worker ended",
            ));
        }
        Ok(l)
    }

    /// Analyse one replay: `Err` when the worker failed (it is then of no more use), `Ok` with
    /// the analysis or why the replay has none.
    pub(super) fn analyse(
        &mut self,
        text: &[u8],
        name: &str,
    ) -> std::io::Result<Result<GameAnalysis, AnalysisError>> {
        // A name is one word on the request's line.
        let name = name.replace(char::is_whitespace, "_");
        writeln!(self.stdin, "{} {name}", text.len())?;
        self.stdin.write_all(text)?;
        self.stdin.flush()?;
        let line = self.line()?;
        let a: Answer = serde_json::from_str(&line).map_err(std::io::Error::other)?;
        Ok(match (a.endgame, a.seats, a.error) {
            (Some(endgame), Some(seats), None) => Ok(GameAnalysis { endgame, seats }),
            (_, _, Some(e)) => Err(AnalysisError::NotAReplay(e)),
            _ => return Err(std::io::Error::other(format!("not an answer: {line}"))),
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &std::path::Path, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(format!("worker{}.sh", body.len()));
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// [`Worker::start`], again while the script is "busy" (another test's fork may hold it
    /// open for writing a moment: ETXTBSY).
    fn start(program: &std::path::Path) -> std::io::Result<Worker> {
        for _ in 0..100 {
            match Worker::start(program) {
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                r => return r,
            }
        }
        Worker::start(program)
    }

    #[test]
    fn a_program_that_is_not_the_worker_is_refused_at_its_hello() {
        let d = tempfile::tempdir().unwrap();
        let e = start(&script(d.path(), "echo running 0 tests"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("said \"running 0 tests\""), "{e}");
        let e = start(&script(d.path(), "exit 0")).err().unwrap();
        assert_eq!(e.to_string(), "the analysis worker ended");
    }

    #[test]
    fn answers_are_read_and_a_worker_that_dies_mid_game_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        // Answers the first request, then dies while "solving" the second.
        let body = format!(
            "echo '{HELLO}'\nread h; head -c ${{h%% *}} >/dev/null\n\
             echo '{{\"endgame\":[\"a\"],\"seats\":[[1,2,0],[3,0,1]]}}'\n\
             read h; head -c ${{h%% *}} >/dev/null\necho '{{\"error\":\"no result line\"}}'\n\
             read h; exit 3"
        );
        let mut w = start(&script(d.path(), &body)).unwrap();
        let a = w
            .analyse(b"line one\nline two\n", "j1 g0")
            .unwrap()
            .unwrap();
        assert_eq!(a.endgame, vec!["a".to_string()]);
        assert_eq!(a.seats, vec![[1, 2, 0], [3, 0, 1]]);
        let e = w.analyse(b"x\n", "j1/g1").unwrap().unwrap_err();
        assert_eq!(e.to_string(), "no result line");
        // Dead while the request is written (a broken pipe) or before it answers.
        let e = w.analyse(b"y\n", "j1/g2").unwrap_err();
        assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::UnexpectedEof
            ),
            "{e}"
        );
    }

    #[test]
    fn a_request_head_is_a_length_and_a_name() {
        assert_eq!(parse_head("12 db:j1/g0\n").unwrap(), (12, "db:j1/g0"));
        assert!(parse_head("twelve x\n").is_err());
        assert!(parse_head("12\n").is_err());
    }
}
