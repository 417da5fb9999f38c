//! The game page's compact data decodes, in the page's own script (`viewer.js`, run by node), to
//! exactly the views the text and terminal viewers show (`step_view(..).escaped()`), field by
//! field, for the full view and every seat's view, at every step: on every fixture replay and
//! on fresh games of both variants at every table size. So the compact encoding loses nothing,
//! the script's bookkeeping (cards moving between hands, table, stock and discard) agrees with
//! the rules engine, and its words are the Rust views' words.
//!
//! The size of a page (at most 15 KB, issue 13) is checked in replay/tests/html.rs and tests/report.rs.
//!
//! Without node the tests are skipped with a note (tests/common/system.rs); CI requires it.

mod common;

use durak_replay::html::data::game_data;
use durak_replay::view::{all_views, step_view, StepView};
use durak_replay::{read_replay, simulate, Simulation};
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
