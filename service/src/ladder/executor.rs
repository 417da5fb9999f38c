//! The server's own worker: each slot is a thread with a single-threaded runtime (as a
//! tournament's tables are) that claims a job, plays it — each seat rotation one referee match
//! over the deals not yet recorded — and hands every game to the recorder as it ends (without
//! waiting: the recorder commits games in groups). The job is finished, and counts, once every
//! game of it is durable.

use super::jobs::{self, Job};
use super::recorder::{self, GameIn, Ticket};
use super::Ladder;
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
        match jobs::claim(&ladder.db, &owner, ladder.cfg.ladder.lease_ms) {
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
            Some(v) if super::compare::may_play(&job.kind, &v.state) => versions.push(v),
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
    let lease_ms = ladder.cfg.ladder.lease_ms;
    let renew = {
        let (ladder, owner, lost, id) = (ladder.clone(), owner.to_string(), lost.clone(), job.id);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(lease_ms as u64 / 6)).await;
                let db = ladder.db.clone();
                let o = owner.clone();
                let held = tokio::task::spawn_blocking(move || jobs::renew(&db, id, &o, lease_ms))
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
    // The games handed to the recorder, not answered yet.
    let mut tickets: Vec<Ticket> = Vec::new();
    for r in 0..k {
        if ladder.is_cancelled(job.id) || lost.load(Ordering::SeqCst) || ladder.stopping() {
            break;
        }
        let plan: Vec<PlannedGame> = (0..d)
            .filter(|&i| !done.contains(&((r * d + i) as u32)))
            .map(|i| job.planned(i))
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
            // Taken whatever happens: the referee writes no file of its own in the replay
            // folder (only the recorder's, of games recorded, are there).
            let log = log.take();
            // Earlier games answered meanwhile: a suspension stops the job.
            if !settle(ladder, &mut tickets, false, &lost) {
                return all_seats.clone();
            }
            if ladder.is_cancelled(job.id) || lost.load(Ordering::SeqCst) || ladder.stopping() {
                // Not recorded: the rest forfeits at once (nobody is started again).
                return all_seats.clone();
            }
            let Some(log) = log else {
                return Vec::new();
            };
            let replay = match log.to_bytes(true) {
                Ok(b) => b,
                Err(e) => {
                    tracing::warn!("ladder: a replay could not be compressed: {e}");
                    lost.store(true, Ordering::SeqCst);
                    return all_seats.clone();
                }
            };
            tickets.push(ladder.recorder.submit(GameIn {
                job: job.id,
                game: (r * d) as u32 + rec.game,
                rotation: r,
                deal: rec.game as usize,
                seats: seating.clone(),
                record: rec.clone(),
                replay,
                played_by: "local".into(),
            }));
            Vec::new()
        };
        if let Err(e) = play_match_with(&m, on_end, |_| {}).await {
            error = Some(format!("rotation {r}: {e}"));
            break;
        }
    }
    // Every game handed over is durable (or failed) before the job may count.
    // (A failure marks the lease lost; a suspension cancels the job.)
    settle(ladder, &mut tickets, true, &lost);
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

/// Take the answers of the games handed to the recorder: all of them (`wait`), or those in
/// already. `false` when one failed (the job is given up: its lease marked lost) or suspended
/// a version (which leaves the ladder; its jobs are cancelled).
fn settle(ladder: &Ladder, tickets: &mut Vec<Ticket>, wait: bool, lost: &AtomicBool) -> bool {
    let mut ok = true;
    let mut pending = Vec::new();
    for t in tickets.drain(..) {
        let answer = if wait {
            Some(recorder::wait_for(t, Duration::from_secs(600)))
        } else {
            match t.try_get() {
                Some(a) => Some(a),
                None => {
                    pending.push(t);
                    None
                }
            }
        };
        match answer {
            None => {}
            Some(Ok(r)) if !r.suspended.is_empty() => {
                ladder.after_recorded(&r);
                ok = false;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                tracing::warn!("ladder: a game was not recorded: {e}");
                lost.store(true, Ordering::SeqCst);
                ok = false;
            }
        }
    }
    *tickets = pending;
    ok
}
