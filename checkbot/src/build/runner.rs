//! The one build runner, for `durak check-bot --build` on the author's machine and for the judge
//! service's build of an upload in its sandbox: `sh -c COMMAND` in the bot's folder, its stdout
//! and stderr together (the shell joins them, so the output keeps its order), stopped at its
//! time limit and, when a disk limit is set, when its folder grows past it (looked at every
//! 50 ms); everything it started is killed at the end. What the build did is returned as
//! [`Ran`]: each caller words it for its reader ([`super::run`], the service's `build.rs`).

use durak_referee::isolation::Context;
use durak_referee::{BotCommand, BotProcess, IoFault, Isolation, SpawnOptions};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// Entries counted at most when measuring a folder (a build making more is over any limit).
pub const MAX_ENTRIES: usize = 200_000;

/// Longest line of output read as one line; the rest of a longer line is not kept.
const MAX_LINE: usize = 64 * 1024;

/// A build to run.
#[derive(Clone, Debug)]
pub struct Spec<'a> {
    pub command: &'a str,
    pub folder: &'a Path,
    pub timeout: Duration,
    /// Where it runs: `None` here, as the user who runs durak, with their environment
    /// (compilers need `PATH`, `HOME`, `JAVA_HOME`...); `Some` in the referee's isolation (its
    /// sandbox and limits; the service's build), hiding the paths given.
    pub isolation: Option<(Isolation, Vec<PathBuf>)>,
    /// What it may leave in its folder, in bytes ([`folder_size`]).
    pub disk: Option<u64>,
    /// Lines of output kept (the last ones), and characters kept of one line.
    pub keep_lines: usize,
    pub line_chars: Option<usize>,
}

/// Why the runner stopped a build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// At its time limit.
    Time,
    /// Its folder held more than the disk limit (`too_many`: more than [`MAX_ENTRIES`] entries).
    Disk { bytes: u64, too_many: bool },
    /// Killed for its memory: the referee's words for it.
    Memory(String),
}

/// What a build did.
#[derive(Debug)]
pub struct Ran {
    /// How its shell exited, when it did.
    pub status: Option<ExitStatus>,
    pub stopped: Option<Stopped>,
    pub output: Tail,
    /// Forks refused for its process limit (its cgroup's count, or lines of output saying so).
    pub forks_refused: u64,
    /// What its folder holds after it, in bytes (measured when a disk limit is set).
    pub folder_bytes: u64,
    pub elapsed: Duration,
}

/// The last lines of a build's output.
#[derive(Debug, Default)]
pub struct Tail {
    pub lines: std::collections::VecDeque<String>,
    /// Lines before the kept ones.
    pub dropped: usize,
    /// Lines saying a fork was refused (`sh: Cannot fork`, `fork: Resource temporarily
    /// unavailable`): where `RLIMIT_NPROC` meets a fork bomb before the cgroup's `pids.max`
    /// does, the cgroup counts nothing, and this is how it is seen.
    pub fork_failures: u64,
    keep: usize,
    line_chars: Option<usize>,
}

/// Whether an output line says a fork was refused.
fn says_fork_refused(line: &str) -> bool {
    line.contains("Cannot fork")
        || line.contains("fork failed")
        || (line.contains("fork") && line.contains("Resource temporarily unavailable"))
}

impl Tail {
    pub fn new(keep: usize, line_chars: Option<usize>) -> Tail {
        Tail {
            keep,
            line_chars,
            ..Tail::default()
        }
    }

    pub fn push(&mut self, line: &[u8]) {
        let mut s = String::from_utf8_lossy(line).into_owned();
        if says_fork_refused(&s) {
            self.fork_failures += 1;
        }
        if let Some(n) = self.line_chars.filter(|&n| s.chars().count() > n) {
            s = s.chars().take(n).collect::<String>() + " ...";
        }
        self.lines.push_back(s);
        if self.lines.len() > self.keep {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }

    /// The kept lines, each ended by a newline, after a line counting those before them.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if self.dropped > 0 {
            out.push_str(&format!("... ({} lines before)\n", self.dropped));
        }
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }
}

/// How a walk of a folder ended.
#[derive(PartialEq)]
pub enum Walk {
    Done,
    /// `visit` asked to stop.
    Stopped,
    /// More than `MAX_ENTRIES` entries.
    TooMany,
}

/// Visit the metadata of every entry under `dir`, at most [`MAX_ENTRIES`] of them, until
/// `visit` returns true.
pub fn walk(dir: &Path, mut visit: impl FnMut(&std::fs::Metadata) -> bool) -> Walk {
    let mut seen = 0usize;
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return Walk::TooMany;
            }
            let Ok(m) = e.metadata() else { continue };
            if visit(&m) {
                return Walk::Stopped;
            }
            if m.is_dir() {
                todo.push(e.path());
            }
        }
    }
    Walk::Done
}

/// The bytes under `dir` (files and links, not following links), and whether the count
/// stopped at [`MAX_ENTRIES`].
pub fn folder_size(dir: &Path) -> (u64, bool) {
    let mut total = 0u64;
    let walked = walk(dir, |m| {
        // Blocks really used, not the apparent size (a sparse file counts what it holds).
        use std::os::unix::fs::MetadataExt;
        total += (m.blocks() * 512).max(if m.is_file() { 0 } else { 4096 });
        false
    });
    (total, walked == Walk::TooMany)
}

/// The build's shell: here (its own process group) or through the referee's isolation.
enum Child {
    Here {
        child: Box<tokio::process::Child>,
        out: Box<tokio::io::BufReader<tokio::process::ChildStdout>>,
        /// The line being read, and whether it went past [`MAX_LINE`] (the rest is skipped).
        line: Vec<u8>,
        overlong: bool,
    },
    Isolated(Box<BotProcess>),
}

impl Child {
    fn spawn(spec: &Spec) -> std::io::Result<Child> {
        let script = format!("exec 2>&1\n{}", spec.command);
        let Some((isolation, hidden)) = &spec.isolation else {
            let mut child = tokio::process::Command::new("sh")
                .arg("-c")
                .arg(script)
                .current_dir(spec.folder)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .process_group(0)
                .kill_on_drop(true)
                .spawn()?;
            let out = child.stdout.take().expect("piped");
            return Ok(Child::Here {
                child: Box::new(child),
                out: Box::new(tokio::io::BufReader::new(out)),
                line: Vec::new(),
                overlong: false,
            });
        };
        let cmd = BotCommand {
            spec: format!("build: {}", spec.command),
            program: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), script],
            cwd: Some(spec.folder.to_path_buf()),
            isolation: isolation.clone(),
        };
        let opts = SpawnOptions {
            max_line: MAX_LINE,
            stderr_cap: 64 * 1024,
            context: Context {
                games: 1,
                hidden: hidden.clone(),
            },
        };
        BotProcess::spawn_with(&cmd, &opts).map(|p| Child::Isolated(Box::new(p)))
    }

    /// The next line of output within `wait`.
    async fn line(&mut self, wait: Duration) -> Result<Vec<u8>, IoFault> {
        use tokio::io::AsyncBufReadExt;
        let (out, line, overlong) = match self {
            Child::Isolated(p) => return p.recv(wait).await.map(|(l, _)| l.to_vec()),
            Child::Here {
                out,
                line,
                overlong,
                ..
            } => (out, line, overlong),
        };
        let until = tokio::time::Instant::now() + wait;
        loop {
            // `fill_buf` takes nothing until `consume`: a timeout loses no byte.
            let buf = match tokio::time::timeout_at(until, out.fill_buf()).await {
                Err(_) => return Err(IoFault::Timeout),
                Ok(Err(_)) => return Err(IoFault::Closed),
                Ok(Ok([])) if line.is_empty() => return Err(IoFault::Closed),
                Ok(Ok([])) => {
                    *overlong = false;
                    return Ok(std::mem::take(line));
                }
                Ok(Ok(buf)) => buf,
            };
            let end = buf.iter().position(|&b| b == b'\n');
            let take = end.unwrap_or(buf.len());
            let room = MAX_LINE.saturating_sub(line.len());
            line.extend_from_slice(&buf[..take.min(room)]);
            *overlong |= take > room;
            out.consume(end.map_or(take, |e| e + 1));
            if end.is_some() {
                *overlong = false;
                return Ok(std::mem::take(line));
            }
        }
    }

    fn try_exit(&mut self) -> Option<ExitStatus> {
        match self {
            Child::Here { child, .. } => child.try_wait().ok().flatten(),
            Child::Isolated(p) => p.try_exit(),
        }
    }

    fn process_limit_hits(&self) -> u64 {
        match self {
            Child::Here { .. } => 0,
            Child::Isolated(p) => p.process_limit_hits(),
        }
    }

    /// Kill it and everything it started (its process group).
    async fn kill(&mut self) {
        match self {
            Child::Here { child, .. } => {
                if let Some(pg) = child
                    .id()
                    .and_then(|id| rustix::process::Pid::from_raw(id as i32))
                {
                    let _ = rustix::process::kill_process_group(pg, rustix::process::Signal::KILL);
                }
                let _ = child.kill().await;
            }
            Child::Isolated(p) => p.kill().await,
        }
    }
}

/// Run a build (see the module documentation); `Err` when it could not be started.
pub async fn run(spec: &Spec<'_>) -> std::io::Result<Ran> {
    let started = Instant::now();
    let mut child = Child::spawn(spec)?;
    let mut output = Tail::new(spec.keep_lines, spec.line_chars);
    let mut stopped = None;
    let mut last_size_check = Instant::now();
    let mut stdout_open = true;
    loop {
        if started.elapsed() >= spec.timeout {
            stopped = Some(Stopped::Time);
            break;
        }
        if let Some(disk) = spec.disk {
            if last_size_check.elapsed() >= Duration::from_millis(50) {
                last_size_check = Instant::now();
                let (bytes, too_many) = folder_size(spec.folder);
                if bytes > disk || too_many {
                    stopped = Some(Stopped::Disk { bytes, too_many });
                    break;
                }
            }
        }
        if !stdout_open {
            if child.try_exit().is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        match child.line(Duration::from_millis(50)).await {
            Ok(line) => output.push(&line),
            // Gone, and quiet for 50 ms: what it left running may hold the pipe open for long.
            Err(IoFault::Timeout) if child.try_exit().is_some() => break,
            Err(IoFault::Timeout | IoFault::Starved { .. }) => {}
            Err(IoFault::LineTooLong) => {
                output.push(b"(a line longer than 64 KiB: the output after it is not kept)");
                stdout_open = false;
            }
            Err(IoFault::Memory(how)) => {
                stopped = Some(Stopped::Memory(how));
                break;
            }
            Err(IoFault::Closed) => stdout_open = false,
            Err(IoFault::Crash(_) | IoFault::Quit) => break,
        }
    }
    let status = child.try_exit();
    // Read before the kill: its cgroup goes with it.
    let forks_refused = child.process_limit_hits().max(output.fork_failures);
    child.kill().await;
    let folder_bytes = spec.disk.map_or(0, |_| folder_size(spec.folder).0);
    Ok(Ran {
        status,
        stopped,
        output,
        forks_refused,
        folder_bytes,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here<'a>(command: &'a str, folder: &'a Path, timeout: Duration) -> Spec<'a> {
        Spec {
            command,
            folder,
            timeout,
            isolation: None,
            disk: None,
            keep_lines: 3,
            line_chars: Some(10),
        }
    }

    fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn the_last_lines_are_kept_each_cut_and_a_line_without_newline_too() {
        let dir = tempfile::tempdir().unwrap();
        let spec = here(
            "for i in 1 2 3 4 5; do echo line$i; done; echo 0123456789abcdef >&2; printf end",
            dir.path(),
            Duration::from_secs(20),
        );
        let ran = block_on(run(&spec)).unwrap();
        assert!(ran.status.unwrap().success(), "{ran:?}");
        assert_eq!(ran.stopped, None);
        assert_eq!(
            ran.output.text(),
            "... (4 lines before)\nline5\n0123456789 ...\nend\n"
        );
    }

    #[test]
    fn an_overlong_line_is_cut_and_the_build_still_drains_its_output() {
        let dir = tempfile::tempdir().unwrap();
        // 200 KiB without a newline, then a line: the build is not blocked on a full pipe.
        let mut spec = here(
            "head -c 204800 /dev/zero | tr '\\0' x; echo; echo after",
            dir.path(),
            Duration::from_secs(20),
        );
        spec.line_chars = None;
        let ran = block_on(run(&spec)).unwrap();
        assert!(ran.status.unwrap().success(), "{ran:?}");
        let lines: Vec<_> = ran.output.lines.iter().collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "after");
    }

    #[test]
    fn a_build_over_its_disk_limit_or_time_is_stopped_with_all_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = here(
            "head -c 2000000 /dev/zero > big; sleep 30",
            dir.path(),
            Duration::from_secs(20),
        );
        spec.disk = Some(1_000_000);
        let t = Instant::now();
        let ran = block_on(run(&spec)).unwrap();
        assert!(
            matches!(ran.stopped, Some(Stopped::Disk { bytes, too_many: false }) if bytes > 1_000_000),
            "{ran:?}"
        );
        assert!(ran.folder_bytes > 1_000_000, "{ran:?}");
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        // A process the build left behind, in its group, goes with it.
        let marker = dir.path().join("still-running");
        let command = format!("(sleep 3; touch {}) & sleep 30", marker.display());
        let ran = block_on(run(&here(&command, dir.path(), Duration::from_millis(300)))).unwrap();
        assert_eq!(ran.stopped, Some(Stopped::Time), "{ran:?}");
        std::thread::sleep(Duration::from_secs(4));
        assert!(
            !marker.exists(),
            "the build's background process was killed"
        );
        // A build that exits leaving a process that holds its output open ends when it exits.
        let t = Instant::now();
        let ran = block_on(run(&here(
            "sleep 30 & echo done",
            dir.path(),
            Duration::from_secs(20),
        )))
        .unwrap();
        assert!(ran.status.unwrap().success(), "{ran:?}");
        assert_eq!(ran.output.text(), "done\n");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }
}
