//! A bot cannot drive the organiser's terminal: what it writes (its hello name and version, its
//! stderr, its answer lines, the fault details quoting them) reaches the text output of `durak
//! play`, `durak replay` and `durak check-bot` with its control characters and bidi overrides
//! escaped (`\e`, `\x07`, `\r`, `\u{202e}`). `--json` output keeps them, JSON-escaped.
//!
//! The bot is `replay/tests/data/hostile_text_bot.sh`: ESC sequences that set the window title
//! and clear the screen, a BEL, a carriage return and a right-to-left override, everywhere.

mod common;

use common::{durak, text, DURAK};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The hostile bot's command: it answers `after` requests, then sends a raw line (0: never).
fn bot(after: u32) -> String {
    format!(
        "sh {} {DURAK} {after}",
        repo()
            .join("replay/tests/data/hostile_text_bot.sh")
            .display()
    )
}

/// Bytes a terminal acts on: ESC, BEL, CR, any other C0 control but newline and tab, DEL, and
/// (as UTF-8) C1 controls and the bidi overrides and isolates.
fn assert_inert(what: &str, out: &[u8]) {
    let s = String::from_utf8_lossy(out);
    let bad: Vec<(usize, char)> = s
        .char_indices()
        .filter(|&(_, c)| {
            (c < ' ' && c != '\n' && c != '\t')
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
        })
        .collect();
    assert!(bad.is_empty(), "{what} holds {bad:?}:\n{s}");
}

const NAME: &str = r"evil\e]0;pwned\x07\u{202e}man";

fn replays(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn play_and_replay_print_the_bots_text_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("replays");
    let dir_arg = dir.display().to_string();
    let hostile = bot(3);
    let out = durak(
        &[
            "play",
            "--seed",
            "41",
            "--games",
            "2",
            "--replay-dir",
            &dir_arg,
            "builtin:greedy",
            &hostile,
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_inert("durak play's output", &out.stdout);
    assert_inert("durak play's messages", &out.stderr);
    let shown = text(&out.stdout);
    // The seat list names the bot as it said it is, escaped; the fault quotes its line.
    assert!(shown.contains(NAME), "{shown}");
    assert!(shown.contains("FAULT seat 1 malformed"), "{shown}");
    assert!(shown.contains(r#"The line began: "\u{1b}[2J"#), "{shown}");

    // Every step of the replay, in every view.
    let files = replays(&dir);
    assert_eq!(files.len(), 2);
    for f in &files {
        let f = f.display().to_string();
        for seat in [None, Some("0"), Some("1")] {
            let mut args = vec!["replay", "--all", f.as_str()];
            if let Some(s) = seat {
                args.extend(["--seat", s]);
            }
            let out = durak(&args, tmp.path());
            assert!(out.status.success(), "{}", text(&out.stderr));
            assert_inert(&format!("durak replay --all {f} {seat:?}"), &out.stdout);
            let shown = text(&out.stdout);
            assert!(shown.contains(NAME), "{shown}");
            if seat != Some("0") {
                // The bot's stderr and refused line, at their steps.
                assert!(
                    shown.contains(r"  | thinking \e]0;pwned\x07 \e[2J\r\u{202e} about request"),
                    "{shown}"
                );
                assert!(
                    shown.contains(r"refused answer: \e[2J\e]0;pwned\x07{oops\r\u{202e}"),
                    "{shown}"
                );
            }
        }
        let out = durak(&["replay", "--verify", f.as_str()], tmp.path());
        assert!(out.status.success(), "{}", text(&out.stdout));
        assert_inert("durak replay --verify", &out.stdout);
    }

    // JSON stays JSON: the name as the bot sent it.
    let out = durak(
        &[
            "play",
            "--seed",
            "41",
            "--json",
            "--replay-dir",
            &tmp.path().join("json").display().to_string(),
            "builtin:greedy",
            &hostile,
        ],
        tmp.path(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["seats"][1]["bot_name"],
        "evil\u{1b}]0;pwned\u{7}\u{202e}man"
    );
    assert_eq!(v["seats"][1]["bot_version"], "1\u{1b}[2J\r");
    // A fault that is not an illegal move carries no `rule` (the README's `play --json`).
    let faults: Vec<&Value> = v["games"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["faults"].as_array().unwrap())
        .collect();
    assert!(!faults.is_empty(), "{v}");
    for f in faults {
        assert_ne!(f["kind"], "illegal", "{f}");
        assert!(f.get("rule").is_none(), "{f}");
    }
}

#[test]
fn check_bot_reports_the_bots_text_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let hostile = bot(3);
    let out = durak(
        &[
            "check-bot",
            "--variant",
            "podkidnoy",
            "--games",
            "1",
            "--long",
            "0",
            &hostile,
        ],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_inert("durak check-bot's report", &out.stdout);
    assert_inert("durak check-bot's messages", &out.stderr);
    let report = text(&out.stdout);
    // What came back, the name it gave, and its stderr, all visible.
    assert!(
        report.contains(r"came back") && report.contains(r"\e[2J\e]0;pwned\x07{oops\r\u{202e}"),
        "{report}"
    );
    assert!(
        report.contains(r#"the bot says it is "evil\u{1b}]0;pwned\u{7}\u{202e}man""#),
        "{report}"
    );
    assert!(
        report.contains(r"| thinking \e]0;pwned\x07 \e[2J\r\u{202e} about request"),
        "{report}"
    );
}
