//! A submitted bot's build (`build` in its `bot.toml`): a shell command run once in the bot's
//! folder, in the strict sandbox like the bot itself, but with its folder writable
//! (`Isolation::writable_cwd`), under the build's limits: time (killed at `timeout_s`), memory
//! and processes (its cgroup and `RLIMIT_NPROC`: a fork bomb meets `processes`, and a build
//! that met it is refused even when it exits 0), CPU and file size (rlimits), and
//! what it leaves in its folder (`disk`: the folder's size is watched every 50 ms and the build
//! killed over the limit; between two looks it can overshoot by what it writes in 50 ms, and
//! by at most `file_size` per file). Its output (stdout and stderr together) is kept, its last
//! lines, for the version's page.

use crate::config::BuildConfig;
use durak_referee::isolation::Context;
use durak_referee::{BotCommand, BotProcess, IoFault, Isolation, Sandbox, SpawnOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a build went.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BuildReport {
    pub command: String,
    pub ok: bool,
    /// What went wrong, in words.
    pub failure: Option<String>,
    /// The last lines of its output.
    pub output: String,
    pub elapsed_ms: u64,
    /// What the folder holds after it, in bytes.
    pub folder_bytes: u64,
}

/// Lines of output kept.
const KEEP_LINES: usize = 200;
/// Characters kept of one line.
const LINE_CHARS: usize = 500;
/// Entries counted at most when measuring the folder (a build making more is over any limit).
const MAX_ENTRIES: usize = 200_000;

/// How a walk of a folder ended.
#[derive(PartialEq)]
enum Walk {
    Done,
    /// `visit` asked to stop.
    Stopped,
    /// More than `MAX_ENTRIES` entries.
    TooMany,
}

/// Visit the metadata of every entry under `dir`, at most `MAX_ENTRIES` of them, until `visit`
/// returns true.
fn walk(dir: &Path, mut visit: impl FnMut(&std::fs::Metadata) -> bool) -> Walk {
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

/// Whether a failed build met the file-size limit: killed by SIGXFSZ (or its shell exited
/// with 128 + SIGXFSZ, as `sh -c` reports a command killed by it), or a file in its folder
/// reached the limit (a program that ignores SIGXFSZ gets EFBIG instead).
fn hit_file_size_limit(s: std::process::ExitStatus, folder: &Path, limit: Option<u64>) -> bool {
    use std::os::unix::process::ExitStatusExt;
    let Some(limit) = limit else { return false };
    if s.signal() == Some(libc::SIGXFSZ) || s.code() == Some(128 + libc::SIGXFSZ) {
        return true;
    }
    walk(folder, |m| m.is_file() && m.len() >= limit) == Walk::Stopped
}

/// As root, strict mode runs the build under an unprivileged uid of its own: the folder must be
/// writable by it during the build (`open`), and belong to the service again after (`close`:
/// owned by root, readable by all, writable by nobody else, so the bot that plays from it can
/// change nothing).
fn share_folder(dir: &Path, open: bool) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let fix = |p: &Path, m: &std::fs::Metadata| {
            if m.file_type().is_symlink() {
                let _ = rustix::fs::chownat(
                    rustix::fs::CWD,
                    p,
                    Some(rustix::process::Uid::ROOT),
                    Some(rustix::process::Gid::ROOT),
                    rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                );
                return;
            }
            let exec = m.is_dir() || m.mode() & 0o100 != 0;
            let mode = match (open, exec) {
                (true, true) => 0o777,
                (true, false) => 0o666,
                (false, true) => 0o755,
                (false, false) => 0o644,
            };
            if !open {
                let _ = rustix::fs::chown(
                    p,
                    Some(rustix::process::Uid::ROOT),
                    Some(rustix::process::Gid::ROOT),
                );
            }
            let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
        };
        if let Ok(m) = std::fs::symlink_metadata(&d) {
            fix(&d, &m);
        }
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if m.is_dir() {
                todo.push(p);
            } else {
                fix(&p, &m);
            }
        }
    }
}

/// A build killed for memory, in words for its author: the limit is the server's (authors
/// cannot pass `--limit`, which `how`, the referee's words for a bot, suggests).
fn over_memory(cfg: &BuildConfig, how: &str) -> String {
    let limit = durak_referee::isolation::format_limit(cfg.limits.memory);
    let exit = how.rsplit_once("): ").map_or("", |(_, e)| e);
    format!(
        "the build was killed for using more memory than its limit ({limit}, all its processes \
         together: the memory limit of a build on this server, which its organiser sets){}{exit}\n  \
         fix: make the build use less memory (one compiler job at a time, such as make -j1; \
         fewer or smaller dependencies), or ask the organiser for a larger limit ([build] \
         limits = {{ memory = ... }} in the server's configuration)",
        if exit.is_empty() { "" } else { ": " }
    )
}

/// Whether an output line says a connection or a name lookup failed: in the strict sandbox a
/// build has no network (only a loopback of its own), so that is a build trying to download.
fn says_no_network(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    [
        "temporary failure in name resolution",
        "could not resolve host",
        "name or service not known",
        "network is unreachable",
        "no address associated with hostname",
        "failed to establish a new connection",
        "eai_again",
        "getaddrinfo",
        "could not resolve",
        "dial tcp",
    ]
    .iter()
    .any(|p| l.contains(p))
}

/// Keep the last [`KEEP_LINES`] lines, each cut at [`LINE_CHARS`].
struct Tail {
    lines: std::collections::VecDeque<String>,
    dropped: usize,
    /// Lines saying a fork was refused (`sh: Cannot fork`, `fork: Resource temporarily
    /// unavailable`): where `RLIMIT_NPROC` meets a fork bomb before the cgroup's `pids.max`
    /// does, the cgroup counts nothing, and this is how it is seen.
    fork_failures: u64,
}

/// Whether an output line says a fork was refused.
fn says_fork_refused(line: &str) -> bool {
    line.contains("Cannot fork")
        || line.contains("fork failed")
        || (line.contains("fork") && line.contains("Resource temporarily unavailable"))
}

impl Tail {
    fn push(&mut self, line: &[u8]) {
        let mut s = String::from_utf8_lossy(line).into_owned();
        if says_fork_refused(&s) {
            self.fork_failures += 1;
        }
        if s.chars().count() > LINE_CHARS {
            s = s.chars().take(LINE_CHARS).collect::<String>() + " ...";
        }
        self.lines.push_back(s);
        if self.lines.len() > KEEP_LINES {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }
    fn text(&self) -> String {
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

/// Run `command` in `folder` (see the module documentation). `hidden`: what the build must
/// not see (the service's data directory).
pub async fn run(
    command: &str,
    folder: &Path,
    cfg: &BuildConfig,
    sandbox: Sandbox,
    hidden: Vec<PathBuf>,
) -> BuildReport {
    let started = Instant::now();
    let mut report = BuildReport {
        command: command.to_string(),
        ok: false,
        failure: None,
        output: String::new(),
        elapsed_ms: 0,
        folder_bytes: 0,
    };
    let strict_root = sandbox == Sandbox::Strict && durak_referee::isolation::running_as_root();
    if strict_root {
        share_folder(folder, true);
    }
    let cmd = BotCommand {
        spec: format!("build: {command}"),
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), format!("exec 2>&1\n{command}")],
        cwd: Some(folder.to_path_buf()),
        isolation: Isolation {
            sandbox,
            limits: cfg.limits,
            writable_cwd: true,
            foreign_cwd: false,
        },
    };
    let opts = SpawnOptions {
        max_line: 64 * 1024,
        stderr_cap: 64 * 1024,
        context: Context { games: 1, hidden },
    };
    let limit = Duration::from_secs(cfg.timeout_s);
    let mut tail = Tail {
        lines: Default::default(),
        dropped: 0,
        fork_failures: 0,
    };
    let mut proc = match BotProcess::spawn_with(&cmd, &opts) {
        Ok(p) => p,
        Err(e) => {
            report.failure = Some(format!("the build could not be started: {e}"));
            if strict_root {
                share_folder(folder, false);
            }
            return report;
        }
    };
    let mut last_size_check = Instant::now();
    let mut failure: Option<String> = None;
    let mut stdout_open = true;
    loop {
        if started.elapsed() >= limit {
            failure = Some(format!(
                "the build did not finish within {} s and was stopped (the time limit of a \
                 build on this server)",
                cfg.timeout_s
            ));
            break;
        }
        if last_size_check.elapsed() >= Duration::from_millis(50) {
            last_size_check = Instant::now();
            let (bytes, too_many) = folder_size(folder);
            if bytes > cfg.disk || too_many {
                failure = Some(format!(
                    "the build wrote more than {} into its folder ({}) and was stopped (the \
                     disk limit of a build on this server)",
                    durak_referee::isolation::format_limit(Some(cfg.disk)),
                    if too_many {
                        format!("over {MAX_ENTRIES} files")
                    } else {
                        format!("{bytes} bytes")
                    }
                ));
                break;
            }
        }
        if !stdout_open {
            if proc.try_exit().is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        match proc.recv(Duration::from_millis(50)).await {
            Ok((line, _)) => tail.push(&line),
            Err(IoFault::Timeout | IoFault::Starved { .. }) => {}
            Err(IoFault::LineTooLong) => {
                tail.push(b"(a line longer than 64 KiB: the output after it is not kept)");
                stdout_open = false;
            }
            Err(IoFault::Memory(how)) => {
                failure = Some(over_memory(cfg, &how));
                break;
            }
            Err(IoFault::Closed) => stdout_open = false,
            Err(IoFault::Crash(_) | IoFault::Quit) => break,
        }
    }
    let status = proc.try_exit();
    // Read before the kill: its cgroup goes with it.
    let forks_refused = proc.process_limit_hits().max(tail.fork_failures);
    proc.kill().await;
    let (bytes, _) = folder_size(folder);
    report.folder_bytes = bytes;
    if forks_refused > 0 {
        // Whatever else happened, and even when its first process exited 0 (`:(){ :|:& };:`
        // returns at once): a build that meets its process limit is refused for it.
        let reason = format!(
            "the build tried to run more than {} processes at once ({forks_refused} forks \
             refused: a fork bomb?) and was stopped (the process limit of a build on this \
             server)",
            cfg.limits
                .processes
                .map_or("its".to_string(), |n| n.to_string())
        );
        failure = Some(match failure {
            Some(f) => format!("{reason}; {f}"),
            None => reason,
        });
    }
    if failure.is_none() {
        failure = match status {
            Some(s) if s.success() => {
                if bytes > cfg.disk {
                    Some(format!(
                        "the build left {bytes} bytes in its folder, more than the {} a build \
                         may leave on this server",
                        durak_referee::isolation::format_limit(Some(cfg.disk))
                    ))
                } else {
                    None
                }
            }
            // Past the disk limit between two looks at its folder, then stopped by the file
            // size limit (SIGXFSZ) or by its own error: the disk is the reason.
            Some(s) if bytes > cfg.disk => Some(format!(
                "the build wrote {bytes} bytes into its folder, more than {} (the disk limit \
                 of a build on this server), and failed: {}",
                durak_referee::isolation::format_limit(Some(cfg.disk)),
                durak_referee::process::describe_exit(s)
            )),
            // Stopped by the file-size rlimit (SIGXFSZ: the shell reports 128 + 25), or told
            // EFBIG and failed, with a file at the limit: say so, not just "code 153".
            Some(s) if hit_file_size_limit(s, folder, cfg.limits.file_size) => {
                let limit = durak_referee::isolation::format_limit(cfg.limits.file_size);
                Some(format!(
                    "the build wrote a file larger than the file-size limit ({limit}) of a build \
                     on this server, and failed: {}\n  fix: write smaller files (at most {limit} \
                     each, and {} in all), or ask the organiser for a larger limit ([build] \
                     limits = {{ file_size = ... }})",
                    durak_referee::process::describe_exit(s),
                    durak_referee::isolation::format_limit(Some(cfg.disk)),
                ))
            }
            Some(s)
                if sandbox == Sandbox::Strict && tail.lines.iter().any(|l| says_no_network(l)) =>
            {
                Some(format!(
                    "the build tried to reach the network, and failed ({}): builds run without \
                     a network on this server\n  fix: vendor your dependencies (put them in \
                     the archive: pip download, cargo vendor, go mod vendor, npm pack...) and \
                     build offline",
                    durak_referee::process::describe_exit(s)
                ))
            }
            Some(s) => Some(format!(
                "the build failed: {}",
                durak_referee::process::describe_exit(s)
            )),
            None => Some("the build ended without an exit status".into()),
        };
    }
    if strict_root {
        share_folder(folder, false);
    }
    report.ok = failure.is_none();
    report.failure = failure;
    report.output = tail.text();
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_over_memory_is_told_the_servers_limit_not_a_flag() {
        let mut cfg = BuildConfig {
            timeout_s: 120,
            disk: 1 << 28,
            limits: Default::default(),
        };
        cfg.limits.memory = Some(256 << 20);
        let how = "was killed for using more memory than its limit (256M, all its processes \
                   together; --limit memory=... raises it): killed by signal 9 (SIGKILL)";
        let m = over_memory(&cfg, how);
        assert!(!m.contains("--limit"), "{m}");
        assert!(
            m.contains("(256M, all its processes together")
                && m.contains("organiser")
                && m.ends_with("in the server's configuration)")
                && m.contains("): killed by signal 9 (SIGKILL)\n  fix:"),
            "{m}"
        );
    }

    #[test]
    fn network_failures_are_recognised_in_the_output() {
        for line in [
            "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
            "curl: (6) Could not resolve host: deb.debian.org",
            "npm ERR! getaddrinfo EAI_AGAIN registry.npmjs.org",
            "go: example.com/x@v1: Get \"https://proxy.golang.org/\": dial tcp: lookup proxy.golang.org",
            "OSError: [Errno 101] Network is unreachable",
        ] {
            assert!(says_no_network(line), "{line}");
        }
        for line in [
            "gcc: error: bot.c: No such file or directory",
            "make: *** [all] Error 1",
        ] {
            assert!(!says_no_network(line), "{line}");
        }
    }
}
