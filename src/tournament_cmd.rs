//! `durak tournament` and `durak standings` (issue 4): the command line around
//! `durak_tournaments` (configuration, demo, progress bar, output formats).

pub mod merge;
mod progress;
mod target;

use crate::error::bad_input;
use crate::CmdResult;
use clap::Args;
use durak_tournaments::config::TournamentSection;
use durak_tournaments::recorded::ResultsScan;
use durak_tournaments::results::{resume_command, LineReader};
use durak_tournaments::runner::{RunOptions, RunSummary};
use durak_tournaments::settings::{Affinity, Settings};
use durak_tournaments::{run_tournament, verify_results, Standings, Tournament, TournamentDir};
use progress::Progress;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use target::{new_target, resume_target, Target};

#[derive(Args)]
pub struct TournamentArgs {
    /// Bots: a command line ("python3 bot.py") or builtin:random / builtin:greedy; added after
    /// the configuration file's bots. With no bots and no --config: a demo over the built-in and
    /// sample bots.
    bots: Vec<String>,
    /// A TOML configuration file ([tournament] and [[bot]] tables; see docs/TOURNAMENTS.md,
    /// "The configuration file").
    #[arg(short, long)]
    config: Option<PathBuf>,
    /// prostoy or podkidnoy [default: podkidnoy]
    #[arg(long)]
    variant: Option<String>,
    /// round-robin, duplicate, series or gauntlet [default: duplicate]
    #[arg(long)]
    format: Option<String>,
    /// Players per table [default: 2]
    #[arg(long)]
    table_size: Option<usize>,
    /// Games per table (duplicate: deals; series: the series length; with --sprt: the most
    /// deals) [default: 10; 10000 with --sprt]
    #[arg(long)]
    games: Option<u32>,
    /// Tournament seed: the schedule and every deal derive from it [default: drawn, recorded]
    #[arg(long)]
    seed: Option<u64>,
    /// Gauntlet: the bot (by name) that meets the field.
    #[arg(long)]
    challenger: Option<String>,
    /// Gauntlet: play until the SPRT decides, then stop. H0: the challenger is ELO0 Elo above
    /// the field; H1: ELO1 above; ALPHA, BETA: its error rates [default: 0.05, 0.05]. --games is
    /// then a cap on the deals per table [default: 10000]. See docs/TOURNAMENTS.md, "SPRT: is
    /// the challenger better?".
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<String>,
    /// Disqualify a bot after this many faulted games in a row; 0: never [default: 3]
    #[arg(long)]
    max_consecutive_faults: Option<u32>,
    /// Time limit per decision of every bot, in milliseconds (over the file's) [default: 1000]
    #[arg(long)]
    move_time_ms: Option<u64>,
    /// Time bank per game of every bot, in milliseconds (over the file's) [default: 10000]
    #[arg(long)]
    bank_ms: Option<u64>,
    /// Time to start and say hello, every bot, in milliseconds (over the file's) [default: 10000]
    #[arg(long)]
    startup_ms: Option<u64>,
    /// Longest line a bot may send, every bot, in bytes (over the file's) [default: 1048576]
    #[arg(long)]
    max_line_bytes: Option<usize>,
    /// Bot isolation: `default` (process group, private directory, cleared environment,
    /// resource limits) or `strict` (also bubblewrap: no network, read-only system, own pid
    /// namespace). See docs/SECURITY.md. [default: default, or what DIR records on --resume]
    #[arg(long)]
    sandbox: Option<durak_referee::Sandbox>,
    /// A resource limit of every bot, KEY=VALUE (repeatable); keys and defaults in
    /// docs/SECURITY.md.
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    limits_rlimit: Vec<String>,
    /// Games at once, each with its own bot processes [default: the number of cores]
    #[arg(short = 'j', long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    concurrency: Option<usize>,
    /// `auto`: each table runs on one CPU, its referee thread and its bots together (table i of
    /// those at once on CPU i, round robin); `off`: the kernel places them. [default: auto]
    #[arg(long, value_parser = ["auto", "off"])]
    affinity: Option<String>,
    /// The tournament's name: the default directory (tournaments-out/NAME-SEED), the notes and
    /// the standings [default: the configuration file's name, or "tournament"]
    #[arg(long)]
    name: Option<String>,
    /// The tournament directory [default: tournaments-out/NAME-SEED]
    #[arg(long, conflicts_with = "resume")]
    out: Option<PathBuf>,
    /// Finish the tournament in DIR (after a kill): plays exactly the games not yet recorded,
    /// with the settings DIR/tournament.toml records.
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// No progress bar and no notes; only the standings.
    #[arg(short, long)]
    quiet: bool,
    /// Also print the standings so far on stderr every N games recorded (off a terminal, a
    /// progress line is printed every few seconds anyway).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    standings_every: Option<usize>,
    /// Play only the games of shard I of N (I from 1), e.g. one Slurm array task each; then
    /// `durak merge` puts the shard directories together (docs/SCALING.md). Recorded in
    /// DIR/tournament.toml: --resume plays the same shard.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// How replays are written: `zstd` (compressed, .jsonl.zst) or `plain` (.jsonl); every
    /// reader takes both [default: zstd]
    #[arg(long, value_parser = ["zstd", "plain"])]
    replays: Option<String>,
    /// Also write a web page per game and an index with the standings, into DIR/html/.
    #[arg(long, conflicts_with = "no_html")]
    html: bool,
    /// No web pages (on --resume of a tournament that was started with --html).
    #[arg(long)]
    no_html: bool,
    /// Web pages without the endgame analysis (the games' endgame values, the bots' endgame
    /// accuracy), which costs solver time. Recorded in DIR/tournament.toml: --resume keeps it.
    #[arg(long)]
    no_analysis: bool,
    /// Print the standings as JSON.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the standings as CSV (one row per bot).
    #[arg(long)]
    csv: bool,
}

#[derive(Args)]
pub struct StandingsArgs {
    /// A tournament directory (made by `durak tournament`).
    dir: PathBuf,
    /// Print the standings as JSON.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the standings as CSV (one row per bot).
    #[arg(long)]
    csv: bool,
    /// Also write a web page per game and an index with the standings, into DIR/html/.
    #[arg(long)]
    html: bool,
    /// With --html: leave out the endgame analysis (the values on the games' pages, the bots'
    /// endgame accuracy), which costs solver time.
    #[arg(long, requires = "html")]
    no_analysis: bool,
}

impl TournamentArgs {
    /// Everything the command line sets in `[tournament]` terms (it wins over the file).
    fn overrides(&self) -> CmdResult<TournamentSection> {
        let mut limits = std::collections::BTreeMap::new();
        for l in &self.limits_rlimit {
            let (key, value) = l.split_once('=').ok_or_else(|| {
                format!(
                    "the command line: --limit {l:?}: not KEY=VALUE\n  fix: write e.g. --limit \
                     memory=1G or --limit processes=64 (the keys: {})",
                    durak_referee::ResourceLimits::KEYS.join(", ")
                )
            })?;
            limits.insert(
                key.trim().to_string(),
                toml::Value::String(value.trim().to_string()),
            );
        }
        Ok(TournamentSection {
            name: self.name.clone(),
            variant: self.variant.clone(),
            format: self.format.clone(),
            table_size: self.table_size,
            games: self.games,
            seed: self.seed,
            challenger: self.challenger.clone(),
            concurrency: self.concurrency,
            max_consecutive_faults: self.max_consecutive_faults,
            move_ms: self.move_time_ms,
            bank_ms: self.bank_ms,
            startup_ms: self.startup_ms,
            max_line_bytes: self.max_line_bytes,
            sandbox: self.sandbox.map(|s| s.name().to_string()),
            affinity: self.affinity.clone(),
            html: if self.html {
                Some(true)
            } else if self.no_html {
                Some(false)
            } else {
                None
            },
            analysis: self.no_analysis.then_some(false),
            limits: (!limits.is_empty()).then_some(limits),
            sprt: self
                .sprt
                .as_deref()
                .map(durak_tournaments::config::SprtSection::parse)
                .transpose()?,
            shard: self.shard.clone(),
            replays: self.replays.clone(),
        })
    }
}

fn current_dir() -> CmdResult<PathBuf> {
    std::env::current_dir().map_err(|e| bad_input!("cannot read the current directory: {e}"))
}

/// A note for people on stderr (not with --quiet).
pub(crate) fn note(quiet: bool, msg: &str) {
    if !quiet {
        eprintln!("{msg}");
    }
}

/// `durak tournament`: a bad configuration or invocation exits 2 before any game; a directory
/// that cannot be written, or a disk that refuses during the run, 1 (`CmdError`'s kinds).
pub fn run(args: TournamentArgs) -> CmdResult {
    let cwd = current_dir()?;
    durak_referee::isolation::harden_referee();
    let Target {
        t,
        settings,
        dir,
        notes,
        rewrite,
    } = match &args.resume {
        Some(path) => resume_target(&args, path, &cwd)?,
        None => new_target(&args, &cwd)?,
    };
    let concurrency = t
        .concurrency
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .max(1);
    target::refuse_sharded_sprt(&t, &settings)?;
    // Held from before anything of the directory is read until the run is over.
    let lock = dir.lock()?;
    if let Some(file) = &rewrite {
        dir.rewrite_config(file)?;
    }
    for n in &notes {
        note(args.quiet, n);
    }
    // A results file that does not fit the tournament is bad input (exit 2), found before
    // anything starts.
    let recorded = checked_results(&t, &dir, args.quiet)?.count();
    // With the SPRT: the test over the games recorded (a resume of a decided run plays nothing).
    let sprt = durak_tournaments::sprt::SprtTracker::recorded(&t, &dir.results_path())?;
    let decided = sprt
        .as_ref()
        .map(|s| s.status())
        .filter(|s| s.decision.is_some());
    let schedule = durak_tournaments::Schedule::build(&t);
    let finished = recorded == durak_tournaments::shard::games_of(&schedule, settings.shard)
        || decided.is_some();
    let name = settings.name.as_deref().unwrap_or("tournament");
    let plan = Plan {
        t: &t,
        settings: &settings,
        dir: &dir,
        schedule: &schedule,
        concurrency,
    };
    note(
        args.quiet,
        &plan.describe(name, decided.as_ref(), finished, recorded),
    );
    let progress = Arc::new(Progress::new(args.quiet));
    progress.set_sprt(sprt);
    let watcher = progress.watch(&t, &dir, args.standings_every);
    let opts = plan.run_options(
        progress.clone(),
        args.config.iter().map(|c| cwd.join(c)).collect(),
    );
    let outcome = play_until_signalled(run_tournament(&t, &dir, &lock, opts), &progress, &dir)?;
    progress.finish(watcher);
    let summary = match outcome {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    after_run_notes(args.quiet, &summary, &dir);
    print_standings(name, &dir.standings(&t)?, args.json, args.csv);
    if settings.html {
        let index = write_html(&dir, !settings.no_analysis)?;
        note(args.quiet, &format!("web pages: {}", index.display()));
    }
    note(
        args.quiet,
        &format!(
            "results: {} (again: durak standings {})",
            dir.path.display(),
            dir.path.display()
        ),
    );
    Ok(ExitCode::SUCCESS)
}

/// What a run is about to play, for its first note and its options.
struct Plan<'a> {
    t: &'a Tournament,
    settings: &'a Settings,
    dir: &'a TournamentDir,
    schedule: &'a durak_tournaments::Schedule,
    concurrency: usize,
}

impl Plan<'_> {
    /// The run's first note: the tournament, its settings, the shard, the SPRT, and what is
    /// left to play (or that nothing is).
    fn describe(
        &self,
        name: &str,
        decided: Option<&durak_tournaments::sprt::SprtStatus>,
        finished: bool,
        recorded: usize,
    ) -> String {
        let (t, settings, dir, schedule) = (self.t, self.settings, self.dir, self.schedule);
        let concurrency = self.concurrency;
        let bots: Vec<&str> = t.bots.iter().map(|b| b.name.as_str()).collect();
        format!(
            "{name}: {} tournament ({}), tables of {}, {} game{} per table, seed {}: {}\n\
             settings: sandbox {}, affinity {}, limits {}{}, {} replays{}\n{}{}",
            t.variant.name(),
            t.format.describe(),
            t.table_size,
            t.games,
            if t.games == 1 { "" } else { "s" },
            t.seed,
            bots.join(", "),
            settings.sandbox,
            settings.affinity.name(),
            settings
                .limits
                .entries()
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            if settings.html { ", web pages" } else { "" },
            settings.replays.name(),
            match settings.shard {
                Some(sh) => format!(
                    "\nshard {sh}: {} of the {} games (merge the shards with `durak merge`)",
                    sh.games(schedule),
                    schedule.total_games()
                ),
                None => String::new(),
            },
            if let Some(p) = t.sprt {
                let (lo, hi) = p.bounds();
                format!(
                    "SPRT: H0 the challenger {} is {} Elo above the field, H1 {} Elo (α {}, β \
                     {}): it stops when the LLR leaves [{lo:.2}, {hi:+.2}], at most {} games\n",
                    t.challenger.as_deref().unwrap_or("?"),
                    p.elo0,
                    p.elo1,
                    p.alpha,
                    p.beta,
                    durak_tournaments::Schedule::build(t).total_games()
                )
            } else {
                String::new()
            },
            if let Some(d) = &decided {
                format!(
                    "finished: the SPRT decided after {} games ({}): nothing more to play in {}",
                    d.games,
                    d.verdict(),
                    dir.path.display()
                )
            } else if finished {
                format!(
                    "finished: all {recorded} games are in {}",
                    dir.path.display()
                )
            } else {
                format!(
                    "{} at once; results in {} (stop it any time; finish it with `{}`)",
                    if concurrency == 1 {
                        "1 game".to_string()
                    } else {
                        format!("{concurrency} games")
                    },
                    dir.path.display(),
                    resume_command(&dir.path)
                )
            }
        )
    }

    fn run_options(&self, observer: Arc<Progress>, hidden: Vec<PathBuf>) -> RunOptions {
        let settings = self.settings;
        RunOptions {
            concurrency: self.concurrency,
            observer,
            sandbox: settings.sandbox,
            resources: settings.limits,
            cpu_groups: match settings.affinity {
                Affinity::Off => None,
                Affinity::Auto => durak_referee::affinity::groups(self.concurrency),
            },
            stop_after: None,
            shard: settings.shard,
            replays: settings.replays,
            // The configuration, whatever its name (`-c settings.conf`): it holds the seed.
            hidden,
            stop: None,
        }
    }
}

/// Play `run` to its end, or until Ctrl-C or SIGTERM (which exit at once, saying what is kept).
fn play_until_signalled(
    run: impl std::future::Future<Output = Result<RunSummary, durak_tournaments::Error>>,
    progress: &Progress,
    dir: &TournamentDir,
) -> CmdResult<Result<RunSummary, durak_tournaments::Error>> {
    let outcome = crate::runtime()?.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return run.await;
        };
        tokio::select! {
            r = run => r,
            _ = int.recv() => interrupted(progress, dir, "Ctrl-C", 130),
            _ = term.recv() => interrupted(progress, dir, "SIGTERM", 143),
        }
    });
    // The signal handlers tokio installed stay after the run: give Ctrl-C and SIGTERM their
    // default action back, so they still stop what follows (web pages, printing).
    // SAFETY: setting the default disposition of two signals; nothing else handles them now.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
    Ok(outcome)
}

/// After the run: the SPRT's verdict, what a resume recorded, and (`DURAK_RUN_STATS`) the
/// writer's figures for the benchmark.
fn after_run_notes(quiet: bool, summary: &RunSummary, dir: &TournamentDir) {
    if let Some(s) = &summary.sprt {
        note(
            quiet,
            &match s.decision {
                Some(_) if summary.played == 0 && summary.already > 0 => format!(
                    "SPRT: decided in an earlier run, after {} games: {}",
                    s.games,
                    s.verdict()
                ),
                Some(_) => format!(
                    "SPRT: decided after {} games ({} of the {} scheduled not played): {}\n{s}",
                    s.games,
                    summary.total - summary.already - summary.played,
                    summary.total,
                    s.verdict()
                ),
                None => format!(
                    "SPRT: undecided after every game of the schedule ({} games; more with a \
                     larger --games, in a new directory)\n{s}",
                    s.games
                ),
            },
        );
    }
    if summary.already > 0 || summary.recovered > 0 {
        let recovered = match summary.recovered {
            0 => String::new(),
            n => format!(
                ", {n} finished by the stopped run recorded now from {}",
                dir.pending_path()
                    .file_name()
                    .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
            ),
        };
        note(
            quiet,
            &format!(
                "resumed: {} games were already recorded{recovered}, {} played now",
                summary.already, summary.played
            ),
        );
    }
    if std::env::var_os("DURAK_RUN_STATS").is_some() {
        // For the benchmark (scripts/bench-scale.sh): how the writer kept up, and the peak
        // memory of the run before the standings are computed.
        let w = &summary.writer;
        eprintln!(
            "run-stats: {{\"played\": {}, \"committed\": {}, \"commits\": {}, \
             \"durable_max_ms\": {:.1}, \"durable_p99_ms\": {:.1}, \"sync_max_ms\": {:.1}, \
             \"held_max\": {}, \"vm_hwm_kib\": {}}}",
            summary.played,
            w.committed,
            w.commits,
            w.durable_max.as_secs_f64() * 1e3,
            w.durable_p99.as_secs_f64() * 1e3,
            w.sync_max.as_secs_f64() * 1e3,
            w.held_max,
            vm_hwm_kib().unwrap_or(0)
        );
    }
}

/// Stopped by a signal: say what is kept and how to go on, then exit at once. What is recorded
/// is safe as after a kill (each line after its replay); the bots die with the referee.
fn interrupted(progress: &Progress, dir: &TournamentDir, how: &str, code: i32) -> ! {
    progress.bar.finish_and_clear();
    let kept = dir.count_results();
    eprintln!(
        "stopped ({how}): {kept} game{} recorded in {}; finish with `{}`",
        if kept == 1 { " is" } else { "s are" },
        dir.results_path().display(),
        resume_command(&dir.path)
    );
    std::process::exit(code)
}

/// The peak resident memory of this process so far (`VmHWM`), in KiB.
fn vm_hwm_kib() -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The standings; `name` (the tournament's) heads the table and is the first key of the JSON.
pub(crate) fn print_standings(name: &str, s: &Standings, json: bool, csv: bool) {
    let text = if json {
        let mut v: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&s.to_json()).expect("standings are a JSON object");
        let mut named = serde_json::Map::new();
        named.insert("name".into(), name.into());
        named.append(&mut v);
        format!(
            "{}\n",
            serde_json::to_string_pretty(&named).expect("standings serialise")
        )
    } else if csv {
        s.to_csv()
    } else {
        format!("{name} · {}", s.to_text())
    };
    // A closed stdout (`| head`) is not an error worth a panic.
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
}

/// The tournament report: standings, charts, a page per bot and per game (issue 13), with the
/// name and sandbox `DIR/tournament.toml` records, and, with `analyze`, each game's endgame
/// values and the bots' endgame accuracy (issue 26). (It reads every line: the report needs them
/// all, for its charts and the games list's data.)
fn write_html(dir: &TournamentDir, analyze: bool) -> CmdResult<PathBuf> {
    let (_, t) = TournamentDir::open(&dir.path, false)?;
    let (_, settings) = dir.recorded()?;
    let read = dir.read_results()?;
    let input = durak_report::ReportInput {
        t: &t,
        dir: &dir.path,
        lines: &read.lines,
        name: settings.name.clone(),
        sandbox: Some(format!("{:?}", settings.sandbox).to_lowercase()),
        hide_stderr: false,
        analyze,
    };
    Ok(durak_report::write_report(&input, &dir.path.join("html"))?)
}

pub fn standings(args: StandingsArgs) -> CmdResult {
    let (dir, t) = TournamentDir::open(&args.dir, false)?;
    let (_, settings) = dir.recorded()?;
    let scan = checked_results(&t, &dir, false)?;
    // Games a killed run finished but did not record: the resume records them.
    let pending: std::collections::HashSet<u64> = LineReader::open(&dir.pending_path())
        .map(|r| {
            r.map_while(Result::ok)
                .map(|n| n.line.id)
                .filter(|id| !scan.record.recorded.contains(*id))
                .collect()
        })
        .unwrap_or_default();
    if !pending.is_empty() {
        eprintln!(
            "note: {} more finished game{} {} not recorded yet (in {}): `{}` records {} and \
             plays the rest",
            pending.len(),
            if pending.len() == 1 { "" } else { "s" },
            if pending.len() == 1 { "is" } else { "are" },
            dir.pending_path().display(),
            resume_command(&dir.path),
            if pending.len() == 1 { "it" } else { "them" }
        );
    }
    let name = settings.name.as_deref().unwrap_or("tournament");
    print_standings(name, &dir.standings(&t)?, args.json, args.csv);
    if args.html {
        let index = write_html(&dir, !args.no_analysis)?;
        eprintln!("web pages: {}", index.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The results of `dir`, checked against the tournament's schedule (a mismatch is refused,
/// exit 2), with notes on what a kill or a hand may have left: a torn last line, missing replays.
fn checked_results(t: &Tournament, dir: &TournamentDir, quiet: bool) -> CmdResult<ResultsScan> {
    let scan = verify_results(t, dir)?;
    if scan.torn_tail {
        note(
            quiet,
            &format!(
                "note: the last line of {} is cut short (the referee was killed while writing \
                 it): that game is left out, and `{}` plays it again",
                dir.results_path().display(),
                resume_command(&dir.path)
            ),
        );
    }
    if let Some(first) = &scan.first_missing {
        let n = scan.missing_replays;
        note(
            quiet,
            &format!(
                "warning: {n} replay{} named in {} {} missing (first: {}): {} still count{}, \
                 but cannot be replayed or verified",
                if n == 1 { "" } else { "s" },
                dir.results_path().display(),
                if n == 1 { "is" } else { "are" },
                first.display(),
                if n == 1 { "its game" } else { "their games" },
                if n == 1 { "s" } else { "" },
            ),
        );
    }
    Ok(scan)
}
