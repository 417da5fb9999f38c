//! Issue 3: real misbehaving bot processes, each with its expected named outcome, and no process
//! of the bot left afterwards. Each hostile bot is a `sh` script that records its PIDs (and its
//! children's) in a file, so the test can check that the referee killed all of them.

mod common;

use common::*;
use durak_protocol::FaultKind;
use durak_referee::{play_match, MatchConfig, MatchResult, Sandbox, SeatSpec};
use durak_rules::Variant;

// The shared helpers in the default sandbox, which is all this file needs.

fn builtin(name: &str) -> SeatSpec {
    common::builtin(name, Sandbox::Default)
}

fn seat(h: &Hostile, body: &str) -> SeatSpec {
    h.seat(body, hostile_limits(), Sandbox::Default)
}

/// Play one game of the hostile bot (seat 0) against builtin:random; expect the named fault, a
/// complete replay that records it, a referee that did not hang, and no process left.
fn expect_fault(body: &str, kind: FaultKind) -> (Hostile, MatchResult) {
    let h = Hostile::new();
    let r = common::expect_fault(&h, body, hostile_limits(), Sandbox::Default, kind);
    assert!(
        !h.pids().is_empty(),
        "the hostile bot never recorded its PID"
    );
    (h, r)
}

#[test]
fn silent_bot_times_out_at_startup() {
    let (_, r) = expect_fault("sleep 300\n", FaultKind::Timeout);
    assert!(r.games[0].faults[0].detail.contains("hello"));
}

#[test]
fn garbage_output_is_malformed() {
    expect_fault(
        &format!("{HELLO}while read -r line; do echo \"$line\" >> \"$LOG\"; case \"$line\" in *'\"type\":\"request\"'*) echo 'hello there, referee';; esac; done\n"),
        FaultKind::Malformed,
    );
}

#[test]
fn invalid_utf8_is_malformed() {
    expect_fault(
        &format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) printf '\\377\\376{{}}\\n';; esac; done\n"),
        FaultKind::Malformed,
    );
}

#[test]
fn wrong_json_shape_is_a_schema_fault_and_the_bot_is_told() {
    let (h, r) = expect_fault(
        &format!("{HELLO}while read -r line; do echo \"$line\" >> \"$LOG\"; case \"$line\" in *'\"type\":\"request\"'*) id=$(request_id \"$line\"); echo \"{{\\\"type\\\":\\\"answer\\\",\\\"id\\\":$id,\\\"action\\\":\\\"fly\\\"}}\";; esac; done\n"),
        FaultKind::Schema,
    );
    let detail = &r.games[0].faults[0].detail;
    assert!(detail.contains("action"), "{detail}");
    let got = h.received();
    assert!(
        got.contains(r#""type":"error""#),
        "error sent before game end: {got}"
    );
    let err_at = got.find(r#""type":"error""#).unwrap();
    let end_at = got.find(r#""type":"game_end""#).unwrap();
    assert!(err_at < end_at);
}

#[test]
fn illegal_move_names_the_rule_and_the_bot_is_told() {
    // Always passes: the attacker may not pass (K-4), the defender must cover or take (K-7).
    let (h, r) = expect_fault(
        &format!("{HELLO}while read -r line; do echo \"$line\" >> \"$LOG\"; case \"$line\" in *'\"type\":\"request\"'*) id=$(request_id \"$line\"); echo \"{{\\\"type\\\":\\\"answer\\\",\\\"id\\\":$id,\\\"action\\\":\\\"pass\\\"}}\";; esac; done\n"),
        FaultKind::Illegal,
    );
    let f = &r.games[0].faults[0];
    let rule = f.rule.clone().unwrap();
    assert!(rule == "K-4" || rule == "K-7", "{f:?}");
    assert!(f.detail.contains(&rule), "{f:?}");
    assert!(h.received().contains(&format!(r#""rule":"{rule}""#)));
}

/// Ending before the hello is a failure to start (disqualifying in a tournament), with the code.
#[test]
fn exiting_before_the_hello_is_start_failed_with_the_code() {
    let (_, r) = expect_fault("exit 3\n", FaultKind::StartFailed);
    let detail = &r.games[0].faults[0].detail;
    assert!(
        detail.contains("before its hello") && detail.contains("code 3"),
        "{detail}"
    );
}

#[test]
fn closing_stdout_before_the_hello_is_start_failed() {
    let (_, r) = expect_fault("exec 1>&-\nsleep 5\n", FaultKind::StartFailed);
    let detail = &r.games[0].faults[0].detail;
    assert!(detail.contains("before its hello"), "{detail}");
}

/// A crash's last words on stderr (a traceback) are in the replay, every time: the referee
/// reads stderr to its end once the bot is gone. Before its hello (a start-up error) and
/// mid-game, on a single-threaded runtime as tournaments and `durak play` use, where the stderr
/// reader gets its turn only when the driver waits.
#[test]
fn a_crash_keeps_its_last_words_from_stderr() {
    let before_hello = "echo 'Traceback: ImportError numpy' >&2\nexit 4\n".to_string();
    let mid_game = format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) echo 'Traceback: KeyError legal' >&2; exit 4;; esac; done\n");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for _ in 0..10 {
        for (body, kind, words) in [
            (&before_hello, FaultKind::StartFailed, "ImportError numpy"),
            (&mid_game, FaultKind::Crash, "KeyError legal"),
        ] {
            let h = Hostile::new();
            let seats = vec![seat(&h, body), builtin("random")];
            let mut cfg = MatchConfig::new(Variant::Podkidnoy, seats, 1, 11);
            cfg.replay_dir = Some(h.replay_dir());
            let r = rt.block_on(play_match(&cfg, |_| {})).unwrap();
            assert_eq!(r.games[0].faults[0].kind, kind, "{:?}", r.games[0]);
            let replay = std::fs::read_to_string(r.games[0].replay.as_ref().unwrap()).unwrap();
            let stderr = replay
                .lines()
                .find(|l| l.contains(r#""type":"stderr","seat":0"#))
                .expect("stderr recorded");
            assert!(stderr.contains(words), "{stderr}");
        }
    }
}

#[test]
fn crash_mid_game_is_a_crash_with_the_code() {
    let (_, r) = expect_fault(
        &format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) exit 7;; esac; done\n"),
        FaultKind::Crash,
    );
    assert!(r.games[0].faults[0].detail.contains("code 7"));
}

#[test]
fn killed_by_a_signal_is_a_crash_with_the_signal() {
    let (_, r) = expect_fault(
        &format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) kill -SEGV $$;; esac; done\n"),
        FaultKind::Crash,
    );
    assert!(
        r.games[0].faults[0].detail.contains("signal 11"),
        "{:?}",
        r.games[0]
    );
}

#[test]
fn closing_stdout_is_closed() {
    expect_fault(
        &format!("{HELLO}exec 1>&-\nwhile read -r line; do :; done\n"),
        FaultKind::Closed,
    );
}

#[test]
fn sleeping_past_the_limit_is_a_timeout() {
    let (_, r) = expect_fault(
        &format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) sleep 30;; esac; done\n"),
        FaultKind::Timeout,
    );
    assert!(r.games[0].faults[0].detail.contains("300 ms"));
}

#[test]
fn a_100_mb_line_without_newline_is_line_too_long() {
    expect_fault(
        &format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) head -c 100000000 /dev/zero | tr '\\0' 'a'; sleep 30;; esac; done\n"),
        FaultKind::LineTooLong,
    );
}

#[test]
fn ignoring_sigterm_does_not_save_a_bot() {
    expect_fault(
        &format!("trap '' TERM\n{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) sleep 30;; esac; done\n"),
        FaultKind::Timeout,
    );
}

#[test]
fn a_grandchild_holding_stdout_open_is_killed_too() {
    // The bot starts a grandchild that inherits stdout, then exits: no EOF ever comes on stdout,
    // but the exit is seen, and the grandchild dies with the process group.
    expect_fault(
        &format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) sleep 300 & echo $! >> \"$PIDS\"; exit 0;; esac; done\n"),
        FaultKind::Crash,
    );
}

#[test]
fn a_bot_that_never_reads_stdin_times_out_and_never_blocks_the_referee() {
    // Says hello without reading anything, then never reads: the referee's writes are bounded.
    expect_fault(
        "echo '{\"type\":\"hello\",\"protocol\":1,\"name\":\"deaf\",\"version\":\"1\"}'\nsleep 300\n",
        FaultKind::Timeout,
    );
}

#[test]
fn a_stderr_flood_costs_nothing_and_is_capped() {
    let h = Hostile::new();
    let body = format!(
        "yes 'flooding stderr' >&2 &\necho $! >> \"$PIDS\"\nexec {} bot random\n",
        common::BOT
    );
    let mut seat = seat(&h, &body);
    seat.limits.move_ms = 10_000;
    let r = run(vec![seat, builtin("greedy")], 2, &h.replay_dir());
    for (i, g) in r.games.iter().enumerate() {
        assert!(g.faults.is_empty(), "no fault from a stderr flood: {g:?}");
        // Each game keeps at most the cap of what came during it.
        let text = replay_stderr(&r, i, 0);
        assert!(text.len() <= 64 * 1024, "{}", text.len());
        assert!(text.contains("flooding stderr"));
    }
    assert_no_process_left(&h);
}

#[test]
fn a_faulting_bot_is_restarted_for_the_next_game() {
    // Crashes on its first request in every game: each game is lost with a crash, and a fresh
    // process is started for each game (a new hello each time).
    let h = Hostile::new();
    let body = format!("{HELLO}while read -r line; do case \"$line\" in *'\"type\":\"request\"'*) exit 9;; esac; done\n");
    let r = run(vec![seat(&h, &body), builtin("random")], 3, &h.replay_dir());
    for g in &r.games {
        assert_eq!(g.loser, Some(0));
        assert_eq!(g.faults[0].kind, FaultKind::Crash);
    }
    assert_eq!(h.pids().len(), 3, "one process per game");
    assert_eq!(h.received().matches(r#""type":"hello""#).count(), 3);
    assert_no_process_left(&h);
}

#[test]
fn well_behaved_builtins_play_a_whole_series_without_faults() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(vec![builtin("random"), builtin("greedy")], 5, dir.path());
    assert_eq!(r.games.len(), 5);
    for g in &r.games {
        assert!(g.faults.is_empty(), "{g:?}");
        assert!(g.moves > 0);
    }
    // C-10: the loser deals the next game; the dealer stays after a draw.
    for w in r.games.windows(2) {
        let expected = w[0].loser.unwrap_or(w[0].dealer);
        assert_eq!(w[1].dealer, expected);
    }
    assert_eq!(r.seats[1].bot_name.as_deref(), Some("builtin:greedy"));
}

#[test]
fn error_line_carries_the_request_id_and_the_json_pointer() {
    let (h, _) = expect_fault(
        &format!("{HELLO}while read -r line; do echo \"$line\" >> \"$LOG\"; case \"$line\" in *'\"type\":\"request\"'*) id=$(request_id \"$line\"); echo \"{{\\\"type\\\":\\\"answer\\\",\\\"id\\\":$id,\\\"action\\\":\\\"attack\\\",\\\"cards\\\":[\\\"10H\\\"]}}\";; esac; done\n"),
        FaultKind::Schema,
    );
    let got = h.received();
    let line = got
        .lines()
        .find(|l| l.contains(r#""type":"error""#))
        .expect("an error line");
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let last_request: serde_json::Value = serde_json::from_str(
        got.lines()
            .rev()
            .find(|l| l.contains(r#""type":"request""#))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v["id"], last_request["id"], "{line}");
    assert_eq!(v["pointer"], "/cards/0", "{line}");
    assert_eq!(v["fault"], "schema");
    durak_protocol::schema::validate(durak_protocol::schema::Schema::Error, &v).unwrap();
}

#[test]
fn a_game_going_round_in_circles_ends_as_a_draw_at_the_move_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = MatchConfig::new(
        Variant::Podkidnoy,
        vec![builtin("random"), builtin("greedy")],
        1,
        11,
    );
    cfg.replay_dir = Some(dir.path().join("replays"));
    cfg.max_moves = 12;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let r = rt.block_on(play_match(&cfg, |_| {})).unwrap();
    let g = &r.games[0];
    assert!(g.draw && g.loser.is_none(), "{g:?}");
    assert_eq!(g.move_limit, Some(12));
    assert_eq!(g.moves, 12);
    // The replay records it and still verifies.
    assert_verifies(g.replay.as_ref().unwrap());
}

/// A bot that exits on game_end (a common beginner's bug) is charged a crash in the next game,
/// and the detail says what happened and what to do.
#[test]
fn exiting_after_game_end_is_explained_in_the_next_game() {
    let h = Hostile::new();
    let body = r#"sed -u '/"type":"game_end"/q' | "$DURAK" bot random
"#;
    let mut bot = seat(&h, body);
    bot.limits.move_ms = 5_000;
    let r = run(vec![bot, builtin("random")], 2, &h.replay_dir());
    assert!(r.games[0].faults.is_empty(), "{:?}", r.games[0]);
    let f = &r.games[1].faults[0];
    assert_eq!((f.seat, f.kind), (0, FaultKind::Crash), "{f:?}");
    assert!(
        f.detail
            .contains("ended after the previous game's game_end"),
        "{f:?}"
    );
    assert!(f.detail.contains("exit after match_end"), "{f:?}");
}

/// A bot that crashes reading an event it did not expect (a Python `KeyError` on `game_over`,
/// which only comes after its last answer, with `game_end`) is charged in the game it crashed
/// in, with its traceback in that game's replay, not in the next game (issue 15).
#[test]
fn a_crash_reading_the_last_events_is_charged_in_its_own_game() {
    let h = Hostile::new();
    let body = r#"while read -r line; do
  case "$line" in
    *'"kind":"game_over"'*) echo "Traceback: KeyError: 'game_over'" >&2; exit 1;;
  esac
  printf '%s\n' "$line"
done | "$DURAK" bot random
"#;
    let mut bot = seat(&h, body);
    bot.limits.move_ms = 5_000;
    let r = run(vec![bot, builtin("random")], 3, &h.replay_dir());
    for (g, game) in r.games.iter().enumerate() {
        assert_eq!(game.faults.len(), 1, "game {g}: {game:?}");
        let f = &game.faults[0];
        assert_eq!((f.seat, f.kind), (0, FaultKind::Crash), "game {g}: {f:?}");
        assert!(
            f.detail.contains("while reading this game's last events")
                && f.detail.contains("\"game_over\"")
                && f.detail.contains("for the first time"),
            "game {g}: {f:?}"
        );
        assert!(!f.detail.contains("previous game"), "game {g}: {f:?}");
        assert_eq!(game.loser, Some(0), "game {g}: {game:?}");
        let stderr = replay_stderr(&r, g, 0);
        assert!(
            stderr.contains("KeyError: 'game_over'"),
            "game {g}: {stderr:?}"
        );
    }
}
