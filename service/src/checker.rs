//! The checker: every queued version, several at a time but one per author (the fair queue,
//! `check_queue.rs`), is unpacked again from its upload (so the
//! build starts from the author's files), built when its `bot.toml` names a build
//! (`build.rs`), then checked with check-bot in the strict sandbox (the ladder's variant and
//! limits). Its build output and check-bot report go on its page. A passing version enters the
//! ladder and its bot's previous version retires; a failing one does not, and its page says
//! why. A check cut short by a kill is done again when the server starts.

use crate::archive;
use crate::build;
use crate::check_queue;
use crate::db::now_ms;
use crate::ladder::Ladder;
use crate::quota;
use crate::store;
use durak_checkbot::{Options, Status};
use durak_referee::BotCommand;
use rusqlite::{params, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Run the checker until the ladder stops: `[check] concurrency` threads taking versions from
/// the fair queue (`check_queue.rs`), and the sweep of failed versions' files
/// (`quota::sweep_failed`, at the start and every hour).
pub fn start(ladder: Arc<Ladder>) -> Vec<std::thread::JoinHandle<()>> {
    // Checks cut short by a kill are done again.
    let _ = ladder.db.write(|c| {
        c.execute(
            "UPDATE versions SET state = 'queued' WHERE state IN ('building', 'checking')",
            [],
        )
    });
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

fn set_failed(ladder: &Ladder, id: i64, reason: &str) -> Result<(), String> {
    ladder.db.write(|c| {
        c.execute(
            "UPDATE versions SET state = 'failed', reason = ?1, checked = ?2 WHERE id = ?3",
            params![reason, now_ms(), id],
        )
        .map(|_| ())
    })
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

async fn check_version(ladder: &Arc<Ladder>, id: i64) -> Result<(), String> {
    let cfg = &ladder.cfg;
    let paths = &ladder.paths;
    let (archive_path, folder, build_cmd, command): (String, String, Option<String>, String) =
        ladder.db.read(|c| {
            c.query_row(
                "SELECT archive, folder, build_cmd, command FROM versions WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
        })?;
    // From the upload again: a build cut short left nothing behind.
    let dest = paths.unpacked(id);
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::create_dir_all(&dest).map_err(|e| e.to_string())?;
    let limits = archive::Limits {
        max_unpacked: cfg.upload.max_unpacked,
        max_files: cfg.upload.max_files,
    };
    archive::unpack(std::path::Path::new(&archive_path), &dest, limits)?;
    store::folder_for_bots(&dest, crate::bots_other_uid(cfg));
    let folder = PathBuf::from(folder);
    if let Some(b) = &build_cmd {
        ladder
            .db
            .write(|c| c.execute("UPDATE versions SET state = 'building' WHERE id = ?1", [id]))?;
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
        let json = serde_json::to_string(&report).expect("json");
        ladder.db.write(|c| {
            c.execute(
                "UPDATE versions SET build = ?1, state = 'checking' WHERE id = ?2",
                params![json, id],
            )
        })?;
        if !report.ok {
            let _ = std::fs::remove_dir_all(&dest);
            return set_failed(
                ladder,
                id,
                report.failure.as_deref().unwrap_or("the build failed"),
            );
        }
    }
    let mut cmd = BotCommand::parse(&command)?;
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
    let mut report = durak_checkbot::check_bot(&cmd, &opts).await;
    // The report as JSON, with its text for people beside it. Its author sees paths relative
    // to the bot's folder, not where the server keeps it.
    report.cwd = Some("./ (the bot's folder)".into());
    let mut value = serde_json::to_value(&report).expect("json");
    value["text"] = serde_json::Value::String(report.to_text());
    let json = relative_paths(&value.to_string(), folder_of(&cmd), &ladder.paths.root);
    let now = now_ms();
    if !report.passed {
        ladder.db.write(|c| {
            c.execute(
                "UPDATE versions SET report = ?1 WHERE id = ?2",
                params![json, id],
            )
        })?;
        return set_failed(ladder, id, &why_failed(&report));
    }
    // Compared with the bot's version in the ladder (`ladder/compare.rs`): first, when the
    // organiser requires a new version not to be worse; else once it is in.
    let compare = &ladder.cfg.compare;
    let previous = if compare.enabled {
        crate::ladder::compare::previous_of(&ladder.db, id)?
    } else {
        None
    };
    if let (Some(p), true) = (previous, compare.require_not_worse) {
        ladder.db.write(|c| {
            let tx = c.transaction()?;
            // An older version of the bot still waiting for its verdict gives way.
            let n: i64 =
                tx.query_row("SELECT n FROM versions WHERE id = ?1", [id], |r| r.get(0))?;
            tx.execute(
                "UPDATE versions SET state = 'retired', reason = ?1 WHERE state = 'comparing' \
                 AND bot = (SELECT bot FROM versions WHERE id = ?2) AND id != ?2",
                params![
                    format!("replaced by version {n} before its comparison ended"),
                    id
                ],
            )?;
            tx.execute(
                "UPDATE versions SET state = 'comparing', report = ?1, checked = ?2, reason = \
                 NULL WHERE id = ?3",
                params![json, now, id],
            )?;
            tx.commit()
        })?;
        crate::ladder::compare::begin(&ladder.db, id, p)?;
        ladder.notify();
        return Ok(());
    }
    enter_ladder(ladder, id, Some(&json))?;
    if let Some(p) = previous {
        crate::ladder::compare::begin(&ladder.db, id, p)?;
        ladder.notify();
    }
    Ok(())
}

/// Version `id` enters the ladder (with its check-bot report `json`, when given): the bot's
/// other versions in it (or waiting for a comparison) retire, and the leaderboard is built
/// again.
pub fn enter_ladder(ladder: &Ladder, id: i64, json: Option<&str>) -> Result<(), String> {
    let now = now_ms();
    let retired: Vec<i64> = ladder.db.write(|c| {
        let tx = c.transaction()?;
        let bot: i64 =
            tx.query_row("SELECT bot FROM versions WHERE id = ?1", [id], |r| r.get(0))?;
        let n: i64 = tx.query_row("SELECT n FROM versions WHERE id = ?1", [id], |r| r.get(0))?;
        let mut s = tx.prepare(
            "SELECT id FROM versions WHERE bot = ?1 AND id != ?2 AND state IN ('active', \
             'suspended', 'comparing')",
        )?;
        let old: Vec<i64> = s
            .query_map(params![bot, id], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        drop(s);
        for o in &old {
            tx.execute(
                "UPDATE versions SET state = 'retired', reason = ?1 WHERE id = ?2",
                params![format!("replaced by version {n}"), o],
            )?;
        }
        tx.execute(
            "UPDATE versions SET state = 'active', report = COALESCE(?1, report), checked = \
             COALESCE(checked, ?2), entered = ?2, reason = NULL WHERE id = ?3",
            params![json, now, id],
        )?;
        tx.commit()?;
        Ok(old)
    })?;
    for o in retired {
        ladder.version_left(o)?;
    }
    ladder.versions_changed()?;
    Ok(())
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
pub fn ensure_house_bots(ladder: &Ladder) -> Result<Vec<i64>, String> {
    let now = now_ms();
    let listed: Vec<String> = ladder
        .cfg
        .ladder
        .house_bots
        .iter()
        .map(|h| format!("house-{}", h.trim_start_matches("builtin:")))
        .collect();
    let left = ladder.db.write(|c| {
        let tx = c.transaction()?;
        let org: i64 = tx.query_row(
            "SELECT id FROM accounts WHERE organiser = 1 ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )?;
        for (h, name) in ladder.cfg.ladder.house_bots.iter().zip(&listed) {
            let exists: Option<i64> = tx
                .query_row("SELECT id FROM bots WHERE name = ?1", [name], |r| r.get(0))
                .optional()?;
            if let Some(bot) = exists {
                tx.execute(
                    "UPDATE versions SET state = 'active', reason = NULL, entered = ?3 WHERE \
                     bot = ?1 AND state = 'removed' AND reason = ?2",
                    params![bot, HOUSE_DROPPED, now],
                )?;
                continue;
            }
            tx.execute(
                "INSERT INTO bots(name, account, house, created) VALUES (?1, ?2, 1, ?3)",
                params![name, org, now],
            )?;
            let bot = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO versions(bot, n, state, command, language, submitted, checked, \
                 entered) VALUES (?1, 1, 'active', ?2, 'built-in', ?3, ?3, ?3)",
                params![bot, h, now],
            )?;
        }
        let mut left = Vec::new();
        {
            let mut st = tx.prepare(
                "SELECT v.id, b.name FROM versions v JOIN bots b ON b.id = v.bot WHERE b.house = 1 \
                 AND v.state = 'active'",
            )?;
            let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
            for row in rows {
                let (id, name) = row?;
                if !listed.contains(&name) {
                    left.push(id);
                }
            }
        }
        for id in &left {
            tx.execute(
                "UPDATE versions SET state = 'removed', reason = ?2 WHERE id = ?1",
                params![id, HOUSE_DROPPED],
            )?;
        }
        tx.commit()?;
        Ok(left)
    })?;
    Ok(left)
}

#[cfg(test)]
mod tests {
    use super::*;

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
