//! The endgame analysis of the ladder's games (issue 26), computed once per game and kept in
//! `game_analysis`: the values the game's page shows (`durak_replay::html::data::endgame_codes`)
//! and, per seat, the decisions valued, the blunders and whether it threw a won game away, which
//! a version's page sums into its endgame accuracy.
//!
//! Off every request's path: one background thread ([`run`], started with the ladder) analyses
//! the games not analysed yet, the newest first, at the scheduler's idle priority (`SCHED_IDLE`),
//! so that solving endgames never takes a CPU from a bot's clock or an answer from the server.
//! The solving itself is done in a process of its own (`worker.rs`: sharing the server's memory,
//! it slowed the tables), or in the thread when the server is not the `durak` binary. A
//! request never solves: a game's page shown before its turn says so. A version's view only sums the
//! stored rows; when the thread catches up it touches the board, so cached views show the new
//! sums. A game is never solved twice.

use crate::db::{Db, DbError};
use crate::store::{GameRow, Paths};
use durak_replay::analyze::{analyze_within, Accuracy, SeatSummary};
use durak_replay::html::data::endgame_codes;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

pub mod gate;
pub mod worker;

/// The solver's budget per decision: the tournament report's.
pub const BUDGET: u64 = durak_report::scan::ANALYSIS_BUDGET;
/// The background thread's batch: it touches the board after this many games, or sooner when
/// it has caught up.
pub const BATCH: usize = 20;

/// One game's stored analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// The page's values (`eg`).
    pub endgame: Vec<String>,
    /// Per seat: decisions valued, blunders, threw a won game away (0 or 1).
    pub seats: Vec<[u64; 3]>,
}

/// A version's endgame accuracy, over its games analysed so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct VersionAccuracy {
    /// The share of its solved endgame decisions that kept its value (0 to 1); `None` when none
    /// was valued.
    pub accuracy: Option<f64>,
    pub decisions: u64,
    pub blunders: u64,
    /// Games with at least one of its decisions valued, and with a blunder of it.
    pub games_valued: u64,
    pub games_with_blunders: u64,
    pub thrown_away: u64,
    /// Its games analysed so far (the others are analysed as its page is viewed).
    pub games_analysed: u64,
    #[serde(skip)]
    pub tally: Accuracy,
}

/// Why a game's analysis cannot be read or made: the server's fault (500), never the request's.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Db(#[from] DbError),
    /// A stored row is not the JSON this module writes.
    #[error("game_analysis: {0}")]
    Stored(#[from] serde_json::Error),
    /// The game's replay cannot be read (`replay`: its path in the data directory).
    #[error("{replay}: {detail}")]
    Unreadable { replay: String, detail: String },
    /// The replay is read but is not one (`0`: the parser's words).
    #[error("{0}")]
    NotAReplay(String),
}

fn seat_figures(s: &SeatSummary) -> [u64; 3] {
    [
        s.decisions as u64,
        s.blunders as u64,
        u64::from(s.threw_won_game),
    ]
}

fn stored(db: &Db, job: i64, game: u32) -> Result<Option<GameAnalysis>, AnalysisError> {
    db.read(|c| {
        c.query_row(
            "SELECT endgame, seats FROM game_analysis WHERE job = ?1 AND game = ?2",
            params![job, game],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )
        .optional()
    })?
    .map(|(e, s)| {
        Ok(GameAnalysis {
            endgame: serde_json::from_str(&e)?,
            seats: serde_json::from_str(&s)?,
        })
    })
    .transpose()
}

/// A replay's analysis, from its lines (`name`: the replay's, for messages).
fn compute(text: &[u8], name: &str) -> Result<GameAnalysis, AnalysisError> {
    let replay = durak_replay::parse_replay(text, name)
        .map_err(|e| AnalysisError::NotAReplay(e.to_string()))?;
    let a = analyze_within(&durak_replay::simulate(&replay), BUDGET);
    Ok(GameAnalysis {
        endgame: endgame_codes(&a),
        seats: a.seats.iter().map(seat_figures).collect(),
    })
}

/// Where the solving is done: a worker process, else this thread.
struct Solver {
    worker: Option<worker::Worker>,
    /// A worker failed to start: solve in this thread from then on.
    in_thread: bool,
}

impl Solver {
    fn new() -> Solver {
        Solver {
            worker: None,
            in_thread: worker::program().is_none(),
        }
    }

    /// The CPU time the analysis used so far, in clock ticks: its worker process's, or this
    /// thread's when it solves here (0 when it cannot be read).
    fn cpu_ticks(&self) -> u64 {
        let path = match &self.worker {
            Some(w) if !self.in_thread => format!("/proc/{}/stat", w.pid()),
            _ => "/proc/thread-self/stat".to_string(),
        };
        std::fs::read_to_string(path)
            .ok()
            .and_then(|s| gate::stat_ticks(&s))
            .unwrap_or(0)
    }

    /// The analysis of a replay; `Err(None)` when the worker died on it (the game is kept with
    /// no values; the next game starts another worker).
    fn solve(&mut self, text: &[u8], name: &str) -> Result<GameAnalysis, Option<AnalysisError>> {
        if self.in_thread {
            return compute(text, name).map_err(Some);
        }
        let program = worker::program().expect("a worker program");
        if self.worker.is_none() {
            match worker::Worker::start(program) {
                Ok(w) => self.worker = Some(w),
                Err(e) => {
                    tracing::warn!(
                        "endgame analysis: no worker process ({e}); solving in the server's thread"
                    );
                    self.in_thread = true;
                    return compute(text, name).map_err(Some);
                }
            }
        }
        let w = self.worker.as_mut().expect("started");
        match w.analyse(text, name) {
            Ok(r) => r.map_err(Some),
            Err(e) => {
                tracing::warn!("endgame analysis of {name}: the worker process failed ({e})");
                self.worker = None;
                Err(None)
            }
        }
    }
}

/// Analyse a game's replay and store it.
fn analyse(
    db: &Db,
    paths: &Paths,
    g: &GameRow,
    solver: &mut Solver,
) -> Result<GameAnalysis, AnalysisError> {
    let text = crate::store::replays::of_row(db, &paths.root, g).map_err(|e| {
        AnalysisError::Unreadable {
            replay: g.replay.clone(),
            detail: e.to_string(),
        }
    })?;
    let out = solver.solve(&text, &g.replay).map_err(|e| {
        e.unwrap_or_else(|| AnalysisError::NotAReplay("the analysis worker died on it".into()))
    })?;
    let (e, s) = (
        serde_json::to_string(&out.endgame).expect("strings"),
        serde_json::to_string(&out.seats).expect("numbers"),
    );
    keep(db, g, &e, &s)?;
    Ok(out)
}

/// Store a game's analysis (once: a second row for it is ignored).
fn keep(db: &Db, g: &GameRow, endgame: &str, seats: &str) -> Result<(), DbError> {
    // Relaxed: a row lost with the machine is analysed again.
    db.write_relaxed(|c| {
        c.execute(
            "INSERT OR IGNORE INTO game_analysis (job, game, endgame, seats) VALUES (?1, ?2, ?3, ?4)",
            params![g.job, g.game, endgame, seats],
        )
    })?;
    Ok(())
}

/// A game's analysis, when the background thread has made it ([`run`]): a request never
/// solves (a reader asking for many new games' pages would otherwise spend the server's CPU).
pub fn of_game(db: &Db, g: &GameRow) -> Result<Option<GameAnalysis>, AnalysisError> {
    stored(db, g.job, g.game)
}

/// Said on a game's page whose endgame is not analysed yet.
pub const NOT_YET: &str = "Endgame values: this game is not analysed yet (the server analyses \
                           games in the background, the newest first); reload the page later";

/// Version `v`'s endgame accuracy over its games analysed so far: the sums of their stored
/// rows (nothing is solved here; see [`run`]).
pub fn of_version(db: &Db, v: i64) -> Result<VersionAccuracy, AnalysisError> {
    let rows: Vec<(i64, String)> = db.read(|c| {
        let mut s = c.prepare(
            "SELECT s.seat, a.seats FROM game_seats s JOIN game_analysis a ON a.job = s.job \
             AND a.game = s.game WHERE s.version = ?1",
        )?;
        let rows = s.query_map([v], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    })?;
    let mut tally = Accuracy::default();
    let mut out = VersionAccuracy::default();
    for (seat, seats) in &rows {
        let seats: Vec<[u64; 3]> = serde_json::from_str(seats)?;
        if let Some(&[decisions, blunders, threw]) = seats.get(*seat as usize) {
            tally.add(&SeatSummary {
                decisions: decisions as usize,
                blunders: blunders as usize,
                threw_won_game: threw != 0,
                ..SeatSummary::default()
            });
        }
    }
    out.games_analysed = db.read(|c| {
        c.query_row(
            "SELECT COUNT(DISTINCT s.job || ':' || s.game) FROM game_seats s JOIN game_analysis a \
             ON a.job = s.job AND a.game = s.game WHERE s.version = ?1",
            [v],
            |r| r.get::<_, i64>(0),
        )
    })? as u64;
    out.accuracy = tally.share();
    out.decisions = tally.decisions;
    out.blunders = tally.blunders;
    out.games_valued = tally.games;
    out.games_with_blunders = tally.games_with_blunders;
    out.thrown_away = tally.thrown;
    out.tally = tally;
    Ok(out)
}

/// The newest games not analysed yet, at most `n`.
fn pending(db: &Db, n: usize) -> Result<Vec<GameRow>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {} FROM games g WHERE NOT EXISTS (SELECT 1 FROM game_analysis a WHERE \
             a.job = g.job AND a.game = g.game) \
             ORDER BY g.recorded DESC, g.job DESC, g.game DESC LIMIT ?1",
            crate::store::GAME_COLUMNS
        ))?;
        let rows = s.query_map([n as i64], crate::store::row_to_game)?;
        rows.collect()
    })
}

/// Run this thread at the scheduler's idle priority: it gets a CPU only when nothing else
/// wants it (Linux applies the policy to the calling thread alone).
fn idle_priority() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler with pid 0 changes only the calling thread's policy; `param`
    // is a valid sched_param for SCHED_IDLE (priority 0).
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    if rc != 0 {
        tracing::warn!(
            "endgame analysis: could not take the idle priority ({}); it runs at the default one",
            std::io::Error::last_os_error()
        );
    }
}

/// The background analyser: until `stop` says so, analyses the games not analysed yet, the
/// newest first, [`BATCH`] at a time, touching the board after each batch that analysed
/// something; sleeps a moment when none is left. A replay that cannot be read is said in the
/// log and marked analysed with no values, so that it is not read again.
pub fn run(ladder: &crate::ladder::Ladder) {
    idle_priority();
    let mut solver = Solver::new();
    let mut gate = gate::Gate::new();
    let pause = std::time::Duration::from_millis(500);
    while !ladder.stopping() {
        let games = match pending(&ladder.db, BATCH) {
            Ok(g) => g,
            Err(e) => {
                tracing::warn!("endgame analysis: {e}");
                std::thread::sleep(pause * 10);
                continue;
            }
        };
        if games.is_empty() {
            std::thread::sleep(pause);
            continue;
        }
        for g in &games {
            if ladder.stopping() {
                return;
            }
            gate.wait(solver.cpu_ticks(), || ladder.stopping());
            if let Err(e) = analyse(&ladder.db, &ladder.paths, g, &mut solver) {
                tracing::warn!("endgame analysis of job {} game {}: {e}", g.job, g.game);
                let _ = mark_unreadable(&ladder.db, g);
            }
        }
        ladder.board.touch();
    }
}

/// Keep a game whose replay could not be analysed as analysed with no values.
fn mark_unreadable(db: &Db, g: &GameRow) -> Result<(), DbError> {
    keep(db, g, "[]", "[]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_row_that_is_not_json_is_named_as_the_analysis_table_s() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        assert_eq!(stored(&db, 1, 0).unwrap(), None);
        db.write(|c| {
            c.execute(
                "INSERT INTO game_analysis (job, game, endgame, seats) VALUES (1, 0, 'x', '[]')",
                [],
            )
        })
        .unwrap();
        let e = stored(&db, 1, 0).unwrap_err();
        assert!(matches!(e, AnalysisError::Stored(_)), "{e:?}");
        assert!(e.to_string().starts_with("game_analysis: "), "{e}");
        let api: crate::http::ApiError = e.into();
        assert_eq!(api.status.as_u16(), 500);
    }
}
