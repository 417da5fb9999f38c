//! What `durak tournament` plays: a new tournament (from a configuration file, bots on the
//! command line, or the demo) or the one a `--resume` directory holds, with its settings.

use super::{note, TournamentArgs};
use crate::error::bad_input;
use crate::CmdResult;
use durak_tournaments::config::{BotSection, ConfigFile, Input, TournamentSection};
use durak_tournaments::results::resume_command;
use durak_tournaments::settings::{resume_settings, Settings};
use durak_tournaments::{Tournament, TournamentDir};
use std::path::{Path, PathBuf};

/// Deals per table in the demo: about a minute on 2 cores (release build) with the six demo bots.
const DEMO_GAMES: u32 = 180;

/// The part of the overrides that names the tournament (what `--resume` compares), without the
/// run settings (see `durak_tournaments::settings`).
fn identity(s: &TournamentSection) -> TournamentSection {
    TournamentSection {
        name: None,
        concurrency: None,
        sandbox: None,
        affinity: None,
        html: None,
        limits: None,
        shard: None,
        replays: None,
        ..s.clone()
    }
}

/// What a run plays: the tournament, its settings, its directory.
pub(super) struct Target {
    pub(super) t: Tournament,
    pub(super) settings: Settings,
    pub(super) dir: TournamentDir,
    /// Notes for people (settings changed on resume...).
    pub(super) notes: Vec<String>,
    /// `tournament.toml` to write again once the directory is held (a resume that changed a
    /// setting).
    pub(super) rewrite: Option<ConfigFile>,
}

/// A new tournament: from a configuration file and/or bots, or the demo.
pub(super) fn new_target(args: &TournamentArgs, cwd: &Path) -> CmdResult<Target> {
    let demo = args.config.is_none() && args.bots.is_empty();
    let mut input = Input {
        file: None,
        cli_bots: args.bots.clone(),
        overrides: args.overrides()?,
        cwd: cwd.to_path_buf(),
        check_bots: true,
    };
    if let Some(path) = &args.config {
        input.file = Some((path.clone(), ConfigFile::load(path)?));
    }
    if demo {
        let file = demo_config(args.quiet, cwd)?;
        if args.games.is_none() {
            input.overrides.games = Some(DEMO_GAMES);
        }
        input.file = Some((PathBuf::from("the demo"), file));
    }
    let t = input.resolve()?;
    let mut settings = input.resolve_settings()?;
    if settings.sandbox == durak_referee::Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()?;
    }
    let name = settings.name.get_or_insert_with(|| {
        if demo {
            "demo".to_string()
        } else if let Some(c) = &args.config {
            c.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "tournament".into())
        } else {
            "tournament".to_string()
        }
    });
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("tournaments-out/{name}-{}", t.seed)));
    // Refused before the directory exists, so a refused command leaves nothing behind.
    refuse_sharded_sprt(&t, &settings)?;
    let dir = TournamentDir::create(&out, &t, &settings)?;
    Ok(Target {
        t,
        settings,
        dir,
        notes: Vec::new(),
        rewrite: None,
    })
}

/// An SPRT decides from every game in order, which no shard sees: refused, with the fix.
pub(super) fn refuse_sharded_sprt(t: &Tournament, settings: &Settings) -> CmdResult<()> {
    match (settings.shard, t.sprt) {
        (Some(sh), Some(_)) => Err(bad_input!(
            "--shard {sh} with an SPRT: the test decides from every game in order, which no \
             shard sees\n  fix: run an SPRT on one machine, or shard a tournament without --sprt"
        )),
        _ => Ok(()),
    }
}

/// `--resume DIR`: the tournament DIR holds, with the settings it records; anything else given
/// must agree with it (settings that may change are taken, noted and recorded).
pub(super) fn resume_target(args: &TournamentArgs, path: &Path, cwd: &Path) -> CmdResult<Target> {
    let (dir, mut stored) = TournamentDir::open(path, true)?;
    let (recorded, _) = dir.recorded()?;
    let all = args.overrides()?;
    let given_file = match &args.config {
        Some(c) => Some((c.clone(), ConfigFile::load(c)?)),
        None => None,
    };
    let mut overrides = identity(&all);
    let gave_anything =
        args.config.is_some() || !args.bots.is_empty() || overrides != TournamentSection::default();
    if gave_anything {
        // What the organiser gave, with the stored seed when none was given.
        let file = match &given_file {
            Some(f) => Some(f.clone()),
            None if args.bots.is_empty() => Some((dir.config_path(), recorded.clone())),
            None => {
                // Bots on the command line: what the command leaves out is the stored
                // tournament's, not the defaults, so a mismatch is only what the organiser
                // gave, and messages name DIR/tournament.toml for the rest. Its bots are the
                // command line's; their limits, the stored ones when all bots share them.
                let mut there = stored.to_config_file();
                let common = |f: fn(&BotSection) -> Option<u64>| {
                    let first = there.bots.first().and_then(f);
                    there
                        .bots
                        .iter()
                        .all(|b| f(b) == first)
                        .then_some(first)
                        .flatten()
                };
                let t = &mut there.tournament;
                t.move_ms = common(|b| b.move_ms);
                t.bank_ms = common(|b| b.bank_ms);
                t.startup_ms = common(|b| b.startup_ms);
                t.max_line_bytes =
                    common(|b| b.max_line_bytes.map(|v| v as u64)).map(|v| v as usize);
                there.bots.clear();
                Some((dir.config_path(), there))
            }
        };
        let has_seed = file
            .as_ref()
            .is_some_and(|(_, f)| f.tournament.seed.is_some());
        if overrides.seed.is_none() && (!has_seed || args.config.is_none()) {
            overrides.seed = Some(stored.seed);
        }
        let given = Input {
            file,
            cli_bots: args.bots.clone(),
            overrides,
            cwd: cwd.to_path_buf(),
            check_bots: false,
        }
        .resolve()
        .map_err(|e| {
            format!(
                "{e}\n  (while comparing with {})",
                dir.config_path().display()
            )
        })?;
        let diff = given.differences(&stored);
        if !diff.is_empty() {
            return Err(bad_input!(
                "{}: this directory holds another tournament: {}\n  fix: run `{}` with no other \
                 options to finish the tournament it holds, or start this one in a new \
                 directory with --out DIR",
                dir.config_path().display(),
                diff.join("; "),
                resume_command(path)
            ));
        }
    }
    // The run settings: the recorded ones; what was given again must agree, or be a change
    // that is allowed.
    let resumed = resume_settings(
        &dir.config_path(),
        &recorded,
        &Input {
            file: given_file,
            overrides: all,
            cwd: cwd.to_path_buf(),
            ..Input::default()
        },
    )?;
    if resumed.settings.sandbox == durak_referee::Sandbox::Strict {
        durak_referee::isolation::check_strict_sandbox()?;
    }
    stored.concurrency = resumed.concurrency;
    let rewrite = resumed.changed.then(|| stored.to_record(&resumed.settings));
    Ok(Target {
        t: stored,
        settings: resumed.settings,
        dir,
        notes: resumed.notes,
        rewrite,
    })
}

/// The demo: the built-in bots and the sample bots whose interpreters are present.
fn demo_config(quiet: bool, cwd: &Path) -> CmdResult<ConfigFile> {
    let mut bots = vec![
        BotSection {
            name: "builtin:random".into(),
            command: "builtin:random".into(),
            ..BotSection::default()
        },
        BotSection {
            name: "builtin:greedy".into(),
            command: "builtin:greedy".into(),
            ..BotSection::default()
        },
    ];
    let samples = sample_bots_dir(cwd);
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| which("python3"));
    let node = which("node").or_else(|| which("nodejs"));
    let langs = [
        ("python", "py", "Python", python),
        ("js", "js", "JavaScript", node),
    ];
    match &samples {
        None => note(
            quiet,
            "note: sample-bots/ not found here: the demo uses the built-in bots only (run it \
             from the repository root to include the sample bots)",
        ),
        Some(root) => {
            for (sub, ext, lang, interpreter) in langs {
                let dir = root.join(sub);
                let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .map(|rd| rd.flatten().map(|e| e.path()).collect())
                    .unwrap_or_default();
                files.retain(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(&format!("_bot.{ext}")))
                });
                files.sort();
                if files.is_empty() {
                    continue;
                }
                let Some(interp) = &interpreter else {
                    note(
                        quiet,
                        &format!(
                            "note: no {lang} interpreter found: the demo skips the {lang} sample \
                             bots ({})",
                            dir.display()
                        ),
                    );
                    continue;
                };
                for f in files {
                    let stem = f
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .unwrap_or("bot")
                        .trim_end_matches("_bot")
                        .to_string();
                    let file = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                    bots.push(BotSection {
                        name: format!("{stem}.{ext}"),
                        command: shell_words_join(&[&interp.to_string_lossy(), file]),
                        cwd: Some(dir.to_string_lossy().into_owned()),
                        ..BotSection::default()
                    });
                }
            }
        }
    }
    Ok(ConfigFile {
        tournament: TournamentSection::default(),
        bots,
    })
}

fn shell_words_join(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| {
            if w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-+:".contains(c))
            {
                w.to_string()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `sample-bots/` here, or next to the executable's repository (target/*/durak).
fn sample_bots_dir(cwd: &Path) -> Option<PathBuf> {
    let here = cwd.join("sample-bots");
    if here.is_dir() {
        return Some(here);
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(4)
        .map(|a| a.join("sample-bots"))
        .find(|p| p.is_dir())
}

fn which(name: &str) -> Option<PathBuf> {
    durak_referee::process::which(std::path::Path::new(name))
}
