//! Seasons (issue 24): the ladder's ratings start fresh each season; the organiser ends one by
//! a deadline (`[season] ends` in serve.toml) or by hand (`POST /api/seasons/end`, the button
//! on `/organiser`).
//!
//! A season owns the ladder jobs made while it ran: ids from its `first_job` up to the next
//! season's (`seasons` table). The leaderboard counts only the current season's jobs
//! (`ladder/board.rs`). Ending season N, in this order:
//!
//! 1. its open ladder jobs are cancelled (a table playing one stops at its next game; the
//!    games recorded stay, and count in N's leaderboard as a cancelled job's do);
//! 2. N's leaderboard is kept as it stands (JSON in its row), with when and why it ended;
//! 3. season N+1 starts: its first job is the next job made, so its leaderboard starts empty
//!    (fresh ratings) while every game stays readable;
//! 4. the final tournament among the versions in the ladder (each bot's last active version)
//!    is queued with the other fixed tournaments (`tournament.rs`), `final_games` deals per
//!    table; its standings are N's final standings (`/seasons/N`).
//!
//! Submissions are closed from the end until that final tournament is over (done, failed or
//! cancelled): an upload is refused with 409 naming the season. Comparisons and challenges
//! are jobs of their own kinds: they go on and end as they would (they never counted in the
//! ratings). Versions in their check at the end enter the ladder of season N+1.

use crate::db::{now_ms, Db, DbError};
use crate::domain::{seasons as table, EndedBy, TournamentState};
use crate::ladder::Ladder;
use crate::tournament::Tournaments;
use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// `[season]` in serve.toml.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeasonSection {
    /// The current season's deadline, RFC 3339 in UTC (`"2026-12-20T18:00:00Z"`).
    pub ends: Option<String>,
    /// Deals per table of the final tournament.
    pub final_games: Option<u32>,
}

/// `[season]` checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeasonConfig {
    /// The deadline, unix ms: it ends the current season if that one started before it.
    pub ends_ms: Option<i64>,
    pub final_games: u32,
}

/// Deals per table of a final tournament unless `[season] final_games` says otherwise.
pub const DEFAULT_FINAL_GAMES: u32 = 20;

/// `[season]` checked, each refusal naming the key and the fix.
pub fn resolve(s: &SeasonSection) -> Result<SeasonConfig, crate::config::ConfigError> {
    use crate::config::ConfigError;
    let ends_ms = match &s.ends {
        None => None,
        Some(text) => {
            let t = humantime::parse_rfc3339(text.trim()).map_err(|e| {
                let m = format!(
                    "[season] ends = {text:?}: {e}\n  fix: give a UTC time in RFC 3339, such as \
                     \"2026-12-20T18:00:00Z\""
                );
                ConfigError::key("[season] ends", m)
            })?;
            let ms = t
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| {
                    let m = format!("[season] ends = {text:?}: before 1970\n  fix: a later time");
                    ConfigError::key("[season] ends", m)
                })?
                .as_millis() as i64;
            Some(ms)
        }
    };
    let final_games = s.final_games.unwrap_or(DEFAULT_FINAL_GAMES);
    if final_games == 0 || final_games > 10_000 {
        let m = format!(
            "[season] final_games = {final_games}: the final tournament plays 1 to 10000 deals \
             per table\n  fix: set final_games = {DEFAULT_FINAL_GAMES}"
        );
        return Err(ConfigError::key("[season] final_games", m));
    }
    Ok(SeasonConfig {
        ends_ms,
        final_games,
    })
}

/// A time (unix ms) in RFC 3339, UTC, as `[season] ends` takes it.
pub fn rfc3339(ms: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

/// A season's row (its leaderboard apart: [`leaderboard`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Season {
    pub n: i64,
    /// Unix ms.
    pub started: i64,
    /// Its ladder jobs have ids from this one (to the next season's).
    pub first_job: i64,
    pub ended: Option<i64>,
    /// `"organiser"` or `"deadline"`.
    pub ended_by: Option<EndedBy>,
    /// The final tournament's id.
    pub tournament: Option<i64>,
    /// Why there is no final tournament (too few versions in the ladder, ...).
    pub final_error: Option<String>,
}

const COLUMNS: &str = "n, started, first_job, ended, ended_by, tournament, final_error";

fn row(r: &rusqlite::Row) -> rusqlite::Result<Season> {
    Ok(Season {
        n: r.get(0)?,
        started: r.get(1)?,
        first_job: r.get(2)?,
        ended: r.get(3)?,
        ended_by: r.get(4)?,
        tournament: r.get(5)?,
        final_error: r.get(6)?,
    })
}

/// The season running now (the one not ended; the migration made season 1).
pub fn current(db: &Db) -> Result<Season, crate::db::DbError> {
    db.read(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM seasons WHERE ended IS NULL ORDER BY n DESC LIMIT 1"),
            [],
            row,
        )
    })
}

pub fn get(db: &Db, n: i64) -> Result<Option<Season>, crate::db::DbError> {
    db.read(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM seasons WHERE n = ?1"),
            [n],
            row,
        )
        .optional()
    })
}

/// Every season, newest first.
pub fn list(db: &Db) -> Result<Vec<Season>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!("SELECT {COLUMNS} FROM seasons ORDER BY n DESC"))?;
        let rows = s.query_map([], row)?;
        rows.collect()
    })
}

/// An ended season's ladder leaderboard, as it stood at its end (`/api/leaderboard`'s JSON).
pub fn leaderboard(db: &Db, n: i64) -> Result<Option<Value>, DbError> {
    let text: Option<Option<String>> = db.read(|c| {
        c.query_row("SELECT leaderboard FROM seasons WHERE n = ?1", [n], |r| {
            r.get(0)
        })
        .optional()
    })?;
    Ok(text.flatten().and_then(|t| serde_json::from_str(&t).ok()))
}

/// Why submissions are closed now, if they are: the last season ended and its final
/// tournament is being made, queued or played.
pub fn closed(db: &Db) -> Result<Option<String>, DbError> {
    let last = db.read(|c| {
        c.query_row(
            &format!(
                "SELECT {COLUMNS} FROM seasons WHERE ended IS NOT NULL ORDER BY n DESC LIMIT 1"
            ),
            [],
            row,
        )
        .optional()
    })?;
    let Some(s) = last else { return Ok(None) };
    let open = match (s.tournament, &s.final_error) {
        (Some(t), _) => {
            !crate::domain::tournaments::state(db, t)?.is_some_and(TournamentState::is_open)
        }
        (None, Some(_)) => true,
        // Being made, this moment.
        (None, None) => false,
    };
    if open {
        return Ok(None);
    }
    let at = crate::dates::time(s.ended.unwrap_or(0));
    let final_at = s
        .tournament
        .map(|t| format!(" (/tournaments/{t})"))
        .unwrap_or_default();
    Ok(Some(format!(
        "season {} ended at {at}: submissions are closed while its final tournament{final_at} \
         decides the final standings (/seasons/{}); they open for season {} when it is over",
        s.n,
        s.n,
        s.n + 1
    )))
}

/// Why a season could not be ended.
#[derive(Debug, thiserror::Error)]
pub enum EndError {
    /// Season N was ended by another hand meanwhile (409).
    #[error("season {0} was ended meanwhile")]
    AlreadyEnded(i64),
    /// The season asked for is not the current one (409): `was`, what became of it (ended
    /// when, or none such). A request sent twice does not end the next season too.
    #[error(
        "{was}: the current season is {current}, and it was not ended\n  fix: ask for season \
         {current} (`durak season end --season {current}`, or {{\"season\": {current}}} in the \
         API's body) to end it"
    )]
    NotCurrent { was: String, current: i64 },
    /// The database failed (500).
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Why `durak season end --data-dir DIR` ([`end_offline`]) ended no season: the data directory,
/// the season asked for, the configuration given, each with its fix.
#[derive(Debug, thiserror::Error)]
pub enum OfflineError {
    #[error(
        "{dir}: no service.db here: not a data directory of `durak serve`\n  fix: give the \
         folder the server was started with (--data-dir DIR)"
    )]
    NotADataDir { dir: String },
    #[error(
        "{dir}: the server is running on it (it holds {dir}/lock): a season of a running server \
         is ended by the server\n  fix: durak season end --server URL --token ORGANISER (or \
         press \"End season N now\" on /organiser, or POST URL/api/seasons/end with the \
         organiser's token; a lost organiser token: durak organiser-token --data-dir {dir}); or \
         stop the server and run this again"
    )]
    Running { dir: String },
    /// `was`: what became of the season asked for (ended when, or none such).
    #[error(
        "{was}: the current season is {current}, and it was not ended\n  fix: --season \
         {current} ends it"
    )]
    NotCurrent { was: String, current: i64 },
    #[error(
        "the configuration's time limits ({given}) are not the ladder's ({stored}): the final \
         tournament would be played with them\n  fix: give the server's configuration \
         (--config serve.toml, as the server is started)"
    )]
    OtherLimits { given: String, stored: String },
    #[error(transparent)]
    Open(#[from] crate::db::OpenError),
    #[error(transparent)]
    Ladder(#[from] crate::ladder::LadderError),
    #[error(transparent)]
    End(#[from] EndError),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// End the current season (see the module's text). Returns the season ended, as it is now.
/// `expect`: the season the organiser means to end; another one current (a request sent
/// twice, or after the deadline ended it) is refused, naming it.
pub fn end(
    ladder: &Ladder,
    tournaments: &Tournaments,
    by: EndedBy,
    expect: Option<i64>,
) -> Result<Season, EndError> {
    let db = &ladder.db;
    let season = current(db)?;
    let n = season.n;
    if let Some(asked) = expect.filter(|&a| a != n) {
        return Err(EndError::NotCurrent {
            was: what_became(db, asked)?,
            current: n,
        });
    }
    cancel_ladder_jobs(ladder, i64::MAX)?;
    let board = serde_json::to_string(&*ladder.board.fresh()).expect("json");
    let now = now_ms();
    if !table::end(db, n, now, by, &board)? {
        return Err(EndError::AlreadyEnded(n));
    }
    // Jobs the scheduler made meanwhile are the old season's: gone too.
    let first = current(db)?.first_job;
    cancel_ladder_jobs(ladder, first)?;
    ladder.versions_changed()?;
    let (tournament, error) = match tournaments.start(ladder_final_games(ladder)) {
        Ok((id, _)) => (Some(id), None),
        Err(e) => (None, Some(e.to_string())),
    };
    table::set_final(db, n, tournament, error.as_deref())?;
    tracing::warn!(
        "season {n} ended ({by}); season {} started{}",
        n + 1,
        error
            .map(|e| format!("; no final tournament: {e}"))
            .unwrap_or_default()
    );
    Ok(get(db, n)?.expect("the season ended"))
}

/// What became of season `n`, for a refusal to end it: when it ended and by whom, or that
/// there is no such season.
fn what_became(db: &Db, n: i64) -> Result<String, DbError> {
    Ok(match get(db, n)? {
        Some(Season {
            ended: Some(at),
            ended_by,
            ..
        }) => format!(
            "season {n} ended at {} (by the {})",
            crate::dates::time(at),
            ended_by.map_or("organiser", EndedBy::as_str)
        ),
        _ => format!("there is no season {n}"),
    })
}

/// What `durak season end` did: the season ended, and its final tournament (id) or why there
/// is none.
#[derive(Debug)]
pub struct EndedOffline {
    pub season: Season,
    pub next: i64,
}

/// `durak season end --data-dir DIR`: end the current season of a stopped server's data
/// directory, as `POST /api/seasons/end` does (its final tournament queued: the next start
/// plays it). `cfg` is the server's configuration (`--config`): the final tournament takes its
/// table size, limits and sandbox, and a configuration of another ladder is refused before
/// anything changes. `expect`: the season the organiser means to end; another one current (the
/// command given twice) is refused, naming it.
pub fn end_offline(
    cfg: Arc<crate::config::Config>,
    expect: Option<i64>,
) -> Result<EndedOffline, OfflineError> {
    let paths = crate::store::Paths::new(&cfg.data_dir);
    let dir = paths.root.display().to_string();
    if !paths.db().is_file() {
        return Err(OfflineError::NotADataDir { dir });
    }
    let _lock = paths
        .lock()
        .map_err(|_| OfflineError::Running { dir: dir.clone() })?;
    let db = Arc::new(Db::open(&paths.db())?);
    let current = current(&db)?;
    if let Some(n) = expect.filter(|&n| n != current.n) {
        let was = what_became(&db, n)?;
        return Err(OfflineError::NotCurrent {
            was,
            current: current.n,
        });
    }
    // The ladder's time limits since when are kept: a configuration with others is not the
    // server's (the server itself applies a change at its next start).
    let stored = db.setting(crate::ladder::LIMITS_KEY)?;
    let given = crate::ladder::limits_text(&cfg);
    if let Some(stored) = stored.filter(|s| *s != given) {
        return Err(OfflineError::OtherLimits { given, stored });
    }
    let ladder = Ladder::new(db.clone(), cfg, paths)?;
    let tournaments = Tournaments::new(ladder.clone());
    let ended = end(&ladder, &tournaments, EndedBy::Organiser, None);
    ladder.stop();
    let season = ended?;
    Ok(EndedOffline {
        next: season.n + 1,
        season,
    })
}

fn ladder_final_games(ladder: &Ladder) -> u32 {
    ladder.cfg.season.final_games
}

/// Cancel the open ladder jobs with ids below `below` (their games in flight not recorded),
/// their recorded games added to the leaderboard as a cancelled job's.
fn cancel_ladder_jobs(ladder: &Ladder, below: i64) -> Result<(), DbError> {
    let ids: Vec<i64> = crate::ladder::jobs::open_jobs(&ladder.db)?
        .iter()
        .filter(|j| j.kind == crate::ladder::jobs::KIND_LADDER && j.id < below)
        .map(|j| j.id)
        .collect();
    for id in crate::ladder::jobs::cancel_many(&ladder.db, &ids)? {
        ladder.job_cancelled(id);
        ladder.board.add_job(&ladder.db, id, false)?;
    }
    Ok(())
}

/// How long until the deadline ends the current season: `None` without a deadline, or when
/// the current season started at or after it (a deadline ends one season, once). Season 1
/// runs from the server's first start, whenever the deadline was written.
pub fn until_deadline(db: &Db, cfg: &SeasonConfig) -> Result<Option<std::time::Duration>, DbError> {
    let Some(ends) = cfg.ends_ms else {
        return Ok(None);
    };
    let s = current(db)?;
    if s.n > 1 && s.started >= ends {
        return Ok(None);
    }
    Ok(Some(std::time::Duration::from_millis(
        (ends - now_ms()).max(0) as u64,
    )))
}

/// At the start: end the current season at `[season] ends` (at once when it passed while the
/// server was stopped), on the runtime's clock.
pub fn watch_deadline(
    rt: &tokio::runtime::Runtime,
    ladder: Arc<Ladder>,
    tournaments: Arc<Tournaments>,
) -> Result<(), DbError> {
    let Some(wait) = until_deadline(&ladder.db, &ladder.cfg.season)? else {
        return Ok(());
    };
    rt.spawn(async move {
        tokio::time::sleep(wait).await;
        let ended = tokio::task::spawn_blocking(move || {
            end(&ladder, &tournaments, EndedBy::Deadline, None)
        });
        match ended.await {
            Ok(Ok(_)) | Ok(Err(EndError::AlreadyEnded(_))) => {}
            Ok(Err(e)) => tracing::error!("the season's deadline: {e}"),
            Err(e) => tracing::error!("the season's deadline: {e}"),
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_season_of_no_data_directory_is_not_ended_and_says_the_flag() {
        let d = tempfile::tempdir().unwrap();
        let o = crate::config::Overrides {
            data_dir: Some(d.path().join("none")),
            ..Default::default()
        };
        let cfg = Arc::new(crate::config::resolve(None, &o).unwrap());
        let e = end_offline(cfg, None).unwrap_err();
        assert!(matches!(e, OfflineError::NotADataDir { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("no service.db here")
                && e.contains("fix: give the folder")
                && e.contains("--data-dir DIR"),
            "{e}"
        );
    }

    #[test]
    fn the_deadline_is_checked_with_the_fix() {
        let ok = resolve(&SeasonSection {
            ends: Some("2026-12-20T18:00:00Z".into()),
            final_games: None,
        })
        .unwrap();
        assert_eq!(ok.ends_ms, Some(1_797_789_600_000));
        assert_eq!(rfc3339(1_797_789_600_000), "2026-12-20T18:00:00Z");
        assert_eq!(ok.final_games, DEFAULT_FINAL_GAMES);
        let e = resolve(&SeasonSection {
            ends: Some("20 December".into()),
            final_games: None,
        })
        .unwrap_err();
        assert_eq!(e.key_name(), Some("[season] ends"));
        let e = e.to_string();
        assert!(e.contains("[season] ends") && e.contains("fix:"), "{e}");
        let e = resolve(&SeasonSection {
            ends: None,
            final_games: Some(0),
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("[season] final_games") && e.contains("fix:"),
            "{e}"
        );
    }

    #[test]
    fn season_one_is_there_from_the_start_and_a_deadline_ends_one_season_once() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let s = current(&db).unwrap();
        assert_eq!((s.n, s.first_job, s.ended), (1, 1, None));
        let past = SeasonConfig {
            ends_ms: Some(s.started - 1),
            final_games: 1,
        };
        // Season 1 runs from the first start: a deadline written before it still ends it.
        assert_eq!(
            until_deadline(&db, &past).unwrap(),
            Some(std::time::Duration::ZERO)
        );
        let soon = SeasonConfig {
            ends_ms: Some(now_ms() + 60_000),
            final_games: 1,
        };
        let wait = until_deadline(&db, &soon).unwrap().unwrap();
        assert!(wait > std::time::Duration::from_secs(50), "{wait:?}");
        assert_eq!(closed(&db).unwrap(), None);
        // Season 1 ended (by the deadline), season 2 started after it: the same deadline
        // ends nothing more.
        let now = now_ms();
        assert!(table::end(&db, 1, now, EndedBy::Deadline, "{}").unwrap());
        // Once: a second hand finds it ended.
        assert!(!table::end(&db, 1, now, EndedBy::Organiser, "{}").unwrap());
        assert_eq!(current(&db).unwrap().n, 2);
        let passed = SeasonConfig {
            ends_ms: Some(now - 1),
            final_games: 1,
        };
        assert_eq!(until_deadline(&db, &passed).unwrap(), None);
        // Ended with no final tournament being made yet: submissions are closed.
        let why = closed(&db).unwrap().unwrap();
        assert!(
            why.contains("season 1 ended") && why.contains("season 2"),
            "{why}"
        );
    }
}
