//! How a bot process is isolated. `docs/SECURITY.md` says what each mode guarantees and what it
//! does not; this module is the mechanism.
//!
//! **Default mode**, for every bot: a fresh private working directory (unless configured), the
//! environment cleared except `PATH`, `LANG` and `HOME` (inside the private directory), no file
//! descriptor beyond stdin, stdout and stderr, resource limits ([`ResourceLimits`]), and a
//! *supervisor*: the referee's direct child is a small forked copy of the referee that does
//! nothing but wait. It is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so every process the bot
//! starts stays below it even after `setsid` or a double fork; when the bot's main process ends
//! (or the referee kills it), the supervisor kills every remaining descendant, reaps them, and
//! exits with the bot's own status. When the referee dies, even by SIGKILL, it is told
//! (`PR_SET_PDEATHSIG`, SIGUSR1) and does the same before exiting.
//!
//! **Strict mode** (`--sandbox strict`): the same, and the bot runs inside bubblewrap: new user,
//! pid, network, IPC, UTS and cgroup namespaces, a read-only system, only its own directory
//! visible (read-only), a private `/tmp`; as root, under its own unprivileged uid; a seccomp
//! filter that fails every file lock (a lock is seen across namespaces).
//!
//! The code that runs between `fork` and `exec` uses system calls only (rustix, and libc for
//! `fork`, signal masks and handlers, `_exit`): no allocation, no lock, no panic.

//!
//! The module's files, each for one job:
//!
//! - `limits.rs`: [`ResourceLimits`] and the rlimits they become;
//! - `paths.rs`: absolute and canonical paths, what a strict bot may see;
//! - `bwrap.rs`: the bubblewrap command line of strict mode;
//! - `visible.rs`: what a strict bot sees of the host (its own files, symlinks on the way, the
//!   scan for records it must not see);
//! - `uids.rs`: the per-bot uids of strict mode as root;
//! - `seccomp.rs`: strict mode's seccomp filter (no file locks);
//! - `cgroup/`: a memory and pids cgroup per bot (v2 or v1), with a cpuset of its table's CPUs
//!   and one CPU weight where the controllers can be used (`cgroup/cpu.rs`);
//! - `workdir.rs`: default mode's private working directory, and removing stale ones;
//! - `procfs.rs`: what `/proc` says about processes;
//! - `prepare.rs`: from a bot command to what is spawned;
//! - `child.rs`: the code between fork and exec (the supervisor and the bot's side);
//! - `done.rs`: the supervisor's mark that it finished (so a killed one is told apart).

mod bwrap;
pub mod cgroup;
pub(crate) mod child;
mod done;
mod limits;
mod paths;
mod prepare;
mod procfs;
mod seccomp;
mod uids;
mod visible;
mod workdir;

pub use bwrap::{bwrap_path, check_strict_sandbox, StrictSandboxError, TmpfsUnsized};
pub(crate) use done::DoneFlag;
pub use limits::FALLBACK_ADDRESS_SPACE;
pub use limits::{format_limit, BadValue, LimitError, ResourceLimits};
pub(crate) use prepare::prepare;
pub(crate) use procfs::{children_of, group_has_members};
pub(crate) use uids::UidLease;

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The isolation mode of a bot process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sandbox {
    /// Process isolation without privileges or extra software (see the module documentation).
    #[default]
    Default,
    /// Bubblewrap: namespaces, a read-only system, no network.
    Strict,
}

impl Sandbox {
    pub fn name(self) -> &'static str {
        match self {
            Sandbox::Default => "default",
            Sandbox::Strict => "strict",
        }
    }
}

impl std::fmt::Display for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A sandbox mode that is neither `default` nor `strict`: what was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox {0:?}: choose \"default\" or \"strict\"")]
pub struct UnknownSandbox(pub String);

impl std::str::FromStr for Sandbox {
    type Err = UnknownSandbox;
    fn from_str(s: &str) -> Result<Sandbox, UnknownSandbox> {
        match s {
            "default" => Ok(Sandbox::Default),
            "strict" => Ok(Sandbox::Strict),
            _ => Err(UnknownSandbox(s.to_string())),
        }
    }
}

/// How one bot is isolated: the mode and its resource limits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Isolation {
    pub sandbox: Sandbox,
    pub limits: ResourceLimits,
    /// Strict mode: the working directory is shown read-write instead of read-only, for a
    /// bot's *build* (a compiler writes its output there), never for a bot that plays. What it
    /// writes there is bounded per file by `file_size` only: the caller bounds the total (the
    /// judge service watches the folder's size and kills a build over its limit). Refused when
    /// a path the referee hides lies inside that directory. Default mode: no change (the
    /// configured directory is writable there anyway).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub writable_cwd: bool,
    /// Strict mode: the working directory is only where the bot starts (and what relative paths
    /// in its command are relative to), not a directory of its own: it is not shown. The bot
    /// sees what its command names, as a bot without a working directory does, and never a
    /// directory holding the working directory. A tournament's bot without a `cwd` starts in
    /// the configuration's directory this way: the seed, the results and other bots' files
    /// there stay out of its sight whatever they are called. Default mode: no change.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub foreign_cwd: bool,
}

/// Where a bot is started from: what the referee knows beyond the command.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Games in the match (scales the CPU limit).
    pub games: u32,
    /// Paths the bot must not see (the replay directory and its parent): in strict mode they are
    /// left out of any directory made visible to the bot.
    pub hidden: Vec<PathBuf>,
}

/// The `PATH` inside the strict sandbox.
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// First uid (and gid) of the range strict mode gives bots when the referee runs as root; one
/// per concurrent bot.
pub const SANDBOX_UID_BASE: u32 = 61000;
/// Size of that range.
pub const SANDBOX_UID_COUNT: u32 = 4000;

/// The message when bubblewrap is missing.
pub const BWRAP_MISSING: &str = "--sandbox strict needs bubblewrap (the `bwrap` program), which \
    is not installed: install it with `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install \
    bubblewrap` (Fedora) or `pacman -S bubblewrap` (Arch)";

/// Whether this process runs as root (effective uid 0).
pub fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Hide the referee's own `/proc` entries (environment, open files, working directory, memory)
/// from bots running as the same user, and forbid them to ptrace it (`PR_SET_DUMPABLE` 0). The
/// command line (`/proc/PID/cmdline`) stays readable by everyone. Side effect: no core dump of
/// the referee, and a debugger must run as root to attach.
pub fn harden_referee() {
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
}

/// Describe an exit status reported by bubblewrap, which exits with 128 + N when the bot is
/// killed by signal N.
pub(crate) fn describe_sandbox_code(code: i32) -> Option<i32> {
    (129..=128 + 64).contains(&code).then_some(code - 128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_names() {
        assert_eq!("strict".parse::<Sandbox>().unwrap(), Sandbox::Strict);
        assert_eq!("default".parse::<Sandbox>().unwrap(), Sandbox::Default);
        let e = "none".parse::<Sandbox>().unwrap_err();
        assert_eq!(e, UnknownSandbox("none".into()));
        assert_eq!(
            e.to_string(),
            "unknown sandbox \"none\": choose \"default\" or \"strict\""
        );
    }
}
