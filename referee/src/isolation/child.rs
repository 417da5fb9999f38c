//! Between fork and exec: raw system calls only (no allocation, no lock, no panic). The
//! referee's child becomes the *supervisor*, which forks the bot and cleans up after it.

use super::prepare::rlim::Res;
use super::prepare::{ChildPlan, ChildSetup};
use super::workdir::Cleanup;
use rustix::fd::{AsRawFd, BorrowedFd};
use rustix::process::{Pid, Resource, Rlimit, Signal, WaitOptions};
use std::io;
use std::mem::MaybeUninit;

/// The `pre_exec` hook: runs in the referee's child, which becomes the supervisor; returns
/// (to exec) only in the bot's process.
pub(crate) fn pre_exec(plan: &ChildPlan) -> io::Result<()> {
    let setup = &plan.setup;
    // The supervisor learns of the referee's death, even by SIGKILL: PR_SET_PDEATHSIG
    // sends it SIGUSR1, which interrupts its wait (a no-op handler, no SA_RESTART); it then
    // kills the bot and everything the bot started, and exits. (Before the handler is in
    // place, SIGUSR1's default action ends it at once.)
    // SAFETY: installs a handler that does nothing, in a single-threaded process.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = wake as extern "C" fn(libc::c_int) as libc::sighandler_t;
        sa.sa_flags = 0;
        libc::sigemptyset(&mut sa.sa_mask);
        if libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    rustix::process::set_parent_process_death_signal(Some(Signal::USR1))?;
    if rustix::process::getppid().map(|p| p.as_raw_nonzero().get()) != Some(setup.referee) {
        return Err(io::Error::other("the referee is gone"));
    }
    // No core dump of this copy of the referee, nor of the bot.
    let _ = rustix::process::setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    );
    // Orphans of the bot's process tree come to the supervisor, not to init.
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
    let supervisor = rustix::process::getpid();
    // SAFETY: this process is single-threaded (a child of fork); after the fork, the bot's
    // side returns to std's exec path and the supervisor's side never returns.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => bot(plan, supervisor),
        pid => match Pid::from_raw(pid) {
            Some(bot) => supervise(bot, setup.referee, plan.cleanup.as_ref(), setup.done_flag),
            None => Err(io::Error::other("fork returned no pid")),
        },
    }
}

/// The bot's side: dies with the supervisor, joins its cgroup, its own session (so no
/// controlling terminal), no inherited descriptors beyond 0, 1, 2, its limits, its uid. Then
/// std execs it.
fn bot(plan: &ChildPlan, supervisor: Pid) -> io::Result<()> {
    let setup: &ChildSetup = &plan.setup;
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
    if rustix::process::getppid() != Some(supervisor) {
        return Err(io::Error::other("the supervisor is gone"));
    }
    // Into the bot's memory and pids cgroup(s) before anything runs: whatever it starts is
    // counted there.
    for procs in &plan.cgroup_procs {
        let fd = rustix::fs::open(
            procs.as_c_str(),
            rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )?;
        rustix::io::write(&fd, b"0")?;
    }
    // A session of its own (so a process group of its own, led by the bot): no controlling
    // terminal, so the bot can neither open /dev/tty nor type into the organiser's shell
    // (TIOCSTI needs the terminal to be the caller's controlling terminal).
    rustix::process::setsid()?;
    set_signal_mask(false)?;
    for_each_fd(|fd| {
        if fd > 2 {
            // SAFETY: fd is open (listed in /proc/self/fd); only its flags change.
            let b = unsafe { BorrowedFd::borrow_raw(fd) };
            let _ = rustix::io::fcntl_setfd(b, rustix::io::FdFlags::CLOEXEC);
        }
    });
    if setup.keep_fd > 4 {
        // SAFETY: the descriptor was opened before the fork and is kept open until the spawn
        // returns (`Prepared::seccomp`); only its flags change.
        let b = unsafe { BorrowedFd::borrow_raw(setup.keep_fd) };
        rustix::io::fcntl_setfd(b, rustix::io::FdFlags::empty())?;
    }
    if setup.stdio_on_3_4 {
        // SAFETY: plain descriptor operations; dup2 leaves 3 and 4 without CLOEXEC.
        unsafe {
            if libc::dup2(0, 3) < 0 || libc::dup2(1, 4) < 0 {
                return Err(io::Error::last_os_error());
            }
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
            if null < 0 || libc::dup2(null, 0) < 0 || libc::dup2(null, 1) < 0 {
                return Err(io::Error::last_os_error());
            }
            libc::close(null);
        }
    }
    for (res, soft, hard) in setup.rlimits.iter().flatten().copied() {
        let r = match res {
            Res::As => Resource::As,
            Res::Cpu => Resource::Cpu,
            Res::Fsize => Resource::Fsize,
            Res::Nofile => Resource::Nofile,
            Res::Nproc => Resource::Nproc,
            Res::Core => Resource::Core,
        };
        rustix::process::setrlimit(
            r,
            Rlimit {
                current: soft,
                maximum: hard,
            },
        )?;
    }
    if let Some((uid, gid)) = setup.ids {
        // SAFETY: plain system calls in a single-threaded child; no supplementary groups, then
        // the gid, then the uid (after which nothing of root's is left).
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(gid, gid, gid) != 0
                || libc::setresuid(uid, uid, uid) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
    }
    if setup.drop_caps {
        drop_capabilities()?;
    }
    Ok(())
}

/// Default mode: no capability left, none to regain (see `ChildSetup::drop_caps`). Root
/// regains at exec every capability of its bounding and inheritable sets: both are emptied,
/// and `SECBIT_NOROOT` (locked) ends root's special case. As another user the bounding set
/// cannot be changed (EPERM) and holds nothing the bot could use without file capabilities,
/// which `PR_SET_NO_NEW_PRIVS` disables with set-uid programs.
fn drop_capabilities() -> io::Result<()> {
    use rustix::io::Errno;
    use rustix::thread::{self as th, CapabilitySet, CapabilitySets};
    if rustix::process::geteuid().is_root() {
        th::set_capabilities_secure_bits(
            th::CapabilitiesSecureBits::NO_ROOT | th::CapabilitiesSecureBits::NO_ROOT_LOCKED,
        )?;
        for cap in CapabilitySet::all().iter() {
            match th::remove_capability_from_bounding_set(cap) {
                // EINVAL: a capability this kernel does not have.
                Ok(()) | Err(Errno::INVAL) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    // EINVAL: a kernel without ambient capabilities (before 4.3): none to clear.
    match th::clear_ambient_capability_set() {
        Ok(()) | Err(Errno::INVAL) => {}
        Err(e) => return Err(e.into()),
    }
    th::set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )?;
    th::set_no_new_privs(true)?;
    Ok(())
}

/// Call `f` with every open descriptor (from /proc/self/fd; without /proc, 0..1024).
fn for_each_fd(mut f: impl FnMut(i32)) {
    let dir = rustix::fs::open(
        c"/proc/self/fd",
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    );
    let Ok(dir) = dir else {
        for fd in 0..1024 {
            f(fd);
        }
        return;
    };
    let own = dir.as_raw_fd();
    let mut buf = [MaybeUninit::<u8>::uninit(); 2048];
    let mut iter = rustix::fs::RawDir::new(&dir, &mut buf);
    while let Some(Ok(entry)) = iter.next() {
        if let Some(fd) = parse_int(entry.file_name().to_bytes()) {
            if fd != own {
                f(fd);
            }
        }
    }
}

fn parse_int(s: &[u8]) -> Option<i32> {
    if s.is_empty() || s.len() > 9 {
        return None;
    }
    let mut n: i32 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i32::from(b - b'0');
    }
    Some(n)
}

/// The supervisor: waits for the bot; once it is gone, kills every remaining descendant
/// (they are all its children or below, as it is a subreaper) until none is left, then exits
/// with the bot's status.
fn supervise(bot: Pid, referee: i32, cleanup: Option<&Cleanup>, done: usize) -> ! {
    // Hold nothing open: not std's exec-error pipe (so the referee sees the exec), not the
    // bot's stdio (so the bot closing stdout is an end of file for the referee).
    for_each_fd(|fd| {
        // SAFETY: closing descriptors this process will never use again.
        unsafe { rustix::io::close(fd) };
    });
    // Only SIGUSR1 (the referee's death) gets through; SIGKILL cannot be blocked: only the
    // referee (or a bot of the same user) can end the supervisor early.
    let _ = set_signal_mask(true);
    // SAFETY: unblocking one signal of a single-threaded process.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR1);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
    let _ = rustix::thread::set_name(c"durak-supervise");
    let orphaned = || rustix::process::getppid().map(|p| p.as_raw_nonzero().get()) != Some(referee);
    let mut status = None;
    // Wait for the bot (reaping the orphans it leaves meanwhile), or for the referee's end.
    let mut referee_gone = orphaned();
    while status.is_none() && !referee_gone {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, st))) if pid == bot => status = Some(st),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => referee_gone = orphaned(),
            Err(_) => finish(None, done),
        }
    }
    // Then kill whatever is left, every 2 ms, until nothing is.
    loop {
        kill_children();
        loop {
            match rustix::process::wait(WaitOptions::NOHANG) {
                Ok(Some((pid, st))) => {
                    if pid == bot && status.is_none() {
                        status = Some(st);
                    }
                }
                Err(rustix::io::Errno::INTR) => {}
                Ok(None) => break,
                Err(_) => {
                    // Nothing is left. If the referee is gone, nobody else will remove the
                    // bot's private directory.
                    if let (true, Some(c)) = (referee_gone || orphaned(), cleanup) {
                        // SAFETY: argv prepared before the fork, null-terminated.
                        unsafe { libc::execv(c.ptrs[0], c.ptrs.as_ptr()) };
                    }
                    finish(status, done)
                }
            }
        }
        let _ = rustix::thread::nanosleep(&rustix::thread::Timespec {
            tv_sec: 0,
            tv_nsec: 2_000_000,
        });
    }
}

/// The handler of SIGUSR1 in the supervisor: only interrupts its wait.
extern "C" fn wake(_: libc::c_int) {}

/// SIGKILL every child of this process (and its process group).
fn kill_children() {
    let mut buf = [0u8; 4096];
    let Ok(fd) = rustix::fs::open(
        c"/proc/thread-self/children",
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) else {
        kill_children_by_scan();
        return;
    };
    let mut carry: i32 = 0;
    let mut in_num = false;
    loop {
        let n = match rustix::io::read(&fd, &mut buf[..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &buf[..n] {
            if b.is_ascii_digit() {
                carry = carry.saturating_mul(10).saturating_add(i32::from(b - b'0'));
                in_num = true;
            } else if in_num {
                kill_pid(carry);
                carry = 0;
                in_num = false;
            }
        }
    }
    if in_num {
        kill_pid(carry);
    }
}

/// Without /proc/PID/task/TID/children: every process whose parent is this one.
fn kill_children_by_scan() {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let Ok(proc_dir) = rustix::fs::open(
        c"/proc",
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) else {
        return;
    };
    let mut dbuf = [MaybeUninit::<u8>::uninit(); 4096];
    let mut iter = rustix::fs::RawDir::new(&proc_dir, &mut dbuf);
    while let Some(Ok(entry)) = iter.next() {
        let name = entry.file_name().to_bytes();
        let Some(pid) = parse_int(name) else {
            continue;
        };
        // "PID/stat\0" in a stack buffer.
        let mut path = [0u8; 32];
        if name.len() + 6 > path.len() {
            continue;
        }
        path[..name.len()].copy_from_slice(name);
        path[name.len()..name.len() + 6].copy_from_slice(b"/stat\0");
        let Ok(cpath) = std::ffi::CStr::from_bytes_with_nul(&path[..name.len() + 6]) else {
            continue;
        };
        let Ok(fd) = rustix::fs::openat(
            &proc_dir,
            cpath,
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        ) else {
            continue;
        };
        let mut stat = [0u8; 512];
        let Ok(n) = rustix::io::read(&fd, &mut stat[..]) else {
            continue;
        };
        // "pid (comm) state ppid ...": the ppid follows the last ')'.
        let s = &stat[..n];
        let Some(close) = s.iter().rposition(|&b| b == b')') else {
            continue;
        };
        let mut fields = s[close + 1..]
            .split(|&b| b == b' ')
            .filter(|f| !f.is_empty());
        let _state = fields.next();
        if fields.next().and_then(parse_int) == Some(me) {
            kill_pid(pid);
        }
    }
}

fn kill_pid(pid: i32) {
    if let Some(p) = Pid::from_raw(pid) {
        let _ = rustix::process::kill_process_group(p, Signal::KILL);
        let _ = rustix::process::kill_process(p, Signal::KILL);
    }
}

/// Block every signal, or none.
fn set_signal_mask(block_all: bool) -> io::Result<()> {
    // SAFETY: sigset_t is plain data, initialized by sigfillset/sigemptyset; changing the
    // mask of a single-threaded process.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        if block_all {
            libc::sigfillset(&mut set);
        } else {
            libc::sigemptyset(&mut set);
        }
        if libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Exit as the bot did: with its code, or killed by its signal; the mark first, so the referee
/// knows the supervisor finished (see `done.rs`).
fn finish(status: Option<rustix::process::WaitStatus>, done: usize) -> ! {
    super::done::mark(done);
    let code = match status {
        Some(st) => match (st.exit_status(), st.terminating_signal()) {
            (Some(code), _) => code,
            (None, Some(sig)) => {
                // SAFETY: restoring the default action of one signal, unblocking it and
                // sending it to ourselves, in a single-threaded process about to end.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    let mut set: libc::sigset_t = std::mem::zeroed();
                    libc::sigemptyset(&mut set);
                    libc::sigaddset(&mut set, sig);
                    libc::kill(libc::getpid(), sig);
                    libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                }
                128 + sig
            }
            _ => 125,
        },
        None => 125,
    };
    // SAFETY: ends the process without running anything of the referee's.
    unsafe { libc::_exit(code) }
}
