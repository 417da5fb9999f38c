//! Hostile bots at a table whose answers are read on its own thread (`crate::direct`: a
//! current-thread runtime, as every table of `play`, a tournament or the ladder runs on), played
//! again through a multi-thread runtime (which never takes that path, as `DURAK_DIRECT=off`):
//! the same games, the same faults in the same words, the same stderr at the same requests.
//! The other hostile tests (`hostile.rs`) play through a multi-thread runtime only.

mod common;

use common::*;
use durak_protocol::{FaultKind, Limits};
use durak_referee::{play_match, MatchResult, Sandbox, SeatSpec};
use std::time::{Duration, Instant};

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Play `games` games of the hostile `body` (seat 0) against builtin:random, on a table's own
/// thread and through the runtime; both must agree. Returns both results (table thread first),
/// with the bots' directories, which hold the replays.
fn on_both_paths(body: &str, limits: Limits, games: u32) -> (MatchResult, MatchResult, Dirs) {
    let mut results = Vec::new();
    for rt in [current_thread(), runtime()] {
        let h = Hostile::new();
        let seats: Vec<SeatSpec> = vec![
            h.seat(body, limits, Sandbox::Default),
            builtin("random", Sandbox::Default),
        ];
        let cfg = config(seats, games, &h.replay_dir());
        let started = Instant::now();
        let r = rt
            .block_on(play_match(&cfg, |_| {}))
            .expect("the match is played");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the referee must not hang"
        );
        assert_no_process_left(&h);
        for g in &r.games {
            assert_verifies(g.replay.as_ref().unwrap());
        }
        results.push((r, h));
    }
    let (through, h1) = results.pop().unwrap();
    let (direct, h0) = results.pop().unwrap();
    let outline = |r: &MatchResult| -> Vec<_> {
        r.games
            .iter()
            .map(|g| {
                let faults: Vec<_> = g
                    .faults
                    .iter()
                    .map(|f| (f.seat, f.kind, how(&f.detail).to_string()))
                    .collect();
                (g.loser, g.draw, g.moves, faults)
            })
            .collect()
    };
    assert_eq!(
        outline(&direct),
        outline(&through),
        "the table's own thread and the runtime disagree"
    );
    (direct, through, Dirs(vec![h0, h1]))
}

/// A fault's detail without the step it was seen at. A bot that dies right after an answer is
/// seen dead at the write of its next request or while that answer is awaited, whichever the
/// referee reaches first: a race with the bot's end (and its supervisor's clean-up), not a
/// matter of the path, though the table's own thread, quicker after an answer, reaches the
/// write first more often.
fn how(detail: &str) -> &str {
    [" (reading its request)", " (answer)"]
        .iter()
        .find_map(|step| detail.find(step).map(|i| &detail[..i]))
        .unwrap_or(detail)
}

/// The hostile bots' directories (and so the replays), kept while they are looked at.
struct Dirs(#[allow(dead_code)] Vec<Hostile>);

fn limits(move_ms: u64) -> Limits {
    Limits {
        move_ms,
        ..hostile_limits()
    }
}

/// A real bot whose every line is written in two pieces, the last byte after a pause (within
/// the first sample, or past it): no fault, the games as builtin:random plays them.
#[test]
fn answers_in_pieces_play_whole_games() {
    for pause in ["0.002", "0.02"] {
        let body = format!(
            r#""$DURAK" bot random | while IFS= read -r l; do printf '%s' "${{l%?}}"; sleep {pause}; printf '%s\n' "${{l#"${{l%?}}"}}"; done
"#
        );
        let (r, _, _d) = on_both_paths(&body, limits(5_000), 2);
        for g in &r.games {
            assert!(g.faults.is_empty(), "pause {pause}: {g:?}");
        }
    }
}

/// Every answer written twice in one write: the second copy is read as the answer to the next
/// request (kept, not lost), whose id it does not carry: a schema fault naming `/id`.
#[test]
fn answers_twice_at_once_is_the_same_schema_fault() {
    let body = r#""$DURAK" bot random | sed -u '/"type":"answer"/p'
"#;
    let (r, _, _d) = on_both_paths(body, limits(5_000), 1);
    assert_fault(&r, FaultKind::Schema);
    assert!(r.games[0].faults[0].detail.contains("/id"), "{r:?}");
}

/// A bot that floods stderr from a child all game while playing properly: no fault, on time,
/// and its stderr capped per game (`hostile.rs`'s `stderr_flood`, on the table's thread).
#[test]
fn a_stderr_flood_is_capped_and_costs_no_fault() {
    let body = "yes 'flooding stderr' >&2 &\nrec $!\nexec \"$DURAK\" bot random\n";
    let (r, through, _d) = on_both_paths(body, limits(10_000), 2);
    for r in [&r, &through] {
        for (i, g) in r.games.iter().enumerate() {
            assert!(g.faults.is_empty(), "no fault from a stderr flood: {g:?}");
            let text = replay_stderr(r, i, 0);
            assert!(text.len() <= 64 * 1024 + 1, "{}", text.len());
            assert!(text.contains("flooding stderr"));
        }
    }
}

/// What a bot writes on stderr before each answer is kept at that request, on the table's
/// thread as through the runtime.
#[test]
fn stderr_before_each_answer_is_kept_at_its_request() {
    let body = r#"while IFS= read -r line; do
  case "$line" in *'"type":"request"'*) echo "r$(request_id "$line")" >&2;; esac
  printf '%s\n' "$line"
done | "$DURAK" bot random
"#;
    let (r, through, _d) = on_both_paths(body, limits(5_000), 1);
    for r in [&r, &through] {
        let replay = std::fs::read_to_string(r.games[0].replay.as_ref().unwrap()).unwrap();
        let mut pieces = 0;
        for l in replay
            .lines()
            .filter(|l| l.contains(r#""type":"stderr","seat":0"#))
        {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let text = v["text"].as_str().unwrap();
            if let Some(id) = v["at"].as_u64() {
                assert_eq!(text, format!("r{id}\n"), "{l}");
                pieces += 1;
            }
        }
        assert!(pieces > 3, "{replay}");
    }
}

/// A bot whose stdout closes mid-game (after its hello and three answers) while it keeps
/// running is `Closed`.
#[test]
fn stdout_closed_mid_game_is_the_same_fault() {
    // The bot's own stdout closed once the last answer is out, its main process still there.
    let body = r#"exec 3<&0
"$DURAK" bot random <&3 3<&- | sed -u 4q &
exec 1>&- 3<&-
sleep $NAP
"#;
    let (r, _, _d) = on_both_paths(body, limits(5_000), 1);
    assert_fault(&r, FaultKind::Closed);
    assert!(r.games[0].moves > 0, "{r:?}");
}

/// A bot that writes its answer and is at once killed (here by itself, with SIGKILL), and one
/// killed by a signal while deciding: the same crash, in the same words.
#[test]
fn killed_after_an_answer_or_mid_decision_is_the_same_crash() {
    let body = r#""$DURAK" bot random | { sed -u 4q; kill -9 $$; }
"#;
    let (r, _, _d) = on_both_paths(body, limits(5_000), 1);
    assert_fault(&r, FaultKind::Crash);
    assert!(r.games[0].faults[0].detail.contains("SIGKILL"), "{r:?}");
    assert!(r.games[0].moves > 0, "{r:?}");
    let body = on_request("sleep 0.02; kill -SEGV $$");
    let (r, _, _d) = on_both_paths(&body, limits(5_000), 1);
    assert_fault(&r, FaultKind::Crash);
    assert!(r.games[0].faults[0].detail.contains("SIGSEGV"), "{r:?}");
    let body = on_request("kill -9 $$");
    let (r, _, _d) = on_both_paths(&body, limits(5_000), 1);
    assert_fault(&r, FaultKind::Crash);
}
