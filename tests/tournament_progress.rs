//! Issue 12, through the binary: off a terminal (stderr piped, as under nohup or CI), where the
//! progress bar is hidden, `durak tournament` prints progress lines on stderr, and with
//! `--standings-every N` the standings so far every N games. Nothing here depends on timing
//! beyond "at least one line appeared": the last progress line is printed at the end whatever
//! the interval, and the standings once N games are recorded.

mod common;

use common::{durak, text, DURAK};
use std::process::Command;

#[test]
fn off_a_terminal_progress_is_printed_as_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(DURAK)
        .args([
            "tournament",
            "--games",
            "20",
            "--seed",
            "5",
            "--standings-every",
            "15",
            "--out",
            "t",
            "--json",
            "builtin:random",
            "builtin:greedy",
        ])
        .current_dir(tmp.path())
        .env("DURAK_EXE", DURAK)
        .env("DURAK_PROGRESS_INTERVAL_MS", "50")
        .output()
        .unwrap();
    let e = text(&o.stderr);
    assert!(o.status.success(), "{e}");
    let progress: Vec<&str> = e.lines().filter(|l| l.starts_with("progress: ")).collect();
    // The last one, at the end: every game, no ETA left.
    let last = progress
        .last()
        .unwrap_or_else(|| panic!("no progress line in: {e}"));
    assert!(
        last.starts_with("progress: 40/40 games (100%), ")
            && last.contains(" games/s, done, 0 faults"),
        "{last}"
    );
    // Every line has the figures, in order.
    for l in &progress {
        assert!(l.contains(" games (") && l.contains(" games/s, "), "{l}");
    }
    // The standings after 15 games or more (as recorded then), before the end.
    let at = e
        .find("standings after ")
        .unwrap_or_else(|| panic!("no standings in: {e}"));
    let block = &e[at..];
    let (n, of) = block["standings after ".len()..]
        .split_once(" games:")
        .and_then(|(head, _)| head.split_once(" of "))
        .unwrap();
    assert!(n.parse::<u32>().unwrap() >= 15 && of == "40", "{block}");
    assert!(
        block.contains("builtin:greedy") && block.contains("loss rate"),
        "{block}"
    );
    // stdout still holds the final standings alone.
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["games_played"], 40);

    // --quiet: none of it.
    let o = Command::new(DURAK)
        .args([
            "tournament",
            "-q",
            "--games",
            "2",
            "--out",
            "q",
            "--standings-every",
            "1",
        ])
        .args(["builtin:random", "builtin:greedy"])
        .current_dir(tmp.path())
        .env("DURAK_EXE", DURAK)
        .env("DURAK_PROGRESS_INTERVAL_MS", "1")
        .output()
        .unwrap();
    assert!(o.status.success());
    let e = text(&o.stderr);
    assert!(
        !e.contains("progress: ") && !e.contains("standings after"),
        "{e}"
    );
    // N must be positive.
    let o = durak(
        &[
            "tournament",
            "--standings-every",
            "0",
            "builtin:random",
            "builtin:greedy",
        ],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(2));
}

/// `--standings-every N` prints the standings as of each multiple of N exactly, however fast
/// the games come (a poll every 100 ms used to print "after 109", skip 200, then "after 297").
#[test]
fn standings_every_n_come_at_each_multiple_of_n() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(DURAK)
        .args([
            "tournament",
            "--games",
            "150",
            "--seed",
            "5",
            "--standings-every",
            "100",
            "--out",
            "t",
            "builtin:greedy",
            "builtin:random",
        ])
        .current_dir(tmp.path())
        .env("DURAK_EXE", DURAK)
        .output()
        .unwrap();
    let e = text(&o.stderr);
    assert!(o.status.success(), "{e}");
    let heads: Vec<&str> = e
        .lines()
        .filter(|l| l.starts_with("standings after "))
        .collect();
    assert_eq!(
        heads,
        [
            "standings after 100 of 300 games:",
            "standings after 200 of 300 games:",
            "standings after 300 of 300 games:"
        ],
        "{e}"
    );
    // Each block is the standings of exactly those games: the games column sums to 2·N.
    for (i, block) in e.split("standings after ").skip(1).enumerate() {
        let games: u64 = block
            .lines()
            .filter(|l| l.contains("builtin:"))
            .take(2)
            .map(|l| {
                l.split_whitespace()
                    .filter_map(|w| w.parse::<u64>().ok())
                    .find(|&g| g >= 50)
                    .unwrap_or(0)
            })
            .sum();
        assert_eq!(games, 200 * (i as u64 + 1), "{block}");
    }
}
