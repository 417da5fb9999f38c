//! Issue 11, "Memory limits that real languages survive": bots in runtimes that reserve far more
//! address space than they use — a plain JVM (`java -cp DIR Bot`, no flag), Go and Node.js —
//! play a 200-game match against builtin:random under the default limits (a 2 GiB memory
//! cgroup for all the bot's processes, no address-space limit; where no cgroup can be used, the
//! 4 GiB address-space fallback) in both sandbox modes without a fault. Under the old 4 GiB
//! address-space limit the JVM died about once per 100 games. That they pass `durak check-bot` and
//! play a tournament is the workspace's `tests/runtimes.rs`.
//!
//! Each bot is built from `sample-bots/` into a temporary directory (`common/runtimes.rs`). A
//! missing runtime is SKIPPED with a note naming its Debian package
//! (`common::require_interpreter`), unless `CI` or `DURAK_REQUIRE_SYSTEM_TESTS` is set: then it
//! fails (`.ci/run` installs them).

mod common;

use common::modes::both_modes;
use common::runtimes::{go_bot, java_bot, node_bot, Bot};
use common::{builtin, strict_ready};
use durak_protocol::Limits;
use durak_referee::{
    play_match, BotCommand, MatchConfig, PlannedGame, ResourceLimits, Sandbox, SeatSpec,
};
use durak_rules::Variant;
use serde_json::Value;

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

fn jvm_plays_200_games(sandbox: Sandbox) {
    plays_200_games(java_bot(), sandbox);
}
fn go_plays_200_games(sandbox: Sandbox) {
    plays_200_games(go_bot(), sandbox);
}
fn node_plays_200_games(sandbox: Sandbox) {
    plays_200_games(node_bot(), sandbox);
}

both_modes!(
    jvm_plays_200_games,
    go_plays_200_games,
    node_plays_200_games
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
