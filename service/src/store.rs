//! The data directory and the queries over bots, versions and games that the ladder, the
//! checker and the pages share.
//!
//! ```text
//! DATA/lock               held (flock) by the running server
//! DATA/service.db          the database (WAL: service.db-wal, service.db-shm beside it)
//! DATA/uploads/vID.archive every accepted upload, as received (fsynced before it is acknowledged)
//! DATA/bots/vID/           the version's folder, unpacked from its upload once (and built)
//! DATA/replays/jJOB/       the games' replays of older servers (every game's replay is now
//!                          in the database, `game_replays`: `replays.rs`)
//! DATA/tournaments/N/      fixed tournaments (a `durak tournament` directory each)
//! ```

use crate::db::{Db, DbError};
use crate::domain::VersionState;
use durak_protocol::Fault;
use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;

mod paths;
pub mod replays;
pub use paths::{folder_for_bots, private_db, DataDirError, Paths};

/// A version of a bot, with its bot's and author's names.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Version {
    pub id: i64,
    pub bot: String,
    pub bot_id: i64,
    pub n: i64,
    pub author: String,
    pub account: i64,
    pub house: bool,
    pub state: VersionState,
    pub reason: Option<String>,
    pub command: String,
    pub language: String,
    pub build_cmd: Option<String>,
    pub sha256: Option<String>,
    pub size: Option<i64>,
    pub submitted: i64,
    pub checked: Option<i64>,
    pub entered: Option<i64>,
    pub first_game: Option<i64>,
    pub fault_streak: i64,
    /// When its files (archive, folder, build) were removed, unix ms: a failed version's, after
    /// `[quota] failed_keep_days` (`quota::sweep_failed`). Its row and page stay.
    pub files_removed: Option<i64>,
}

impl Version {
    /// `name v3`, as shown.
    pub fn label(&self) -> String {
        format!("{} v{}", self.bot, self.n)
    }
}

const VERSION_COLUMNS: &str = "v.id, b.name, b.id, v.n, a.name, a.id, b.house, v.state, \
    v.reason, v.command, v.language, v.build_cmd, v.sha256, v.size, v.submitted, v.checked, \
    v.entered, v.first_game, v.fault_streak, v.files_removed";
const VERSION_FROM: &str =
    "FROM versions v JOIN bots b ON b.id = v.bot JOIN accounts a ON a.id = b.account";

fn row_to_version(r: &Row) -> rusqlite::Result<Version> {
    Ok(Version {
        id: r.get(0)?,
        bot: r.get(1)?,
        bot_id: r.get(2)?,
        n: r.get(3)?,
        author: r.get(4)?,
        account: r.get(5)?,
        house: r.get::<_, i64>(6)? != 0,
        state: r.get(7)?,
        reason: r.get(8)?,
        command: r.get(9)?,
        language: r.get(10)?,
        build_cmd: r.get(11)?,
        sha256: r.get(12)?,
        size: r.get(13)?,
        submitted: r.get(14)?,
        checked: r.get(15)?,
        entered: r.get(16)?,
        first_game: r.get(17)?,
        fault_streak: r.get(18)?,
        files_removed: r.get(19)?,
    })
}

/// Versions in one of `states` (all with an empty list), by id.
pub fn versions(db: &Db, states: &[VersionState]) -> Result<Vec<Version>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {VERSION_COLUMNS} {VERSION_FROM} ORDER BY v.id"
        ))?;
        let rows = s.query_map([], row_to_version)?;
        let all: rusqlite::Result<Vec<Version>> = rows.collect();
        Ok(all?
            .into_iter()
            .filter(|v| states.is_empty() || states.contains(&v.state))
            .collect())
    })
}

pub fn version(db: &Db, id: i64) -> Result<Option<Version>, DbError> {
    db.read(|c| {
        c.prepare_cached(&format!(
            "SELECT {VERSION_COLUMNS} {VERSION_FROM} WHERE v.id = ?1"
        ))?
        .query_row([id], row_to_version)
        .optional()
    })
}

/// The versions of a bot, newest first.
pub fn versions_of_bot(db: &Db, bot: &str) -> Result<Vec<Version>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {VERSION_COLUMNS} {VERSION_FROM} WHERE b.name = ?1 ORDER BY v.n DESC"
        ))?;
        let rows = s.query_map([bot], row_to_version)?;
        rows.collect()
    })
}

/// The versions of an account's bots, newest first.
pub fn versions_of_account(db: &Db, account: i64) -> Result<Vec<Version>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {VERSION_COLUMNS} {VERSION_FROM} WHERE a.id = ?1 ORDER BY v.id DESC"
        ))?;
        let rows = s.query_map([account], row_to_version)?;
        rows.collect()
    })
}

/// A version's reports: (build report JSON, check-bot report JSON).
pub fn reports(db: &Db, id: i64) -> Result<(Option<String>, Option<String>), DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT build, report FROM versions WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map(|o| o.unwrap_or((None, None)))
    })
}

/// A recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GameRow {
    pub job: i64,
    pub game: u32,
    pub rotation: u32,
    pub deal: u32,
    /// Version ids by seat.
    pub seats: Vec<i64>,
    #[serde(with = "crate::domain::jobs::u64_text")]
    #[schema(value_type = String)]
    pub seed: u64,
    pub dealer: usize,
    pub loser: Option<usize>,
    pub draw: bool,
    /// The protocol's faults (`schemas/replay.json`).
    #[schema(value_type = Vec<Object>)]
    pub faults: Vec<Fault>,
    pub moves: u32,
    pub duration_ms: u64,
    pub move_limit: Option<u32>,
    /// Where the replay is kept: `db:replays/jJOB/gGAME.jsonl.zst` in the database (every
    /// game recorded by this server), or a file relative to the data directory (older
    /// servers'). Its lines: `GET /api/games/JOB/GAME/replay`.
    pub replay: String,
    pub recorded: i64,
    /// Why attempts at this game were voided and it was played again (a bot starved by the
    /// machine), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<String>,
    /// Given up after 3 voided attempts: it counts for nobody.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub void: bool,
}

pub const GAME_COLUMNS: &str = "g.job, g.game, g.rotation, g.deal, g.seats, g.seed, g.dealer, \
    g.loser, g.draw, g.faults, g.moves, g.duration_ms, g.move_limit, g.replay, g.recorded, g.voided, g.void";

/// How many columns [`GAME_COLUMNS`] holds: a query's next column is at this index.
pub const GAME_COLUMN_COUNT: usize = 17;

pub fn row_to_game(r: &Row) -> rusqlite::Result<GameRow> {
    let bad = |e: serde_json::Error| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    };
    let seats: String = r.get(4)?;
    let faults: String = r.get(9)?;
    Ok(GameRow {
        job: r.get(0)?,
        game: r.get(1)?,
        rotation: r.get(2)?,
        deal: r.get(3)?,
        seats: serde_json::from_str(&seats).map_err(bad)?,
        seed: r.get::<_, i64>(5)? as u64,
        dealer: r.get::<_, i64>(6)? as usize,
        loser: r.get::<_, Option<i64>>(7)?.map(|l| l as usize),
        draw: r.get::<_, i64>(8)? != 0,
        faults: serde_json::from_str(&faults).map_err(bad)?,
        moves: r.get(10)?,
        duration_ms: r.get::<_, i64>(11)? as u64,
        move_limit: r.get(12)?,
        replay: r.get(13)?,
        recorded: r.get(14)?,
        voided: match r.get::<_, Option<String>>(15)? {
            Some(v) => serde_json::from_str(&v).map_err(bad)?,
            None => Vec::new(),
        },
        void: r.get::<_, i64>(16)? != 0,
    })
}

pub fn game(db: &Db, job: i64, game: u32) -> Result<Option<GameRow>, DbError> {
    db.read(|c| {
        c.query_row(
            &format!("SELECT {GAME_COLUMNS} FROM games g WHERE g.job = ?1 AND g.game = ?2"),
            params![job, game],
            row_to_game,
        )
        .optional()
    })
}

/// The latest games of a version (at most `limit`), and how many it has.
pub fn games_of_version(db: &Db, v: i64, limit: usize) -> Result<(Vec<GameRow>, u64), DbError> {
    db.read(|c| {
        let total: i64 = c.query_row(
            "SELECT COUNT(*) FROM game_seats WHERE version = ?1",
            [v],
            |r| r.get(0),
        )?;
        let mut s = c.prepare(&format!(
            "SELECT {GAME_COLUMNS} FROM game_seats s JOIN games g ON g.job = s.job AND g.game = \
             s.game WHERE s.version = ?1 ORDER BY g.recorded DESC, g.job DESC, g.game DESC \
             LIMIT ?2"
        ))?;
        let rows = s.query_map(params![v, limit as i64], row_to_game)?;
        Ok((rows.collect::<rusqlite::Result<Vec<_>>>()?, total as u64))
    })
}

/// The filters of a version's games list (`GET /api/bots/BOT/versions/N/games`), applied in
/// SQL by [`version_games`].
#[derive(Clone, Debug, Default)]
pub struct GamesFilter<'a> {
    /// A bot's name: games with one of its versions at another seat.
    pub opponent: Option<&'a str>,
    /// `won`, `lost`, `draw` or `void`, for the version's seat (`won`: not the durak).
    pub result: Option<&'a str>,
    /// Only the games in which the version faulted.
    pub fault: bool,
}

/// The `WHERE` of [`version_games`]: ?1 the version, ?2 the opponent's bot name, ?3 the result,
/// ?4 faulted only (0/1). Rows of `game_seats s` joined to `games g`; the opponent is found by
/// the game (index `game_seats_game`), the version's rows by `game_seats`' key.
const VERSION_GAMES_WHERE: &str = "s.version = ?1 \
    AND (?2 IS NULL OR EXISTS (SELECT 1 FROM game_seats o JOIN versions ov ON ov.id = o.version \
         JOIN bots ob ON ob.id = ov.bot WHERE o.job = s.job AND o.game = s.game \
         AND o.version != ?1 AND ob.name = ?2)) \
    AND (?3 IS NULL OR (?3 = 'void' AND g.void = 1) OR (g.void = 0 AND ( \
         (?3 = 'draw' AND g.loser IS NULL) OR (?3 = 'lost' AND g.loser = s.seat) \
         OR (?3 = 'won' AND g.loser IS NOT NULL AND g.loser != s.seat)))) \
    AND (?4 = 0 OR EXISTS (SELECT 1 FROM json_each(g.faults) f \
         WHERE json_extract(f.value, '$.seat') = s.seat))";

/// One page of a version's games, newest first, filtered in SQL (`LIMIT`/`OFFSET`): the games
/// with the version's seat in each, and how many games match the filters.
pub fn version_games(
    db: &Db,
    v: i64,
    f: &GamesFilter,
    limit: usize,
    offset: usize,
) -> Result<(Vec<(GameRow, usize)>, u64), DbError> {
    db.read(|c| {
        let args = params![v, f.opponent, f.result, f.fault as i64];
        let total: i64 = c.query_row(
            &format!(
                "SELECT COUNT(*) FROM game_seats s JOIN games g ON g.job = s.job AND g.game = \
                 s.game WHERE {VERSION_GAMES_WHERE}"
            ),
            args,
            |r| r.get(0),
        )?;
        let mut s = c.prepare(&format!(
            "SELECT {GAME_COLUMNS}, s.seat FROM game_seats s JOIN games g ON g.job = s.job AND \
             g.game = s.game WHERE {VERSION_GAMES_WHERE} ORDER BY g.recorded DESC, g.job DESC, \
             g.game DESC LIMIT ?5 OFFSET ?6"
        ))?;
        let rows = s.query_map(
            params![
                v,
                f.opponent,
                f.result,
                f.fault as i64,
                limit as i64,
                offset as i64
            ],
            |r| {
                Ok((
                    row_to_game(r)?,
                    r.get::<_, i64>(GAME_COLUMN_COUNT)? as usize,
                ))
            },
        )?;
        Ok((rows.collect::<rusqlite::Result<Vec<_>>>()?, total as u64))
    })
}

/// The step of each seat's first decision asked in game (job, game) (`None`: that seat was
/// never asked), as [`save_rerun_steps`] stored it; `None`: not computed yet.
pub fn rerun_steps(db: &Db, job: i64, game: u32) -> Result<Option<Vec<Option<usize>>>, DbError> {
    let text: Option<String> = db.read(|c| {
        c.query_row(
            "SELECT steps FROM game_rerun_steps WHERE job = ?1 AND game = ?2",
            params![job, game],
            |r| r.get(0),
        )
        .optional()
    })?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

/// Keep the steps [`rerun_steps`] reads (computed once per game: a simulation of its replay).
pub fn save_rerun_steps(
    db: &Db,
    job: i64,
    game: u32,
    steps: &[Option<usize>],
) -> Result<(), DbError> {
    let text = serde_json::json!(steps).to_string();
    db.write_relaxed(|c| {
        c.execute(
            "INSERT OR REPLACE INTO game_rerun_steps (job, game, steps) VALUES (?1, ?2, ?3)",
            params![job, game, text],
        )
        .map(|_| ())
    })
}

/// The latest games of a version in which it faulted (at most `limit`).
pub fn faults_of_version(db: &Db, v: i64, limit: usize) -> Result<Vec<(GameRow, usize)>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {GAME_COLUMNS}, s.seat FROM game_seats s JOIN games g ON g.job = s.job AND \
             g.game = s.game WHERE s.version = ?1 AND g.faults != '[]' ORDER BY g.recorded \
             DESC LIMIT 500"
        ))?;
        let rows = s.query_map([v], |r| {
            Ok((
                row_to_game(r)?,
                r.get::<_, i64>(GAME_COLUMN_COUNT)? as usize,
            ))
        })?;
        let all: Vec<(GameRow, usize)> = rows.collect::<rusqlite::Result<_>>()?;
        Ok(all
            .into_iter()
            .filter(|(g, seat)| g.faults.iter().any(|f| f.seat == *seat))
            .take(limit)
            .collect())
    })
}

/// Games recorded in all.
pub fn game_count(db: &Db) -> Result<u64, DbError> {
    db.read(|c| c.query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0)))
        .map(|n| n as u64)
}

/// The labels (`bot vN`) of versions, in one query; a version not found has none.
pub fn labels(db: &Db, ids: &[i64]) -> Result<std::collections::HashMap<i64, String>, DbError> {
    let mut ids: Vec<i64> = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let list = serde_json::to_string(&ids).expect("json");
    db.read(|c| {
        let mut s = c.prepare(
            "SELECT v.id, b.name, v.n FROM versions v JOIN bots b ON b.id = v.bot WHERE v.id IN \
             (SELECT value FROM json_each(?1))",
        )?;
        let rows = s.query_map([list], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                format!("{} v{}", r.get::<_, String>(1)?, r.get::<_, i64>(2)?),
            ))
        })?;
        rows.collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Version 1 (bot alpha) against versions 2 (beta) and 3 (gamma), in 60 games of varied
    /// seats, results, voids and faults: every filter of the list, paged 25 at a time in SQL,
    /// gives the games the filters in Rust give, newest first.
    #[test]
    fn a_versions_games_are_filtered_and_paged_in_sql() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let fault =
            |seat: usize| serde_json::json!({"seat": seat, "kind": "timeout", "detail": "slow"});
        let mut games: Vec<(u32, usize, &str, &str, bool)> = Vec::new();
        db.write(|c| {
            c.execute_batch(
                "INSERT INTO accounts (id, name, created) VALUES (1, 'ada', 0);
                 INSERT INTO bots (id, name, account, created) VALUES (1, 'alpha', 1, 0),
                     (2, 'beta', 1, 0), (3, 'gamma', 1, 0);
                 INSERT INTO versions (id, bot, n, state, command, submitted) VALUES
                     (1, 1, 1, 'active', 'x', 0), (2, 2, 1, 'active', 'x', 0),
                     (3, 3, 1, 'active', 'x', 0);
                 INSERT INTO jobs (id, seats, deals, state, created) VALUES (1, '[]', '[]', 'done', 0);",
            )?;
            for i in 0..60u32 {
                let (opp, opp_name) = if i % 3 == 0 { (3, "gamma") } else { (2, "beta") };
                let seat = (i % 2) as usize;
                let seats = if seat == 0 { [1, opp] } else { [opp, 1] };
                let void = i % 10 == 9;
                let loser = match i % 4 {
                    0 => None,
                    1 => Some(seat),
                    _ => Some(1 - seat),
                };
                let loser = if void { None } else { loser };
                let mut faults = Vec::new();
                if i % 7 == 0 {
                    faults.push(fault(seat));
                }
                if i % 5 == 0 {
                    faults.push(fault(1 - seat));
                }
                let result = match loser {
                    _ if void => "void",
                    None => "draw",
                    Some(l) if l == seat => "lost",
                    Some(_) => "won",
                };
                games.push((i, seat, opp_name, result, i % 7 == 0));
                c.execute(
                    "INSERT INTO games (job, game, rotation, deal, seats, seed, dealer, loser, \
                     draw, faults, moves, duration_ms, replay, recorded, void) VALUES (1, ?1, 0, \
                     0, ?2, 1, 0, ?3, ?4, ?5, 10, 1, 'r', ?1, ?6)",
                    params![
                        i,
                        serde_json::to_string(&seats).unwrap(),
                        loser.map(|l| l as i64),
                        (loser.is_none() && !void) as i64,
                        serde_json::Value::from(faults).to_string(),
                        void as i64
                    ],
                )?;
                for (s, v) in seats.iter().enumerate() {
                    c.execute(
                        "INSERT INTO game_seats (version, job, game, seat) VALUES (?1, 1, ?2, ?3)",
                        params![v, i, s as i64],
                    )?;
                }
            }
            Ok(())
        })
        .unwrap();
        games.reverse();
        for opponent in [
            None,
            Some("beta"),
            Some("gamma"),
            Some("alpha"),
            Some("nobody"),
        ] {
            for result in [None, Some("won"), Some("lost"), Some("draw"), Some("void")] {
                for fault in [false, true] {
                    let f = GamesFilter {
                        opponent,
                        result,
                        fault,
                    };
                    let want: Vec<(u32, usize)> = games
                        .iter()
                        .filter(|g| {
                            opponent.is_none_or(|o| o == g.2)
                                && result.is_none_or(|r| r == g.3)
                                && (!fault || g.4)
                        })
                        .map(|g| (g.0, g.1))
                        .collect();
                    let mut got = Vec::new();
                    for page in 0..4 {
                        let (rows, total) = version_games(&db, 1, &f, 25, page * 25).unwrap();
                        assert_eq!(total, want.len() as u64, "{f:?}");
                        assert!(rows.len() <= 25);
                        got.extend(rows.into_iter().map(|(g, s)| (g.game, s)));
                    }
                    assert_eq!(got, want, "{f:?}");
                }
            }
        }
        // More games than a page: the first page holds the 25 newest.
        let (rows, total) = version_games(&db, 1, &GamesFilter::default(), 25, 0).unwrap();
        assert_eq!((rows.len(), total), (25, 60));
        assert_eq!(rows[0].0.game, 59);
        // The opponent's own list is found by the same query.
        let (_, gamma) = version_games(&db, 3, &GamesFilter::default(), 25, 0).unwrap();
        assert_eq!(gamma, 20);
        // The rerun steps: none until saved, then as saved.
        assert_eq!(rerun_steps(&db, 1, 3).unwrap(), None);
        save_rerun_steps(&db, 1, 3, &[Some(2), None]).unwrap();
        assert_eq!(rerun_steps(&db, 1, 3).unwrap(), Some(vec![Some(2), None]));
    }
}
