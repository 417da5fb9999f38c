//! The game page's compact data decodes, in the page's own script (`viewer.js`, run by node), to
//! exactly the views the text and terminal viewers show (`step_view(..).escaped()`), field by
//! field, for the full view and every seat's view, at every step: on every fixture replay and
//! on fresh games of both variants at every table size. So the compact encoding loses nothing,
//! the script's bookkeeping (cards moving between hands, table, stock and discard) agrees with
//! the rules engine, and its words are the Rust views' words.
//!
//! The size of a page (at most 15 KB, issue 13) is checked in replay/tests/html.rs and tests/report.rs.
//!
//! Pages made with a game's endgame analysis (issue 26) hold its values: the script reads, at
//! every step, the value, the value after the move, the blunder and the best choices the analysis
//! gives.
//!
//! Without node the tests are skipped with a note (referee/tests/common/system.rs); CI requires it.

mod common;

use durak_replay::analyze::analyze_with;
use durak_replay::html::data::{endgame_codes, game_data};
use durak_replay::view::{all_views, move_text, step_view, StepView};
use durak_replay::{read_replay, simulate, Simulation};
use durak_rules::solve::{Solver, Value as SolveValue};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> Vec<PathBuf> {
    let dir = root().join("replay/tests/data");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "the fixtures: {v:?}");
    v
}

/// Fresh games: prostoy at 2 to 4 seats, podkidnoy at 2 to 6, a few of each.
fn fresh_games(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (variant, seats) in [("prostoy", 2..=4), ("podkidnoy", 2..=6)] {
        for n in seats {
            let replays = dir.join(format!("{variant}-{n}"));
            let bots: Vec<&str> = (0..n)
                .map(|i| {
                    if i % 2 == 0 {
                        "builtin:greedy"
                    } else {
                        "builtin:random"
                    }
                })
                .collect();
            let o = Command::new(DURAK)
                .args(["play", "--variant", variant, "--games", "3", "--seed"])
                .arg((40 + n).to_string())
                .arg("--replay-dir")
                .arg(&replays)
                .args(&bots)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            for g in 0..3 {
                out.push(replays.join(format!("game-{g:04}.jsonl")));
            }
        }
    }
    out
}

/// What node's viewer.js decodes from `sim`'s data: one list of views per viewer (full, then
/// each seat).
fn decoded(node: &Path, sim: &Simulation, scratch: &Path) -> Vec<Vec<Value>> {
    let views: Vec<StepView> = all_views(sim, None).iter().map(StepView::escaped).collect();
    let data = serde_json::to_string(&game_data(sim, &views)).unwrap();
    let data_path = scratch.join("data.json");
    std::fs::write(&data_path, data).unwrap();
    let script = format!(
        "const v = require({:?}); const D = JSON.parse(require('fs').readFileSync({:?}, 'utf8'));\n\
         const out = [v.views(D, null)]; for (let s = 0; s < D.players; s++) out.push(v.views(D, s));\n\
         process.stdout.write(JSON.stringify(out));",
        root().join("replay/src/page/viewer.js"),
        data_path
    );
    let o = Command::new(node).arg("-e").arg(script).output().unwrap();
    assert!(
        o.status.success(),
        "{}: node: {}",
        sim.source,
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn want(sim: &Simulation, i: usize, viewer: Option<usize>) -> Value {
    let mut v = serde_json::to_value(step_view(sim, i, viewer).escaped()).unwrap();
    // The page writes the time in words only (`timing`).
    v.as_object_mut().unwrap().remove("elapsed_ms");
    v
}

fn check(node: &Path, path: &Path, scratch: &Path) {
    let sim = simulate(&read_replay(path).unwrap());
    let got = decoded(node, &sim, scratch);
    assert_eq!(got.len(), sim.header.players + 1);
    for (vi, views) in got.iter().enumerate() {
        let viewer = vi.checked_sub(1);
        assert_eq!(views.len(), sim.steps.len());
        for (i, got) in views.iter().enumerate() {
            let want = want(&sim, i, viewer);
            if *got != want {
                let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
                let differ: Vec<String> = w
                    .iter()
                    .filter(|(k, v)| g.get(*k) != Some(v))
                    .map(|(k, v)| format!("{k}: page {:?}, views {v}", g.get(k)))
                    .chain(
                        g.keys()
                            .filter(|k| !w.contains_key(*k))
                            .map(|k| format!("{k}: only in the page")),
                    )
                    .collect();
                panic!(
                    "{} step {} viewer {viewer:?}:\n  {}",
                    path.display(),
                    i + 1,
                    differ.join("\n  ")
                );
            }
        }
    }
}

#[test]
fn the_page_decodes_to_the_views_of_every_fixture() {
    let Some(node) = common::require("node", "nodejs") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    for f in fixtures() {
        check(&node, &f, scratch.path());
    }
}

#[test]
fn the_page_decodes_to_the_views_of_fresh_games() {
    let Some(node) = common::require("node", "nodejs") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    for f in fresh_games(scratch.path()) {
        check(&node, &f, scratch.path());
    }
}

/// What node's viewer.js reads of the endgame's values (issue 26) in a page made with `eg`.
fn decoded_endgame(node: &Path, sim: &Simulation, eg: Vec<String>, scratch: &Path) -> Vec<Value> {
    let views: Vec<StepView> = all_views(sim, None).iter().map(StepView::escaped).collect();
    let mut data = game_data(sim, &views);
    data.eg = eg;
    let data_path = scratch.join("data-eg.json");
    std::fs::write(&data_path, serde_json::to_string(&data).unwrap()).unwrap();
    let script = format!(
        "const v = require({:?}); const D = JSON.parse(require('fs').readFileSync({:?}, 'utf8'));\n\
         process.stdout.write(JSON.stringify(v.endgame(D)));",
        root().join("replay/src/page/viewer.js"),
        data_path
    );
    let o = Command::new(node).arg("-e").arg(script).output().unwrap();
    assert!(
        o.status.success(),
        "node: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Issue 26: a page made with the game's analysis gives, at every step of the solved part, the
/// seat deciding, its value before and after the move, whether the move was a blunder and (for
/// a blunder) the best choices in the viewers' words; outside it, nothing. On games of the random
/// bot, which blunders.
#[test]
fn the_page_holds_the_endgame_values_of_the_analysis() {
    let Some(node) = common::require("node", "nodejs") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let replays = scratch.path().join("replays");
    let o = Command::new(DURAK)
        .args([
            "play",
            "--variant",
            "podkidnoy",
            "--games",
            "6",
            "--seed",
            "26",
        ])
        .arg("--replay-dir")
        .arg(&replays)
        .args(["builtin:random", "builtin:greedy"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (mut valued, mut blunders) = (0, 0);
    for g in 0..6 {
        let sim = simulate(&read_replay(&replays.join(format!("game-{g:04}.jsonl"))).unwrap());
        // A budget a debug build affords (over it a value is "not solved", `null` here too).
        let a = analyze_with(&sim, &mut Solver::new(300_000));
        let got = decoded_endgame(&node, &sim, endgame_codes(&a), scratch.path());
        assert_eq!(got.len(), sim.steps.len());
        for (i, got) in got.iter().enumerate() {
            let Some(d) = a.at(i + 1) else {
                assert!(got.is_null(), "step {}: {got}", i + 1);
                continue;
            };
            let name = |v: &Result<SolveValue, _>| v.map(|v| v.name()).ok();
            let best: Vec<String> = if d.blunder() {
                let legal = sim.steps[i].legal.as_ref();
                d.best.iter().take(3).map(|m| move_text(m, legal)).collect()
            } else {
                Vec::new()
            };
            let want = serde_json::json!({
                "seat": d.seat,
                "value": name(&d.value),
                "value_after": name(&d.value_after),
                "blunder": d.blunder(),
                "best": best,
            });
            assert_eq!(*got, want, "game {g} step {}", i + 1);
            valued += 1;
            blunders += usize::from(d.blunder());
        }
    }
    assert!(
        valued > 20 && blunders > 0,
        "{valued} valued, {blunders} blunders"
    );
}
