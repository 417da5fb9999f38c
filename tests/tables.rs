//! Issue 23, "tables that cannot touch each other": what a bot at one table could do to a bot at
//! another, or to the run, and what stops it. Real processes; see docs/SECURITY.md for the
//! promises these check.

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
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-bots/python/random_bot.py");
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

