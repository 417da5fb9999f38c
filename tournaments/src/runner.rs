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
//! count ([`crate::sequencer`]), so what is recorded does not depend on `concurrency`, nor on
//! where a killed run was resumed.
//!
//! With the SPRT (a gauntlet, [`crate::sprt`]) the schedule is deal-major: every table of the
//! pass is open at once (its bots started with its first game, idle between its games), and
//! games start in id order, at most `concurrency` at once ([`Gate`]), so each deal is played at
//! every seat rotation before the next and paired deals complete early. Every game accepted (in
//! id order) feeds the test; once it decides, nothing more is accepted: the tables stop, games
//! still being played finish and are cancelled (their replays and pending lines removed), and
//! the results hold exactly the games up to the one that decided — the same in a resumed run.
//!
//! Memory does not grow with the number of games: the schedule computes games on demand, a
//! table's games are planned one at a time, the record is a bit per game, finished games go to
//! the writer through a bounded queue ([`crate::writer`]) and wait for earlier ones as result
//! lines only, at most [`HOLD_MAX`](crate::sequencer::HOLD_MAX) of them; nothing is returned
//! per game (read `results.jsonl` for that).

use crate::config::Tournament;
use crate::error::Error;
use crate::recorded::{pending_games, verify_results, Record};
use crate::results::{lines_in_id_order, DirLock, FaultLine, ResultLine, TournamentDir};
use crate::schedule::{Schedule, Table};
use crate::sequencer::{Books, Closed, Discipline, Sequencer};
use crate::shared::Shared;
pub use crate::shared::{Observer, Silent};
use crate::sprt::{SprtStatus, SprtTracker};
use crate::writer::{spawn_writer, Job, Msg, WriterStats};
use durak_referee::{play_planned, GameRecord, MatchConfig, ReplayLog, SeatSpec};
use durak_rules::Seat;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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
    /// Accept at most this many games in this run, then stop as a kill would (the directory is
    /// resumable; games finished meanwhile wait in `pending.jsonl`). For tests of resume.
    pub stop_after: Option<usize>,
    /// Play only this shard's games ([`crate::shard`]); `None`: every game.
    pub shard: Option<crate::shard::Shard>,
    /// How replays are written (zstd or plain).
    pub replays: crate::settings::ReplayFormat,
    /// More paths no bot may see (strict mode), beyond the tournament's directory and the
    /// bots' files: the configuration file, whatever it is called.
    pub hidden: Vec<std::path::PathBuf>,
    /// Set from outside (a server stopping, a tournament cancelled): every table stops at its
    /// next game and the run closes as a kill would ([`Closed::Stopped`]; a resume goes on).
    pub stop: Option<Arc<AtomicBool>>,
}

impl RunOptions {
    /// Every game, `concurrency` at once, as a default run plays them: default sandbox and
    /// limits, unpinned, compressed replays.
    pub fn new(concurrency: usize, observer: Arc<dyn Observer>) -> RunOptions {
        RunOptions {
            concurrency,
            observer,
            sandbox: Default::default(),
            resources: Default::default(),
            cpu_groups: None,
            stop_after: None,
            shard: None,
            replays: Default::default(),
            hidden: Vec::new(),
            stop: None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Games in the schedule (of the shard, for a shard).
    pub total: usize,
    /// Games that were already in the results when this run started.
    pub already: usize,
    /// Games played by this run.
    pub played: usize,
    /// Games a killed run had finished but not recorded (`pending.jsonl`), recorded by this
    /// one without being played again.
    pub recovered: usize,
    /// How the results writer kept up.
    pub writer: WriterStats,
    /// The SPRT over every recorded game (with `--sprt`).
    pub sprt: Option<SprtStatus>,
    /// Why the run stopped before the end of the schedule: the SPRT decided (now or in an
    /// earlier run), or `stop_after` games were accepted.
    pub closed: Option<Closed>,
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
) -> Result<RunSummary, Error> {
    let schedule = Schedule::build(t);
    let total = schedule.total_games();
    let scan = verify_results(t, dir)?;
    dir.repair_to(scan.torn_tail.then_some(scan.valid_len))?;
    // The disqualifications of the recorded games, taken in id order.
    let mut discipline = Discipline::new(t);
    for l in lines_in_id_order(&dir.results_path())? {
        discipline.record(&l?);
    }
    let already = scan.count();
    // The SPRT over the games recorded; decided already (a run that ended, or was killed
    // after the deciding game), nothing more is played.
    let tracker = SprtTracker::recorded(t, &dir.results_path())?;
    if let Some(status) = tracker
        .as_ref()
        .map(SprtTracker::status)
        .filter(|s| s.decision.is_some())
    {
        cancel_pending(dir, &scan.record.recorded)?;
        opts.observer.start(total, already, scan.faults);
        return Ok(RunSummary {
            total,
            already,
            played: 0,
            recovered: 0,
            writer: WriterStats::default(),
            sprt: Some(status),
            closed: Some(Closed::Decided),
        });
    }
    let mut scan = scan;
    // A shard's run: the other shards' games count as done here (they are not this run's).
    let outside = match opts.shard {
        Some(shard) => mark_other_shards(&schedule, shard, &mut scan.record, dir)?,
        None => 0,
    };
    // Games a killed run finished but had not recorded (their turn had not come, or their
    // group was not committed): taken in, not played again.
    let prefill = pending_games(&schedule, dir, &scan.record);
    let recovered = prefill.len();
    let pending = dir.restart_pending(&prefill)?;
    opts.observer.start(total - outside, already, scan.faults);

    let books = Books {
        sprt: tracker,
        budget: opts.stop_after,
        ..Books::new(discipline, scan.record, Sequencer::default())
    };
    let shared = Arc::new(Shared::new(
        books,
        already,
        scan.faults,
        schedule.tables.len(),
        opts.stop.clone(),
    ));
    let (to_writer, writer) = spawn_writer(
        dir.appender()?,
        pending,
        shared.clone(),
        opts.observer.clone(),
        dir,
    )?;
    let first_error = run_passes(t, dir, &opts, &schedule, &shared, &to_writer, prefill).await;
    // Every table is done: the writer records what is left and stops.
    drop(to_writer);
    let stats = tokio::task::spawn_blocking(move || writer.join())
        .await
        .map_err(|e| run_error!("the results writer failed: {e}"))?
        .map_err(|_| Error::Run("the results writer panicked".to_string()))?;
    let (error, recorded, closed, sprt) = {
        let s = shared.lock();
        (
            s.error.clone(),
            s.books.record.recorded.len(),
            s.books.closed,
            s.books.sprt.as_ref().map(SprtTracker::status),
        )
    };
    if let Some(e) = error.map(Error::Run).or(first_error) {
        let kept = dir.count_results();
        return Err(run_error!(
            "{e}\n  the {kept} game{} in {} {} safe; once the cause is fixed (a full disk?), \
             finish with `{}`",
            if kept == 1 { "" } else { "s" },
            dir.results_path().display(),
            if kept == 1 { "is" } else { "are" },
            crate::error::resume_command(&dir.path)
        ));
    }
    settle_pending(dir, &shared, closed, recorded, total)?;
    Ok(RunSummary {
        total: total - outside,
        already,
        played: (recorded - outside - already).saturating_sub(recovered),
        recovered: recovered.min(recorded - outside - already),
        writer: stats,
        sprt,
        closed,
    })
}

/// The passes: each plays the games not yet accepted; a pass that stops a table (a bot
/// disqualified in a game before it) leaves work for the next. Every such stop disqualifies a
/// bot more, so there are at most as many passes as bots, plus one. Returns the first error of
/// a pass.
async fn run_passes(
    t: &Tournament,
    dir: &TournamentDir,
    opts: &RunOptions,
    schedule: &Schedule,
    shared: &Arc<Shared>,
    to_writer: &SyncSender<Msg>,
    prefill: Vec<ResultLine>,
) -> Option<Error> {
    let mut prefill = Some(prefill);
    let mut first_error = None;
    for _pass in 0..=t.bots.len() {
        let held = prefill.take().unwrap_or_default();
        let (record, sequenced) = plan_pass(shared, schedule, held);
        for s in &shared.stop {
            s.store(false, Ordering::SeqCst);
        }
        if sequenced.is_empty() {
            break;
        }
        let work: Vec<&Table> = schedule
            .tables
            .iter()
            .filter(|table| has_work(table, &record))
            .collect();
        // A table with held games only plays nothing: it has ended.
        let idle: Vec<u32> = sequenced
            .iter()
            .copied()
            .filter(|&id| !has_work(&schedule.tables[id as usize], &record))
            .collect();
        if !idle.is_empty() {
            let tx = to_writer.clone();
            let _ = tokio::task::spawn_blocking(move || {
                for id in idle {
                    let _ = tx.send(Msg::TableEnded(id));
                }
            })
            .await;
        }
        if let Err(e) = run_pass(t, dir, opts, work, &record, shared, to_writer).await {
            first_error.get_or_insert(e);
        }
        // Everything the pass sent is sequenced (and durable) before the next is planned.
        let (reply, answered) = std::sync::mpsc::sync_channel(1);
        let tx = to_writer.clone();
        let _ = tokio::task::spawn_blocking(move || {
            tx.send(Msg::Barrier(reply)).ok()?;
            answered.recv().ok()
        })
        .await;
        let mut s = shared.lock();
        if shared.stopped_outside() && s.books.closed.is_none() {
            s.books.closed = Some(Closed::Stopped);
        }
        if s.error.is_some() || first_error.is_some() || s.books.closed.is_some() {
            break;
        }
    }
    first_error
}

/// What a pass plays: the games not recorded, nor `held` from a killed run (the first pass
/// takes those in). The tables' plans read a snapshot of that (a bit per game, and where each
/// series stands); the sequencer expects every game not recorded. Returns the snapshot and the
/// tables sequenced.
fn plan_pass(
    shared: &Shared,
    schedule: &Schedule,
    held: Vec<ResultLine>,
) -> (Arc<Record>, Vec<u32>) {
    let mut s = shared.lock();
    let mut record = s.books.record.clone();
    let sequenced: Vec<u32> = schedule
        .tables
        .iter()
        .filter(|table| has_work(table, &record))
        .map(|table| table.id)
        .collect();
    for l in &held {
        record.recorded.insert(l.id);
        if let Some(p) = record.series[l.table as usize].as_mut() {
            let _ = p.record(l.game, l.loser);
        }
    }
    let held_max = s.books.seq.held_max;
    s.books.seq = Sequencer::with_held(
        sequenced.iter().map(|&id| &schedule.tables[id as usize]),
        &s.books.record,
        held,
    );
    s.books.seq.held_max = s.books.seq.held_max.max(held_max);
    (Arc::new(record), sequenced)
}

/// After the passes: what is pending goes (cancelled once the SPRT decided, removed when every
/// game is recorded) or stays for the resume (a budget or an outside stop).
fn settle_pending(
    dir: &TournamentDir,
    shared: &Shared,
    closed: Option<Closed>,
    recorded: usize,
    total: usize,
) -> Result<(), Error> {
    if closed == Some(Closed::Decided) {
        // The tournament is over: what finished after the deciding game is cancelled.
        let record = shared.lock().books.record.recorded.clone();
        cancel_pending(dir, &record)?;
    } else if matches!(closed, Some(Closed::Budget | Closed::Stopped)) {
        // Stopped as a kill would: the resume takes the pending games in.
    } else if recorded == total {
        // Every game is recorded: nothing is pending.
        let _ = std::fs::remove_file(dir.pending_path());
    } else {
        return Err(run_error!(
            "{recorded} of {total} games recorded after every pass (a bug: please report it)\n  \
             finish with `{}`",
            crate::error::resume_command(&dir.path)
        ));
    }
    Ok(())
}

/// The SPRT decided: the games finished but not recorded (in `pending.jsonl`: after the
/// deciding one) are cancelled, their replays removed, and nothing is pending.
fn cancel_pending(dir: &TournamentDir, recorded: &crate::recorded::GameSet) -> Result<(), Error> {
    if let Ok(reader) = crate::results::LineReader::open(&dir.pending_path()) {
        for n in reader.map_while(Result::ok) {
            if let Some(r) = n.line.replay.filter(|_| !recorded.contains(n.line.id)) {
                let _ = std::fs::remove_file(dir.path.join(r));
            }
        }
    }
    match std::fs::remove_file(dir.pending_path()) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(run_error!(
            "cannot remove {}: {e}",
            dir.pending_path().display()
        )),
        _ => Ok(()),
    }
}

/// Deal-major runs: games start in id order among the tables waiting to start one, at most
/// `concurrency` at once. (A table not waiting yet — still playing, or starting — does not
/// hold the others back: the order is the sequencer's business; this keeps the games played
/// at once close together in the schedule, so whole deals come early and few games are held.)
pub(crate) struct Gate {
    state: Mutex<GateState>,
    turn: Condvar,
    concurrency: usize,
}

struct GateState {
    waiting: std::collections::BTreeSet<(u64, u32)>,
    playing: usize,
}

impl Gate {
    fn new(concurrency: usize) -> Gate {
        Gate {
            state: Mutex::new(GateState {
                waiting: Default::default(),
                playing: 0,
            }),
            turn: Condvar::new(),
            concurrency: concurrency.max(1),
        }
    }

    /// Wait for game `id` of `table` to start; false when the table stops meanwhile.
    fn enter(&self, id: u64, table: u32, stopped: impl Fn() -> bool) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.waiting.insert((id, table));
        loop {
            if stopped() {
                s.waiting.remove(&(id, table));
                self.turn.notify_all();
                return false;
            }
            if s.playing < self.concurrency && s.waiting.first() == Some(&(id, table)) {
                s.waiting.remove(&(id, table));
                s.playing += 1;
                self.turn.notify_all();
                return true;
            }
            s = self
                .turn
                .wait_timeout(s, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// A game that entered has ended.
    fn leave(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.playing = s.playing.saturating_sub(1);
        self.turn.notify_all();
    }
}

/// Mark the games of the other shards as done in `record` (a shard's run plays its own only);
/// returns how many. A game of another shard in this directory's results is refused: the
/// directory would no longer merge with the others.
fn mark_other_shards(
    schedule: &Schedule,
    shard: crate::shard::Shard,
    record: &mut Record,
    dir: &TournamentDir,
) -> Result<usize, Error> {
    let mut outside = 0;
    for table in &schedule.tables {
        for i in (0..table.games).filter(|&i| !shard.holds(table, i)) {
            let id = table.id_of(i);
            if !record.recorded.insert(id) {
                return Err(run_error!(
                    "{}: game {id} (table {}, game {i}) is recorded, but it is a game of shard {} \
                     and this directory plays shard {shard}\n  fix: resume each shard in its own \
                     directory",
                    dir.results_path().display(),
                    table.id,
                    crate::shard::Shard::of(table, i, shard.count)
                ));
            }
            if let Some(p) = record.series[table.id as usize].as_mut() {
                // A series table is in one shard whole: another shard's series is finished here.
                let _ = p.record(i, None);
            }
            outside += 1;
        }
    }
    Ok(outside)
}

/// `DURAK_FINISH_LOG=FILE`, for the benchmark's kill test (tournaments/benches/memory.rs): one
/// line per game as it finishes, `ID UNIX_NANOS`, appended before the game goes to the writer.
/// What a SIGKILL lost is then the games in it that are neither recorded nor held.
struct FinishLog(Mutex<std::fs::File>);

impl FinishLog {
    fn finished(&self, id: u64) {
        use std::io::Write;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut f = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(f, "{id} {nanos}");
    }
}

fn finish_log() -> Option<&'static FinishLog> {
    static LOG: std::sync::OnceLock<Option<FinishLog>> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let path = std::env::var_os("DURAK_FINISH_LOG")?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
            .map(|f| FinishLog(Mutex::new(f)))
    })
    .as_ref()
}

/// Whether `table` has games not in `record`.
fn has_work(table: &Table, record: &Record) -> bool {
    (0..table.games).any(|i| !record.recorded.contains(table.id_of(i)))
}

/// One pass: the tables of `work`, at most `concurrency` at once, in schedule order.
async fn run_pass(
    t: &Tournament,
    dir: &TournamentDir,
    opts: &RunOptions,
    work: Vec<&Table>,
    record: &Arc<Record>,
    shared: &Arc<Shared>,
    to_writer: &SyncSender<Msg>,
) -> Result<(), Error> {
    // Slots: at most `concurrency` tables at once; slot i uses CPU group i when pinned.
    let concurrency = opts.concurrency.max(1);
    let cpu_groups = opts.cpu_groups.clone().filter(|g| g.len() == concurrency);
    let (slot_tx, mut slot_rx) = tokio::sync::mpsc::channel::<usize>(concurrency);
    for slot in 0..concurrency {
        slot_tx.try_send(slot).expect("room for every slot");
    }
    // What no bot may see (strict mode; each bot's own files stay visible to it): the
    // tournament's directory, the configuration file and every bot's files.
    let mut hidden = vec![dir.path.clone()];
    hidden.extend(opts.hidden.iter().cloned());
    for b in &t.bots {
        hidden.extend(b.bot_command()?.own_paths());
    }
    // Deal-major (the SPRT): every table open at once, games started in id order.
    let gate = work
        .iter()
        .any(|t| t.stride > 1)
        .then(|| Arc::new(Gate::new(concurrency)));
    let mut tasks = tokio::task::JoinSet::new();
    for (pos, table) in work.into_iter().enumerate() {
        let table = table.clone();
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
            .collect::<Result<_, Error>>()?;
        let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
        let mut cfg = MatchConfig::new(t.variant, seats, table.games, table.series_seed);
        cfg.replay_dir = Some(dir.replays_path());
        cfg.replay_prefix = format!("t{:04}-g", table.id);
        cfg.compress_replays = opts.replays == crate::settings::ReplayFormat::Zstd;
        cfg.hidden = hidden.clone();
        let shared = shared.clone();
        let to_writer = to_writer.clone();
        let record = record.clone();
        let root = dir.path.clone();
        // Tables start in schedule order: the slot is taken here, not in the task. Deal-major,
        // every table starts at once, table i on CPU group i (round robin).
        let slot = match gate {
            Some(_) => None,
            None => Some(Slot {
                index: slot_rx.recv().await.expect("the runner keeps a sender"),
                free: slot_tx.clone(),
            }),
        };
        let cpus = cpu_groups
            .as_ref()
            .map(|g| g[slot.as_ref().map_or(pos % g.len(), |s| s.index)].clone());
        let gate = gate.clone();
        {
            let s = shared.lock();
            if s.error.is_some() {
                break;
            }
            cfg.forfeit = table
                .bots
                .iter()
                .map(|&b| s.books.discipline.is_disqualified(b))
                .collect();
        }
        // Each table runs on its own thread with a single-threaded runtime: a decision's round
        // trip never waits for another table's work on a shared worker, so tables scale with
        // cores.
        tasks.spawn_blocking(move || {
            let _pinned = cpus.map(Pinned::new);
            let _slot = slot;
            let played = play_table(
                &table,
                &names,
                &cfg,
                &record,
                (&shared, gate.as_deref()),
                &to_writer,
                &root,
            );
            // Its games not finished will not come in this pass.
            let _ = to_writer.send(Msg::TableEnded(table.id));
            played.map_err(|e| {
                let e = format!(
                    "table {} could not be played (replays go to {}): {e}",
                    table.id,
                    root.join(crate::results::REPLAYS_DIR).display()
                );
                // The tables still to start do not start; those playing stop.
                shared.fail(e.clone());
                e
            })
        });
    }
    let mut first_error = None;
    while let Some(r) = tasks.join_next().await {
        let r = r.unwrap_or_else(|e| Err(format!("a table's task failed: {e}")));
        if let Err(e) = r {
            shared.fail(e.clone());
            first_error.get_or_insert(e);
        }
    }
    match first_error {
        Some(e) => Err(Error::Run(e)),
        None => Ok(()),
    }
}

/// Play one table's games of the pass, on the calling thread: each game, once finished, goes
/// to the writer (waiting when it is behind); the table waits while its games wait for earlier
/// ones and too many do, and stops when told (a late game, an error).
fn play_table(
    table: &Table,
    names: &[String],
    cfg: &MatchConfig,
    record: &Record,
    (shared, gate): (&Shared, Option<&Gate>),
    to_writer: &SyncSender<Msg>,
    root: &std::path::Path,
) -> Result<(), Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| run_error!("cannot start a table's runtime: {e}"))?;
    let series = record.series[table.id as usize].as_ref();
    let plan = table
        .plan(|i| record.recorded.contains(table.id_of(i)), series)?
        // Computed one at a time; a stopped table plays no more.
        .take_while(|_| !shared.stopped(table.id))
        // Deal-major: each game waits for its turn to start.
        .take_while(|g| {
            gate.is_none_or(|gate| {
                gate.enter(table.id_of(g.index), table.id, || shared.stopped(table.id))
            })
        })
        .map(Some);
    let on_end = |rec: &GameRecord, replay: &mut Option<ReplayLog>| -> Vec<Seat> {
        if let Some(gate) = gate {
            gate.leave();
        }
        let line = result_line(table, names, rec, root);
        if let Some(log) = finish_log() {
            log.finished(line.id);
        }
        // The table writes its replay (into the page cache; the committer syncs it): tables
        // write theirs in parallel, and the writer only appends lines.
        let finished = Instant::now();
        let replay = match replay.take().zip(rec.replay.clone()) {
            Some((log, path)) => match log.write_atomic_unsynced(&path) {
                Ok(()) => Some(path),
                Err(e) => {
                    shared.fail(format!("cannot write the replay {}: {e}", path.display()));
                    return (0..names.len()).collect();
                }
            },
            None => None,
        };
        let job = Job {
            replay,
            line,
            finished,
        };
        // A full queue waits here: the writer is behind.
        if to_writer.send(Msg::Finished(Box::new(job))).is_err() {
            return (0..names.len()).collect();
        }
        let mut s = shared.lock();
        // Held games wait for earlier ones: past HOLD_MAX, a table whose games wait waits too.
        // (The table with the earliest games never does: its games never wait.)
        while s.error.is_none() && !shared.stopped(table.id) && s.books.seq.must_wait(table.id) {
            s = shared
                .wake
                .wait_timeout(s, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        table
            .bots
            .iter()
            .enumerate()
            .filter(|(_, &b)| s.books.discipline.is_disqualified(b))
            .map(|(seat, _)| seat)
            .collect()
    };
    rt.block_on(play_planned(cfg, plan, on_end, |_| {}))
        .map(|_| ())
        .map_err(|e| Error::Run(e.to_string()))
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
        .game(rec.game)
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
        voided: rec.voided.clone(),
        void: rec.void,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::WRITER_QUEUE;

    /// The queue to the writer is bounded: while the writer is stuck (here: the shared state is
    /// held), a table can put at most WRITER_QUEUE finished games (and their replays) in it,
    /// then it waits — memory does not grow behind a slow disk.
    #[test]
    fn the_queue_to_a_stuck_writer_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let td = TournamentDir {
            path: dir.path().to_path_buf(),
        };
        let t = crate::config::Input {
            file: Some((
                "t.toml".into(),
                crate::config::ConfigFile::parse(
                    "[[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\
                     [[bot]]\nname = \"b\"\ncommand = \"builtin:greedy\"\n",
                    std::path::Path::new("t.toml"),
                )
                .unwrap(),
            )),
            cwd: "/".into(),
            ..Default::default()
        }
        .resolve()
        .unwrap();
        let schedule = Schedule::build(&t);
        let record = Record::new(&schedule);
        let books = {
            let seq = Sequencer::new(&schedule.tables, &record);
            Books::new(Discipline::new(&t), record, seq)
        };
        let shared = Arc::new(Shared::new(books, 0, 0, 2, None));
        let (tx, writer) = spawn_writer(
            td.appender().unwrap(),
            td.restart_pending(&[]).unwrap(),
            shared.clone(),
            Arc::new(Silent),
            &td,
        )
        .unwrap();
        let line = |id: u64| ResultLine {
            id,
            table: 1,
            game: id as u32,
            deal: None,
            seats: vec!["b".into(), "a".into()],
            seed: 0,
            dealer: 0,
            loser: None,
            durak: None,
            draw: true,
            faults: vec![],
            moves: 0,
            replay: None,
            duration_ms: 0,
            disqualified: vec![],
            voided: Vec::new(),
            void: false,
            move_limit: None,
        };
        let stuck = shared.lock();
        let mut sent = 0u64;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let job = Job {
                replay: None,
                line: line(10 + sent),
                finished: Instant::now(),
            };
            match tx.try_send(Msg::Finished(Box::new(job))) {
                Ok(()) => sent += 1,
                Err(std::sync::mpsc::TrySendError::Full(_)) => break,
                Err(e) => panic!("{e}"),
            }
            assert!(Instant::now() < deadline && sent <= WRITER_QUEUE as u64 + 1);
            std::thread::yield_now();
        }
        // The queue, and at most the one game the writer took before it got stuck.
        assert!(
            (WRITER_QUEUE as u64..=WRITER_QUEUE as u64 + 1).contains(&sent),
            "{sent}"
        );
        drop(stuck);
        drop(tx);
        let stats = writer.join().unwrap();
        // Table 1's games wait for table 0's (which never came): held, not written.
        assert_eq!(stats.committed, 0);
        assert_eq!(stats.held_max as u64, sent);
    }
}
