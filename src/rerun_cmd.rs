//! `durak rerun REPLAY --step N BOT` (re-run one decision of a recorded game with a bot, and
//! show its answer beside the recorded one) and `durak replay --seat S --raw` (print the lines
//! that seat's bot read and sent). The work is in `durak_checkbot::rerun` and
//! `durak_replay::raw`.

use crate::CmdResult;
use clap::Args;
use durak_referee::BotCommand;
use durak_replay::{raw, read_replay, simulate, Simulation};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct RerunArgs {
    /// The replay file.
    replay: PathBuf,
    /// The step to re-run (as `durak replay` numbers them): a request to a bot.
    #[arg(long, value_name = "N")]
    step: usize,
    /// The bot: a command line, quoted as one argument ("python3 my_bot.py"), or builtin:NAME.
    /// Several words are joined into one command line.
    #[arg(value_name = "BOT", num_args = 1.., required = true)]
    bot: Vec<String>,
    /// The bot's working directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

/// `durak replay --seat S --raw`: the seat's lines, one per line.
pub fn print_raw(sim: &Simulation, seat: usize) -> CmdResult {
    let lines = raw::transcript(sim, seat).map_err(|e| format!("--seat {seat}: {e}"))?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", raw::to_text(&lines)).map_err(|e| format!("cannot write to stdout: {e}"))?;
    if !sim.verified() {
        eprintln!(
            "warning: {} differs from the re-simulation (durak replay --verify): the lines are \
             rebuilt as far as the rules engine can follow it",
            sim.source
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(args: RerunArgs) -> CmdResult {
    let replay = read_replay(&args.replay).map_err(|e| e.to_string())?;
    let sim = simulate(&replay);
    let spec = args.bot.join(" ");
    let mut cmd = BotCommand::parse(&spec)?;
    if !spec.starts_with("builtin:") {
        let dir = match &args.cwd {
            Some(d) => {
                std::fs::canonicalize(d).map_err(|e| format!("--cwd {}: {e}", d.display()))?
            }
            None => std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        cmd.cwd = Some(dir);
        cmd.check_exists()?;
    }
    let rt = crate::runtime_current_thread()?;
    let r = rt.block_on(durak_checkbot::rerun::rerun(&sim, args.step, &cmd))?;
    print!("{}", r.to_text(&args.replay.display().to_string(), &spec));
    Ok(if r.legal {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
