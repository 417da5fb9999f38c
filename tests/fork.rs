//! Issue 26: `durak fork REPLAY --step N BOT...` plays a recorded game on from step N with other
//! bots. With real sample bots (Python): the forked replay verifies, is dealt from the original's
//! deck, and shares the original's first N steps (the moves before N, the state at N); forked
//! with the very bots that played it (deterministic for a deal), the game comes out the same,
//! which shows each bot was fed what its seat read. Bad input is refused with the flag named.

mod common;

use common::{durak, text};
use durak_replay::{read_replay, simulate, Simulation};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `python3` and a sample bot of sample-bots/python/ (`name`: its file without `.py`), or `None`
/// (the test skipped with a note) without Python.
fn python_bot(name: &str) -> Option<String> {
    let exe = common::require_interpreter("python3", "python3")?;
    Some(format!(
        "{} {}",
        exe.display(),
        root()
            .join(format!("sample-bots/python/{name}.py"))
            .display()
    ))
}

/// Play `games` games of `bots` with replays; the replay files in order.
fn play(dir: &Path, bots: &[&str], games: u32, seed: u32) -> Vec<PathBuf> {
    let replays = dir.join("replays");
    let mut args = vec![
        "play".to_string(),
        "--games".into(),
        games.to_string(),
        "--seed".into(),
        seed.to_string(),
        "--replay-dir".into(),
        replays.display().to_string(),
    ];
    args.extend(bots.iter().map(|b| b.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = durak(&args, dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&replays)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), games as usize);
    files
}

fn sim(path: &Path) -> Simulation {
    simulate(&read_replay(path).unwrap())
}

/// `durak fork --json`; the parsed answer.
fn fork(dir: &Path, replay: &Path, step: usize, out_dir: &Path, bots: &[&str]) -> Value {
    let step = step.to_string();
    let mut args = vec![
        "fork",
        "--json",
        "--step",
        &step,
        "--replay-dir",
        out_dir.to_str().unwrap(),
        replay.to_str().unwrap(),
    ];
    args.extend(bots);
    let out = durak(&args, dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

/// The step in the middle of a game's decisions.
fn middle(s: &Simulation) -> usize {
    let decisions: Vec<usize> = s
        .steps
        .iter()
        .filter(|st| st.request.is_some())
        .map(|st| st.number)
        .collect();
    decisions[decisions.len() / 2]
}

fn moves(s: &Simulation) -> Vec<String> {
    s.steps
        .iter()
        .filter_map(|st| st.mv.map(|m| format!("{m:?}")))
        .collect()
}

#[test]
fn a_fork_with_other_bots_verifies_and_shares_the_deck_and_the_first_steps() {
    let Some(heuristic) = python_bot("heuristic_bot") else {
        return;
    };
    let random = python_bot("random_bot").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let files = play(tmp.path(), &[&heuristic, "builtin:random"], 2, 26);
    let mut differed = 0;
    for file in &files {
        let original = sim(file);
        assert!(original.verified());
        let n = middle(&original);
        let out_dir = tmp.path().join("forks");
        let j = fork(tmp.path(), file, n, &out_dir, &[&random, "builtin:greedy"]);
        assert_eq!(j["step"], n);
        assert_eq!(j["opening_moves"], n - 1);
        let path = PathBuf::from(j["replay"].as_str().unwrap());
        assert!(path.starts_with(&out_dir), "{path:?}");
        // It verifies, with the durak command as with the library.
        let out = durak(&["replay", "--verify", path.to_str().unwrap()], tmp.path());
        assert!(out.status.success(), "{}", text(&out.stdout));
        let forked = sim(&path);
        assert!(forked.verified(), "{:?}", forked.divergence);
        // The same deal.
        let (a, b) = (&original.header, &forked.header);
        assert_eq!(a.deck, b.deck);
        assert_eq!(
            (a.seed, a.dealer, a.game, a.first_game, a.variant),
            (b.seed, b.dealer, b.game, b.first_game, b.variant)
        );
        assert_eq!(b.seats[0].command, random);
        assert_eq!(b.seats[1].command, "builtin:greedy");
        // The first N steps: the same moves before N, the same position at N.
        let (ma, mb) = (moves(&original), moves(&forked));
        assert_eq!(ma[..n - 1], mb[..n - 1]);
        for i in 0..n {
            assert_eq!(
                format!("{:?}", original.steps[i].state),
                format!("{:?}", forked.steps[i].state),
                "step {}",
                i + 1
            );
        }
        differed += usize::from(ma[n - 1..] != mb[n - 1..]);
        // The result in the answer is the forked replay's.
        let end = forked.end();
        assert_eq!(j["fork"]["loser"].as_u64(), end.loser.map(|l| l as u64));
        assert_eq!(j["fork"]["draw"], end.draw);
        assert_eq!(
            j["recorded"]["loser"].as_u64(),
            original.end().loser.map(|l| l as u64)
        );
    }
    assert!(differed > 0, "other bots played otherwise from step N");
}

/// Forked with the bots that played it, from any step, a game comes out move for move the same:
/// each bot was fed its seat's lines up to the step (its own requests answered along the way) and
/// went on from there as it did in the match.
#[test]
fn a_fork_with_the_same_bots_replays_the_same_game() {
    let Some(heuristic) = python_bot("heuristic_bot") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let files = play(tmp.path(), &["builtin:random", &heuristic], 1, 7);
    let original = sim(&files[0]);
    let requests: Vec<usize> = original
        .steps
        .iter()
        .filter(|s| s.request.is_some())
        .map(|s| s.number)
        .collect();
    for n in [1, requests[requests.len() / 3], *requests.last().unwrap()] {
        let out_dir = tmp.path().join(format!("same-{n}"));
        let j = fork(
            tmp.path(),
            &files[0],
            n,
            &out_dir,
            &["builtin:random", &heuristic],
        );
        let forked = sim(Path::new(j["replay"].as_str().unwrap()));
        assert!(forked.verified());
        assert_eq!(moves(&original), moves(&forked), "forked at step {n}");
        assert_eq!(original.end().loser, forked.end().loser);
    }
}

#[test]
fn bad_steps_and_bot_counts_are_refused_naming_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let files = play(tmp.path(), &["builtin:random", "builtin:greedy"], 1, 3);
    let file = files[0].to_str().unwrap();
    let steps = sim(&files[0]).steps.len();
    let last = steps.to_string();
    for (args, says) in [
        (
            vec![
                "fork",
                "--step",
                "0",
                file,
                "builtin:random",
                "builtin:random",
            ],
            "--step 0",
        ),
        (
            vec![
                "fork",
                "--step",
                &last,
                file,
                "builtin:random",
                "builtin:random",
            ],
            "its end",
        ),
        (
            vec!["fork", "--step", "2", file, "builtin:random"],
            "1 bots given for a game of 2 players",
        ),
    ] {
        let out = durak(&args, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let e = text(&out.stderr);
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(e.contains("fix:"), "{e}");
    }
    assert!(!tmp.path().join("forks").exists(), "nothing was played");
}

/// An opening move the engine refuses is an error of the match (the fork's input), not a fault
/// of a bot: the referee never applies a move it did not check.
#[test]
fn an_illegal_opening_move_is_refused_before_it_is_applied() {
    use durak_referee::isolation::Sandbox;
    let tmp = tempfile::tempdir().unwrap();
    let seats = vec![
        common::builtin("random", Sandbox::Default),
        common::builtin("greedy", Sandbox::Default),
    ];
    let mut cfg = common::config(seats, 1, tmp.path());
    // The first decision is an attack: passing is not one of its choices.
    cfg.opening = vec![durak_rules::Move::Pass];
    let err = common::runtime()
        .block_on(durak_referee::play_match(&cfg, |_| {}))
        .expect_err("refused");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(
        err.to_string().contains("the opening's move 1 (pass)"),
        "{err}"
    );
}
