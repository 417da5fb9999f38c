//! The decision clock: a bot is charged only its own time.
//!
//! A decision's *wall* time runs from the moment the request's last byte went into the bot's
//! stdin pipe to the moment its answer is read. On a loaded machine part of it is spent by the
//! bot's tasks waiting in the run queue for a CPU: that is the machine's time, not the bot's.
//! The *own* time charged against the limit is
//!
//! ```text
//! platform wait = min(run-queue wait of the bot's tasks, wall - CPU time of the bot's tasks)
//! own           = wall - platform wait
//! ```
//!
//! Waiting behind its own threads is the bot's own time: a bot whose threads compete with each
//! other has CPU time close to (or above) its wall time, so `wall - cpu`, and with it the wait it
//! may subtract, is small. A sleeping bot has no run-queue wait, so all its wall time is its own.
//!
//! The accounting is read from `/proc/PID/task/TID/schedstat` (time on a CPU, time runnable but
//! waiting, in nanoseconds) of every thread of every process below the bot's supervisor. Reading
//! it costs a walk of `/proc`, so it stays off the fast path: nothing is read for a decision
//! answered within [`FIRST_SAMPLE`] (or half its limit when that is shorter); past it, a first
//! sample is taken, and a second one when the answer arrives or the limit passes. The time
//! before the first sample is counted as the bot's own (at most [`FIRST_SAMPLE`]). The run-queue
//! wait of the referee's own thread over the same window ([`RefereeWait`]: the delay before it
//! read an answer that had arrived) counts as platform wait too, within the same bound.
//! A bot starved past [`HARD_CAP`] times its limit (own time still under it) is not charged a
//! timeout: its game is voided and played again.

use std::collections::HashMap;
use std::time::Duration;

/// The first accounting sample is taken this far into a decision (or at half the limit when
/// that is sooner): a decision answered before it reads nothing.
pub const FIRST_SAMPLE: Duration = Duration::from_millis(5);

/// A decision whose wall time passes this many times its limit, its own time still under the
/// limit, is starved by the machine: its game is voided and played again, never lost.
pub const HARD_CAP: u32 = 10;

/// What one decision took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DecisionTime {
    /// From the request's last byte written to the answer read.
    pub wall: Duration,
    /// CPU time of the bot's tasks over the sampled part of the decision, when it was read.
    pub cpu: Option<Duration>,
    /// Time the bot's tasks were runnable but not running over the sampled part, when read.
    pub wait: Option<Duration>,
    /// The time charged to the bot: `wall` minus the platform wait.
    pub own: Duration,
}

impl DecisionTime {
    /// A decision answered before any accounting was read: all its wall time is its own.
    pub fn wall_only(wall: Duration) -> DecisionTime {
        DecisionTime {
            wall,
            cpu: None,
            wait: None,
            own: wall,
        }
    }

    /// A decision of `wall` whose accounting was read over its last `window` (from the first
    /// sample on): `cpu` and `wait` as measured between the two samples. The time before the
    /// first sample is all the bot's own.
    pub fn accounted(
        wall: Duration,
        window: Duration,
        cpu: Duration,
        wait: Duration,
    ) -> DecisionTime {
        let window = window.min(wall);
        DecisionTime {
            wall,
            cpu: Some(cpu),
            wait: Some(wait),
            own: wall.saturating_sub(platform_wait(window, cpu, wait)),
        }
    }
}

/// The platform wait: the bot's run-queue wait, but no more than the wall time its tasks did
/// not spend on a CPU (waiting behind its own threads is its own time).
pub fn platform_wait(wall: Duration, cpu: Duration, wait: Duration) -> Duration {
    wait.min(wall.saturating_sub(cpu))
}

/// The time charged to the bot: wall time minus the platform wait.
pub fn own_time(wall: Duration, cpu: Duration, wait: Duration) -> Duration {
    wall.saturating_sub(platform_wait(wall, cpu, wait))
}

/// Cumulative CPU and run-queue time of each task (thread) of a bot, by task id.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    tasks: HashMap<i32, (u64, u64)>,
}

impl Sample {
    /// Every thread of every process below `supervisor` (not the supervisor itself, which only
    /// waits). Tasks that end while they are read are left out.
    pub fn of_tree(supervisor: i32) -> Sample {
        let mut tasks = HashMap::new();
        for pid in crate::idle::descendants(supervisor) {
            let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for t in dir.flatten() {
                let Some(tid) = t.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                    continue;
                };
                if let Some(v) = std::fs::read_to_string(t.path().join("schedstat"))
                    .ok()
                    .and_then(|s| parse_schedstat(&s))
                {
                    tasks.insert(tid, v);
                }
            }
        }
        Sample { tasks }
    }

    /// CPU time and run-queue wait between `before` and `self`: a task that started since counts
    /// from zero; one that ended since is not counted.
    pub fn since(&self, before: &Sample) -> (Duration, Duration) {
        let (mut cpu, mut wait) = (0u64, 0u64);
        for (tid, &(run, delay)) in &self.tasks {
            let (r0, d0) = before.tasks.get(tid).copied().unwrap_or((0, 0));
            cpu += run.saturating_sub(r0);
            wait += delay.saturating_sub(d0);
        }
        (Duration::from_nanos(cpu), Duration::from_nanos(wait))
    }
}

/// The run-queue wait of the referee's own thread so far (`/proc/thread-self/schedstat`), with
/// that thread's id: while a bot decides, the referee's thread sleeps until the answer arrives,
/// so what it waited for a CPU in between is the delay before the answer was read, the
/// machine's time, not the bot's. (Compared only on the same thread: a task of a runtime with
/// several workers may move.)
#[derive(Clone, Copy, Debug)]
pub struct RefereeWait {
    tid: i32,
    wait_ns: u64,
}

impl RefereeWait {
    pub fn now() -> Option<RefereeWait> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        Some(RefereeWait {
            tid: rustix::thread::gettid().as_raw_nonzero().get(),
            wait_ns: parse_schedstat(&s)?.1,
        })
    }

    /// The wait since `before`, when on the same thread.
    pub fn since(before: Option<RefereeWait>) -> Duration {
        match (before, RefereeWait::now()) {
            (Some(a), Some(b)) if a.tid == b.tid => {
                Duration::from_nanos(b.wait_ns.saturating_sub(a.wait_ns))
            }
            _ => Duration::ZERO,
        }
    }
}

/// `/proc/.../schedstat`: nanoseconds on a CPU, nanoseconds runnable but waiting, time slices.
fn parse_schedstat(s: &str) -> Option<(u64, u64)> {
    let mut it = s.split_whitespace();
    let run = it.next()?.parse().ok()?;
    let wait = it.next()?.parse().ok()?;
    Some((run, wait))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn waiting_for_the_machine_is_not_charged_waiting_for_itself_is() {
        // Computing 100 ms on a CPU shared with three others: 400 ms wall, 300 ms in the queue.
        assert_eq!(own_time(ms(400), ms(100), ms(300)), ms(100));
        // Sleeping 150 ms: no CPU, no queue: all its own.
        assert_eq!(own_time(ms(150), ms(0), ms(0)), ms(150));
        // Eight threads spinning on one CPU for 800 ms of wall: 800 ms of CPU and 5600 ms of
        // queue between them (each waits behind the seven others): the wait it may subtract is
        // bounded by wall - cpu = 0, so all 800 ms are its own.
        assert_eq!(own_time(ms(800), ms(800), ms(5600)), ms(800));
        // Eight threads with three outside hogs on one CPU, 1100 ms of wall: the bot ran 800,
        // the hogs 300; its threads queued much longer in sum, but only 300 ms were the
        // machine's.
        assert_eq!(platform_wait(ms(1100), ms(800), ms(8000)), ms(300));
        assert_eq!(own_time(ms(1100), ms(800), ms(8000)), ms(800));
        // More CPU than wall (threads on several CPUs): nothing to subtract.
        assert_eq!(own_time(ms(100), ms(350), ms(50)), ms(100));
        // A queue wait longer than the wall (several threads queued at once): at most wall - cpu.
        assert_eq!(own_time(ms(100), ms(20), ms(500)), ms(20));
    }

    #[test]
    fn a_decision_without_accounting_is_all_its_own() {
        let t = DecisionTime::wall_only(ms(7));
        assert_eq!((t.own, t.cpu, t.wait), (ms(7), None, None));
        let t = DecisionTime::accounted(ms(400), ms(400), ms(100), ms(300));
        assert_eq!(
            (t.own, t.cpu, t.wait),
            (ms(100), Some(ms(100)), Some(ms(300)))
        );
        // Sampled from 5 ms on: the first 5 ms are its own, whatever they were.
        let t = DecisionTime::accounted(ms(405), ms(400), ms(100), ms(300));
        assert_eq!(t.own, ms(105));
    }

    #[test]
    fn schedstat_lines_are_read_and_garbage_is_not() {
        assert_eq!(parse_schedstat("123 456 7\n"), Some((123, 456)));
        assert_eq!(parse_schedstat("123"), None);
        assert_eq!(parse_schedstat("x y z"), None);
    }

    #[test]
    fn tasks_are_compared_by_id_new_ones_from_zero() {
        let before = Sample {
            tasks: HashMap::from([(1, (100, 10)), (2, (50, 5))]),
        };
        let after = Sample {
            tasks: HashMap::from([(1, (300, 40)), (3, (70, 7))]),
        };
        // Task 1: +200 / +30; task 3 new: 70 / 7; task 2 gone: not counted.
        assert_eq!(
            after.since(&before),
            (Duration::from_nanos(270), Duration::from_nanos(37))
        );
    }

    #[test]
    fn the_referees_wait_counts_only_on_the_same_thread() {
        let now = RefereeWait::now().expect("/proc/thread-self/schedstat");
        // Another thread's counter (a task moved between workers): nothing to subtract, even
        // with a counter far below this thread's.
        let other = RefereeWait {
            tid: -1,
            wait_ns: 0,
        };
        assert_eq!(RefereeWait::since(Some(other)), Duration::ZERO);
        assert_eq!(RefereeWait::since(None), Duration::ZERO);
        // The same thread with its counter an hour lower: an hour of wait since.
        let earlier = RefereeWait {
            wait_ns: now.wait_ns.saturating_sub(3_600_000_000_000),
            ..now
        };
        assert!(
            RefereeWait::since(Some(earlier))
                >= Duration::from_nanos(now.wait_ns.min(3_600_000_000_000))
        );
    }

    #[test]
    fn a_spinning_child_shows_cpu_time() {
        use std::os::unix::process::CommandExt;
        let mut tree = std::process::Command::new("sh")
            .args(["-c", "sh -c 'while :; do :; done' & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(ms(50));
        let a = Sample::of_tree(tree.id() as i32);
        std::thread::sleep(ms(200));
        let b = Sample::of_tree(tree.id() as i32);
        let (cpu, _) = b.since(&a);
        // SAFETY: kill(2) on a process group this test created.
        unsafe { libc::kill(-(tree.id() as i32), libc::SIGKILL) };
        let _ = tree.wait();
        assert!(!a.tasks.is_empty(), "the spinning grandchild is found");
        // 200 ms of wall: however loaded the machine, some CPU time went to the spinner.
        assert!(cpu > Duration::ZERO, "cpu {cpu:?}");
    }
}
