//! Fixed tournaments among the versions in the ladder, started by the organiser: a
//! configuration made from the ladder's settings and its active versions, played by the
//! tournament engine (`durak_tournaments::run_tournament`, duplicate deals) into a
//! `durak tournament` directory under `DATA/tournaments/ID/`, with its standings (text, JSON
//! and HTML, the engine's own report) written there when it ends. The ladder goes on meanwhile.
//!
//! One plays at a time (issue 24): a tournament started while another plays is `queued`, its
//! directory made at once (its bots are the versions active when it was started), and the
//! *runner* thread plays them in turn. A tournament `running` when the server stopped (cleanly:
//! its tables stop at their next game; or killed) is resumed by the next start with the
//! engine's resume, before any queued one. The organiser cancels one, queued or running
//! (`POST /api/tournaments/ID/cancel`): it is `cancelled`, its games so far kept.
//!
//! States: `queued` → `running` → `done` | `failed` | `cancelled` (and `queued` → `cancelled`).

use crate::db::DbError;
use crate::domain::tournaments as table;
use crate::domain::{TournamentState, VersionState};
use crate::ladder::Ladder;
use crate::store;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::runner::{RunOptions, Silent};
use durak_tournaments::sequencer::Closed;
use durak_tournaments::{run_tournament, Standings, TournamentDir};
use rusqlite::OptionalExtension;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A tournament's row: state, dir, bots (JSON), created, finished, error.
type TournamentRow = (
    TournamentState,
    String,
    String,
    i64,
    Option<i64>,
    Option<String>,
);

/// The fixed tournaments of a server, and the runner that plays them one at a time.
pub struct Tournaments {
    ladder: Arc<Ladder>,
    run: Mutex<Run>,
    wake: Condvar,
    /// The server stops: the runner stops the tournament it plays (resumed at the next start)
    /// and ends.
    stopping: AtomicBool,
}

/// What the runner plays now.
#[derive(Default)]
struct Run {
    /// The tournament being played, and the flag that stops its tables.
    current: Option<(i64, Arc<AtomicBool>)>,
    /// The organiser cancelled the current one.
    cancelled: bool,
}

/// What a cancel did.
#[derive(Debug, PartialEq, Eq)]
pub enum Cancelled {
    /// It was cancelled (queued: at once; running: its tables stop at their next game).
    Yes,
    /// There is no such tournament.
    Unknown,
    /// It is over already, in this state.
    Over(TournamentState),
}

/// A tournament not started ([`Tournaments::start`]): the organiser's refusals and this
/// machine's failures answer 409 as they always did, the database's 500 ([`StartError::status`]).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("games: give 1 to 10000 deals per table")]
    Games,
    #[error("a tournament needs at least {needs} versions in the ladder, and it has {has}")]
    TooFew { needs: usize, has: usize },
    #[error("version {0} has no folder")]
    NoFolder(i64),
    #[error("{0}")]
    Seed(getrandom::Error),
    /// Its directory could not be made (`DATA/tournaments/ID/`).
    #[error("{0}")]
    Dir(durak_tournaments::Error),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl StartError {
    /// The HTTP status that answers it: 500 for the database, else 409.
    pub fn status(&self) -> u16 {
        match self {
            StartError::Db(_) => 500,
            _ => 409,
        }
    }
}

/// A tournament that could not be played to its end ([`run`]): its directory, the engine, a
/// standings file or its report. Recorded as the tournament's `error` (state `failed`).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Tournament(#[from] durak_tournaments::Error),
    /// The runtime its tables play in could not be made.
    #[error("{0}")]
    Runtime(std::io::Error),
    #[error("{name}: {source}")]
    Write {
        name: &'static str,
        source: std::io::Error,
    },
    #[error(transparent)]
    Report(#[from] durak_report::Error),
}

/// A tournament bot's name for a version: `bot-vN` (house bots keep theirs).
fn name_of(v: &store::Version) -> String {
    if v.house {
        v.bot.clone()
    } else {
        format!("{}-v{}", v.bot, v.n)
    }
}

impl Tournaments {
    pub fn new(ladder: Arc<Ladder>) -> Arc<Tournaments> {
        Arc::new(Tournaments {
            ladder,
            run: Mutex::new(Run::default()),
            wake: Condvar::new(),
            stopping: AtomicBool::new(false),
        })
    }

    /// Start the runner: it resumes a tournament left running, then plays the queued ones in
    /// turn, until [`Tournaments::stop`].
    pub fn start_runner(self: &Arc<Self>) -> std::thread::JoinHandle<()> {
        let me = self.clone();
        std::thread::Builder::new()
            .name("tournaments".into())
            .spawn(move || me.runner())
            .expect("thread")
    }

    /// The server stops: the tournament being played stops at its tables' next games (it is
    /// resumed at the next start); the runner ends.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let run = self.lock();
        if let Some((_, flag)) = &run.current {
            flag.store(true, Ordering::SeqCst);
        }
        self.wake.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Run> {
        self.run.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next to play: one left running by an earlier run of the server, else the oldest
    /// queued.
    fn next(&self) -> Result<Option<(i64, PathBuf)>, crate::db::DbError> {
        table::next(&self.ladder.db)
    }

    fn set_state(
        &self,
        id: i64,
        state: TournamentState,
        error: Option<&str>,
    ) -> Result<(), DbError> {
        table::set_state(&self.ladder.db, id, state, error)
    }

    fn runner(self: Arc<Self>) {
        while !self.stopping.load(Ordering::SeqCst) {
            let next = {
                let mut run = self.lock();
                match self.next() {
                    Ok(Some((id, dir))) => {
                        let flag = Arc::new(AtomicBool::new(false));
                        run.current = Some((id, flag.clone()));
                        run.cancelled = false;
                        Some((id, dir, flag))
                    }
                    Ok(None) => None,
                    Err(e) => {
                        tracing::error!("fixed tournaments: {e}");
                        None
                    }
                }
            };
            let Some((id, dir, flag)) = next else {
                let run = self.lock();
                if !self.stopping.load(Ordering::SeqCst) {
                    let _ = self.wake.wait_timeout(run, Duration::from_secs(5));
                }
                continue;
            };
            let _ = self.set_state(id, TournamentState::Running, None);
            let r = run(&self.ladder, &dir, flag);
            let cancelled = {
                let mut run = self.lock();
                run.current = None;
                run.cancelled
            };
            let outcome = match (&r, cancelled) {
                (Ok(true), _) => self.set_state(id, TournamentState::Done, None),
                (_, true) => self.set_state(id, TournamentState::Cancelled, None),
                // The server stops: it stays running, and is resumed at the next start.
                (Ok(false), false) => Ok(()),
                (Err(e), false) => {
                    self.set_state(id, TournamentState::Failed, Some(&e.to_string()))
                }
            };
            if let Err(e) = outcome {
                tracing::error!("tournament {id}: {e}");
            }
        }
    }

    /// The running tournament the organiser cancelled, while its tables stop.
    pub fn cancelling(&self) -> Option<i64> {
        let run = self.lock();
        run.current.as_ref().filter(|_| run.cancelled).map(|c| c.0)
    }

    /// Cancel a tournament: a queued one at once; the running one stops at its tables' next
    /// games (its games so far are kept in its directory).
    pub fn cancel(&self, id: i64) -> Result<Cancelled, DbError> {
        let mut run = self.lock();
        match table::state(&self.ladder.db, id)? {
            None => return Ok(Cancelled::Unknown),
            Some(open) if open.is_open() => {}
            Some(over) => return Ok(Cancelled::Over(over)),
        }
        match &run.current {
            Some((current, flag)) if *current == id => {
                flag.store(true, Ordering::SeqCst);
                run.cancelled = true;
            }
            _ => self.set_state(id, TournamentState::Cancelled, None)?,
        }
        self.wake.notify_all();
        Ok(Cancelled::Yes)
    }

    /// Start one among the active versions, `games` deals per table: it plays at once, or
    /// after those before it (`queued`). Returns its id and its state.
    pub fn start(&self, games: u32) -> Result<(i64, TournamentState), StartError> {
        let ladder = &self.ladder;
        if games == 0 || games > 10_000 {
            return Err(StartError::Games);
        }
        let cfg = &ladder.cfg;
        let active = store::versions(&ladder.db, &[VersionState::Active])?;
        if active.len() < cfg.ladder.table_size {
            return Err(StartError::TooFew {
                needs: cfg.ladder.table_size,
                has: active.len(),
            });
        }
        let mut bots = Vec::new();
        for v in &active {
            let cwd = if v.house {
                ladder.paths.root.clone()
            } else {
                crate::ladder::executor::version_folder(ladder, v.id)?
                    .ok_or(StartError::NoFolder(v.id))?
            };
            bots.push(Bot {
                name: name_of(v),
                command: v.command.clone(),
                cwd,
                own_cwd: !v.house,
                limits: cfg.ladder.limits,
            });
        }
        let mut seed_bytes = [0u8; 8];
        getrandom::fill(&mut seed_bytes).map_err(StartError::Seed)?;
        let t = Tournament {
            variant: cfg.ladder.variant,
            format: Format::Duplicate,
            table_size: cfg.ladder.table_size,
            games,
            seed: u64::from_le_bytes(seed_bytes) >> 1,
            challenger: None,
            concurrency: Some(1),
            max_consecutive_faults: cfg.ladder.max_consecutive_faults,
            sprt: None,
            bots,
        };
        let names: Vec<String> = active.iter().map(name_of).collect();
        // Under the runner's lock: it does not take this one before its directory is made.
        let run = self.lock();
        let id = table::create(&ladder.db, &serde_json::to_string(&names).expect("json"))?;
        let dir = ladder.paths.tournaments().join(id.to_string());
        if let Err(e) = TournamentDir::create(&dir, &t, &settings(ladder, &dir)) {
            let _ = self.set_state(id, TournamentState::Failed, Some(&e.to_string()));
            return Err(StartError::Dir(e));
        }
        table::set_dir(&ladder.db, id, &dir.display().to_string())?;
        // Queued behind the one playing, or behind one started before it that the runner has
        // not taken yet (a second start just after the first).
        let ahead: bool = ladder.db.read(|c| {
            c.query_row(
                "SELECT EXISTS (SELECT 1 FROM tournaments WHERE id < ?1 AND state IN ('queued', \
                 'running'))",
                [id],
                |r| r.get(0),
            )
        })?;
        let state = if run.current.is_some() || ahead {
            TournamentState::Queued
        } else {
            TournamentState::Running
        };
        drop(run);
        self.wake.notify_all();
        Ok((id, state))
    }

    /// Its state, and its standings once it is over.
    pub fn view(&self, ladder: &Ladder, id: i64) -> Result<Option<TournamentView>, DbError> {
        let row: Option<TournamentRow> = ladder.db.read(|c| {
            c.query_row(
                "SELECT state, dir, bots, created, finished, error FROM tournaments WHERE id \
                     = ?1",
                [id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                },
            )
            .optional()
        })?;
        let Some((state, dir, bots, created, finished, error)) = row else {
            return Ok(None);
        };
        let dir = PathBuf::from(dir);
        let standings: Option<Value> = std::fs::read_to_string(dir.join("standings.json"))
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok());
        let played = durak_tournaments::results::read_results_file(&dir.join("results.jsonl"))
            .map(|r| r.lines.len())
            .unwrap_or(0);
        // Named relative to the data directory: answers never show where it is (issue 22).
        let rel = dir.strip_prefix(&ladder.paths.root).unwrap_or(&dir);
        Ok(Some(TournamentView {
            id,
            state,
            dir: rel.display().to_string(),
            bots: serde_json::from_str(&bots).ok(),
            created,
            finished,
            error,
            games_played: played,
            standings,
            report_dir: rel.join("html").display().to_string(),
            report: dir
                .join("html/index.html")
                .is_file()
                .then(|| report_url(id)),
        }))
    }
}

/// A tournament as `GET /api/tournaments/{id}` shows it (and a season's final tournament).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TournamentView {
    pub id: i64,
    pub state: TournamentState,
    /// Its directory, relative to the data directory (a `durak tournament` directory).
    pub dir: String,
    /// Its bots (`bot vN`), the versions in the ladder when it was started.
    pub bots: Option<Vec<String>>,
    /// Unix ms.
    pub created: i64,
    pub finished: Option<i64>,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// Games played so far.
    pub games_played: usize,
    /// Its standings once it is over: the engine's `standings.json` (as
    /// `durak standings --json` prints it).
    #[schema(value_type = Option<Object>)]
    pub standings: Option<Value>,
    /// Where its report is written, relative to the data directory.
    pub report_dir: String,
    /// The address of its full report, once written.
    pub report: Option<String>,
}

/// A tournament in `GET /api/tournaments`.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TournamentListed {
    pub id: i64,
    pub state: TournamentState,
    /// Unix ms.
    pub created: i64,
    pub finished: Option<i64>,
    /// Its page.
    pub url: String,
    /// The address of its full report, once written.
    pub report: Option<String>,
}

impl Tournaments {
    /// A tournament's directory, if there is one with that id.
    pub fn dir(&self, ladder: &Ladder, id: i64) -> Result<Option<PathBuf>, DbError> {
        let dir: Option<String> = ladder.db.read(|c| {
            c.query_row("SELECT dir FROM tournaments WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
        })?;
        Ok(dir.filter(|d| !d.is_empty()).map(PathBuf::from))
    }

    /// Every tournament, newest first: id, state, created, finished, and where its report is
    /// once it is written.
    pub fn list(&self, ladder: &Ladder) -> Result<Vec<TournamentListed>, DbError> {
        let rows: Vec<(i64, TournamentState, String, i64, Option<i64>)> = ladder.db.read(|c| {
            let mut s = c.prepare(
                "SELECT id, state, dir, created, finished FROM tournaments ORDER BY id DESC",
            )?;
            let rows = s.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.collect()
        })?;
        Ok(rows
            .into_iter()
            .map(|(id, state, dir, created, finished)| {
                let report = PathBuf::from(dir).join("html/index.html").is_file();
                TournamentListed {
                    id,
                    state,
                    created,
                    finished,
                    url: format!("/tournaments/{id}"),
                    report: report.then(|| report_url(id)),
                }
            })
            .collect())
    }
}

/// Where a tournament's report is served (`http/reports.rs`).
pub fn report_url(id: i64) -> String {
    format!("/tournaments/{id}/report/index.html")
}

/// The run settings of a tournament in `dir` (its name, the server's sandbox and limits).
fn settings(ladder: &Ladder, dir: &std::path::Path) -> durak_tournaments::settings::Settings {
    let cfg = &ladder.cfg;
    durak_tournaments::settings::Settings {
        name: Some(format!(
            "ladder-{}",
            dir.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        )),
        sandbox: cfg.sandbox,
        limits: cfg.resources,
        affinity: durak_tournaments::settings::Affinity::Off,
        html: false,
        no_analysis: false,
        shard: None,
        // Plain, as the service's pages and downloads were written for (its readers take both).
        replays: durak_tournaments::settings::ReplayFormat::Plain,
    }
}

/// Play the tournament in `dir` (made by [`Tournaments::start`]) from where it stands: its
/// games not yet recorded, as `durak tournament --resume` would, with the sandbox and limits
/// it was started with. `Ok(false)`: stopped by `stop` (the server stopping, or a cancel);
/// `Ok(true)`: every game played, the standings and the report written.
fn run(ladder: &Ladder, dir: &std::path::Path, stop: Arc<AtomicBool>) -> Result<bool, RunError> {
    let (td, t) = TournamentDir::open(dir, true)?;
    let (_, settings) = td.recorded()?;
    let lock = td.lock()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let opts = RunOptions {
        sandbox: settings.sandbox,
        resources: settings.limits,
        replays: durak_tournaments::settings::ReplayFormat::Plain,
        stop: Some(stop),
        ..RunOptions::new(1, Arc::new(Silent))
    };
    let summary = rt.block_on(run_tournament(&t, &td, &lock, opts))?;
    if matches!(summary.closed, Some(Closed::Stopped | Closed::Budget)) {
        return Ok(false);
    }
    drop(lock);
    let read = td.read_results()?;
    let s = Standings::compute(&t, &read.lines);
    let write = |name: &'static str, text: String| {
        std::fs::write(dir.join(name), text).map_err(|source| RunError::Write { name, source })
    };
    write("standings.json", s.to_json())?;
    write("standings.txt", s.to_text())?;
    // The tournament report (the report crate's pages) in DIR/html/, as `durak tournament
    // --html` writes it.
    let input = durak_report::ReportInput {
        t: &t,
        dir,
        lines: &read.lines,
        name: None,
        sandbox: Some(ladder.cfg.sandbox.name().to_string()),
        hide_stderr: true,
        analyze: true,
    };
    durak_report::write_report(&input, &dir.join("html"))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_start_before_the_runner_took_the_first_is_queued() {
        let d = tempfile::tempdir().unwrap();
        let cfg = crate::config::resolve(None, &crate::config::Overrides::default()).unwrap();
        let paths = crate::store::Paths::new(d.path());
        std::fs::create_dir_all(paths.tournaments()).unwrap();
        let db = Arc::new(crate::db::Db::open(&paths.db()).unwrap());
        crate::auth::ensure_organiser(&db).unwrap();
        let ladder = Ladder::new(db, Arc::new(cfg), paths).unwrap();
        crate::checker::ensure_house_bots(&ladder).unwrap();
        // No runner: the first is not taken yet when the second comes.
        let t = Tournaments::new(ladder.clone());
        assert_eq!(t.start(1).unwrap().1, TournamentState::Running);
        assert_eq!(t.start(1).unwrap().1, TournamentState::Queued);
        ladder.stop();
    }

    #[test]
    fn a_refused_start_answers_409_with_its_fix_and_the_database_500() {
        let e = StartError::Games;
        assert_eq!(e.status(), 409);
        assert_eq!(e.to_string(), "games: give 1 to 10000 deals per table");
        let e = StartError::TooFew { needs: 2, has: 1 };
        assert_eq!(e.status(), 409);
        assert_eq!(
            e.to_string(),
            "a tournament needs at least 2 versions in the ladder, and it has 1"
        );
        let e = StartError::from(DbError(rusqlite::Error::QueryReturnedNoRows));
        assert_eq!(e.status(), 500);
        assert!(e.to_string().starts_with("database: "), "{e}");
    }
}
