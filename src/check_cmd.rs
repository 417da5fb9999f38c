//! `durak check-bot` and `durak submit` (issue 7): the command line around `durak_checkbot`
//! (the conformance suite and its report) and the registration of a checked bot in a
//! tournament configuration (`[[bot]]` entries, as `durak_tournaments::config` reads them).

use crate::error::bad_input;
use crate::CmdResult;
use clap::Args;
use durak_checkbot::manifest::{self, Manifest};
use durak_checkbot::{Options, Report};
use durak_protocol::text::escape_controls;
use durak_protocol::Limits;
use durak_referee::BotCommand;
use durak_rules::Variant;
use durak_tournaments::config::ConfigFile;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct CheckBotArgs {
    /// The bot: a command line, quoted as one argument ("python3 my_bot.py"), or
    /// builtin:NAME. Several words are joined into one command line.
    #[arg(value_name = "BOT", num_args = 1.., required = true)]
    bot: Vec<String>,
    /// prostoy, podkidnoy or both
    #[arg(long, default_value = "both")]
    variant: String,
    /// Full games per table against the built-in bots (0: none)
    #[arg(long, default_value_t = 3)]
    games: u32,
    /// Games of the long match, all in one bot process, reporting its peak memory and answer
    /// times (0: none)
    #[arg(long, value_name = "N", default_value_t = durak_checkbot::DEFAULT_LONG)]
    long: u32,
    /// Time limit per decision, in milliseconds
    #[arg(long, default_value_t = 1000)]
    move_time_ms: u64,
    /// Time bank per game, in milliseconds
    #[arg(long, default_value_t = 10_000)]
    bank_ms: u64,
    /// Time to start and answer the hello, in milliseconds
    #[arg(long, default_value_t = 10_000)]
    startup_ms: u64,
    /// The seed of the full games
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The bot's working directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Build the bot first: a shell command run in its working directory ("make", "javac -d
    /// out src/*.java"); a failed build fails the check
    #[arg(long, value_name = "CMD")]
    build: Option<String>,
    /// Time limit of the build, in seconds
    #[arg(long, value_name = "S", default_value_t = durak_checkbot::build::DEFAULT_BUILD_TIMEOUT_S)]
    build_timeout_s: u64,
    /// Keep the full games' replays in DIR (for `durak replay`)
    #[arg(long, value_name = "DIR")]
    replay_dir: Option<PathBuf>,
    /// Isolation of the bot: `default` or `strict` (bubblewrap: no network, read-only system,
    /// only its own folder visible), as in `durak tournament --sandbox`. See docs/SECURITY.md.
    #[arg(long, default_value = "default", value_name = "default|strict")]
    sandbox: durak_referee::Sandbox,
    #[command(flatten)]
    affinity: crate::AffinityArg,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct SubmitArgs {
    /// The bot's folder, holding bot.toml (name, command, language, author, and optionally
    /// build), or that bot.toml itself
    path: PathBuf,
    /// The tournament configuration to register the bot in (created if missing)
    #[arg(long, short, value_name = "FILE", default_value = "tournament.toml")]
    tournament: PathBuf,
    /// prostoy, podkidnoy or both [default: the tournament's variant, else both]
    #[arg(long)]
    variant: Option<String>,
    /// Full games per table in the check
    #[arg(long, default_value_t = 3)]
    games: u32,
    /// Games of the check's long match, all in one bot process (0: none)
    #[arg(long, value_name = "N", default_value_t = durak_checkbot::DEFAULT_LONG)]
    long: u32,
    /// Time limit of the bot's build (bot.toml's `build`), in seconds
    #[arg(long, value_name = "S", default_value_t = durak_checkbot::build::DEFAULT_BUILD_TIMEOUT_S)]
    build_timeout_s: u64,
    /// Isolation of the bot: `default` or `strict` (bubblewrap: no network, read-only system,
    /// only its own folder visible), as in `durak tournament --sandbox`. See docs/SECURITY.md.
    #[arg(long, default_value = "default", value_name = "default|strict")]
    sandbox: durak_referee::Sandbox,
    #[command(flatten)]
    affinity: crate::AffinityArg,
    /// Print the check's report as JSON
    #[arg(long)]
    json: bool,
    /// Upload the folder to a `durak serve` server (URL) instead, which builds, checks and
    /// plays it there
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// With --server: your token (or DURAK_TOKEN in the environment)
    #[arg(long, value_name = "TOKEN", requires = "server")]
    token: Option<String>,
    /// With --server: wait this long for the server's build and check, printing its report
    /// (0: do not wait)
    #[arg(long, value_name = "S", default_value_t = 300, requires = "server")]
    wait_s: u64,
    /// With --server: also trust this CA's certificate (PEM) for the server's HTTPS, besides
    /// this machine's CAs (or DURAK_CA_CERT in the environment)
    #[arg(long, value_name = "FILE", requires = "server")]
    ca_cert: Option<std::path::PathBuf>,
}

fn variants(v: &str) -> CmdResult<Vec<Variant>> {
    if v == "both" {
        return Ok(vec![Variant::Prostoy, Variant::Podkidnoy]);
    }
    v.parse::<Variant>()
        .map(|v| vec![v])
        .map_err(|e| bad_input!("--variant {v:?}: {e}; choose prostoy, podkidnoy or both"))
}

/// Words given separately, joined into one command line (quoting words with special characters).
fn join_words(words: &[String]) -> String {
    if words.len() == 1 {
        return words[0].clone();
    }
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_check(cmd: &BotCommand, opts: &Options, affinity: &crate::AffinityArg) -> CmdResult<Report> {
    let rt = crate::runtime_sequential(affinity)?;
    Ok(rt.block_on(durak_checkbot::check_bot(cmd, opts)))
}

/// Run a bot's build; `Err` with the exit status when it failed (its output printed, as JSON
/// with `--json`).
fn build_bot(command: &str, dir: &Path, timeout_s: u64, json: bool) -> Result<(), ExitCode> {
    if !json {
        eprintln!(
            "building: {} (in {})...",
            escape_controls(command),
            dir.display()
        );
    }
    let b = durak_checkbot::build::run(command, dir, std::time::Duration::from_secs(timeout_s));
    if b.ok {
        if !json {
            eprint!("{}", b.to_text());
        }
        return Ok(());
    }
    if json {
        let v = serde_json::json!({"passed": false, "build": b});
        println!("{}", serde_json::to_string_pretty(&v).expect("json"));
    } else {
        print!("{}", b.to_text());
        println!(
            "\nFAILED: the build failed, so the bot was not checked. Fix the build (the output \
             above says why) and run again."
        );
    }
    Err(ExitCode::from(1))
}

fn print_report(report: &Report, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(report).expect("a report serialises")
        );
    } else {
        print!("{}", report.to_text());
    }
}

pub fn check_bot(args: CheckBotArgs) -> CmdResult {
    let spec = join_words(&args.bot);
    if args.sandbox == durak_referee::Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()?;
    }
    let mut cmd = BotCommand::parse(&spec)?.with_sandbox(args.sandbox);
    if cmd.is_human() {
        return Err(
            "check-bot checks a bot; to play against one yourself: durak play human BOT".into(),
        );
    }
    if !spec.starts_with("builtin:") {
        // The bot runs where the user is (or in --cwd), as `durak submit` runs it in its folder.
        let dir = match &args.cwd {
            Some(dir) if !dir.is_dir() => {
                return Err(bad_input!("--cwd {}: not a directory", dir.display()))
            }
            Some(dir) => {
                std::fs::canonicalize(dir).map_err(|e| format!("--cwd {}: {e}", dir.display()))?
            }
            None => std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        cmd.cwd = Some(dir);
    }
    if let Some(b) = &args.build {
        let dir = match &cmd.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        if let Err(code) = build_bot(b, &dir, args.build_timeout_s, args.json) {
            return Ok(code);
        }
    }
    let opts = Options {
        variants: variants(&args.variant)?,
        games: args.games,
        limits: Limits {
            startup_ms: args.startup_ms,
            move_ms: args.move_time_ms,
            bank_ms: args.bank_ms,
            ..Limits::default()
        },
        seed: args.seed,
        replay_dir: args.replay_dir.clone(),
        long: args.long,
    };
    if !args.json {
        eprintln!(
            "checking {spec:?}: scripted positions, full games, then a long match (a few \
             seconds)..."
        );
    }
    let report = run_check(&cmd, &opts, &args.affinity)?;
    print_report(&report, args.json);
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The header of a tournament configuration created by `durak submit`.
const NEW_CONFIG: &str = "\
# A Durak tournament. Run it with: durak tournament --config FILE
# [tournament] keys (all optional): variant, format, table_size, games, seed, challenger,
# concurrency, max_consecutive_faults, move_ms, bank_ms, startup_ms, max_line_bytes.
# See docs/TOURNAMENTS.md, \"The configuration file\". Bots are appended below by `durak submit`.

[tournament]
# variant = \"podkidnoy\"
# format = \"duplicate\"
# games = 10
";

/// `path` relative to `base` when it lies inside it, else absolute.
fn relative_to(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

pub fn submit(args: SubmitArgs) -> CmdResult {
    if let Some(server) = &args.server {
        return crate::serve_cmd::submit_remote(
            server,
            args.token.as_deref(),
            &args.path,
            args.wait_s,
            args.ca_cert.clone(),
        );
    }
    let folder = bot_folder(&args.path)?;
    let m = Manifest::load(&folder)?;
    let file = &args.tournament;
    let (file_dir, existing) = read_tournament(file, &folder, &m)?;
    let (cmd, opts) = check_setup(&args, &folder, &m, existing.as_ref().map(|(_, c)| c))?;
    if !args.json {
        eprintln!(
            "checking {:?} ({}, by {}) in {}...",
            m.name,
            escape_controls(&m.language),
            escape_controls(&m.author),
            folder.display()
        );
    }
    if let Some(b) = &m.build {
        if build_bot(b, &folder, args.build_timeout_s, args.json).is_err() {
            eprintln!(
                "\nREFUSED: {:?} was not registered in {}: its build (bot.toml's build = {:?}) \
                 failed.",
                m.name,
                file.display(),
                b
            );
            return Ok(ExitCode::from(1));
        }
    }
    let report = run_check(&cmd, &opts, &args.affinity)?;
    print_report(&report, args.json);
    if !report.passed {
        eprintln!(
            "\nREFUSED: {:?} was not registered in {}: it failed durak check-bot (the report \
             above says what to fix). Fix it and run durak submit again.",
            m.name,
            file.display()
        );
        return Ok(ExitCode::from(1));
    }

    register(file, &file_dir, &folder, &m, existing.map(|(text, _)| text))
}

/// The bot's folder, canonical: `path` itself, or the folder of the `bot.toml` it names
/// (`bot.toml` alone: the current folder).
fn bot_folder(path: &Path) -> CmdResult<PathBuf> {
    let folder = if path.file_name() == Some(manifest::FILE.as_ref()) {
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    } else {
        path.to_path_buf()
    };
    if !folder.is_dir() {
        return Err(bad_input!(
            "{}: not a folder\n  fix: give the bot's folder, the one holding its {}",
            path.display(),
            manifest::FILE
        ));
    }
    Ok(std::fs::canonicalize(&folder).map_err(|e| format!("{}: {e}", folder.display()))?)
}

/// The tournament configuration `file`, read now so that a duplicate name is refused before
/// the check: its folder (canonical), and its text and contents when it exists.
fn read_tournament(
    file: &Path,
    folder: &Path,
    m: &Manifest,
) -> CmdResult<(PathBuf, Option<(String, ConfigFile)>)> {
    let file_dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_dir = std::fs::canonicalize(&file_dir).map_err(|e| {
        format!(
            "{}: the folder {} cannot be used: {e}\n  fix: create it first, or give another \
             --tournament path",
            file.display(),
            file_dir.display()
        )
    })?;
    let existing = if file.exists() {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
        let config = ConfigFile::parse(&text, file)?;
        if let Some(b) = config.bots.iter().find(|b| b.name == m.name) {
            return Err(bad_input!(
                "{}: name = {:?}: the tournament {} already has a bot with this name (command \
                 {:?})\n  fix: choose another name in {}, or remove the old [[bot]] entry \
                 from {} to replace it",
                folder.join(manifest::FILE).display(),
                m.name,
                file.display(),
                b.command,
                manifest::FILE,
                file.display()
            ));
        }
        Some((text, config))
    } else {
        None
    };
    Ok((file_dir, existing))
}

/// The command to check (in the bot's folder, in the asked sandbox) and the check's options:
/// the tournament's variant and limits, when it has them.
fn check_setup(
    args: &SubmitArgs,
    folder: &Path,
    m: &Manifest,
    existing: Option<&ConfigFile>,
) -> CmdResult<(BotCommand, Options)> {
    let variant = match (&args.variant, existing) {
        (Some(v), _) => v.clone(),
        (None, Some(c)) => c
            .tournament
            .variant
            .clone()
            .unwrap_or_else(|| "both".into()),
        (None, None) => "both".into(),
    };
    if args.sandbox == durak_referee::Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()?;
    }
    let mut cmd = BotCommand::parse(&m.command)
        .map_err(|e| {
            format!(
                "{}: command = {:?}: {e}",
                folder.join(manifest::FILE).display(),
                m.command
            )
        })?
        .with_sandbox(args.sandbox);
    cmd.cwd = Some(folder.to_path_buf());
    let t = existing.map(|c| &c.tournament);
    let base = Limits::default();
    let opts = Options {
        variants: variants(&variant)?,
        games: args.games,
        long: args.long,
        limits: Limits {
            startup_ms: t.and_then(|t| t.startup_ms).unwrap_or(base.startup_ms),
            move_ms: t.and_then(|t| t.move_ms).unwrap_or(base.move_ms),
            bank_ms: t.and_then(|t| t.bank_ms).unwrap_or(base.bank_ms),
            max_line_bytes: t
                .and_then(|t| t.max_line_bytes)
                .unwrap_or(base.max_line_bytes),
        },
        ..Options::default()
    };
    Ok((cmd, opts))
}

/// Register the passed bot: append a [[bot]] entry to `file` (`old`: its text, or none yet),
/// check that the whole file still loads, and replace it atomically.
fn register(
    file: &Path,
    file_dir: &Path,
    folder: &Path,
    m: &Manifest,
    old: Option<String>,
) -> CmdResult {
    let cwd = relative_to(folder, file_dir);
    let mut new = old.unwrap_or_else(|| NEW_CONFIG.to_string());
    if !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(&m.bot_entry(&cwd));
    let config = ConfigFile::parse(&new, file)
        .map_err(|e| format!("the new entry would break {}: {e}", file.display()))?;
    let tmp = file_dir.join(format!(
        ".{}.submit-tmp",
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tournament.toml".into())
    ));
    std::fs::write(&tmp, &new)
        .and_then(|_| std::fs::rename(&tmp, file))
        .map_err(|e| format!("{}: cannot write: {e}", file.display()))?;
    let n = config.bots.len();
    eprintln!(
        "\nREGISTERED: {:?} in {} (command {:?}, cwd {:?}); the tournament has {n} bot{} now.\n\
         {} durak tournament --config {}",
        m.name,
        file.display(),
        m.command,
        cwd,
        if n == 1 { "" } else { "s" },
        if n < 2 {
            "Once it has two bots or more (a table needs two), run it with:"
        } else {
            "Run it with:"
        },
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}
