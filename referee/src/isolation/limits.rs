//! Resource limits of a bot: what the organiser sets ([`ResourceLimits`]) and the rlimits they
//! become between fork and exec.

use super::prepare::{rlim, ChildSetup};
use super::{Context, Isolation};
use serde::{Deserialize, Serialize};

pub(crate) const MIB: u64 = 1024 * 1024;

/// Resource limits of a bot (inherited by everything it starts). `None`: not limited. Core
/// dumps are always off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResourceLimits {
    /// Memory of the bot, all its processes together (resident memory, page cache and tmpfs
    /// files it writes), in bytes (default 2 GiB): a memory cgroup per bot (cgroup v2
    /// `memory.max`, or v1 `memory.limit_in_bytes`). At the limit the kernel kills it: a
    /// `memory` fault. Where no memory cgroup can be used, an address-space limit stands in
    /// (see [`ResourceLimits::address_space`]).
    pub memory: Option<u64>,
    /// `RLIMIT_AS`: virtual address space of each process, in bytes. Not set by default: it
    /// counts what a runtime reserves (a JVM, Go, Node.js reserve far more than they use), not
    /// what it uses. Where no memory cgroup can be used, the limit is this, or when not set
    /// `memory` raised to at least 4 GiB.
    pub address_space: Option<u64>,
    /// `RLIMIT_CPU`: CPU seconds per game of the match (default 60). The limit of a process is
    /// this times the number of games of the match (a bot process lives for a whole match); at
    /// the limit it gets `SIGXCPU`, 2 seconds later `SIGKILL`: a `crash`.
    pub cpu_secs_per_game: Option<u64>,
    /// `RLIMIT_FSIZE`: largest file the bot may write, in bytes (default 64 MiB; beyond, `SIGXFSZ`).
    pub file_size: Option<u64>,
    /// `RLIMIT_NOFILE`: open file descriptors per process (default 256).
    pub open_files: Option<u64>,
    /// Processes and threads the bot may run at once (default 256): a pids cgroup per bot
    /// (`pids.max`), and `RLIMIT_NPROC` on top of what its user already runs.
    pub processes: Option<u64>,
    /// Strict mode: everything the bot can write, together (its private `/tmp`, a tmpfs in
    /// memory), in bytes (default 256 MiB).
    pub tmp_size: Option<u64>,
}

impl Default for ResourceLimits {
    fn default() -> ResourceLimits {
        ResourceLimits {
            memory: Some(2048 * MIB),
            address_space: None,
            cpu_secs_per_game: Some(60),
            file_size: Some(64 * MIB),
            open_files: Some(256),
            processes: Some(256),
            tmp_size: Some(256 * MIB),
        }
    }
}

/// A limit as text: `unlimited`, or the number with the largest exact unit (`2G`, `640K`, `60`).
pub fn format_limit(v: Option<u64>) -> String {
    match v {
        None => "unlimited".to_string(),
        Some(0) => "0".to_string(),
        Some(n) => {
            for (shift, unit) in [(30, "G"), (20, "M"), (10, "K")] {
                if n % (1 << shift) == 0 {
                    return format!("{}{unit}", n >> shift);
                }
            }
            n.to_string()
        }
    }
}

impl ResourceLimits {
    /// The keys of [`ResourceLimits::set`], in the order of [`ResourceLimits::entries`].
    pub const KEYS: [&'static str; 7] = [
        "memory",
        "address_space",
        "cpu_secs_per_game",
        "file_size",
        "open_files",
        "processes",
        "tmp_size",
    ];

    /// Every limit as `(key, value)`, the value as [`ResourceLimits::set`] reads it back
    /// (`2G`, `unlimited`): for configuration files and messages.
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        Self::KEYS
            .iter()
            .map(|&k| (k, format_limit(self.get(k).expect("a known key"))))
            .collect()
    }

    /// One limit by key (`None` for an unknown key; `Some(None)`: unlimited).
    pub fn get(&self, key: &str) -> Option<Option<u64>> {
        Some(match key {
            "memory" => self.memory,
            "address_space" => self.address_space,
            "cpu_secs_per_game" => self.cpu_secs_per_game,
            "file_size" => self.file_size,
            "open_files" => self.open_files,
            "processes" => self.processes,
            "tmp_size" => self.tmp_size,
            _ => return None,
        })
    }

    /// Set one limit from text: `KEY=VALUE`, the value a number with an optional `K`, `M` or `G`
    /// suffix (powers of 1024), or `unlimited`. For command lines and configuration files.
    pub fn set(&mut self, assignment: &str) -> Result<(), LimitError> {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| LimitError::NotAssignment {
                assignment: assignment.to_string(),
            })?;
        self.set_value(key.trim(), value.trim())
    }

    /// Set one limit: `key` one of [`ResourceLimits::KEYS`], `value` as in
    /// [`ResourceLimits::set`].
    pub fn set_value(&mut self, key: &str, value: &str) -> Result<(), LimitError> {
        let bad = |problem| LimitError::Value {
            key: key.to_string(),
            problem,
        };
        let parsed = if value == "unlimited" {
            None
        } else {
            let (digits, unit) = match value.char_indices().last() {
                Some((i, c)) if c.is_ascii_alphabetic() => (&value[..i], Some(c)),
                _ => (value, None),
            };
            let n: u64 = digits
                .parse()
                .map_err(|_| bad(BadValue::NotNumber(value.to_string())))?;
            let scale = match unit.map(|u| u.to_ascii_uppercase()) {
                None => 1,
                Some('K') => 1 << 10,
                Some('M') => 1 << 20,
                Some('G') => 1 << 30,
                Some(u) => return Err(bad(BadValue::UnknownUnit(u))),
            };
            Some(
                n.checked_mul(scale)
                    .ok_or_else(|| bad(BadValue::TooLarge(value.to_string())))?,
            )
        };
        let slot = match key {
            "memory" => &mut self.memory,
            "address_space" => &mut self.address_space,
            "cpu_secs_per_game" => &mut self.cpu_secs_per_game,
            "file_size" => &mut self.file_size,
            "open_files" => &mut self.open_files,
            "processes" => &mut self.processes,
            "tmp_size" => &mut self.tmp_size,
            _ => {
                return Err(LimitError::UnknownKey {
                    key: key.to_string(),
                })
            }
        };
        *slot = parsed;
        Ok(())
    }
}

/// Why a limit was refused ([`ResourceLimits::set`], [`ResourceLimits::set_value`]): the
/// message names the key and says what to write.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("{assignment:?}: write KEY=VALUE, e.g. memory=1G or processes=64")]
    NotAssignment { assignment: String },
    #[error("unknown limit {key:?}: the limits are {}", ResourceLimits::KEYS.join(", "))]
    UnknownKey { key: String },
    /// A known key with a value that does not read: `KEY: PROBLEM`.
    #[error("{key}: {problem}")]
    Value { key: String, problem: BadValue },
}

impl LimitError {
    /// The message without the key in front, for a caller that says where the key is itself
    /// (a configuration file's `limits.memory = ...`).
    pub fn reason(&self) -> String {
        match self {
            LimitError::Value { problem, .. } => problem.to_string(),
            other => other.to_string(),
        }
    }
}

/// What is wrong with a limit's value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadValue {
    #[error("{0:?} is not a number (with K, M or G) or `unlimited`")]
    NotNumber(String),
    #[error("unknown unit {0:?} (K, M or G)")]
    UnknownUnit(char),
    #[error("{0} is too large")]
    TooLarge(String),
}

/// The least address-space limit that stands in for `memory` where no memory cgroup can be used.
pub const FALLBACK_ADDRESS_SPACE: u64 = 4096 * MIB;

/// The limits to set between fork and exec.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildLimits {
    address_space: Option<u64>,
    cpu: Option<u64>,
    file_size: Option<u64>,
    open_files: Option<u64>,
    processes: Option<u64>,
    nproc_base: u64,
}

/// The rlimits of a bot. `memory_cgroup`: whether a memory cgroup holds `memory`; without one,
/// the address-space limit stands in for it (`address_space`, or `memory` raised to 4 GiB at
/// least: a runtime reserves more address space than it uses).
pub(crate) fn child_limits(iso: &Isolation, ctx: &Context, memory_cgroup: bool) -> ChildLimits {
    let l = &iso.limits;
    ChildLimits {
        address_space: if memory_cgroup {
            l.address_space
        } else {
            l.address_space
                .or(l.memory.map(|m| m.max(FALLBACK_ADDRESS_SPACE)))
        },
        cpu: l
            .cpu_secs_per_game
            .map(|s| s.saturating_mul(u64::from(ctx.games.max(1)))),
        file_size: l.file_size,
        open_files: l.open_files,
        processes: l.processes,
        nproc_base: 0,
    }
}

impl ChildLimits {
    pub(crate) fn with_nproc_base(mut self, base: u64) -> ChildLimits {
        self.nproc_base = base;
        self
    }

    pub(crate) fn setup(&self) -> ChildSetup {
        use rlim::Res;
        let same = |v: Option<u64>, r: Res| v.map(|v| (r, Some(v), Some(v)));
        ChildSetup {
            stdio_on_3_4: false,
            ids: None,
            done_flag: 0,
            drop_caps: false,
            keep_fd: -1,
            referee: rustix::process::getpid().as_raw_nonzero().get(),
            rlimits: [
                same(self.address_space, Res::As),
                self.cpu
                    .map(|c| (Res::Cpu, Some(c), Some(c.saturating_add(2)))),
                same(self.file_size, Res::Fsize),
                same(self.open_files, Res::Nofile),
                // RLIMIT_NPROC counts every task of the real uid: what it runs already, plus the
                // allowance. Root is not limited by it (the kernel exempts uid 0): skipped.
                self.processes
                    .filter(|_| self.nproc_base != u64::MAX)
                    .map(|p| {
                        let v = self.nproc_base.saturating_add(p);
                        (Res::Nproc, Some(v), Some(v))
                    }),
                Some((Res::Core, Some(0), Some(0))),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_from_text() {
        let mut l = ResourceLimits::default();
        l.set("address_space=2G").unwrap();
        l.set("processes = 64").unwrap();
        l.set("file_size=unlimited").unwrap();
        l.set("tmp_size=512M").unwrap();
        assert_eq!(l.address_space, Some(2 << 30));
        assert_eq!(l.processes, Some(64));
        assert_eq!(l.file_size, None);
        assert_eq!(l.tmp_size, Some(512 << 20));
        assert!(l
            .set("ram=1G")
            .unwrap_err()
            .to_string()
            .contains("address_space"));
        l.set("memory=1536M").unwrap();
        assert_eq!(l.memory, Some(1536 << 20));
        // What entries() prints, set() reads back.
        let mut again = ResourceLimits {
            memory: None,
            ..ResourceLimits::default()
        };
        for (k, v) in l.entries() {
            again.set_value(k, &v).unwrap();
        }
        assert_eq!(again, l);
        assert_eq!(format_limit(Some(1536 << 20)), "1536M");
        assert_eq!(format_limit(Some(3 << 30)), "3G");
        assert_eq!(format_limit(Some(1000)), "1000");
        assert_eq!(format_limit(None), "unlimited");
        let e = l.set("processes=lots").unwrap_err();
        assert_eq!(
            e.to_string(),
            "processes: \"lots\" is not a number (with K, M or G) or `unlimited`"
        );
        // Without the key, for a caller that names the key itself.
        assert_eq!(
            e.reason(),
            "\"lots\" is not a number (with K, M or G) or `unlimited`"
        );
        assert!(matches!(
            l.set("processes"),
            Err(LimitError::NotAssignment { .. })
        ));
        assert_eq!(
            l.set("open_files=3T").unwrap_err().reason(),
            "unknown unit 'T' (K, M or G)"
        );
    }
}
