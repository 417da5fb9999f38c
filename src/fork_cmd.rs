//! `durak fork REPLAY --step N [--replay-dir D] BOT...` (issue 26): play a recorded game on from
//! step N with the given bots, one per seat, into a new replay dealt from the same deck. The work
//! is in `durak_checkbot::fork`; this module reads the flags and prints.
//!
//! Exit status: 0 when the fork was played, 2 for bad input (a missing file, a replay that does
//! not verify, a step that is not a decision, the wrong number of bots).

use crate::CmdResult;
use clap::Args;
use durak_checkbot::fork::{default_dir, default_prefix, fork, seat_limits};
use durak_referee::{BotCommand, SeatSpec};
use durak_replay::{read_replay, simulate, Header};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ForkArgs {
    /// The replay file.
    replay: PathBuf,
    /// The step live play starts at (as `durak replay` numbers them): steps before it are
    /// played as recorded.
    #[arg(long, value_name = "N")]
    step: usize,
    /// Where the forked replay goes [default: ./forks]
    #[arg(long, value_name = "DIR")]
    replay_dir: Option<PathBuf>,
    /// One JSON document on stdout instead of text (fields: docs/COMMANDS.md).
    #[arg(long)]
    json: bool,
    /// One bot per seat, in seat order: a command line quoted as one argument ("python3
    /// my_bot.py") or builtin:NAME. Relative paths are resolved against the current directory.
    #[arg(value_name = "BOT", num_args = 1.., required = true)]
    bots: Vec<String>,
}

/// The seats of a fork: each command (resolved against `cwd`), named after it, with the limits
/// the replay recorded for its seat.
pub fn seat_specs(h: &Header, bots: &[String], cwd: &Path) -> CmdResult<Vec<SeatSpec>> {
    bots.iter()
        .enumerate()
        .map(|(seat, spec)| {
            let mut command = BotCommand::parse(spec)?;
            if !spec.starts_with("builtin:") {
                command.cwd = Some(cwd.to_path_buf());
                command.check_exists()?;
            }
            Ok(SeatSpec {
                name: spec.clone(),
                command,
                limits: seat_limits(h, seat),
            })
        })
        .collect()
}

pub fn run(args: ForkArgs) -> CmdResult {
    let replay = read_replay(&args.replay).map_err(|e| e.to_string())?;
    let sim = simulate(&replay);
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let seats = seat_specs(&sim.header, &args.bots, &cwd)?;
    let dir = args.replay_dir.unwrap_or_else(default_dir);
    let prefix = default_prefix(&args.replay, args.step);
    let rt = crate::runtime_current_thread()?;
    let f = rt.block_on(fork(&sim, args.step, seats, &dir, &prefix))?;
    let source = args.replay.display().to_string();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&f.to_json(&source)).expect("json")
        );
    } else {
        print!("{}", f.to_text(&source));
    }
    Ok(ExitCode::SUCCESS)
}
