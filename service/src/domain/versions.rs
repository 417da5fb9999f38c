//! Every change of a version's state, with its SQL: the rest of the service calls these and
//! writes no state of its own (it reads states as [`VersionState`], binding them as
//! parameters). The life of a version:
//!
//! ```text
//! submitted → queued → (building →) checking → active                    (passed)
//!                                            → comparing → active | failed  ([compare] require_not_worse)
//!                                            → failed                    (build or check failed)
//! active → retired (a newer version entered) | suspended (faults, an unusable folder, its author)
//!        | disqualified | removed (the organiser, its author, a house bot dropped)
//! ```

use super::VersionState;
use crate::db::{now_ms, Db, DbError};
use rusqlite::{params, Connection, OptionalExtension, Transaction};

/// A new version, `queued` for its check, in the upload's transaction; returns its id.
#[allow(clippy::too_many_arguments)]
pub fn insert_queued(
    tx: &Transaction,
    bot: i64,
    n: i64,
    command: &str,
    language: &str,
    build_cmd: Option<&str>,
    sha256: &str,
    size: i64,
    now: i64,
) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO versions(bot, n, state, command, language, build_cmd, sha256, size, \
         submitted) VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6, ?7, ?8)",
        params![bot, n, command, language, build_cmd, sha256, size, now],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The versions whose check a kill cut short (`building` or `checking`, with an upload), by id:
/// their folders are unpacked again before [`requeue_interrupted`].
pub fn interrupted(db: &Db) -> Result<Vec<i64>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(
            "SELECT id FROM versions WHERE state IN ('building', 'checking') AND archive IS NOT \
             NULL ORDER BY id",
        )?;
        let rows = s.query_map([], |r| r.get(0))?;
        rows.collect()
    })
}

/// Checks cut short by a kill are done again (at the start): `building` and `checking` are
/// `queued` again. Returns how many.
pub fn requeue_interrupted(db: &Db) -> Result<usize, DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE versions SET state = 'queued' WHERE state IN ('building', 'checking')",
            [],
        )
    })
}

/// Take the next version to check (`queued` → `checking`), if one may start now: of the queued
/// versions of authors with nothing being built or checked, `(version, author)` oldest first,
/// the one `pick` chooses.
pub fn take_next_check(
    db: &Db,
    pick: impl FnOnce(&[(i64, i64)]) -> Option<i64>,
) -> Result<Option<i64>, DbError> {
    db.write(|c| {
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let waiting: Vec<(i64, i64)> = {
            let mut s = tx.prepare(
                "SELECT v.id, b.account FROM versions v JOIN bots b ON b.id = v.bot \
                 WHERE v.state = 'queued' AND b.account NOT IN (SELECT b2.account FROM versions \
                 v2 JOIN bots b2 ON b2.id = v2.bot WHERE v2.state IN ('building', 'checking')) \
                 ORDER BY v.id",
            )?;
            let r = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            r.collect::<rusqlite::Result<_>>()?
        };
        let id = pick(&waiting);
        if let Some(id) = id {
            tx.execute(
                "UPDATE versions SET state = 'checking' WHERE id = ?1",
                params![id],
            )?;
        }
        tx.commit()?;
        Ok(id)
    })
}

/// `checking` → `building` while its build command runs.
pub fn set_building(db: &Db, id: i64) -> Result<(), DbError> {
    db.write(|c| {
        c.execute("UPDATE versions SET state = 'building' WHERE id = ?1", [id])
            .map(|_| ())
    })
}

/// The build ended (its report `json` kept): `building` → `checking`. A version taken out
/// meanwhile stays out.
pub fn built(db: &Db, id: i64, json: &str) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE versions SET build = ?1, state = CASE state WHEN 'building' THEN \
             'checking' ELSE state END WHERE id = ?2",
            params![json, id],
        )
        .map(|_| ())
    })
}

/// Its check-bot report, kept whatever the verdict.
pub fn set_report(db: &Db, id: i64, json: &str) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE versions SET report = ?1 WHERE id = ?2",
            params![json, id],
        )
        .map(|_| ())
    })
}

/// Its build or check failed, for `reason`: `failed` if it was still in its check (one taken
/// out meanwhile keeps its state and reason).
pub fn fail_check(db: &Db, id: i64, reason: &str) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE versions SET state = CASE WHEN state IN ('queued', 'building', 'checking') \
             THEN 'failed' ELSE state END, reason = CASE WHEN state IN ('queued', 'building', \
             'checking') THEN ?1 ELSE reason END, checked = ?2 WHERE id = ?3",
            params![reason, now_ms(), id],
        )
        .map(|_| ())
    })
}

/// It passed its check and waits for its comparison (`checking` → `comparing`, with its report
/// `json`); an older version of the bot still waiting for its own gives way (`retired`).
pub fn await_comparison(db: &Db, id: i64, json: &str) -> Result<(), DbError> {
    db.write(|c| {
        let tx = c.transaction()?;
        let n: i64 = tx.query_row("SELECT n FROM versions WHERE id = ?1", [id], |r| r.get(0))?;
        tx.execute(
            "UPDATE versions SET state = 'retired', reason = ?1 WHERE state = 'comparing' AND \
             bot = (SELECT bot FROM versions WHERE id = ?2) AND id != ?2",
            params![
                format!("replaced by version {n} before its comparison ended"),
                id
            ],
        )?;
        tx.execute(
            "UPDATE versions SET state = 'comparing', report = ?1, checked = ?2, reason = NULL \
             WHERE id = ?3 AND state = 'checking'",
            params![json, now_ms(), id],
        )?;
        tx.commit()
    })
}

/// Its comparison found it worse (`comparing` → `failed`, for `reason`).
pub fn fail_comparison(db: &Db, id: i64, reason: &str) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE versions SET state = 'failed', reason = ?1 WHERE id = ?2 AND state = \
             'comparing'",
            params![reason, id],
        )
        .map(|_| ())
    })
}

/// What [`enter`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Entered {
    /// It is `active`; the bot's versions it replaced (`retired`).
    In { retired: Vec<i64> },
    /// It stays out: taken out during its check or comparison (its state kept), or its
    /// author's account was suspended meanwhile (`suspended`).
    Out,
}

/// Version `id` enters the ladder (with its check-bot report `json`, when given), if it is still
/// in its check or comparison and its author may play: the bot's other versions in play retire.
pub fn enter(db: &Db, id: i64, json: Option<&str>) -> Result<Entered, DbError> {
    let now = now_ms();
    db.write(|c| {
        let tx = c.transaction()?;
        let (bot, n, state): (i64, i64, VersionState) = tx.query_row(
            "SELECT bot, n, state FROM versions WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let kept_out = !matches!(state, VersionState::Checking | VersionState::Comparing);
        let suspension = author_suspension(&tx, id)?;
        if kept_out || suspension.is_some() {
            if let Some(why) = suspension.filter(|_| !kept_out) {
                tx.execute(
                    "UPDATE versions SET state = 'suspended', reason = ?1 WHERE id = ?2",
                    params![why, id],
                )?;
            }
            tx.execute(
                "UPDATE versions SET report = COALESCE(?1, report), checked = COALESCE(checked, \
                 ?2) WHERE id = ?3",
                params![json, now, id],
            )?;
            tx.commit()?;
            return Ok(Entered::Out);
        }
        let old: Vec<i64> = {
            let mut s = tx.prepare(
                "SELECT id FROM versions WHERE bot = ?1 AND id != ?2 AND state IN ('active', \
                 'suspended', 'comparing')",
            )?;
            let r = s.query_map(params![bot, id], |r| r.get(0))?;
            r.collect::<rusqlite::Result<_>>()?
        };
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
        Ok(Entered::In { retired: old })
    })
}

/// Why version `id`'s author may not play: the organiser suspended their account (the reason
/// its versions are given), or `None`.
pub fn author_suspension(c: &Connection, id: i64) -> rusqlite::Result<Option<String>> {
    let why: Option<String> = c
        .query_row(
            "SELECT a.suspended FROM versions v JOIN bots b ON b.id = v.bot JOIN accounts a ON \
             a.id = b.account WHERE v.id = ?1",
            [id],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    Ok(why.map(|w| format!("its author's account was suspended by the organiser: {w}")))
}

/// An `active` version is `suspended` for `reason` (faults, a folder workers cannot use):
/// `true` when this call did it.
pub fn suspend_active(c: &Connection, id: i64, reason: &str) -> rusqlite::Result<bool> {
    c.execute(
        "UPDATE versions SET state = 'suspended', reason = ?1 WHERE id = ?2 AND state = \
         'active'",
        params![reason, id],
    )
    .map(|n| n > 0)
}

/// The organiser's or the author's hand takes a version out: `to` is `disqualified`,
/// `removed` or (its author's account suspended) `suspended`. A state that is not a way out is
/// refused.
pub fn take_out(db: &Db, id: i64, to: VersionState, reason: &str) -> Result<(), super::Error> {
    if !matches!(
        to,
        VersionState::Disqualified | VersionState::Removed | VersionState::Suspended
    ) {
        return Err(super::Error::NotAWayOut(to));
    }
    Ok(db.write(|c| {
        c.execute(
            "UPDATE versions SET state = ?1, reason = ?2 WHERE id = ?3",
            params![to, reason, id],
        )
        .map(|_| ())
    })?)
}

/// House bots (`(spec, bot name)` as the configuration lists them), owned by `organiser` and
/// kept in step at every start: a new one joins the ladder (`active`), one the list dropped
/// (`removed`, for `dropped`) comes back when listed again, an active one not listed is
/// `removed` for `dropped`. Returns the versions that left.
pub fn house_bots(
    db: &Db,
    listed: &[(String, String)],
    dropped: &str,
) -> Result<Vec<i64>, DbError> {
    let now = now_ms();
    db.write(|c| {
        let tx = c.transaction()?;
        let org: i64 = tx.query_row(
            "SELECT id FROM accounts WHERE organiser = 1 ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )?;
        for (spec, name) in listed {
            let exists: Option<i64> = tx
                .query_row("SELECT id FROM bots WHERE name = ?1", [name], |r| r.get(0))
                .optional()?;
            if let Some(bot) = exists {
                tx.execute(
                    "UPDATE versions SET state = 'active', reason = NULL, entered = ?3 WHERE \
                     bot = ?1 AND state = 'removed' AND reason = ?2",
                    params![bot, dropped, now],
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
                params![bot, spec, now],
            )?;
        }
        let left: Vec<i64> = {
            let mut st = tx.prepare(
                "SELECT v.id, b.name FROM versions v JOIN bots b ON b.id = v.bot WHERE b.house = \
                 1 AND v.state = 'active'",
            )?;
            let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
            let all = rows.collect::<rusqlite::Result<Vec<_>>>()?;
            all.into_iter()
                .filter(|(_, name)| !listed.iter().any(|(_, n)| n == name))
                .map(|(id, _)| id)
                .collect()
        };
        for id in &left {
            tx.execute(
                "UPDATE versions SET state = 'removed', reason = ?2 WHERE id = ?1",
                params![id, dropped],
            )?;
        }
        tx.commit()?;
        Ok(left)
    })
}

/// Failed versions checked (or submitted) at or before `before` whose files are still kept.
pub fn failed_with_files(db: &Db, before: i64) -> Result<Vec<i64>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(
            "SELECT id FROM versions WHERE state = 'failed' AND files_removed IS NULL AND \
             COALESCE(checked, submitted) <= ?1",
        )?;
        let r = s.query_map([before], |r| r.get(0))?;
        r.collect()
    })
}

/// A failed version's files were removed (its row and page stay).
pub fn files_removed(db: &Db, id: i64) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE versions SET files_removed = ?1 WHERE id = ?2 AND state = 'failed'",
            params![now_ms(), id],
        )
        .map(|_| ())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, Db) {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        db.write(|c| {
            c.execute(
                "INSERT INTO accounts(id, name, organiser, created) VALUES (1, 'org', 1, 0), \
                 (2, 'ann', 0, 0)",
                [],
            )?;
            c.execute(
                "INSERT INTO bots(id, name, account, created) VALUES (1, 'b', 2, 0)",
                [],
            )
        })
        .unwrap();
        (d, db)
    }

    fn submit(db: &Db) -> i64 {
        db.write(|c| {
            let tx = c.transaction()?;
            let n: i64 = tx.query_row(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM versions WHERE bot = 1",
                [],
                |r| r.get(0),
            )?;
            let id = insert_queued(&tx, 1, n, "./bot", "", None, "00", 1, 0)?;
            tx.commit()?;
            Ok(id)
        })
        .unwrap()
    }

    fn state(db: &Db, id: i64) -> VersionState {
        db.read(|c| {
            c.query_row("SELECT state FROM versions WHERE id = ?1", [id], |r| {
                r.get(0)
            })
        })
        .unwrap()
    }

    /// Each change writes a state the type reads back (a misspelt name in the SQL would fail
    /// the read), along the version's life.
    #[test]
    fn a_version_goes_through_its_life() {
        let (_d, db) = db();
        let v1 = submit(&db);
        assert_eq!(state(&db, v1), VersionState::Queued);
        assert_eq!(
            take_next_check(&db, |w| w.first().map(|x| x.0)).unwrap(),
            Some(v1)
        );
        assert_eq!(state(&db, v1), VersionState::Checking);
        set_building(&db, v1).unwrap();
        assert_eq!(state(&db, v1), VersionState::Building);
        // Its folder is unpacked again first: when it has an upload to unpack.
        assert_eq!(interrupted(&db).unwrap(), Vec::<i64>::new());
        db.write(|c| c.execute("UPDATE versions SET archive = 'a' WHERE id = ?1", [v1]))
            .unwrap();
        assert_eq!(interrupted(&db).unwrap(), vec![v1]);
        assert_eq!(requeue_interrupted(&db).unwrap(), 1);
        assert_eq!(interrupted(&db).unwrap(), Vec::<i64>::new());
        assert_eq!(state(&db, v1), VersionState::Queued);
        take_next_check(&db, |w| w.first().map(|x| x.0)).unwrap();
        set_building(&db, v1).unwrap();
        built(&db, v1, "{}").unwrap();
        assert_eq!(state(&db, v1), VersionState::Checking);
        assert_eq!(
            enter(&db, v1, Some("{}")).unwrap(),
            Entered::In { retired: vec![] }
        );
        assert_eq!(state(&db, v1), VersionState::Active);
        // v2 waits for its comparison, then enters: v1 retires.
        let v2 = submit(&db);
        take_next_check(&db, |w| w.first().map(|x| x.0)).unwrap();
        await_comparison(&db, v2, "{}").unwrap();
        assert_eq!(state(&db, v2), VersionState::Comparing);
        assert_eq!(
            enter(&db, v2, None).unwrap(),
            Entered::In { retired: vec![v1] }
        );
        assert_eq!(state(&db, v1), VersionState::Retired);
        // v3 fails its check; v2 is suspended, then disqualified.
        let v3 = submit(&db);
        fail_check(&db, v3, "no").unwrap();
        assert_eq!(state(&db, v3), VersionState::Failed);
        assert_eq!(failed_with_files(&db, i64::MAX).unwrap(), vec![v3]);
        files_removed(&db, v3).unwrap();
        assert!(failed_with_files(&db, i64::MAX).unwrap().is_empty());
        assert!(db.write(|c| suspend_active(c, v2, "faults")).unwrap());
        assert_eq!(state(&db, v2), VersionState::Suspended);
        assert!(!db.write(|c| suspend_active(c, v2, "again")).unwrap());
        take_out(&db, v2, VersionState::Disqualified, "cheated").unwrap();
        assert_eq!(state(&db, v2), VersionState::Disqualified);
        assert!(take_out(&db, v2, VersionState::Active, "back").is_err());
        // A version failing its comparison, and one taken out during its check stays out.
        let v4 = submit(&db);
        take_next_check(&db, |w| w.first().map(|x| x.0)).unwrap();
        await_comparison(&db, v4, "{}").unwrap();
        fail_comparison(&db, v4, "worse").unwrap();
        assert_eq!(state(&db, v4), VersionState::Failed);
        let v5 = submit(&db);
        take_next_check(&db, |w| w.first().map(|x| x.0)).unwrap();
        take_out(&db, v5, VersionState::Removed, "withdrawn").unwrap();
        assert_eq!(enter(&db, v5, None).unwrap(), Entered::Out);
        assert_eq!(state(&db, v5), VersionState::Removed);
    }

    #[test]
    fn house_bots_join_leave_and_come_back() {
        let (_d, db) = db();
        let one = |names: &[&str]| -> Vec<(String, String)> {
            names
                .iter()
                .map(|n| (format!("builtin:{n}"), format!("house-{n}")))
                .collect()
        };
        assert!(house_bots(&db, &one(&["a", "b"]), "dropped")
            .unwrap()
            .is_empty());
        let left = house_bots(&db, &one(&["a"]), "dropped").unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(state(&db, left[0]), VersionState::Removed);
        assert!(house_bots(&db, &one(&["a", "b"]), "dropped")
            .unwrap()
            .is_empty());
        assert_eq!(state(&db, left[0]), VersionState::Active);
    }
}
