//! `durak`: the referee and tournament runner's command line. Each subcommand lives in its own
//! module; this file only parses and dispatches.

mod analyze_cmd;
mod check_cmd;
mod error;
mod fork_cmd;
mod human;
mod ops_cmd;
mod play;
mod regress_cmd;
mod replay_cmd;
mod rerun_cmd;
mod serve_cmd;
mod tournament_cmd;
mod worker_cmd;

use clap::{Parser, Subcommand};
use durak_protocol::text::escape_controls_multiline;
pub use error::{CmdError, CmdResult};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "durak",
    version,
    about = "Referee and tournament runner for the card game Durak"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log lines as text, or as JSON objects one a line (with each request's span under
    /// `durak serve`); DURAK_LOG sets what is logged (default: warn)
    #[arg(long, global = true, value_name = "text|json", default_value = "text", value_parser = ["text", "json"])]
    log_format: String,
}

#[derive(Subcommand)]
enum Command {
    /// Play a match (a series of games, C-10) between 2 to 6 bots, seated in the order given.
    Play(play::PlayArgs),
    /// Run a tournament (with no arguments: a demo over the built-in and sample bots).
    Tournament(Box<tournament_cmd::TournamentArgs>),
    /// Put the shards of a tournament (`tournament --shard I/N`) together into one directory.
    Merge(tournament_cmd::merge::MergeArgs),
    /// Print the standings of a tournament directory again.
    Standings(tournament_cmd::StandingsArgs),
    /// Step through, verify or export a replay file.
    Replay(replay_cmd::ReplayArgs),
    /// Re-run one decision of a recorded game with a bot: feed it what that seat read up to step
    /// N, and show its answer beside the recorded one.
    Rerun(rerun_cmd::RerunArgs),
    /// The exact value of every decision of a game's endgame (stock empty, two players): where
    /// it was lost, the blunders and the best choices.
    Analyze(analyze_cmd::AnalyzeArgs),
    /// Play a recorded game on from step N with other bots (one per seat), dealt from the same
    /// deck, into a new replay.
    Fork(fork_cmd::ForkArgs),
    /// For every game a bot lost in a tournament, let a new version take its seat from its
    /// first endgame blunder: how many games it saves.
    Regress(regress_cmd::RegressArgs),
    /// Check a bot against the protocol and the rules: a conformance suite with a report.
    CheckBot(check_cmd::CheckBotArgs),
    /// Check a bot folder (with bot.toml) and register it in a tournament's bot list.
    Submit(check_cmd::SubmitArgs),
    /// Play a seat yourself, in this terminal (what `durak play human BOT` starts).
    #[command(hide = true)]
    Human(human::HumanArgs),
    /// Run the judge service: authors submit bots, a ladder plays them for ever, pages and a
    /// JSON API show it (docs/SERVICE.md).
    Serve(serve_cmd::ServeArgs),
    /// Play a `durak serve` ladder's games on this machine: claim jobs, run them in this
    /// machine's sandbox, post the games (docs/SERVICE.md, "Workers").
    Worker(worker_cmd::WorkerArgs),
    /// Issue, list or revoke worker tokens of a `durak serve` server (the organiser).
    WorkerToken(worker_cmd::WorkerTokenArgs),
    /// A new organiser token for a `durak serve` data directory (on the server's machine):
    /// the earlier ones are revoked.
    OrganiserToken(ops_cmd::OrganiserTokenArgs),
    /// Back up a `durak serve` data directory while the server runs (docs/SERVICE.md).
    Backup(ops_cmd::BackupArgs),
    /// The seasons of a `durak serve` data directory (on the server's machine, the server
    /// stopped): `durak season end` ends the current one (docs/SERVICE.md, "Seasons").
    Season {
        #[command(subcommand)]
        command: ops_cmd::SeasonCommand,
    },
    /// Run a built-in bot on stdin/stdout (what `builtin:NAME` starts).
    Bot {
        /// random or greedy
        name: String,
    },
    /// The person's seat of a `durak serve` "Play my bot" game (what the server starts): the
    /// protocol on stdin/stdout, relayed to the server's socket.
    #[command(hide = true)]
    WebSeat { socket: std::path::PathBuf },
    /// The endgame analysis of `durak serve`'s games, in a process of its own (what the server
    /// starts): replays on stdin, their analysis on stdout.
    #[command(hide = true, name = "analysis-worker")]
    AnalysisWorker,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Warnings for people by default ("WARN what happened"); DURAK_LOG=debug (or any filter)
    // gives the full format, with times and modules.
    let filter = tracing_subscriber::EnvFilter::try_from_env("DURAK_LOG");
    let detailed = filter.is_ok();
    let log = tracing_subscriber::fmt()
        .with_env_filter(filter.unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    if cli.log_format == "json" {
        log.json()
            .with_current_span(true)
            .with_span_list(false)
            .init();
    } else if detailed {
        log.init();
    } else {
        log.without_time().with_target(false).init();
    }
    let result = match cli.command {
        Command::Play(args) => play::run(args),
        Command::Tournament(args) => tournament_cmd::run(*args),
        Command::Standings(args) => tournament_cmd::standings(args),
        Command::Merge(args) => tournament_cmd::merge::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Rerun(args) => rerun_cmd::run(args),
        Command::Analyze(args) => analyze_cmd::run(args),
        Command::Fork(args) => fork_cmd::run(args),
        Command::Regress(args) => regress_cmd::run(args),
        Command::CheckBot(args) => check_cmd::check_bot(args),
        Command::Submit(args) => check_cmd::submit(args),
        Command::Serve(args) => serve_cmd::serve(args),
        Command::Worker(args) => worker_cmd::worker(args),
        Command::WorkerToken(args) => worker_cmd::worker_token(args),
        Command::OrganiserToken(args) => ops_cmd::organiser_token(args),
        Command::Backup(args) => ops_cmd::backup(args),
        Command::Season { command } => ops_cmd::season(command),
        Command::Bot { name } => bot(&name),
        Command::WebSeat { socket } => durak_service::play::relay(&socket)
            .map(|_| ExitCode::SUCCESS)
            .map_err(|e| CmdError::Input(e.to_string())),
        Command::Human(a) => human::run(a),
        Command::AnalysisWorker => durak_service::analysis::worker::main()
            .map(|_| ExitCode::SUCCESS)
            .map_err(|e| CmdError::Input(format!("analysis-worker: {e}"))),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // An error may quote what a bot or a file said: nothing in it drives the terminal.
            eprintln!("error: {}", escape_controls_multiline(&e.to_string()));
            e.exit_code()
        }
    }
}

fn bot(name: &str) -> CmdResult {
    if !durak_referee::process::BUILTINS.contains(&name) {
        return Err(error::bad_input!(
            "unknown built-in bot {name:?}: choose one of {}",
            durak_referee::process::BUILTINS.join(", ")
        ));
    }
    durak_referee::builtin::run_builtin(name).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// A multi-threaded tokio runtime, for tournaments (tables run concurrently).
pub fn runtime() -> CmdResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| error::failed!("cannot start the async runtime: {e}"))
}

/// `--affinity` of the commands that play one match at a time.
#[derive(clap::Args, Clone, Debug)]
pub struct AffinityArg {
    /// `auto`: the referee and its bots run on one CPU (the one the referee starts on), which
    /// makes each decision's round trip several times cheaper; `off`: the kernel places them.
    #[arg(long, default_value = "auto", value_parser = ["auto", "off"])]
    pub affinity: String,
}

/// A single-threaded tokio runtime, for one match at a time (`play`, `check-bot`): a decision's
/// round trip never hops between threads, which makes a match about 25% faster. With
/// `--affinity auto`, the thread (and so every bot it starts) is pinned to one CPU first.
pub fn runtime_sequential(affinity: &AffinityArg) -> CmdResult<tokio::runtime::Runtime> {
    if affinity.affinity == "auto" {
        durak_referee::affinity::pin_to_current_cpu();
    }
    runtime_current_thread()
}

/// A single-threaded tokio runtime, on whichever CPUs the kernel gives (`fork`, `regress`,
/// `rerun`).
pub fn runtime_current_thread() -> CmdResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| error::failed!("cannot start the async runtime: {e}"))
}
