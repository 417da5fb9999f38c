//! The checker: every queued version, several at a time but one per author (the fair queue,
//! `check_queue.rs`), is built in the folder its upload was unpacked to (once, when it was
//! accepted: `submit.rs`) when its `bot.toml` names a build (`build.rs`), then checked with
//! check-bot in the strict sandbox (the ladder's variant and limits). Its build output and
//! check-bot report go on its page. A passing version enters the ladder and its bot's previous
//! version retires; a failing one does not, and its page says why. A check cut short by a kill
//! is done again when the server starts, in a folder unpacked again from its upload (what a
//! build cut short left is not built on).

use crate::archive;
use crate::build;
use crate::check_queue;
use crate::db::{now_ms, DbError};
use crate::domain::versions;
use crate::ladder::Ladder;
use crate::quota;
use crate::store;
use durak_checkbot::{Options, Status};
use durak_referee::BotCommand;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Run the checker until the ladder stops: `[check] concurrency` threads taking versions from
/// the fair queue (`check_queue.rs`), and the sweep of failed versions' files
/// (`quota::sweep_failed`, at the start and every hour).
pub fn start(ladder: Arc<Ladder>) -> Vec<std::thread::JoinHandle<()>> {
    // Checks cut short by a kill are done again, each from its upload.
    restore_interrupted(&ladder);
    let _ = versions::requeue_interrupted(&ladder.db);
    let turns = Arc::new(check_queue::Turns::default());
    let mut threads: Vec<_> = (0..ladder.cfg.check_concurrency)
        .map(|i| {
            let (ladder, turns) = (ladder.clone(), turns.clone());
            std::thread::Builder::new()
                .name(format!("checker-{i}"))
                .spawn(move || check_loop(&ladder, &turns))
                .expect("thread")
        })
        .collect();
    threads.push(
        std::thread::Builder::new()
            .name("sweep".into())
            .spawn(move || sweep_loop(&ladder))
            .expect("thread"),
    );
    threads
}

fn check_loop(ladder: &Arc<Ladder>, turns: &check_queue::Turns) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    while !ladder.stopping() {
        match check_queue::next(ladder, turns) {
            Ok(Some(id)) => {
                if let Err(e) = rt.block_on(check_version(ladder, id)) {
                    tracing::warn!("checking version {id}: {e}");
                    let _ = set_failed(ladder, id, &format!("the check could not run: {e}"));
                }
                // The author's next version may start now, on any of the checker's threads.
                ladder.notify();
            }
            Ok(None) => ladder.wait(Duration::from_millis(300)),
            Err(e) => {
                tracing::warn!("checker: {e}");
                ladder.wait(Duration::from_secs(1));
            }
        }
    }
}

/// The folders of the checks a kill cut short (`building` or `checking`), unpacked again from
/// their uploads: a build may have left half its work in them. One whose upload cannot be
/// unpacked fails, saying why.
fn restore_interrupted(ladder: &Ladder) {
    let interrupted = match versions::interrupted(&ladder.db) {
        Ok(ids) => ids,
        Err(e) => return tracing::warn!("finding the checks cut short: {e}"),
    };
    for id in interrupted {
        if let Err(e) = unpack_again(ladder, id) {
            tracing::warn!("version {id}: its check was cut short, and {e}");
            let why = format!("its check was cut short, and its upload cannot be unpacked: {e}");
            let _ = set_failed(ladder, id, &why);
        }
    }
}

/// Version `id`'s folder made again from its upload (in a staging folder, renamed into place).
fn unpack_again(ladder: &Ladder, id: i64) -> Result<(), CheckError> {
    let paths = &ladder.paths;
    let archive: String = ladder.db.read(|c| {
        c.query_row("SELECT archive FROM versions WHERE id = ?1", [id], |r| {
            r.get(0)
        })
    })?;
    let (tmp, _) = crate::submit::stage(
        paths,
        Path::new(&archive),
        crate::submit::limits(&ladder.cfg),
    )?;
    crate::submit::sync_tree(tmp.path())?;
    let dest = paths.unpacked(id);
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::rename(tmp.path(), &dest)?;
    crate::submit::sync_dir(&paths.bots())?;
    Ok(())
}

/// Failed versions' files go after `[quota] failed_keep_days`: at the start, then hourly.
fn sweep_loop(ladder: &Ladder) {
    let mut last: Option<std::time::Instant> = None;
    while !ladder.stopping() {
        if last.is_none_or(|t| t.elapsed() >= quota::SWEEP_EVERY) {
            last = Some(std::time::Instant::now());
            match quota::sweep_failed(&ladder.db, &ladder.paths, &ladder.cfg.quota, now_ms()) {
                Ok(0) => {}
                Ok(n) => {
                    tracing::info!("removed the files of {n} failed versions");
                    // Their pages say so.
                    let _ = ladder.versions_changed();
                }
                Err(e) => tracing::warn!("sweeping failed versions' files: {e}"),
            }
        }
        ladder.wait(Duration::from_secs(1));
    }
}

/// Why a version's check could not run (not why it failed: that is its report).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Db(#[from] DbError),
    /// Its upload cannot be unpacked again (a check cut short by a kill).
    #[error(transparent)]
    Unpack(#[from] archive::ArchiveError),
    /// Its folder cannot be made.
    #[error(transparent)]
    Folder(#[from] std::io::Error),
    /// Its `command` is not one the referee can run (`0`: why).
    #[error("{0}")]
    Command(String),
}

fn set_failed(ladder: &Ladder, id: i64, reason: &str) -> Result<(), DbError> {
    versions::fail_check(&ladder.db, id, reason)
}

/// The first failed check, in a line.
fn why_failed(r: &durak_checkbot::Report) -> String {
    for s in &r.sections {
        for c in &s.checks {
            if c.status == Status::Fail {
                let what = c
                    .problem
                    .as_ref()
                    .map(|p| p.message.clone())
                    .or_else(|| c.summary.clone())
                    .or_else(|| c.details.first().cloned())
                    .unwrap_or_default();
                return format!("check-bot: {}: {} ({})", c.title, what, s.title);
            }
        }
    }
    "check-bot failed".into()
}

async fn check_version(ladder: &Arc<Ladder>, id: i64) -> Result<(), CheckError> {
    let cfg = &ladder.cfg;
    let paths = &ladder.paths;
    let (folder, build_cmd, command): (String, Option<String>, String) = ladder.db.read(|c| {
        c.query_row(
            "SELECT folder, build_cmd, command FROM versions WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
    })?;
    // The folder unpacked when the upload was accepted, as it is: never unpacked again here.
    let dest = paths.unpacked(id);
    store::folder_for_bots(&dest, crate::bots_other_uid(cfg));
    let folder = PathBuf::from(folder);
    if let Some(b) = &build_cmd {
        versions::set_building(&ladder.db, id)?;
        let started = std::time::Instant::now();
        let report = build::run(
            b,
            &folder,
            &cfg.build,
            cfg.sandbox,
            vec![paths.root.clone()],
        )
        .await;
        // What it left: no link out of the folder, no fifo or socket (`build_check.rs`).
        let report = crate::build_check::refuse_unsafe(report, &folder);
        crate::metrics::build_done(started.elapsed().as_secs_f64(), report.ok);
        let json = serde_json::to_string(&report).expect("json");
        versions::built(&ladder.db, id, &json)?;
        if !report.ok {
            let _ = std::fs::remove_dir_all(&dest);
            let reason = report.failure.as_deref().unwrap_or("the build failed");
            return Ok(set_failed(ladder, id, reason)?);
        }
    }
    let mut cmd = BotCommand::parse(&command).map_err(|e| CheckError::Command(e.to_string()))?;
    cmd.cwd = Some(folder);
    cmd.isolation.sandbox = cfg.sandbox;
    cmd.isolation.limits = cfg.resources;
    let opts = Options {
        variants: vec![cfg.ladder.variant],
        games: cfg.check_games,
        limits: cfg.ladder.limits,
        seed: 1,
        replay_dir: None,
        long: cfg.check_long,
    };
    let started = std::time::Instant::now();
    let mut report = durak_checkbot::check_bot(&cmd, &opts).await;
    crate::metrics::check_done(started.elapsed().as_secs_f64(), report.passed);
    // The report as JSON, with its text for people beside it. Its author sees paths relative
    // to the bot's folder, not where the server keeps it.
    report.cwd = Some("./ (the bot's folder)".into());
    let mut value = serde_json::to_value(&report).expect("json");
    value["text"] = serde_json::Value::String(report.to_text());
    let json = relative_paths(&value.to_string(), folder_of(&cmd), &ladder.paths.root);
    if !report.passed {
        versions::set_report(&ladder.db, id, &json)?;
        return Ok(set_failed(ladder, id, &why_failed(&report))?);
    }
    // Compared with the bot's version in the ladder (`ladder/compare/`): first, when the
    // organiser requires a new version not to be worse; else once it is in.
    let compare = &ladder.cfg.compare;
    let previous = if compare.enabled {
        crate::ladder::compare::previous_of(&ladder.db, id)?
    } else {
        None
    };
    let suspended = ladder
        .db
        .read(|c| versions::author_suspension(c, id))?
        .is_some();
    if let (Some(p), true, false) = (previous, compare.require_not_worse, suspended) {
        versions::await_comparison(&ladder.db, id, &json)?;
        crate::ladder::compare::begin(&ladder.db, id, p)?;
        ladder.notify();
        return Ok(());
    }
    let entered = enter_ladder(ladder, id, Some(&json))?;
    if let (Some(p), true) = (previous, entered) {
        crate::ladder::compare::begin(&ladder.db, id, p)?;
        ladder.notify();
    }
    Ok(())
}

/// Version `id` enters the ladder (with its check-bot report `json`, when given): the bot's
/// other versions in it (or waiting for a comparison) retire, and the leaderboard is built
/// again. Only a version still in its check or comparison enters: one the organiser took out
/// meanwhile stays out, and one whose author's account was suspended meanwhile becomes
/// `suspended` (as the author's versions in the ladder did when the account was suspended).
/// Returns whether it entered.
pub fn enter_ladder(ladder: &Ladder, id: i64, json: Option<&str>) -> Result<bool, DbError> {
    let versions::Entered::In { retired } = versions::enter(&ladder.db, id, json)? else {
        tracing::info!("version {id} passed but stays out of the ladder");
        ladder.versions_changed()?;
        return Ok(false);
    };
    for o in retired {
        ladder.version_left(o)?;
    }
    ladder.versions_changed()?;
    Ok(true)
}

fn folder_of(cmd: &BotCommand) -> &Path {
    cmd.cwd.as_deref().unwrap_or(Path::new("."))
}

/// `json` (a report) with the bot's folder written `./` and the rest of the data directory
/// `DATA/`: the server's own paths are nobody's business. (Each as given and absolute, and
/// only where it is a path: followed by `/`, or the folder's whole path.)
fn relative_paths(json: &str, folder: &Path, root: &Path) -> String {
    let forms = |p: &Path| {
        let mut v = vec![p.to_path_buf()];
        if let Ok(a) = std::path::absolute(p) {
            v.push(a);
        }
        // As the JSON text holds them (escaped as JSON strings are), longest first.
        let mut v: Vec<String> = v
            .iter()
            .map(|p| {
                let t = serde_json::to_string(&p.display().to_string()).expect("json");
                t.trim_matches('"').trim_end_matches('/').to_string()
            })
            .filter(|t| t.contains('/'))
            .collect();
        v.sort_by_key(|t| std::cmp::Reverse(t.len()));
        v
    };
    let mut out = json.to_string();
    for f in forms(folder) {
        out = out.replace(&format!("{f}/"), "./").replace(&f, ".");
    }
    for r in forms(root) {
        out = out.replace(&format!("{r}/"), "DATA/");
    }
    out
}

/// Why a house bot left the ladder: dropped from `house_bots` (back when it is listed again).
pub const HOUSE_DROPPED: &str = "dropped from the configuration's house_bots";

/// House bots (built-in, owned by the organiser) as the configuration lists them, at every
/// start: a new one joins the ladder, one dropped from the list leaves it (`removed`, its games
/// kept), one listed again comes back. Returns the versions that left (their jobs are to be
/// cancelled: [`Ladder::version_left`]).
pub fn ensure_house_bots(ladder: &Ladder) -> Result<Vec<i64>, crate::db::DbError> {
    let listed: Vec<(String, String)> = ladder
        .cfg
        .ladder
        .house_bots
        .iter()
        .map(|h| {
            (
                h.clone(),
                format!("house-{}", h.trim_start_matches("builtin:")),
            )
        })
        .collect();
    versions::house_bots(&ladder.db, &listed, HOUSE_DROPPED)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check that could not run says what failed in that module's words (the author reads
    /// it as the version's reason); a version that cannot be seated names it.
    #[test]
    fn a_check_that_cannot_run_says_why() {
        let e = CheckError::from(archive::ArchiveError::NoManifest);
        assert!(
            e.to_string().starts_with("the archive has no bot.toml"),
            "{e}"
        );
        let e = crate::ladder::executor::SeatError::NoFolder(3);
        assert_eq!(e.to_string(), "version 3 has no folder");
    }

    #[test]
    fn the_report_shows_paths_relative_to_the_bot() {
        let json = r#"{"cwd":"/srv/d/bots/v3","text":"started in /srv/d/bots/v3/ (cannot open /srv/d/bots/v3/x, /srv/d/uploads/v3.archive); a word: d/bots"}"#;
        let out = relative_paths(json, Path::new("/srv/d/bots/v3"), Path::new("/srv/d"));
        assert_eq!(
            out,
            r#"{"cwd":".","text":"started in ./ (cannot open ./x, DATA/uploads/v3.archive); a word: d/bots"}"#
        );
    }
}
