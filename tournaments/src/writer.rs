//! The results writer, in two threads, so that neither a slow disk nor a kill costs more than the
//! last moments of play:
//!
//! - the **writer** takes the games the tables finish, in any order, through a bounded queue
//!   ([`WRITER_QUEUE`]: a table waits when the writer is behind — push back, not a growing
//!   queue). Each table has written the game's replay (into the page cache); the writer appends
//!   its result line to `pending.jsonl` at once (a SIGKILL then loses neither, and a resume
//!   takes the game in), then sequences it ([`crate::sequencer`]);
//! - the **committer** makes them durable in group commits: an fdatasync of each replay written
//!   since the last commit (in parallel, so that the file system journals them together) and of
//!   the replay directory, an fdatasync of `pending.jsonl`, then the lines of the games accepted
//!   appended to `results.jsonl` with one fsync — a line is never in `results.jsonl` before its
//!   replay is durable. A group is handed over once its oldest game finished
//!   [`GROUP_COMMIT_WINDOW`] ago; while a commit runs, the writer goes on with the next group.
//!
//! Only this process's files are synced (not `syncfs`, which waits for every dirty page of the
//! file system: seconds, when other programs write).

use crate::error::Error;
use crate::recorded::count_faults;
use crate::results::{ResultLine, ResultsWriter, TournamentDir};
use crate::sequencer::{Closed, Decided};
use crate::shared::{Observer, Shared};
use durak_referee::replay::{sync_files, sync_path};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Finished games on their way to the writer, at most: a table that finishes one more waits.
/// (Each is its result line and its replay's path: a few hundred bytes.)
pub const WRITER_QUEUE: usize = 64;

/// How long a finished game may wait before its group is committed.
pub const GROUP_COMMIT_WINDOW: Duration = Duration::from_millis(20);

/// Games in a group, at most, when the committer is not behind; when it is (a slow disk),
/// groups grow to [`GROUP_LIMIT`], then the writer waits for it (push back).
const GROUP_MAX: usize = 1024;
const GROUP_LIMIT: usize = 4 * GROUP_MAX;

/// What the tables send the writer.
pub(crate) enum Msg {
    /// A finished game (boxed: the queue holds few, and the other messages are small).
    Finished(Box<Job>),
    /// A table of the pass ended: what it did not finish will not come.
    TableEnded(u32),
    /// Everything sent before is sequenced and durable: answer.
    Barrier(SyncSender<()>),
}

/// A finished game: its replay (written, not synced) and its result line.
pub(crate) struct Job {
    pub replay: Option<PathBuf>,
    pub line: ResultLine,
    pub finished: Instant,
}

/// How the writer kept up, for the benchmark (`DURAK_RUN_STATS=1`).
#[derive(Clone, Debug, Default)]
pub struct WriterStats {
    /// Games recorded.
    pub committed: usize,
    pub commits: usize,
    /// From a game's end to its line being durable (in `pending.jsonl`, or in `results.jsonl`
    /// for a game whose turn had come), at most, and at the 99th percentile.
    pub durable_max: Duration,
    pub durable_p99: Duration,
    /// The longest commit (its syncs and the append).
    pub sync_max: Duration,
    /// Games held for earlier ones at once, at most.
    pub held_max: usize,
}

/// Latencies in 1 ms buckets up to 10 s (the last bucket takes the rest).
struct Histogram {
    buckets: Vec<u32>,
    count: u64,
    max: Duration,
}

impl Histogram {
    fn new() -> Histogram {
        Histogram {
            buckets: vec![0; 10_001],
            count: 0,
            max: Duration::ZERO,
        }
    }

    fn add(&mut self, d: Duration) {
        let i = (d.as_millis() as usize).min(self.buckets.len() - 1);
        self.buckets[i] += 1;
        self.count += 1;
        self.max = self.max.max(d);
    }

    fn quantile(&self, q: f64) -> Duration {
        let want = (self.count as f64 * q).ceil() as u64;
        let mut seen = 0u64;
        for (ms, &n) in self.buckets.iter().enumerate() {
            seen += n as u64;
            if seen >= want.max(1) {
                return Duration::from_millis(ms as u64 + 1).min(self.max);
            }
        }
        self.max
    }
}

/// What the writer hands the committer.
#[derive(Default)]
struct Group {
    /// Replays written (unsynced).
    replays: Vec<PathBuf>,
    /// When each game of the group finished (its line is in `pending.jsonl`).
    finished: Vec<Instant>,
    /// Games accepted, in id order: their lines go to `results.jsonl`.
    accepted: Vec<ResultLine>,
    /// Answer once committed.
    barrier: Option<SyncSender<()>>,
}

impl Group {
    fn is_empty(&self) -> bool {
        self.finished.is_empty() && self.accepted.is_empty() && self.barrier.is_none()
    }
    fn len(&self) -> usize {
        self.finished.len().max(self.accepted.len())
    }
}

/// Start the writer and committer threads; they end when every sender is dropped, after a last
/// commit. `pending` appends to `pending.jsonl`.
pub(crate) fn spawn_writer(
    results: ResultsWriter,
    pending: ResultsWriter,
    shared: Arc<Shared>,
    observer: Arc<dyn Observer>,
    dir: &TournamentDir,
) -> Result<(SyncSender<Msg>, std::thread::JoinHandle<WriterStats>), Error> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Msg>(WRITER_QUEUE);
    let (to_commit, commits) = std::sync::mpsc::sync_channel::<Group>(1);
    let committer = Committer {
        results,
        pending_file: dir.pending_path(),
        results_path: dir.results_path(),
        replays: dir.replays_path(),
        shared: shared.clone(),
        observer: observer.clone(),
        latency: Histogram::new(),
        stats: WriterStats::default(),
    };
    let committer = std::thread::Builder::new()
        .name("results-commit".into())
        .spawn(move || committer.run(commits))
        .map_err(|e| run_error!("cannot start the results committer: {e}"))?;
    let writer = Writer {
        pending,
        pending_path: dir.pending_path(),
        shared,
        observer,
        group: Group::default(),
        to_commit,
    };
    let handle = std::thread::Builder::new()
        .name("results-writer".into())
        .spawn(move || {
            writer.run(rx);
            committer.join().unwrap_or_default()
        })
        .map_err(|e| run_error!("cannot start the results writer: {e}"))?;
    Ok((tx, handle))
}

struct Writer {
    pending: ResultsWriter,
    pending_path: PathBuf,
    shared: Arc<Shared>,
    observer: Arc<dyn Observer>,
    /// The group being gathered.
    group: Group,
    to_commit: SyncSender<Group>,
}

impl Writer {
    fn run(mut self, rx: Receiver<Msg>) {
        loop {
            let due = self
                .group
                .finished
                .iter()
                .min()
                .map(|f| *f + GROUP_COMMIT_WINDOW);
            let msg = match due {
                Some(due) => match rx.recv_timeout(due.saturating_duration_since(Instant::now())) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                },
                None => match rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => break,
                },
            };
            match msg {
                Some(Msg::Finished(job)) => self.finished(*job),
                Some(Msg::TableEnded(table)) => {
                    let mut out = Decided::default();
                    self.shared.lock().books.table_ended(table, &mut out);
                    self.decided(out);
                }
                Some(Msg::Barrier(reply)) => {
                    self.group.barrier = Some(reply);
                    self.hand_over(true);
                    continue;
                }
                None => {}
            }
            let due = self
                .group
                .finished
                .iter()
                .min()
                .is_some_and(|f| *f + GROUP_COMMIT_WINDOW <= Instant::now());
            if due || self.group.len() >= GROUP_MAX {
                // Waits for the committer only when it is far behind.
                self.hand_over(self.group.len() >= GROUP_LIMIT);
            }
        }
        self.hand_over(true);
    }

    fn failed(&self) -> bool {
        self.shared.lock().error.is_some()
    }

    /// Hand the group to the committer; when it is busy, keep gathering, unless `wait`.
    fn hand_over(&mut self, wait: bool) {
        if self.group.is_empty() {
            return;
        }
        let group = std::mem::take(&mut self.group);
        let r = if wait {
            self.to_commit
                .send(group)
                .map_err(|e| TrySendError::Disconnected(e.0))
        } else {
            self.to_commit.try_send(group)
        };
        match r {
            Ok(()) => {}
            Err(TrySendError::Full(group)) => self.group = group,
            Err(TrySendError::Disconnected(group)) => {
                // The committer is gone (it failed): answer a barrier all the same.
                if let Some(b) = group.barrier {
                    let _ = b.send(());
                }
            }
        }
    }

    /// A finished game: its line goes to `pending.jsonl` now (its replay is written), so that
    /// a kill does not lose it; then it is sequenced.
    fn finished(&mut self, job: Job) {
        if self.failed() {
            return;
        }
        if self.shared.lock().books.closed == Some(Closed::Decided) {
            // Finished after the SPRT decided: cancelled (its line was never pending).
            if let Some(p) = &job.replay {
                let _ = std::fs::remove_file(p);
            }
            return;
        }
        if let Some(path) = job.replay {
            self.group.replays.push(path);
        }
        let text = serde_json::to_string(&job.line).expect("a result line serialises") + "\n";
        if let Err(e) = self.pending.append_text_unsynced(&text) {
            self.fail(format!(
                "cannot append to {}: {e}",
                self.pending_path.display()
            ));
            return;
        }
        self.group.finished.push(job.finished);
        let mut out = Decided::default();
        self.shared
            .lock()
            .books
            .sequence(job.line, job.finished, &mut out);
        self.decided(out);
    }

    fn decided(&mut self, out: Decided) {
        for t in &out.stopped {
            self.shared.stop_table(*t);
        }
        if out.closed {
            self.shared.close();
        }
        for (bot, reason) in &out.disqualified {
            self.observer.disqualified(bot, reason);
        }
        self.group
            .accepted
            .extend(out.accepted.into_iter().map(|(l, _)| l));
        // Held games may have gone: tables waiting for that may go on.
        self.shared.wake.notify_all();
    }

    fn fail(&mut self, e: String) {
        self.shared.fail(e);
        self.group.accepted.clear();
    }
}

struct Committer {
    results: ResultsWriter,
    pending_file: PathBuf,
    results_path: PathBuf,
    replays: PathBuf,
    shared: Arc<Shared>,
    observer: Arc<dyn Observer>,
    latency: Histogram,
    stats: WriterStats,
}

impl Committer {
    fn run(mut self, groups: Receiver<Group>) -> WriterStats {
        for mut group in groups {
            let barrier = group.barrier.take();
            self.commit(group);
            if let Some(b) = barrier {
                let _ = b.send(());
            }
        }
        self.stats.held_max = self.shared.lock().books.seq.held_max;
        self.stats.durable_max = self.latency.max;
        self.stats.durable_p99 = self.latency.quantile(0.99);
        self.stats
    }

    /// Make a group durable: its replays, the pending lines, then the accepted lines.
    fn commit(&mut self, group: Group) {
        if self.shared.lock().error.is_some()
            || (group.finished.is_empty() && group.accepted.is_empty())
        {
            return;
        }
        let started = Instant::now();
        if let Err((p, e)) = sync_files(&group.replays) {
            return self.fail(format!(
                "cannot make the replay {} durable: {e}",
                p.display()
            ));
        }
        if !group.replays.is_empty() {
            if let Err(e) = sync_path(&self.replays) {
                return self.fail(format!(
                    "cannot make {} durable: {e}",
                    self.replays.display()
                ));
            }
        }
        if !group.finished.is_empty() {
            if let Err(e) = sync_path(&self.pending_file) {
                return self.fail(format!(
                    "cannot make {} durable: {e}",
                    self.pending_file.display()
                ));
            }
        }
        let lines: Vec<&ResultLine> = group.accepted.iter().collect();
        if let Err(e) = self.results.append_all(&lines) {
            return self.fail(format!(
                "cannot append to {}: {e}",
                self.results_path.display()
            ));
        }
        let now = Instant::now();
        self.stats.sync_max = self.stats.sync_max.max(now - started);
        self.stats.commits += 1;
        self.stats.committed += group.accepted.len();
        for f in &group.finished {
            self.latency.add(now.saturating_duration_since(*f));
        }
        let mut s = self.shared.lock();
        for line in &group.accepted {
            s.done += 1;
            s.faults += count_faults(line);
            self.observer.game(line, s.done, s.faults);
        }
    }

    /// A write failed: the tournament stops (every table, at its next game).
    fn fail(&mut self, e: String) {
        self.shared.fail(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_the_latency_histogram() {
        let mut h = Histogram::new();
        for ms in 0..100 {
            h.add(Duration::from_micros(ms * 1000 + 500));
        }
        assert_eq!(h.max, Duration::from_micros(99_500));
        assert_eq!(h.quantile(0.5), Duration::from_millis(50));
        assert_eq!(h.quantile(0.99), Duration::from_millis(99));
        assert_eq!(h.quantile(1.0), h.max);
    }
}
