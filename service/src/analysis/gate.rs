//! When the endgame analysis may take a CPU: at full pace while the machine has CPU to spare,
//! one game per [`BUSY_PAUSE`] while everything else keeps its CPUs busy.
//!
//! Why not the idle priority alone (`SCHED_IDLE`, which the analysis keeps): it gets a CPU
//! only when nothing else wants it, but each time it does, the solver's tables flush the
//! caches of the CPU it ran on, and a table or a worker's referee that is woken there next
//! starts cold. With two `durak worker`s and the server on 2 cores, the analysis running in the
//! gaps cost a tenth of the games per second (docs/BENCHMARKS.md, "The ladder's pace").
//!
//! What is measured: the share of all CPUs' time busy over the last window (`/proc/stat`),
//! less the analysis's own CPU time (its process's, or its thread's). Linux only; elsewhere,
//! or when `/proc` cannot be read, the analysis runs at its idle priority as before.

use std::time::{Duration, Instant};

/// The window over which the machine's load is measured.
pub const WINDOW: Duration = Duration::from_millis(250);
/// The analysis pauses this long between games while the machine is busy.
pub const BUSY_PAUSE: Duration = Duration::from_secs(1);
/// Busy: everything but the analysis used more than this share of all CPUs' time.
pub const BUSY_SHARE: f64 = 0.75;

/// The machine's CPU time as `/proc/stat`'s first line counts it, in clock ticks: all of it,
/// and the idle part (idle and waiting for I/O).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub total: u64,
    pub idle: u64,
}

impl CpuTimes {
    /// The `cpu ` line of `/proc/stat` read: `None` when it is not one.
    pub fn parse(stat: &str) -> Option<CpuTimes> {
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        let v: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        if v.len() < 4 {
            return None;
        }
        // user nice system idle iowait irq softirq steal (guest time is inside user already).
        let total = v.iter().take(8).sum();
        let idle = v[3] + v.get(4).copied().unwrap_or(0);
        Some(CpuTimes { total, idle })
    }

    fn read() -> Option<CpuTimes> {
        CpuTimes::parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }
}

/// The CPU time (user and system, clock ticks) of a `/proc/PID/stat` line: `None` when it is
/// not one.
pub fn stat_ticks(stat: &str) -> Option<u64> {
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// The share of all CPUs' time that something other than the analysis used between `from` and
/// `to`, the analysis having used `own` ticks of it; `None` for an empty window.
pub fn others_share(from: CpuTimes, to: CpuTimes, own: u64) -> Option<f64> {
    let total = to.total.checked_sub(from.total).filter(|&t| t > 0)?;
    let idle = to.idle.saturating_sub(from.idle);
    let busy = total.saturating_sub(idle).saturating_sub(own);
    Some(busy as f64 / total as f64)
}

/// The analysis's gate: [`Gate::wait`] before each game.
pub struct Gate {
    last: Option<(Instant, CpuTimes, u64)>,
    busy: bool,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate::new()
    }
}

impl Gate {
    pub fn new() -> Gate {
        Gate {
            last: None,
            busy: false,
        }
    }

    /// Whether the last window found the machine busy.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Wait, when the machine is busy, [`BUSY_PAUSE`] (or until `stopping`). `own` is the
    /// analysis's CPU time so far, in clock ticks.
    pub fn wait(&mut self, own: u64, stopping: impl Fn() -> bool) {
        let now = Instant::now();
        if let Some((at, _, _)) = self.last {
            if now.duration_since(at) < WINDOW {
                return;
            }
        }
        let Some(times) = CpuTimes::read() else {
            return;
        };
        if let Some((_, from, own_from)) = self.last {
            let share = others_share(from, times, own.saturating_sub(own_from));
            self.busy = share.is_some_and(|s| s > BUSY_SHARE);
        }
        self.last = Some((now, times, own));
        if self.busy {
            let until = Instant::now() + BUSY_PAUSE;
            while Instant::now() < until && !stopping() {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_s_cpu_line_is_read() {
        let stat = "cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 50 2 25 400 10 0 1 1 0 0\nintr 1\n";
        let t = CpuTimes::parse(stat).unwrap();
        assert_eq!(t.total, 100 + 5 + 50 + 800 + 20 + 1 + 2 + 3);
        assert_eq!(t.idle, 820);
        assert_eq!(CpuTimes::parse("intr 1\n"), None);
        assert_eq!(CpuTimes::parse("cpu  1 x 3 4\n"), None);
    }

    #[test]
    fn a_process_s_ticks_are_counted_past_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 37 5 0 0 39 19 1 \
                    0 100 0 0";
        assert_eq!(stat_ticks(stat), Some(42));
        assert_eq!(stat_ticks("4242 (short"), None);
    }

    #[test]
    fn the_analysis_s_own_time_is_not_counted_as_the_machine_s_load() {
        let from = CpuTimes {
            total: 1000,
            idle: 500,
        };
        // 200 ticks over 2 CPUs: 40 idle, 160 busy, of which the analysis used 100.
        let to = CpuTimes {
            total: 1200,
            idle: 540,
        };
        assert_eq!(others_share(from, to, 100), Some(0.3));
        // The same window with the analysis idle: the others kept the CPUs busy.
        assert_eq!(others_share(from, to, 0), Some(0.8));
        assert!(others_share(from, to, 0).unwrap() > BUSY_SHARE);
        assert_eq!(others_share(from, from, 0), None, "an empty window");
    }

    #[test]
    fn a_machine_with_cpu_to_spare_is_not_busy_and_one_kept_busy_is() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut g = Gate::new();
        g.wait(0, || false);
        std::thread::sleep(WINDOW);
        let t = Instant::now();
        g.wait(0, || true);
        // Whatever else this machine runs now, a `stopping` gate returns at once.
        assert!(t.elapsed() < BUSY_PAUSE);
        // Keep every CPU busy from other threads for a window, then look.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..cores + 1)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        std::thread::sleep(WINDOW * 2);
        g.wait(0, || true);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for s in spinners {
            s.join().unwrap();
        }
        assert!(g.busy(), "every CPU spun for a window");
    }
}
