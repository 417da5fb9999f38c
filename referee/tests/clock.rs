//! Issue 23: the decision clock charges a bot only its own time (referee/src/clock.rs,
//! docs/PROTOCOL.md, "Time limits"). Real processes: a Python bot pinned to one CPU that three
//! busy processes share with it; its first decision computes, sleeps or spins as told, the rest
//! are quick. The margins are wide (half and one and a half times the limit), so the verdicts
//! do not depend on the machine's speed.

mod common;

use durak_protocol::{FaultKind, Limits};
use durak_referee::{play_match, BotCommand, MatchConfig, MatchResult, SeatSpec};
use durak_rules::Variant;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command};

/// The move limit of the bot under test.
const LIMIT_MS: u64 = 400;

/// The bot: sample-bots/python/random_bot.py's moves; before its first answer it does `mode`
/// for `ms` milliseconds: `compute` (CPU time), `sleep`, or `spin8` (eight busy children,
/// never answering).
const BOT: &str = r#"
import json, os, subprocess, sys, time
sys.dont_write_bytecode = True  # sample-bots/python is not ours to write in
sys.path.insert(0, sys.argv[1])
import random_bot
mode, ms = sys.argv[2], int(sys.argv[3])
first = True
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        random_bot.send({"type": "hello", "protocol": 1, "name": "clock", "version": "1"})
    elif m["type"] == "request":
        if first:
            first = False
            if mode == "compute":
                end = time.process_time() + ms / 1000
                while time.process_time() < end:
                    pass
            elif mode == "sleep":
                time.sleep(ms / 1000)
            elif mode == "starve":
                # Only the first attempt: tell the test (which starts the hogs), then compute.
                try:
                    open(sys.argv[4], "x").close()
                    end = time.process_time() + ms / 1000
                    while time.process_time() < end:
                        pass
                except FileExistsError:
                    pass
            elif mode == "starve3":
                # Every attempt: tell the test (marker-0, -1, -2 in turn), then compute.
                for k in range(3):
                    try:
                        open(f"{sys.argv[4]}-{k}", "x").close()
                        break
                    except FileExistsError:
                        pass
                end = time.process_time() + ms / 1000
                while time.process_time() < end:
                    pass
            elif mode == "queued":
                # Tell the test (which starts a real-time hog on this CPU), let it start, then
                # compute a little: the bot is runnable but cannot run until the hog ends.
                open(sys.argv[4], "x").close()
                time.sleep(0.1)
                end = time.process_time() + ms / 1000
                while time.process_time() < end:
                    pass
            elif mode == "spin8":
                for _ in range(8):
                    subprocess.Popen(["sh", "-c", "while :; do :; done"])
                time.sleep(3600)
        random_bot.send(random_bot.answer(m))
    elif m["type"] == "match_end":
        break
"#;

/// CPU 0, for one test at a time: each test sets its own load there (three busy processes,
/// forty starving ones, a real-time hog) and its verdicts depend on that load alone. Run side by
/// side (cargo runs a binary's tests in parallel), one test's forty hogs starved another's bot,
/// whose timeout became a void (CI, issue 23).
static CPU0: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cpu0() -> std::sync::MutexGuard<'static, ()> {
    CPU0.lock().unwrap_or_else(|e| e.into_inner())
}

/// Busy processes pinned to CPU 0, killed when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn on_cpu0(n: usize) -> Hogs {
        Hogs(
            (0..n)
                .map(|_| {
                    Command::new("taskset")
                        .args(["-c", "0", "sh", "-c", "while :; do :; done"])
                        .spawn()
                        .expect("taskset")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One game of the bot (seat 0, pinned to CPU 0 with `hogs` busy processes) against builtin:random; the
/// match and the bot's replay lines of kind `move`.
fn play(dir: &Path, mode: &str, ms: u64, hogs: usize) -> Option<(MatchResult, Vec<Value>)> {
    play_with(dir, mode, ms, hogs, LIMIT_MS)
}

fn play_with(
    dir: &Path,
    mode: &str,
    ms: u64,
    hogs: usize,
    limit_ms: u64,
) -> Option<(MatchResult, Vec<Value>)> {
    common::require("taskset", "util-linux")?;
    common::require("python3", "python3")?;
    let script = dir.join("bot.py");
    std::fs::write(&script, BOT).unwrap();
    let samples = common::repo().join("sample-bots/python");
    let spec = format!(
        "taskset -c 0 python3 {} {} {mode} {ms} {}",
        script.display(),
        samples.display(),
        dir.join("marker").display()
    );
    let limits = Limits {
        startup_ms: 10_000,
        move_ms: limit_ms,
        bank_ms: 0,
        max_line_bytes: 1 << 20,
    };
    let bot = SeatSpec {
        name: "clock".into(),
        command: BotCommand::parse(&spec).unwrap(),
        limits,
    };
    let mut cfg = MatchConfig::new(
        Variant::Podkidnoy,
        vec![bot, common::builtin("random", Default::default())],
        1,
        23,
    );
    let replays = dir.join("replays");
    cfg.replay_dir = Some(replays.clone());
    let _hogs = Hogs::on_cpu0(hogs);
    let r = common::runtime()
        .block_on(play_match(&cfg, |_| {}))
        .unwrap();
    let text = std::fs::read_to_string(replays.join("game-0000.jsonl")).unwrap();
    let moves = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "move" && v["seat"] == 0 && v["forced"] == false)
        .collect();
    Some((r, moves))
}

fn timeouts(r: &MatchResult) -> Vec<&durak_protocol::Fault> {
    r.games[0]
        .faults
        .iter()
        .filter(|f| f.seat == 0 && f.kind == FaultKind::Timeout)
        .collect()
}

#[test]
fn computing_half_the_limit_on_a_shared_cpu_is_not_charged() {
    let _cpu0 = cpu0();
    let dir = tempfile::tempdir().unwrap();
    let Some((r, moves)) = play(dir.path(), "compute", LIMIT_MS / 2, 3) else {
        return;
    };
    assert!(timeouts(&r).is_empty(), "charged: {:?}", r.games[0].faults);
    let first = &moves[0];
    let (wall, own) = (
        first["elapsed_ms"].as_f64().unwrap(),
        first["own_ms"].as_f64(),
    );
    let own = own.expect("a decision past 5 ms has its accounting");
    let (cpu, wait) = (
        first["cpu_ms"].as_f64().unwrap(),
        first["wait_ms"].as_f64().unwrap(),
    );
    // It shared its CPU with three busy processes: it waited, and that is not charged.
    assert!(wait > 0.0, "{first}");
    assert!(own < wall, "{first}");
    assert!(own < LIMIT_MS as f64, "{first}");
    // Its own time holds the CPU time it spent (half the limit, read from the outside).
    assert!(cpu >= 0.8 * (LIMIT_MS / 2) as f64, "{first}");
    assert!(own >= cpu * 0.9, "{first}");
}

#[test]
fn computing_one_and_a_half_times_the_limit_is_charged() {
    let _cpu0 = cpu0();
    let dir = tempfile::tempdir().unwrap();
    let Some((r, _)) = play(dir.path(), "compute", LIMIT_MS * 3 / 2, 3) else {
        return;
    };
    assert_eq!(timeouts(&r).len(), 1, "{:?}", r.games[0].faults);
    assert_eq!(r.games[0].loser, Some(0));
    assert!(r.games[0].voided.is_empty());
}

#[test]
fn sleeping_one_and_a_half_times_the_limit_is_charged() {
    let _cpu0 = cpu0();
    let dir = tempfile::tempdir().unwrap();
    let Some((r, _)) = play(dir.path(), "sleep", LIMIT_MS * 3 / 2, 3) else {
        return;
    };
    assert_eq!(timeouts(&r).len(), 1, "{:?}", r.games[0].faults);
    assert_eq!(r.games[0].loser, Some(0));
}

#[test]
fn eight_spinning_threads_are_charged_not_excused_by_their_own_queue() {
    let _cpu0 = cpu0();
    let dir = tempfile::tempdir().unwrap();
    let Some((r, _)) = play(dir.path(), "spin8", 0, 3) else {
        return;
    };
    assert_eq!(timeouts(&r).len(), 1, "{:?}", r.games[0].faults);
    assert_eq!(r.games[0].loser, Some(0));
    // Well before the hard cap (ten times the limit): its own threads' queue is its own time.
    assert!(r.games[0].voided.is_empty(), "{:?}", r.games[0].voided);
}

#[test]
fn a_quick_python_answer_is_timed_from_the_last_byte_of_its_request() {
    let _cpu0 = cpu0();
    // No hogs here: the bot alone on CPU 0. Every answer of a Python bot takes it tens of
    // microseconds at least (parse a request, build an answer): none is timed at about zero,
    // as when the clock started after the referee got its CPU back.
    let dir = tempfile::tempdir().unwrap();
    let Some((r, moves)) = play(dir.path(), "compute", 0, 0) else {
        return;
    };
    assert!(r.games[0].faults.is_empty(), "{:?}", r.games[0].faults);
    assert!(moves.len() > 3);
    for m in &moves {
        assert!(m["elapsed_ms"].as_f64().unwrap() > 0.02, "{m}");
    }
}

#[test]
fn a_bot_starved_by_the_machine_has_its_game_voided_and_played_again_not_lost() {
    let _cpu0 = cpu0();
    if common::require("setsid", "util-linux").is_none() {
        return;
    }
    // Once the bot has its first request (the marker), forty busy processes share its CPU for
    // 5 s, each in a session of its own (so each gets a scheduler share as large as the bot's):
    // it gets a fortieth of its CPU, and the 200 ms it computes would take 8 s, past ten times
    // its limit (4 s). The second attempt (the marker is there) plays normally.
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let hogs = std::thread::spawn(move || {
        for _ in 0..4000 {
            if marker.exists() {
                let hogs: Vec<Child> = (0..40)
                    .map(|_| {
                        Command::new("setsid")
                            .args(["-w", "taskset", "-c", "0"])
                            .args(["sh", "-c", "exec sh -c 'while :; do :; done'"])
                            .spawn()
                            .expect("setsid")
                    })
                    .collect();
                std::thread::sleep(std::time::Duration::from_secs(5));
                drop(Hogs(hogs));
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    });
    let played = play_with(dir.path(), "starve", LIMIT_MS / 2, 0, LIMIT_MS);
    hogs.join().unwrap();
    let Some((r, _)) = played else {
        return;
    };
    let g = &r.games[0];
    assert_eq!(g.voided.len(), 1, "{g:?}");
    assert!(g.voided[0].contains("kept waiting for a CPU"), "{g:?}");
    assert!(g.faults.is_empty(), "nobody is charged: {g:?}");
    assert!(g.moves > 0);
    let text = std::fs::read_to_string(dir.path().join("replays/game-0000.jsonl")).unwrap();
    let result: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        result["voided"].as_array().map(Vec::len),
        Some(1),
        "{result}"
    );
}

#[test]
fn a_bot_queued_past_its_limit_without_running_is_not_charged() {
    let _cpu0 = cpu0();
    // The kernel adds a thread's run-queue wait to its schedstat only once it gets a CPU: at the
    // limit, a bot still queued shows no wait at all. Here a real-time busy process holds CPU 0
    // for 700 ms from just after the bot's first request; the bot (on CPU 0) is runnable from
    // 100 ms on and runs only when the hog ends, past its 400 ms limit. Its verdict waits until
    // its wait shows (well within ten times the limit): not charged, not voided.
    if common::require("chrt", "util-linux").is_none() {
        return;
    }
    let probe = Command::new("chrt").args(["-f", "1", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        assert!(
            !common::system::required(),
            "chrt -f 1 (real-time scheduling) is refused here"
        );
        eprintln!("note: skipped, chrt -f 1 (real-time scheduling) is refused here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let hog = std::thread::spawn(move || {
        for _ in 0..4000 {
            if marker.exists() {
                let hog = Command::new("chrt")
                    .args(["-f", "1", "taskset", "-c", "0"])
                    .args(["sh", "-c", "while :; do :; done"])
                    .spawn()
                    .expect("chrt");
                std::thread::sleep(std::time::Duration::from_millis(700));
                drop(Hogs(vec![hog]));
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    });
    let played = play(dir.path(), "queued", 20, 0);
    hog.join().unwrap();
    let Some((r, moves)) = played else {
        return;
    };
    let g = &r.games[0];
    assert!(timeouts(&r).is_empty(), "charged: {:?}", g.faults);
    assert!(g.voided.is_empty(), "{:?}", g.voided);
    let first = &moves[0];
    // It answered past its limit in wall time, and most of that was the machine's.
    assert!(
        first["elapsed_ms"].as_f64().unwrap() > LIMIT_MS as f64,
        "{first}"
    );
    assert!(
        first["own_ms"].as_f64().unwrap() < LIMIT_MS as f64,
        "{first}"
    );
}

#[test]
fn a_game_voided_three_times_is_void_counts_for_nobody_and_verifies() {
    let _cpu0 = cpu0();
    if common::require("setsid", "util-linux").is_none() {
        return;
    }
    // Each of the three attempts starves as above (forty busy processes on the bot's CPU from
    // its first request on, for 1.5 s): a 100 ms limit, voided past 1 s. After the third the
    // game is given up: void, no loser, no draw, the three reasons; its replay (the last
    // attempt, stopped at the starved request) verifies as a void game.
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let hogs = std::thread::spawn(move || {
        for k in 0..3 {
            let m = marker.with_file_name(format!("marker-{k}"));
            for _ in 0..6000 {
                if m.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            let hogs: Vec<Child> = (0..40)
                .map(|_| {
                    Command::new("setsid")
                        .args(["-w", "taskset", "-c", "0"])
                        .args(["sh", "-c", "exec sh -c 'while :; do :; done'"])
                        .spawn()
                        .expect("setsid")
                })
                .collect();
            std::thread::sleep(std::time::Duration::from_millis(1500));
            drop(Hogs(hogs));
        }
    });
    let played = play_with(dir.path(), "starve3", 50, 0, 100);
    hogs.join().unwrap();
    let Some((r, _)) = played else {
        return;
    };
    let g = &r.games[0];
    assert!(g.void, "{g:?}");
    assert_eq!(g.voided.len(), 3, "{g:?}");
    assert_eq!((g.loser, g.draw), (None, false), "{g:?}");
    assert!(g.faults.is_empty(), "{g:?}");
    let path = dir.path().join("replays/game-0000.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let result: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(result["void"], true, "{result}");
    assert_eq!(result["draw"], false, "{result}");
    assert_eq!(
        result["voided"].as_array().map(Vec::len),
        Some(3),
        "{result}"
    );
    common::assert_verifies(&path);
}
