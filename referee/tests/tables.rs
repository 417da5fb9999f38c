//! Issue 23, "tables that cannot touch each other": what a bot at one table could do to a bot at
//! another, or to the run, and what stops it. Real processes; see docs/SECURITY.md for the
//! promises these check. A referee SIGKILLed mid-game is the workspace's `tests/isolation.rs`.

mod common;

use common::*;
use durak_protocol::Limits;
use durak_referee::{BotCommand, Sandbox, SeatSpec};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
/// Make `dir` and everything in it readable by others (strict mode as root runs the bot under
/// another uid, and tempdirs are made 0700).
fn open_to_others(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A Python bot in a virtual environment (`python3 -m venv`: its `bin/python` is a link to
/// `python3`, a link to `/usr/bin/python3`, itself a link to `python3.X`) plays in strict mode.
/// It was disqualified at game 0: bubblewrap could not make the last link again inside the
/// read-only `/usr` ("Can't make symlink at /usr/bin/python3").
#[test]
fn strict_runs_a_python_bot_from_a_virtual_environment() {
    if !strict_ready() {
        return;
    }
    let Some(python) = require_interpreter("python3", "python3") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let bot = t.path().join("bot");
    std::fs::create_dir(&bot).unwrap();
    open_to_others(t.path());
    open_to_others(&bot);
    let venv = bot.join("venv");
    let made = require_with("python3 -m venv", "python3-venv", || {
        let o = Command::new(&python)
            .args(["-m", "venv", "--without-pip"])
            .arg(&venv)
            .output()
            .map_err(|e| e.to_string())?;
        if o.status.success() {
            Ok(venv.join("bin/python"))
        } else {
            Err(text(&o.stderr).trim().to_string())
        }
    });
    let Some(venv_python) = made else {
        return;
    };
    assert!(
        std::fs::symlink_metadata(&venv_python)
            .unwrap()
            .file_type()
            .is_symlink(),
        "a venv's python is a link"
    );
    let sample = repo().join("sample-bots/python/random_bot.py");
    std::fs::copy(&sample, bot.join("random_bot.py")).unwrap();
    let mut c = BotCommand::parse("venv/bin/python random_bot.py")
        .unwrap()
        .with_sandbox(Sandbox::Strict);
    c.cwd = Some(bot.clone());
    c.check_exists().unwrap();
    let seat = SeatSpec {
        name: "venv".into(),
        command: c,
        limits: Limits {
            move_ms: 10_000,
            ..Limits::default()
        },
    };
    let replays = tempfile::tempdir().unwrap();
    let r = run(
        vec![seat, builtin("greedy", Sandbox::Strict)],
        2,
        replays.path(),
    );
    assert_eq!(r.games.len(), 2);
    for g in &r.games {
        assert!(g.faults.is_empty(), "{:?}", g.faults);
    }
}

/// The probe of the lock tests: `locker` takes every kind of lock it can on files both bots
/// can only read (`/etc/ld.so.cache`, the interpreter, this script) and keeps them (its
/// descriptors stay open across the exec into `durak bot random`); `checker` looks for them for
/// two seconds with every call that shows a lock. Each line on stderr: `CALL FILE RESULT`.
const LOCK_PROBE: &str = r#"import errno, fcntl, os, struct, sys, time
role, durak = sys.argv[1], sys.argv[2]
FMT = "@hhqqixxxx"
files = ["/etc/ld.so.cache", os.path.realpath(sys.executable), os.path.realpath(__file__)]
def say(*a):
    print(*a, file=sys.stderr, flush=True)
def opened(path):
    fd = os.open(path, os.O_RDONLY)
    os.set_inheritable(fd, True)
    return fd
def call(name, f):
    try:
        return "ok", f()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno)), None
def lk(kind, start):
    return struct.pack(FMT, kind, 0, start, 1, 0)
if role == "locker":
    for p in files:
        fd = opened(p)
        say("F_SETLK", p, call("", lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lk(fcntl.F_RDLCK, 0)))[0])
        say("F_SETLKW", p, call("", lambda: fcntl.fcntl(fd, fcntl.F_SETLKW, lk(fcntl.F_RDLCK, 1)))[0])
        fd2 = opened(p)
        say("F_OFD_SETLK", p, call("", lambda: fcntl.fcntl(fd2, fcntl.F_OFD_SETLK, lk(fcntl.F_RDLCK, 2)))[0])
        say("F_OFD_SETLKW", p, call("", lambda: fcntl.fcntl(fd2, fcntl.F_OFD_SETLKW, lk(fcntl.F_RDLCK, 3)))[0])
        fd3 = opened(p)
        say("flock", p, call("", lambda: fcntl.flock(fd3, fcntl.LOCK_SH | fcntl.LOCK_NB))[0])
else:
    seen = set()
    end = time.time() + 2
    while time.time() < end:
        for p in files:
            fd = opened(p)
            for name, cmd in [("F_GETLK", fcntl.F_GETLK), ("F_OFD_GETLK", fcntl.F_OFD_GETLK)]:
                r, out = call(name, lambda: fcntl.fcntl(fd, cmd, struct.pack(FMT, fcntl.F_WRLCK, 0, 0, 0, 0)))
                if out is not None and struct.unpack(FMT, out)[0] != fcntl.F_UNLCK:
                    seen.add((name, p, "SEEN"))
                else:
                    seen.add((name, p, r))
            r, _ = call("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
            seen.add(("flock", p, "SEEN" if r == "EAGAIN" else r))
            os.close(fd)
        time.sleep(0.05)
    for s in sorted(seen):
        say(*s)
os.execv(durak, [durak, "bot", "random"])
"#;

/// Plays the lock probe (`locker` at seat 0, `checker` at seat 1) in `sb`: the probe's lines of
/// each seat.
fn lock_probe(sb: Sandbox, python: &Path) -> (String, String) {
    let t = tempfile::tempdir().unwrap();
    let bot = t.path().join("probe");
    std::fs::create_dir(&bot).unwrap();
    open_to_others(t.path());
    open_to_others(&bot);
    std::fs::write(bot.join("probe.py"), LOCK_PROBE).unwrap();
    std::fs::set_permissions(bot.join("probe.py"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let seat = |role: &str| {
        let mut c = BotCommand::parse(&format!("{} probe.py {role} {BOT}", python.display()))
            .unwrap()
            .with_sandbox(sb);
        c.cwd = Some(bot.clone());
        SeatSpec {
            name: role.into(),
            command: c,
            limits: Limits {
                move_ms: 10_000,
                ..Limits::default()
            },
        }
    };
    let replays = tempfile::tempdir().unwrap();
    let r = run(vec![seat("locker"), seat("checker")], 1, replays.path());
    for g in &r.games {
        assert!(g.faults.is_empty(), "{sb}: {:?}", g.faults);
    }
    (replay_stderr(&r, 0, 0), replay_stderr(&r, 0, 1))
}

/// Issue 23: a covert channel through file locks. POSIX record locks (and OFD locks, and
/// `flock`) on a file both bots can only read are seen across every namespace: one bot locks
/// byte ranges of `/etc/ld.so.cache`, the other reads them with `F_GETLK`. In strict mode every
/// lock call fails (`EOPNOTSUPP`, the seccomp filter given to bubblewrap) and nothing crosses. In
/// default mode (no filter) the same probe does see the other bot's locks: the probe works.
#[test]
fn no_lock_crosses_from_one_strict_bot_to_another() {
    let Some(python) = require_interpreter("python3", "python3") else {
        return;
    };
    // Default mode: the channel is there, so the probe can tell.
    let (locker, checker) = lock_probe(Sandbox::Default, &python);
    assert!(locker.contains("F_SETLK /etc/ld.so.cache ok"), "{locker}");
    assert!(
        checker.contains("F_GETLK /etc/ld.so.cache SEEN"),
        "{checker}"
    );
    assert!(checker.contains("flock /etc/ld.so.cache SEEN"), "{checker}");
    if !strict_ready() {
        return;
    }
    let (locker, checker) = lock_probe(Sandbox::Strict, &python);
    let lines = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with('F') || l.starts_with("flock"))
            .count()
    };
    // 5 calls on 3 files; 3 calls on 3 files.
    assert_eq!(lines(&locker), 15, "{locker}");
    assert_eq!(lines(&checker), 9, "{checker}");
    for l in locker
        .lines()
        .chain(checker.lines())
        .filter(|l| l.starts_with('F') || l.starts_with("flock"))
    {
        assert!(
            l.ends_with(" EOPNOTSUPP") || l.ends_with(" ENOTSUP"),
            "every lock call fails in strict mode: {l}\n{locker}\n{checker}"
        );
    }
}
