//! `durak merge DIR... --out DIR`: the directories of a tournament's shards ([`crate::shard`])
//! put together into one tournament directory, as one machine would have recorded it:
//! `results.jsonl` in id order (the order a single run records them in), every replay (hard
//! links where the file system allows, else copies), and `tournament.toml` without the shard.
//!
//! Refused, naming the directory and the field, before anything is written:
//!
//! - a directory of another tournament (any field of its identity differs: variant, format,
//!   table size, games, seed, challenger, bots and their commands, directories and limits; or a
//!   setting the games ran under: sandbox, affinity, resource limits);
//! - shards of another split (`shard = "I/N"` with another N), a shard given twice (its games
//!   would be recorded twice), a missing shard;
//! - a shard not finished (fewer games recorded than its share of the schedule, or a torn last
//!   line), or holding a game of another shard;
//! - shards whose disqualifications differ from what one machine would have decided: each shard
//!   counts a bot's faults in a row within its own games, so a bot that faults on several
//!   machines may be disqualified in one run and not in the other. The merge replays the
//!   disqualifications in id order over every game and refuses a difference (a forfeit that one
//!   machine would not have recorded, or a game that it would have recorded as a forfeit).
//!
//! What passes is byte for byte the `results.jsonl` of a single run, apart from the timings
//! (`duration_ms`), with deterministic bots (the built-in and sample bots are) — and so are its
//! standings. Nothing in memory grows with the games but a bit per game (reading each shard's
//! results in id order, a line at a time).

use crate::config::Tournament;
use crate::error::Error;
use crate::recorded::{verify_results, GameSet};
use crate::results::{lines_in_id_order, ResultLine, TournamentDir, CONFIG_FILE, RESULTS_FILE};
use crate::schedule::Schedule;
use crate::sequencer::Discipline;
use crate::settings::Settings;
use crate::shard::Shard;
use durak_protocol::FaultKind;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a merge did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// Shards merged.
    pub shards: usize,
    /// Games in the merged results.
    pub games: usize,
    /// Replays hard-linked, and copied (another file system).
    pub linked: usize,
    pub copied: usize,
    /// Replays named by a result line but missing from their shard (not in the merged
    /// directory either): how many, and the first.
    pub missing_replays: usize,
    pub first_missing: Option<PathBuf>,
}

/// One shard directory, opened and checked.
struct Part {
    dir: TournamentDir,
    shard: Shard,
}

/// Merge the shard directories `dirs` into the new directory `out` (see the module
/// documentation). Returns the merged directory, its tournament and settings, and what was
/// done.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
) -> Result<(TournamentDir, Tournament, Settings, Merged), Error> {
    let Some(first_path) = dirs.first() else {
        return Err(Error::Invalid(
            "no shard directory given\n  fix: durak merge DIR... --out DIR".into(),
        ));
    };
    let (first_dir, t) = TournamentDir::open(first_path, false)?;
    let (_, first_settings) = first_dir.recorded()?;
    let schedule = Schedule::build(&t);
    let mut parts = open_parts(dirs, &t, &first_dir, &first_settings)?;
    check_every_shard(&parts, &first_dir)?;
    parts.sort_by_key(|p| p.shard.index);
    let (missing_replays, first_missing) = verify_parts(&parts, &t, &schedule)?;
    check_disqualifications(&parts, &t, &schedule)?;
    let out_dir = TournamentDir {
        path: out.to_path_buf(),
    };
    let settings = Settings {
        shard: None,
        ..first_settings
    };
    let (linked, copied, games) = write_merged(&parts, &out_dir, &t, &settings, &schedule)?;
    // The merged directory is a finished tournament, as `durak standings` reads it.
    let scan = verify_results(&t, &out_dir)?;
    debug_assert_eq!(scan.count(), schedule.total_games());
    Ok((
        out_dir,
        t,
        settings,
        Merged {
            shards: parts.len(),
            games,
            linked,
            copied,
            missing_replays,
            first_missing,
        },
    ))
}

/// Each directory opened: of the same tournament, under the same settings, of the same split,
/// each shard once.
fn open_parts(
    dirs: &[PathBuf],
    t: &Tournament,
    first_dir: &TournamentDir,
    first_settings: &Settings,
) -> Result<Vec<Part>, Error> {
    let first_config = first_dir.config_path();
    let mut parts: Vec<Part> = Vec::new();
    for path in dirs {
        let (dir, here) = TournamentDir::open(path, false)?;
        let (_, settings) = dir.recorded()?;
        let config = dir.config_path();
        let mut diff = here.differences(t);
        diff.extend(settings_differences(first_settings, &settings));
        if !diff.is_empty() {
            return Err(invalid_error!(
                "{}: another tournament than {} (there): {}\n  fix: merge only the shards of \
                 one tournament (one configuration and seed, played under the same settings)",
                config.display(),
                first_config.display(),
                diff.join("; ")
            ));
        }
        let shard = settings.shard.unwrap_or(Shard { index: 1, count: 1 });
        if let Some(p) = parts.first() {
            if p.shard.count != shard.count {
                return Err(invalid_error!(
                    "{}: [tournament] shard = \"{shard}\", but {}: shard = \"{}\": shards of \
                     another split (into {} and into {} shards)\n  fix: merge the shards of one \
                     split, every one of them",
                    config.display(),
                    p.dir.config_path().display(),
                    p.shard,
                    shard.count,
                    p.shard.count
                ));
            }
        }
        if let Some(p) = parts.iter().find(|p| p.shard.index == shard.index) {
            return Err(invalid_error!(
                "{}: [tournament] shard = \"{shard}\", as {}: every game of shard {shard} would \
                 be recorded twice\n  fix: give each shard's directory once",
                config.display(),
                p.dir.config_path().display()
            ));
        }
        parts.push(Part { dir, shard });
    }
    Ok(parts)
}

/// The settings the games ran under that differ between the first shard and another.
fn settings_differences(first: &Settings, here: &Settings) -> Vec<String> {
    let mut diff = Vec::new();
    if here.sandbox != first.sandbox {
        diff.push(format!(
            "sandbox is {} there and {} here",
            first.sandbox, here.sandbox
        ));
    }
    if here.affinity != first.affinity {
        diff.push(format!(
            "affinity is {} there and {} here",
            first.affinity.name(),
            here.affinity.name()
        ));
    }
    if here.limits != first.limits {
        diff.push(format!(
            "[tournament.limits] are {} there and {} here",
            limits_text(first),
            limits_text(here)
        ));
    }
    diff
}

/// Every shard of the split given.
fn check_every_shard(parts: &[Part], first_dir: &TournamentDir) -> Result<(), Error> {
    let first_config = first_dir.config_path();
    let count = parts[0].shard.count;
    let missing: Vec<String> = (1..=count)
        .filter(|i| !parts.iter().any(|p| p.shard.index == *i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(invalid_error!(
            "shard{} {} of {} {} missing (given: {})\n  fix: give the directory of every shard, \
             1/{count} to {count}/{count}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            first_config.display(),
            if missing.len() == 1 { "is" } else { "are" },
            parts
                .iter()
                .map(|p| format!("{} ({})", p.shard, p.dir.path.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}

/// Each shard holding its own games only, and finished. Returns the replays named but missing
/// (how many, and the first).
fn verify_parts(
    parts: &[Part],
    t: &Tournament,
    schedule: &Schedule,
) -> Result<(usize, Option<PathBuf>), Error> {
    let count = parts[0].shard.count;
    // Each shard holding its own games only (verify_results refuses lines that are not games
    // of the tournament, and a game twice in one file), then finished. The lines' shards come
    // first: a game of another shard counted as one of this shard's would make it look
    // unfinished or over-full, with a `--resume` fix that then refuses.
    let mut missing_replays = 0;
    let mut first_missing = None;
    for p in parts {
        let scan = verify_results(t, &p.dir)?;
        for l in lines_in_id_order(&p.dir.results_path())? {
            let l = l?;
            let (table, g) = schedule.game(l.id).expect("verified against the schedule");
            if !p.shard.holds(table, g.index) {
                return Err(invalid_error!(
                    "{}: game {} (table {}, game {}) is a game of shard {}, not of this \
                     directory's shard {}\n  fix: each shard's directory must hold its own games \
                     only (was a results file copied between shards?)",
                    p.dir.results_path().display(),
                    l.id,
                    table.id,
                    g.index,
                    Shard::of(table, g.index, count),
                    p.shard
                ));
            }
        }
        let expected = p.shard.games(schedule);
        if scan.count() != expected || scan.torn_tail {
            return Err(invalid_error!(
                "{}: shard {} is not finished: {} of its {expected} games recorded{}\n  fix: \
                 finish it with `{}`, then merge again",
                p.dir.path.display(),
                p.shard,
                scan.count(),
                if scan.torn_tail {
                    " (and a last line cut short)"
                } else {
                    ""
                },
                crate::error::resume_command(&p.dir.path)
            ));
        }
        missing_replays += scan.missing_replays;
        if first_missing.is_none() {
            first_missing = scan.first_missing;
        }
    }
    Ok((missing_replays, first_missing))
}

/// The disqualifications, as one machine would have decided them.
fn check_disqualifications(
    parts: &[Part],
    t: &Tournament,
    schedule: &Schedule,
) -> Result<(), Error> {
    let count = parts[0].shard.count;
    let mut discipline = Discipline::new(t);
    let mut seen = GameSet::new(schedule.total_games());
    for l in merged_lines(parts)? {
        let l = l?;
        if !seen.insert(l.id) {
            return Err(invalid_error!(
                "game {} is recorded twice across the shards",
                l.id
            ));
        }
        check_discipline(&mut discipline, &l, parts, count, schedule)?;
    }
    Ok(())
}

/// Write the merged directory: `tournament.toml`, the results in id order and the replays
/// (linked, or copied). Returns how many replays were linked and copied, and the games.
fn write_merged(
    parts: &[Part],
    out_dir: &TournamentDir,
    t: &Tournament,
    settings: &Settings,
    schedule: &Schedule,
) -> Result<(usize, usize, usize), Error> {
    let out = out_dir.path.as_path();
    let count = parts[0].shard.count;
    if out.join(CONFIG_FILE).exists()
        || std::fs::read_dir(out).is_ok_and(|mut e| e.next().is_some())
    {
        return Err(invalid_error!(
            "{}: the directory is not empty\n  fix: give --out a new or empty directory",
            out.display()
        ));
    }
    std::fs::create_dir_all(out_dir.replays_path())
        .map_err(|e| disk_error!("{}: cannot create: {e}", out.display()))?;
    write_file(
        &out_dir.config_path(),
        t.to_record(settings).to_toml().as_bytes(),
    )?;
    let tmp = out.join(format!(".{RESULTS_FILE}.tmp"));
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(&tmp)
            .map_err(|e| disk_error!("{}: cannot create: {e}", tmp.display()))?,
    );
    let (mut linked, mut copied, mut games) = (0, 0, 0);
    for l in merged_lines(parts)? {
        let l = l?;
        if let Some(r) = &l.replay {
            let part = &parts[shard_of(schedule, &l, count) as usize - 1];
            let (from, to) = (part.dir.path.join(r), out.join(r));
            if from.is_file() {
                if std::fs::hard_link(&from, &to).is_ok() {
                    linked += 1;
                } else {
                    std::fs::copy(&from, &to).map_err(|e| {
                        disk_error!("{}: cannot copy to {}: {e}", from.display(), to.display())
                    })?;
                    copied += 1;
                }
            }
        }
        let text = serde_json::to_string(&l).map_err(|e| Error::Run(e.to_string()))?;
        writeln!(w, "{text}").map_err(|e| disk_error!("{}: cannot write: {e}", tmp.display()))?;
        games += 1;
    }
    w.into_inner()
        .map_err(|e| e.to_string())
        .and_then(|f| f.sync_all().map_err(|e| e.to_string()))
        .map_err(|e| disk_error!("{}: cannot write: {e}", tmp.display()))?;
    std::fs::rename(&tmp, out_dir.results_path())
        .map_err(|e| disk_error!("{}: cannot write: {e}", out_dir.results_path().display()))?;
    Ok((linked, copied, games))
}

fn limits_text(s: &Settings) -> String {
    s.limits
        .entries()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::File::create(path)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .map_err(|e| disk_error!("{}: cannot write: {e}", path.display()))
}

fn shard_of(schedule: &Schedule, l: &ResultLine, count: u32) -> u32 {
    let (table, g) = schedule.game(l.id).expect("verified against the schedule");
    Shard::of(table, g.index, count).index
}

/// Every shard's lines in id order, merged (a k-way merge: k is the number of shards).
fn merged_lines(parts: &[Part]) -> Result<impl Iterator<Item = Result<ResultLine, Error>>, Error> {
    let mut heads = Vec::new();
    for p in parts {
        heads.push(lines_in_id_order(&p.dir.results_path())?.peekable());
    }
    Ok(std::iter::from_fn(move || {
        let mut best: Option<(usize, u64)> = None;
        for (i, h) in heads.iter_mut().enumerate() {
            match h.peek() {
                Some(Err(_)) => return h.next(),
                Some(Ok(l)) if best.is_none_or(|(_, id)| l.id < id) => best = Some((i, l.id)),
                _ => {}
            }
        }
        heads[best?.0].next()
    }))
}

/// Game `l` (in id order) against the disqualifications one machine would have decided: a seat
/// forfeits exactly when its bot is disqualified before the game, and the game disqualifies the
/// bots its line says.
fn check_discipline(
    d: &mut Discipline,
    l: &ResultLine,
    parts: &[Part],
    count: u32,
    schedule: &Schedule,
) -> Result<(), Error> {
    let here = || {
        parts[shard_of(schedule, l, count) as usize - 1]
            .dir
            .path
            .display()
    };
    let why = "each shard decides disqualifications from its own games (a bot's faults in a row \
               are counted within its shard), and here that differs from what one machine would \
               have decided\n  fix: run this tournament on one machine, or with \
               max_consecutive_faults = 0 (no disqualification for faults in a row)";
    for (seat, name) in l.seats.iter().enumerate() {
        let forfeit = l
            .faults
            .iter()
            .any(|f| f.seat == seat && f.kind == FaultKind::Forfeit);
        let out = d.index(name).is_some_and(|b| d.is_disqualified(b));
        if forfeit != out {
            return Err(invalid_error!(
                "{}/{RESULTS_FILE}: game {}: {name} {}\n  {why}",
                here(),
                l.id,
                if forfeit {
                    "forfeits, but one machine would have had it play (it was not disqualified \
                     before this game)"
                } else {
                    "played, but one machine would have recorded a forfeit (it was disqualified \
                     by an earlier game)"
                }
            ));
        }
    }
    let newly: Vec<String> = d
        .record(l)
        .into_iter()
        .map(|(b, _)| d.names[b].clone())
        .collect();
    if newly != l.disqualified {
        return Err(invalid_error!(
            "{}/{RESULTS_FILE}: game {}: disqualifies {:?}, but one machine would have \
             disqualified {:?} after it\n  {why}",
            here(),
            l.id,
            l.disqualified,
            newly
        ));
    }
    Ok(())
}
