//! The results writer: one thread takes the games the tables finish, in any order, through a
//! bounded queue (a table waits when the writer is behind: push back, not a growing queue),
//! writes each replay at once, sequences the game ([`crate::sequencer`]), and makes the games
//! durable in group commits: one `syncfs` for the replays written since the last commit, then
//! the lines of the games held for earlier ones appended to `held.jsonl`, and those of the
//! accepted games to `results.jsonl`, each with one fsync (a line is never on disk before its
//! replay). A commit happens once the oldest game waiting for it finished
//! [`GROUP_COMMIT_WINDOW`] ago, so a game is durable within that window plus the time of the
//! syncs; a kill loses at most those games, which `--resume` plays again (it takes the held ones
//! in).

use crate::recorded::count_faults;
use crate::results::{ResultLine, ResultsWriter, TournamentDir};
use crate::runner::{Observer, Shared};
use crate::sequencer::Decided;
use durak_referee::ReplayLog;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Finished games on their way to the writer, at most: a table that finishes one more waits.
/// (Each holds its replay, about 25 KB for a two-player game.)
pub const WRITER_QUEUE: usize = 64;

/// How long a finished game may wait for its group commit (one `syncfs` and one fsync of the
/// results then cover every game of the group).
pub const GROUP_COMMIT_WINDOW: Duration = Duration::from_millis(20);

/// Games written in one group at most.
const GROUP_MAX: usize = 1024;

/// What the tables send the writer.
pub(crate) enum Msg {
    /// A finished game (boxed: the queue holds few, and the other messages are small).
    Finished(Box<Job>),
    /// A table of the pass ended: what it did not finish will not come.
    TableEnded(u32),
    /// Everything sent before is sequenced and durable: answer.
    Barrier(SyncSender<()>),
}

/// A finished game: its replay (to write) and its result line.
pub(crate) struct Job {
    pub replay: Option<(ReplayLog, PathBuf)>,
    pub line: ResultLine,
    pub finished: Instant,
}

/// How the writer kept up, for the benchmark (`DURAK_RUN_STATS=1`).
#[derive(Clone, Debug, Default)]
pub struct WriterStats {
    /// Games made durable.
    pub committed: usize,
    pub commits: usize,
    /// From a game's end to its line fsynced, at most, and at the 99th percentile.
    pub durable_max: Duration,
    pub durable_p99: Duration,
    /// The longest `syncfs` plus fsync of a commit.
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

/// Start the writer thread; it ends when every sender is dropped, after a last commit.
pub(crate) fn spawn_writer(
    writer: ResultsWriter,
    held: ResultsWriter,
    shared: Arc<Shared>,
    observer: Arc<dyn Observer>,
    dir: &TournamentDir,
) -> Result<(SyncSender<Msg>, std::thread::JoinHandle<WriterStats>), String> {
    let (results, held_path, replays) = (dir.results_path(), dir.held_path(), dir.replays_path());
    let (tx, rx) = std::sync::mpsc::sync_channel::<Msg>(WRITER_QUEUE);
    let handle = std::thread::Builder::new()
        .name("results-writer".into())
        .spawn(move || {
            Writer {
                writer,
                held,
                shared,
                observer,
                results,
                held_path,
                replays,
                batch: Vec::new(),
                held_batch: Vec::new(),
                unsynced: false,
                latency: Histogram::new(),
                stats: WriterStats::default(),
            }
            .run(rx)
        })
        .map_err(|e| format!("cannot start the results writer: {e}"))?;
    Ok((tx, handle))
}

struct Writer {
    writer: ResultsWriter,
    held: ResultsWriter,
    shared: Arc<Shared>,
    observer: Arc<dyn Observer>,
    results: PathBuf,
    held_path: PathBuf,
    replays: PathBuf,
    /// Accepted games not yet in `results.jsonl`, with when they finished and whether they are
    /// durable already (in `held.jsonl`).
    batch: Vec<(ResultLine, Instant, bool)>,
    /// Held games not yet in `held.jsonl`: id, JSON line, when they finished.
    held_batch: Vec<(u64, String, Instant)>,
    /// Replays written since the last `syncfs`.
    unsynced: bool,
    latency: Histogram,
    stats: WriterStats,
}

impl Writer {
    /// When the oldest game waiting for a commit finished.
    fn oldest(&self) -> Option<Instant> {
        let a = self.batch.iter().map(|(_, f, _)| *f);
        let h = self.held_batch.iter().map(|(_, _, f)| *f);
        a.chain(h).min()
    }

    fn run(mut self, rx: Receiver<Msg>) -> WriterStats {
        loop {
            // The commit is due once the oldest game waiting for it finished a window ago.
            let due = self.oldest().map(|f| f + GROUP_COMMIT_WINDOW);
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
                    self.commit();
                    let _ = reply.send(());
                }
                None => {}
            }
            if self
                .oldest()
                .is_some_and(|f| f + GROUP_COMMIT_WINDOW <= Instant::now())
                || self.batch.len() + self.held_batch.len() >= GROUP_MAX
            {
                self.commit();
            }
        }
        self.commit();
        self.stats.held_max = self
            .shared
            .lock()
            .books
            .seq
            .held_max
            .max(self.stats.held_max);
        self.stats.durable_max = self.latency.max;
        self.stats.durable_p99 = self.latency.quantile(0.99);
        self.stats
    }

    fn failed(&self) -> bool {
        self.shared.lock().error.is_some()
    }

    /// A finished game: its replay is written now (so that a held game keeps only its line),
    /// then it is sequenced.
    fn finished(&mut self, job: Job) {
        if self.failed() {
            return;
        }
        if let Some((log, path)) = &job.replay {
            if let Err(e) = log.write_atomic_unsynced(path) {
                self.fail(format!("cannot write the replay {}: {e}", path.display()));
                return;
            }
            self.unsynced = true;
        }
        drop(job.replay);
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
        for (bot, reason) in &out.disqualified {
            self.observer.disqualified(bot, reason);
        }
        self.batch.extend(out.accepted);
        self.held_batch.extend(out.held);
        // Held games may have gone: tables waiting for that may go on.
        self.shared.wake.notify_all();
    }

    /// Make the batch durable: the replays, then the lines (held, then accepted).
    fn commit(&mut self) {
        if (self.batch.is_empty() && self.held_batch.is_empty()) || self.failed() {
            return;
        }
        let started = Instant::now();
        if self.unsynced {
            if let Err(e) = sync_dir_fs(&self.replays) {
                self.fail(format!(
                    "cannot make the replays in {} durable: {e}",
                    self.replays.display()
                ));
                return;
            }
            self.unsynced = false;
        }
        // Held games accepted in the same group need not be held on disk.
        let accepted: std::collections::HashSet<u64> =
            self.batch.iter().map(|(l, _, _)| l.id).collect();
        let mut held = String::new();
        for (id, text, _) in &self.held_batch {
            if !accepted.contains(id) {
                held.push_str(text);
                held.push('\n');
            }
        }
        if let Err(e) = self.held.append_text(&held) {
            self.fail(format!(
                "cannot append to {}: {e}",
                self.held_path.display()
            ));
            return;
        }
        let lines: Vec<&ResultLine> = self.batch.iter().map(|(l, _, _)| l).collect();
        if let Err(e) = self.writer.append_all(&lines) {
            self.fail(format!("cannot append to {}: {e}", self.results.display()));
            return;
        }
        let now = Instant::now();
        self.stats.sync_max = self.stats.sync_max.max(now - started);
        self.stats.commits += 1;
        self.stats.committed += self.batch.len();
        // A game is durable once, held or recorded: its latency counts then.
        for (_, _, finished) in self.held_batch.drain(..) {
            self.latency.add(now.saturating_duration_since(finished));
        }
        let mut s = self.shared.lock();
        for (line, finished, was_held) in self.batch.drain(..) {
            if !was_held {
                self.latency.add(now.saturating_duration_since(finished));
            }
            s.done += 1;
            s.faults += count_faults(&line);
            self.observer.game(&line, s.done, s.faults);
        }
    }

    /// A write failed: the tournament stops (every table, at its next game).
    fn fail(&mut self, e: String) {
        self.shared.fail(e);
        self.batch.clear();
        self.held_batch.clear();
    }
}

/// One `syncfs` of the file system holding `dir`: every replay written there becomes durable
/// at once.
fn sync_dir_fs(dir: &Path) -> std::io::Result<()> {
    let d = std::fs::File::open(dir)?;
    rustix::fs::syncfs(&d).map_err(Into::into)
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

    /// The queue to the writer is bounded: a table that finishes a game while it is full
    /// waits (push back) instead of piling replays up in memory.
    #[test]
    fn the_queue_to_the_writer_is_bounded() {
        let (tx, _rx) = std::sync::mpsc::sync_channel::<Msg>(WRITER_QUEUE);
        let (reply, _) = std::sync::mpsc::sync_channel(1);
        for _ in 0..WRITER_QUEUE {
            tx.try_send(Msg::Barrier(reply.clone())).unwrap();
        }
        assert!(matches!(
            tx.try_send(Msg::Barrier(reply)),
            Err(std::sync::mpsc::TrySendError::Full(_))
        ));
    }
}
