//! Strict mode's bubblewrap: where it is, what it supports, the command line of a sandbox,
//! and the check that one can be built here.

use super::limits::MIB;
use super::paths::find_in_path;
use super::uids::UidLease;
use super::{running_as_root, BWRAP_MISSING};
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// bubblewrap's path, if it is installed.
pub fn bwrap_path() -> Option<PathBuf> {
    static BWRAP: OnceLock<Option<PathBuf>> = OnceLock::new();
    BWRAP
        .get_or_init(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            find_in_path(Path::new("bwrap"), &path).or_else(|| {
                let p = PathBuf::from("/usr/bin/bwrap");
                p.is_file().then_some(p)
            })
        })
        .clone()
}

/// `/tmp` and `/dev/shm` sizes within `tmp_size`: `/dev/shm` a quarter (at least 1 MiB, when
/// there is room), `/tmp` the rest.
pub(crate) fn split_tmp_size(tmp_size: Option<u64>) -> (Option<u64>, Option<u64>) {
    match tmp_size {
        None => (None, None),
        Some(total) => {
            let shm = (total / 4).max(MIB.min(total / 2));
            (Some(total - shm), Some(shm))
        }
    }
}

/// Options this bubblewrap understands (`--size`, `--disable-userns` are recent).
fn bwrap_supports(option: &str) -> bool {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        bwrap_path()
            .and_then(|b| std::process::Command::new(b).arg("--help").output().ok())
            .map(|o| {
                let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
                s.push_str(&String::from_utf8_lossy(&o.stderr));
                s
            })
            .unwrap_or_default()
    })
    .contains(option)
}

#[derive(Default)]
pub(crate) struct BwrapArgs {
    pub(crate) args: Vec<OsString>,
}

impl BwrapArgs {
    pub(crate) fn push<const N: usize>(&mut self, a: [&str; N]) {
        self.args.extend(a.iter().map(OsString::from));
    }
    pub(crate) fn path(&mut self, p: &Path) {
        self.args.push(p.as_os_str().to_os_string());
    }

    /// Namespaces, the read-only system, a minimal /etc.
    pub(crate) fn system(&mut self) {
        self.push(["--unshare-all", "--unshare-user"]);
        if bwrap_supports("--disable-userns") {
            self.push(["--disable-userns"]);
        }
        self.push(["--die-with-parent", "--new-session", "--clearenv"]);
        self.push(["--hostname", "sandbox"]);
        self.push(["--ro-bind", "/usr", "/usr"]);
        for d in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            let p = Path::new(d);
            match std::fs::read_link(p) {
                Ok(target) => {
                    self.push(["--symlink"]);
                    self.path(&target);
                    self.path(p);
                }
                Err(_) if p.is_dir() => self.push(["--ro-bind", d, d]),
                Err(_) => {}
            }
        }
        // What the dynamic loader and interpreters read; no passwd, no network configuration.
        for f in [
            "/etc/ld.so.cache",
            "/etc/ld.so.conf",
            "/etc/ld.so.conf.d",
            "/etc/alternatives",
            "/etc/localtime",
        ] {
            if Path::new(f).exists() {
                self.push(["--ro-bind", f, f]);
            }
        }
        // A JVM's configuration (`/usr/lib/jvm/*/conf` links there): no secrets in it.
        if let Ok(entries) = std::fs::read_dir("/etc") {
            let mut java: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("java-"))
                        && p.is_dir()
                })
                .collect();
            java.sort();
            for j in java {
                self.push(["--ro-bind"]);
                self.path(&j);
                self.path(&j);
            }
        }
    }

    /// /proc of the new pid namespace, a minimal /dev, the private /tmp and HOME. What the bot
    /// can write, together, is at most `tmp_size`: a quarter of it for `/dev/shm`, the rest for
    /// `/tmp`, two tmpfs of those sizes; `/dev` is read-only, and so is `/` once
    /// [`BwrapArgs::seal`] has run. Refused when bubblewrap cannot size a tmpfs.
    pub(crate) fn private(&mut self, tmp_size: Option<u64>) -> Result<(), TmpfsUnsized> {
        self.push(["--proc", "/proc", "--dev", "/dev"]);
        let (tmp, shm) = split_tmp_size(tmp_size);
        if tmp_size.is_some() && !bwrap_supports("--size") {
            return Err(TmpfsUnsized {
                bwrap: bwrap_path().map_or_else(|| "bwrap".into(), |p| p.display().to_string()),
            });
        }
        self.sized_tmpfs(shm, "/dev/shm");
        self.push(["--remount-ro", "/dev"]);
        self.sized_tmpfs(tmp, "/tmp");
        self.push(["--dir", "/tmp/home"]);
        Ok(())
    }

    fn sized_tmpfs(&mut self, size: Option<u64>, at: &str) {
        if let Some(size) = size {
            self.args.push("--size".into());
            self.args.push(size.to_string().into());
        }
        self.push(["--tmpfs", at]);
    }

    /// The bot's own cgroup, read-only, where runtimes look for their memory limit (a JVM sizes
    /// its heap from it, Go and Node.js read it too): v2 at `/sys/fs/cgroup`; v1 its memory and
    /// pids cgroups, and the host's cpu, cpuacct and cpuset hierarchies, which a JVM needs to
    /// find before it trusts any of them. With its own cgroup namespace, the bot sees its cgroup
    /// as the root.
    pub(crate) fn cgroup(&mut self, cg: &super::cgroup::BotCgroup) {
        for (at, dir) in cg.views() {
            self.push(["--ro-bind"]);
            self.path(&dir);
            self.path(&at);
        }
    }

    /// Last: the sandbox's root (a tmpfs bubblewrap made, holding the mount points and the
    /// directories rebuilt by [`BwrapArgs::dir`]) becomes read-only. Mounts on it (`/tmp`,
    /// `/dev/shm`) stay as they are.
    pub(crate) fn seal(&mut self) {
        self.push(["--remount-ro", "/"]);
    }

    /// Make directory `d` visible read-only, without any of `hidden` inside it: when one is
    /// inside, the directory is rebuilt entry by entry and the hidden entry left out (a mount
    /// over it would show its path in /proc/self/mountinfo).
    pub(crate) fn dir(&mut self, d: &Path, hidden: &[PathBuf]) {
        if !hidden.iter().any(|h| h.starts_with(d) && h != d) {
            self.push(["--ro-bind"]);
            self.path(d);
            self.path(d);
            return;
        }
        self.push(["--dir"]);
        self.path(d);
        let Ok(entries) = std::fs::read_dir(d) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            if hidden.iter().any(|h| h == &e) {
                continue;
            }
            match std::fs::symlink_metadata(&e) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(&e) {
                        self.push(["--symlink"]);
                        self.path(&target);
                        self.path(&e);
                    }
                }
                Ok(m) if m.is_dir() => self.dir(&e, hidden),
                Ok(_) => {
                    self.push(["--ro-bind"]);
                    self.path(&e);
                    self.path(&e);
                }
                Err(_) => {}
            }
        }
    }
}

/// Strict mode as root runs the bot under another uid: its files must be readable by others.
pub(crate) fn check_other_readable(p: &Path, uid: u32) -> io::Result<()> {
    let mut cur = PathBuf::new();
    let comps: Vec<Component> = p.components().collect();
    for (i, c) in comps.iter().enumerate() {
        cur.push(c);
        let Ok(m) = std::fs::metadata(&cur) else {
            continue;
        };
        let last = i + 1 == comps.len();
        let mode = m.permissions().mode();
        let need = if m.is_dir() {
            if last {
                0o005
            } else {
                0o001
            }
        } else {
            0o004
        };
        if mode & need != need && m.uid() != uid {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "strict mode runs the bot as uid {uid}, which cannot {} {} (mode {:o}): \
                     make the bot's files readable by others (chmod o+rX), or keep them \
                     outside private directories such as /root",
                    if m.is_dir() { "enter" } else { "read" },
                    cur.display(),
                    mode & 0o7777
                ),
            ));
        }
    }
    Ok(())
}

/// This bubblewrap (`bwrap`, its path) cannot size a tmpfs, so strict mode cannot bound what a
/// bot writes.
#[derive(Clone, Debug, thiserror::Error)]
#[error(
    "this bubblewrap ({bwrap}) cannot size a tmpfs (`--size`, bubblewrap 0.5 and later), so \
     strict mode cannot bound what a bot writes (tmp_size): install a newer bubblewrap, or give \
     --limit tmp_size=unlimited to run without the bound"
)]
pub struct TmpfsUnsized {
    bwrap: String,
}

/// Why strict mode cannot run here ([`check_strict_sandbox`]); each message says the fix. Clone,
/// as the check runs once and every caller gets its answer.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StrictSandboxError {
    #[error("{}", BWRAP_MISSING)]
    Missing,
    #[error(transparent)]
    TmpfsUnsized(#[from] TmpfsUnsized),
    /// No uid for the sandboxed process (as root, bots run as another user).
    #[error("{0}")]
    NoUid(#[source] Arc<io::Error>),
    #[error("cannot run {}: {source}", bwrap.display())]
    CannotRun {
        bwrap: PathBuf,
        source: Arc<io::Error>,
    },
    #[error(
        "bubblewrap cannot build a sandbox here ({status}): {stderr}; unprivileged user namespaces \
         may be disabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04, an AppArmor \
         profile for bwrap)"
    )]
    Refused {
        status: std::process::ExitStatus,
        stderr: String,
    },
}

/// Check once that strict mode works here: bubblewrap is installed and can build a sandbox
/// (unprivileged user namespaces allowed), running as the uid bots would get.
pub fn check_strict_sandbox() -> Result<(), StrictSandboxError> {
    static RESULT: OnceLock<Result<(), StrictSandboxError>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            use std::os::unix::process::CommandExt;
            let bwrap = bwrap_path().ok_or(StrictSandboxError::Missing)?;
            let mut b = BwrapArgs::default();
            b.system();
            b.private(None)?;
            b.seal();
            b.push(["--", "/bin/sh", "-c", "exit 0"]);
            let lease = if running_as_root() {
                Some(UidLease::take().map_err(|e| StrictSandboxError::NoUid(Arc::new(e)))?)
            } else {
                None
            };
            let mut c = std::process::Command::new(&bwrap);
            c.args(&b.args)
                .current_dir("/")
                .env_clear()
                .stdin(std::process::Stdio::null());
            if let Some(l) = &lease {
                c.uid(l.uid).gid(l.uid);
            }
            let out = c.output().map_err(|e| StrictSandboxError::CannotRun {
                bwrap: bwrap.clone(),
                source: Arc::new(e),
            })?;
            if out.status.success() {
                Ok(())
            } else {
                Err(StrictSandboxError::Refused {
                    status: out.status,
                    stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
                })
            }
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An old bubblewrap's refusal names it and both fixes, in the words it always had.
    #[test]
    fn a_bubblewrap_that_cannot_size_a_tmpfs_is_named_with_the_fixes() {
        let e = TmpfsUnsized {
            bwrap: "/usr/bin/bwrap".into(),
        };
        assert_eq!(
            e.to_string(),
            "this bubblewrap (/usr/bin/bwrap) cannot size a tmpfs (`--size`, bubblewrap 0.5 and \
             later), so strict mode cannot bound what a bot writes (tmp_size): install a newer \
             bubblewrap, or give --limit tmp_size=unlimited to run without the bound"
        );
    }

    /// A bubblewrap that cannot build a sandbox is refused with its status, its words and the
    /// likely fixes, as before the error was typed.
    #[test]
    fn a_refused_sandbox_names_the_likely_fixes() {
        use std::os::unix::process::ExitStatusExt;
        let e = StrictSandboxError::Refused {
            status: std::process::ExitStatus::from_raw(1 << 8),
            stderr: "bwrap: setting up uid map: Permission denied".into(),
        };
        assert_eq!(
            e.to_string(),
            "bubblewrap cannot build a sandbox here (exit status: 1): bwrap: setting up uid map: \
             Permission denied; unprivileged user namespaces may be disabled (sysctl \
             kernel.unprivileged_userns_clone=1; on Ubuntu 24.04, an AppArmor profile for bwrap)"
        );
        assert_eq!(StrictSandboxError::Missing.to_string(), BWRAP_MISSING);
    }

    #[test]
    fn hidden_paths_are_left_out_of_a_visible_directory() {
        let d = tempfile::tempdir().unwrap();
        let bot = d.path().join("bot");
        std::fs::create_dir_all(bot.join("out/replays")).unwrap();
        std::fs::write(bot.join("bot.py"), "").unwrap();
        let mut b = BwrapArgs::default();
        b.dir(&bot, &[bot.join("out/replays"), bot.join("out")]);
        let args: Vec<String> = b
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(args.contains(&bot.join("bot.py").display().to_string()));
        assert!(!args.iter().any(|a| a.contains("out")), "{args:?}");
        // Nothing hidden inside: one bind of the whole directory.
        let mut b = BwrapArgs::default();
        b.dir(&bot, &[d.path().join("elsewhere")]);
        assert_eq!(b.args.len(), 3);
    }
}
