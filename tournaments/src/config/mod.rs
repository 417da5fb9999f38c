//! The tournament configuration: a TOML file (`[tournament]` and `[[bot]]` tables) and/or the
//! command line, checked completely before anything starts. Every refusal names where the value
//! came from (the file and key, or the command-line flag) and how to fix it.
//!
//! ```toml
//! [tournament]
//! variant = "podkidnoy"          # or "prostoy"
//! format = "duplicate"           # "round-robin", "duplicate", "series" or "gauntlet"
//! table_size = 2                 # players per table (P-1: 2-4, K-1: 2-6)
//! games = 10                     # games per table (per seating)
//! seed = 42                      # optional: drawn and recorded when absent
//! # challenger = "mybot"         # gauntlet only: the bot that meets the field
//! # concurrency = 2              # games at once (default: the number of cores)
//! max_consecutive_faults = 3     # disqualify after this many faulted games in a row (0: never)
//! move_ms = 1000                 # default limits for every bot
//! bank_ms = 10000
//! startup_ms = 10000
//! # name = "spring-cup"          # tournaments-out/NAME-SEED, notes, standings
//! # sandbox = "strict"           # "default" or "strict" (docs/SECURITY.md)
//! # affinity = "off"             # "auto" (default) or "off"
//! # html = true                  # web pages into DIR/html/
//! # analysis = false             # web pages without the endgame analysis (quicker)
//!
//! # [tournament.sprt]            # gauntlet only: stop once the SPRT decides (crate::sprt)
//! # elo0 = 0                     # H0: the challenger is elo0 Elo above the field
//! # elo1 = 10                    # H1: it is elo1 above (elo0 < elo1)
//! # alpha = 0.05                 # optional (default 0.05): P(accept H1 | H0)
//! # beta = 0.05                  # optional (default 0.05): P(accept H0 | H1)
//!
//! [tournament.limits]            # resource limits of every bot process (see `--limit`)
//! memory = "1G"
//! processes = 64
//!
//! [[bot]]
//! name = "heuristic-py"
//! command = "python3 heuristic_bot.py"
//! cwd = "sample-bots/python"     # its own directory, relative to this file's; without it the
//!                                # bot starts in this file's directory, which is not its own
//!                                # (strict mode shows it only what its command names)
//! move_ms = 2000                 # per-bot limits override the defaults
//! ```

use crate::error::Error;
use durak_protocol::Limits;
use durak_referee::BotCommand;
use durak_rules::Variant;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

mod resolve;

/// The largest seed a configuration accepts: TOML integers are signed 64-bit.
pub const MAX_SEED: u64 = i64::MAX as u64;

/// How tables and deals are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Every k-combination of bots, every seat rotation; each table plays `games` independent
    /// deals.
    RoundRobin,
    /// Like round-robin, but deal `i` is the same deck at every table: each deal is played once
    /// per seat rotation, so every bot holds every hand of it (duplicate bridge, ACPC poker).
    Duplicate,
    /// Every k-combination, every rotation; each table plays a series of `games` games (C-10):
    /// the first dealer from the table's seed, the loser of a game deals the next one.
    Series,
    /// One bot (the challenger) against the field: only the combinations that include it,
    /// with duplicate deals.
    Gauntlet,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::RoundRobin,
        Format::Duplicate,
        Format::Series,
        Format::Gauntlet,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Duplicate => "duplicate",
            Format::Series => "series",
            Format::Gauntlet => "gauntlet",
        }
    }

    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Duplicate => "duplicate deals",
            Format::Series => "series (C-10)",
            Format::Gauntlet => "gauntlet, duplicate deals",
        }
    }

    /// Whether deal `i` is the same deck at every table.
    pub fn duplicate_deals(self) -> bool {
        matches!(self, Format::Duplicate | Format::Gauntlet)
    }

    pub fn parse(s: &str) -> Result<Format, Error> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                config_error!(
                    "unknown format {s:?}: choose one of {}",
                    Format::ALL.map(|f| format!("{:?}", f.name())).join(", ")
                )
            })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The file as written: every key optional, unknown keys refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub tournament: TournamentSection,
    #[serde(default, rename = "bot", skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<BotSection>,
}

/// `[tournament]`. Also the shape of the command-line overrides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentSection {
    /// A name for people: the default directory (`tournaments-out/NAME-SEED`), the start note,
    /// the standings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_size: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenger: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_consecutive_faults: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_line_bytes: Option<usize>,
    /// How bots are isolated: `"default"` or `"strict"` (docs/SECURITY.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// `"auto"` (each table on CPUs of its own when there are enough) or `"off"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<String>,
    /// Also write a web page per game and an index, into `DIR/html/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<bool>,
    /// With web pages: `false` leaves out the endgame analysis (the games' endgame values, the
    /// bots' endgame accuracy), which costs solver time (docs/BENCHMARKS.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<bool>,
    /// Play only the games of shard `"I/N"` ([`crate::shard`]); `durak merge` puts the shards
    /// together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// How replays are written: `"zstd"` (compressed, `.jsonl.zst`; the default) or `"plain"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replays: Option<String>,
    /// `[tournament.limits]`: resource limits of every bot process, keyed as
    /// [`durak_referee::ResourceLimits::KEYS`], values as `--limit KEY=VALUE` takes them (`"1G"`, `64`,
    /// `"unlimited"`). Checked in [`Input::resolve_settings`], so that a bad key gets the file,
    /// the key and a suggestion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<BTreeMap<String, toml::Value>>,
    /// `[tournament.sprt]`: play the gauntlet until the SPRT decides (`--sprt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSection>,
}

/// `[tournament.sprt]` (or `--sprt elo0,elo1[,alpha,beta]`): the hypotheses on the challenger's
/// Elo above the field and the error rates ([`crate::stats::sprt`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtSection {
    pub elo0: f64,
    pub elo1: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
}

/// alpha and beta when not given.
pub const DEFAULT_SPRT_ERROR: f64 = 0.05;

/// Deals per table with `--sprt` when `games` is not given: a cap the test rarely reaches.
pub const DEFAULT_SPRT_GAMES: u32 = 10_000;

/// Tables an SPRT run may have: it keeps every table open at once (its bots started once,
/// idle between its games) so that each deal is played at every table before the next.
pub const MAX_SPRT_TABLES: usize = 64;

impl SprtSection {
    /// `elo0,elo1[,alpha,beta]`, as `--sprt` takes it.
    pub fn parse(s: &str) -> Result<SprtSection, Error> {
        let fix =
            "fix: write --sprt ELO0,ELO1 or --sprt ELO0,ELO1,ALPHA,BETA, e.g. --sprt 0,10 or \
                   --sprt 0,10,0.05,0.05";
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(config_error!(
                "the command line: --sprt {s:?}: {} values, 2 or 4 expected\n  {fix}",
                parts.len()
            ));
        }
        let mut v = Vec::new();
        for (name, p) in ["elo0", "elo1", "alpha", "beta"].iter().zip(&parts) {
            v.push(p.parse::<f64>().map_err(|_| {
                config_error!(
                    "the command line: --sprt {s:?}: {name} = {p:?} is not a number\n  {fix}"
                )
            })?);
        }
        Ok(SprtSection {
            elo0: v[0],
            elo1: v[1],
            alpha: v.get(2).copied(),
            beta: v.get(3).copied(),
        })
    }

    pub fn params(&self) -> Result<crate::stats::sprt::SprtParams, Error> {
        crate::stats::sprt::SprtParams::new(
            self.elo0,
            self.elo1,
            self.alpha.unwrap_or(DEFAULT_SPRT_ERROR),
            self.beta.unwrap_or(DEFAULT_SPRT_ERROR),
        )
    }
}

impl From<crate::stats::sprt::SprtParams> for SprtSection {
    fn from(p: crate::stats::sprt::SprtParams) -> SprtSection {
        SprtSection {
            elo0: p.elo0,
            elo1: p.elo1,
            alpha: Some(p.alpha),
            beta: Some(p.beta),
        }
    }
}

/// `[[bot]]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotSection {
    pub name: String,
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Where a bot without a `cwd` of its own starts (what the relative paths of its command
    /// are relative to), when that is not the configuration's directory: `tournament.toml`
    /// records it for `--resume`. It is not the bot's own directory (strict mode shows the bot
    /// only what its command names). Exclusive with `cwd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_dir: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_line_bytes: Option<usize>,
}

/// The accepted key closest to the unknown one in a parse error ("unknown field `tabel_size`,
/// expected one of `variant`, ..."), when it is close enough to be a typo (Jaro-Winkler 0.8).
fn did_you_mean(msg: &str) -> Option<String> {
    let quoted =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(String::from).collect() };
    let rest = msg.split("unknown field").nth(1)?;
    let (unknown, expected) = rest.split_once("expected")?;
    let unknown = quoted(unknown).into_iter().next()?;
    closest(&unknown, quoted(expected).iter().map(String::as_str)).map(String::from)
}

/// The candidate closest to `unknown`, when it is close enough to be a typo (Jaro-Winkler 0.8).
pub(crate) fn closest<'a>(
    unknown: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|k| (strsim::jaro_winkler(unknown, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

impl ConfigFile {
    /// Read and parse a configuration file; unknown keys are refused with their line.
    pub fn load(path: &Path) -> Result<ConfigFile, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            config_error!(
                "{}: cannot read the configuration: {e}\n  fix: give the path of an existing \
                 TOML file (see the README, \"Running a tournament\")",
                path.display()
            )
        })?;
        ConfigFile::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<ConfigFile, Error> {
        toml::from_str(text).map_err(|e| {
            let msg = e.to_string();
            let fix = if msg.contains("unknown field") {
                match did_you_mean(&msg) {
                    Some(key) => {
                        format!("fix: did you mean `{key}`? (the accepted keys are listed above)")
                    }
                    None => {
                        "fix: remove or rename that key; the accepted keys are listed above".into()
                    }
                }
            } else if msg.contains("missing field") {
                "fix: add the missing key (every [[bot]] needs a name and a command)".into()
            } else {
                "fix: correct the TOML at that line".to_string()
            };
            config_error!(
                "{}: {}\n  {fix}",
                path.display(),
                msg.trim_end().replace('\n', "\n  ")
            )
        })
    }

    /// The configuration as TOML, with a comment saying what the file is.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).expect("a configuration serialises");
        format!(
            "# The exact configuration of this tournament, written by `durak tournament` when it \
             started.\n# `durak tournament --resume DIR` reads it; do not edit it.\n\n{body}"
        )
    }
}

/// A bot, resolved: absolute working directory, complete limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bot {
    pub name: String,
    pub command: String,
    /// Where it runs, absolute.
    pub cwd: PathBuf,
    /// Whether `cwd` is the bot's own directory (a `[[bot]]`'s `cwd`), or only where it starts
    /// (the configuration's directory, or the command line's for a bot given there): then strict
    /// mode shows the bot only what its command names (`Isolation::foreign_cwd`).
    pub own_cwd: bool,
    pub limits: Limits,
}

impl Bot {
    /// The referee's command for this bot (`builtin:NAME` or a command line, run in `cwd`).
    pub fn bot_command(&self) -> Result<BotCommand, Error> {
        let mut c = BotCommand::parse(&self.command).map_err(|e| Error::Config(e.to_string()))?;
        if c.is_human() {
            return Err(Error::Config(
                "the human seat plays only in `durak play human BOT` (nobody sits at \
                        a tournament's keyboard)\n  fix: give a bot's command"
                    .to_string(),
            ));
        }
        if !self.command.starts_with("builtin:") {
            c.cwd = Some(self.cwd.clone());
            c.isolation.foreign_cwd = !self.own_cwd;
        }
        Ok(c)
    }
}

/// A tournament, resolved and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    pub variant: Variant,
    pub format: Format,
    pub table_size: usize,
    /// Games per table (per seating): deals in duplicate and gauntlet, the series length in
    /// series.
    pub games: u32,
    pub seed: u64,
    pub challenger: Option<String>,
    /// Games at once; not part of the tournament's identity.
    pub concurrency: Option<usize>,
    /// Faulted games in a row that disqualify a bot (0: never).
    pub max_consecutive_faults: u32,
    pub bots: Vec<Bot>,
    /// Gauntlet: play until the SPRT decides ([`crate::sprt`]); the games are then scheduled
    /// deal-major ([`crate::schedule`]) and `games` is a cap.
    pub sprt: Option<crate::stats::sprt::SprtParams>,
}

/// Defaults.
pub const DEFAULT_GAMES: u32 = 10;
pub const DEFAULT_MAX_CONSECUTIVE_FAULTS: u32 = 3;

/// What the organiser gave: an optional file, bots and overrides from the command line.
#[derive(Clone, Debug, Default)]
pub struct Input {
    /// The configuration file as given on the command line, and its contents.
    pub file: Option<(PathBuf, ConfigFile)>,
    /// Bots from the command line: a command line or `builtin:NAME`; named after the command.
    pub cli_bots: Vec<String>,
    /// Command-line values (they win over the file's `[tournament]`).
    pub overrides: TournamentSection,
    /// The directory relative paths of command-line bots are resolved against.
    pub cwd: PathBuf,
    /// Check that every bot's program and script exist (off for `durak standings`).
    pub check_bots: bool,
}

/// The flag that sets a `[tournament]` key on the command line.
pub(crate) fn flag(key: &str) -> String {
    match key {
        "move_ms" => "--move-time-ms".to_string(),
        k => format!("--{}", k.replace('_', "-")),
    }
}

impl Input {
    /// Where a `[tournament]` key's value comes from, for messages.
    pub(crate) fn origin(&self, key: &str, overridden: bool) -> String {
        match (&self.file, overridden) {
            (_, true) => format!("the command line: {}", flag(key)),
            (Some((p, _)), false) => format!("{}: [tournament] {key}", p.display()),
            (None, false) => format!("the default {key}"),
        }
    }

    /// A `[tournament]` setting and its origin, for messages: `FILE: [tournament] key = value`
    /// or `the command line: --flag value`.
    pub(crate) fn setting(&self, key: &str, overridden: bool, value: String) -> String {
        if overridden {
            format!("the command line: {} {value}", flag(key))
        } else {
            format!("{} = {value}", self.origin(key, false))
        }
    }

    fn file_dir(&self) -> PathBuf {
        match &self.file {
            Some((p, _)) => {
                let parent = p.parent().unwrap_or_else(|| Path::new(""));
                if parent.as_os_str().is_empty() {
                    self.cwd.clone()
                } else {
                    absolute(&self.cwd, parent)
                }
            }
            None => self.cwd.clone(),
        }
    }
}

/// Names of command-line bots: `builtin:NAME`, or the script's (or program's) file name; the
/// whole command when two different commands would get the same short name.
pub fn cli_bot_names(specs: &[String]) -> Vec<String> {
    let short: Vec<String> = specs.iter().map(|s| short_name(s)).collect();
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let clash = specs
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && short[j] == short[i] && other != spec);
            if clash {
                spec.clone()
            } else {
                short[i].clone()
            }
        })
        .collect()
}

fn short_name(spec: &str) -> String {
    if spec.starts_with("builtin:") {
        return spec.to_string();
    }
    let words = shell_split(spec);
    // The script (a word with an extension: bot.py, bot.jar), else the last word that is not
    // an option (`java -cp out DurakBot`: DurakBot), else the program.
    let file = words
        .iter()
        .rev()
        .find(|w| !w.starts_with('-') && Path::new(w).extension().is_some())
        .or(words.iter().skip(1).rev().find(|w| !w.starts_with('-')))
        .or(words.first());
    match file.and_then(|f| Path::new(f).file_name()) {
        Some(n) => n.to_string_lossy().into_owned(),
        None => spec.to_string(),
    }
}

fn shell_split(spec: &str) -> Vec<String> {
    BotCommand::parse(spec)
        .map(|c| {
            std::iter::once(c.program.to_string_lossy().into_owned())
                .chain(c.args)
                .collect()
        })
        .unwrap_or_default()
}

fn names(bots: &[Bot]) -> String {
    bots.iter()
        .map(|b| format!("{:?}", b.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `p` made absolute against `base` (without touching the file system).
pub fn absolute(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    // Drop `.` components and resolve `..` lexically, for readable paths.
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A seed from the clock, below 2^53 (exact in JSON numbers everywhere).
pub fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    durak_rules::deck::splitmix64(nanos) & ((1 << 53) - 1)
}

impl Tournament {
    /// The configuration file that reproduces this tournament exactly.
    pub fn to_config_file(&self) -> ConfigFile {
        ConfigFile {
            tournament: TournamentSection {
                variant: Some(self.variant.name().to_string()),
                format: Some(self.format.name().to_string()),
                table_size: Some(self.table_size),
                games: Some(self.games),
                seed: Some(self.seed),
                challenger: self.challenger.clone(),
                concurrency: self.concurrency,
                max_consecutive_faults: Some(self.max_consecutive_faults),
                sprt: self.sprt.map(SprtSection::from),
                ..TournamentSection::default()
            },
            bots: self
                .bots
                .iter()
                .map(|b| BotSection {
                    name: b.name.clone(),
                    command: b.command.clone(),
                    cwd: b.own_cwd.then(|| b.cwd.to_string_lossy().into_owned()),
                    start_dir: (!b.own_cwd).then(|| b.cwd.to_string_lossy().into_owned()),
                    move_ms: Some(b.limits.move_ms),
                    bank_ms: Some(b.limits.bank_ms),
                    startup_ms: Some(b.limits.startup_ms),
                    max_line_bytes: Some(b.limits.max_line_bytes),
                })
                .collect(),
        }
    }

    pub fn bot_index(&self, name: &str) -> Option<usize> {
        self.bots.iter().position(|b| b.name == name)
    }

    /// How this tournament differs from `other` (concurrency aside): `key: A there, B here`.
    pub fn differences(&self, there: &Tournament) -> Vec<String> {
        let mut d = Vec::new();
        let mut cmp = |key: &str, a: String, b: String| {
            if a != b {
                d.push(format!("{key} is {a} there and {b} here"));
            }
        };
        cmp(
            "variant",
            there.variant.name().into(),
            self.variant.name().into(),
        );
        cmp(
            "format",
            there.format.name().into(),
            self.format.name().into(),
        );
        cmp(
            "table_size",
            there.table_size.to_string(),
            self.table_size.to_string(),
        );
        cmp("games", there.games.to_string(), self.games.to_string());
        cmp("seed", there.seed.to_string(), self.seed.to_string());
        cmp(
            "challenger",
            format!("{:?}", there.challenger),
            format!("{:?}", self.challenger),
        );
        let sprt = |t: &Tournament| match t.sprt {
            None => "none".to_string(),
            Some(p) => format!("{},{},{},{}", p.elo0, p.elo1, p.alpha, p.beta),
        };
        cmp("sprt", sprt(there), sprt(self));
        cmp(
            "max_consecutive_faults",
            there.max_consecutive_faults.to_string(),
            self.max_consecutive_faults.to_string(),
        );
        let list = |t: &Tournament| {
            t.bots
                .iter()
                .map(|b| format!("{:?}", b.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if there.bots.len() != self.bots.len()
            || there
                .bots
                .iter()
                .zip(&self.bots)
                .any(|(a, b)| a.name != b.name)
        {
            cmp(
                "the bot list",
                format!("[{}]", list(there)),
                format!("[{}]", list(self)),
            );
        } else {
            for (a, b) in there.bots.iter().zip(&self.bots) {
                let key = format!("bot {:?}", a.name);
                cmp(
                    &format!("{key} command"),
                    format!("{:?}", a.command),
                    format!("{:?}", b.command),
                );
                let builtin = a.command.starts_with("builtin:");
                cmp(
                    &format!("{key} cwd"),
                    if builtin { String::new() } else { cwd_text(a) },
                    if builtin { String::new() } else { cwd_text(b) },
                );
                cmp(
                    &format!("{key} limits"),
                    format!("{:?}", a.limits),
                    format!("{:?}", b.limits),
                );
            }
        }
        d
    }
}

/// A bot's directory for messages: `DIR`, or `DIR (where it starts, not its own)`.
fn cwd_text(b: &Bot) -> String {
    if b.own_cwd {
        b.cwd.display().to_string()
    } else {
        format!("{} (where it starts, not its own)", b.cwd.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_bots_are_named_after_their_script_or_main_class() {
        let names = |specs: &[&str]| {
            cli_bot_names(&specs.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(
            names(&[
                "python3 bots/my_bot.py",
                "java -Xmx256m -cp out DurakBot",
                "java -jar bot.jar",
                "./bot",
                "builtin:random",
            ]),
            ["my_bot.py", "DurakBot", "bot.jar", "bot", "builtin:random"]
        );
    }

    fn input(toml: &str) -> Input {
        let path = PathBuf::from("/tmp/conf/t.toml");
        Input {
            file: Some((path.clone(), ConfigFile::parse(toml, &path).unwrap())),
            cwd: PathBuf::from("/tmp"),
            check_bots: false,
            ..Input::default()
        }
    }

    const BOTS: &str = r#"
[[bot]]
name = "a"
command = "builtin:random"
[[bot]]
name = "b"
command = "builtin:greedy"
move_ms = 50
"#;

    #[test]
    fn an_unknown_key_close_to_an_accepted_one_gets_a_suggestion() {
        let err = |toml: &str| {
            ConfigFile::parse(toml, Path::new("t.toml"))
                .unwrap_err()
                .to_string()
        };
        let e = err("[tournament]\ntabel_size = 2\n");
        assert!(e.contains("did you mean `table_size`?"), "{e}");
        // The command-line flag's name for the file's key.
        let e = err("[[bot]]\nname = \"a\"\ncommand = \"x\"\nmove_time_ms = 5\n");
        assert!(e.contains("did you mean `move_ms`?"), "{e}");
        // Nothing close: no guess.
        let e = err("[tournament]\nzzz = 1\n");
        assert!(!e.contains("did you mean"), "{e}");
        assert!(e.contains("remove or rename that key"), "{e}");
    }

    #[test]
    fn a_bot_name_on_two_lines_is_refused() {
        let e = input("[[bot]]\nname = \"a\\nb\"\ncommand = \"builtin:random\"\n")
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("control character") && e.contains("[[bot]] #1"),
            "{e}"
        );
    }

    #[test]
    fn defaults_and_per_bot_limits() {
        let t = input(&format!("[tournament]\nseed = 5\nbank_ms = 7\n{BOTS}"))
            .resolve()
            .unwrap();
        assert_eq!(t.variant, Variant::Podkidnoy);
        assert_eq!(t.format, Format::Duplicate);
        assert_eq!((t.table_size, t.games, t.seed), (2, DEFAULT_GAMES, 5));
        assert_eq!(t.bots[0].limits.move_ms, Limits::default().move_ms);
        assert_eq!(t.bots[1].limits.move_ms, 50);
        assert_eq!(t.bots[1].limits.bank_ms, 7);
        assert_eq!(t.bots[0].cwd, PathBuf::from("/tmp/conf"));
        // A limit on the command line wins over the file's, per-bot ones included.
        let mut i = input(&format!("[tournament]\nseed = 5\nmove_ms = 40\n{BOTS}"));
        i.overrides.move_ms = Some(70);
        let t = i.resolve().unwrap();
        assert_eq!(
            (t.bots[0].limits.move_ms, t.bots[1].limits.move_ms),
            (70, 70)
        );
        // So a resume given another limit sees the difference.
        let stored = input(&format!("[tournament]\nseed = 5\n{BOTS}"))
            .resolve()
            .unwrap();
        assert!(t.differences(&stored).iter().any(|d| d.contains("move_ms")));
        // A zero on the command line is blamed on the command line.
        i.overrides.max_line_bytes = Some(0);
        let e = i.resolve().unwrap_err().to_string();
        assert!(e.contains("the command line: --max-line-bytes 0"), "{e}");
    }

    #[test]
    fn the_stored_configuration_resolves_to_the_same_tournament() {
        let t = input(&format!(
            "[tournament]\nseed = 5\nformat = \"series\"\n{BOTS}"
        ))
        .resolve()
        .unwrap();
        let text = t.to_config_file().to_toml();
        let again = Input {
            file: Some((
                PathBuf::from("/x/tournament.toml"),
                ConfigFile::parse(&text, Path::new("t")).unwrap(),
            )),
            cwd: PathBuf::from("/"),
            ..Input::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(again, t);
        assert!(again.differences(&t).is_empty());
    }

    #[test]
    fn unknown_keys_are_refused_with_file_key_and_fix() {
        let path = PathBuf::from("conf/t.toml");
        let e = ConfigFile::parse("[tournament]\ngmaes = 3\n", &path)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("conf/t.toml:"), "{e}");
        assert!(
            e.contains("gmaes") && e.contains("games") && e.contains("fix:"),
            "{e}"
        );
        let e = ConfigFile::parse(
            "[[bot]]\nname = \"a\"\ncommand = \"x\"\ntimeout = 3\n",
            &path,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("timeout") && e.contains("move_ms"), "{e}");
        let e = ConfigFile::parse("[turnament]\n", &path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("turnament"), "{e}");
    }

    #[test]
    fn refusals_name_origin_and_fix() {
        let e = input(&format!("[tournament]\ntable_size = 7\n{BOTS}"))
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/tmp/conf/t.toml: [tournament] table_size = 7"),
            "{e}"
        );
        assert!(e.contains("K-1") && e.contains("fix:"), "{e}");
        let e = input("[tournament]\ntable_size = 5\nvariant = \"prostoy\"\n")
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(e.contains("P-1"), "{e}");
        let dup = format!("{BOTS}[[bot]]\nname = \"a\"\ncommand = \"builtin:greedy\"\n");
        let e = input(&dup).resolve().unwrap_err().to_string();
        assert!(
            e.contains("duplicate bot name \"a\"") && e.contains("#3"),
            "{e}"
        );
        let e = input(&format!("[tournament]\nformat = \"swiss\"\n{BOTS}"))
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(e.contains("swiss") && e.contains("round-robin"), "{e}");
        let e = input(&format!("[tournament]\nformat = \"gauntlet\"\n{BOTS}"))
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(e.contains("challenger"), "{e}");
        let e = input(&format!("[tournament]\nchallenger = \"a\"\n{BOTS}"))
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(e.contains("only for format \"gauntlet\""), "{e}");
        let mut i = input(&format!("[tournament]\ntable_size = 3\n{BOTS}"));
        let e = i.resolve().unwrap_err().to_string();
        assert!(e.contains("2 bots for tables of 3"), "{e}");
        assert!(e.contains("or set table_size = 2 or lower"), "{e}");
        i.overrides.table_size = Some(9);
        let e = i.resolve().unwrap_err().to_string();
        assert!(e.contains("the command line: --table-size 9"), "{e}");
    }

    #[test]
    fn missing_bot_files_are_refused() {
        let mut i = input(
            "[[bot]]\nname = \"a\"\ncommand = \"sh no-such-bot.sh\"\ncwd = \"/\"\n\
             [[bot]]\nname = \"b\"\ncommand = \"builtin:random\"\n",
        );
        i.check_bots = true;
        let e = i.resolve().unwrap_err().to_string();
        assert!(e.contains("#1") && e.contains("no-such-bot.sh"), "{e}");
        assert!(e.contains("fix:"), "{e}");
    }

    #[test]
    fn command_line_names() {
        let specs: Vec<String> = [
            "builtin:random",
            "python3 sample-bots/python/random_bot.py",
            "node sample-bots/js/random_bot.js",
            "python3 a/bot.py",
            "python3 b/bot.py",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            cli_bot_names(&specs),
            [
                "builtin:random",
                "random_bot.py",
                "random_bot.js",
                "python3 a/bot.py",
                "python3 b/bot.py"
            ]
        );
    }
}
