//! The service's database: SQLite in WAL mode (`DATA/service.db`), its schema kept by
//! migrations (rusqlite_migration), one writer connection and a pool of readers.
//!
//! Durability: `synchronous = FULL`, so a transaction is on disk when its commit returns — an
//! upload is acknowledged, a game counted, only after that. Games are recorded in group commits
//! (`ladder/recorder.rs`): their replay files written and fsynced before the one transaction of
//! their rows, and a game is recorded once: `(job, game)` is the primary key of `games`, and a
//! second insert of the same game is ignored. The job table's bookkeeping commits with
//! `synchronous = NORMAL` ([`Db::write_relaxed`]): the next `FULL` commit carries it to the disk.

use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{Migrations, M};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The schema, one migration per change (never edit one that shipped: add the next). The
/// larger ones are SQL files in `service/migrations/`, in the order they are listed here.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../migrations/initial.sql")),
        // Worker tokens (issue 16): organiser-issued, stored hashed, apart from the accounts'
        // tokens so that neither kind opens the other's routes; and who played each game.
        M::up(include_str!("../migrations/worker_tokens.sql")),
        // Login sessions: the web pages' cookie holds a session token of its own (stored
        // hashed, revoked on logout, ending after SESSION_DAYS), not the account's API token.
        M::up(include_str!("../migrations/sessions.sql")),
        // Issue 22: the leases handed to worker tokens, job by job (a worker posts games only
        // under one of them), and the jobs workers could not prepare (a job is cancelled, not
        // handed out for ever, after a few; a version whose packed folder cannot be used is
        // suspended).
        M::up(include_str!("../migrations/worker_leases.sql")),
        // Quotas (issue 22): when a failed version's files were removed (its row and page
        // stay).
        M::up("ALTER TABLE versions ADD COLUMN files_removed INTEGER;"),
        // The organiser's pages (issue 24): an invite revoked (when, unix ms), an account
        // suspended (the organiser's reason; NULL: not suspended).
        M::up(
            "ALTER TABLE invites ADD COLUMN revoked INTEGER;\n\
             ALTER TABLE accounts ADD COLUMN suspended TEXT;",
        ),
        // Issue 25: a new version against its author's previous one (`ladder/compare/`),
        // played as jobs of kind 'compare' seating [version, previous]; `result` is the test's
        // final status (JSON) once it stopped.
        M::up(include_str!("../migrations/compare.sql")),
        // Issue 25: challenges, each one job of kind 'challenge' (`ladder/challenges.rs`).
        M::up(include_str!("../migrations/challenges.sql")),
        // Issue 26: a game's endgame analysis, computed once (`analysis.rs`): the page's values
        // (JSON strings) and per seat [decisions valued, blunders, threw a won game away].
        M::up(include_str!("../migrations/analysis.sql")),
        // Issue 23: why a game's attempts were voided (a bot starved by the machine; JSON list,
        // NULL: none) and whether it was given up as void (counted for nobody).
        M::up(
            "ALTER TABLE games ADD COLUMN voided TEXT;\n\
             ALTER TABLE games ADD COLUMN void INTEGER NOT NULL DEFAULT 0;",
        ),
        // Issue 25: a version's games list filtered and paged in SQL (`store::version_games`:
        // the opponent looked up by game), and the step of each seat's first decision asked
        // (the author's `durak rerun` command), computed once per game (`store::rerun_steps`).
        M::up(include_str!("../migrations/version_games.sql")),
        // Issue 25: the games people play against bots (`play/rows.rs`): kept from their
        // start (seed, the person's seat, the variant, the moves so far) so that a restart
        // resumes them, and after their end (the result, the replay under DATA/play/).
        M::up(include_str!("../migrations/play.sql")),
        // Issue 24: seasons (`season.rs`). A season's ladder jobs are those from its
        // first_job to the next season's; ended_by: organiser or deadline; leaderboard: the
        // ladder's leaderboard at its end (JSON); tournament: its final tournament (or
        // final_error, why none). Season 1 holds every job before.
        M::up(include_str!("../migrations/seasons.sql")),
        // Issue 23: every game's replay in the database with its row (`store/replays.rs`),
        // not a file and a folder per game: the ladder's recorder spent more CPU making those
        // than the tables spent playing.
        M::up(include_str!("../migrations/game_replays.sql")),
    ])
}

/// The database: one writer (SQLite takes one writer at a time anyway) and readers.
pub struct Db {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

/// A database call failed (SQLite's error, or the reader connection could not be opened): the
/// server's fault, never the request's.
#[derive(Debug, thiserror::Error)]
#[error("database: {0}")]
pub struct DbError(#[from] pub rusqlite::Error);

/// The database file cannot be opened or brought up to date: its path, why, and the fix.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "{}: SQLite would not use WAL mode here (it says {mode:?}): put the data directory on a \
         local file system",
        path.display()
    )]
    NotWal { path: PathBuf, mode: String },
    #[error(
        "{}: cannot bring the database up to date: {source}\n  fix: this database may come from \
         a newer durak; use that version, or another --data-dir",
        path.display()
    )]
    Migrations {
        path: PathBuf,
        source: rusqlite_migration::Error,
    },
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn configure(c: &Connection) -> rusqlite::Result<()> {
    c.busy_timeout(std::time::Duration::from_secs(30))?;
    // Room for every statement of the hot paths (`prepare_cached`): a game recorded, a job
    // claimed, renewed and finished.
    c.set_prepared_statement_cache_capacity(64);
    c.pragma_update(None, "foreign_keys", "ON")?;
    c.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

impl Db {
    /// Open (or create) the database and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Db, OpenError> {
        let fail = |source| OpenError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let mut c = Connection::open(path).map_err(fail)?;
        let mode: String = c
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(fail)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(OpenError::NotWal {
                path: path.to_path_buf(),
                mode,
            });
        }
        configure(&c).map_err(fail)?;
        migrations()
            .to_latest(&mut c)
            .map_err(|source| OpenError::Migrations {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Db {
            path: path.to_path_buf(),
            writer: Mutex::new(c),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// Run `f` with the writer connection (one at a time).
    pub fn write<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, DbError> {
        let mut c = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        Ok(f(&mut c)?)
    }

    /// [`Db::write`] with `synchronous = NORMAL` for this one transaction: it is in the WAL
    /// (and survives a kill of the process) when it returns, but reaches the disk with the next
    /// `FULL` commit (a game's) or checkpoint. For job bookkeeping (create, claim, renew,
    /// finish, release): the WAL is ordered, so a game recorded durably carries every earlier
    /// job change with it, and a job change lost with the power is redone (a claim ends, a
    /// finished job is finished again).
    pub fn write_relaxed<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, DbError> {
        let mut c = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        // Prepared once (a statement parsed per call was a tenth of a busy server's CPU).
        let set = |c: &Connection, sql: &str| c.prepare_cached(sql)?.execute([]).map(|_| ());
        set(&c, "PRAGMA synchronous = NORMAL")?;
        let out = f(&mut c);
        let back = set(&c, "PRAGMA synchronous = FULL");
        let out = out?;
        back?;
        Ok(out)
    }

    /// Run `f` with a reader connection (many at once; they see the last commit).
    pub fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, DbError> {
        let pooled = self.readers.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let c = match pooled {
            Some(c) => c,
            None => {
                let c = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&c)?;
                c
            }
        };
        let out = f(&c).map_err(DbError);
        let mut pool = self.readers.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < 16 {
            pool.push(c);
        }
        out
    }

    pub fn setting(&self, key: &str) -> Result<Option<String>, DbError> {
        self.read(|c| {
            use rusqlite::OptionalExtension;
            c.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
        })
    }

    pub fn set_setting(&self, key: &str, value: &str) -> Result<(), DbError> {
        self.write(|c| {
            c.execute(
                "INSERT INTO settings(key, value) VALUES (?1, ?2) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map(|_| ())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_from_a_newer_durak_is_named_with_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("service.db");
        drop(Db::open(&p).unwrap());
        let c = Connection::open(&p).unwrap();
        c.pragma_update(None, "user_version", 999).unwrap();
        drop(c);
        let e = Db::open(&p).err().expect("refused");
        assert!(matches!(e, OpenError::Migrations { .. }), "{e:?}");
        let m = e.to_string();
        assert!(
            m.contains("service.db") && m.contains("fix: this database may come"),
            "{m}"
        );
    }

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn the_database_is_in_wal_mode_and_reopens() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("service.db");
        let db = Db::open(&p).unwrap();
        db.set_setting("paused", "1").unwrap();
        drop(db);
        let db = Db::open(&p).unwrap();
        assert_eq!(db.setting("paused").unwrap().as_deref(), Some("1"));
        let mode: String = db
            .read(|c| c.query_row("PRAGMA journal_mode", [], |r| r.get(0)))
            .unwrap();
        assert_eq!(mode, "wal");
    }
}
