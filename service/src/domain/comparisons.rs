//! The comparisons' table (`ladder/compare/`): a comparison begun `running`, the running
//! ones listed, one read, and its end (`done`, with its verdict and figures).

use super::ComparisonState;
use crate::db::{now_ms, Db, DbError};
use rusqlite::{params, OptionalExtension};

/// Begin comparing `version` with `previous` (nothing if it was begun already).
pub fn begin(db: &Db, version: i64, previous: i64) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "INSERT OR IGNORE INTO comparisons(version, previous, state, created) VALUES (?1, \
             ?2, ?3, ?4)",
            params![version, previous, ComparisonState::Running, now_ms()],
        )
        .map(|_| ())
    })
}

/// The running comparisons: (version, previous).
pub fn running(db: &Db) -> Result<Vec<(i64, i64)>, DbError> {
    db.read(|c| {
        let mut s = c.prepare("SELECT version, previous FROM comparisons WHERE state = ?1")?;
        let rows = s.query_map([ComparisonState::Running], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    })
}

/// The comparison of `version`: its previous version, its state, and its result (JSON) once
/// done.
pub fn get(
    db: &Db,
    version: i64,
) -> Result<Option<(i64, ComparisonState, Option<String>)>, DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT previous, state, result FROM comparisons WHERE version = ?1",
            [version],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
    })
}

/// The test stopped: `done`, with its verdict and its result (the comparison's JSON).
pub fn finish(db: &Db, version: i64, verdict: &str, result: &str) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE comparisons SET state = ?1, verdict = ?2, result = ?3, finished = ?4 WHERE \
             version = ?5",
            params![ComparisonState::Done, verdict, result, now_ms(), version],
        )
        .map(|_| ())
    })
}
