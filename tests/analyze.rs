//! Issue 26: `durak analyze REPLAY [--json]`, the exact values of a game's endgame.
//!
//! Games of the built-in bots (random against greedy, both variants) are played with `durak play
//! --replay-dir` and analysed. Beside the shape of the output, the values must tell one story:
//! the value after a seat's move is its value at its next decision (nobody's move between changes
//! a value held with perfect play... except the opponent's blunders, which only raise it), the last
//! value after is the game's result, a blunder is exactly a fall of the value, and a seat that held
//! a won position and did not win threw the game away.

mod common;

use common::{durak, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn play(dir: &Path, variant: &str, games: u32, seed: u32) -> Vec<PathBuf> {
    let replays = dir.join(format!("replays-{variant}"));
    let out = durak(
        &[
            "play",
            "--variant",
            variant,
            "--games",
            &games.to_string(),
            "--seed",
            &seed.to_string(),
            "--replay-dir",
            replays.to_str().unwrap(),
            "builtin:random",
            "builtin:greedy",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&replays)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), games as usize);
    files
}

/// The solver's budget here: enough for nearly every position, small enough for a debug build
/// (a position over it is `null`, which the checks allow).
const BUDGET: &str = "300000";

fn analyze_json(file: &Path, dir: &Path) -> Value {
    let out = durak(
        &[
            "analyze",
            "--json",
            "--budget",
            BUDGET,
            file.to_str().unwrap(),
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn rank(v: &Value) -> i64 {
    match v.as_str() {
        Some("win") => 1,
        Some("draw") => 0,
        Some("loss") => -1,
        other => panic!("not a value: {other:?}"),
    }
}

/// Check one game's analysis for consistency; returns (blunders, thrown games).
fn check_story(a: &Value) -> (usize, usize) {
    let decisions = a["decisions"].as_array().unwrap();
    let loser = a["result"]["loser"].as_u64();
    let draw = a["result"]["draw"].as_bool().unwrap();
    let result_for = |seat: u64| -> i64 {
        match (draw, loser) {
            (true, _) => 0,
            (false, Some(l)) if l == seat => -1,
            _ => 1,
        }
    };
    assert_eq!(
        a["endgame_from"].as_u64(),
        decisions.first().map(|d| d["step"].as_u64().unwrap())
    );
    let mut blunders = 0;
    let mut held_win = [false; 2];
    for (i, d) in decisions.iter().enumerate() {
        let seat = d["seat"].as_u64().unwrap();
        if !d["forced"].as_bool().unwrap() && d["value"] == "win" {
            held_win[seat as usize] = true;
        }
        if d["value"].is_null() || d["value_after"].is_null() {
            assert!(
                d["unsolved"].is_string(),
                "an unvalued decision says why: {d}"
            );
            continue;
        }
        let (before, after) = (rank(&d["value"]), rank(&d["value_after"]));
        assert!(after <= before, "no move beats perfect play: {d}");
        assert_eq!(d["blunder"].as_bool().unwrap(), after < before, "{d}");
        blunders += d["blunder"].as_bool().unwrap() as usize;
        if d["forced"].as_bool().unwrap() {
            assert_eq!(before, after, "a forced move is never a blunder");
        } else {
            assert!(d["choices"].as_u64().unwrap() >= 1);
            assert!(!d["best"].as_array().unwrap().is_empty());
        }
        // The value after this move is, for this seat, the value at the next decision.
        match decisions.get(i + 1) {
            Some(next) if !next["value"].is_null() => {
                let v = rank(&next["value"]);
                let mine = if next["seat"] == d["seat"] { v } else { -v };
                assert_eq!(mine, after, "step {} then {}", d["step"], next["step"]);
            }
            Some(_) => {}
            None => assert_eq!(
                after,
                result_for(seat),
                "the last move's value is the result"
            ),
        }
    }
    let seats = a["summary"]["seats"].as_array().unwrap();
    let mut thrown = 0;
    for (s, held) in held_win.iter().enumerate() {
        let threw = *held && result_for(s as u64) < 1;
        assert_eq!(seats[s]["threw_won_game"].as_bool().unwrap(), threw, "{a}");
        thrown += threw as usize;
    }
    assert_eq!(
        a["summary"]["blunders"].as_u64().unwrap() as usize,
        blunders
    );
    assert_eq!(
        a["summary"]["games_thrown_away"].as_u64().unwrap() as usize,
        thrown
    );
    (blunders, thrown)
}

#[test]
fn analysis_of_played_games_tells_one_consistent_story() {
    let dir = tempfile::tempdir().unwrap();
    for variant in ["podkidnoy", "prostoy"] {
        let mut blunders = 0;
        let mut endgames = 0;
        for file in play(dir.path(), variant, 6, 26) {
            let a = analyze_json(&file, dir.path());
            assert_eq!(a["verified"], true);
            endgames += a["endgame_from"].is_u64() as usize;
            blunders += check_story(&a).0;
        }
        assert!(
            endgames >= 4,
            "{variant}: {endgames} of 6 games reached an endgame"
        );
        // The random bot throws away what it holds: some blunder is found.
        assert!(
            blunders > 0,
            "{variant}: no blunder in 6 games of the random bot"
        );
    }
}

#[test]
fn human_output_names_the_blunders_and_sums_up() {
    let dir = tempfile::tempdir().unwrap();
    let files = play(dir.path(), "podkidnoy", 6, 26);
    let mut seen_blunder = false;
    for file in &files {
        let a = analyze_json(file, dir.path());
        let out = durak(
            &["analyze", "--budget", BUDGET, file.to_str().unwrap()],
            dir.path(),
        );
        assert!(out.status.success());
        let t = text(&out.stdout);
        assert!(t.contains("Summary: "), "{t}");
        if let Some(b) = a["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["blunder"] == true)
        {
            seen_blunder = true;
            let step = b["step"].to_string();
            let line = t
                .lines()
                .find(|l| l.contains("BLUNDER"))
                .expect("the blunder is marked");
            assert!(line.trim_start().starts_with(&step), "{line}");
            assert!(line.contains("best: "), "{line}");
            assert!(t.contains(&format!("--step {step}")), "{t}");
        } else {
            assert!(!t.contains("BLUNDER"));
        }
    }
    assert!(seen_blunder);
}

#[test]
fn bad_input_is_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.jsonl");
    let out = durak(&["analyze", missing.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("nope.jsonl"),
        "{}",
        text(&out.stderr)
    );
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not json\n").unwrap();
    let out = durak(&["analyze", bad.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bad.jsonl"),
        "{}",
        text(&out.stderr)
    );
}

/// A budget too small for the endgame's first positions: they say "not solved" (no guess), the
/// later, smaller ones are still valued.
#[test]
fn a_small_budget_leaves_positions_unsolved_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let files = play(dir.path(), "podkidnoy", 4, 27);
    let mut unsolved = 0;
    for file in &files {
        let out = durak(
            &[
                "analyze",
                "--json",
                "--budget",
                "50",
                file.to_str().unwrap(),
            ],
            dir.path(),
        );
        assert!(out.status.success());
        let a: Value = serde_json::from_slice(&out.stdout).unwrap();
        for d in a["decisions"].as_array().unwrap() {
            if d["value"].is_null() {
                unsolved += 1;
                assert!(d["unsolved"].as_str().unwrap().contains("budget"), "{d}");
                assert_eq!(d["blunder"], false);
            }
        }
        check_story(&a);
    }
    assert!(unsolved > 0);
}
