//! `durak regress DIR --bot NAME "NEW COMMAND"` (issue 26): would a new version of a bot have
//! saved the games the old one lost? For every game NAME lost in tournament DIR, `durak analyze`
//! finds NAME's first blunder (`durak_replay::analyze`); the new command takes NAME's seat from
//! that step on, the other seats keep their bots (`durak_checkbot::fork`), and the fork's result
//! is compared: a win or a draw instead of the loss is a game saved.
//!
//! Every bot of the forks runs in the tournament's own isolation (its sandbox, unless
//! `--sandbox`, and its resource limits, from `DIR/tournament.toml`), as in the tournament.
//!
//! Exit status: 0 when every fork was played (whatever they gave), 2 for bad input (not a
//! tournament directory, a bot not in it, a new command that does not exist).

use crate::error::bad_input;
use crate::CmdResult;
use clap::Args;
use durak_checkbot::fork::{default_prefix, fork};
use durak_referee::{BotCommand, SeatSpec};
use durak_replay::analyze::analyze_with;
use durak_replay::{read_replay, simulate};
use durak_rules::solve::{Solver, DEFAULT_BUDGET};
use durak_tournaments::results::TournamentDir;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct RegressArgs {
    /// The tournament directory (as written by `durak tournament`).
    dir: PathBuf,
    /// The bot whose lost games are played again, by its name in the tournament.
    #[arg(long, value_name = "NAME")]
    bot: String,
    /// The new version's command line, quoted as one argument ("python3 my_bot_v2.py"), or
    /// builtin:NAME; relative paths from the current directory.
    #[arg(value_name = "NEW_COMMAND")]
    command: String,
    /// Where the forked replays go [default: ./regress]
    #[arg(long, value_name = "DIR")]
    replay_dir: Option<PathBuf>,
    /// One JSON document on stdout instead of text (fields: docs/COMMANDS.md).
    #[arg(long)]
    json: bool,
    /// The solver's budget per position (as `durak analyze --budget`).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    budget: u64,
    /// Isolation of every bot of the forks (the new command and the others): `default` or
    /// `strict` (docs/SECURITY.md) [default: the tournament's own, from DIR/tournament.toml].
    /// The resource limits are the tournament's own.
    #[arg(long, value_name = "default|strict")]
    sandbox: Option<durak_referee::Sandbox>,
}

/// One lost game and what became of it.
struct Lost {
    id: u64,
    replay: PathBuf,
    seat: usize,
    /// The first blunder's step (`None`: no blunder found, nothing forked).
    step: Option<usize>,
    /// The fork: its replay, the loser and the draw flag.
    fork: Option<(Option<PathBuf>, Option<usize>, bool)>,
}

impl Lost {
    fn saved(&self) -> bool {
        matches!(self.fork, Some((_, loser, draw)) if draw || loser != Some(self.seat))
    }

    fn outcome(&self) -> &'static str {
        match self.fork {
            None => "not forked (no blunder in the endgame)",
            Some((_, _, true)) => "saved: a draw",
            Some((_, Some(l), false)) if l == self.seat => "lost again",
            Some(_) => "saved: a win",
        }
    }
}

fn new_command(spec: &str) -> CmdResult<BotCommand> {
    let mut c = BotCommand::parse(spec)?;
    if !spec.starts_with("builtin:") {
        c.cwd = Some(
            std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?,
        );
        c.check_exists()?;
    }
    Ok(c)
}

pub fn run(args: RegressArgs) -> CmdResult {
    let (tdir, t) = TournamentDir::open(&args.dir, true)?;
    let names: Vec<&str> = t.bots.iter().map(|b| b.name.as_str()).collect();
    if !names.contains(&args.bot.as_str()) {
        return Err(bad_input!(
            "--bot {:?}: no such bot in {} (its bots: {})\n  fix: give one of these names",
            args.bot,
            args.dir.display(),
            names.join(", ")
        ));
    }
    // The bots play as they did in the tournament: its sandbox (unless --sandbox) and limits.
    let (_, settings) = tdir.recorded()?;
    let sandbox = args.sandbox.unwrap_or(settings.sandbox);
    if sandbox == durak_referee::Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()?;
    }
    durak_referee::isolation::harden_referee();
    let isolate = |c: BotCommand| {
        let mut c = c.with_sandbox(sandbox);
        c.isolation.limits = settings.limits;
        c
    };
    let new = isolate(new_command(&args.command)?);
    let results = tdir.read_results()?;
    let out_dir = args
        .replay_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("regress"));
    let rt = crate::runtime_current_thread()?;
    let mut solver = Solver::new(args.budget);
    let mut lost = Vec::new();
    for line in &results.lines {
        let Some(seat) = line.seats.iter().position(|s| *s == args.bot) else {
            continue;
        };
        if line.draw || line.loser != Some(seat) {
            continue;
        }
        let Some(rel) = &line.replay else { continue };
        let replay = tdir.path.join(rel);
        let sim = simulate(&read_replay(&replay).map_err(|e| e.to_string())?);
        let analysis = analyze_with(&sim, &mut solver);
        let step = analysis.seats[seat].first_blunder;
        let mut game = Lost {
            id: line.id,
            replay,
            seat,
            step,
            fork: None,
        };
        if let (Some(step), true) = (step, sim.verified()) {
            let seats =
                line.seats
                    .iter()
                    .enumerate()
                    .map(|(s, name)| {
                        let bot =
                            t.bots.iter().find(|b| b.name == *name).ok_or_else(|| {
                                format!("game {}: no bot named {name:?}", line.id)
                            })?;
                        let command = if s == seat {
                            new.clone()
                        } else {
                            isolate(bot.bot_command()?)
                        };
                        Ok(SeatSpec {
                            name: if s == seat {
                                args.command.clone()
                            } else {
                                name.clone()
                            },
                            command,
                            limits: bot.limits,
                        })
                    })
                    .collect::<CmdResult<Vec<_>>>()?;
            let prefix = default_prefix(&game.replay, step);
            let f = rt.block_on(fork(&sim, step, seats, &out_dir, &prefix))?;
            game.fork = Some((f.record.replay.clone(), f.record.loser, f.record.draw));
        }
        lost.push(game);
    }
    print_report(&args, &lost)?;
    Ok(ExitCode::SUCCESS)
}

fn print_report(args: &RegressArgs, lost: &[Lost]) -> CmdResult<()> {
    let forked = lost.iter().filter(|g| g.fork.is_some()).count();
    let saved: Vec<&Lost> = lost.iter().filter(|g| g.saved()).collect();
    let path = |p: &Path| p.display().to_string();
    if args.json {
        let games: Vec<_> = lost
            .iter()
            .map(|g| {
                json!({
                    "id": g.id,
                    "replay": path(&g.replay),
                    "seat": g.seat,
                    "first_blunder": g.step,
                    "fork": g.fork.as_ref().map(|(p, loser, draw)| json!({
                        "replay": p.as_deref().map(path),
                        "loser": loser,
                        "draw": draw,
                    })),
                    "saved": g.saved(),
                })
            })
            .collect();
        let doc = json!({
            "dir": path(&args.dir),
            "bot": args.bot,
            "command": args.command,
            "lost": lost.len(),
            "forked": forked,
            "saved": saved.len(),
            "wins": saved.iter().filter(|g| g.fork.as_ref().is_some_and(|f| !f.2)).count(),
            "draws": saved.iter().filter(|g| g.fork.as_ref().is_some_and(|f| f.2)).count(),
            "games": games,
        });
        println!("{}", serde_json::to_string_pretty(&doc).expect("json"));
        return Ok(());
    }
    let mut o = format!(
        "durak regress: {} lost {} games in {}; {forked} had a blunder in the endgame, where \
         {:?} took the seat\n",
        args.bot,
        lost.len(),
        args.dir.display(),
        args.command
    );
    for g in lost {
        let at = g.step.map_or(String::new(), |s| format!(" from step {s}"));
        o.push_str(&format!(
            "  game {} (seat {}){at}: {}",
            g.id,
            g.seat,
            g.outcome()
        ));
        if let Some((Some(p), _, _)) = &g.fork {
            o.push_str(&format!("  {}", path(p)));
        }
        o.push('\n');
    }
    o.push_str(&format!(
        "saved {} of {} lost games ({forked} forked)\n",
        saved.len(),
        lost.len()
    ));
    print!(
        "{}",
        durak_protocol::text::escape_controls_multiline(&o).into_owned()
    );
    Ok(())
}
