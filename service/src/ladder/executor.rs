//! The server's own worker: each slot is a thread with a single-threaded runtime (as a
//! tournament's tables are) that claims a job, plays it — each seat rotation one referee match
//! over the deals not yet recorded — and records every game as it ends.

use super::jobs::{self, Job};
use super::recorder::{self, GameToRecord};
use super::{Ladder, LEASE_MS};
use crate::store;
use durak_referee::{
    play_match_with, BotCommand, GameRecord, MatchConfig, PlannedGame, ReplayLog, SeatSpec,
};
use durak_rules::Seat;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(super) fn slot_loop(ladder: Arc<Ladder>, slot: usize) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("ladder table {slot}: no runtime: {e}");
            return;
        }
    };
    let owner = format!("local:{}:{slot}", ladder.run_id);
    while !ladder.stopping() {
        if ladder.is_paused() {
            ladder.wait(Duration::from_millis(500));
            continue;
        }
        match jobs::claim(&ladder.db, &owner, LEASE_MS) {
            Ok(Some(job)) => {
                if let Err(e) = rt.block_on(play_job(&ladder, &owner, &job)) {
                    tracing::warn!("ladder job {}: {e}", job.id);
                    // Played again after its lease (or cancelled after a few tries).
                    if job.attempts >= 5 {
                        let _ = ladder.db.write(|c| {
                            c.execute(
                                "UPDATE jobs SET state = 'cancelled', owner = NULL WHERE id = ?1",
                                [job.id],
                            )
                        });
                    }
                    ladder.wait(Duration::from_secs(1));
                }
            }
            Ok(None) => ladder.wait(Duration::from_millis(500)),
            Err(e) => {
                tracing::warn!("ladder table {slot}: {e}");
                ladder.wait(Duration::from_secs(1));
            }
        }
    }
}

/// The folder a version plays from.
pub fn version_folder(ladder: &Ladder, v: i64) -> Result<Option<PathBuf>, String> {
    let f: Option<String> = ladder.db.read(|c| {
        c.query_row("SELECT folder FROM versions WHERE id = ?1", [v], |r| {
            r.get(0)
        })
    })?;
    Ok(f.map(PathBuf::from))
}

/// The seat of a version in a match.
fn seat_spec(ladder: &Ladder, v: &store::Version) -> Result<SeatSpec, String> {
    let cfg = &ladder.cfg;
    let mut command = BotCommand::parse(&v.command)?;
    if !v.house {
        let folder = version_folder(ladder, v.id)?
            .ok_or_else(|| format!("version {} has no folder", v.id))?;
        command.cwd = Some(folder);
        command.isolation.sandbox = cfg.sandbox;
        command.isolation.limits = cfg.resources;
    }
    Ok(SeatSpec {
        name: v.id.to_string(),
        command,
        limits: cfg.ladder.limits,
    })
}

async fn play_job(ladder: &Arc<Ladder>, owner: &str, job: &Job) -> Result<(), String> {
    let mut versions = Vec::new();
    for &id in &job.seats {
        match store::version(&ladder.db, id)? {
            Some(v) if v.state == "active" => versions.push(v),
            _ => {
                // A version that left since the job was made: the job goes.
                ladder.version_left(id)?;
                return Ok(());
            }
        }
    }
    let done: HashSet<u32> = recorder::recorded_games(&ladder.db, job.id)?
        .into_iter()
        .collect();
    // Keep the lease while playing.
    let lost = Arc::new(AtomicBool::new(false));
    let renew = {
        let (ladder, owner, lost, id) = (ladder.clone(), owner.to_string(), lost.clone(), job.id);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(LEASE_MS as u64 / 6)).await;
                let db = ladder.db.clone();
                let o = owner.clone();
                let held = tokio::task::spawn_blocking(move || jobs::renew(&db, id, &o, LEASE_MS))
                    .await
                    .unwrap_or(Ok(false));
                if !matches!(held, Ok(true)) {
                    lost.store(true, Ordering::SeqCst);
                    return;
                }
            }
        })
    };
    let k = job.seats.len();
    let d = job.deals.len();
    let cfg = &ladder.cfg;
    let mut error = None;
    for r in 0..k {
        if ladder.is_cancelled(job.id) || lost.load(Ordering::SeqCst) || ladder.stopping() {
            break;
        }
        let plan: Vec<PlannedGame> = (0..d)
            .filter(|&i| !done.contains(&((r * d + i) as u32)))
            .map(|i| PlannedGame {
                index: i as u32,
                seed: job.deals[i].seed,
                dealer: Some(job.deals[i].dealer as Seat),
                first_game: true,
            })
            .collect();
        if plan.is_empty() {
            continue;
        }
        let seating: Vec<i64> = job.seating(r);
        let mut seats = Vec::new();
        for v in &seating {
            let ver = versions.iter().find(|x| x.id == *v).expect("loaded");
            seats.push(seat_spec(ladder, ver)?);
        }
        let mut m = MatchConfig::new(
            cfg.ladder.variant,
            seats,
            d as u32,
            job.deals[0].seed ^ r as u64,
        );
        m.plan = Some(plan);
        m.replay_dir = Some(ladder.paths.replays().join(format!("j{}", job.id)));
        m.replay_prefix = format!("r{r}-g");
        m.hidden = vec![ladder.paths.root.clone()];
        let all_seats: Vec<Seat> = (0..k).collect();
        let on_end = |rec: &GameRecord, log: &mut Option<ReplayLog>| -> Vec<Seat> {
            if ladder.is_cancelled(job.id) || lost.load(Ordering::SeqCst) || ladder.stopping() {
                // Not recorded: the rest forfeits at once (nobody is started again).
                return all_seats.clone();
            }
            let Some(log) = log.take() else {
                return Vec::new();
            };
            let g = GameToRecord {
                job: job.id,
                game: (r * d) as u32 + rec.game,
                rotation: r,
                deal: rec.game as usize,
                seats: &seating,
                record: rec,
                max_consecutive_faults: cfg.ladder.max_consecutive_faults,
            };
            match recorder::record(&ladder.db, &ladder.paths.root, &g, &log) {
                Ok(out) => {
                    if out.new {
                        ladder.recorded.fetch_add(1, Ordering::Relaxed);
                    }
                    if !out.suspended.is_empty() {
                        for (_, v, reason) in &out.suspended {
                            tracing::warn!("version {v} suspended: {reason}");
                            if let Err(e) = ladder.version_left(*v) {
                                tracing::warn!("{e}");
                            }
                        }
                        return all_seats.clone();
                    }
                    Vec::new()
                }
                Err(e) => {
                    tracing::warn!("job {}: {e}", job.id);
                    lost.store(true, Ordering::SeqCst);
                    all_seats.clone()
                }
            }
        };
        if let Err(e) = play_match_with(&m, on_end, |_| {}).await {
            error = Some(format!("rotation {r}: {e}"));
            break;
        }
    }
    renew.abort();
    if let Some(e) = error {
        return Err(e);
    }
    if lost.load(Ordering::SeqCst) || ladder.is_cancelled(job.id) || ladder.stopping() {
        return Ok(());
    }
    if jobs::finish(&ladder.db, job.id, owner)? {
        ladder.board.add_job(&ladder.db, job.id, true)?;
    }
    ladder.notify();
    Ok(())
}
