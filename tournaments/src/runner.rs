//! Running a tournament: tables run concurrently (at most `concurrency` at once, each with its
//! own bot processes, started in schedule order); every finished game becomes a line of
//! `results.jsonl` once its replay is on disk; failing bots are disqualified; a killed run is
//! resumed by playing exactly the games missing from the results.
//!
//! Disqualification: a bot that cannot be started (`start_failed`) is disqualified at once; a
//! bot that faults in `max_consecutive_faults` games in a row, in the schedule's order (game
//! ids), is disqualified after the last of them. From then on its games are forfeits: recorded
//! with a `forfeit` fault, the bot is not started, the others are not asked to play. A game
//! with a forfeit changes no streak. Finished games are sequenced in id order before they
//! count ([`run_tournament`]), so what is recorded does not depend on `concurrency`, nor on
//! where a killed run was resumed.

use crate::config::Tournament;
use crate::results::{DirLock, FaultLine, ReadResults, ResultLine, ResultsWriter, TournamentDir};
use crate::schedule::{Schedule, Table};
use durak_protocol::FaultKind;
use durak_referee::{play_match_with, GameRecord, MatchConfig, ReplayLog, SeatSpec};
use durak_rules::Seat;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a caller sees of a running tournament (a progress bar, a log).
pub trait Observer: Send + Sync {
    /// Before the first game: games in the schedule, games already in the results, faults in
    /// them.
    fn start(&self, _total: usize, _done: usize, _faults: usize) {}
    /// After each game is recorded.
    fn game(&self, _line: &ResultLine, _done: usize, _faults: usize) {}
    /// A bot was disqualified.
    fn disqualified(&self, _bot: &str, _reason: &str) {}
}

/// An observer that sees nothing.
pub struct Silent;
impl Observer for Silent {}

pub struct RunOptions {
    /// Tables playing at once (each has its own bot processes).
    pub concurrency: usize,
    pub observer: Arc<dyn Observer>,
    /// How bots are isolated (docs/SECURITY.md): `default` or `strict` (bubblewrap).
    pub sandbox: durak_referee::Sandbox,
    /// Resource limits of every bot process.
    pub resources: durak_referee::ResourceLimits,
    /// CPU groups, one per concurrent table (`durak_referee::affinity::groups`): the table
    /// playing in slot *i* runs its referee thread and its bots on `cpu_groups[i]` only. `None`:
    /// tables run wherever the kernel puts them.
    pub cpu_groups: Option<Vec<Vec<usize>>>,
}

#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Games in the schedule.
    pub total: usize,
    /// Games that were already in the results when this run started.
    pub already: usize,
    /// Games played by this run.
    pub played: usize,
    /// Every result line, by game id.
    pub results: Vec<ResultLine>,
}

/// Who is disqualified, and the fault streaks that lead there.
#[derive(Clone, Debug)]
pub struct Discipline {
    max_consecutive: u32,
    names: Vec<String>,
    streak: Vec<u32>,
    /// The reason, for disqualified bots.
    pub disqualified: Vec<Option<String>>,
}

impl Discipline {
    pub fn new(t: &Tournament) -> Discipline {
        let n = t.bots.len();
        Discipline {
            max_consecutive: t.max_consecutive_faults,
            names: t.bots.iter().map(|b| b.name.clone()).collect(),
            streak: vec![0; n],
            disqualified: vec![None; n],
        }
    }

    /// Take a finished game into account; returns the bots it disqualifies (index, reason).
    ///
    /// A game with a forfeit was not played (nobody was asked anything): it changes no streak,
    /// so the order in which forfeits are recorded never matters.
    pub fn record(&mut self, line: &ResultLine) -> Vec<(usize, String)> {
        let mut newly = Vec::new();
        if line.faults.iter().any(|f| f.kind == FaultKind::Forfeit) {
            return newly;
        }
        for (seat, name) in line.seats.iter().enumerate() {
            let Some(b) = self.index(name) else {
                continue;
            };
            let faults: Vec<&FaultLine> = line.faults.iter().filter(|f| f.seat == seat).collect();
            if self.disqualified[b].is_some() {
                continue;
            }
            if let Some(f) = faults.iter().find(|f| f.kind == FaultKind::StartFailed) {
                self.streak[b] += 1;
                let reason = format!("could not be started (game {}): {}", line.id, f.detail);
                self.disqualified[b] = Some(reason.clone());
                newly.push((b, reason));
            } else if let Some(f) = faults.first() {
                self.streak[b] += 1;
                if self.max_consecutive > 0 && self.streak[b] >= self.max_consecutive {
                    let reason = format!(
                        "faulted in {} games in a row (the last, game {}: {}: {})",
                        self.streak[b], line.id, f.kind, f.detail
                    );
                    self.disqualified[b] = Some(reason.clone());
                    newly.push((b, reason));
                }
            } else {
                self.streak[b] = 0;
            }
        }
        newly
    }

    /// The index of the bot with this name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn is_disqualified(&self, bot: usize) -> bool {
        self.disqualified[bot].is_some()
    }
}

struct Shared {
    discipline: Discipline,
    seq: Sequencer,
    /// Every line sequenced (recorded, or on its way to the writer), for planning passes.
    accepted: Vec<ResultLine>,
    /// Lines written, their count, and the faults in them.
    done: usize,
    faults: usize,
    lines: Vec<ResultLine>,
    error: Option<String>,
}

fn count_faults(l: &ResultLine) -> usize {
    l.faults
        .iter()
        .filter(|f| f.kind != FaultKind::Forfeit)
        .count()
}

/// Check the results read from `dir` against the tournament's schedule: every line a game of
/// it (table, seats, seed), none twice. A file that fails is refused by `--resume` and by
/// `durak standings` alike, naming the line.
pub fn verify_results(
    t: &Tournament,
    dir: &TournamentDir,
    read: &ReadResults,
) -> Result<(), String> {
    check_recorded(t, dir, &Schedule::build(t), read)
}

/// Check the recorded lines against the schedule: each of its games, recorded once.
fn check_recorded(
    t: &Tournament,
    dir: &TournamentDir,
    schedule: &Schedule,
    read: &ReadResults,
) -> Result<(), String> {
    let mut seen = HashSet::new();
    let path = dir.results_path();
    let fix = "fix: resume with the tournament directory this file belongs to, or start a new \
               tournament";
    for (n, l) in read.lines.iter().enumerate() {
        let Some((table, g)) = schedule.game(l.id) else {
            return Err(format!(
                "{}: line {}: game {} is not in this tournament's schedule ({} games)\n  {fix}",
                path.display(),
                n + 1,
                l.id,
                schedule.total_games()
            ));
        };
        let names: Vec<&str> = table
            .bots
            .iter()
            .map(|&b| t.bots[b].name.as_str())
            .collect();
        if l.table != table.id || l.game != g.index || l.seed != g.seed || l.seats != names {
            return Err(format!(
                "{}: line {}: game {} was not played by this tournament (table {}, game {}, \
                 seats {:?}, seed {} expected)\n  {fix}",
                path.display(),
                n + 1,
                l.id,
                table.id,
                g.index,
                names,
                g.seed
            ));
        }
        if !seen.insert(l.id) {
            return Err(format!(
                "{}: line {}: game {} is recorded twice\n  {fix}",
                path.display(),
                n + 1,
                l.id
            ));
        }
    }
    Ok(())
}

/// The played games of each table (index -> loser), from result lines.
fn played_of(
    schedule: &Schedule,
    lines: &[ResultLine],
) -> BTreeMap<u32, BTreeMap<u32, Option<Seat>>> {
    let mut played: BTreeMap<u32, BTreeMap<u32, Option<Seat>>> = BTreeMap::new();
    for l in lines {
        if let Some((table, g)) = schedule.game(l.id) {
            played.entry(table.id).or_default().insert(g.index, l.loser);
        }
    }
    played
}

/// Play every game of the tournament not yet in `dir`'s results.
///
/// Tables play concurrently, but what is recorded does not depend on it: finished games are
/// *sequenced* in id order (the schedule's) before they count. The disqualifications follow
/// that order, as if the games had been played one by one. A game that turns out to have been
/// played by a bot already disqualified before it (its table started before that was known) is
/// not recorded; its table stops, and the next pass plays its remaining games as forfeits.
///
/// The caller holds the directory ([`TournamentDir::lock`]) from before it reads anything of it
/// until this returns: no other run can write it meanwhile.
pub async fn run_tournament(
    t: &Tournament,
    dir: &TournamentDir,
    _held: &DirLock,
    opts: RunOptions,
) -> Result<RunSummary, String> {
    let schedule = Schedule::build(t);
    let total = schedule.total_games();
    let read = dir.read_results()?;
    check_recorded(t, dir, &schedule, &read)?;
    dir.repair(&read)?;

    let mut discipline = Discipline::new(t);
    let mut faults = 0;
    let mut recorded = read.lines;
    recorded.sort_by_key(|l| l.id);
    for l in &recorded {
        discipline.record(l);
        faults += count_faults(l);
    }
    let already = recorded.len();
    opts.observer.start(total, already, faults);

    let shared = Arc::new(Mutex::new(Shared {
        discipline,
        seq: Sequencer::default(),
        accepted: recorded.clone(),
        done: already,
        faults,
        lines: recorded,
        error: None,
    }));
    let (to_writer, writer) =
        spawn_writer(dir.appender()?, shared.clone(), opts.observer.clone(), dir)?;
    let mut first_error = None;
    // Each pass plays the games not yet accepted; a pass that stops a table (a bot disqualified
    // in a game before it) leaves work for the next. Every such stop disqualifies a bot more,
    // so there are at most as many passes as bots, plus one.
    for _pass in 0..=t.bots.len() {
        let accepted = shared.lock().expect("shared").accepted.clone();
        let played = played_of(&schedule, &accepted);
        let empty = BTreeMap::new();
        let mut work: Vec<(Table, Vec<durak_referee::PlannedGame>)> = Vec::new();
        for table in &schedule.tables {
            let plan = table.plan(played.get(&table.id).unwrap_or(&empty), t.variant)?;
            if !plan.is_empty() {
                work.push((table.clone(), plan));
            }
        }
        if work.is_empty() {
            break;
        }
        shared.lock().expect("shared").seq = Sequencer {
            expected: work
                .iter()
                .flat_map(|(table, plan)| {
                    plan.iter().filter_map(|p| {
                        let g = table.games.iter().find(|g| g.index == p.index)?;
                        Some((g.id, table.id))
                    })
                })
                .collect(),
            ..Sequencer::default()
        };
        if let Err(e) = run_pass(t, dir, &opts, work, &shared, &to_writer).await {
            first_error.get_or_insert(e);
        }
        if shared.lock().expect("shared").error.is_some() || first_error.is_some() {
            break;
        }
    }
    // Every table is done: the writer records what is left and stops.
    drop(to_writer);
    tokio::task::spawn_blocking(move || writer.join())
        .await
        .map_err(|e| format!("the results writer failed: {e}"))?
        .map_err(|_| "the results writer panicked".to_string())?;
    let shared = Arc::try_unwrap(shared)
        .ok()
        .expect("every task is done")
        .into_inner()
        .expect("shared");
    if let Some(e) = shared.error.or(first_error) {
        let kept = dir.read_results().map(|r| r.lines.len()).unwrap_or(0);
        return Err(format!(
            "{e}\n  the {kept} game{} in {} {} safe; once the cause is fixed (a full disk?), \
             finish with `{}`",
            if kept == 1 { "" } else { "s" },
            dir.results_path().display(),
            if kept == 1 { "is" } else { "are" },
            crate::results::resume_command(&dir.path)
        ));
    }
    let mut results = shared.lines;
    results.sort_by_key(|l| l.id);
    if results.len() != total {
        return Err(format!(
            "{} of {total} games recorded after every pass (a bug: please report it)\n  \
             finish with `{}`",
            results.len(),
            crate::results::resume_command(&dir.path)
        ));
    }
    Ok(RunSummary {
        total,
        already,
        played: results.len() - already,
        results,
    })
}

/// Finished games that may wait for earlier ones, at most (each holds its replay in memory,
/// about 25 KB for a two-player game).
const HOLD_MAX: usize = 2048;

/// Finished games put back in id order before they count (see [`run_tournament`]).
#[derive(Default)]
struct Sequencer {
    /// This pass's games not yet sequenced: id -> table.
    expected: BTreeMap<u64, u32>,
    /// Finished games waiting for the games before them.
    held: BTreeMap<u64, Job>,
    /// Tables stopped in this pass: nothing more of theirs is recorded in it.
    stopped: HashSet<u32>,
}

impl Shared {
    /// Take a finished game in, and sequence every game whose turn has come.
    fn sequence(&mut self, job: Job, observer: &dyn Observer, to_writer: &Sender<Job>) {
        if self.seq.stopped.contains(&job.line.table) {
            return;
        }
        self.seq.held.insert(job.line.id, job);
        self.advance(observer, to_writer);
    }

    /// Sequence the games whose turn has come: each counts for the disqualifications and goes
    /// to the writer, in id order; one played by a bot disqualified before it stops its table.
    fn advance(&mut self, observer: &dyn Observer, to_writer: &Sender<Job>) {
        while let Some((&next, _)) = self.seq.expected.first_key_value() {
            let Some(mut job) = self.seq.held.remove(&next) else {
                break;
            };
            self.seq.expected.remove(&next);
            let late = job.line.seats.iter().enumerate().any(|(seat, name)| {
                let forfeit = job
                    .line
                    .faults
                    .iter()
                    .any(|f| f.seat == seat && f.kind == FaultKind::Forfeit);
                !forfeit
                    && self
                        .discipline
                        .index(name)
                        .is_some_and(|b| self.discipline.is_disqualified(b))
            });
            if late {
                self.stop_table(job.line.table);
                continue;
            }
            let newly = self.discipline.record(&job.line);
            job.line.disqualified = newly
                .iter()
                .map(|(b, _)| self.discipline.names[*b].clone())
                .collect();
            for (b, reason) in &newly {
                observer.disqualified(&self.discipline.names[*b], reason);
            }
            self.accepted.push(job.line.clone());
            // Unbounded, so this never blocks under the lock; the writer keeps this order.
            let _ = to_writer.send(job);
        }
    }

    /// Record nothing more of `table` in this pass; the next pass plays its remaining games.
    fn stop_table(&mut self, table: u32) {
        self.seq.stopped.insert(table);
        self.seq.held.retain(|_, j| j.line.table != table);
        self.seq.expected.retain(|_, t| *t != table);
    }

    /// A table of this pass ended: the games it did not finish will not come.
    fn table_ended(&mut self, table: u32, observer: &dyn Observer, to_writer: &Sender<Job>) {
        let held = &self.seq.held;
        self.seq
            .expected
            .retain(|id, t| *t != table || held.contains_key(id));
        self.advance(observer, to_writer);
    }
}

type Sender<T> = std::sync::mpsc::Sender<T>;

/// One pass: the tables of `work`, at most `concurrency` at once, in schedule order.
async fn run_pass(
    t: &Tournament,
    dir: &TournamentDir,
    opts: &RunOptions,
    work: Vec<(Table, Vec<durak_referee::PlannedGame>)>,
    shared: &Arc<Mutex<Shared>>,
    to_writer: &Sender<Job>,
) -> Result<(), String> {
    // Slots: at most `concurrency` tables at once; slot i uses CPU group i when pinned.
    let concurrency = opts.concurrency.max(1);
    let cpu_groups = opts.cpu_groups.clone().filter(|g| g.len() == concurrency);
    let (slot_tx, mut slot_rx) = tokio::sync::mpsc::channel::<usize>(concurrency);
    for slot in 0..concurrency {
        slot_tx.try_send(slot).expect("room for every slot");
    }
    // What no bot may see (strict mode; each bot's own files stay visible to it): the
    // tournament's directory and every bot's files.
    let mut hidden = vec![dir.path.clone()];
    for b in &t.bots {
        hidden.extend(b.bot_command()?.own_paths());
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (table, plan) in work {
        let seats: Vec<SeatSpec> = table
            .bots
            .iter()
            .map(|&b| {
                let bot = &t.bots[b];
                Ok(SeatSpec {
                    name: bot.name.clone(),
                    command: {
                        let mut c = bot.bot_command()?.with_sandbox(opts.sandbox);
                        c.isolation.limits = opts.resources;
                        c
                    },
                    limits: bot.limits,
                })
            })
            .collect::<Result<_, String>>()?;
        let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
        let mut cfg = MatchConfig::new(
            t.variant,
            seats,
            table.games.len() as u32,
            table.series_seed,
        );
        cfg.replay_dir = Some(dir.replays_path());
        cfg.replay_prefix = format!("t{:04}-g", table.id);
        cfg.plan = Some(plan);
        cfg.hidden = hidden.clone();
        let shared = shared.clone();
        let observer = opts.observer.clone();
        let to_writer = to_writer.clone();
        let root = dir.path.clone();
        // Tables start in schedule order: the slot is taken here, not in the task.
        let slot = Slot {
            index: slot_rx.recv().await.expect("the runner keeps a sender"),
            free: slot_tx.clone(),
        };
        let cpus = cpu_groups.as_ref().map(|g| g[slot.index].clone());
        {
            let s = shared.lock().expect("shared");
            if s.error.is_some() {
                break;
            }
            cfg.forfeit = table
                .bots
                .iter()
                .map(|&b| s.discipline.is_disqualified(b))
                .collect();
        }
        // Each table runs on its own thread with a single-threaded runtime: a decision's round
        // trip never waits for another table's work on a shared worker, so tables scale with
        // cores.
        tasks.spawn_blocking(move || {
            let _pinned = cpus.map(Pinned::new);
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start a table's runtime: {e}"))?;
            let end = |s: &mut Shared| s.table_ended(table.id, observer.as_ref(), &to_writer);
            let played = rt.block_on(async {
                let _slot = slot;
                let on_end = |rec: &GameRecord, replay: &mut Option<ReplayLog>| -> Vec<Seat> {
                    let line = result_line(&table, &names, rec, &root);
                    let id = line.id;
                    let replay = replay.take().zip(rec.replay.clone());
                    let mut s = shared.lock().expect("shared");
                    if s.error.is_none() {
                        s.sequence(Job { replay, line }, observer.as_ref(), &to_writer);
                    }
                    // Held games keep their replays in memory: past HOLD_MAX, a table whose
                    // game waits for earlier ones waits too. (The table with the earliest
                    // games never does: its games never wait.)
                    while s.error.is_none()
                        && s.seq.held.len() > HOLD_MAX
                        && s.seq.held.contains_key(&id)
                    {
                        drop(s);
                        std::thread::sleep(Duration::from_millis(5));
                        s = shared.lock().expect("shared");
                    }
                    if s.error.is_some() || s.seq.stopped.contains(&table.id) {
                        // Stop this table quickly; its games stay unrecorded (for the next
                        // pass, or a resume).
                        return (0..names.len()).collect();
                    }
                    table
                        .bots
                        .iter()
                        .enumerate()
                        .filter(|(_, &b)| s.discipline.is_disqualified(b))
                        .map(|(seat, _)| seat)
                        .collect()
                };
                play_match_with(&cfg, on_end, |_| {}).await
            });
            let mut s = shared.lock().expect("shared");
            end(&mut s);
            played.map(|_| ()).map_err(|e| {
                let e = format!(
                    "table {} could not be played (replays go to {}): {e}",
                    table.id,
                    root.join(crate::results::REPLAYS_DIR).display()
                );
                // The tables still to start do not start; those playing stop.
                s.error.get_or_insert(e.clone());
                e
            })
        });
    }
    let mut first_error = None;
    while let Some(r) = tasks.join_next().await {
        let r = r.unwrap_or_else(|e| Err(format!("a table's task failed: {e}")));
        if let Err(e) = r {
            shared
                .lock()
                .expect("shared")
                .error
                .get_or_insert(e.clone());
            first_error.get_or_insert(e);
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A finished game for the results writer: its replay (to write) and its result line.
struct Job {
    replay: Option<(ReplayLog, PathBuf)>,
    line: ResultLine,
}

/// How long the results writer gathers finished games before it writes them: one `syncfs` and
/// one fsync of the results then cover them all (a group commit). Tables never wait for it; a
/// kill loses at most this much play, which `--resume` plays again.
const GROUP_COMMIT_WINDOW: Duration = Duration::from_millis(20);

/// Games written in one group at most.
const GROUP_MAX: usize = 1024;

/// The results writer: one thread takes the games the tables finish, writes their replays,
/// makes them durable with one `syncfs` of the tournament's file system, then appends their
/// result lines with one fsync (so a line is never on disk before its replay), counts them and
/// tells the observer. A write that fails stops the tournament.
fn spawn_writer(
    mut writer: ResultsWriter,
    shared: Arc<Mutex<Shared>>,
    observer: Arc<dyn Observer>,
    dir: &TournamentDir,
) -> Result<(Sender<Job>, std::thread::JoinHandle<()>), String> {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    let results = dir.results_path();
    let replays = dir.replays_path();
    let handle = std::thread::Builder::new()
        .name("results-writer".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let mut batch = vec![first];
                let until = Instant::now() + GROUP_COMMIT_WINDOW;
                while batch.len() < GROUP_MAX {
                    let left = until.saturating_duration_since(Instant::now());
                    match rx.recv_timeout(left) {
                        Ok(job) => batch.push(job),
                        Err(_) => break,
                    }
                }
                if shared.lock().expect("shared").error.is_some() {
                    continue;
                }
                if let Err(e) = write_batch(&mut writer, &batch, &replays) {
                    let e = match e {
                        (Some(p), e) => format!("cannot write the replay {}: {e}", p.display()),
                        (None, e) => format!("cannot append to {}: {e}", results.display()),
                    };
                    shared.lock().expect("shared").error.get_or_insert(e);
                    continue;
                }
                let mut s = shared.lock().expect("shared");
                for job in batch {
                    s.done += 1;
                    s.faults += count_faults(&job.line);
                    observer.game(&job.line, s.done, s.faults);
                    s.lines.push(job.line);
                }
            }
        })
        .map_err(|e| format!("cannot start the results writer: {e}"))?;
    Ok((tx, handle))
}

/// Replays first, made durable together; then their lines. On failure: the file concerned (a
/// replay) or `None` (the results file or the sync).
fn write_batch(
    writer: &mut ResultsWriter,
    batch: &[Job],
    replays: &std::path::Path,
) -> Result<(), (Option<PathBuf>, std::io::Error)> {
    let mut any = false;
    for (log, path) in batch.iter().filter_map(|j| j.replay.as_ref()) {
        log.write_atomic_unsynced(path)
            .map_err(|e| (Some(path.clone()), e))?;
        any = true;
    }
    if any {
        let d = std::fs::File::open(replays).map_err(|e| (Some(replays.to_path_buf()), e))?;
        rustix::fs::syncfs(&d).map_err(|e| (Some(replays.to_path_buf()), e.into()))?;
    }
    let lines: Vec<&ResultLine> = batch.iter().map(|j| &j.line).collect();
    writer.append_all(&lines).map_err(|e| (None, e))
}

/// A table's place among the `concurrency` running at once; given back when the table ends.
struct Slot {
    index: usize,
    free: tokio::sync::mpsc::Sender<usize>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        // Never full: there are as many places in the channel as slots.
        let _ = self.free.try_send(self.index);
    }
}

/// The calling thread runs on `cpus` (and so do the bots it starts) until this is dropped; then
/// it may run anywhere again (blocking-pool threads are reused).
struct Pinned {
    all: Vec<usize>,
}

impl Pinned {
    fn new(cpus: Vec<usize>) -> Pinned {
        let all = durak_referee::affinity::allowed_cpus();
        if let Err(e) = durak_referee::affinity::pin_current_thread(&cpus) {
            tracing::warn!("cannot pin a table to CPUs {cpus:?}: {e}");
        }
        Pinned { all }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if !self.all.is_empty() {
            let _ = durak_referee::affinity::pin_current_thread(&self.all);
        }
    }
}

fn result_line(
    table: &Table,
    names: &[String],
    rec: &GameRecord,
    root: &std::path::Path,
) -> ResultLine {
    let g = table
        .games
        .iter()
        .find(|g| g.index == rec.game)
        .expect("the referee plays the planned games");
    ResultLine {
        id: g.id,
        table: table.id,
        game: rec.game,
        deal: g.deal,
        seats: names.to_vec(),
        seed: rec.seed,
        dealer: rec.dealer,
        loser: rec.loser,
        durak: rec.loser.map(|s| names[s].clone()),
        draw: rec.draw,
        faults: rec
            .faults
            .iter()
            .map(|f| FaultLine {
                seat: f.seat,
                bot: names[f.seat].clone(),
                kind: f.kind,
                detail: f.detail.clone(),
                rule: f.rule.clone(),
            })
            .collect(),
        moves: rec.moves,
        move_limit: rec.move_limit,
        replay: rec.replay.as_ref().map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        }),
        duration_ms: rec.duration_ms,
        disqualified: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Bot, Format};

    fn tournament() -> Tournament {
        let bot = |name: &str| Bot {
            name: name.into(),
            command: "builtin:random".into(),
            cwd: "/".into(),
            limits: durak_protocol::Limits::default(),
        };
        Tournament {
            variant: durak_rules::Variant::Podkidnoy,
            format: Format::Duplicate,
            table_size: 2,
            games: 2,
            seed: 1,
            challenger: None,
            concurrency: None,
            max_consecutive_faults: 2,
            bots: vec![bot("good"), bot("bad"), bot("other")],
        }
    }

    /// Game `id` at `table` between `seats`; `faulty` seats fault (`kind`).
    fn game(id: u64, table: u32, seats: [&str; 2], faulty: &[(usize, FaultKind)]) -> Job {
        Job {
            replay: None,
            line: ResultLine {
                id,
                table,
                game: (id % 2) as u32,
                deal: None,
                seats: seats.iter().map(|s| s.to_string()).collect(),
                seed: 1,
                dealer: 0,
                loser: faulty.first().map(|f| f.0),
                durak: None,
                draw: faulty.is_empty(),
                faults: faulty
                    .iter()
                    .map(|&(seat, kind)| FaultLine {
                        seat,
                        bot: seats[seat].into(),
                        kind,
                        detail: String::new(),
                        rule: None,
                    })
                    .collect(),
                moves: 1,
                replay: None,
                duration_ms: 1,
                disqualified: vec![],
                move_limit: None,
            },
        }
    }

    fn shared(expected: &[(u64, u32)]) -> Shared {
        Shared {
            discipline: Discipline::new(&tournament()),
            seq: Sequencer {
                expected: expected.iter().copied().collect(),
                ..Sequencer::default()
            },
            accepted: vec![],
            done: 0,
            faults: 0,
            lines: vec![],
            error: None,
        }
    }

    fn ids(s: &Shared) -> Vec<u64> {
        s.accepted.iter().map(|l| l.id).collect()
    }

    /// Games finishing out of order count in id order; a game played by a bot disqualified by
    /// an earlier game stops its table, whose later games are not recorded.
    #[test]
    fn games_count_in_id_order_and_late_ones_stop_their_table() {
        use FaultKind::Malformed;
        let (tx, rx) = std::sync::mpsc::channel();
        // Table 0: ids 0, 1 (good v bad); table 1: ids 2, 3 (bad v other).
        let mut s = shared(&[(0, 0), (1, 0), (2, 1), (3, 1)]);
        // Table 1 is faster: both its games end first (bad faults in both).
        s.sequence(
            game(2, 1, ["bad", "other"], &[(0, Malformed)]),
            &Silent,
            &tx,
        );
        s.sequence(
            game(3, 1, ["bad", "other"], &[(0, Malformed)]),
            &Silent,
            &tx,
        );
        assert!(ids(&s).is_empty(), "games 2 and 3 wait for games 0 and 1");
        // Game 0: bad faults. Then 1: bad faults again, the second in a row: disqualified at 1.
        s.sequence(game(0, 0, ["good", "bad"], &[(1, Malformed)]), &Silent, &tx);
        assert_eq!(ids(&s), vec![0]);
        s.sequence(game(1, 0, ["good", "bad"], &[(1, Malformed)]), &Silent, &tx);
        // Game 2 was played by bad after its disqualification: table 1 stops, 2 and 3 wait
        // for the next pass.
        assert_eq!(ids(&s), vec![0, 1]);
        assert_eq!(s.accepted[1].disqualified, vec!["bad".to_string()]);
        assert!(s.seq.stopped.contains(&1));
        assert!(s.seq.expected.is_empty() && s.seq.held.is_empty());
        // Whatever table 1 still sends is dropped.
        s.sequence(
            game(3, 1, ["bad", "other"], &[(0, Malformed)]),
            &Silent,
            &tx,
        );
        assert_eq!(ids(&s), vec![0, 1]);
        let sent: Vec<u64> = rx.try_iter().map(|j: Job| j.line.id).collect();
        assert_eq!(
            sent,
            vec![0, 1],
            "the writer gets the accepted games, in order"
        );
    }

    /// A table that ends without some of its games (an error) does not hold the others back.
    #[test]
    fn a_table_that_ends_early_lets_the_later_games_through() {
        let (tx, _rx) = std::sync::mpsc::channel();
        let mut s = shared(&[(0, 0), (1, 0), (2, 1)]);
        s.sequence(game(2, 1, ["bad", "other"], &[]), &Silent, &tx);
        s.sequence(game(0, 0, ["good", "bad"], &[]), &Silent, &tx);
        assert_eq!(ids(&s), vec![0]);
        s.table_ended(0, &Silent, &tx);
        assert_eq!(ids(&s), vec![0, 2]);
    }

    /// Forfeits change no streak: a faulting bot's streak goes on across a game in which
    /// someone forfeited.
    #[test]
    fn a_forfeit_game_changes_no_streak() {
        let t = tournament();
        let mut d = Discipline::new(&t);
        let malformed = game(0, 0, ["good", "bad"], &[(1, FaultKind::Malformed)]).line;
        let forfeit = game(1, 0, ["bad", "other"], &[(1, FaultKind::Forfeit)]).line;
        assert!(d.record(&malformed).is_empty());
        assert!(d.record(&forfeit).is_empty());
        let again = game(2, 0, ["good", "bad"], &[(1, FaultKind::Malformed)]).line;
        assert_eq!(
            d.record(&again).len(),
            1,
            "the second fault in a row disqualifies"
        );
    }
}
