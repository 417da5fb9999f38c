//! Issue 15, the reports a bot author reads after a beginner's mistake: `durak play` and
//! `durak check-bot` name a crash between two decisions for what it is (not "it exited after
//! game_end" when it had read into the next game), give no "read every kind of message" hint for
//! a crash while its request is open, show its stderr after the last line it had been sent (in
//! `durak replay --raw` and the step views), and run a bot whose arguments name a folder of the
//! caller's (`java -cp out Bot`, `sh -c ... dir`).

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// What a command printed, stdout then stderr.
fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A bot in `sh` that plays as builtin:random and runs `on_line` on every line it reads
/// (`$line`), before passing it on. `sh`'s `read` takes one byte at a time, so the bot reads
/// exactly up to the line it dies on.
fn sh_bot(dir: &Path, on_line: &str) -> String {
    let script = format!(
        "while read -r line; do\n  {on_line}\n  printf '%s\\n' \"$line\"\ndone | {} bot random\n",
        DURAK
    );
    std::fs::write(dir.join("bot.sh"), script).unwrap();
    "sh bot.sh".to_string()
}

/// `durak play --json` of `bot` against builtin:greedy: the JSON result.
fn play(dir: &Path, bot: &str, games: &str) -> Value {
    let out = durak(
        &[
            "play",
            "--json",
            "--seed",
            "3",
            "--games",
            games,
            "--replay-dir",
            "replays",
            bot,
            "builtin:greedy",
        ],
        dir,
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", printed(&out)))
}

fn fault_detail(result: &Value, game: usize) -> String {
    let faults = result["games"][game]["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "game {game}: {result}");
    assert_eq!(faults[0]["seat"], 0, "{result}");
    faults[0]["detail"].as_str().unwrap().to_string()
}

/// Game `g`'s replay: `durak replay --seat 0 --raw` and `--all`.
fn views(dir: &Path, g: usize) -> (String, String) {
    let file = format!("replays/game-{g:04}.jsonl");
    let verify = durak(&["replay", "--verify", &file], dir);
    assert!(verify.status.success(), "{}", printed(&verify));
    let raw = durak(&["replay", "--seat", "0", "--raw", &file], dir);
    assert!(raw.status.success(), "{}", printed(&raw));
    let all = durak(&["replay", "--all", &file], dir);
    assert!(all.status.success(), "{}", printed(&all));
    (printed(&raw), printed(&all))
}

/// A crash on an event of a kind the bot has read before, in the second game: charged there,
/// said to have happened while reading that game's events (after the last line it read),
/// not "it ended after the previous game's game_end"; its stderr shows right after the event
/// that killed it, in `--raw` and at the step it came with.
#[test]
fn a_crash_on_an_event_of_the_next_game_is_not_called_an_exit_after_game_end() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        r#"case "$line" in *'"game":1,"event":{"kind":"turn_started"'*) echo "Traceback: my bug on turn_started" >&2; exit 1;; esac"#,
    );
    let r = play(dir.path(), &bot, "2");
    assert!(
        r["games"][0]["faults"].as_array().unwrap().is_empty(),
        "{r}"
    );
    let detail = fault_detail(&r, 1);
    assert!(
        detail.contains("it exited while reading events of game 1, after the last line it read"),
        "{detail}"
    );
    assert!(detail.contains(r#""kind":"turn_started""#), "{detail}");
    assert!(
        !detail.contains("game_end") && !detail.contains("for the first time"),
        "{detail}"
    );
    let (raw, all) = views(dir.path(), 1);
    let lines: Vec<&str> = raw.lines().collect();
    let crash = lines
        .iter()
        .position(|l| l.starts_with("stderr | Traceback: my bug"))
        .unwrap_or_else(|| panic!("no traceback in:\n{raw}"));
    assert!(
        lines[crash - 1].starts_with("stdin ") && lines[crash - 1].contains("\"turn_started\""),
        "the traceback follows the event it died on:\n{}",
        lines[..=crash].join("\n")
    );
    assert!(
        all.contains("stderr of seat 0 (after it was sent a \"turn_started\" event):"),
        "{all}"
    );
}

/// The usual mistake, exiting on game_end, keeps its diagnosis: the bot read nothing of the
/// next game.
#[test]
fn an_exit_after_game_end_is_still_named_so() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        r#"case "$line" in *'"type":"game_end"'*) printf '%s\n' "$line"; echo "bye" >&2; exit 0;; esac"#,
    );
    let r = play(dir.path(), &bot, "2");
    let detail = fault_detail(&r, 1);
    assert!(
        detail.contains("it ended after the previous game's game_end"),
        "{detail}"
    );
    assert!(!detail.contains("while reading events"), "{detail}");
}

/// A crash while answering its very first request is not blamed on the kinds of message the bot
/// had not read before (it read them all, and its request, and died deciding).
#[test]
fn a_crash_answering_the_first_request_gets_no_hint_about_unread_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        r#"case "$line" in *'"type":"request"'*) echo "ZeroDivisionError in decide" >&2; exit 1;; esac"#,
    );
    let r = play(dir.path(), &bot, "1");
    let detail = fault_detail(&r, 0);
    assert!(
        detail.starts_with("the bot exited with code ") && detail.contains(" (answer)"),
        "{detail}"
    );
    assert!(
        !detail.contains("for the first time") && !detail.contains("read every kind"),
        "{detail}"
    );
    // Its stderr shows after its request.
    let (raw, _) = views(dir.path(), 0);
    let lines: Vec<&str> = raw.lines().collect();
    let crash = lines
        .iter()
        .position(|l| l.contains("ZeroDivisionError"))
        .unwrap();
    assert!(lines[crash - 1].contains("\"type\":\"request\""), "{raw}");
}

/// A bot that dies on its first game_over (sent after its last answer): its traceback shows
/// after that event, at the last step, not at its last request.
#[test]
fn a_crash_on_the_last_event_shows_at_the_last_step() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        r#"case "$line" in *'"kind":"game_over"'*) echo "KeyError: 'game_over'" >&2; exit 1;; esac"#,
    );
    let r = play(dir.path(), &bot, "1");
    assert!(fault_detail(&r, 0).contains("\"game_over\""), "{r}");
    let (raw, all) = views(dir.path(), 0);
    let lines: Vec<&str> = raw.lines().collect();
    let crash = lines.iter().position(|l| l.contains("KeyError")).unwrap();
    assert!(lines[crash - 1].contains("\"kind\":\"game_over\""), "{raw}");
    // In the step views: in the last step, after the game_over event.
    let last_step = all.rfind("== step ").unwrap();
    let shown = all
        .find("stderr of seat 0 (after it was sent a \"game_over\" event):")
        .unwrap_or_else(|| panic!("{all}"));
    assert!(shown > last_step, "{}", &all[last_step..]);
}

/// check-bot: the same crash (on an event of a kind read before, in the third game of a
/// match) fails the position it happened in, said so, with the bot's stderr under it; the
/// lifecycle check ("keeps running after game_end") does not fail, nor advise it.
#[test]
fn check_bot_names_a_crash_reading_the_next_games_events_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        r#"case "$line" in *'"game":2,"event":{"kind":"turn_started"'*) echo "Traceback: boom in game 2" >&2; exit 1;; esac"#,
    );
    let args = [
        "check-bot",
        "--games",
        "0",
        "--long",
        "0",
        "--variant",
        "podkidnoy",
    ];
    let out = durak(&[&args[..], &[bot.as_str()]].concat(), dir.path());
    let report = printed(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    let flat = report.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!flat.contains("✗ keeps running after game_end"), "{report}");
    assert!(
        !flat.contains("keep reading stdin after game_end"),
        "{report}"
    );
    // The first failed check says what happened, with the stderr.
    let first = flat
        .split(" ✗ ")
        .nth(1)
        .unwrap_or_else(|| panic!("{report}"));
    let first = first.split(" ✓ ").next().unwrap();
    for needle in [
        "it exited while reading events of game 2, after the last line it read: \
         {\"type\":\"event\",\"game\":2,\"event\":{\"kind\":\"turn_started\"",
        "the bot's stderr ended with: | Traceback: boom in game 2",
    ] {
        assert!(first.contains(needle), "{needle:?} not in: {first}");
    }
    let json = durak(
        &[&args[..1], &["--json"], &args[1..], &[bot.as_str()]].concat(),
        dir.path(),
    );
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    let game_end = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checks"].as_array().unwrap())
        .find(|c| c["id"] == "game-end")
        .unwrap();
    assert_ne!(game_end["status"], "fail", "{game_end}");
}

/// `durak play "java -cp out Bot"`, as check-bot is given it in the bot's folder: the class
/// path names a folder of the caller's, and the bot runs in a private directory, so `out` is
/// resolved against the caller's directory as a script argument is; a bot that cannot start
/// for a path of its own is told where it ran, with the first line of its stderr.
#[test]
fn play_resolves_a_class_path_of_the_callers_folder() {
    let (Some(javac), Some(_)) = (
        require_interpreter("javac", "default-jdk-headless"),
        require_interpreter("java", "default-jdk-headless"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(javac)
        .args(["-d", "out"])
        .arg(repo_root().join("sample-bots/java/Bot.java"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", printed(&out));
    let r = play(dir.path(), "java -cp out Bot", "1");
    assert!(
        r["games"][0]["faults"].as_array().unwrap().is_empty(),
        "{r}"
    );
    std::fs::remove_dir_all(dir.path().join("replays")).unwrap();
    // A path the referee cannot know is one (a class path in a -D property) fails to start,
    // and the fault says why.
    let r = play(dir.path(), "java -Djava.class.path=out Bot", "1");
    let detail = fault_detail(&r, 0);
    assert_eq!(r["games"][0]["faults"][0]["kind"], "start_failed", "{r}");
    assert!(
        detail.contains("its stderr began: Error: Could not find or load main class Bot"),
        "{detail}"
    );
    assert!(
        detail.contains("it ran in a private directory (") && detail.contains("not in yours"),
        "{detail}"
    );
}

fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}
