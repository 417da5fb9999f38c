//! The games people play, in SQLite (`play_games`): a row when the game starts (its deal's
//! seed, the person's seat, the variant), its moves as they are made, and its end (the result in
//! words, the replay under `DATA/play/`, its verification). A game still `playing` when the
//! server starts again is resumed from its moves (`super::Plays::resume`) or ended `void` with
//! the reason.

use crate::db::{now_ms, Db};
use rusqlite::{params, OptionalExtension};

/// A game's row.
#[derive(Clone, Debug)]
pub struct PlayRow {
    pub id: i64,
    pub account: i64,
    pub version: i64,
    pub seat: usize,
    pub variant: String,
    pub seed: u64,
    /// `playing`, `over` or `void`.
    pub state: String,
    /// The moves so far (`seen::moves_json`).
    pub moves: String,
    pub result: Option<String>,
    pub replay: Option<String>,
    /// `ok`, or why the replay does not verify.
    pub verified: Option<String>,
}

const COLUMNS: &str =
    "id, account, version, seat, variant, seed, state, moves, result, replay, verified";

fn row(r: &rusqlite::Row) -> rusqlite::Result<PlayRow> {
    Ok(PlayRow {
        id: r.get(0)?,
        account: r.get(1)?,
        version: r.get(2)?,
        seat: r.get::<_, i64>(3)? as usize,
        variant: r.get(4)?,
        seed: r.get::<_, i64>(5)? as u64,
        state: r.get(6)?,
        moves: r.get(7)?,
        result: r.get(8)?,
        replay: r.get(9)?,
        verified: r.get(10)?,
    })
}

/// A new game's row: its id.
pub fn insert(
    db: &Db,
    account: i64,
    version: i64,
    seat: usize,
    variant: &str,
    seed: u64,
) -> Result<i64, crate::db::DbError> {
    db.write(|c| {
        c.execute(
            "INSERT INTO play_games (account, version, seat, variant, seed, state, created) \
             VALUES (?1, ?2, ?3, ?4, ?5, 'playing', ?6)",
            params![
                account,
                version,
                seat as i64,
                variant,
                seed as i64,
                now_ms()
            ],
        )?;
        Ok(c.last_insert_rowid())
    })
}

pub fn get(db: &Db, id: i64) -> Result<Option<PlayRow>, crate::db::DbError> {
    db.read(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM play_games WHERE id = ?1"),
            [id],
            row,
        )
        .optional()
    })
}

/// The games still being played (after a restart: to resume).
pub fn playing(db: &Db) -> Result<Vec<PlayRow>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {COLUMNS} FROM play_games WHERE state = 'playing' ORDER BY id"
        ))?;
        let rows = s.query_map([], row)?;
        rows.collect()
    })
}

/// The account's game in progress, if any.
pub fn playing_of(db: &Db, account: i64) -> Result<Option<i64>, crate::db::DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT id FROM play_games WHERE account = ?1 AND state = 'playing' LIMIT 1",
            [account],
            |r| r.get(0),
        )
        .optional()
    })
}

/// The account's finished games beyond the newest `keep`: their rows removed, their replays'
/// names returned (to remove).
pub fn forget_old(db: &Db, account: i64, keep: usize) -> Result<Vec<String>, crate::db::DbError> {
    db.write(|c| {
        let tx = c.transaction()?;
        let old: Vec<(i64, Option<String>)> = {
            let mut s = tx.prepare(
                "SELECT id, replay FROM play_games WHERE account = ?1 AND state != 'playing' \
                 ORDER BY id DESC LIMIT -1 OFFSET ?2",
            )?;
            let rows = s.query_map(params![account, keep as i64], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for (id, _) in &old {
            tx.execute("DELETE FROM play_games WHERE id = ?1", [id])?;
        }
        tx.commit()?;
        Ok(old.into_iter().filter_map(|(_, r)| r).collect())
    })
}

/// The moves so far (kept at each move: what a restart resumes from).
pub fn save_moves(db: &Db, id: i64, moves: &str) -> Result<(), crate::db::DbError> {
    db.write_relaxed(|c| {
        c.execute(
            "UPDATE play_games SET moves = ?2 WHERE id = ?1 AND state = 'playing'",
            params![id, moves],
        )
        .map(|_| ())
    })
}

/// The game's end: `over` (played to its end, or a fault) or `void` (it could not go on).
pub fn finish(
    db: &Db,
    id: i64,
    state: &str,
    result: &str,
    replay: Option<&str>,
    verified: Option<&str>,
) -> Result<(), crate::db::DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE play_games SET state = ?2, result = ?3, replay = ?4, verified = ?5, \
             finished = ?6 WHERE id = ?1",
            params![id, state, result, replay, verified, now_ms()],
        )
        .map(|_| ())
    })
}
