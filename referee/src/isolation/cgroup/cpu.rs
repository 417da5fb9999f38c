//! The CPU side of a bot's cgroup: a cpuset holding its table's CPUs and one CPU weight, the
//! same for every bot (issue 23). `sched_setaffinity` alone pins a table's bots only until a
//! child of theirs calls it again; the cpuset bounds whatever mask a process of the bot asks
//! for. And outside a cpu cgroup, each child that calls `setsid()` gets a scheduler share of
//! its own (autogroup), so a bot with 32 such children weighed 32 times another; in its own
//! cpu cgroup all of a bot's processes share the bot's one weight.
//!
//! A weight rather than a quota (`cpu.max`, `cfs_quota_us`): a quota stops a bot for the rest
//! of a period once it used its part, also on an idle CPU, which charges a bot's clock for
//! time it did not get; a weight takes nothing from a bot unless another one on its CPU wants
//! to run, and then divides the CPU evenly between the bots, not their processes.

use super::parse::{format_cpu_list, parse_cpu_list};
use std::path::{Path, PathBuf};

/// v1 `cpu.shares` and v2 `cpu.weight` of every bot: the kernel's default, written so that no
/// bot has another.
pub(super) const V1_SHARES: &str = "1024";
pub(super) const V2_WEIGHT: &str = "100";

/// Where the bots' cpusets are made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpusetBase {
    /// v1: the cpuset hierarchy's `.../durak-<pid>`; v2: the same as the memory one.
    pub dir: PathBuf,
    /// The CPUs it allows, the most a bot's cpuset may hold.
    pub cpus: Vec<usize>,
    /// v1: its memory nodes (`cpuset.mems`), which each bot's cpuset gets too (a v1 cpuset
    /// takes no process before its CPUs and nodes are set); v2: empty.
    pub mems: String,
}

/// Why a cpuset base cannot be made: a file of the hierarchy, what went wrong with it.
#[derive(Debug, thiserror::Error)]
pub(super) enum CpusetError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot set {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a list of CPUs: {text:?}", path.display())]
    NotCpus { path: PathBuf, text: String },
}

fn read(path: &Path) -> Result<String, CpusetError> {
    std::fs::read_to_string(path).map_err(|source| CpusetError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn write(path: &Path, value: &str) -> Result<(), CpusetError> {
    std::fs::write(path, value).map_err(|source| CpusetError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn cpus_of(path: &Path) -> Result<Vec<usize>, CpusetError> {
    let text = read(path)?;
    parse_cpu_list(&text)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| CpusetError::NotCpus {
            path: path.to_path_buf(),
            text: text.trim().to_string(),
        })
}

/// v1: the referee's `durak-<pid>` in the cpuset hierarchy, given its parent's CPUs and memory
/// nodes.
pub(super) fn v1_cpuset_base(dir: PathBuf) -> Result<CpusetBase, CpusetError> {
    let parent = dir.parent().unwrap_or(&dir).to_path_buf();
    let cpus = cpus_of(&parent.join("cpuset.cpus"))?;
    let mems = read(&parent.join("cpuset.mems"))?.trim().to_string();
    write(&dir.join("cpuset.cpus"), &format_cpu_list(&cpus))?;
    write(&dir.join("cpuset.mems"), &mems)?;
    Ok(CpusetBase { dir, cpus, mems })
}

/// v2: `durak-<pid>` with the cpuset controller enabled for its children; the CPUs it has.
pub(super) fn v2_cpuset_base(dir: PathBuf) -> Result<CpusetBase, CpusetError> {
    let cpus = cpus_of(&dir.join("cpuset.cpus.effective"))?;
    Ok(CpusetBase {
        dir,
        cpus,
        mems: String::new(),
    })
}

/// The CPUs a bot's cpuset gets: those of the thread that starts it (its table's, under
/// `--affinity auto`: the bot inherits that thread's mask) when they are fewer than the base
/// allows. `None` when the thread may use every CPU of the base: the bot's cpuset would add
/// nothing to the base's.
pub(super) fn table_cpus(base: &CpusetBase, thread: &[usize]) -> Option<Vec<usize>> {
    let cpus: Vec<usize> = thread
        .iter()
        .copied()
        .filter(|c| base.cpus.contains(c))
        .collect();
    (!cpus.is_empty() && cpus.len() < base.cpus.len()).then_some(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_gets_a_cpuset_only_when_its_table_has_fewer_cpus_than_the_base() {
        let base = CpusetBase {
            dir: PathBuf::from("/x"),
            cpus: vec![0, 1, 2, 3],
            mems: "0".into(),
        };
        assert_eq!(table_cpus(&base, &[2]), Some(vec![2]));
        assert_eq!(table_cpus(&base, &[1, 3]), Some(vec![1, 3]));
        // Affinity off: the thread may run anywhere the base allows.
        assert_eq!(table_cpus(&base, &[0, 1, 2, 3]), None);
        // CPUs outside the base are not the bot's to have.
        assert_eq!(table_cpus(&base, &[3, 9]), Some(vec![3]));
        assert_eq!(table_cpus(&base, &[9]), None);
        assert_eq!(table_cpus(&base, &[]), None);
    }

    /// A cpuset base that cannot be made says which file and why, as the notes of
    /// `cgroup::support` show it.
    #[test]
    fn a_cpuset_base_that_cannot_be_made_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("durak-1");
        std::fs::create_dir(&base).unwrap();
        let e = v2_cpuset_base(base.clone()).unwrap_err();
        assert!(matches!(e, CpusetError::Read { .. }), "{e:?}");
        let file = base.join("cpuset.cpus.effective");
        assert!(
            e.to_string()
                .starts_with(&format!("cannot read {}: ", file.display())),
            "{e}"
        );
        std::fs::write(&file, "\n").unwrap();
        let e = v2_cpuset_base(base).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: not a list of CPUs: \"\"", file.display())
        );
    }

    #[test]
    fn cpu_lists_parse_and_print() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list("1"), Some(vec![1]));
        assert_eq!(parse_cpu_list("\n"), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("a"), None);
        assert_eq!(format_cpu_list(&[0, 2, 3]), "0,2,3");
    }
}
