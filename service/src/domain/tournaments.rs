//! The fixed tournaments' table (`tournament.rs`): one made `queued`, the next to play, its
//! state read and changed (`finished` written when it is over).

use super::TournamentState;
use crate::db::{now_ms, Db, DbError};
use rusqlite::{params, OptionalExtension};
use std::path::PathBuf;

/// A new tournament, `queued`, among `bots` (their names, JSON); its directory is set next
/// ([`set_dir`]). Returns its id.
pub fn create(db: &Db, bots: &str) -> Result<i64, DbError> {
    db.write(|c| {
        c.execute(
            "INSERT INTO tournaments(state, dir, bots, created) VALUES (?1, '', ?2, ?3)",
            params![TournamentState::Queued, bots, now_ms()],
        )?;
        Ok(c.last_insert_rowid())
    })
}

pub fn set_dir(db: &Db, id: i64, dir: &str) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE tournaments SET dir = ?1 WHERE id = ?2",
            params![dir, id],
        )
        .map(|_| ())
    })
}

/// The next to play: one left running by an earlier run of the server, else the oldest
/// queued.
pub fn next(db: &Db) -> Result<Option<(i64, PathBuf)>, DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT id, dir FROM tournaments WHERE state IN (?1, ?2) ORDER BY state = ?1 DESC, \
             id LIMIT 1",
            params![TournamentState::Running, TournamentState::Queued],
            |r| Ok((r.get(0)?, PathBuf::from(r.get::<_, String>(1)?))),
        )
        .optional()
    })
}

/// Its state (`None`: no such tournament).
pub fn state(db: &Db, id: i64) -> Result<Option<TournamentState>, DbError> {
    db.read(|c| {
        c.query_row("SELECT state FROM tournaments WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()
    })
}

/// Change its state, with the error that failed it; `finished` is written when it is over.
pub fn set_state(
    db: &Db,
    id: i64,
    state: TournamentState,
    error: Option<&str>,
) -> Result<(), DbError> {
    let over = !state.is_open();
    db.write(|c| {
        c.execute(
            "UPDATE tournaments SET state = ?1, error = ?2, finished = ?3 WHERE id = ?4",
            params![state, error, over.then(now_ms), id],
        )
        .map(|_| ())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_one_is_next_and_an_end_is_dated() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let (a, b) = (create(&db, "[]").unwrap(), create(&db, "[]").unwrap());
        assert_eq!(state(&db, a).unwrap(), Some(TournamentState::Queued));
        assert_eq!(
            next(&db).unwrap().map(|n| n.0),
            Some(a),
            "the oldest queued"
        );
        set_state(&db, b, TournamentState::Running, None).unwrap();
        assert_eq!(
            next(&db).unwrap().map(|n| n.0),
            Some(b),
            "the running one first"
        );
        let finished = |id: i64| -> Option<i64> {
            db.read(|c| {
                c.query_row(
                    "SELECT finished FROM tournaments WHERE id = ?1",
                    [id],
                    |r| r.get(0),
                )
            })
            .unwrap()
        };
        assert_eq!(finished(b), None);
        set_state(&db, b, TournamentState::Failed, Some("no bots")).unwrap();
        set_state(&db, a, TournamentState::Cancelled, None).unwrap();
        assert!(finished(a).is_some() && finished(b).is_some());
        assert_eq!(next(&db).unwrap(), None);
        assert_eq!(state(&db, 99).unwrap(), None);
    }
}
