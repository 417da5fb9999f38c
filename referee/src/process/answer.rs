//! The answer to a request, on the decision clock (see [`crate::clock`]): read on the table's
//! own thread when it comes soon ([`crate::direct`]), else through the runtime, with the bot's
//! exit, a kill for memory and the deadline watched.

use super::{BotProcess, IoFault};
use crate::clock::{self, DecisionTime, Pending, RefereeWait, Sample, Tracker};
use crate::isolation;
use crate::lines::{LineError, NextLine};
use bytes::Bytes;
use std::io;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

impl BotProcess {
    /// The answer to what was just written, on the decision clock (see [`crate::clock`]):
    /// timed from the moment the last byte of the request went into the pipe, and a timeout
    /// only when the bot's own time passes `limit`. A decision answered within
    /// [`crate::clock::FIRST_SAMPLE`] (or half of `limit`) reads nothing but its answer; past
    /// that, the baseline of the bot's threads (and of the referee's) is read, a `pread` per
    /// known thread, and the bot's tasks are read again at the answer or the limit. A bot the machine kept
    /// waiting past [`crate::clock::HARD_CAP`] times `limit` is [`IoFault::Starved`].
    pub async fn answer(&mut self, limit: Duration) -> Result<(Bytes, DecisionTime), IoFault> {
        let start = self.written_at;
        // The human seat is a person: its wall time is its time.
        let root = self.pgid.filter(|_| !self.human);
        if self.tracker.as_ref().map(|t| t.root()) != root {
            self.tracker = root.map(Tracker::new);
        }
        let read_past = (limit / 2).min(clock::FIRST_SAMPLE);
        let due = start + read_past;
        // The fast path reads nothing but the answer: a decision answered within `read_past`
        // is all the bot's own time (nothing could change its verdict). On the table's own
        // thread when it can be, else through the runtime.
        let fast = match self.direct_answer(due).await {
            Some(r) => r,
            None => {
                self.recv(due.saturating_duration_since(Instant::now()))
                    .await
            }
        };
        match fast {
            Ok((line, arrived)) => {
                let wall = arrived.saturating_duration_since(start);
                return Ok((line, DecisionTime::wall_only(wall)));
            }
            Err(IoFault::Timeout) => {}
            Err(f) => return Err(f),
        }
        // The baseline, taken at `due` (or as soon after as the referee's thread ran: that
        // delay is the machine's, as is the referee's run-queue wait later on).
        let base = self.tracker.as_mut().map(|t| {
            let now = Instant::now();
            Base {
                at: due,
                sample: t.baseline(),
                referee: RefereeWait::now(),
                late: now.saturating_duration_since(due),
            }
        });
        let cap = start + limit.saturating_mul(clock::HARD_CAP);
        let mut until = start + limit;
        let mut pending: Option<Pending> = None;
        loop {
            let now = Instant::now();
            match self.recv(until.saturating_duration_since(now)).await {
                Ok((line, arrived)) => {
                    let time = match (&base, self.tracker.as_mut()) {
                        (Some(base), Some(tracker)) => account(tracker, base, start, arrived).0,
                        _ => DecisionTime::wall_only(arrived.saturating_duration_since(start)),
                    };
                    return Ok((line, time));
                }
                Err(IoFault::Timeout) => {}
                Err(f) => return Err(f),
            }
            let (Some(base), Some(tracker)) = (&base, self.tracker.as_mut()) else {
                return Err(IoFault::Timeout);
            };
            let now = Instant::now();
            let (time, sample) = account(tracker, base, start, now);
            let pending = pending.get_or_insert_with(|| Pending::new(&base.sample, base.at));
            if time.own >= limit {
                // At best, with what its runnable threads may have waited unseen: only when
                // even that is past the limit is it charged; otherwise look again in 1 ms
                // (once they have run, their wait shows).
                let unseen = pending.bound(&sample, now);
                let best = own_with(&time, base, now, unseen);
                if best >= limit || now >= cap {
                    // An answer that came while the accounting was read still counts.
                    if let Ok((line, _)) = self.recv(Duration::ZERO).await {
                        return Ok((line, time));
                    }
                }
                if best >= limit {
                    return Err(IoFault::Timeout);
                }
                if now >= cap {
                    return Err(IoFault::Starved {
                        wall: time.wall,
                        own: best,
                    });
                }
                until = (now + Duration::from_millis(1)).min(cap);
                continue;
            }
            pending.bound(&sample, now);
            if now >= cap {
                return Err(IoFault::Starved {
                    wall: time.wall,
                    own: time.own,
                });
            }
            // Its own time left, at the soonest: look again then (not before 1 ms).
            let left = (limit - time.own).max(Duration::from_millis(1));
            until = (now + left).min(cap);
        }
    }

    /// The answer read on the table's own thread ([`crate::direct`]), if it comes by `due`;
    /// `None` when this path is not taken or the answer did not come by then (the runtime's
    /// path goes on from there). The runtime gets its turn first when one is due.
    async fn direct_answer(&mut self, due: Instant) -> Option<Result<(Bytes, Instant), IoFault>> {
        if !self.direct || self.exit.is_some() {
            return None;
        }
        if crate::direct::turn_due() {
            tokio::task::yield_now().await;
            crate::direct::turned();
        }
        let next = crate::direct::wait_line(&mut self.lines, due, self.alone)?;
        #[cfg(test)]
        {
            self.direct_answers += 1;
        }
        Some(self.line_result(next).await)
    }

    /// Read one line within `limit`; returns it with the instant it arrived.
    pub async fn recv(&mut self, limit: Duration) -> Result<(Bytes, Instant), IoFault> {
        if let Some(s) = self.exit {
            // The process is gone: only a line it left in the pipe can still come.
            return match tokio::time::timeout(Duration::from_millis(50), self.lines.next()).await {
                Ok(Some(Ok(b))) => Ok((b, Instant::now())),
                _ => Err(self.ended(s)),
            };
        }
        enum Woke {
            Line(NextLine),
            Exit(io::Result<ExitStatus>),
            Memory,
            Deadline,
        }
        let woke = {
            let deadline = tokio::time::sleep(limit);
            let oom = oom_kill(self.cgroup.as_ref());
            tokio::pin!(deadline, oom);
            tokio::select! {
                biased;
                r = self.lines.next() => Woke::Line(r),
                _ = &mut oom => Woke::Memory,
                s = self.child.wait() => Woke::Exit(s),
                _ = &mut deadline => Woke::Deadline,
            }
        };
        match woke {
            Woke::Line(r) => self.line_result(r).await,
            Woke::Memory => Err(self.memory_fault(None)),
            Woke::Deadline => Err(IoFault::Timeout),
            Woke::Exit(s) => {
                if let Ok(s) = s {
                    self.exit = Some(s);
                }
                // A line written just before exiting is still an answer.
                match tokio::time::timeout(Duration::from_millis(50), self.lines.next()).await {
                    Ok(r @ Some(Ok(_))) => self.line_result(r).await,
                    _ => Err(match self.exit {
                        Some(s) => self.ended(s),
                        None => IoFault::Crash("ended".into()),
                    }),
                }
            }
        }
    }

    async fn line_result(&mut self, r: NextLine) -> Result<(Bytes, Instant), IoFault> {
        let now = Instant::now();
        match r {
            Some(Ok(b)) => {
                let mut b = b;
                if b.last() == Some(&b'\r') {
                    b.truncate(b.len() - 1);
                }
                if b.len() > self.max_line {
                    return Err(IoFault::LineTooLong);
                }
                if self.supervisor_seen_killed().await {
                    return Err(IoFault::Crash(
                        "killed its supervisor (the process that cleans up after it) and went on"
                            .into(),
                    ));
                }
                Ok((b, now))
            }
            Some(Err(LineError::TooLong)) => Err(IoFault::LineTooLong),
            Some(Err(LineError::Io(_))) | None => Err(self.closed_or_crashed().await),
        }
    }
}

/// Resolves once the kernel has killed a process of the bot's cgroup for memory (checked every
/// 20 ms while an answer is awaited, first 20 ms in: an answer that comes sooner reads no file);
/// never without a cgroup. A bot whose main process is killed is told by its exit at once.
async fn oom_kill(cgroup: Option<&isolation::cgroup::BotCgroup>) {
    let Some(cg) = cgroup else {
        return std::future::pending().await;
    };
    let every = Duration::from_millis(20);
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if cg.oom_kills() > 0 {
            return;
        }
    }
}

/// A decision's baseline: the bot's threads (and the referee's) read once the decision had
/// gone on for its first sample's time, at `at`; the referee's thread ran `late` after that
/// (its wait for a CPU, or its runtime's other work: the machine's time, not the bot's).
struct Base {
    at: Instant,
    sample: Sample,
    referee: Option<RefereeWait>,
    late: Duration,
}

/// The decision clock at `now`: the bot's threads (walked again) and the referee's thread
/// against the baseline; with the walk. The time before the baseline was due is the bot's own.
fn account(
    tracker: &mut Tracker,
    base: &Base,
    start: Instant,
    now: Instant,
) -> (DecisionTime, Sample) {
    let sample = tracker.walk();
    let (cpu, wait) = sample.since(&base.sample);
    let wait = wait + RefereeWait::since(base.referee) + base.late;
    let wall = now.saturating_duration_since(start);
    let time = DecisionTime::accounted(wall, now.saturating_duration_since(base.at), cpu, wait);
    (time, sample)
}

/// The own time of `time` had its threads also waited `unseen` more.
fn own_with(time: &DecisionTime, base: &Base, now: Instant, unseen: Duration) -> Duration {
    let (cpu, wait) = (time.cpu.unwrap_or_default(), time.wait.unwrap_or_default());
    let window = now.saturating_duration_since(base.at);
    DecisionTime::accounted(time.wall, window, cpu, wait + unseen).own
}
