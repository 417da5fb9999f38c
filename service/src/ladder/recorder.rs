//! Recording a finished game: its replay written and fsynced first
//! (`DATA/replays/jJOB/gGAME.jsonl`, atomically: complete or absent), then one transaction
//! that inserts its row, keyed by (job, game) — a game already recorded is left as it is, so a
//! job played again after a kill records nothing twice — and updates the fault streaks of its
//! versions, suspending one that faulted in `max_consecutive_faults` games in a row (or could
//! not be started at all), as tournaments disqualify.
//!
//! This is the one way a game enters the database: the server's executor uses it, and a remote
//! worker's results will go through it too (after the server verifies the replay).

use crate::db::{now_ms, Db};
use durak_protocol::{Fault, FaultKind};
use durak_referee::{GameRecord, ReplayLog};
use rusqlite::params;
use std::path::Path;

/// Where a game's replay lives, relative to the data directory.
pub fn replay_rel(job: i64, game: u32) -> String {
    format!("replays/j{job}/g{game:04}.jsonl")
}

/// What recording a game did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// It was not recorded before.
    pub new: bool,
    /// Versions suspended by this game: (seat, version, reason).
    pub suspended: Vec<(usize, i64, String)>,
}

/// A game to record.
pub struct GameToRecord<'a> {
    pub job: i64,
    pub game: u32,
    pub rotation: usize,
    pub deal: usize,
    /// Version ids by seat.
    pub seats: &'a [i64],
    pub record: &'a GameRecord,
    pub max_consecutive_faults: u32,
}

/// Write the replay, then record the game (see the module documentation).
pub fn record(
    db: &Db,
    data_dir: &Path,
    g: &GameToRecord,
    replay: &ReplayLog,
) -> Result<Recorded, String> {
    let rel = replay_rel(g.job, g.game);
    let path = data_dir.join(&rel);
    replay
        .write_atomic(&path)
        .map_err(|e| format!("cannot write the replay {}: {e}", path.display()))?;
    let r = g.record;
    let faults = serde_json::to_string(&r.faults).expect("json");
    let seats = serde_json::to_string(g.seats).expect("json");
    db.write(|c| {
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let n = tx.execute(
            "INSERT OR IGNORE INTO games(job, game, rotation, deal, seats, seed, dealer, loser, \
             draw, faults, moves, duration_ms, move_limit, replay, recorded) VALUES (?1, ?2, \
             ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                g.job,
                g.game,
                g.rotation as i64,
                g.deal as i64,
                seats,
                r.seed as i64,
                r.dealer as i64,
                r.loser.map(|l| l as i64),
                r.draw as i64,
                faults,
                r.moves,
                r.duration_ms as i64,
                r.move_limit,
                rel,
                now_ms()
            ],
        )?;
        let mut out = Recorded {
            new: n > 0,
            suspended: Vec::new(),
        };
        if !out.new {
            return Ok(out);
        }
        let now = now_ms();
        for (seat, &v) in g.seats.iter().enumerate() {
            tx.execute(
                "INSERT OR IGNORE INTO game_seats(version, job, game, seat) VALUES (?1, ?2, ?3, \
                 ?4)",
                params![v, g.job, g.game, seat as i64],
            )?;
            tx.execute(
                "UPDATE versions SET first_game = ?1 WHERE id = ?2 AND first_game IS NULL",
                params![now, v],
            )?;
            let mine: Vec<&Fault> = r.faults.iter().filter(|f| f.seat == seat).collect();
            if mine.is_empty() {
                tx.execute("UPDATE versions SET fault_streak = 0 WHERE id = ?1", [v])?;
                continue;
            }
            let streak: i64 = tx.query_row(
                "UPDATE versions SET fault_streak = fault_streak + 1 WHERE id = ?1 RETURNING \
                 fault_streak",
                [v],
                |r| r.get(0),
            )?;
            let start_failed = mine.iter().find(|f| f.kind == FaultKind::StartFailed);
            let reason = if let Some(f) = start_failed {
                Some(format!(
                    "could not be started (job {}, game {}): {}",
                    g.job, g.game, f.detail
                ))
            } else if g.max_consecutive_faults > 0 && streak >= g.max_consecutive_faults as i64 {
                Some(format!(
                    "faulted in {streak} games in a row (the last, job {} game {}: {}: {})",
                    g.job, g.game, mine[0].kind, mine[0].detail
                ))
            } else {
                None
            };
            if let Some(reason) = reason {
                let n = tx.execute(
                    "UPDATE versions SET state = 'suspended', reason = ?1 WHERE id = ?2 AND \
                     state = 'active'",
                    params![reason, v],
                )?;
                if n > 0 {
                    out.suspended.push((seat, v, reason));
                }
            }
        }
        tx.commit()?;
        Ok(out)
    })
}

/// Games of a job already recorded.
pub fn recorded_games(db: &Db, job: i64) -> Result<Vec<u32>, String> {
    db.read(|c| {
        let mut s = c.prepare("SELECT game FROM games WHERE job = ?1 ORDER BY game")?;
        let rows = s.query_map([job], |r| r.get(0))?;
        rows.collect()
    })
}
