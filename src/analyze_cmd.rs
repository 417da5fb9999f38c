//! `durak analyze REPLAY [--json]` (issue 26): the exact value of every decision of a game's
//! endgame, its blunders and a summary. The work is in `durak_replay::analyze` (on top of the
//! rules crate's solver, `durak_rules::solve`); this module reads the flags and prints.
//!
//! Exit status: 0 when analysed, 2 for bad input (a missing file, not a replay).

use crate::CmdResult;
use clap::Args;
use durak_replay::analyze::{analyze_with, to_json, to_text};
use durak_replay::{read_replay, simulate};
use durak_rules::solve::{Solver, DEFAULT_BUDGET};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct AnalyzeArgs {
    /// The replay file (one game, as written by `durak play --replay-dir` or `durak tournament`).
    replay: PathBuf,
    /// One JSON document on stdout instead of the table (fields: docs/COMMANDS.md).
    #[arg(long)]
    json: bool,
    /// Positions the solver may search per position it values before it says "not solved" (a
    /// decision is valued through each of its choices; a count, not a time: the analysis is the
    /// same on every machine).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    budget: u64,
}

pub fn run(args: AnalyzeArgs) -> CmdResult {
    let replay = read_replay(&args.replay).map_err(|e| e.to_string())?;
    let sim = simulate(&replay);
    let analysis = analyze_with(&sim, &mut Solver::new(args.budget));
    let mut out = std::io::stdout().lock();
    let io = |e: std::io::Error| format!("cannot write to stdout: {e}");
    if args.json {
        let text = serde_json::to_string_pretty(&to_json(&analysis)).expect("json");
        writeln!(out, "{text}").map_err(io)?;
    } else {
        write!(out, "{}", to_text(&analysis)).map_err(io)?;
    }
    Ok(ExitCode::SUCCESS)
}
