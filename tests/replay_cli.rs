//! `durak replay` end to end (issue 5): real replays written by `durak play` (both variants, and
//! a game lost by a bot answering garbage) verify; tampered and truncated ones fail with the first
//! differing step; bad input is a clear error naming the line (exit 2); steps print as plain text.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

fn durak(args: &[&str]) -> Output {
    Command::new(DURAK)
        .args(args)
        .env("DURAK_EXE", DURAK)
        .output()
        .expect("durak runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

struct Replays {
    _dir: tempfile::TempDir,
    podkidnoy: Vec<PathBuf>,
    prostoy: Vec<PathBuf>,
    garbage: PathBuf,
    scratch: PathBuf,
}

/// Real replays, written once for all tests of this file.
fn replays() -> &'static Replays {
    static R: OnceLock<Replays> = OnceLock::new();
    R.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let p = |s: &str| dir.path().join(s);
        let run = |args: &[&str]| {
            let o = durak(args);
            assert!(o.status.success(), "durak {args:?}: {}", stderr(&o));
        };
        run(&[
            "play", "--seed", "5", "--games", "2", "--replay-dir",
            p("pk").to_str().unwrap(), "builtin:random", "builtin:greedy",
        ]);
        run(&[
            "play", "--variant", "prostoy", "--seed", "9", "--games", "2", "--replay-dir",
            p("pr").to_str().unwrap(), "builtin:greedy", "builtin:random", "builtin:greedy",
        ]);
        // A bot that says hello, then answers every request with garbage: it loses game 0 by a
        // `malformed` fault at its first decision.
        let script = p("garbage.sh");
        std::fs::write(
            &script,
            "read l; echo '{\"type\":\"hello\",\"protocol\":1,\"name\":\"garbage\",\"version\":\"1\"}'\n\
             while read l; do case \"$l\" in *'\"type\":\"request\"'*) echo 'not json';; esac; done\n",
        )
        .unwrap();
        let garbage_bot = format!("sh {}", script.display());
        run(&[
            "play", "--seed", "3", "--games", "1", "--replay-dir",
            p("garbage").to_str().unwrap(), "builtin:greedy", &garbage_bot,
        ]);
        std::fs::create_dir_all(p("scratch")).unwrap();
        Replays {
            podkidnoy: vec![p("pk/game-0000.jsonl"), p("pk/game-0001.jsonl")],
            prostoy: vec![p("pr/game-0000.jsonl"), p("pr/game-0001.jsonl")],
            garbage: p("garbage/game-0000.jsonl"),
            scratch: p("scratch"),
            _dir: dir,
        }
    })
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(name: &str, lines: &[String]) -> PathBuf {
    let path = replays().scratch.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn the_replay_format_is_the_one_the_referee_writes() {
    assert_eq!(durak_replay::FORMAT, durak_referee::replay::REPLAY_FORMAT);
}

/// The referee writes a replay with the typed lines of `durak_protocol::replay`, and the reader
/// reads it with the same types: read and written again, every line of real replays (moves,
/// forced moves, events, requests, a refused answer, a fault, stderr, the result) is the same
/// bytes.
#[test]
fn replays_read_and_written_again_are_the_same_bytes() {
    let r = replays();
    let mut types = std::collections::BTreeSet::new();
    for path in r.podkidnoy.iter().chain(&r.prostoy).chain([&r.garbage]) {
        let replay = durak_replay::read_replay(path).unwrap();
        let again = replay.to_lines();
        assert_eq!(again, lines_of(path), "{}", path.display());
        types.extend(replay.lines.iter().map(|l| l.record.type_name()));
    }
    for t in ["event", "request", "move", "answer", "fault", "result"] {
        assert!(types.contains(t), "no {t} line in the replays: {types:?}");
    }
}

#[test]
fn real_replays_verify() {
    let r = replays();
    for path in r.podkidnoy.iter().chain(&r.prostoy).chain([&r.garbage]) {
        let o = durak(&["replay", "--verify", path.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}{}",
            path.display(),
            stdout(&o),
            stderr(&o)
        );
        assert!(stdout(&o).starts_with("verified: "), "{}", stdout(&o));
    }
    let o = durak(&["replay", "--verify", r.garbage.to_str().unwrap()]);
    assert!(stdout(&o).contains("loses by fault"), "{}", stdout(&o));
}

#[test]
fn tampered_replays_fail_at_the_first_differing_step() {
    let lines = lines_of(&replays().prostoy[0]);
    // A card changed in an attack event.
    let n = lines
        .iter()
        .position(|l| l.contains("\"kind\":\"attacked\""))
        .unwrap();
    let mut bad = lines.clone();
    let mut v: Value = serde_json::from_str(&bad[n]).unwrap();
    let card = v["event"]["cards"][0].as_str().unwrap().to_string();
    v["event"]["cards"][0] = json!(if card == "6C" { "7C" } else { "6C" });
    bad[n] = v.to_string();
    let path = write_lines("event.jsonl", &bad);
    let o = durak(&["replay", "--verify", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.starts_with("FAILED: "), "{out}");
    assert!(
        out.contains(&format!(", line {}: the logged event", n + 1)),
        "{out}"
    );
    assert!(
        out.contains("differs from the re-simulation at step 2,"),
        "{out}"
    );

    // A move changed: the first chosen move answers with a card the attacker does not hold.
    let n = lines
        .iter()
        .position(|l| l.contains("\"type\":\"move\""))
        .unwrap();
    let header: Value = serde_json::from_str(&lines[0]).unwrap();
    let trump_card = header["deck"][15].clone(); // 3 players x 5 cards: card 15 is the trump card
    let mut bad = lines.clone();
    let mut v: Value = serde_json::from_str(&bad[n]).unwrap();
    v["move"]["cards"] = json!([trump_card]);
    bad[n] = v.to_string();
    let path = write_lines("move.jsonl", &bad);
    let o = durak(&["replay", "--verify", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(&format!("step 1, line {}: the logged move", n + 1)),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("is illegal"), "{}", stdout(&o));

    // Truncated after 40 lines: no result.
    let path = write_lines("truncated.jsonl", &lines[..40]);
    let o = durak(&["replay", "--verify", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("line 40: the replay ends at line 40 without its result line"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_input_is_named_with_its_line() {
    let r = replays();
    let check = |path: &Path, want: &str| {
        let o = durak(&["replay", "--verify", path.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: {}",
            path.display(),
            stdout(&o)
        );
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("error: {}", path.display())),
            "{err}"
        );
        assert!(err.contains(want), "{err}");
    };
    check(&r.scratch.join("nope.jsonl"), ": no such file");
    let text = r.scratch.join("notes.txt");
    std::fs::write(&text, "shopping list\n").unwrap();
    check(&text, ":1: not a durak replay");
    let lines = lines_of(&r.podkidnoy[1]);
    let mut newer = lines.clone();
    newer[0] = newer[0].replace("\"format\":1", "\"format\":7");
    check(
        &write_lines("newer.jsonl", &newer),
        ":1: this replay is in format 7, newer",
    );
    let full = std::fs::read_to_string(&r.podkidnoy[1]).unwrap();
    let cut_at = full.len() * 2 / 3;
    let line = full[..cut_at].matches('\n').count() + 1;
    let cut = r.scratch.join("cut.jsonl");
    std::fs::write(&cut, &full.as_bytes()[..cut_at]).unwrap();
    check(
        &cut,
        &format!(":{line}: the file ends in the middle of this line"),
    );
    let mut invalid = lines.clone();
    invalid[4] = "{\"type\":\"event\",".into();
    check(
        &write_lines("invalid.jsonl", &invalid),
        ":5: the line is not valid JSON",
    );
    // Viewing reports bad input the same way.
    let o = durak(&["replay", "--all", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn steps_as_plain_text() {
    let r = replays();
    let path = r.podkidnoy[0].to_str().unwrap();
    let o = durak(&["replay", "--step", "3", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("== step 3 of "), "{out}");
    assert!(out.contains(", full view) =="));
    assert!(out.contains("\nhands:\n"));
    assert_eq!(out.matches("== step").count(), 1);

    let o = durak(&["replay", "--all", path]);
    let all = stdout(&o);
    let steps = all.matches("== step").count();
    assert!(steps > 10, "{all}");
    assert!(all.contains(&format!("== step {steps} of {steps} ")));
    assert!(all.contains("result: "));
    // Not a terminal and no flag: every step, as with --all.
    let o = durak(&["replay", path]);
    assert_eq!(stdout(&o), all);

    // One seat's view: the other hand is hidden.
    let o = durak(&["replay", "--step", "3", "--seat", "1", path]);
    let out = stdout(&o);
    assert!(out.contains("seat 1's view"), "{out}");
    assert!(out.contains("hidden cards"), "{out}");
    let o = durak(&["replay", "--all", "--seat", "0", path]);
    assert!(
        !stdout(&o).contains("seat 1 is dealt"),
        "seat 0 does not see seat 1's deal"
    );
    assert!(stdout(&o).contains("seat 0 is dealt"));

    // A fault in plain words.
    let o = durak(&["replay", "--all", r.garbage.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(out.contains("FAULT: seat 1 ("), "{out}");
    assert!(
        out.contains("loses by fault: sent a line that is not JSON"),
        "{out}"
    );
    assert!(out.contains("refused answer: not json"), "{out}");

    for (args, want) in [
        (vec!["--seat", "2"], "--seat 2: this game has seats 0 to 1"),
        (vec!["--step", "0"], "--step 0: this game has steps 1 to"),
        (
            vec!["--step", "9999"],
            "--step 9999: this game has steps 1 to",
        ),
    ] {
        let mut a = vec!["replay"];
        a.extend(args);
        a.push(path);
        let o = durak(&a);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
}

#[test]
fn html_page_from_the_command_line() {
    let r = replays();
    let out = r.scratch.join("page/game.html");
    let o = durak(&[
        "replay",
        "--html",
        out.to_str().unwrap(),
        r.prostoy[1].to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with(&format!("wrote {}", out.display())));
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("id=\"replay-data\""));
    // --verify and --html together: the page is written and the verdict printed.
    let out2 = r.scratch.join("page/game2.html");
    let o = durak(&[
        "replay",
        "--verify",
        "--html",
        out2.to_str().unwrap(),
        r.prostoy[1].to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out2.is_file());
    assert!(stdout(&o).contains("\nverified: "), "{}", stdout(&o));
}

/// `durak play` never mixes the replays of two matches, nor overwrites them: the default
/// directory moves on to `play-SEED-2`, and a given directory that holds replays is refused.
#[test]
fn play_never_mixes_or_overwrites_replays() {
    let dir = tempfile::tempdir().unwrap();
    let play = |extra: &[&str], games: &str| {
        Command::new(DURAK)
            .current_dir(dir.path())
            .args(["play", "--seed", "50", "--games", games])
            .args(extra)
            .args(["builtin:random", "builtin:greedy"])
            .output()
            .unwrap()
    };
    let first = play(&[], "3");
    assert!(first.status.success(), "{}", stderr(&first));
    let second = play(&["--variant", "prostoy"], "2");
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        stdout(&second).contains("replays: replays/play-50-2"),
        "{}",
        stdout(&second)
    );
    let count = |d: &str| std::fs::read_dir(dir.path().join(d)).unwrap().count();
    assert_eq!(
        (count("replays/play-50"), count("replays/play-50-2")),
        (3, 2)
    );
    let first_game = std::fs::read_to_string(dir.path().join("replays/play-50/game-0000.jsonl"));
    assert!(first_game.unwrap().contains(r#""variant":"podkidnoy""#));

    let refused = play(&["--replay-dir", "replays/play-50"], "1");
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("already holds replays"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(count("replays/play-50"), 3);
}

/// A game in which no seat could start is a draw, and every view says so: no seat "loses by
/// fault", and the replay verifies.
#[test]
fn a_game_nobody_could_start_reads_as_a_draw() {
    let dir = tempfile::tempdir().unwrap();
    let replays = dir.path().join("r");
    let o = durak(&[
        "play",
        "--replay-dir",
        replays.to_str().unwrap(),
        "sh -c 'exit 1'",
        "sh -c 'exit 3'",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let game = replays.join("game-0000.jsonl");
    let all = durak(&["replay", "--all", game.to_str().unwrap()]);
    let text = stdout(&all);
    assert!(text.contains("a draw: no seat could play"), "{text}");
    assert!(text.contains("seat 0 (sh -c 'exit 1') faulted"), "{text}");
    assert!(!text.contains("loses by fault"), "{text}");
    let v = durak(&["replay", "--verify", game.to_str().unwrap()]);
    assert!(v.status.success(), "{}{}", stdout(&v), stderr(&v));
}
