//! Running a tournament: tables run concurrently (at most `concurrency` at once, each with its
//! own bot processes, started in schedule order); every finished game becomes a line of
//! `results.jsonl` once its replay is on disk; failing bots are disqualified; a killed run is
//! resumed by playing exactly the games missing from the results.
//!
//! Disqualification: a bot that cannot be started (`start_failed`) is disqualified at once; a
//! bot that faults in `max_consecutive_faults` games in a row (in the order the games finish) is
//! disqualified after the last of them. From then on its games are forfeits: recorded with a
//! `forfeit` fault, the bot is not started, the others are not asked to play.

use crate::config::Tournament;
use crate::results::{FaultLine, ReadResults, ResultLine, ResultsWriter, TournamentDir};
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
    pub fn record(&mut self, line: &ResultLine) -> Vec<(usize, String)> {
        let mut newly = Vec::new();
        for (seat, name) in line.seats.iter().enumerate() {
            let Some(b) = self.names.iter().position(|n| n == name) else {
                continue;
            };
            let faults: Vec<&FaultLine> = line
                .faults
                .iter()
                .filter(|f| f.seat == seat && f.kind != FaultKind::Forfeit)
                .collect();
            let forfeit = line
                .faults
                .iter()
                .any(|f| f.seat == seat && f.kind == FaultKind::Forfeit);
            if forfeit || self.disqualified[b].is_some() {
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

    pub fn is_disqualified(&self, bot: usize) -> bool {
        self.disqualified[bot].is_some()
    }
}

struct Shared {
    discipline: Discipline,
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

/// Check the recorded lines against the schedule; returns, per table, the outcomes of its
/// played games by index.
fn check_recorded(
    t: &Tournament,
    dir: &TournamentDir,
    schedule: &Schedule,
    read: &ReadResults,
) -> Result<BTreeMap<u32, BTreeMap<u32, Option<Seat>>>, String> {
    let mut seen = HashSet::new();
    let mut played: BTreeMap<u32, BTreeMap<u32, Option<Seat>>> = BTreeMap::new();
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
        played.entry(table.id).or_default().insert(g.index, l.loser);
    }
    Ok(played)
}

/// Play every game of the tournament not yet in `dir`'s results.
pub async fn run_tournament(
    t: &Tournament,
    dir: &TournamentDir,
    opts: RunOptions,
) -> Result<RunSummary, String> {
    let schedule = Schedule::build(t);
    let total = schedule.total_games();
    let read = dir.read_results()?;
    let played = check_recorded(t, dir, &schedule, &read)?;
    dir.repair(&read)?;

    let mut discipline = Discipline::new(t);
    let mut faults = 0;
    for l in &read.lines {
        discipline.record(l);
        faults += count_faults(l);
    }
    let already = read.lines.len();
    opts.observer.start(total, already, faults);

    let mut work: Vec<(Table, Vec<durak_referee::PlannedGame>)> = Vec::new();
    let empty = BTreeMap::new();
    for table in &schedule.tables {
        let plan = table.plan(played.get(&table.id).unwrap_or(&empty), t.variant)?;
        if !plan.is_empty() {
            work.push((table.clone(), plan));
        }
    }

    let shared = Arc::new(Mutex::new(Shared {
        discipline,
        done: already,
        faults,
        lines: read.lines,
        error: None,
    }));
    let (to_writer, writer) =
        spawn_writer(dir.appender()?, shared.clone(), opts.observer.clone(), dir)?;
    // Slots: at most `concurrency` tables at once; slot i uses CPU group i when pinned.
    let concurrency = opts.concurrency.max(1);
    let cpu_groups = opts.cpu_groups.filter(|g| g.len() == concurrency);
    let (slot_tx, mut slot_rx) = tokio::sync::mpsc::channel::<usize>(concurrency);
    for slot in 0..concurrency {
        slot_tx.try_send(slot).expect("room for every slot");
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
            rt.block_on(async move {
                let _slot = slot;
                let on_end = |rec: &GameRecord, replay: &mut Option<ReplayLog>| -> Vec<Seat> {
                    let mut line = result_line(&table, &names, rec, &root);
                    let mut s = shared.lock().expect("shared");
                    if s.error.is_some() {
                        // Stop this table quickly; its games stay unrecorded for a resume.
                        replay.take();
                        return (0..names.len()).collect();
                    }
                    let newly = s.discipline.record(&line);
                    line.disqualified = newly
                        .iter()
                        .map(|(b, _)| s.discipline.names[*b].clone())
                        .collect();
                    for (b, reason) in &newly {
                        observer.disqualified(&s.discipline.names[*b], reason);
                    }
                    drop(s);
                    // The writer makes the replay durable, then records the line.
                    let replay = replay.take().zip(rec.replay.clone());
                    let _ = to_writer.send(Job { replay, line });
                    let s = shared.lock().expect("shared");
                    table
                        .bots
                        .iter()
                        .enumerate()
                        .filter(|(_, &b)| s.discipline.is_disqualified(b))
                        .map(|(seat, _)| seat)
                        .collect()
                };
                let on_saved = |_: &GameRecord| {};
                let played = play_match_with(&cfg, on_end, on_saved).await;
                played.map(|_| ()).map_err(|e| {
                    let e = format!(
                        "table {} could not be played (replays go to {}): {e}",
                        table.id,
                        root.join(crate::results::REPLAYS_DIR).display()
                    );
                    // The tables still to start do not start; those playing stop.
                    shared
                        .lock()
                        .expect("shared")
                        .error
                        .get_or_insert(e.clone());
                    e
                })
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
        return Err(format!(
            "{e}\n  the games finished so far are recorded: finish with `durak tournament \
             --resume {}`",
            dir.path.display()
        ));
    }
    let mut results = shared.lines;
    results.sort_by_key(|l| l.id);
    Ok(RunSummary {
        total,
        already,
        played: results.len() - already,
        results,
    })
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

/// Finished games waiting for the writer, at most: a table that gets this far ahead of the disk
/// waits for it.
const WRITER_QUEUE: usize = 1024;

/// The results writer: one thread takes the games the tables finish, writes their replays,
/// makes them durable with one `syncfs` of the tournament's file system, then appends their
/// result lines with one fsync (so a line is never on disk before its replay), counts them and
/// tells the observer. A write that fails stops the tournament.
#[allow(clippy::type_complexity)]
fn spawn_writer(
    mut writer: ResultsWriter,
    shared: Arc<Mutex<Shared>>,
    observer: Arc<dyn Observer>,
    dir: &TournamentDir,
) -> Result<
    (
        std::sync::mpsc::SyncSender<Job>,
        std::thread::JoinHandle<()>,
    ),
    String,
> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Job>(WRITER_QUEUE);
    let results = dir.results_path();
    let replays = dir.replays_path();
    let handle = std::thread::Builder::new()
        .name("results-writer".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let mut batch = vec![first];
                let until = Instant::now() + GROUP_COMMIT_WINDOW;
                while batch.len() < WRITER_QUEUE {
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
