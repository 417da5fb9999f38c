//! The seasons' table (`season.rs`): a season ended (with its leaderboard kept and the next
//! one begun, in one transaction) and its final tournament written down.

use super::EndedBy;
use crate::db::{Db, DbError};
use rusqlite::params;

/// End season `n` at `now` (unix ms), by `by`, keeping its leaderboard (JSON), and begin
/// season `n + 1` with the next job made. `false`: season `n` was ended already (by another
/// hand meanwhile), and nothing changed.
pub fn end(db: &Db, n: i64, now: i64, by: EndedBy, board: &str) -> Result<bool, DbError> {
    db.write(|c| {
        let tx = c.transaction()?;
        let changed = tx.execute(
            "UPDATE seasons SET ended = ?1, ended_by = ?2, leaderboard = ?3 WHERE n = ?4 AND \
             ended IS NULL",
            params![now, by, board, n],
        )?;
        if changed == 1 {
            tx.execute(
                "INSERT INTO seasons(n, started, first_job) VALUES (?1, ?2, (SELECT \
                 COALESCE(MAX(id), 0) + 1 FROM jobs))",
                params![n + 1, now],
            )?;
        }
        tx.commit()?;
        Ok(changed == 1)
    })
}

/// Season `n`'s final tournament, or why it has none.
pub fn set_final(
    db: &Db,
    n: i64,
    tournament: Option<i64>,
    error: Option<&str>,
) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE seasons SET tournament = ?1, final_error = ?2 WHERE n = ?3",
            params![tournament, error, n],
        )
        .map(|_| ())
    })
}
