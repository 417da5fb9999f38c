//! Issue 15: the starter kits for compiled languages (`starter-kits/`). Each kit is copied, built
//! by its own `bot.toml` (`durak submit .` runs `build`, then check-bot with a long match) and
//! must pass. The TypeScript kit's types are checked against the protocol: every example of
//! docs/PROTOCOL.md (each valid under its schema, `protocol/tests/docs_examples.rs`), every line
//! the referee sends in whole games and the bots' answers, a few messages the schemas refuse,
//! and every field the schemas name. A kit whose compiler is missing is skipped with a note (a
//! failure under CI, whose `.ci/run` installs them).

mod common;

use common::{durak, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of `starter-kits/NAME` in a fresh directory: `(tmp, tmp/NAME)`.
fn copy_kit(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new("cp")
        .arg("-r")
        .arg(repo().join("starter-kits").join(name))
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dir = tmp.path().join(name);
    (tmp, dir)
}

/// `durak submit .` inside the kit: it builds, passes check-bot (with a long match) and is
/// registered.
fn submit_passes(name: &str) {
    let (tmp, dir) = copy_kit(name);
    let out = durak(
        &[
            "submit",
            ".",
            "-t",
            "../t.toml",
            "--games",
            "1",
            "--long",
            "30",
        ],
        &dir,
    );
    let report = text(&out.stdout);
    assert!(
        out.status.success() && report.contains("PASSED"),
        "the {name} kit: {report}\n{}",
        text(&out.stderr)
    );
    assert!(report.contains("✓ 30 games in one process"), "{report}");
    let config = std::fs::read_to_string(tmp.path().join("t.toml")).unwrap();
    assert!(config.contains(&format!("cwd = \"{name}\"")), "{config}");
}

#[test]
fn the_java_kit_builds_and_passes() {
    if common::require("javac", "default-jdk-headless").is_none()
        || common::require("java", "default-jdk-headless").is_none()
    {
        return;
    }
    submit_passes("java");
}

#[test]
fn the_cpp_kit_builds_and_passes() {
    if common::require("g++", "g++").is_none()
        || common::require_with("nlohmann-json", "nlohmann-json3-dev", || {
            let p = PathBuf::from("/usr/include/nlohmann/json.hpp");
            if p.exists() {
                Ok(p)
            } else {
                Err("no /usr/include/nlohmann/json.hpp".into())
            }
        })
        .is_none()
    {
        return;
    }
    submit_passes("cpp");
}

#[test]
fn the_typescript_kit_builds_and_passes() {
    if common::require("node", "nodejs").is_none()
        || common::require("tsc", "node-typescript").is_none()
    {
        return;
    }
    submit_passes("typescript");
}

// ----- the TypeScript types against the protocol ---------------------------------------------

/// The labeled JSON examples of docs/PROTOCOL.md: (schema name, text).
fn doc_examples() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(repo().join("docs/PROTOCOL.md")).unwrap();
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let label = lines[i]
            .trim()
            .strip_prefix("<!-- schema:")
            .and_then(|r| r.strip_suffix("-->"))
            .map(|s| s.trim().to_string());
        if let (Some(label), Some(next)) = (label, lines.get(i + 1)) {
            if next.trim() == "```json" {
                let mut body = Vec::new();
                let mut j = i + 2;
                while lines[j].trim() != "```" {
                    body.push(lines[j]);
                    j += 1;
                }
                out.push((label, body.join("\n")));
                i = j;
            }
        }
        i += 1;
    }
    out
}

/// Every line the referee wrote to each seat, and the bots' answers, in whole games of both
/// variants (rebuilt from the replays by `durak replay --raw`).
fn real_lines(dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut to_bot = Vec::new();
    let mut from_bot = Vec::new();
    for (variant, bots) in [
        (
            "podkidnoy",
            vec!["builtin:random", "builtin:greedy", "builtin:random"],
        ),
        ("prostoy", vec!["builtin:greedy", "builtin:random"]),
    ] {
        let replays = dir.join(format!("replays-{variant}"));
        let mut args = vec![
            "play",
            "--variant",
            variant,
            "--games",
            "3",
            "--seed",
            "4",
            "--replay-dir",
            replays.to_str().unwrap(),
        ];
        args.extend(bots.iter().copied());
        let out = durak(&args, dir);
        assert!(out.status.success(), "{}", text(&out.stderr));
        for g in 0..3 {
            let file = replays.join(format!("game-{g:04}.jsonl"));
            for seat in 0..bots.len() {
                let out = durak(
                    &[
                        "replay",
                        "--seat",
                        &seat.to_string(),
                        "--raw",
                        file.to_str().unwrap(),
                    ],
                    dir,
                );
                for l in text(&out.stdout).lines() {
                    if let Some(x) = l.strip_prefix("stdin   ") {
                        to_bot.push(x.to_string());
                    } else if let Some(x) = l.strip_prefix("stdout~ ") {
                        from_bot.push(x.to_string());
                    }
                }
            }
        }
    }
    (to_bot, from_bot)
}

/// Every property name the message schemas define (recursively).
fn schema_fields() -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    out.extend(props.keys().cloned());
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for f in std::fs::read_dir(repo().join("schemas")).unwrap().flatten() {
        let name = f.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name == "replay.json" {
            continue;
        }
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f.path()).unwrap()).unwrap();
        walk(&v, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_typescript_types_match_the_protocol() {
    let Some(tsc) = common::require("tsc", "node-typescript") else {
        return;
    };
    let (tmp, dir) = copy_kit("typescript");
    let protocol = std::fs::read_to_string(dir.join("src/protocol.ts")).unwrap();

    // Every field of the schemas is a field of the types.
    let missing: Vec<String> = schema_fields()
        .into_iter()
        .filter(|f| !protocol.contains(&format!("{f}:")) && !protocol.contains(&format!("{f}?:")))
        .collect();
    assert!(
        missing.is_empty(),
        "fields of schemas/ that src/protocol.ts does not declare: {missing:?}"
    );

    // Messages, typed: a wrong or a missing field fails the build.
    let mut ts = String::from(
        "import type { Answer, BotHello, EventMsg, ErrorMsg, FromBot, GameEnd, GameStart, Hello, \
         MatchEnd, Request, ToBot } from \"../src/protocol\";\n",
    );
    let type_of = |schema: &str| match schema {
        "hello" => "Hello",
        "game_start" => "GameStart",
        "event" => "EventMsg",
        "request" => "Request",
        "error" => "ErrorMsg",
        "game_end" => "GameEnd",
        "match_end" => "MatchEnd",
        "answer" => "Answer",
        "bot_hello" => "BotHello",
        other => panic!("an example of an unknown schema {other}"),
    };
    let examples = doc_examples();
    assert!(examples.len() >= 20, "{} examples", examples.len());
    for (i, (schema, json)) in examples.iter().enumerate() {
        ts.push_str(&format!(
            "export const doc{i}: {} = {json};\n",
            type_of(schema)
        ));
    }
    let (to_bot, from_bot) = real_lines(tmp.path());
    assert!(
        to_bot.len() > 500 && !from_bot.is_empty(),
        "{}",
        to_bot.len()
    );
    for kind in [
        "\"game_over\"",
        "\"decision\":\"add\"",
        "\"decision\":\"defend\"",
    ] {
        assert!(
            to_bot.iter().any(|l| l.contains(kind)),
            "no {kind} in the games"
        );
    }
    // One constant each (one array literal of thousands would be too complex a type).
    for (i, l) in to_bot.iter().enumerate() {
        ts.push_str(&format!("export const to{i}: ToBot = {l};\n"));
    }
    for (i, l) in from_bot.iter().enumerate() {
        ts.push_str(&format!("export const from{i}: FromBot = {l};\n"));
    }
    // What the schemas refuse, the types refuse.
    for bad in [
        r#"{"type": "answer", "id": 1, "action": "attack", "cards": ["10S"]}"#,
        r#"{"type": "answer", "id": 1, "action": "pass", "cards": ["6C"]}"#,
        r#"{"type": "answer", "id": 1, "action": "take", "move": "take"}"#,
        r#"{"type": "answer", "action": "pass"}"#,
        r#"{"type": "answer", "id": "1", "action": "pass"}"#,
        r#"{"type": "answer", "id": 1, "action": "fly"}"#,
        r#"{"type": "hello", "protocol": 2, "name": "x", "version": "1"}"#,
    ] {
        ts.push_str(&format!(
            "// @ts-expect-error\nexport const bad{}: FromBot = {bad};\n",
            ts.len()
        ));
    }
    std::fs::create_dir(dir.join("check")).unwrap();
    std::fs::write(dir.join("check/messages.ts"), ts).unwrap();
    std::fs::write(
        dir.join("tsconfig.check.json"),
        r#"{"extends": "./tsconfig.json", "compilerOptions": {"noEmit": true, "rootDir": "."},
            "include": ["src", "check"]}"#,
    )
    .unwrap();
    let out = Command::new(tsc)
        .args(["-p", "tsconfig.check.json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the messages do not type-check against src/protocol.ts:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}
