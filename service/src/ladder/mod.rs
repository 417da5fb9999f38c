//! The ladder: it runs for as long as the server runs. The *scheduler* keeps a few jobs open
//! (matchmaking picks their tables, `matchmaking.rs`); the *executor* slots (as many as
//! `[ladder] concurrency`, none with `local_play = false`) claim jobs like any worker
//! (`domain/jobs.rs`), play them with the referee and record every game (`recorder.rs`, in group
//! commits) before it counts on the leaderboard (`board.rs`). Remote workers (`durak worker`)
//! claim jobs through the API (`http/worker_api.rs`) and post games that the server verifies
//! (`verify.rs`) before the same recorder takes them.
//! The organiser pauses and resumes it (kept in the database: a restarted server stays
//! paused); versions leave it when retired, suspended, disqualified or removed, and their open
//! jobs are cancelled.

pub mod board;
pub mod challenges;
pub mod compare;
pub mod executor;
pub use crate::domain::jobs;
pub mod matchmaking;
pub mod recorder;
pub mod unplayable;
pub mod verify;

use crate::config::Config;
use crate::db::{Db, DbError};
use crate::domain::{JobState, VersionState};
use crate::store::{self, Paths};
use board::Board;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The games of one matchmaking pick: as many jobs among the same versions as make this many
/// games (at least one), played in turn over the same bot processes (by a table, or by a worker
/// in batches of [`crate::worker::BATCH_GAMES`]). One job a pick started two bots every job (4
/// games at the default), and a ladder of Python bots played at 0.06 of a tournament's pace
/// (docs/BENCHMARKS.md).
pub const RUN_GAMES: usize = 200;

pub struct Ladder {
    pub db: Arc<Db>,
    pub cfg: Arc<Config>,
    pub paths: Paths,
    pub board: Board,
    pub seed: u64,
    /// This run's id: owners of its claims are `local:RUN:SLOT`.
    pub run_id: String,
    paused: AtomicBool,
    stop: AtomicBool,
    wake: (Mutex<u64>, Condvar),
    /// Jobs cancelled while being played: their remaining games are not recorded.
    cancelled: Mutex<HashSet<i64>>,
    /// Games recorded by this run.
    pub recorded: Arc<AtomicU64>,
    /// Every game goes through it (group commits).
    pub recorder: recorder::Recorder,
    ticks: AtomicU64,
    /// The time limits in force (`[ladder] move_ms`, `bank_ms`, `startup_ms`, `max_line_bytes`)
    /// and since when (unix ms): a restart that changes them applies them in full, and the
    /// leaderboard says since when ([`apply_limits`]).
    pub limits_since: i64,
}

/// Why the ladder cannot start on this data directory, or a round of its scheduler failed.
#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    #[error(transparent)]
    Db(#[from] DbError),
    /// The configuration changes what the stored ladder is (`changed`: a line and its fix for
    /// each of variant, table size and deals that differ).
    #[error(
        "the data directory {} holds a ladder of another kind: its games and standings are of \
         the ladder it was started with, which cannot change\n{}\n  or, for a new ladder, start \
         with a new data directory (--data-dir NEW, or data_dir = ... in the configuration)",
        data_dir.display(),
        changed.join("\n")
    )]
    AnotherKind {
        data_dir: std::path::PathBuf,
        changed: Vec<String>,
    },
    #[error(
        "seed: this ladder deals with seed = {stored}, the configuration gives {given}: the seed \
         is kept from the first start\n  fix: start it with --seed {stored}, or without --seed \
         (and no seed in [ladder]); or, for a new ladder, a new data directory (--data-dir NEW)"
    )]
    AnotherSeed { stored: u64, given: u64 },
    /// The stored seed is not a number (`detail`: why).
    #[error("settings: {SEED_KEY}: {detail}")]
    BadSeed { detail: String },
    /// The replays' folder cannot be swept.
    #[error("{}: {source}", path.display())]
    Replays {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// The comparisons of new versions with their previous ones (`compare/`) failed.
    #[error(transparent)]
    Compare(#[from] compare::CompareError),
}

pub(crate) const LIMITS_KEY: &str = "ladder_limits";
const LIMITS_SINCE_KEY: &str = "ladder_limits_since";

/// The time limits as kept in the settings.
pub(crate) fn limits_text(cfg: &Config) -> String {
    let l = &cfg.ladder.limits;
    format!(
        "move_ms={} bank_ms={} startup_ms={} max_line_bytes={}",
        l.move_ms, l.bank_ms, l.startup_ms, l.max_line_bytes
    )
}

/// Keep the time limits in force and since when: unchanged, the time they took effect; changed
/// (or kept for the first time), now, and the change is logged naming both values. Returns since
/// when they are in force.
pub fn apply_limits(db: &Db, cfg: &Config) -> Result<i64, DbError> {
    let given = limits_text(cfg);
    let stored = db.setting(LIMITS_KEY)?;
    let since = db
        .setting(LIMITS_SINCE_KEY)?
        .and_then(|s| s.parse::<i64>().ok());
    match (stored, since) {
        (Some(stored), Some(since)) if stored == given => Ok(since),
        (stored, _) => {
            if let Some(old) = stored {
                tracing::warn!(
                    "the ladder's time limits change: {old} before, {given} from now on (the \
                     leaderboard says since when)"
                );
            }
            let now = crate::db::now_ms();
            db.set_setting(LIMITS_KEY, &given)?;
            db.set_setting(LIMITS_SINCE_KEY, &now.to_string())?;
            Ok(now)
        }
    }
}

const PAUSED_KEY: &str = "ladder_paused";
const SEED_KEY: &str = "ladder_seed";
const SWEPT_KEY: &str = "stray_replays_swept";

/// What makes a ladder the ladder it is, kept on its first start and refused changed on a
/// restart (its standings would fit games of one variant or table with another's): the setting's
/// key, the `[ladder]` key, the flag, and the configured value as text.
fn identity(cfg: &Config) -> [(&'static str, &'static str, &'static str, String); 3] {
    let l = &cfg.ladder;
    [
        (
            "ladder_variant",
            "variant",
            "--variant",
            l.variant.name().to_string(),
        ),
        (
            "ladder_table_size",
            "table_size",
            "--table-size",
            l.table_size.to_string(),
        ),
        ("ladder_deals", "deals", "--deals", l.deals.to_string()),
    ]
}

/// Store the ladder's variant, table size and deals per job on the first start; on a later one,
/// refuse a configuration that changes them (naming the stored and the given value and the
/// fix). A data directory from before these were kept takes the configuration's.
pub fn pin_identity(db: &Db, cfg: &Config) -> Result<(), LadderError> {
    let mut changed = Vec::new();
    for (key, name, flag, given) in identity(cfg) {
        match db.setting(key)? {
            Some(stored) if stored != given => changed.push(format!(
                "  {name}: this ladder plays {name} = {stored}, the configuration gives {given}\n    \
                 fix: start it with {flag} {stored} (or {name} = {stored} in [ladder])"
            )),
            Some(_) => {}
            None => db.set_setting(key, &given)?,
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    Err(LadderError::AnotherKind {
        data_dir: cfg.data_dir.clone(),
        changed,
    })
}

impl Ladder {
    pub fn new(db: Arc<Db>, cfg: Arc<Config>, paths: Paths) -> Result<Arc<Ladder>, LadderError> {
        pin_identity(&db, &cfg)?;
        let limits_since = apply_limits(&db, &cfg)?;
        let seed = match db.setting(SEED_KEY)? {
            Some(s) => {
                let stored: u64 =
                    s.parse()
                        .map_err(|e: std::num::ParseIntError| LadderError::BadSeed {
                            detail: e.to_string(),
                        })?;
                match cfg.ladder.seed {
                    Some(given) if given != stored => {
                        return Err(LadderError::AnotherSeed { stored, given })
                    }
                    _ => stored,
                }
            }
            None => {
                let s = cfg.ladder.seed.unwrap_or_else(|| {
                    let mut b = [0u8; 8];
                    getrandom::fill(&mut b).expect("random");
                    u64::from_le_bytes(b) >> 1
                });
                db.set_setting(SEED_KEY, &s.to_string())?;
                s
            }
        };
        // Every start: the temporaries of a replay being written when a server was killed;
        // once per data directory, what older servers left beside (none are made now).
        let sweep = match db.setting(SWEPT_KEY)? {
            None => recorder::Sweep::OlderServers,
            Some(_) => recorder::Sweep::Temporaries,
        };
        let n = recorder::sweep_stray_replays(&paths.replays(), sweep).map_err(|source| {
            LadderError::Replays {
                path: paths.replays(),
                source,
            }
        })?;
        if n > 0 {
            tracing::info!("removed {n} replay file(s) of games that were never recorded");
        }
        db.set_setting(SWEPT_KEY, "1")?;
        let paused = db.setting(PAUSED_KEY)?.as_deref() == Some("1");
        let l = &cfg.ladder;
        let run_id = format!("{:x}", crate::db::now_ms());
        let recorded = Arc::new(AtomicU64::new(0));
        let recorder =
            recorder::Recorder::start(db.clone(), l.max_consecutive_faults, recorded.clone());
        let ladder = Arc::new(Ladder {
            board: Board::new(l.variant, l.table_size, l.deals),
            db,
            cfg: cfg.clone(),
            paths,
            seed,
            run_id,
            paused: AtomicBool::new(paused),
            stop: AtomicBool::new(false),
            wake: (Mutex::new(0), Condvar::new()),
            cancelled: Mutex::new(HashSet::new()),
            recorded,
            recorder,
            ticks: AtomicU64::new(0),
            limits_since,
        });
        // The jobs a previous run held are played again (their games in flight were lost).
        let released = jobs::release_owner_prefix(&ladder.db, "local:")?;
        if released > 0 {
            tracing::info!("{released} job(s) in flight when the server stopped are played again");
        }
        ladder.board.rebuild(&ladder.db)?;
        Ok(ladder)
    }

    /// Start the scheduler and the executor slots (threads that end with [`Ladder::stop`]).
    pub fn start(self: &Arc<Self>) -> Vec<std::thread::JoinHandle<()>> {
        let mut handles = Vec::new();
        let me = self.clone();
        handles.push(
            std::thread::Builder::new()
                .name("ladder-scheduler".into())
                .spawn(move || me.schedule_loop())
                .expect("thread"),
        );
        // Not joined at stop: a solve in progress at idle priority on a loaded machine may take
        // long, and what it has not written is simply analysed at the next start.
        let me = self.clone();
        std::thread::Builder::new()
            .name("ladder-analysis".into())
            .spawn(move || crate::analysis::run(&me))
            .expect("thread");
        let slots = if self.cfg.ladder.local_play {
            self.cfg.ladder.concurrency
        } else {
            0
        };
        for slot in 0..slots {
            let me = self.clone();
            handles.push(
                std::thread::Builder::new()
                    .name(format!("ladder-table-{slot}"))
                    .spawn(move || executor::slot_loop(me, slot))
                    .expect("thread"),
            );
        }
        handles
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.notify();
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// Pause (no new job is started; the tables playing finish theirs) or resume.
    pub fn set_paused(&self, paused: bool) -> Result<(), DbError> {
        self.db
            .set_setting(PAUSED_KEY, if paused { "1" } else { "0" })?;
        self.paused.store(paused, Ordering::SeqCst);
        self.board.touch();
        self.notify();
        Ok(())
    }

    /// Wake the scheduler and idle tables.
    pub fn notify(&self) {
        let (m, c) = &self.wake;
        *m.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        c.notify_all();
    }

    /// Sleep until notified or `d` passes.
    pub fn wait(&self, d: Duration) {
        let (m, c) = &self.wake;
        let g = m.lock().unwrap_or_else(|e| e.into_inner());
        let seen = *g;
        let _ = c.wait_timeout_while(g, d, |n| *n == seen);
    }

    pub fn is_cancelled(&self, job: i64) -> bool {
        self.cancelled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&job)
    }

    /// A version left the ladder (its state changed already): its open jobs are cancelled, and
    /// the leaderboard built again without it.
    pub fn version_left(&self, version: i64) -> Result<(), DbError> {
        self.cancel_jobs_of(version)?;
        self.board.rebuild(&self.db)?;
        self.notify();
        Ok(())
    }

    /// Cancel a version's open jobs; their games in flight are not recorded.
    fn cancel_jobs_of(&self, version: i64) -> Result<(), DbError> {
        let ids = jobs::cancel_of_version(&self.db, version)?;
        self.cancelled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(ids);
        Ok(())
    }

    /// A job was cancelled on its own (no worker could prepare it): its games in flight are
    /// not recorded, and matchmaking makes others.
    pub fn job_cancelled(&self, job: i64) {
        self.cancelled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(job);
        self.notify();
    }

    /// After a game was recorded: the versions it suspended leave the ladder.
    pub fn after_recorded(&self, r: &recorder::Recorded) {
        for (_, v, reason) in &r.suspended {
            tracing::warn!("version {v} suspended: {reason}");
            if let Err(e) = self.version_left(*v) {
                tracing::warn!("{e}");
            }
        }
    }

    /// A job's games are all recorded (by whoever played them): it is done, and counts.
    pub fn job_complete(&self, job: i64) -> Result<bool, DbError> {
        if jobs::finish_complete(&self.db, job)? {
            self.board.add_job(&self.db, job, true)?;
            self.notify();
            return Ok(true);
        }
        Ok(false)
    }

    /// A version entered the ladder (and perhaps another retired).
    pub fn versions_changed(&self) -> Result<(), DbError> {
        self.board.rebuild(&self.db)?;
        self.notify();
        Ok(())
    }

    fn schedule_loop(self: Arc<Self>) {
        while !self.stopping() {
            if let Err(e) = self.schedule_once() {
                tracing::warn!("ladder scheduler: {e}");
            }
            self.wait(Duration::from_millis(250));
        }
    }

    /// Open jobs up to the target: one waiting for each local table, plus one for each job a
    /// worker holds, plus one (and at least two waiting when only workers play), and at once
    /// one for a version that has just entered and has no game nor job yet.
    pub fn schedule_once(&self) -> Result<usize, LadderError> {
        if self.is_paused() {
            return Ok(0);
        }
        // New versions against their previous ones (`compare/`), unrated.
        compare::tick(self).map_err(LadderError::Compare)?;
        let k = self.cfg.ladder.table_size;
        let active = store::versions(&self.db, &[VersionState::Active])?;
        if active.len() < k {
            return Ok(0);
        }
        let mut open = jobs::open_jobs(&self.db)?;
        // Matchmaking plans the ladder's jobs only.
        open.retain(|j| j.kind == jobs::KIND_LADDER);
        let lb = self.board.current();
        let mut planned: HashMap<i64, u64> = HashMap::new();
        let mut pairs: HashSet<(i64, i64)> = HashSet::new();
        for j in &open {
            for &v in &j.seats {
                *planned.entry(v).or_default() += j.games() as u64;
                for &w in &j.seats {
                    pairs.insert((v, w));
                }
            }
        }
        let rated: HashMap<i64, &board::Row> = lb.rows.iter().map(|r| (r.version_id, r)).collect();
        let mut cands: Vec<matchmaking::Candidate> = active
            .iter()
            .map(|v| {
                let r = rated.get(&v.id);
                let width = match r.map(|r| r.elo_ci95) {
                    Some([Some(a), Some(b)]) => b - a,
                    _ => f64::INFINITY,
                };
                matchmaking::Candidate {
                    id: v.id,
                    elo: r.and_then(|r| r.elo),
                    width,
                    games: r.map_or(0, |r| r.games) + planned.get(&v.id).copied().unwrap_or(0),
                }
            })
            .collect();
        // Each pick is a run of jobs among the same versions, which a table (`executor.rs`) or a
        // worker (`worker/mod.rs`) plays over the same processes; the open "jobs" counted are
        // then runs: a version set's jobs, a run's worth at a time.
        let run = (RUN_GAMES / (self.cfg.ladder.deals as usize * k).max(1)).max(1);
        let units = |claimed_only: bool| -> usize {
            let mut by_set: HashMap<Vec<i64>, usize> = HashMap::new();
            for j in open
                .iter()
                .filter(|j| !claimed_only || j.state == JobState::Claimed)
            {
                let mut v = j.seats.clone();
                v.sort_unstable();
                *by_set.entry(v).or_default() += 1;
            }
            by_set.values().map(|n| n.div_ceil(run)).sum()
        };
        let claimed = units(true);
        let local = if self.cfg.ladder.local_play {
            self.cfg.ladder.concurrency
        } else {
            0
        };
        let target = (local + 1).max(claimed + 2);
        let mut open_count = units(false);
        let mut made = 0;
        loop {
            let fresh = cands.iter().any(|c| c.games == 0);
            if open_count >= target && !fresh {
                break;
            }
            let t = self.ticks.fetch_add(1, Ordering::SeqCst);
            let Some(seats) =
                matchmaking::pick(&cands, k, |a, b| pairs.contains(&(a, b)), self.seed ^ t)
            else {
                break;
            };
            let priority = if fresh {
                jobs::priority::FIRST_GAMES
            } else {
                jobs::priority::LADDER
            };
            let deals = self.cfg.ladder.deals;
            let job = jobs::create(&self.db, self.seed, &seats, deals, priority)?;
            for _ in 1..run {
                jobs::create(&self.db, self.seed, &seats, deals, jobs::priority::LADDER)?;
            }
            for c in cands.iter_mut().filter(|c| seats.contains(&c.id)) {
                c.games += (job.games() * run) as u64;
            }
            for &a in &seats {
                for &b in &seats {
                    pairs.insert((a, b));
                }
            }
            open_count += 1;
            made += 1;
            if made > 2 * target {
                break;
            }
        }
        // A version that left while these were made (suspended by a game just recorded, whose
        // `version_left` ran before they existed) must not keep a run of jobs open.
        if made > 0 {
            let now: HashSet<i64> = store::versions(&self.db, &[VersionState::Active])?
                .iter()
                .map(|v| v.id)
                .collect();
            for v in active.iter().map(|v| v.id).filter(|v| !now.contains(v)) {
                self.cancel_jobs_of(v)?;
            }
        }
        if made > 0 {
            self.notify();
        }
        Ok(made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restart_that_changes_the_ladder_s_kind_is_refused_with_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let o = crate::config::Overrides::default();
        let cfg = crate::config::resolve(None, &o).unwrap();
        pin_identity(&db, &cfg).unwrap();
        pin_identity(&db, &cfg).unwrap();
        let o = crate::config::Overrides {
            deals: Some(4),
            ..o
        };
        let e = pin_identity(&db, &crate::config::resolve(None, &o).unwrap()).unwrap_err();
        assert!(
            matches!(&e, LadderError::AnotherKind { changed, .. } if changed.len() == 1),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(
            m.contains("another kind") && m.contains("fix: start it with --deals 2"),
            "{m}"
        );
    }
}
