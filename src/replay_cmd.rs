//! `durak replay` (issue 5): step through, verify or export one replay file. The work is in the
//! `durak-replay` crate; this module parses the flags and picks the output.
//!
//! Exit status: 0 when shown (or verified), 1 when `--verify` finds a difference (the first
//! differing step is printed), 2 for bad input (missing file, not a replay, newer format, a cut
//! or invalid line, a seat or step that does not exist).

use crate::error::bad_input;
use crate::CmdResult;
use clap::Args;
use durak_replay::{read_replay, simulate, text, view, write_html_page};
use durak_tui as tui;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ReplayArgs {
    /// The replay file (one game, JSON lines, as written by `durak play` or `durak tournament`).
    file: PathBuf,
    /// Re-simulate the game from its seed and logged answers with the rules engine and check
    /// every logged line and the result. Exit status 0: verified; 1: the first differing step is
    /// printed.
    #[arg(long)]
    verify: bool,
    /// Write the game as an HTML page to this file, with the viewer's script and styles beside it
    /// (one copy per folder, shared by its pages; no network needed).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Print step N (from 1) as plain text.
    #[arg(long, value_name = "N", conflicts_with = "all")]
    step: Option<usize>,
    /// Print every step as plain text (the default when stdout is not a terminal).
    #[arg(long)]
    all: bool,
    /// Show only what seat N could see at each step (default: every hand).
    #[arg(long, value_name = "N")]
    seat: Option<usize>,
    /// With --seat N: print every line that seat's bot read (stdin), sent (stdout) and wrote on
    /// stderr in this game, rebuilt from the replay (see `durak rerun` to feed them to a bot).
    #[arg(long, requires = "seat")]
    raw: bool,
}

pub fn run(args: ReplayArgs) -> CmdResult {
    let replay = read_replay(&args.file).map_err(|e| e.to_string())?;
    let players = replay.header.players;
    if let Some(s) = args.seat {
        if s >= players {
            return Err(bad_input!(
                "--seat {s}: this game has seats 0 to {}",
                players - 1
            ));
        }
    }
    let sim = simulate(&replay);
    if let (true, Some(seat)) = (args.raw, args.seat) {
        return crate::rerun_cmd::print_raw(&sim, seat);
    }
    let steps = sim.steps.len();
    if let Some(n) = args.step {
        if n == 0 || n > steps {
            return Err(bad_input!(
                "--step {n}: this game has steps 1 to {steps} (see --all)"
            ));
        }
    }
    let mut out = std::io::stdout().lock();
    let io = |e: std::io::Error| format!("cannot write to stdout: {e}");
    if let Some(path) = &args.html {
        write_html_page(&sim, path).map_err(|e| e.to_string())?;
        writeln!(out, "wrote {} ({steps} steps)", path.display()).map_err(io)?;
    }
    let print_all = args.all
        || (args.step.is_none()
            && args.html.is_none()
            && !args.verify
            && !std::io::stdout().is_terminal());
    if let Some(n) = args.step {
        write!(
            out,
            "{}",
            text::render_step(&view::step_view(&sim, n - 1, args.seat))
        )
        .map_err(io)?;
    } else if print_all {
        writeln!(out, "{}", text::summary(&sim)).map_err(io)?;
        for i in 0..steps {
            writeln!(out).map_err(io)?;
            write!(
                out,
                "{}",
                text::render_step(&view::step_view(&sim, i, args.seat))
            )
            .map_err(io)?;
        }
    }
    if args.verify {
        writeln!(out, "{}", text::verdict(&sim)).map_err(io)?;
        return Ok(if sim.verified() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if let Some(d) = &sim.divergence {
        // The difference may quote the file's text.
        eprintln!(
            "warning: {} differs from the re-simulation at {}; it is shown as far as the rules \
             engine can follow it (durak replay --verify for the report)",
            sim.source,
            durak_protocol::text::escape_controls(&d.to_string())
        );
    }
    let interactive = args.step.is_none() && !print_all && args.html.is_none();
    if interactive {
        drop(out);
        tui::run(&sim, 0, args.seat).map_err(|e| format!("terminal: {e}"))?;
    }
    Ok(ExitCode::SUCCESS)
}
