//! CPU affinity: each table of games runs on one CPU, its referee thread and its bots together.
//!
//! A decision is a ping-pong between the referee and one bot over pipes. When the two sides of
//! a ping-pong run on different CPUs, every wake-up crosses CPUs (an inter-processor interrupt,
//! a cold cache): measured here, a referee round trip costs 11 times a pipe echo across two
//! vCPUs and 2.2 times on one. So a table's referee thread, and every bot process it starts (a
//! child inherits the mask of the thread that forks it), share one CPU, whatever the
//! concurrency: table *i* of those playing at once gets CPU *i* (round robin when there are more
//! tables than CPUs). Tables on CPUs of their own also cannot disturb each other, which is
//! fairer to the bots (fastchess's `-use-affinity` does the same for chess engines).

use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
use std::io;

/// The CPUs this process may run on, in increasing order (empty if they cannot be read).
pub fn allowed_cpus() -> Vec<usize> {
    match sched_getaffinity(None) {
        Ok(set) => (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
        Err(_) => Vec::new(),
    }
}

/// One CPU for each of `n` slots: slot *i* gets `cpus[i % cpus.len()]` (tables share CPUs only
/// when there are more of them than CPUs). `None` without CPUs or slots.
pub fn assign(cpus: &[usize], n: usize) -> Option<Vec<Vec<usize>>> {
    if n == 0 || cpus.is_empty() {
        return None;
    }
    Some((0..n).map(|i| vec![cpus[i % cpus.len()]]).collect())
}

/// One CPU per table for `concurrency` tables at once (see [`assign`]).
pub fn groups(concurrency: usize) -> Option<Vec<Vec<usize>>> {
    assign(&allowed_cpus(), concurrency)
}

/// The CPU the calling thread runs on now (where the kernel put it), if it is an allowed one.
pub fn current_cpu() -> Option<usize> {
    let cpu = rustix::thread::sched_getcpu();
    allowed_cpus().contains(&cpu).then_some(cpu)
}

/// For one match at a time (`durak play`, `durak check-bot`): pin the calling thread, and so
/// the bots it starts, to the CPU it runs on. Returns that CPU, or `None` when it cannot be
/// done (nothing changes then).
pub fn pin_to_current_cpu() -> Option<usize> {
    let cpu = current_cpu()?;
    pin_current_thread(&[cpu]).ok().map(|_| cpu)
}

/// Restrict the calling thread, and every thread and process it starts from now on, to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> io::Result<()> {
    let mut set = CpuSet::new();
    for &c in cpus {
        if c >= CpuSet::MAX_CPU {
            return Err(io::Error::other(format!("no such CPU: {c}")));
        }
        set.set(c);
    }
    sched_setaffinity(None, &set).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_slot_gets_one_cpu_round_robin() {
        assert_eq!(assign(&[0, 1], 2), Some(vec![vec![0], vec![1]]));
        assert_eq!(assign(&[0, 1], 1), Some(vec![vec![0]]));
        assert_eq!(
            assign(&[2, 5], 5),
            Some(vec![vec![2], vec![5], vec![2], vec![5], vec![2]])
        );
        assert_eq!(assign(&[3, 5, 7], 2), Some(vec![vec![3], vec![5]]));
        assert_eq!(assign(&[], 3), None);
        assert_eq!(assign(&[0, 1], 0), None);
    }

    #[test]
    fn a_pinned_thread_and_its_children_stay_on_their_cpus() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty(), "the allowed CPUs can be read");
        let last = *cpus.last().unwrap();
        std::thread::spawn(move || {
            pin_current_thread(&[last]).expect("pin");
            assert_eq!(allowed_cpus(), vec![last]);
            // A child process inherits the mask: taskset-free check through /proc.
            let out = std::process::Command::new("sh")
                .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
                .output()
                .expect("sh runs");
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                text.trim().rsplit('\t').next(),
                Some(last.to_string().as_str()),
                "{text}"
            );
        })
        .join()
        .unwrap();
        // Other threads are not affected.
        assert_eq!(allowed_cpus(), cpus);
        assert!(pin_current_thread(&[CpuSet::MAX_CPU]).is_err());
    }
}
