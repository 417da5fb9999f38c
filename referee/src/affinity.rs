//! CPU affinity for concurrent games: each table of a tournament can be given its own cores.
//!
//! A decision is a ping-pong between the referee and one bot over pipes. When two tables share
//! two cores freely, the kernel's wake-up placement often runs both ping-pongs on one core for a
//! while and leaves the other idle, and every wake-up that crosses cores costs an
//! inter-processor interrupt. Pinning table *i*'s referee thread, and so every bot process it
//! starts (a child inherits the mask of the thread that forks it), to group *i* of the allowed
//! CPUs removes both costs and gives each game the same share of the machine, which is also
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

/// Split `cpus` into `n` disjoint groups of equal size (the remainder is left out), or `None`
/// when there are fewer CPUs than groups: then tables cannot have cores of their own.
pub fn split(cpus: &[usize], n: usize) -> Option<Vec<Vec<usize>>> {
    if n == 0 || cpus.len() < n {
        return None;
    }
    let per = cpus.len() / n;
    Some(cpus.chunks(per).take(n).map(|c| c.to_vec()).collect())
}

/// One group of the allowed CPUs per table for `concurrency` tables at once (see [`split`]).
pub fn groups(concurrency: usize) -> Option<Vec<Vec<usize>>> {
    split(&allowed_cpus(), concurrency)
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
    fn split_gives_disjoint_equal_groups() {
        assert_eq!(split(&[0, 1], 2), Some(vec![vec![0], vec![1]]));
        assert_eq!(split(&[0, 1], 1), Some(vec![vec![0, 1]]));
        assert_eq!(
            split(&[0, 1, 2, 3, 4], 2),
            Some(vec![vec![0, 1], vec![2, 3]])
        );
        assert_eq!(split(&[3, 5, 7], 3), Some(vec![vec![3], vec![5], vec![7]]));
        assert_eq!(split(&[0, 1], 3), None);
        assert_eq!(split(&[0, 1], 0), None);
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
