//! Issue 15: re-running one decision. `durak replay --seat S --raw` rebuilds, from the replay
//! alone, every line that seat's bot read: here compared byte for byte with what a real bot
//! logged of its stdin over a match with a refused answer and a restart. `durak rerun` feeds a
//! bot what a seat read up to a step and judges its answer beside the recorded one.

mod common;

use common::{durak, text};
use std::path::Path;

/// A bot that logs every line it reads to `log.txt` and plays as `durak bot random`, except at
/// its first request of game 1, which it answers with a wrong id (a schema fault at /id: the
/// referee sends an `error` and `game_end`, and restarts it for game 2).
const LOGGING_BOT: &str = r#"LOG="$1"; DURAK="$2"
exec 3>&1
while read -r line; do
  printf '%s\n' "$line" >> "$LOG"
  case "$line" in
    *'"type":"game_start","game":1,'*) wrong=1;;
    *'"type":"request"'*)
      if [ "$wrong" = 1 ]; then
        wrong=0
        echo '{"type":"answer","id":0,"action":"pass"}' >&3
        continue
      fi;;
  esac
  printf '%s\n' "$line"
done | "$DURAK" bot random
"#;

/// Play 3 games of the logging bot (seat 0) against builtin:greedy; returns the replay dir.
fn play(dir: &Path) -> std::path::PathBuf {
    std::fs::write(dir.join("bot.sh"), LOGGING_BOT).unwrap();
    let replays = dir.join("replays");
    let bot = format!(
        "sh {} {} {}",
        dir.join("bot.sh").display(),
        dir.join("log.txt").display(),
        common::DURAK
    );
    let out = durak(
        &[
            "play",
            "--games",
            "3",
            "--seed",
            "7",
            "--replay-dir",
            replays.to_str().unwrap(),
            &bot,
            "builtin:greedy",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    replays
}

#[test]
fn the_raw_lines_are_what_the_bot_read() {
    let tmp = tempfile::tempdir().unwrap();
    let replays = play(tmp.path());
    let mut rebuilt = String::new();
    let mut printed = String::new();
    for g in 0..3 {
        let file = replays.join(format!("game-{g:04}.jsonl"));
        let out = durak(
            &["replay", "--seat", "0", "--raw", file.to_str().unwrap()],
            tmp.path(),
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let t = text(&out.stdout);
        for l in t.lines() {
            if let Some(line) = l.strip_prefix("stdin   ") {
                rebuilt.push_str(line);
                rebuilt.push('\n');
            }
        }
        printed.push_str(&t);
    }
    let log = std::fs::read_to_string(tmp.path().join("log.txt")).unwrap();
    // The log ends with match_end, which belongs to no game.
    let (games, last) = log.trim_end().rsplit_once('\n').unwrap();
    assert!(last.starts_with(r#"{"type":"match_end""#), "{last}");
    assert_eq!(
        format!("{games}\n"),
        rebuilt,
        "rebuilt stdin differs from the bot's log"
    );
    // The fault and the restart are in it: the error (with its id and pointer), then a new hello.
    assert!(
        rebuilt.contains(r#"{"type":"error","id":"#) && rebuilt.contains(r#""pointer":"/id""#),
        "{rebuilt}"
    );
    assert_eq!(
        rebuilt.matches(r#"{"type":"hello""#).count(),
        2,
        "{rebuilt}"
    );
    // What the bot sent: the refused line exactly, accepted answers rebuilt (marked `~`).
    assert!(
        printed.contains(r#"stdout  {"type":"answer","id":0,"action":"pass"}"#),
        "{printed}"
    );
    assert!(
        printed.contains("stdout~ {\"type\":\"answer\""),
        "{printed}"
    );

    // Without --seat, --raw is refused.
    let file = replays.join("game-0000.jsonl");
    let out = durak(&["replay", "--raw", file.to_str().unwrap()], tmp.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn rerun_feeds_a_bot_the_game_and_judges_its_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let replays = play(tmp.path());
    let file = replays.join("game-0000.jsonl");
    let file = file.to_str().unwrap();
    // A request step of seat 0 (the bot played as `durak bot random`), and a forced step.
    let replay = durak_replay::read_replay(Path::new(file)).unwrap();
    let sim = durak_replay::simulate(&replay);
    let steps = durak_checkbot::rerun::request_steps(&sim);
    let forced = sim.steps.iter().find(|s| s.forced).map(|s| s.number);
    let (step, _) = *steps
        .iter()
        .find(|(_, seat)| *seat == 0)
        .expect("a request of seat 0");
    let step = step.to_string();

    // The same bot gives the same answer.
    let out = durak(
        &["rerun", file, "--step", &step, "builtin:random"],
        tmp.path(),
    );
    let t = text(&out.stdout);
    assert!(out.status.success(), "{t}{}", text(&out.stderr));
    assert!(t.contains("the same as the recorded answer"), "{t}");
    assert!(t.contains("recorded answer: {\"type\":\"answer\""), "{t}");
    assert!(t.contains("verdict: legal:"), "{t}");

    // A bot that always passes: refused, and said so (exit 1).
    std::fs::write(
        tmp.path().join("pass.sh"),
        r#"read -r line
echo '{"type":"hello","protocol":1,"name":"passer","version":"1"}'
while read -r line; do
  case "$line" in *'"type":"request"'*)
    id=$(printf '%s' "$line" | sed -n 's/.*"type":"request","id":\([0-9]*\).*/\1/p')
    echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"pass\"}";; esac
done
"#,
    )
    .unwrap();
    let first = steps[0].0.to_string();
    let out = durak(&["rerun", file, "--step", &first, "sh pass.sh"], tmp.path());
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{t}{}", text(&out.stderr));
    assert!(t.contains("verdict: refused (illegal)"), "{t}");

    // A forced step is not a decision: refused with the requests near it.
    if let Some(f) = forced {
        let out = durak(
            &["rerun", file, "--step", &f.to_string(), "builtin:random"],
            tmp.path(),
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains("forced move"),
            "{}",
            text(&out.stderr)
        );
    }
}
