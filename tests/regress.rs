//! Issue 26: `durak regress DIR --bot NAME "NEW COMMAND"`: for every game NAME lost in a
//! tournament, the new command takes NAME's seat from its first endgame blunder (the one `durak
//! analyze` names) and plays on; the games it saves are counted. Checked against the tournament's
//! own records and `durak analyze`, each fork verified.

mod common;

use common::{durak, text};
use durak_replay::{read_replay, simulate};
use serde_json::Value;
use std::path::Path;

const BUDGET: &str = "300000";

fn tournament(dir: &Path) {
    let out = durak(
        &[
            "tournament",
            "--out",
            "t",
            "--games",
            "10",
            "--seed",
            "5",
            "-q",
            "builtin:random",
            "builtin:greedy",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn regress_forks_every_lost_game_from_its_first_blunder_and_counts_the_saved() {
    let tmp = tempfile::tempdir().unwrap();
    tournament(tmp.path());
    let out = durak(
        &[
            "regress",
            "t",
            "--bot",
            "builtin:random",
            "--json",
            "--budget",
            BUDGET,
            "builtin:greedy",
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Every game the bot lost, from the tournament's records.
    let results = std::fs::read_to_string(tmp.path().join("t/results.jsonl")).unwrap();
    let lost: Vec<Value> = results
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["durak"] == "builtin:random")
        .collect();
    assert!(!lost.is_empty());
    assert_eq!(r["lost"], lost.len());
    let games = r["games"].as_array().unwrap();
    assert_eq!(games.len(), lost.len());
    let (mut forked, mut saved, mut wins) = (0, 0, 0);
    for (g, line) in games.iter().zip(&lost) {
        assert_eq!(g["id"], line["id"]);
        let seat = g["seat"].as_u64().unwrap();
        assert_eq!(line["loser"], seat);
        // The first blunder is the one `durak analyze` names for that seat.
        let replay = g["replay"].as_str().unwrap();
        let a = durak(
            &["analyze", "--json", "--budget", BUDGET, replay],
            tmp.path(),
        );
        let a: Value = serde_json::from_slice(&a.stdout).unwrap();
        assert_eq!(
            g["first_blunder"],
            a["summary"]["seats"][seat as usize]["first_blunder"]
        );
        let Some(f) = g["fork"].as_object() else {
            assert!(g["first_blunder"].is_null(), "{g}");
            assert_eq!(g["saved"], false);
            continue;
        };
        forked += 1;
        let step = g["first_blunder"].as_u64().unwrap() as usize;
        let original = simulate(&read_replay(&tmp.path().join(replay)).unwrap());
        let fork_path = tmp.path().join(f["replay"].as_str().unwrap());
        let fork = simulate(&read_replay(&fork_path).unwrap());
        assert!(fork.verified(), "{:?}", fork.divergence);
        assert_eq!(original.header.deck, fork.header.deck);
        assert_eq!(fork.header.seats[seat as usize].command, "builtin:greedy");
        let before = |s: &durak_replay::Simulation| -> Vec<String> {
            s.steps[..step - 1]
                .iter()
                .map(|st| format!("{:?}", st.mv))
                .collect()
        };
        assert_eq!(before(&original), before(&fork));
        let end = fork.end();
        assert_eq!(f["loser"].as_u64(), end.loser.map(|l| l as u64));
        let is_saved = end.draw || end.loser != Some(seat as usize);
        assert_eq!(g["saved"], is_saved);
        saved += usize::from(is_saved);
        wins += usize::from(is_saved && !end.draw);
    }
    assert_eq!(r["forked"], forked);
    assert_eq!(r["saved"], saved);
    assert_eq!(r["wins"], wins);
    assert_eq!(r["draws"], saved - wins);
    // The greedy bot in the random bot's seat, from a position it had not thrown away yet,
    // saves some of these deals.
    assert!(forked > 0 && saved > 0, "{r}");

    // The text names the count and each fork's replay.
    let out = durak(
        &[
            "regress",
            "t",
            "--bot",
            "builtin:random",
            "--budget",
            BUDGET,
            "builtin:greedy",
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(
        t.contains(&format!("saved {saved} of {} lost games", lost.len())),
        "{t}"
    );
    for g in games.iter().filter(|g| g["fork"].is_object()) {
        assert!(t.contains(g["fork"]["replay"].as_str().unwrap()), "{t}");
    }
}

#[test]
fn an_unknown_bot_or_directory_is_refused_naming_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    tournament(tmp.path());
    let out = durak(
        &["regress", "t", "--bot", "nobody", "builtin:greedy"],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(
        e.contains("--bot \"nobody\"") && e.contains("builtin:random"),
        "{e}"
    );
    assert!(e.contains("fix:"), "{e}");
    let out = durak(
        &[
            "regress",
            "nowhere",
            "--bot",
            "builtin:random",
            "builtin:greedy",
        ],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nowhere"));
    assert!(!tmp.path().join("regress").exists());
}
