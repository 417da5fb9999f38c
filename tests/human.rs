//! The human seat (`durak play human BOT`, issue 15): a person plays a seat. On a terminal it
//! is the replay viewer's layout (tried here in tmux: the position, the numbered choices, typed
//! moves); with `--plain` it is a transcript read and typed line by line, which these tests
//! drive through pipes as a person would type: a typed move that breaks a rule is refused at the
//! prompt with its rule id (nothing is sent, the game goes on), then numbered choices until the
//! game ends. Each game's result line shows when that game ends; `q` is recorded as the person
//! quitting, not as a bot's crash. The replays verify.

mod common;
use common::system::require;
use common::*;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `durak play --plain ... human builtin:greedy` with pipes for keys and screen.
struct Plain {
    child: Child,
    keys: Option<ChildStdin>,
    screen: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
    fed: usize,
}

impl Plain {
    fn start(args: &[&str], replays: &Path) -> Plain {
        let mut child = Command::new(DURAK)
            .args(["play", "--plain", "--replay-dir"])
            .arg(replays)
            .args(args)
            .args(["human", "builtin:greedy"])
            .env("DURAK_EXE", DURAK)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let keys = child.stdin.take();
        let mut out = child.stdout.take().unwrap();
        let screen = Arc::new(Mutex::new(String::new()));
        let s = screen.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                s.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Plain {
            child,
            keys,
            screen,
            reader: Some(reader),
            fed: 0,
        }
    }

    fn text(&self) -> String {
        self.screen.lock().unwrap().clone()
    }

    /// Prompts shown so far.
    fn prompts(&self) -> usize {
        self.text().matches("\n> ").count()
    }

    /// Wait for the next unanswered prompt; false once the match is over (or after 60 s).
    fn at_prompt(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if self.prompts() > self.fed {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn type_line(&mut self, line: &str) {
        self.fed += 1;
        let keys = self.keys.as_mut().unwrap();
        keys.write_all(format!("{line}\n").as_bytes()).unwrap();
        keys.flush().unwrap();
    }

    /// Answer every prompt with `1` until the match ends.
    fn play_out(&mut self) {
        while self.at_prompt() {
            self.type_line("1");
        }
    }

    fn finish(mut self) -> (bool, String) {
        drop(self.keys.take());
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let status = self.child.wait().unwrap();
        self.reader.take().unwrap().join().unwrap();
        (status.success(), self.text())
    }
}

fn verify(replay: &Path) {
    let out = Command::new(DURAK)
        .args(["replay", "--verify"])
        .arg(replay)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_person_plays_two_games_in_plain_lines_and_each_result_shows_when_its_game_ends() {
    let dir = tempfile::tempdir().unwrap();
    let replays = dir.path().join("replays");
    let mut p = Plain::start(
        &["--seed", "5", "--variant", "podkidnoy", "--games", "2"],
        &replays,
    );
    // Seed 5: the first decision is a defence against 6♦ 6♥ with clubs trump; 8♠ beats neither.
    // A pair written wrong, then a pair that breaks C-4, then the numbered choices.
    assert!(p.at_prompt(), "{}", p.text());
    p.type_line("6D-8S");
    assert!(p.at_prompt(), "{}", p.text());
    p.type_line("6D>8S 6H>9S");
    // Game 0 with the first choice each time, until game 1 asks.
    while p.at_prompt() {
        if p.text().contains("=== game 1") {
            break;
        }
        p.type_line("1");
    }
    let before = p.text();
    let game1 = before.find("=== game 1").expect("game 1 starts");
    // The result line of game 0 came when game 0 ended: before game 1's first prompt, on a
    // line of its own.
    let line0 = before
        .find("\ngame   0  ")
        .unwrap_or_else(|| panic!("{before}"));
    assert!(line0 < before.rfind("\n> ").unwrap(), "{before}");
    assert!(before.contains("=== game 0 over:"), "{before}");
    assert!(
        line0 < game1 || before[..line0].contains("=== game 0 over"),
        "{before}"
    );
    p.play_out();
    let (ok, screen) = p.finish();
    assert!(ok, "{screen}");
    assert!(
        screen.contains("You are seat 0 of 2 at podkidnoy durak"),
        "{screen}"
    );
    // Typed lines are echoed after their prompt (the keys are a pipe, not a terminal), so the
    // referee's result lines never run on from a `> `.
    assert!(screen.contains("\n> 6D-8S\n"), "{screen}");
    assert!(!screen.contains("> game "), "{screen}");
    assert!(screen.contains("a defence pair is ATTACK>CARD"), "{screen}");
    assert!(screen.contains("✗ C-4: 8S does not beat 6D"), "{screen}");
    assert!(screen.contains("beat everything: 6D>TC 6H>JC"), "{screen}");
    assert!(screen.contains("\ngame   1  "), "{screen}");
    assert!(screen.contains("2 games of podkidnoy (seed 5)"), "{screen}");
    // The refused typing cost nothing: no fault, and the replays verify.
    assert!(!screen.contains("FAULT"), "{screen}");
    verify(&replays.join("game-0000.jsonl"));
    verify(&replays.join("game-0001.jsonl"));
}

/// `q` in the second game, where a bot that exits would get the advice to keep reading after
/// game_end: the person gets "the person quit".
#[test]
fn q_is_recorded_as_the_person_quitting() {
    let dir = tempfile::tempdir().unwrap();
    let replays = dir.path().join("replays");
    let mut p = Plain::start(&["--seed", "5", "--games", "2"], &replays);
    while p.at_prompt() {
        if p.text().contains("=== game 1") {
            p.type_line("q");
            break;
        }
        p.type_line("1");
    }
    p.play_out();
    let (ok, screen) = p.finish();
    assert!(ok, "{screen}");
    assert!(screen.contains("You left the game."), "{screen}");
    assert!(screen.contains("game   1  seat 0 is the durak"), "{screen}");
    assert!(
        screen.contains(
            "FAULT seat 0 crash: the person quit (q at the prompt): the seat forfeits the game"
        ),
        "{screen}"
    );
    assert!(
        !screen.contains("Keep reading stdin"),
        "advice for bots\n{screen}"
    );
    assert!(
        !screen.contains("for the first time"),
        "advice for bots\n{screen}"
    );
    assert!(!screen.contains("exited with code"), "{screen}");
    let replay = std::fs::read_to_string(replays.join("game-0001.jsonl")).unwrap();
    assert!(replay.contains("the person quit"), "{replay}");
}

/// The human seat needs a person: a terminal, or `--plain` for typed lines; only `durak play`
/// has one to give, and one seat at a time.
#[test]
fn the_human_seat_is_refused_where_nobody_is_at_the_keyboard() {
    let out = Command::new(DURAK)
        .args(["play", "human", "builtin:random"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("the human seat plays in a terminal: run `durak play human BOT` in one, or give --plain"),
        "{err}"
    );
    assert!(
        !err.contains("   "),
        "a run of spaces in the message: {err:?}"
    );
    let out = Command::new(DURAK)
        .args(["play", "--plain", "human", "human"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("2 human seats"),
        "{}",
        text(&out.stderr)
    );
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

/// On a terminal (tmux, 100×30): the viewer's layout with the seat's hand, the other seat's
/// cards hidden, numbered choices; moves typed and played to the end; the end stays on screen
/// until a key; then the terminal is back with the game's line and the summary.
#[test]
fn a_person_plays_a_game_on_the_full_screen() {
    let Some(tmux) = require("tmux", "tmux") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let replays = dir.path().join("replays");
    let sock = dir.path().join("tmux.sock");
    // The tmux server and the match in it go when the test ends, whether it passes or not.
    struct KillServer(std::path::PathBuf, std::path::PathBuf);
    impl Drop for KillServer {
        fn drop(&mut self) {
            let _ = Command::new(&self.0)
                .arg("-S")
                .arg(&self.1)
                .arg("kill-server")
                .output();
        }
    }
    let _server = KillServer(tmux.clone(), sock.clone());
    let tmux = |args: &[&str]| {
        Command::new(&tmux)
            .arg("-S")
            .arg(&sock)
            .args(args)
            .output()
            .unwrap()
    };
    let line = format!(
        "DURAK_EXE={DURAK} {DURAK} play --seed 5 --variant podkidnoy --replay-dir {} human builtin:greedy; echo EXIT=$?; sleep 30",
        replays.display()
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "30",
        "-s",
        "h",
        &line,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pane = || text(&tmux(&["capture-pane", "-p", "-t", "h"]).stdout);
    let wait_for = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let p = pane();
            if p.contains(what) || Instant::now() > deadline {
                return p;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let first = wait_for("Your move: defend");
    assert!(first.contains("Your move: defend"), "{first}");
    assert!(first.contains("Seats, as seat 0 sees them"), "{first}");
    assert!(first.contains("0 you defender"), "{first}");
    assert!(first.contains("hidden"), "{first}");
    assert!(
        first.contains(" 1) beat everything: 6D>TC 6H>JC"),
        "{first}"
    );
    // A move that breaks C-4, typed, refused on the screen; then the choices to the end.
    tmux(&["send-keys", "-t", "h", "6D>8S 6H>9S", "Enter"]);
    let refused = wait_for("✗ C-4");
    assert!(refused.contains("✗ C-4: 8S does not beat 6D"), "{refused}");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut end = String::new();
    while Instant::now() < deadline {
        end = pane();
        if end.contains("game 0 over:") {
            break;
        }
        if end.contains("Your move") {
            tmux(&["send-keys", "-t", "h", "1", "Enter"]);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(end.contains("game 0 over:"), "{end}");
    assert!(end.contains("any key: the match's summary"), "{end}");
    tmux(&["send-keys", "-t", "h", "Space"]);
    let after = wait_for("EXIT=");
    tmux(&["kill-server"]);
    assert!(after.contains("EXIT=0"), "{after}");
    assert!(after.contains("game   0  seat"), "{after}");
    assert!(after.contains("1 game of podkidnoy (seed 5)"), "{after}");
    assert!(
        !after.contains("Your move"),
        "the normal screen is back\n{after}"
    );
    verify(&replays.join("game-0000.jsonl"));
}
