//! Every subcommand's error kind decides its exit status (`src/error.rs`, `CmdError`;
//! docs/COMMANDS.md, "Exit statuses"): one bad input each exits 2 with the message that names
//! the fix, and a report the disk refuses exits 1.

use std::path::Path;
use std::process::{Command, Output};

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

fn durak(args: &[&str], cwd: &Path) -> Output {
    Command::new(DURAK)
        .args(args)
        .current_dir(cwd)
        .env_remove("DURAK_TOKEN")
        .env_remove("DURAK_WORKER_TOKEN")
        .output()
        .unwrap()
}

/// `args` exits `code` and says `message` on stderr after `error: `.
fn check(args: &[&str], cwd: &Path, code: i32, message: &str) {
    let o = durak(args, cwd);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "durak {args:?}: {stderr}");
    assert!(
        stderr.contains(&format!("error: {message}")),
        "durak {args:?} should say {message:?}: {stderr}"
    );
}

#[test]
fn one_bad_input_of_each_subcommand_exits_2_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("missing");
    let missing = missing.to_str().unwrap();
    let cases: &[(&[&str], String)] = &[
        (
            &[
                "play",
                "--variant",
                "durak",
                "builtin:random",
                "builtin:random",
            ],
            "unknown variant \"durak\": the variants are prostoy and podkidnoy".into(),
        ),
        (
            &[
                "tournament",
                "--variant",
                "durak",
                "builtin:random",
                "builtin:greedy",
            ],
            "the command line: --variant \"durak\": unknown variant \"durak\"".into(),
        ),
        (
            &["standings", missing],
            format!("{missing}: does not exist (there is no {missing}/tournament.toml)"),
        ),
        (
            &["merge", "--out", "merged", missing, missing],
            format!("{missing}: does not exist"),
        ),
        (&["replay", missing], format!("{missing}: no such file")),
        (
            &["rerun", "--step", "1", missing, "builtin:random"],
            format!("{missing}: no such file"),
        ),
        (&["analyze", missing], format!("{missing}: no such file")),
        (
            &[
                "fork",
                "--step",
                "1",
                missing,
                "builtin:random",
                "builtin:random",
            ],
            format!("{missing}: no such file"),
        ),
        (
            &["regress", missing, "--bot", "a", "builtin:random"],
            format!("{missing}: does not exist"),
        ),
        (
            &["check-bot", "human"],
            "check-bot checks a bot; to play against one yourself: durak play human BOT".into(),
        ),
        (
            &["submit", missing],
            format!("{missing}: not a folder\n  fix: give the bot's folder"),
        ),
        (
            &["bot", "nosuch"],
            "unknown built-in bot \"nosuch\": choose one of random, greedy".into(),
        ),
        (
            &["serve", "--registration", "maybe", "--data-dir", missing],
            "--registration \"maybe\": choose \"open\" or \"invite\"".into(),
        ),
        (
            &["worker", "--server", "http://127.0.0.1:9"],
            "durak worker needs --token TOKEN".into(),
        ),
        (
            &["worker-token", "list"],
            "durak worker-token needs --server URL".into(),
        ),
        (
            &["organiser-token", "--data-dir", missing],
            format!("{missing}: no service.db here"),
        ),
        (
            &["backup", "--data-dir", missing, "--out", "copy"],
            format!("{missing}: no service.db here"),
        ),
    ];
    for (args, message) in cases {
        check(args, d, 2, message);
    }
    assert!(
        !Path::new(missing).exists(),
        "a refused command made {missing}"
    );
}

/// The report's pages are the disk's business: a folder that cannot be created exits 1 (the
/// games are recorded and fine), not 2 as a bad invocation would.
#[test]
fn a_report_the_disk_refuses_exits_1_naming_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let o = durak(
        &[
            "tournament",
            "--games",
            "1",
            "--seed",
            "1",
            "-q",
            "--out",
            t.to_str().unwrap(),
            "builtin:random",
            "builtin:greedy",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A file where the report's folder goes.
    std::fs::write(t.join("html"), "not a folder").unwrap();
    check(
        &["standings", "--html", "--no-analysis", t.to_str().unwrap()],
        dir.path(),
        1,
        &format!("cannot create {}: ", t.join("html").display()),
    );
}
