//! Strict mode's seccomp filter, given to bubblewrap (`--seccomp FD`): no file lock at all.
//!
//! A lock is visible across every namespace: `F_GETLK` on a file both bots can only read
//! (`/etc/ld.so.cache`, the interpreter) tells one bot which byte ranges the other locked, a
//! channel wide enough to pass a hand. So inside the sandbox every call that takes, tests or
//! drops a lock fails with `EOPNOTSUPP` (`ENOTSUP`, "operation not supported"): `fcntl` with
//! `F_GETLK`, `F_SETLK`, `F_SETLKW` and their open-file-description forms `F_OFD_*`, and
//! `flock`. On all files, the bot's own in `/tmp` too: a filter sees the descriptor, not whose
//! file it is. That error, rather than `ENOLCK`, because build tools take it as "this file
//! system has no locks" and go on without one (cargo, Go's `lockedfile`): a bot's build in
//! strict mode still works. Programs that need their lock (SQLite on a file) fail; bots have no
//! one to share a file with.
//!
//! The filter also refuses the other system-call ABIs of the machine (the filter checks the
//! architecture first: a 32-bit `int 0x80` call on x86-64 ends the process), so the lock calls
//! cannot be reached under another number; x32 numbers of `fcntl` and `flock` fail the same way.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

/// The `fcntl` commands of record locks (the same numbers for `F_*LK64` on 64-bit machines).
const LOCK_COMMANDS: [libc::c_int; 6] = [
    libc::F_GETLK,
    libc::F_SETLK,
    libc::F_SETLKW,
    libc::F_OFD_GETLK,
    libc::F_OFD_SETLK,
    libc::F_OFD_SETLKW,
];

/// Why strict mode's seccomp filter cannot be built here.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum SeccompError {
    #[error("strict mode's seccomp filter cannot be built for this machine ({arch}): {message}")]
    Arch { arch: &'static str, message: String },
    #[error("cannot build strict mode's seccomp filter for {arch}: {message}")]
    Build { arch: &'static str, message: String },
}

/// The filter as bytes (`struct sock_filter` in the machine's order), built once.
pub(crate) fn program() -> Result<&'static [u8], SeccompError> {
    static PROGRAM: OnceLock<Result<Vec<u8>, SeccompError>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| build().map(|p| to_bytes(&p)))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

fn build() -> Result<BpfProgram, SeccompError> {
    let arch = std::env::consts::ARCH;
    let fail = |e: seccompiler::BackendError| SeccompError::Build {
        arch,
        message: e.to_string(),
    };
    let target = arch
        .try_into()
        .map_err(|e: seccompiler::BackendError| SeccompError::Arch {
            arch,
            message: e.to_string(),
        })?;
    let fcntl = LOCK_COMMANDS
        .iter()
        .map(|&c| {
            SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, c as u64)
                .and_then(|cond| SeccompRule::new(vec![cond]))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_fcntl, fcntl);
    // No condition: every call.
    rules.insert(libc::SYS_flock, vec![]);
    #[cfg(target_arch = "x86_64")]
    {
        // x32 calls share the x86-64 architecture, with this bit set in their number.
        const X32: i64 = 0x4000_0000;
        rules.insert(X32 | libc::SYS_fcntl, vec![]);
        rules.insert(X32 | libc::SYS_flock, vec![]);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EOPNOTSUPP as u32),
        target,
    )
    .map_err(fail)?;
    filter.try_into().map_err(fail)
}

fn to_bytes(p: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() * 8);
    for f in p {
        out.extend_from_slice(&f.code.to_ne_bytes());
        out.push(f.jt);
        out.push(f.jf);
        out.extend_from_slice(&f.k.to_ne_bytes());
    }
    out
}

/// A descriptor bubblewrap reads the filter from (its own: bubblewrap reads to the end), at 5
/// or above (0 to 4 are the bot's stdio and the moved stdin and stdout), close-on-exec (the bot's
/// side of the fork clears that flag for this one descriptor).
pub(crate) fn descriptor() -> io::Result<OwnedFd> {
    let bytes = program().map_err(io::Error::other)?;
    let fd = rustix::fs::memfd_create("durak-seccomp", rustix::fs::MemfdFlags::CLOEXEC)?;
    let mut written = 0;
    while written < bytes.len() {
        written += rustix::io::write(&fd, &bytes[written..])?;
    }
    rustix::fs::seek(&fd, rustix::fs::SeekFrom::Start(0))?;
    if std::os::fd::AsRawFd::as_raw_fd(&fd) < 5 {
        return Ok(rustix::io::fcntl_dupfd_cloexec(&fd, 5)?);
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_is_built_for_this_machine() {
        let p = program().unwrap();
        assert!(
            !p.is_empty() && p.len().is_multiple_of(8),
            "{} bytes",
            p.len()
        );
        let fd = descriptor().unwrap();
        assert!(std::os::fd::AsRawFd::as_raw_fd(&fd) >= 5);
        let mut back = vec![0u8; p.len() + 8];
        let n = rustix::io::read(&fd, &mut back).unwrap();
        assert_eq!(
            &back[..n],
            p,
            "bubblewrap reads the whole filter from the start"
        );
    }
}
