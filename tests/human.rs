//! The human seat (`durak play human BOT`, issue 15): a person plays from the terminal. The test
//! gives `durak play` a terminal with script(1) and types as a person would: a typed move that
//! breaks a rule is refused at the prompt with its rule id (nothing is sent, the game goes on),
//! then the first numbered choice, always legal, until the game ends. The replay verifies.

mod common;
use common::system::require;
use common::*;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_person_plays_a_whole_game_from_the_terminal() {
    let Some(script) = require("script", "bsdutils") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let replays = dir.path().join("replays");
    let line = format!(
        "{DURAK} play --seed 5 --variant podkidnoy --replay-dir {} human builtin:greedy",
        replays.display()
    );
    let mut child = Command::new(script)
        .args(["-qec", &line, "/dev/null"])
        .env("DURAK_EXE", DURAK)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut keys = child.stdin.take().unwrap();
    let mut screen = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = screen.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    // Seed 5: the first decision is a defence against 6♦ 6♥ with clubs trump; 8♠ beats neither.
    // A pair written wrong, then a pair that breaks C-4, then the numbered choices.
    let deadline = Instant::now() + Duration::from_secs(120);
    std::thread::sleep(Duration::from_millis(500));
    let _ = keys.write_all(b"6D-8S\n6D>8S 6H>9S\n");
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        let _ = keys.write_all(b"1\n");
        std::thread::sleep(Duration::from_millis(30));
    }
    drop(keys);
    let _ = child.kill();
    let status = child.wait().unwrap();
    let screen = reader.join().unwrap();
    assert!(status.success(), "{screen}");
    assert!(
        screen.contains("You are seat 0 of 2 at podkidnoy durak"),
        "{screen}"
    );
    assert!(screen.contains("a defence pair is ATTACK>CARD"), "{screen}");
    assert!(screen.contains("✗ C-4: 8S does not beat 6D"), "{screen}");
    assert!(screen.contains("beat everything: 6D>TC 6H>JC"), "{screen}");
    assert!(screen.contains("=== game 0 over:"), "{screen}");
    assert!(screen.contains("1 games of podkidnoy (seed 5)"), "{screen}");
    // The refused typing cost nothing: no fault, and the replay verifies.
    assert!(!screen.contains("FAULT"), "{screen}");
    let out = Command::new(DURAK)
        .args(["replay", "--verify"])
        .arg(replays.join("game-0000.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The human seat needs a terminal, and only `durak play` has one to give.
#[test]
fn the_human_seat_is_refused_where_nobody_is_at_the_keyboard() {
    let out = Command::new(DURAK)
        .args(["play", "human", "builtin:random"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the human seat plays in a terminal"));
    let out = Command::new(DURAK)
        .args(["check-bot", "human"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("durak play human BOT"));
    let out = Command::new(DURAK)
        .args(["tournament", "--games", "2", "human", "builtin:random"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the human seat plays only in `durak play human BOT`"),
        "{}",
        text(&out.stderr)
    );
}
