//! The settings of a run that are not the tournament's identity (that is [`Tournament`]: bots,
//! format, seed...) but shape how its games are played — the sandbox, the bots' resource limits,
//! CPU affinity, the number of games at once — or what is written besides the results (web pages),
//! and the tournament's name. They come from `[tournament]` (`sandbox`, `affinity`, `html`,
//! `name`, `concurrency`, and the `[tournament.limits]` table) or the command line (which wins),
//! and are all recorded in `DIR/tournament.toml`, so `durak tournament --resume DIR` goes on
//! exactly as the tournament started.
//!
//! On `--resume`, a setting given again is checked against the recorded one:
//!
//! - `sandbox`, `affinity` and every limit are **fixed**: a different value is refused, naming
//!   both values and where each comes from. The games already played ran with the recorded
//!   value; the rest must too, or the tournament is unfair (a bot pinned to a CPU in some games
//!   and not in others, another memory limit), and a weaker sandbox is unsafe.
//! - `concurrency`, `html` and `name` **may change**: they change nothing that is recorded of a
//!   game (results do not depend on concurrency: see [`crate::sequencer`]), and each table still
//!   runs on a CPU of its own as long as there are as many CPUs as tables at once. A new value is
//!   accepted, noted, and recorded for the next resume.
//!
//! A `tournament.toml` written before these settings were recorded lacks them: what the resume
//! command gives is used (and recorded), else the default, with a note.
//!
//! [`Tournament`]: crate::config::Tournament

use crate::config::{closest, ConfigFile, Input, Tournament};
use crate::error::Error;
use crate::shard::Shard;
use durak_referee::isolation::format_limit;
use durak_referee::{ResourceLimits, Sandbox};
mod resume;
pub use resume::{resume_settings, Resumed};

/// Where tables run: `Auto`, each table on CPUs of its own when there are at least as many as
/// tables at once (`durak_referee::affinity`); `Off`, where the kernel puts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Affinity {
    #[default]
    Auto,
    Off,
}

impl Affinity {
    pub fn name(self) -> &'static str {
        match self {
            Affinity::Auto => "auto",
            Affinity::Off => "off",
        }
    }

    pub fn parse(s: &str) -> Result<Affinity, Error> {
        match s {
            "auto" => Ok(Affinity::Auto),
            "off" => Ok(Affinity::Off),
            _ => Err(config_error!(
                "unknown affinity {s:?}: choose \"auto\" or \"off\""
            )),
        }
    }
}

/// How replays are written: compressed with zstd (`.jsonl.zst`, the default: a tenth of the
/// disk) or plain JSON lines (`.jsonl`). Every reader takes both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReplayFormat {
    #[default]
    Zstd,
    Plain,
}

impl ReplayFormat {
    pub fn name(self) -> &'static str {
        match self {
            ReplayFormat::Zstd => "zstd",
            ReplayFormat::Plain => "plain",
        }
    }

    pub fn parse(s: &str) -> Result<ReplayFormat, Error> {
        match s {
            "zstd" => Ok(ReplayFormat::Zstd),
            "plain" => Ok(ReplayFormat::Plain),
            _ => Err(config_error!(
                "unknown replay format {s:?}: choose \"zstd\" or \"plain\""
            )),
        }
    }
}

/// The run settings, resolved (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// The tournament's name; `None` until the caller gives the default (the configuration
    /// file's stem, `demo`, `tournament`).
    pub name: Option<String>,
    pub sandbox: Sandbox,
    /// Resource limits of every bot process.
    pub limits: ResourceLimits,
    pub affinity: Affinity,
    /// Write a web page per game and an index (`DIR/html/`) at the end.
    pub html: bool,
    /// Leave the endgame analysis out of the web pages (`analysis = false`, `--no-analysis`).
    pub no_analysis: bool,
    /// Play only this shard's games (`None`: every game).
    pub shard: Option<Shard>,
    /// How replays are written.
    pub replays: ReplayFormat,
}

/// How to write a limit, for fixes.
const LIMIT_FIX: &str = "give a number with an optional K, M or G (powers of 1024), or \
                         \"unlimited\", as --limit takes it: e.g. memory = \"1G\", processes = 64";

/// A `[tournament.limits]` value as `--limit KEY=VALUE` takes it.
fn limit_text(v: &toml::Value) -> Result<String, Error> {
    match v {
        toml::Value::Integer(n) if *n >= 0 => Ok(n.to_string()),
        toml::Value::Integer(n) => Err(config_error!("{n} is negative")),
        toml::Value::String(s) => Ok(s.clone()),
        other => Err(config_error!("a {} is not a limit", other.type_str())),
    }
}

/// A limit value as a TOML value, the way it is recorded (`"2G"`, `"unlimited"`, `"256"`).
fn recorded_limit(v: Option<u64>) -> String {
    format!("{:?}", format_limit(v))
}

/// Set `key` to `value` in `limits`; `here` says where they come from. An unknown key gets the
/// closest one as a suggestion and the list of keys.
fn set_limit(limits: &mut ResourceLimits, key: &str, value: &str, here: &str) -> Result<(), Error> {
    if !ResourceLimits::KEYS.contains(&key) {
        let guess = match closest(key, ResourceLimits::KEYS) {
            Some(k) => format!("did you mean `{k}`? "),
            None => String::new(),
        };
        return Err(config_error!(
            "{here}: unknown limit `{key}`\n  fix: {guess}the limits are {}",
            ResourceLimits::KEYS.join(", ")
        ));
    }
    limits
        .set_value(key, value)
        .map_err(|e| config_error!("{here}: {}\n  fix: {LIMIT_FIX}", e.reason()))
}

impl Input {
    /// The run settings: the command line's, else the file's `[tournament]`, else the defaults.
    /// A bad value is refused with where it comes from and the fix.
    pub fn resolve_settings(&self) -> Result<Settings, Error> {
        let empty = ConfigFile::default();
        let file = self.file.as_ref().map(|(_, f)| f).unwrap_or(&empty);
        let t = &file.tournament;
        let o = &self.overrides;
        macro_rules! pick {
            ($k:ident) => {
                match (&o.$k, &t.$k) {
                    (Some(v), _) => (Some(v.clone()), true),
                    (None, v) => (v.clone(), false),
                }
            };
        }
        let (name, on) = pick!(name);
        if let Some(n) = &name {
            check_name(n).map_err(|e| {
                config_error!(
                    "{}: {e}\n  fix: give a name on one line, without `/` (it names the \
                     tournament's directory, tournaments-out/NAME-SEED)",
                    self.setting("name", on, format!("{n:?}"))
                )
            })?;
        }
        let (sandbox, os) = pick!(sandbox);
        let sandbox = match sandbox {
            None => Sandbox::Default,
            Some(s) => s.parse::<Sandbox>().map_err(|e| {
                config_error!(
                    "{}: {e}\n  fix: use \"default\" or \"strict\" (docs/SECURITY.md)",
                    self.setting("sandbox", os, format!("{s:?}"))
                )
            })?,
        };
        let (affinity, oa) = pick!(affinity);
        let affinity = match affinity {
            None => Affinity::Auto,
            Some(a) => Affinity::parse(&a).map_err(|e| {
                config_error!(
                    "{}: {e}\n  fix: use \"auto\" or \"off\"",
                    self.setting("affinity", oa, format!("{a:?}"))
                )
            })?,
        };
        let html = pick!(html).0.unwrap_or(false);
        let no_analysis = !pick!(analysis).0.unwrap_or(true);
        let (shard, osh) = pick!(shard);
        let shard = match shard {
            None => None,
            Some(text) => Some(text.parse::<Shard>().map_err(|e| {
                config_error!("{}: {e}", self.setting("shard", osh, format!("{text:?}")))
            })?),
        };
        let (replays, or) = pick!(replays);
        let replays = match replays {
            None => ReplayFormat::default(),
            Some(r) => ReplayFormat::parse(&r).map_err(|e| {
                config_error!(
                    "{}: {e}\n  fix: use \"zstd\" (compressed) or \"plain\"",
                    self.setting("replays", or, format!("{r:?}"))
                )
            })?,
        };
        let mut limits = ResourceLimits::default();
        if let (Some((path, _)), Some(map)) = (&self.file, &t.limits) {
            for (key, v) in map {
                let here = format!("{}: [tournament.limits] {key} = {v}", path.display());
                let text =
                    limit_text(v).map_err(|e| config_error!("{here}: {e}\n  fix: {LIMIT_FIX}"))?;
                set_limit(&mut limits, key, &text, &here)?;
            }
        }
        for (key, v) in o.limits.iter().flatten() {
            let text = limit_text(v).unwrap_or_default();
            let here = format!("the command line: --limit {key}={text}");
            set_limit(&mut limits, key, &text, &here)?;
        }
        Ok(Settings {
            name,
            sandbox,
            limits,
            affinity,
            html,
            no_analysis,
            shard,
            replays,
        })
    }
}

/// A tournament name names a directory: one line, no `/`, not `.` or `..`.
fn check_name(n: &str) -> Result<(), Error> {
    if n.trim().is_empty() {
        Err(Error::Config("the name is empty".into()))
    } else if n.chars().any(char::is_control) {
        Err(Error::Config(
            "the name holds a control character (a line break, a tab...)".into(),
        ))
    } else if n.contains('/') || n == "." || n == ".." {
        Err(Error::Config("the name is not a file name".into()))
    } else {
        Ok(())
    }
}

impl Tournament {
    /// The configuration file that reproduces this tournament and its run exactly: what
    /// `DIR/tournament.toml` holds.
    pub fn to_record(&self, settings: &Settings) -> ConfigFile {
        let mut file = self.to_config_file();
        let t = &mut file.tournament;
        t.name = settings.name.clone();
        t.sandbox = Some(settings.sandbox.name().to_string());
        t.affinity = Some(settings.affinity.name().to_string());
        t.html = Some(settings.html);
        t.analysis = settings.no_analysis.then_some(false);
        t.shard = settings.shard.map(|s| s.to_string());
        t.replays = Some(settings.replays.name().to_string());
        t.limits = Some(
            settings
                .limits
                .entries()
                .into_iter()
                .map(|(k, v)| (k.to_string(), toml::Value::String(v)))
                .collect(),
        );
        file
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    const BOTS: &str = "[[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\
                        [[bot]]\nname = \"b\"\ncommand = \"builtin:greedy\"\n";

    fn input(toml: &str) -> Input {
        let path = PathBuf::from("/tmp/conf/t.toml");
        Input {
            file: Some((path.clone(), ConfigFile::parse(toml, &path).unwrap())),
            cwd: PathBuf::from("/tmp"),
            ..Input::default()
        }
    }

    fn cli_limit(i: &mut Input, key: &str, value: &str) {
        i.overrides
            .limits
            .get_or_insert_with(Default::default)
            .insert(key.into(), toml::Value::String(value.into()));
    }

    #[test]
    fn the_file_sets_sandbox_limits_html_and_name_and_the_command_line_wins() {
        let mut i = input(&format!(
            "[tournament]\nname = \"cup\"\nsandbox = \"strict\"\nhtml = true\n\
             affinity = \"off\"\n[tournament.limits]\nmemory = \"1G\"\nprocesses = 64\n\
             open_files = \"unlimited\"\n{BOTS}"
        ));
        let s = i.resolve_settings().unwrap();
        assert_eq!(s.name.as_deref(), Some("cup"));
        assert_eq!(
            (s.sandbox, s.affinity, s.html),
            (Sandbox::Strict, Affinity::Off, true)
        );
        assert_eq!(s.limits.memory, Some(1 << 30));
        assert_eq!(s.limits.processes, Some(64));
        assert_eq!(s.limits.open_files, None);
        // Untouched limits keep their defaults.
        assert_eq!(s.limits.tmp_size, ResourceLimits::default().tmp_size);
        cli_limit(&mut i, "processes", "32");
        i.overrides.sandbox = Some("default".into());
        let s = i.resolve_settings().unwrap();
        assert_eq!(
            (s.limits.processes, s.sandbox),
            (Some(32), Sandbox::Default)
        );
        assert_eq!(
            s.limits.memory,
            Some(1 << 30),
            "the file's other limits stay"
        );
    }

    #[test]
    fn bad_limits_are_refused_with_file_key_and_fix() {
        let e = input("[tournament.limits]\nmemroy = \"1G\"\n")
            .resolve_settings()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/tmp/conf/t.toml: [tournament.limits] memroy = \"1G\"")
                && e.contains("did you mean `memory`?")
                && e.contains("the limits are memory, address_space"),
            "{e}"
        );
        let e = input("[tournament.limits]\nzzz = 1\n")
            .resolve_settings()
            .unwrap_err()
            .to_string();
        assert!(!e.contains("did you mean") && e.contains("fix:"), "{e}");
        for (line, says) in [
            ("processes = \"lots\"", "is not a number"),
            ("processes = -1", "negative"),
            ("memory = true", "a boolean is not a limit"),
            ("memory = \"2T\"", "unknown unit"),
        ] {
            let e = input(&format!("[tournament.limits]\n{line}\n"))
                .resolve_settings()
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("/tmp/conf/t.toml: [tournament.limits] {line}"))
                    && e.contains(says)
                    && e.contains("fix: give a number"),
                "{line}: {e}"
            );
        }
        let mut i = input(BOTS);
        cli_limit(&mut i, "procs", "5");
        let e = i.resolve_settings().unwrap_err().to_string();
        assert!(
            e.contains("the command line: --limit procs=5") && e.contains("`processes`"),
            "{e}"
        );
        // A limits key that is not a table is the TOML's error, with the line.
        let e = ConfigFile::parse("[tournament]\nlimits = 5\n", Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.toml") && e.contains("fix:"), "{e}");
    }

    #[test]
    fn bad_sandbox_affinity_and_name_are_refused_with_their_origin() {
        let e = input("[tournament]\nsandbox = \"strcit\"\n")
            .resolve_settings()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/tmp/conf/t.toml: [tournament] sandbox = \"strcit\"")
                && e.contains("\"strict\""),
            "{e}"
        );
        let e = input("[tournament]\naffinity = \"on\"\n")
            .resolve_settings()
            .unwrap_err()
            .to_string();
        assert!(e.contains("affinity = \"on\"") && e.contains("fix:"), "{e}");
        for bad in ["a/b", "..", " ", "two\\nlines"] {
            let e = input(&format!("[tournament]\nname = \"{bad}\"\n"))
                .resolve_settings()
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("[tournament] name = ") && e.contains("fix:"),
                "{bad}: {e}"
            );
        }
    }

    /// What `DIR/tournament.toml` records reads back as the same tournament and settings.
    #[test]
    fn the_record_reads_back_the_same_settings() {
        let mut i = input(&format!("[tournament]\nseed = 5\n{BOTS}"));
        i.overrides.sandbox = Some("strict".into());
        i.overrides.affinity = Some("off".into());
        i.overrides.html = Some(true);
        i.overrides.name = Some("cup".into());
        cli_limit(&mut i, "memory", "768M");
        cli_limit(&mut i, "address_space", "8G");
        let (t, s) = (i.resolve().unwrap(), i.resolve_settings().unwrap());
        let text = t.to_record(&s).to_toml();
        assert!(text.contains("[tournament.limits]") && text.contains("memory = \"768M\""));
        for key in ResourceLimits::KEYS {
            assert!(
                text.contains(&format!("\n{key} = ")),
                "{key} is recorded: {text}"
            );
        }
        let again = input(&text);
        assert_eq!(again.resolve_settings().unwrap(), s);
        assert_eq!(again.resolve().unwrap(), t);
    }

    fn recorded(extra: &str) -> ConfigFile {
        let mut i = input(&format!("[tournament]\nseed = 5\nconcurrency = 2\n{BOTS}"));
        i.overrides.sandbox = Some("strict".into());
        i.overrides.affinity = Some("off".into());
        i.overrides.html = Some(true);
        cli_limit(&mut i, "open_files", "100");
        let (t, s) = (i.resolve().unwrap(), i.resolve_settings().unwrap());
        let text = format!("{}{extra}", t.to_record(&s).to_toml());
        ConfigFile::parse(&text, Path::new("x")).unwrap()
    }

    fn resume_with(rec: &ConfigFile, given: Input) -> Result<Resumed, Error> {
        resume_settings(Path::new("/d/tournament.toml"), rec, &given)
    }

    #[test]
    fn a_resume_keeps_the_recorded_settings_and_refuses_fixed_ones_that_differ() {
        let rec = recorded("");
        let r = resume_with(&rec, Input::default()).unwrap();
        assert_eq!(r.settings.sandbox, Sandbox::Strict);
        assert_eq!(r.settings.affinity, Affinity::Off);
        assert_eq!(r.settings.limits.open_files, Some(100));
        assert!(r.settings.html && !r.changed && r.notes.is_empty());
        assert_eq!(r.concurrency, Some(2));
        // The same values again: accepted, nothing to note.
        let mut same = Input::default();
        same.overrides.sandbox = Some("strict".into());
        cli_limit(&mut same, "open_files", "100");
        let r = resume_with(&rec, same).unwrap();
        assert!(!r.changed && r.notes.is_empty());
        // Different ones: refused, each named with both values and where they come from.
        let mut other = Input::default();
        other.overrides.sandbox = Some("default".into());
        other.overrides.affinity = Some("auto".into());
        cli_limit(&mut other, "open_files", "200");
        cli_limit(&mut other, "memory", "2G"); // the default, as recorded: no conflict
        let e = resume_with(&rec, other).unwrap_err().to_string();
        for says in [
            "/d/tournament.toml: [tournament] sandbox = \"strict\", but the command line: \
             --sandbox default",
            "[tournament] affinity = \"off\", but the command line: --affinity auto",
            "[tournament.limits] open_files = \"100\", but the command line: --limit \
             open_files=200",
            "fix: leave them out to go on as recorded: `durak tournament --resume /d`",
        ] {
            assert!(e.contains(says), "{says:?} in {e}");
        }
        assert!(!e.contains("memory"), "{e}");
        // From a configuration file given with --resume: named as such.
        let path = PathBuf::from("/c/t.toml");
        let file = ConfigFile::parse("[tournament]\nsandbox = \"default\"\n", &path).unwrap();
        let e = resume_with(
            &rec,
            Input {
                file: Some((path, file)),
                ..Input::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("but /c/t.toml: [tournament] sandbox = \"default\""),
            "{e}"
        );
    }

    #[test]
    fn concurrency_html_and_name_may_change_on_resume_and_are_recorded() {
        let rec = recorded("");
        let mut i = Input::default();
        i.overrides.concurrency = Some(1);
        i.overrides.html = Some(false);
        i.overrides.name = Some("final".into());
        let r = resume_with(&rec, i).unwrap();
        assert_eq!(r.concurrency, Some(1));
        assert!(!r.settings.html);
        assert_eq!(r.settings.name.as_deref(), Some("final"));
        assert!(r.changed);
        assert_eq!(r.notes.len(), 3, "{:?}", r.notes);
        assert!(
            r.notes[0].contains("concurrency 1 (the command line: -j 1) instead of 2"),
            "{:?}",
            r.notes
        );
        // The sandbox and limits stay the recorded ones.
        assert_eq!(r.settings.sandbox, Sandbox::Strict);
        assert_eq!(r.settings.limits.open_files, Some(100));
    }

    /// A `tournament.toml` from before settings were recorded: what the resume gives is used
    /// (a strict tournament can be resumed strict), the rest is the default; all recorded now.
    #[test]
    fn settings_an_older_record_lacks_are_taken_from_the_resume_and_recorded() {
        let old =
            ConfigFile::parse(&format!("[tournament]\nseed = 5\n{BOTS}"), Path::new("x")).unwrap();
        let mut i = Input::default();
        i.overrides.sandbox = Some("strict".into());
        cli_limit(&mut i, "processes", "10");
        let r = resume_with(&old, i).unwrap();
        assert_eq!(r.settings.sandbox, Sandbox::Strict);
        assert_eq!(r.settings.limits.processes, Some(10));
        assert_eq!(
            r.settings.limits.memory,
            ResourceLimits::default().memory,
            "the default"
        );
        assert!(r.changed);
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("does not record sandbox") && n.contains("--sandbox strict")),
            "{:?}",
            r.notes
        );
    }
}
