//! Issue 7: `durak check-bot` through the binary. Every sample bot (Python, JavaScript, Rust, C)
//! passes; broken bots fail with the right rule in the report and a non-zero exit.
//!
//! A sample bot whose interpreter or compiler is missing is SKIPPED with a loud line on the real
//! stderr (CI installs python3, node and cc). The broken bots are `sh` scripts, so they always
//! run. The Rust sample bot is built with `cargo build -p durak-sample-bot` (cargo's own path,
//! `$CARGO`, and the same target directory as this test), because `cargo test` does not build
//! the binaries of other workspace packages.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

use common::{durak, text, which};

/// The plain interpreter is preferred: a pyenv shim can take a second to start. Without it the
/// test is skipped with a note (a failure in CI).
fn python() -> Option<PathBuf> {
    common::require_interpreter("python3", "python3")
}

fn node() -> Option<PathBuf> {
    common::require("node", "nodejs")
}

/// `durak check-bot --json` on a sample bot: it must pass every check.
fn assert_passes(bot: &str) {
    let out = durak(
        &["check-bot", "--games", "2", "--long", "20", "--json", bot],
        &repo(),
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check-bot --json prints JSON ({e}): {}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    });
    let failed: Vec<String> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checks"].as_array().unwrap())
        .filter(|c| c["status"] == "fail")
        .map(|c| serde_json::to_string_pretty(c).unwrap())
        .collect();
    assert!(
        out.status.success() && report["passed"] == true && failed.is_empty(),
        "{bot} should pass check-bot; failed checks:\n{}",
        failed.join("\n")
    );
    // Every scripted position was played, and each kind of decision was answered.
    let ids: Vec<&str> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checks"].as_array().unwrap())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "hello",
        "prostoy-attack",
        "prostoy-exchange-attack",
        "prostoy-partial-defence",
        "podkidnoy-attack",
        "podkidnoy-cover",
        "podkidnoy-add",
        "podkidnoy-add-after-take",
        "podkidnoy-add-3p",
        "podkidnoy-add-after-take-3p",
        "games-prostoy-greedy",
        "games-podkidnoy-3p",
        "reads",
        "long",
    ] {
        assert!(ids.contains(&id), "{bot}: no check {id} in {ids:?}");
    }
    let timed: Vec<&str> = report["timing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["decision"].as_str().unwrap())
        .collect();
    assert_eq!(timed, ["hello", "attack", "defend", "add"], "{bot}");
}

#[test]
fn python_random_bot_passes() {
    if let Some(py) = python() {
        assert_passes(&format!(
            "{} sample-bots/python/random_bot.py",
            py.display()
        ));
    }
}

#[test]
fn python_heuristic_bot_passes() {
    if let Some(py) = python() {
        assert_passes(&format!(
            "{} sample-bots/python/heuristic_bot.py",
            py.display()
        ));
    }
}

#[test]
fn js_random_bot_passes() {
    if let Some(node) = node() {
        assert_passes(&format!("{} sample-bots/js/random_bot.js", node.display()));
    }
}

#[test]
fn js_heuristic_bot_passes() {
    if let Some(node) = node() {
        assert_passes(&format!(
            "{} sample-bots/js/heuristic_bot.js",
            node.display()
        ));
    }
}

#[test]
fn rust_sample_bot_passes() {
    assert_passes(&common::rust_sample_bot().display().to_string());
}

#[test]
fn c_sample_bot_passes() {
    let Some(cc) = common::require_with("cc", "gcc", || {
        which("cc")
            .or_else(|| which("gcc"))
            .ok_or_else(|| "no cc or gcc on PATH".to_string())
    }) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("bot");
    let out = Command::new(cc)
        .args(["-std=c99", "-O2", "-Wall", "-Wextra", "-o"])
        .arg(&exe)
        .arg(repo().join("sample-bots/c/bot.c"))
        .output()
        .expect("cc runs");
    assert!(out.status.success(), "cc: {}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("warning"),
        "bot.c compiles without warnings: {}",
        text(&out.stderr)
    );
    assert_passes(&exe.display().to_string());
}

// ----- broken bots ---------------------------------------------------------------------------

/// A minimal legal bot in sh: attacks with the first card of legal.hand, takes (podkidnoy) or
/// beats nothing (prostoy), passes when asked to add. Each broken bot changes one line.
const GOOD_SH: &str = r#"read -r line
echo '{"type":"hello","protocol":1,"name":"sh-bot","version":"1"}'
while read -r line; do
  case "$line" in
    *'"type":"request"'*)
      id=$(printf '%s' "$line" | sed -n 's/.*"type":"request","id":\([0-9]*\).*/\1/p')
      ID=$id
      case "$line" in
        *'"decision":"attack"'*'"same_rank":false'*)
          card=$(printf '%s' "$line" | sed -n 's/.*"legal":{"hand":\["\([^"]*\)".*/\1/p')
          PROSTOY_ATTACK;;
        *'"decision":"attack"'*)
          card=$(printf '%s' "$line" | sed -n 's/.*"legal":{"hand":\["\([^"]*\)".*/\1/p')
          echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"attack\",\"cards\":[\"$card\"]}";;
        *'"decision":"defend"'*'"must_cover_all":true'*)
          PODKIDNOY_DEFENCE;;
        *'"decision":"defend"'*)
          echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"defend\",\"pairs\":[]}";;
        *)
          echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"pass\"}";;
      esac;;
    *'"type":"game_end"'*) GAME_END;;
    *'"type":"match_end"'*) exit 0;;
  esac
done
"#;

const ONE_CARD: &str =
    r#"echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"attack\",\"cards\":[\"$card\"]}""#;
const TWO_CARDS: &str = r#"two=$(printf '%s' "$line" | sed -n 's/.*"legal":{"hand":\["\([^"]*\)","\([^"]*\)".*/\1","\2/p')
          echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"attack\",\"cards\":[\"$two\"]}""#;
const TAKE: &str = r#"echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"take\"}""#;
const PASS: &str = r#"echo "{\"type\":\"answer\",\"id\":$ID,\"action\":\"pass\"}""#;

struct Sh {
    prostoy_attack: &'static str,
    podkidnoy_defence: &'static str,
    game_end: &'static str,
    /// How it finds the id of its answer (`ID=$id` copies the request's).
    id: &'static str,
    /// Run at every line before it is read as a message (`$line` holds it).
    each_line: &'static str,
}

const GOOD: Sh = Sh {
    prostoy_attack: ONE_CARD,
    podkidnoy_defence: TAKE,
    game_end: ":",
    id: "ID=$id",
    each_line: ":",
};

/// Write the bot to `dir/bot.sh`; returns its command.
fn sh_bot(dir: &Path, b: &Sh) -> String {
    let s = GOOD_SH
        .replace("PROSTOY_ATTACK", b.prostoy_attack)
        .replace("PODKIDNOY_DEFENCE", b.podkidnoy_defence)
        .replace("GAME_END", b.game_end)
        .replace("ID=$id", b.id)
        .replace(
            "while read -r line; do\n",
            &format!("while read -r line; do\n  {}\n", b.each_line),
        );
    let path = dir.join("bot.sh");
    std::fs::write(&path, s).unwrap();
    format!("sh {}", path.display())
}

/// The text report with line breaks and indentation folded into single spaces (messages are
/// wrapped at 96 columns).
fn flat(report: &str) -> String {
    report.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Run check-bot (by default with 1 game per table); returns (exit code, text report folded
/// by [`flat`], JSON report).
fn check(bot: &str, args: &[&str]) -> (i32, String, Value) {
    let mut a = vec!["check-bot"];
    if !args.contains(&"--games") {
        a.extend(["--games", "1"]);
    }
    if !args.contains(&"--long") {
        a.extend(["--long", "0"]);
    }
    a.extend_from_slice(args);
    a.push(bot);
    let out = durak(&a, &repo());
    let code = out.status.code().unwrap_or(-1);
    let mut aj = a.clone();
    aj.insert(1, "--json");
    let json = durak(&aj, &repo());
    let v: Value = serde_json::from_slice(&json.stdout).expect("--json prints JSON");
    assert_eq!(
        json.status.code(),
        Some(code),
        "same verdict with and without --json"
    );
    (code, flat(&text(&out.stdout)), v)
}

/// The check with this id in a JSON report.
fn check_of<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checks"].as_array().unwrap())
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}"))
}

/// The first problem of a check (in its exchanges, or its own).
fn problem_of(check: &Value) -> &Value {
    check["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| &x["problem"])
        .find(|p| !p.is_null())
        .unwrap_or(&check["problem"])
}

#[test]
fn a_minimal_legal_sh_bot_passes() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(dir.path(), &GOOD);
    let (code, report, json) = check(&bot, &[]);
    assert_eq!(code, 0, "{report}");
    assert!(report.contains("PASSED"), "{report}");
    assert!(report.contains("✓ hello"), "{report}");
    assert_eq!(json["bot_name"], "sh-bot");
}

#[test]
fn a_bot_that_passes_as_defender_fails_with_k7() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        &Sh {
            podkidnoy_defence: PASS,
            ..GOOD
        },
    );
    let (code, report, json) = check(&bot, &["--variant", "podkidnoy"]);
    assert_eq!(code, 1, "{report}");
    let c = check_of(&json, "podkidnoy-cover");
    assert_eq!(c["status"], "fail");
    let p = problem_of(c);
    assert_eq!(p["fault"], "illegal");
    assert_eq!(p["rule"], "K-7");
    assert!(p["fix"].as_str().unwrap().contains("or answer"));
    assert_eq!(json["passed"], false);
    // The text report: what was sent, what came back, the rule, how to fix it.
    for needle in [
        "✗ cover or take",
        "sent: podkidnoy, 2 players",
        "\"decision\":\"defend\"",
        "came back",
        "\"action\":\"pass\"",
        "what was wrong: an illegal move, rule K-7",
        "how to fix it:",
        "cover every card in legal.to_beat with a different card from its beaters",
        "FAILED",
    ] {
        assert!(
            report.contains(needle),
            "report lacks {needle:?}:\n{report}"
        );
    }
}

#[test]
fn a_bot_that_ignores_ids_fails_on_the_id() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(dir.path(), &Sh { id: "ID=1", ..GOOD });
    let (code, report, json) = check(&bot, &["--variant", "prostoy"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(check_of(&json, "ids")["status"], "fail");
    assert!(report.contains("✗ answers echo the request id"), "{report}");
    assert!(report.contains("at /id"), "{report}");
    assert!(report.contains("copy the request's \"id\""), "{report}");
}

/// A bot whose every answer is a debug line: checks that need a readable answer, or a finished
/// game, are "not seen", never passed.
#[test]
fn checks_never_observed_are_not_seen_rather_than_passed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bot.sh");
    std::fs::write(
        &path,
        r#"read -r line
echo '{"type":"hello","protocol":1,"name":"chatty","version":"1"}'
while read -r line; do
  case "$line" in *'"type":"request"'*) echo "debug: thinking about it";; esac
done
"#,
    )
    .unwrap();
    let (code, report, json) = check(&format!("sh {}", path.display()), &["--variant", "prostoy"]);
    assert_eq!(code, 1, "{report}");
    for id in ["ids", "game-end"] {
        assert_eq!(check_of(&json, id)["status"], "skip", "{id}: {report}");
    }
    assert!(report.contains("- answers echo the request id"), "{report}");
    assert!(
        report.contains("- keeps running after game_end"),
        "{report}"
    );
    assert!(
        report.contains("not seen: no answer of the bot could be read"),
        "{report}"
    );
}

#[test]
fn a_bot_that_attacks_with_two_cards_in_prostoy_fails_with_p5() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        &Sh {
            prostoy_attack: TWO_CARDS,
            ..GOOD
        },
    );
    let (code, report, json) = check(&bot, &["--variant", "prostoy"]);
    assert_eq!(code, 1, "{report}");
    for id in [
        "prostoy-attack",
        "prostoy-exchange-attack",
        "prostoy-attack-3p",
    ] {
        let c = check_of(&json, id);
        assert_eq!(c["status"], "fail", "{id}");
        assert_eq!(problem_of(c)["rule"], "P-5", "{id}");
    }
    assert!(
        report.contains("what was wrong: an illegal move, rule P-5"),
        "{report}"
    );
    assert!(report.contains("never 2"), "{report}");
    // The defences were fine.
    assert_eq!(check_of(&json, "prostoy-partial-defence")["status"], "pass");
}

#[test]
fn a_bot_that_quits_after_game_end_fails_the_lifecycle_check() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        &Sh {
            game_end: "exit 0",
            ..GOOD
        },
    );
    let (code, report, json) = check(&bot, &["--variant", "podkidnoy", "--games", "0"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(check_of(&json, "game-end")["status"], "fail", "{report}");
    // Found before the next game_start (the usual case: the first game_end is given a moment to
    // be read), or at that game's first request.
    assert!(
        report.contains(
            "after game_end of game 0, the bot exited with code 0 before the next game_start"
        ) || report.contains("the bot ended after the previous game's game_end"),
        "{report}"
    );
    assert!(
        report.contains("keep reading stdin after game_end"),
        "{report}"
    );
    // Quitting is not a crash while reading.
    assert_eq!(check_of(&json, "reads")["status"], "pass", "{report}");
}

#[test]
fn a_missing_program_and_a_silent_bot_are_explained() {
    let (code, report, _) = check("no-such-program-xyz bot.py", &[]);
    assert_eq!(code, 1, "{report}");
    assert!(report.contains("nor a program on PATH"), "{report}");
    assert!(report.contains("how to fix it"), "{report}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mute.sh");
    std::fs::write(&path, "while read -r line; do :; done\n").unwrap();
    let (code, report, json) = check(
        &format!("sh {}", path.display()),
        &["--startup-ms", "300", "--variant", "prostoy"],
    );
    assert_eq!(code, 1, "{report}");
    let hello = check_of(&json, "hello");
    assert_eq!(problem_of(hello)["fault"], "timeout");
    assert!(report.contains("no hello within the start-up limit of 300 ms"));
    // Only the hello fails; the rest is skipped, not repeated.
    assert_eq!(check_of(&json, "prostoy-attack")["status"], "skip");
    assert!(report.contains("FAILED: 1 of"), "{report}");
}

#[test]
fn bad_invocations_exit_2() {
    let out = durak(
        &["check-bot", "--variant", "perevodnoy", "builtin:random"],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--variant"));
}

// ----- the tutorial's bots ---------------------------------------------------------------------

/// The code block after `<!-- check-bot: NAME -->` in docs/WRITING_A_BOT.md.
fn tutorial_code(name: &str) -> String {
    let doc = std::fs::read_to_string(repo().join("docs/WRITING_A_BOT.md")).unwrap();
    let marker = format!("<!-- check-bot: {name} -->");
    let after = &doc[doc.find(&marker).unwrap_or_else(|| panic!("no {marker}")) + marker.len()..];
    let start = after.find("```").expect("a code block");
    let body = &after[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("\n```").expect("the block ends")].to_string() + "\n"
}

#[test]
fn the_tutorial_bots_pass() {
    let dir = tempfile::tempdir().unwrap();
    for (name, interpreter) in [("my_bot.py", python()), ("my_bot.js", node())] {
        let Some(interpreter) = interpreter else {
            continue;
        };
        let path = dir.path().join(name);
        std::fs::write(&path, tutorial_code(name)).unwrap();
        assert_passes(&format!("{} {}", interpreter.display(), path.display()));
    }
}

/// `--sandbox strict` checks the bot as a strict tournament runs it: here a bot that refuses to
/// play if it can read a file next to its folder fails in the default mode and passes in strict
/// mode, where only its own folder is visible.
#[test]
fn check_bot_runs_the_bot_in_the_sandbox_asked_for() {
    if !common::strict_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("secret.txt"), "the organiser's notes").unwrap();
    let folder = tmp.path().join("bot");
    std::fs::create_dir(&folder).unwrap();
    sh_bot(&folder, &GOOD);
    let body = std::fs::read_to_string(folder.join("bot.sh")).unwrap();
    std::fs::write(
        folder.join("bot.sh"),
        format!(
            "if cat ../secret.txt >/dev/null 2>&1; then echo 'I can read ../secret.txt' >&2; \
             exit 7; fi\n{body}"
        ),
    )
    .unwrap();
    let run = |sandbox: &str| {
        durak(
            &[
                "check-bot",
                "--variant",
                "podkidnoy",
                "--games",
                "1",
                "--sandbox",
                sandbox,
                "--cwd",
                folder.to_str().unwrap(),
                "sh bot.sh",
            ],
            &repo(),
        )
    };
    let default = run("default");
    let report = flat(&text(&default.stdout));
    assert_eq!(default.status.code(), Some(1), "{report}");
    assert!(
        report.contains("start_failed") && report.contains("I can read ../secret.txt"),
        "{report}"
    );
    let strict = run("strict");
    assert!(
        strict.status.success(),
        "{}{}",
        text(&strict.stdout),
        text(&strict.stderr)
    );
}

/// A bot that answers with its own counter (1, 2, 3, ...) instead of the request's id fails the
/// quick check (`--games 0`): the ids check-bot chooses are not a counter.
#[test]
fn a_bot_that_counts_its_answers_fails_the_quick_check() {
    let dir = tempfile::tempdir().unwrap();
    for counter in ["n=$((n+1)); ID=$n", "n=$((n+1)); ID=$((n-1))"] {
        let bot = sh_bot(
            dir.path(),
            &Sh {
                id: counter,
                ..GOOD
            },
        );
        let (code, report, json) = check(&bot, &["--games", "0"]);
        assert_eq!(code, 1, "{counter}: {report}");
        assert_eq!(check_of(&json, "ids")["status"], "fail", "{report}");
        assert!(report.contains("copy the request's \"id\""), "{report}");
    }
}

/// A bot that crashes reading an event kind it did not expect (here `game_over`, which comes
/// after its last answer) is told so: the bot exited while reading events, after that event,
/// with its stderr in the text report, not "keeps running after game_end".
#[test]
fn a_crash_reading_an_event_is_named_with_the_bots_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        &Sh {
            each_line: r#"case "$line" in *'"kind":"game_over"'*) echo "Traceback (most recent call last):" >&2; echo "KeyError: 'game_over'" >&2; exit 1;; esac"#,
            ..GOOD
        },
    );
    let (code, report, json) = check(&bot, &["--games", "0", "--variant", "podkidnoy"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(check_of(&json, "reads")["status"], "fail", "{report}");
    assert_ne!(check_of(&json, "game-end")["status"], "fail", "{report}");
    for needle in [
        "✗ reads every kind of message",
        "the bot exited with code 1 while reading events, right after the first \"game_over\" \
         event it was sent",
        "read every kind of message and ignore what you do not use",
        "the bot's stderr ended with: | Traceback (most recent call last): | KeyError: 'game_over'",
    ] {
        assert!(
            report.contains(needle),
            "report lacks {needle:?}:\n{report}"
        );
    }
    assert!(
        !report.contains("keep reading stdin after game_end"),
        "{report}"
    );
    // The position it happened in fails with it.
    assert_eq!(
        check_of(&json, "podkidnoy-attack")["status"],
        "fail",
        "{report}"
    );
}

/// The long match plays many games in one process: a bot that dies dozens of games in (as a
/// JVM at its memory limit did) passes the quick check and fails the long one, which says in
/// which game, with its stderr; a healthy bot gets its peak memory (or why it is not known)
/// and its answer times.
#[test]
fn the_long_match_catches_a_bot_that_dies_dozens_of_games_in() {
    let dir = tempfile::tempdir().unwrap();
    let bot = sh_bot(
        dir.path(),
        &Sh {
            each_line: r#"case "$line" in *'"type":"game_start"'*) g=$((g+1)); if [ "$g" -gt 25 ]; then echo "java.lang.OutOfMemoryError: Java heap space" >&2; exit 3; fi;; esac"#,
            ..GOOD
        },
    );
    let (code, report, _) = check(&bot, &["--games", "0", "--variant", "podkidnoy"]);
    assert_eq!(code, 0, "the quick check passes: {report}");
    let (code, report, json) = check(
        &bot,
        &["--games", "0", "--variant", "podkidnoy", "--long", "40"],
    );
    assert_eq!(code, 1, "{report}");
    let long = check_of(&json, "long");
    assert_eq!(long["status"], "fail", "{report}");
    assert!(
        report.contains("the bot failed in game 25 of the match (after 25 games played"),
        "{report}"
    );
    assert!(report.contains("OutOfMemoryError"), "{report}");
    assert_eq!(json["long"]["played"], 25);

    // A healthy bot: peak memory and answer times.
    let good = sh_bot(dir.path(), &GOOD);
    let (code, report, json) = check(
        &good,
        &["--games", "0", "--variant", "prostoy", "--long", "5"],
    );
    assert_eq!(code, 0, "{report}");
    assert!(report.contains("✓ 5 games in one process"), "{report}");
    assert!(report.contains("answer times: median"), "{report}");
    let l = &json["long"];
    assert_eq!(l["played"], 5);
    assert!(
        l["peak_memory_bytes"].as_u64().is_some_and(|b| b > 0) || l["memory_unknown"].is_string(),
        "{l}"
    );
    assert!(report.contains("peak memory: "), "{report}");
    assert!(!l["timing"].as_array().unwrap().is_empty(), "{l}");
}

/// `--build CMD` builds the bot in its working directory first; a failed build fails the check.
#[test]
fn check_bot_builds_the_bot_first() {
    let dir = tempfile::tempdir().unwrap();
    sh_bot(dir.path(), &GOOD);
    std::fs::rename(dir.path().join("bot.sh"), dir.path().join("bot.sh.in")).unwrap();
    let cwd = dir.path().to_str().unwrap();
    let (code, report, _) = check(
        "sh bot.sh",
        &[
            "--games",
            "0",
            "--cwd",
            cwd,
            "--build",
            "cp bot.sh.in bot.sh",
        ],
    );
    assert_eq!(code, 0, "{report}");
    let (code, report, json) = check("sh bot.sh", &["--cwd", cwd, "--build", "exit 4"]);
    assert_eq!(code, 1, "{report}");
    assert!(report.contains("the build exited with code 4"), "{report}");
    assert_eq!(json["build"]["ok"], false);
}

/// As root, `--sandbox strict` runs the bot sandboxed and the built-in opponents, the referee's
/// own program, as they are: no warning that "bots run as root without a sandbox".
#[test]
fn strict_check_bot_as_root_does_not_warn_about_its_built_in_opponents() {
    if !common::strict_ready() || !durak_referee::isolation::running_as_root() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    sh_bot(dir.path(), &GOOD);
    let out = durak(
        &[
            "check-bot",
            "--sandbox",
            "strict",
            "--variant",
            "podkidnoy",
            "--games",
            "1",
            "--long",
            "0",
            "--cwd",
            dir.path().to_str().unwrap(),
            "sh bot.sh",
        ],
        &repo(),
    );
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        !text(&out.stderr).contains("without a sandbox"),
        "{}",
        text(&out.stderr)
    );
    // Without the sandbox, the warning is there, and says what it is about.
    let out = durak(
        &[
            "check-bot",
            "--games",
            "0",
            "--long",
            "0",
            "--variant",
            "podkidnoy",
            "--cwd",
            dir.path().to_str().unwrap(),
            "sh bot.sh",
        ],
        &repo(),
    );
    assert!(
        text(&out.stderr)
            .contains("bots other than the built-in ones run as root without a sandbox"),
        "{}",
        text(&out.stderr)
    );
}
