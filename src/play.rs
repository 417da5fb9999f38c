//! `durak play`: one match (a series, C-10) between 2 to 6 bots.

use crate::error::bad_input;
use crate::CmdResult;
use clap::Args;
use durak_protocol::text::{counted, escape_controls};
use durak_protocol::Limits;
use durak_referee::process::HUMAN;
use durak_referee::{
    play_match_with, BotCommand, GameRecord, MatchConfig, MatchResult, ResourceLimits, Sandbox,
    SeatSpec,
};
use durak_rules::Variant;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Clone, Debug)]
pub struct LimitArgs {
    /// Time limit per decision, in milliseconds.
    #[arg(long, default_value_t = Limits::default().move_ms)]
    move_time_ms: u64,
    /// Time bank per game (an overage reserve), in milliseconds.
    #[arg(long, default_value_t = Limits::default().bank_ms)]
    bank_ms: u64,
    /// Time limit for a bot to start and say hello, in milliseconds.
    #[arg(long, default_value_t = Limits::default().startup_ms)]
    startup_ms: u64,
    /// Longest line a bot may send, in bytes.
    #[arg(long, default_value_t = Limits::default().max_line_bytes)]
    max_line_bytes: usize,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            startup_ms: self.startup_ms,
            move_ms: self.move_time_ms,
            bank_ms: self.bank_ms,
            max_line_bytes: self.max_line_bytes,
        }
    }
}

#[derive(Args)]
pub struct PlayArgs {
    /// prostoy or podkidnoy
    #[arg(long, default_value = "podkidnoy")]
    variant: String,
    /// Series seed: the first dealer and every deck derive from it (default: from the clock,
    /// printed so the match can be replayed).
    #[arg(long)]
    seed: Option<u64>,
    /// Number of games in the series.
    #[arg(long, default_value_t = 1)]
    games: u32,
    #[command(flatten)]
    limits: LimitArgs,
    /// Where replays are written (default: replays/play-SEED).
    #[arg(long)]
    replay_dir: Option<PathBuf>,
    /// Print one JSON document instead of the summary.
    #[arg(long)]
    json: bool,
    /// Isolation of the bot processes: `default` (process group and supervisor, private
    /// directory, cleared environment, resource limits) or `strict` (also bubblewrap: no
    /// network, read-only system, own pid namespace). See docs/SECURITY.md.
    #[arg(long, default_value = "default", value_name = "default|strict")]
    sandbox: Sandbox,
    /// A resource limit of every bot, KEY=VALUE (repeatable): memory, address_space,
    /// cpu_secs_per_game, file_size, open_files, processes, tmp_size; the value a number with K,
    /// M or G, or `unlimited`. Defaults in docs/SECURITY.md.
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    limits_rlimit: Vec<String>,
    #[command(flatten)]
    affinity: crate::AffinityArg,
    /// The human seat in plain lines (a transcript, a `> ` prompt) instead of the full-screen
    /// view: for a screen reader, a log, or moves piped in by a script.
    #[arg(long)]
    plain: bool,
    /// Bots: a command line ("python3 bot.py") or builtin:random / builtin:greedy.
    #[arg(required = true, num_args = 1..)]
    bots: Vec<String>,
}

pub fn run(args: PlayArgs) -> CmdResult {
    let variant = args.variant.parse::<Variant>()?;
    variant.check_players(args.bots.len()).map_err(|e| {
        let n = args.bots.len();
        format!("{e} (you gave {n} bot{})", if n == 1 { "" } else { "s" })
    })?;
    let limits = args.limits.limits();
    if args.sandbox == Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()?;
    }
    durak_referee::isolation::harden_referee();
    let mut resources = ResourceLimits::default();
    for l in &args.limits_rlimit {
        resources.set(l).map_err(|e| format!("--limit {e}"))?;
    }
    let humans = args.bots.iter().filter(|b| b.as_str() == HUMAN).count();
    if humans > 1 {
        return Err(bad_input!(
            "{humans} human seats: one person plays one seat (the others are bots)"
        ));
    }
    let stdin_tty = std::io::IsTerminal::is_terminal(&std::io::stdin());
    let stdout_tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    if humans == 1 && !stdin_tty && !args.plain {
        return Err(
            "the human seat plays in a terminal: run `durak play human BOT` in one, or \
             give --plain to type the moves as lines on stdin (stdin is not a terminal)"
                .into(),
        );
    }
    // The full-screen view owns the terminal while the match runs: the game lines wait.
    let full_screen = humans == 1 && !args.plain && stdin_tty && stdout_tty;
    let mut seats = Vec::new();
    for spec in &args.bots {
        let mut command = BotCommand::parse(spec)?.with_sandbox(args.sandbox);
        command.isolation.limits = resources;
        command.check_exists()?;
        // A person thinks longer than a bot: ten minutes a move, an hour in the bank.
        let limits = if command.is_human() {
            if !full_screen {
                command.args.push("--plain".into());
            }
            for b in &args.bots {
                command.args.extend(["--name".to_string(), b.clone()]);
            }
            Limits {
                move_ms: limits.move_ms.max(600_000),
                bank_ms: limits.bank_ms.max(3_600_000),
                ..limits
            }
        } else {
            limits
        };
        seats.push(SeatSpec {
            name: spec.clone(),
            command,
            limits,
        });
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    });
    let mut cfg = MatchConfig::new(variant, seats, args.games, seed);
    cfg.replay_dir = Some(match args.replay_dir {
        // A match never mixes its replays with another's, nor overwrites them.
        Some(dir) if holds_replays(&dir) => {
            return Err(bad_input!(
                "--replay-dir {}: it already holds replays (game-NNNN.jsonl) of another match; \
                 give another directory, or remove them first",
                dir.display()
            ))
        }
        Some(dir) => dir,
        None => (1..)
            .map(|k| match k {
                1 => PathBuf::from(format!("replays/play-{seed}")),
                k => PathBuf::from(format!("replays/play-{seed}-{k}")),
            })
            .find(|d| !holds_replays(d))
            .expect("a free directory"),
    });
    let json = args.json;
    let saved = full_screen.then(terminal::Saved::take);
    // Each game's lines as soon as it ends (its replay is being written meanwhile), or, under
    // the full-screen view, once the match is over.
    let mut held = Vec::new();
    let played = crate::runtime_sequential(&args.affinity)?.block_on(play_match_with(
        &cfg,
        |g, _| {
            if !json {
                let text = game_lines(g);
                if full_screen {
                    held.push(text);
                } else {
                    print!("{text}");
                    let _ = std::io::Write::flush(&mut std::io::stdout());
                }
            }
            Vec::new()
        },
        |_| {},
    ));
    if let Some(t) = saved {
        t.restore();
    }
    let result = played.map_err(|e| format!("the match could not be played: {e}"))?;
    for text in held {
        print!("{text}");
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&result).expect("json"));
    } else {
        print_summary(&result);
    }
    Ok(ExitCode::SUCCESS)
}

/// A game's result line, and where to see it when a seat faulted.
fn game_lines(g: &GameRecord) -> String {
    let loser = match g.loser {
        Some(l) => format!("seat {l} is the durak"),
        None => "draw".to_string(),
    };
    // Fault details quote what the bot sent: escaped for the terminal.
    let faults: Vec<String> = g
        .faults
        .iter()
        .map(|f| format!("seat {} {}: {}", f.seat, f.kind, escape_controls(&f.detail)))
        .collect();
    let mut out = format!(
        "game {:>3}  {loser:<20} {:>4} moves {:>6} ms{}\n",
        g.game,
        g.moves,
        g.duration_ms,
        if faults.is_empty() {
            String::new()
        } else {
            format!("  FAULT {}", faults.join("; "))
        }
    );
    // Where to see it: the moves, the error sent and the bot's stderr.
    if let (false, Some(p)) = (faults.is_empty(), &g.replay) {
        out += &format!("          see it: durak replay {}\n", p.display());
    }
    out
}

/// The terminal as it was before the full-screen human seat took it, put back after the match
/// even if the seat's process was killed in raw mode on the alternate screen.
mod terminal {
    pub struct Saved(Option<libc::termios>);

    impl Saved {
        pub fn take() -> Saved {
            // SAFETY: tcgetattr fills the struct it is given; fd 0 is the terminal.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            // SAFETY: as above: `t` is a termios of our own, written by tcgetattr only.
            let ok = unsafe { libc::tcgetattr(0, &mut t) } == 0;
            Saved(ok.then_some(t))
        }

        pub fn restore(self) {
            if let Some(t) = self.0 {
                // SAFETY: the settings tcgetattr gave for the same descriptor.
                unsafe { libc::tcsetattr(0, libc::TCSANOW, &t) };
            }
            // Leave the alternate screen, show the cursor (harmless when already done).
            print!("\x1b[?1049l\x1b[?25h");
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
    }
}

/// Whether `dir` holds a replay of a match (`game-*.jsonl`).
fn holds_replays(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("game-") && name.ends_with(".jsonl")
        })
    })
}

fn print_summary(r: &MatchResult) {
    let n = r.seats.len();
    let mut losses = vec![0u32; n];
    let mut faults = vec![0u32; n];
    let mut draws = 0;
    for g in &r.games {
        match g.loser {
            Some(l) => losses[l] += 1,
            None => draws += 1,
        }
        for f in &g.faults {
            faults[f.seat] += 1;
        }
    }
    println!();
    println!(
        "{} of {} (seed {}), {}",
        counted(r.games.len() as u64, "game", "games"),
        r.variant,
        r.seed,
        counted(draws as u64, "draw", "draws")
    );
    println!(
        "{:<5} {:<40} {:>7} {:>7}",
        "seat", "bot", "losses", "faults"
    );
    for (i, s) in r.seats.iter().enumerate() {
        // The bot's own name and the command line, as the bot or its author wrote them.
        let name = match &s.bot_name {
            Some(b) if b != &s.name => format!("{} ({b})", s.name),
            _ => s.name.clone(),
        };
        let name = escape_controls(&name);
        println!("{i:<5} {name:<40} {:>7} {:>7}", losses[i], faults[i]);
    }
    if let Some(dir) = r
        .games
        .first()
        .and_then(|g| g.replay.as_ref())
        .and_then(|p| p.parent())
    {
        println!("replays: {}", dir.display());
    }
}
