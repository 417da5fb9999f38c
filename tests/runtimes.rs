//! Issue 11, "Memory limits that real languages survive": bots in runtimes that reserve far more
//! address space than they use — a plain JVM (`java -cp DIR Bot`, no flag), Go and Node.js —
//! play a 200-game match against builtin:random under the default limits (a 2 GiB memory
//! cgroup for all the bot's processes, no address-space limit; where no cgroup can be used, the
//! 4 GiB address-space fallback) in both sandbox modes without a fault, and pass `durak
//! check-bot`. Under the old 4 GiB address-space limit the JVM died about once per 100 games.
//!
//! Each bot is built from `sample-bots/` into a temporary directory (javac, go build). A missing
//! runtime is SKIPPED with a note naming its Debian package (`common::require_interpreter`),
//! unless `CI` or `DURAK_REQUIRE_SYSTEM_TESTS` is set: then it fails (`.ci/run` installs them).

mod common;

use common::modes::both_modes;
use common::{builtin, durak, require_interpreter, strict_ready, text};
use durak_protocol::Limits;
use durak_referee::{
    play_match, BotCommand, MatchConfig, PlannedGame, ResourceLimits, Sandbox, SeatSpec,
};
use durak_rules::Variant;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A directory for one runtime's build, made afresh in cargo's temporary directory for tests,
/// readable by others (strict mode as root runs the bot under another uid).
fn build_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("runtimes-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// A built bot: the command line that runs it, the name it says in its hello, and the directory
/// it was built in (a tournament runs it from there).
#[derive(Clone, Debug)]
struct Bot {
    command: String,
    name: &'static str,
    dir: PathBuf,
}

/// `sample-bots/java/Bot.java`, built with `javac -d DIR`, run as a plain `java -cp DIR Bot`.
/// Built once per test process.
fn java_bot() -> Option<Bot> {
    let javac = require_interpreter("javac", "default-jdk-headless")?;
    let java = require_interpreter("java", "default-jdk-headless")?;
    static BUILT: OnceLock<Bot> = OnceLock::new();
    let bot = BUILT.get_or_init(|| {
        let dir = build_dir("java");
        let out = Command::new(javac)
            .args(["-Xlint:all", "-Werror", "-d"])
            .arg(&dir)
            .arg(repo().join("sample-bots/java/Bot.java"))
            .output()
            .expect("javac runs");
        assert!(out.status.success(), "javac: {}", text(&out.stderr));
        assert!(dir.join("Bot.class").is_file());
        Bot {
            command: format!("{} -cp {} Bot", java.display(), dir.display()),
            name: "java-sample",
            dir,
        }
    });
    Some(bot.clone())
}

/// `sample-bots/go/bot.go`, built with `go build` (standard library only: nothing is
/// downloaded, `GOPROXY=off`; the build cache is kept in cargo's temporary directory).
fn go_bot() -> Option<Bot> {
    let go = require_interpreter("go", "golang-go")?;
    static BUILT: OnceLock<Bot> = OnceLock::new();
    let bot = BUILT.get_or_init(|| {
        let dir = build_dir("go");
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-cache");
        let exe = dir.join("go-bot");
        let out = Command::new(go)
            .args(["build", "-o"])
            .arg(&exe)
            .arg(".")
            .current_dir(repo().join("sample-bots/go"))
            .env("GOCACHE", cache.join("build"))
            .env("GOPATH", cache.join("path"))
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GOFLAGS", "")
            .output()
            .expect("go runs");
        assert!(out.status.success(), "go build: {}", text(&out.stderr));
        assert!(exe.is_file());
        Bot {
            command: exe.display().to_string(),
            name: "go-sample",
            dir,
        }
    });
    Some(bot.clone())
}

/// `sample-bots/js/random_bot.js` under Node.js.
fn node_bot() -> Option<Bot> {
    let node = require_interpreter("node", "nodejs")?;
    let dir = repo().join("sample-bots/js");
    Some(Bot {
        command: format!("{} {}", node.display(), dir.join("random_bot.js").display()),
        name: "random-js",
        dir,
    })
}

/// 200 podkidnoy games against builtin:random, one bot process for the whole match, under the
/// default resource limits: not a game may have a fault. The time limits are raised (the test
/// machine is shared and noisy; time is not what this test is about).
fn plays_200_games(bot: Option<Bot>, sandbox: Sandbox) {
    let Some(bot) = bot else { return };
    let seat = SeatSpec {
        name: bot.name.into(),
        command: BotCommand::parse(&bot.command)
            .unwrap()
            .with_sandbox(sandbox),
        limits: Limits {
            startup_ms: 30_000,
            move_ms: 10_000,
            ..Limits::default()
        },
    };
    assert_eq!(
        seat.command.isolation.limits,
        ResourceLimits::default(),
        "the default limits: a 2 GiB memory cgroup, no address-space limit"
    );
    assert_eq!(seat.command.isolation.limits.address_space, None);
    let replays = tempfile::tempdir().unwrap();
    let r = common::run(vec![seat, builtin("random", sandbox)], 200, replays.path());
    assert_eq!(r.games.len(), 200);
    assert_eq!(r.seats[0].bot_name.as_deref(), Some(bot.name), "{r:?}");
    let faulted: Vec<String> = r
        .games
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.faults.is_empty())
        .map(|(i, g)| format!("game {i}: {:?}", g.faults))
        .collect();
    assert!(
        faulted.is_empty(),
        "{} ({sandbox:?}) faulted in {} of 200 games:\n{}",
        bot.command,
        faulted.len(),
        faulted.join("\n")
    );
    assert!(
        r.games.iter().any(|g| g.loser == Some(0)) && r.games.iter().any(|g| g.loser == Some(1)),
        "real games were played, each seat lost some"
    );
}

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

fn jvm_plays_200_games(sandbox: Sandbox) {
    plays_200_games(java_bot(), sandbox);
}
fn go_plays_200_games(sandbox: Sandbox) {
    plays_200_games(go_bot(), sandbox);
}
fn node_plays_200_games(sandbox: Sandbox) {
    plays_200_games(node_bot(), sandbox);
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
    jvm_plays_200_games,
    go_plays_200_games,
    node_plays_200_games,
    jvm_passes_check_bot,
    go_passes_check_bot,
    node_passes_check_bot,
);

/// The moves of each game of `bot` against builtin:greedy over the deals `seeds` (the replays'
/// `move` lines, timings left out).
fn moves(bot: &Bot, variant: Variant, seeds: &[u64]) -> Vec<Vec<String>> {
    let replays = tempfile::tempdir().unwrap();
    let seat = SeatSpec {
        name: bot.name.into(),
        command: BotCommand::parse(&bot.command).unwrap(),
        limits: builtin("greedy", Sandbox::Default).limits,
    };
    let mut cfg = MatchConfig::new(
        variant,
        vec![seat, builtin("greedy", Sandbox::Default)],
        seeds.len() as u32,
        0,
    );
    cfg.plan = Some(
        seeds
            .iter()
            .enumerate()
            .map(|(i, &seed)| PlannedGame {
                index: i as u32,
                seed,
                dealer: Some(i % 2),
                first_game: i == 0,
            })
            .collect(),
    );
    cfg.replay_dir = Some(replays.path().to_path_buf());
    let r = common::runtime()
        .block_on(play_match(&cfg, |_| {}))
        .unwrap();
    r.games
        .iter()
        .map(|g| {
            assert!(g.faults.is_empty(), "{g:?}");
            std::fs::read_to_string(g.replay.as_ref().unwrap())
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|v| v["type"] == "move")
                .map(|v| format!("{} {}", v["seat"], v["move"]))
                .collect()
        })
        .collect()
}

/// The bot's game depends only on its deal, not on what it played before (the Go bot's random
/// numbers are seeded by its deal; the Java bot uses none): the same deal after two different
/// first games gives the same moves, so tournaments and their resumes are reproducible.
fn same_deal_same_game(bot: Option<Bot>) {
    let Some(bot) = bot else { return };
    for variant in [Variant::Prostoy, Variant::Podkidnoy] {
        let a = moves(&bot, variant, &[100, 200]);
        let b = moves(&bot, variant, &[300, 200]);
        assert_ne!(a[0], b[0], "different deals, different games");
        assert!(a[1].len() > 10, "{:?}", a[1]);
        assert_eq!(a[1], b[1], "{} in {variant}", bot.command);
    }
}

#[test]
fn the_go_bot_plays_the_same_game_for_the_same_deal() {
    same_deal_same_game(go_bot());
}

#[test]
fn the_java_bot_plays_the_same_game_for_the_same_deal() {
    same_deal_same_game(java_bot());
}

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
