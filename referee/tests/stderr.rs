//! A bot's stderr is kept per game, at the point of the game it arrived at: each game's replay
//! holds only what was written during that game (a start-up failure's words in its own game),
//! each piece at the request it came with, capped per game with what was dropped said. The
//! replay viewer shows each piece at its step.

mod common;

use common::*;
use durak_referee::{MatchConfig, MatchResult, Sandbox, SeatSpec};
use durak_replay::{read_replay, simulate};
use durak_rules::Variant;
use serde_json::Value;

/// A bot that plays as builtin:random and says on stderr what it is doing: `hello from PID` at
/// its hello, `gG rID` when it reads request ID of game G (before it answers), and with `bye`,
/// `bye gG` at game_end. `extra` runs at each request too.
fn chatty(extra: &str, bye: bool) -> String {
    let bye = if bye { "echo \"bye g$g\" >&2" } else { ":" };
    format!(
        r#"while read -r line; do
  case "$line" in
    *'"type":"hello"'*) echo "hello from $$" >&2;;
    *'"type":"request"'*)
      g=$(printf '%s' "$line" | sed -n 's/^{{"type":"request","id":[0-9]*,"game":\([0-9]*\).*/\1/p')
      echo "g$g r$(request_id "$line")" >&2
      {extra};;
    *'"type":"game_end"'*)
      g=$(printf '%s' "$line" | sed -n 's/^{{"type":"game_end","game":\([0-9]*\).*/\1/p')
      {bye};;
  esac
  printf '%s\n' "$line"
done | "$DURAK" bot random
"#
    )
}

fn builtin(name: &str) -> SeatSpec {
    common::builtin(name, Sandbox::Default)
}

fn play(seats: Vec<SeatSpec>, games: u32, h: &Hostile, stderr_cap: usize) -> MatchResult {
    let mut cfg = MatchConfig::new(Variant::Podkidnoy, seats, games, 5);
    cfg.replay_dir = Some(h.replay_dir());
    cfg.stderr_cap = stderr_cap;
    runtime()
        .block_on(durak_referee::play_match(&cfg, |_| {}))
        .expect("the match is played")
}

/// The replay lines of game `g`.
fn lines(r: &MatchResult, g: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(r.games[g].replay.as_ref().unwrap()).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stderr_of(lines: &[Value], seat: u64) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "stderr" && l["seat"] == seat)
        .collect()
}

/// Request ids of game `lines` asked of `seat`.
fn requests_to(lines: &[Value], seat: u64) -> Vec<u64> {
    lines
        .iter()
        .filter(|l| l["type"] == "request" && l["seat"] == seat)
        .map(|l| l["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn each_game_keeps_its_own_stderr_at_the_request_it_came_with() {
    let h = Hostile::new();
    let mut bot = h.seat(&chatty("", true), hostile_limits(), Sandbox::Default);
    bot.limits.move_ms = 10_000;
    let r = play(vec![bot, builtin("greedy")], 3, &h, 64 * 1024);
    for (g, game) in r.games.iter().enumerate() {
        assert!(game.faults.is_empty(), "{game:?}");
        let lines = lines(&r, g);
        let mine = stderr_of(&lines, 0);
        let mut asked = requests_to(&lines, 0);
        // Every request's words are at that request, and nowhere else. The previous game's
        // goodbye is written as its game_end is read, which may be after the referee has moved
        // on: it comes first in this game (at its start, or with the first request), never later.
        let bye = format!("bye g{}\n", g.wrapping_sub(1));
        for (i, l) in mine.iter().enumerate() {
            let mut text = l["text"].as_str().unwrap();
            if g > 0 && i == 0 {
                text = text.strip_prefix(bye.as_str()).unwrap_or(text);
            }
            assert_eq!(l["dropped"], 0, "{l}");
            match &l["at"] {
                Value::Number(id) => {
                    let id = id.as_u64().unwrap();
                    assert_eq!(text, format!("g{g} r{id}\n"), "game {g}: {l}");
                    asked.retain(|&a| a != id);
                }
                Value::String(s) if s == "start" => {
                    // The process's hello (game 0): nothing of an earlier game's play.
                    assert!(
                        (g == 0 && text.starts_with("hello from ")) || text.is_empty(),
                        "game {g}: {l}"
                    );
                }
                Value::String(s) if s == "end" => {
                    assert_eq!(text, format!("bye g{g}\n"), "game {g}: {l}");
                }
                other => panic!("game {g}: at {other}: {l}"),
            }
            assert!(!text.contains(&format!("g{} ", g + 1)), "{l}");
            for earlier in 0..g {
                assert!(!text.contains(&format!("g{earlier} r")), "game {g}: {l}");
            }
        }
        assert!(
            asked.is_empty(),
            "game {g}: requests {asked:?} have no stderr line"
        );
        // The viewer shows each at its request's step, and the replay verifies.
        let sim = simulate(&read_replay(game.replay.as_ref().unwrap()).unwrap());
        assert!(sim.verified(), "{:?}", sim.divergence);
        for step in &sim.steps {
            for t in step.stderr.iter().filter(|t| t.seat == 0) {
                if let Some(durak_replay::read::StderrAt::Request(id)) = t.at {
                    assert_eq!(step.request.as_ref().map(|r| r.id), Some(id));
                    assert!(t.text.ends_with(&format!("g{g} r{id}\n")), "{t:?}");
                }
            }
        }
    }
    // The hello is in game 0 only.
    for g in 1..r.games.len() {
        let all: String = stderr_of(&lines(&r, g), 0)
            .iter()
            .map(|l| l["text"].as_str().unwrap())
            .collect();
        assert!(!all.contains("hello from"), "game {g}: {all}");
    }
    assert_no_process_left(&h);
}

/// A bot that cannot start says why on stderr: each game's replay holds that game's attempt,
/// at its start, and not an earlier one's.
#[test]
fn a_start_up_failure_keeps_its_words_in_its_own_game() {
    let h = Hostile::new();
    let bot = h.seat(
        "echo \"ImportError in process $$\" >&2\nexit 3\n",
        hostile_limits(),
        Sandbox::Default,
    );
    let r = play(vec![bot, builtin("random")], 2, &h, 64 * 1024);
    let mut seen = Vec::new();
    for (g, game) in r.games.iter().enumerate() {
        assert_eq!(game.faults[0].kind, durak_protocol::FaultKind::StartFailed);
        let lines = lines(&r, g);
        let mine = stderr_of(&lines, 0);
        assert_eq!(mine.len(), 1, "game {g}: {mine:?}");
        assert_eq!(mine[0]["at"], "start");
        let text = mine[0]["text"].as_str().unwrap().to_string();
        assert!(text.starts_with("ImportError in process "), "{text}");
        assert!(!seen.contains(&text), "game {g} repeats {text:?}");
        seen.push(text.clone());
        // Step 1 of the replay shows it.
        let sim = simulate(&read_replay(game.replay.as_ref().unwrap()).unwrap());
        assert!(sim.verified(), "{:?}", sim.divergence);
        let v = durak_replay::step_view(&sim, 0, None);
        assert!(
            v.stderr
                .iter()
                .any(|e| e.seat == 0 && e.text == text && e.when == "before its first request"),
            "{:?}",
            v.stderr
        );
    }
}

/// The cap is per game: every game keeps the first `cap` bytes of what the bot wrote in it, and
/// each later piece says how many bytes were dropped at its request.
#[test]
fn the_cap_applies_per_game_and_says_what_was_dropped() {
    const CAP: usize = 1000;
    let h = Hostile::new();
    // 300 bytes more at each request (with its own 7 to 9 bytes of `gG rID`).
    let mut bot = h.seat(
        &chatty("printf '%0299d\\n' 0 >&2", false),
        hostile_limits(),
        Sandbox::Default,
    );
    bot.limits.move_ms = 10_000;
    let r = play(vec![bot, builtin("greedy")], 2, &h, CAP);
    for (g, game) in r.games.iter().enumerate() {
        assert!(game.faults.is_empty(), "{game:?}");
        let lines = lines(&r, g);
        let mine = stderr_of(&lines, 0);
        let kept: usize = mine.iter().map(|l| l["text"].as_str().unwrap().len()).sum();
        let dropped: u64 = mine.iter().map(|l| l["dropped"].as_u64().unwrap()).sum();
        let asked = requests_to(&lines, 0);
        assert!(
            asked.len() >= 4,
            "game {g}: too short a game to fill the cap"
        );
        let written: usize = asked
            .iter()
            .map(|id| format!("g{g} r{id}\n").len() + 300)
            .sum::<usize>()
            + mine
                .iter()
                .filter(|l| l["at"] == "start" || l["at"] == "end")
                .map(|l| {
                    l["text"].as_str().unwrap().len() + l["dropped"].as_u64().unwrap() as usize
                })
                .sum::<usize>();
        assert_eq!(
            kept, CAP,
            "game {g} keeps the cap's worth, whatever game 0 kept"
        );
        assert_eq!(kept as u64 + dropped, written as u64, "game {g}: {mine:?}");
        // Past the cap, each request still has its line: nothing kept, the bytes counted.
        let last = mine.iter().rev().find(|l| l["at"].is_u64()).unwrap();
        assert_eq!(last["text"], "", "{last}");
        assert!(last["dropped"].as_u64().unwrap() >= 300, "{last}");
        // The viewer says so at that step.
        let sim = simulate(&read_replay(game.replay.as_ref().unwrap()).unwrap());
        let id = last["at"].as_u64().unwrap();
        let i = sim
            .steps
            .iter()
            .position(|s| s.request.as_ref().is_some_and(|r| r.id == id))
            .unwrap();
        let v = durak_replay::step_view(&sim, i, None);
        assert!(
            v.stderr
                .iter()
                .any(|e| e.seat == 0 && e.text.contains("bytes dropped here")),
            "{:?}",
            v.stderr
        );
    }
}
