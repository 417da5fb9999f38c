//! Issue 11, "Memory limits that real languages survive": bots in runtimes that reserve far more
//! address space than they use — a plain JVM (`java -cp DIR Bot`, no flag), Go and Node.js — pass
//! `durak check-bot` in both sandbox modes, and a tournament runs the Java and Go bots from their
//! own directories. Their 200-game matches under the default limits are the referee's
//! `referee/tests/runtimes.rs`.
//!
//! Each bot is built from `sample-bots/` into a temporary directory (javac, go build;
//! `referee/tests/common/runtimes.rs`). A missing runtime is SKIPPED with a note naming its
//! Debian package (`common::require_interpreter`), unless `CI` or `DURAK_REQUIRE_SYSTEM_TESTS` is
//! set: then it fails (`.ci/run` installs them).

mod common;

use common::modes::both_modes;
use common::runtimes::{go_bot, java_bot, node_bot, Bot};
use common::{durak, repo, strict_ready, text};
use durak_referee::Sandbox;
use serde_json::Value;

/// `durak check-bot` (both variants, the default) passes every check.
fn passes_check_bot(bot: Option<Bot>, sandbox: Sandbox) {
    let Some(bot) = bot else { return };
    let mode = match sandbox {
        Sandbox::Default => "default",
        Sandbox::Strict => "strict",
    };
    let out = durak(
        &["check-bot", "--json", "--sandbox", mode, &bot.command],
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
        .filter(|c| c["status"] != "pass")
        .map(|c| c.to_string())
        .collect();
    assert!(
        out.status.success() && report["passed"] == true && failed.is_empty(),
        "{} should pass check-bot ({mode}); checks not passed:\n{}",
        bot.command,
        failed.join("\n")
    );
    let text = report.to_string();
    for id in [
        "prostoy-exchange-attack",
        "podkidnoy-cover",
        "games-podkidnoy-3p",
    ] {
        assert!(text.contains(id), "check {id} was run: {text}");
    }
}

fn jvm_passes_check_bot(sandbox: Sandbox) {
    passes_check_bot(java_bot(), sandbox);
}
fn go_passes_check_bot(sandbox: Sandbox) {
    passes_check_bot(go_bot(), sandbox);
}
fn node_passes_check_bot(sandbox: Sandbox) {
    passes_check_bot(node_bot(), sandbox);
}

both_modes!(
    jvm_passes_check_bot,
    go_passes_check_bot,
    node_passes_check_bot
);

/// A tournament configuration runs the Java and Go bots from their own directories, written the
/// way their authors would (`java -cp . Bot`, `./go-bot`).
#[test]
fn a_tournament_runs_the_java_and_go_bots() {
    let (Some(java), Some(go)) = (java_bot(), go_bot()) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let java_exe = java.command.split(' ').next().unwrap();
    let config = format!(
        "[tournament]\nvariant = \"prostoy\"\ngames = 3\nseed = 5\nconcurrency = 1\n\n\
         [[bot]]\nname = \"java\"\ncommand = \"{java_exe} -cp . Bot\"\ncwd = \"{}\"\n\n\
         [[bot]]\nname = \"go\"\ncommand = \"./go-bot\"\ncwd = \"{}\"\n\n\
         [[bot]]\nname = \"random\"\ncommand = \"builtin:random\"\n",
        java.dir.display(),
        go.dir.display()
    );
    std::fs::write(tmp.path().join("t.toml"), config).unwrap();
    let out = durak(
        &["tournament", "-c", "t.toml", "--out", "out", "--json"],
        tmp.path(),
    );
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let lines = std::fs::read_to_string(tmp.path().join("out/results.jsonl")).unwrap();
    let results: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // 3 pairs × 2 seatings × 3 deals.
    assert_eq!(results.len(), 18, "{lines}");
    for r in &results {
        assert_eq!(r["faults"], serde_json::json!([]), "{r}");
    }
    let seated: std::collections::BTreeSet<&str> = results
        .iter()
        .flat_map(|r| r["seats"].as_array().unwrap())
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(
        seated.into_iter().collect::<Vec<_>>(),
        ["go", "java", "random"]
    );
}
