//! The server's own worker: each slot is a thread with a single-threaded runtime (as a
//! tournament's tables are) that claims a job and plays it as one referee match at one seating
//! (every seat rotation played there with the dealer moved round the table, `Job::planned_at`:
//! the same games), then goes on in the same match, with the same bot processes, with the next
//! jobs it claims among the same versions (at most [`MATCH_GAMES`] games a match), so the bots
//! start, say hello and are settled once a match instead of once a rotation. Every game goes to
//! the recorder as it ends (without waiting: the recorder commits games in groups). A job is
//! finished, and counts, once every game of it is durable; the table plays on meanwhile.

use super::jobs::{self, Job};
use super::recorder::{self, GameIn, Ticket};
use super::Ladder;
use crate::store;
use durak_referee::{
    play_planned, BotCommand, GameRecord, MatchConfig, PlannedGame, ReplayLog, SeatSpec,
};
use durak_rules::Seat;
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most games one match plays (its `hello` announces them, rounded down to whole jobs):
/// a table's bots are started again at least this often. Each start forks a supervisor that
/// shares the server's memory copy-on-write while it lives, so the server pays for the pages it
/// writes after each start: 1,000 rather than 200 played about 10% more games a second
/// (docs/BENCHMARKS.md, "The ladder's pace").
pub const MATCH_GAMES: usize = 1000;

/// How long a table that has played its jobs waits for the scheduler's next one before it
/// stops its bots.
const NEXT_JOB_WAIT: Duration = Duration::from_millis(200);

pub(super) fn slot_loop(ladder: Arc<Ladder>, slot: usize) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("ladder table {slot}: no runtime: {e}");
            return;
        }
    };
    let owner = format!("local:{}:{slot}", ladder.run_id);
    // A job claimed at the end of a match that could not play it.
    let mut next: Option<Job> = None;
    while !ladder.stopping() {
        let job = match next.take() {
            Some(j) => j,
            None => {
                if ladder.is_paused() {
                    ladder.wait(Duration::from_millis(500));
                    continue;
                }
                match jobs::claim(&ladder.db, &owner, ladder.cfg.ladder.lease_ms) {
                    Ok(Some(job)) => job,
                    Ok(None) => {
                        ladder.wait(Duration::from_millis(500));
                        continue;
                    }
                    Err(e) => {
                        tracing::warn!("ladder table {slot}: {e}");
                        ladder.wait(Duration::from_secs(1));
                        continue;
                    }
                }
            }
        };
        match rt.block_on(play_table(&ladder, &owner, job)) {
            Ok(after) => next = after,
            Err((job, e)) => {
                tracing::warn!("ladder job {}: {e}", job.id);
                // Played again after its lease (or cancelled after a few tries).
                if job.attempts >= 5 {
                    let _ = jobs::give_up(&ladder.db, job.id);
                }
                ladder.wait(Duration::from_secs(1));
            }
        }
    }
    // Claimed and never started: anyone may have it at once.
    if let Some(j) = next {
        let _ = jobs::release(&ladder.db, j.id, &owner);
    }
}

/// The folder a version plays from.
pub fn version_folder(ladder: &Ladder, v: i64) -> Result<Option<PathBuf>, crate::db::DbError> {
    let f: Option<String> = ladder.db.read(|c| {
        c.query_row("SELECT folder FROM versions WHERE id = ?1", [v], |r| {
            r.get(0)
        })
    })?;
    Ok(f.map(PathBuf::from))
}

/// Why a version cannot be seated.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    /// Its command is not one the referee can run (`0`: why).
    #[error("{0}")]
    Command(String),
    #[error("version {0} has no folder")]
    NoFolder(i64),
}

/// The seat of a version in a match.
pub(crate) fn seat_spec(ladder: &Ladder, v: &store::Version) -> Result<SeatSpec, SeatError> {
    let cfg = &ladder.cfg;
    let mut command =
        BotCommand::parse(&v.command).map_err(|e| SeatError::Command(e.to_string()))?;
    if !v.house {
        let folder = version_folder(ladder, v.id)?.ok_or(SeatError::NoFolder(v.id))?;
        command.cwd = Some(folder);
        command.isolation.sandbox = cfg.sandbox;
        command.isolation.limits = cfg.resources;
    }
    Ok(SeatSpec {
        name: v.id.to_string(),
        command,
        limits: cfg.ladder.limits,
    })
}

/// The job a table is playing.
struct Current {
    job: Job,
    /// The table is seated as `job.seating(at)`.
    at: usize,
    /// Its games not played yet, in order.
    games: VecDeque<u32>,
    /// The game being played.
    playing: Option<u32>,
    /// Its games handed to the recorder, not answered yet.
    tickets: Vec<Ticket>,
    lost: Arc<AtomicBool>,
    renew: tokio::task::JoinHandle<()>,
}

/// A job whose games are all played, waiting for them to be durable before it counts.
struct Finishing {
    job: Job,
    tickets: Vec<Ticket>,
    lost: Arc<AtomicBool>,
}

/// One match of a table: the jobs it plays, in turn, over the same processes.
struct Table<'a> {
    ladder: &'a Arc<Ladder>,
    owner: &'a str,
    /// The versions at each seat, for the whole match.
    seating: Vec<i64>,
    /// The games the match announced, and those handed to the referee so far.
    budget: usize,
    planned: usize,
    current: Option<Current>,
    finishing: Vec<Finishing>,
    /// A job claimed that this match cannot play (other versions): the next match's.
    after: Option<Job>,
    /// The match ends after the game being played.
    stop: bool,
}

/// Whether every version of the job is still in the ladder; when one left since the job was
/// made, the job goes (with the version's other jobs).
fn versions_active(
    ladder: &Ladder,
    job: &Job,
) -> Result<Option<Vec<store::Version>>, crate::db::DbError> {
    let mut versions = Vec::new();
    for &id in &job.seats {
        match store::version(&ladder.db, id)? {
            Some(v) if super::compare::may_play(&job.kind, v.state) => versions.push(v),
            _ => {
                ladder.version_left(id)?;
                return Ok(None);
            }
        }
    }
    Ok(Some(versions))
}

/// Renew `owner`'s lease on job `id` while it plays; `lost` once it is not held any more.
fn keep_lease(
    ladder: &Arc<Ladder>,
    owner: &str,
    id: i64,
    lost: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    let lease_ms = ladder.cfg.ladder.lease_ms;
    let (ladder, owner) = (ladder.clone(), owner.to_string());
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(lease_ms as u64 / 6)).await;
            let db = ladder.db.clone();
            let o = owner.clone();
            let held = tokio::task::spawn_blocking(move || jobs::renew(&db, id, &o, lease_ms))
                .await
                .unwrap_or(Ok(false));
            if !matches!(held, Ok(true)) {
                lost.store(true, Ordering::SeqCst);
                return;
            }
        }
    })
}

impl Table<'_> {
    /// Take `job` as the one to play now, at this match's seating: the job back when the match
    /// cannot play it (other versions, or more games than the match has left).
    fn adopt(&mut self, job: Job) -> Option<Job> {
        let Some(at) = job.rotation_seated(&self.seating) else {
            return Some(job);
        };
        let done: HashSet<u32> = match recorder::recorded_games(&self.ladder.db, job.id) {
            Ok(d) => d.into_iter().collect(),
            Err(e) => {
                tracing::warn!("ladder job {}: {e}", job.id);
                return Some(job);
            }
        };
        let games: VecDeque<u32> = (0..job.games() as u32)
            .filter(|g| !done.contains(g))
            .collect();
        if self.planned + games.len() > self.budget {
            return Some(job);
        }
        let lost = Arc::new(AtomicBool::new(false));
        let renew = keep_lease(self.ladder, self.owner, job.id, lost.clone());
        self.current = Some(Current {
            job,
            at,
            games,
            playing: None,
            tickets: Vec::new(),
            lost,
            renew,
        });
        None
    }

    /// The next game of the match: the current job's, else the next job's when this match can
    /// play it; `None` ends the match.
    fn next_game(&mut self) -> Option<PlannedGame> {
        loop {
            if self.stop {
                return None;
            }
            self.drain(false);
            let ladder = self.ladder;
            if let Some(cur) = self.current.as_mut() {
                if ladder.is_cancelled(cur.job.id)
                    || cur.lost.load(Ordering::SeqCst)
                    || ladder.stopping()
                {
                    self.stop = true;
                    continue;
                }
                if let Some(g) = cur.games.pop_front() {
                    cur.playing = Some(g);
                    self.planned += 1;
                    let (r, deal) = cur.job.split(g);
                    return Some(cur.job.planned_at(r, deal, cur.at));
                }
                // Every game of it played: it counts once they are durable (see `drain`).
                let cur = self.current.take().expect("current");
                cur.renew.abort();
                self.finishing.push(Finishing {
                    job: cur.job,
                    tickets: cur.tickets,
                    lost: cur.lost,
                });
            }
            if ladder.stopping() || ladder.is_paused() || self.planned >= self.budget {
                self.stop = true;
                continue;
            }
            match self.claim_next() {
                Some(job) => {
                    if versions_active(ladder, &job).ok().flatten().is_none() {
                        continue;
                    }
                    if let Some(job) = self.adopt(job) {
                        self.after = Some(job);
                        self.stop = true;
                    }
                }
                None => self.stop = true,
            }
        }
    }

    /// Claim the next job (one among this match's versions first, `jobs::claim_among`),
    /// waiting a moment for the scheduler when none is open (the jobs just played count first,
    /// so that it makes new ones).
    fn claim_next(&mut self) -> Option<Job> {
        let ladder = self.ladder;
        let until = Instant::now() + NEXT_JOB_WAIT;
        loop {
            let lease = ladder.cfg.ladder.lease_ms;
            match jobs::claim_among(&ladder.db, self.owner, lease, &self.seating) {
                Ok(Some(job)) => return Some(job),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!("ladder: {e}");
                    return None;
                }
            }
            self.drain(true);
            ladder.notify();
            if Instant::now() >= until || ladder.stopping() {
                return None;
            }
            ladder.wait(Duration::from_millis(20));
        }
    }

    /// A game ended: hand it to the recorder (or end the match, when its job stops).
    fn game_ended(&mut self, rec: &GameRecord, log: Option<ReplayLog>) {
        self.drain(false);
        let ladder = self.ladder;
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let Some(game) = cur.playing.take() else {
            return;
        };
        // Earlier games answered meanwhile: a suspension stops the job.
        if !settle(ladder, &mut cur.tickets, false, &cur.lost) {
            self.stop = true;
            return;
        }
        if ladder.is_cancelled(cur.job.id) || cur.lost.load(Ordering::SeqCst) || ladder.stopping() {
            // Not recorded; nothing more is played.
            self.stop = true;
            return;
        }
        let Some(log) = log else {
            return;
        };
        let replay = match log.to_bytes(true) {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!("ladder: a replay could not be compressed: {e}");
                cur.lost.store(true, Ordering::SeqCst);
                self.stop = true;
                return;
            }
        };
        let (rotation, deal) = cur.job.split(game);
        cur.tickets.push(ladder.recorder.submit(GameIn {
            job: cur.job.id,
            game,
            rotation,
            deal,
            seats: self.seating.clone(),
            record: rec.clone(),
            replay,
            played_by: "local".into(),
        }));
    }

    /// Finish the played jobs whose games are all answered (`wait`: all of them, waiting): done
    /// and on the leaderboard, unless a game failed (the lease is then left to run out) or the
    /// job was cancelled meanwhile.
    fn drain(&mut self, wait: bool) {
        let ladder = self.ladder;
        let mut still = Vec::new();
        for mut f in std::mem::take(&mut self.finishing) {
            settle(ladder, &mut f.tickets, wait, &f.lost);
            if !f.tickets.is_empty() {
                still.push(f);
                continue;
            }
            if f.lost.load(Ordering::SeqCst) || ladder.is_cancelled(f.job.id) || ladder.stopping() {
                continue;
            }
            let counted =
                jobs::finish(&ladder.db, f.job.id, self.owner).and_then(|mine| match mine {
                    true => ladder.board.add_job(&ladder.db, f.job.id, true),
                    false => Ok(()),
                });
            if let Err(e) = counted {
                tracing::warn!("ladder job {}: {e}", f.job.id);
            }
            ladder.notify();
        }
        self.finishing = still;
    }
}

/// Play `first` and the jobs after it that the same processes can play, in one match. Returns
/// a job claimed meanwhile that this match could not play, or the job being played and what
/// went wrong.
async fn play_table(
    ladder: &Arc<Ladder>,
    owner: &str,
    first: Job,
) -> Result<Option<Job>, (Job, String)> {
    let versions = match versions_active(ladder, &first) {
        Ok(Some(v)) => v,
        Ok(None) => return Ok(None),
        Err(e) => return Err((first, e.to_string())),
    };
    let seating = first.seating(0);
    let mut seats = Vec::new();
    for v in &seating {
        let ver = versions.iter().find(|x| x.id == *v).expect("loaded");
        match seat_spec(ladder, ver) {
            Ok(s) => seats.push(s),
            Err(e) => return Err((first, e.to_string())),
        }
    }
    let per_job = first.games().max(1);
    let mg: usize = std::env::var("XMG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MATCH_GAMES);
    let budget = (mg / per_job).max(1) * per_job;
    let cfg = &ladder.cfg;
    let mut m = MatchConfig::new(
        cfg.ladder.variant,
        seats,
        budget as u32,
        first.deals[0].seed,
    );
    // The referee writes no file of its own there: the logs are taken as games end (only the
    // recorder's files, of games recorded, are in the replay folder).
    m.replay_dir = Some(ladder.paths.replays().join("table"));
    m.replay_prefix = "g".into();
    m.hidden = vec![ladder.paths.root.clone()];
    let first_id = first.id;
    let table = RefCell::new(Table {
        ladder,
        owner,
        seating,
        budget,
        planned: 0,
        current: None,
        finishing: Vec::new(),
        after: None,
        stop: false,
    });
    if let Some(job) = table.borrow_mut().adopt(first) {
        // More games left than a match plays (a larger `deals` than MATCH_GAMES allows for):
        // never the case, as the budget is a whole number of this job's games.
        return Err((job, "the job does not fit a match".into()));
    }
    let plan = std::iter::from_fn(|| table.borrow_mut().next_game().map(Some));
    let on_end = |rec: &GameRecord, log: &mut Option<ReplayLog>| -> Vec<Seat> {
        table.borrow_mut().game_ended(rec, log.take());
        Vec::new()
    };
    let played = play_planned(&m, plan, on_end, |_| {}).await;
    let mut t = table.into_inner();
    // Every game handed over is durable (or failed) before its job may count.
    t.drain(true);
    let current = t.current.take().map(|mut cur| {
        settle(ladder, &mut cur.tickets, true, &cur.lost);
        cur.renew.abort();
        cur.job
    });
    if let Err(e) = played {
        let job = match current {
            Some(j) => j,
            None => match jobs::get(&ladder.db, first_id) {
                Ok(Some(j)) => j,
                _ => return Ok(t.after),
            },
        };
        return Err((job, e.to_string()));
    }
    Ok(t.after)
}

/// Take the answers of the games handed to the recorder: all of them (`wait`), or those in
/// already. `false` when one failed (the job is given up: its lease marked lost) or suspended
/// a version (which leaves the ladder; its jobs are cancelled).
fn settle(ladder: &Ladder, tickets: &mut Vec<Ticket>, wait: bool, lost: &AtomicBool) -> bool {
    let mut ok = true;
    let mut pending = Vec::new();
    for t in tickets.drain(..) {
        let answer = if wait {
            Some(recorder::wait_for(t, Duration::from_secs(600)))
        } else {
            match t.try_get() {
                Some(a) => Some(a),
                None => {
                    pending.push(t);
                    None
                }
            }
        };
        match answer {
            None => {}
            Some(Ok(r)) if !r.suspended.is_empty() => {
                ladder.after_recorded(&r);
                ok = false;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                tracing::warn!("ladder: a game was not recorded: {e}");
                lost.store(true, Ordering::SeqCst);
                ok = false;
            }
        }
    }
    *tickets = pending;
    ok
}
