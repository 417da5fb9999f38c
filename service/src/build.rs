//! A submitted bot's build (`build` in its `bot.toml`): a shell command run once in the bot's
//! folder, in the strict sandbox like the bot itself, but with its folder writable
//! (`Isolation::writable_cwd`), under the build's limits: time (killed at `timeout_s`), memory
//! and processes (its cgroup and `RLIMIT_NPROC`: a fork bomb meets `processes`, and a build
//! that met it is refused even when it exits 0), CPU and file size (rlimits), and
//! what it leaves in its folder (`disk`: the folder's size is watched every 50 ms and the build
//! killed over the limit; between two looks it can overshoot by what it writes in 50 ms, and
//! by at most `file_size` per file). Its output (stdout and stderr together) is kept, its last
//! lines, for the version's page. It runs through check-bot's build runner
//! (`durak_checkbot::build::runner`, the one for `durak check-bot --build` too): this module gives
//! it the sandbox and limits, and words what happened for the author.

use crate::config::BuildConfig;
pub use durak_checkbot::build::runner::folder_size;
use durak_checkbot::build::runner::{self, walk, Ran, Stopped, Walk, MAX_ENTRIES};
use durak_referee::{Isolation, Sandbox};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// Run `command` in `folder` (see the module documentation). `hidden`: what the build must
/// not see (the service's data directory).
pub async fn run(
    command: &str,
    folder: &Path,
    cfg: &BuildConfig,
    sandbox: Sandbox,
    hidden: Vec<PathBuf>,
) -> BuildReport {
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
    let spec = runner::Spec {
        command,
        folder,
        timeout: Duration::from_secs(cfg.timeout_s),
        isolation: Some((
            Isolation {
                sandbox,
                limits: cfg.limits,
                writable_cwd: true,
                foreign_cwd: false,
            },
            hidden,
        )),
        disk: Some(cfg.disk),
        keep_lines: KEEP_LINES,
        line_chars: Some(LINE_CHARS),
    };
    let ran = runner::run(&spec).await;
    if strict_root {
        share_folder(folder, false);
    }
    let ran = match ran {
        Ok(r) => r,
        Err(e) => {
            report.failure = Some(format!("the build could not be started: {e}"));
            return report;
        }
    };
    let failure = failure(&ran, folder, cfg, sandbox);
    report.ok = failure.is_none();
    report.failure = failure;
    report.output = ran.output.text();
    report.folder_bytes = ran.folder_bytes;
    report.elapsed_ms = ran.elapsed.as_millis() as u64;
    report
}

/// Why the runner stopped a build, in words for its author (the limit is this server's).
fn stopped(why: &Stopped, cfg: &BuildConfig) -> String {
    match why {
        Stopped::Time => format!(
            "the build did not finish within {} s and was stopped (the time limit of a build on \
             this server)",
            cfg.timeout_s
        ),
        Stopped::Disk { bytes, too_many } => format!(
            "the build wrote more than {} into its folder ({}) and was stopped (the disk limit of \
             a build on this server)",
            durak_referee::isolation::format_limit(Some(cfg.disk)),
            if *too_many {
                format!("over {MAX_ENTRIES} files")
            } else {
                format!("{bytes} bytes")
            }
        ),
        Stopped::Memory(how) => over_memory(cfg, how),
    }
}

/// Why a build failed, in words for its author; `None` when it did not.
fn failure(ran: &Ran, folder: &Path, cfg: &BuildConfig, sandbox: Sandbox) -> Option<String> {
    let bytes = ran.folder_bytes;
    let mut failure = ran.stopped.as_ref().map(|s| stopped(s, cfg));
    let forks_refused = ran.forks_refused;
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
    if failure.is_some() {
        return failure;
    }
    match ran.status {
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
            if sandbox == Sandbox::Strict
                && ran.output.lines.iter().any(|l| says_no_network(l)) =>
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
    }
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
