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
//! waiting, in nanoseconds) of every thread of every process below the bot's supervisor. Finding
//! those threads costs a walk of `/proc`, so it stays off the fast path: nothing at all is read
//! for a decision answered within [`FIRST_SAMPLE`] (or half its limit when that is shorter), whose
//! wall time is all its own (it cannot change a verdict). Past it, the decision's baseline is
//! read: a [`Tracker`] keeps the files of the threads it last found open, so that is one `pread`
//! per known thread (the walk is made only for a process's first sampled decision); the time
//! before the baseline was due is the bot's own, and the referee's delay in taking it (its thread
//! waiting for a CPU, a late timer) the machine's. The tree is walked again when the answer
//! arrives or the limit passes, and threads that started since count from zero. The run-queue
//! wait of the referee's own thread over the same span ([`RefereeWait`], the delay before it read
//! an answer that had arrived, or before it looked at the limit) counts as platform wait too,
//! within the same bound.
//! A bot starved past [`HARD_CAP`] times its limit (own time still under it) is not charged a
//! timeout: its game is voided.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Duration;

/// A decision answered within this (or half its limit when that is sooner) reads no accounting
/// beyond its baseline: all its wall time is its own.
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
    /// The tasks that were runnable (state `R`) when read, on a walk ([`Tracker::walk`]).
    runnable: HashSet<i32>,
}

impl Sample {
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

/// The schedstat files of a bot's threads, kept open from one decision to the next: a
/// decision's baseline reads only those (a `pread` each), the walk of `/proc` that finds new
/// threads is made only where it can change a verdict.
#[derive(Debug)]
pub struct Tracker {
    root: i32,
    files: HashMap<i32, File>,
    walked: bool,
}

impl Tracker {
    /// The threads of every process below `root` (the bot's supervisor, which only waits, is
    /// left out).
    pub fn new(root: i32) -> Tracker {
        Tracker {
            root,
            files: HashMap::new(),
            walked: false,
        }
    }

    /// The supervisor whose tree this tracks.
    pub fn root(&self) -> i32 {
        self.root
    }

    /// Whether any of the bot's threads was read yet (a decision past its first sample).
    pub fn has_read(&self) -> bool {
        self.walked
    }

    /// The threads known, read now; the tree is walked first when it never was (a process's
    /// first decision). Threads that ended are dropped.
    pub fn baseline(&mut self) -> Sample {
        if !self.walked {
            return self.walk();
        }
        let mut tasks = HashMap::new();
        self.files.retain(|&tid, f| match read_file(f) {
            Some(v) => {
                tasks.insert(tid, v);
                true
            }
            None => false,
        });
        Sample {
            tasks,
            runnable: HashSet::new(),
        }
    }

    /// Every thread below the root now, read now; their files are kept for the next baseline.
    pub fn walk(&mut self) -> Sample {
        self.walked = true;
        let mut tasks = HashMap::new();
        let mut runnable = HashSet::new();
        let mut files = HashMap::new();
        for pid in crate::idle::descendants(self.root) {
            let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for t in dir.flatten() {
                let Some(tid) = t.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                    continue;
                };
                let file = match self.files.remove(&tid) {
                    Some(f) => f,
                    None => match File::open(t.path().join("schedstat")) {
                        Ok(f) => f,
                        Err(_) => continue,
                    },
                };
                if let Some(v) = read_file(&file) {
                    tasks.insert(tid, v);
                    files.insert(tid, file);
                    let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
                    if state_of(&stat) == Some('R') {
                        runnable.insert(tid);
                    }
                }
            }
        }
        self.files = files;
        Sample { tasks, runnable }
    }
}

/// The state letter of a `/proc/.../stat` line (after the command's closing parenthesis: a
/// command may hold spaces and parentheses).
fn state_of(stat: &str) -> Option<char> {
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// What a bot's runnable threads may have waited for a CPU without it showing yet: the kernel
/// adds a wait to `schedstat` only when the thread gets its CPU, so a thread still in the queue
/// at the limit shows none of its current wait. For each thread, the most is the time since it
/// last could have run: since the check before the one that first saw its CPU time grow (since
/// the decision's start when none did). The verdict of a decision past its limit waits while
/// that could still bring its own time under the limit (see `BotProcess::answer`).
#[derive(Debug)]
pub struct Pending {
    /// Per thread: its CPU time at the last check, and since when it may have waited.
    last: HashMap<i32, (u64, std::time::Instant)>,
    start: std::time::Instant,
    checked: std::time::Instant,
}

impl Pending {
    /// From the decision's baseline, read at `start`.
    pub fn new(base: &Sample, start: std::time::Instant) -> Pending {
        Pending {
            last: (base.tasks.iter())
                .map(|(&tid, &(cpu, _))| (tid, (cpu, start)))
                .collect(),
            start,
            checked: start,
        }
    }

    /// At a check at `now` with the walk `s`: the most its runnable threads may have waited
    /// that `s` does not show.
    pub fn bound(&mut self, s: &Sample, now: std::time::Instant) -> Duration {
        let mut total = Duration::ZERO;
        for (tid, &(cpu, _)) in &s.tasks {
            let e = self.last.entry(*tid).or_insert((cpu, self.start));
            if e.0 != cpu {
                // It ran since the last check: it can have waited only since that check.
                *e = (cpu, self.checked);
            }
            if s.runnable.contains(tid) {
                total += now.saturating_duration_since(e.1);
            }
        }
        self.checked = now;
        total
    }
}

/// One schedstat file read from its start.
fn read_file(f: &File) -> Option<(u64, u64)> {
    let mut buf = [0u8; 128];
    let n = f.read_at(&mut buf, 0).ok()?;
    parse_schedstat(std::str::from_utf8(&buf[..n]).ok()?)
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
        // This thread's schedstat, opened once per thread: a pread, not an open, per decision.
        thread_local! {
            static SELF: RefCell<Option<(i32, File)>> = const { RefCell::new(None) };
        }
        SELF.with(|cell| {
            let mut cell = cell.borrow_mut();
            if cell.is_none() {
                let f = File::open("/proc/thread-self/schedstat").ok()?;
                *cell = Some((rustix::thread::gettid().as_raw_nonzero().get(), f));
            }
            let (tid, f) = cell.as_ref()?;
            Some(RefereeWait {
                tid: *tid,
                wait_ns: read_file(f)?.1,
            })
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
            runnable: HashSet::new(),
        };
        let after = Sample {
            tasks: HashMap::from([(1, (300, 40)), (3, (70, 7))]),
            runnable: HashSet::new(),
        };
        // Task 1: +200 / +30; task 3 new: 70 / 7; task 2 gone: not counted.
        assert_eq!(
            after.since(&before),
            (Duration::from_nanos(270), Duration::from_nanos(37))
        );
    }

    #[test]
    fn a_stat_lines_state_is_read_after_the_command() {
        assert_eq!(state_of("12 (python3) R 1 12 12 0"), Some('R'));
        assert_eq!(state_of("12 (a) b) S 1 12"), Some('S'));
        assert_eq!(state_of("garbage"), None);
    }

    #[test]
    fn a_runnable_thread_may_have_waited_since_it_last_could_have_run() {
        use std::time::Instant;
        let t0 = Instant::now();
        let at = |n| t0 + ms(n);
        let sample = |tasks: &[(i32, u64)], runnable: &[i32]| Sample {
            tasks: tasks.iter().map(|&(t, cpu)| (t, (cpu, 0))).collect(),
            runnable: runnable.iter().copied().collect(),
        };
        let base = sample(&[(1, 100), (2, 100)], &[]);
        let mut p = Pending::new(&base, t0);
        // At 5 ms: thread 1 is runnable and has not run since the start: it may have waited
        // all 5 ms unseen; thread 2 sleeps.
        assert_eq!(p.bound(&sample(&[(1, 100), (2, 100)], &[1]), at(5)), ms(5));
        // At 6 ms thread 1 has run (its CPU time grew) and is runnable again: it can have
        // waited only since the check at 5 ms. Thread 3 is new and runnable: since the start.
        assert_eq!(
            p.bound(&sample(&[(1, 300), (2, 100), (3, 0)], &[1, 3]), at(6)),
            ms(1) + ms(6)
        );
        // At 7 ms: nothing runnable, nothing unseen.
        assert_eq!(
            p.bound(&sample(&[(1, 300), (2, 100), (3, 0)], &[]), at(7)),
            Duration::ZERO
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
        let mut tracker = Tracker::new(tree.id() as i32);
        // The first baseline walks the tree; the next ones read the files it found.
        let a = tracker.baseline();
        std::thread::sleep(ms(200));
        let b = tracker.baseline();
        let (cpu, _) = b.since(&a);
        let known = tracker.files.len();
        // SAFETY: kill(2) on a process group this test created.
        unsafe { libc::kill(-(tree.id() as i32), libc::SIGKILL) };
        let _ = tree.wait();
        assert!(!a.tasks.is_empty(), "the spinning grandchild is found");
        assert_eq!(known, a.tasks.len(), "its file is kept open");
        // 200 ms of wall: however loaded the machine, some CPU time went to the spinner.
        assert!(cpu > Duration::ZERO, "cpu {cpu:?}");
    }
}
