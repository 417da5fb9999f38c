//! A memory and pids cgroup per bot: the memory a bot really uses (all its processes together:
//! resident memory, page cache, the tmpfs files it writes) and the processes and threads it
//! runs, bounded by the kernel, whatever the runtime reserves. cgroup v2 (`memory.max`,
//! `pids.max`, `memory.oom.group`, `cgroup.kill`) and v1 (the `memory` and `pids` hierarchies:
//! `memory.limit_in_bytes`, `pids.max`) are both supported; where neither can be used (not
//! root, no delegated subtree, the controllers missing), [`support`] says why and the caller
//! falls back to an address-space limit.
//!
//! Where the `cpuset` and `cpu` controllers can be used too (v2: enabled beside memory and pids;
//! v1: their hierarchies), a bot's cgroup also holds it to its table's CPUs and gives it one CPU
//! weight (`cpu.rs`); where not, [`Support::cpu_notes`] says why, and a table's CPU is kept by
//! `sched_setaffinity` only.
//!
//! Layout: `<base>/durak-<referee pid>/bot-<n>`, where `<base>` is the referee's own cgroup
//! (v1, in each hierarchy) or its parent (v2, whose "no internal processes" rule forbids
//! children with controllers under a cgroup that holds processes). A referee killed by SIGKILL
//! leaves empty directories behind: the next referee removes those whose referee is gone.

mod cpu;
mod error;
mod parse;

pub use cpu::CpusetBase;
pub use error::{BaseError, SupportError};
use parse::{format_cpu_list, parse_mountinfo, parse_own_cgroups, Mount};

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The cgroup version in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

/// Where this referee makes its bots' cgroups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    pub version: Version,
    /// The directory bots' cgroups are made in (v2: one for both controllers; v1: the memory
    /// hierarchy's), `.../durak-<pid>`.
    pub memory: PathBuf,
    /// v1: the pids hierarchy's `.../durak-<pid>`; v2: the same as `memory`.
    pub pids: PathBuf,
    /// Where bots get the cpuset of their table's CPUs; `None`: see `cpu_notes`.
    pub cpuset: Option<CpusetBase>,
    /// Where bots get their CPU weight (v1: the cpu hierarchy's `.../durak-<pid>`; v2: the same
    /// as `memory`); `None`: see `cpu_notes`.
    pub cpu: Option<PathBuf>,
    /// Why bots get no cpuset or no CPU weight here (empty when they get both).
    pub cpu_notes: Vec<String>,
}

/// Whether per-bot cgroups can be used here, found once per process: `Err` says why not.
pub fn support() -> &'static Result<Support, SupportError> {
    SUPPORT.get_or_init(|| {
        if std::env::var_os("DURAK_NO_CGROUP").is_some() {
            return Err(SupportError::Disabled);
        }
        let read = |file: &'static str| {
            std::fs::read_to_string(file).map_err(|e| SupportError::Unreadable {
                file,
                source: Arc::new(e),
            })
        };
        let mountinfo = read("/proc/self/mountinfo")?;
        let own = read("/proc/self/cgroup")?;
        let s = set_up(&mountinfo, &own, std::process::id())?;
        // SAFETY: registers a plain function to run at normal process exit.
        unsafe { libc::atexit(remove_own_base) };
        Ok(s)
    })
}

static SUPPORT: OnceLock<Result<Support, SupportError>> = OnceLock::new();

/// At exit: the referee's `durak-<pid>` directories, if its bots' cgroups are gone.
extern "C" fn remove_own_base() {
    if let Some(Ok(s)) = SUPPORT.get() {
        let cpuset = s.cpuset.as_ref().map(|c| &c.dir);
        for d in [Some(&s.pids), cpuset, s.cpu.as_ref()]
            .into_iter()
            .flatten()
        {
            if *d != s.memory {
                let _ = std::fs::remove_dir(d);
            }
        }
        let _ = std::fs::remove_dir(&s.memory);
    }
}

/// Find the hierarchies, make this referee's directories (removing those of referees that are
/// gone), and check that a bot's cgroup can be made with its limits.
fn set_up(mountinfo: &str, own: &str, pid: u32) -> Result<Support, SupportError> {
    let mounts = parse_mountinfo(mountinfo);
    let own = parse_own_cgroups(own);
    let mut why = Vec::new();
    // v2 first, where its controllers are available; then v1.
    if let Some(m) = mounts.iter().find(|m| m.fstype == "cgroup2") {
        match v2_base(m, &own) {
            Ok((parent, controllers)) => match v2_make_base(&parent, pid, &controllers) {
                Ok(s) => return Ok(s),
                Err(e) => why.push((Version::V2, e)),
            },
            Err(e) => why.push((Version::V2, e)),
        }
    }
    let v1 = |controller: &str| -> Result<PathBuf, BaseError> {
        let m = mounts
            .iter()
            .find(|m| m.fstype == "cgroup" && m.options.iter().any(|o| o == controller))
            .ok_or_else(|| BaseError::NoHierarchy {
                controller: controller.to_string(),
            })?;
        let path = own
            .iter()
            .find(|(_, controllers, _)| controllers.iter().any(|c| c == controller))
            .map(|(_, _, p)| p.clone())
            .ok_or_else(|| BaseError::NotListed {
                controller: controller.to_string(),
            })?;
        make_base(&m.join(&path), pid, None)
    };
    match (v1("memory"), v1("pids")) {
        (Ok(memory), Ok(pids)) => {
            let mut cpu_notes = Vec::new();
            let cpuset = v1("cpuset")
                .map_err(|e| e.to_string())
                .and_then(|dir| {
                    cpu::v1_cpuset_base(dir.clone()).map_err(|e| {
                        let _ = std::fs::remove_dir(&dir);
                        e.to_string()
                    })
                })
                .map_err(|e| cpu_notes.push(format!("no cpuset per bot (cgroup v1: {e})")))
                .ok();
            let cpu = v1("cpu")
                .map_err(|e| cpu_notes.push(format!("no CPU weight per bot (cgroup v1: {e})")))
                .ok();
            Ok(Support {
                version: Version::V1,
                memory,
                pids,
                cpuset,
                cpu,
                cpu_notes,
            })
        }
        (m, p) => {
            for e in [m.err(), p.err()].into_iter().flatten() {
                why.push((Version::V1, e));
            }
            Err(SupportError::Unusable(why))
        }
    }
}

/// cgroup v2: the directory to make `durak-<pid>` in. Not the referee's own cgroup, which
/// holds processes (a cgroup with processes cannot give its children controllers), but its
/// parent, whose children have the controllers; the root cgroup may have both.
fn v2_base(m: &Mount, own: &[(u32, Vec<String>, String)]) -> Result<(PathBuf, String), BaseError> {
    let path = own
        .iter()
        .find(|(id, c, _)| *id == 0 && c.is_empty())
        .map(|(_, _, p)| p.clone())
        .ok_or(BaseError::NoV2Line)?;
    let dir = m.join(&path);
    let file = dir.join("cgroup.controllers");
    let controllers = std::fs::read_to_string(&file).map_err(|e| BaseError::Read {
        file,
        source: Arc::new(e),
    })?;
    for controller in ["memory", "pids"] {
        if !controllers.split_whitespace().any(|x| x == controller) {
            return Err(BaseError::Unavailable {
                controller,
                dir,
                controllers: controllers.trim().to_string(),
            });
        }
    }
    if dir == m.point {
        return Ok((dir, controllers));
    }
    Ok((
        dir.parent().map(Path::to_path_buf).unwrap_or(dir),
        controllers,
    ))
}

/// cgroup v2: `parent/durak-<pid>` with memory and pids for its children, and cpuset and cpu
/// where `controllers` (what the referee's cgroup may have) offers them and they can be
/// enabled.
fn v2_make_base(parent: &Path, pid: u32, controllers: &str) -> Result<Support, BaseError> {
    let offered = |c: &str| controllers.split_whitespace().any(|x| x == c);
    let extra: Vec<&str> = ["cpu", "cpuset"]
        .into_iter()
        .filter(|c| offered(c))
        .collect();
    let mut cpu_notes = Vec::new();
    let mut enabled = Vec::new();
    let dir = if extra.is_empty() {
        make_base(parent, pid, Some("+memory +pids"))?
    } else {
        let all = format!(
            "+memory +pids {}",
            extra
                .iter()
                .map(|c| format!("+{c}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        match make_base(parent, pid, Some(&all)) {
            Ok(dir) => {
                enabled = extra.clone();
                dir
            }
            Err(e) => {
                cpu_notes.push(format!("cgroup v2: {e}"));
                make_base(parent, pid, Some("+memory +pids"))?
            }
        }
    };
    for c in ["cpu", "cpuset"] {
        if !offered(c) {
            cpu_notes.push(format!(
                "cgroup v2: the {c} controller is not available (cgroup.controllers: {:?})",
                controllers.trim()
            ));
        }
    }
    let cpuset = if enabled.contains(&"cpuset") {
        cpu::v2_cpuset_base(dir.clone())
            .map_err(|e| cpu_notes.push(format!("no cpuset per bot (cgroup v2: {e})")))
            .ok()
    } else {
        None
    };
    Ok(Support {
        version: Version::V2,
        memory: dir.clone(),
        pids: dir.clone(),
        cpuset,
        cpu: enabled.contains(&"cpu").then_some(dir),
        cpu_notes,
    })
}

/// Make `parent/durak-<pid>` (v2: with `enable` in its `cgroup.subtree_control`), after
/// removing the directories of referees that are gone. Checks that it is writable.
fn make_base(parent: &Path, pid: u32, enable: Option<&str>) -> Result<PathBuf, BaseError> {
    sweep(parent);
    let dir = parent.join(format!("durak-{pid}"));
    match std::fs::create_dir(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(BaseError::Make {
                dir,
                source: Arc::new(e),
            })
        }
    }
    if let Some(enable) = enable {
        let file = dir.join("cgroup.subtree_control");
        std::fs::write(&file, enable).map_err(|e| {
            let _ = std::fs::remove_dir(&dir);
            BaseError::Enable {
                enable: enable.to_string(),
                file,
                source: Arc::new(e),
            }
        })?;
    }
    Ok(dir)
}

/// Remove what referees that are gone left in `parent`: `durak-<pid>` directories whose pid
/// runs no process, with the bots' cgroups in them (emptied first: a bot's process that
/// somehow outlived its referee is killed).
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("durak-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || super::procfs::alive(pid) {
            continue;
        }
        let dir = e.path();
        if let Ok(bots) = std::fs::read_dir(&dir) {
            for b in bots.flatten().filter(|b| b.path().is_dir()) {
                kill_members(&b.path());
                let _ = remove_when_empty(&b.path(), 20);
            }
        }
        let _ = std::fs::remove_dir(&dir);
    }
}

/// SIGKILL every process of the cgroup at `dir` (`cgroup.procs`), until none is left or a
/// few rounds have passed.
fn kill_members(dir: &Path) {
    for _ in 0..50 {
        let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) else {
            return;
        };
        let pids: Vec<i32> = procs
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        if pids.is_empty() {
            return;
        }
        for p in pids {
            if let Some(p) = rustix::process::Pid::from_raw(p) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// `rmdir`, retried while the cgroup still holds processes that are exiting.
fn remove_when_empty(dir: &Path, tries: u32) -> io::Result<()> {
    let mut last = Ok(());
    for i in 0..tries {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => last = Err(e),
        }
        std::thread::sleep(Duration::from_millis(1 << i.min(5)));
    }
    last
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// One bot's cgroup (one per hierarchy in v1), removed when dropped.
#[derive(Debug)]
pub struct BotCgroup {
    pub version: Version,
    /// The memory cgroup (v2: the bot's one cgroup).
    memory_dir: PathBuf,
    /// v1: the pids cgroup; v2: none.
    pids_dir: Option<PathBuf>,
    /// v1: the cpuset cgroup, when the bot's table has CPUs of its own; v2: none.
    cpuset_dir: Option<PathBuf>,
    /// v1: the cpu cgroup (its weight); v2: none.
    cpu_dir: Option<PathBuf>,
    /// The CPUs the bot is held to, when its cpuset holds fewer than all.
    pub cpus: Option<Vec<usize>>,
    /// The memory limit, for messages.
    pub memory_limit: Option<u64>,
}

/// Write `value` into the cgroup file `dir/file`; the error names the file.
fn write(dir: &Path, file: &str, value: &str) -> io::Result<()> {
    std::fs::write(dir.join(file), value).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot set {}: {e}", dir.join(file).display()),
        )
    })
}

impl BotCgroup {
    /// Make a bot's cgroup with its limits (`None`: not limited). `thread_cpus`: the CPUs of
    /// the thread that starts the bot (`affinity::allowed_cpus`); when they are fewer than the
    /// referee's cpuset allows (a table pinned to its CPUs), the bot's cpuset holds only them.
    pub fn create(
        s: &Support,
        memory: Option<u64>,
        processes: Option<u64>,
        thread_cpus: &[usize],
    ) -> io::Result<BotCgroup> {
        let name = format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let memory_dir = s.memory.join(&name);
        let value =
            |v: Option<u64>, unlimited: &str| v.map_or(unlimited.to_string(), |v| v.to_string());
        let cpus = s
            .cpuset
            .as_ref()
            .and_then(|base| cpu::table_cpus(base, thread_cpus));
        match s.version {
            Version::V2 => {
                std::fs::create_dir(&memory_dir)?;
                let cg = BotCgroup {
                    version: Version::V2,
                    memory_dir,
                    pids_dir: None,
                    cpuset_dir: None,
                    cpu_dir: None,
                    cpus: cpus.clone(),
                    memory_limit: memory,
                };
                let d = &cg.memory_dir;
                write(d, "memory.max", &value(memory, "max"))?;
                // No swap: the limit is memory, and a swapping bot would only be slow.
                if d.join("memory.swap.max").exists() {
                    write(d, "memory.swap.max", "0")?;
                }
                // At the limit the whole bot goes, not one of its processes.
                if d.join("memory.oom.group").exists() {
                    write(d, "memory.oom.group", "1")?;
                }
                write(d, "pids.max", &value(processes, "max"))?;
                if let Some(cpus) = &cpus {
                    write(d, "cpuset.cpus", &format_cpu_list(cpus))?;
                }
                if s.cpu.is_some() {
                    write(d, "cpu.weight", cpu::V2_WEIGHT)?;
                }
                Ok(cg)
            }
            Version::V1 => {
                std::fs::create_dir(&memory_dir)?;
                let pids_dir = s.pids.join(&name);
                let mut cg = BotCgroup {
                    version: Version::V1,
                    memory_dir,
                    pids_dir: None,
                    cpuset_dir: None,
                    cpu_dir: None,
                    cpus: None,
                    memory_limit: memory,
                };
                let d = cg.memory_dir.clone();
                write(&d, "memory.limit_in_bytes", &value(memory, "-1"))?;
                if d.join("memory.memsw.limit_in_bytes").exists() {
                    write(&d, "memory.memsw.limit_in_bytes", &value(memory, "-1"))?;
                }
                std::fs::create_dir(&pids_dir)?;
                cg.pids_dir = Some(pids_dir.clone());
                write(&pids_dir, "pids.max", &value(processes, "max"))?;
                if let (Some(base), Some(cpus)) = (&s.cpuset, &cpus) {
                    let dir = base.dir.join(&name);
                    std::fs::create_dir(&dir)?;
                    cg.cpuset_dir = Some(dir.clone());
                    write(&dir, "cpuset.mems", &base.mems)?;
                    write(&dir, "cpuset.cpus", &format_cpu_list(cpus))?;
                    cg.cpus = Some(cpus.clone());
                }
                if let Some(base) = &s.cpu {
                    let dir = base.join(&name);
                    std::fs::create_dir(&dir)?;
                    cg.cpu_dir = Some(dir.clone());
                    write(&dir, "cpu.shares", cpu::V1_SHARES)?;
                }
                Ok(cg)
            }
        }
    }

    /// What a sandbox shows of the cgroups, read-only: (where, which directory). v2: the bot's
    /// cgroup at `/sys/fs/cgroup`; v1: its memory and pids cgroups at their usual mount points,
    /// and the hierarchies a JVM also wants (cpu, cpuacct, cpuset) as they are mounted here.
    pub fn views(&self) -> Vec<(PathBuf, PathBuf)> {
        let base = Path::new("/sys/fs/cgroup");
        match self.version {
            Version::V2 => vec![(base.to_path_buf(), self.memory_dir.clone())],
            Version::V1 => {
                let mut v = vec![(base.join("memory"), self.memory_dir.clone())];
                if let Some(p) = &self.pids_dir {
                    v.push((base.join("pids"), p.clone()));
                }
                // `cpu` is often a symlink to `cpu,cpuacct`: the real mount point is shown.
                for c in ["cpu", "cpuacct", "cpuset"] {
                    if let Ok(real) = base.join(c).canonicalize() {
                        if real.starts_with(base)
                            && real.is_dir()
                            && !v.iter().any(|(a, _)| *a == real)
                        {
                            v.push((real.clone(), real));
                        }
                    }
                }
                v
            }
        }
    }

    /// The `cgroup.procs` files a process writes `0` to, to join the bot's cgroup(s).
    pub fn procs_files(&self) -> Vec<CString> {
        std::iter::once(&self.memory_dir)
            .chain(self.pids_dir.as_ref())
            .chain(self.cpuset_dir.as_ref())
            .chain(self.cpu_dir.as_ref())
            .filter_map(|d| CString::new(d.join("cgroup.procs").as_os_str().as_bytes()).ok())
            .collect()
    }

    /// How many times the kernel killed a process of the bot for memory.
    pub fn oom_kills(&self) -> u64 {
        let (file, key) = match self.version {
            Version::V2 => ("memory.events", "oom_kill"),
            Version::V1 => ("memory.oom_control", "oom_kill"),
        };
        std::fs::read_to_string(self.memory_dir.join(file))
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    let (k, v) = l.split_once(' ')?;
                    (k == key).then(|| v.trim().parse().ok()).flatten()
                })
            })
            .unwrap_or(0)
    }

    /// How many times a fork of the bot was refused for its process limit (`pids.events`,
    /// `max N`): a fork bomb meets it. 0 when the kernel does not say.
    pub fn process_limit_hits(&self) -> u64 {
        let dir = self.pids_dir.as_ref().unwrap_or(&self.memory_dir);
        std::fs::read_to_string(dir.join("pids.events"))
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    let (k, v) = l.split_once(' ')?;
                    (k == "max").then(|| v.trim().parse().ok()).flatten()
                })
            })
            .unwrap_or(0)
    }

    /// The most memory the bot used at once, in bytes (v2 `memory.peak`, v1
    /// `memory.max_usage_in_bytes`), when the kernel says.
    pub fn peak_memory(&self) -> Option<u64> {
        let file = match self.version {
            Version::V2 => "memory.peak",
            Version::V1 => "memory.max_usage_in_bytes",
        };
        std::fs::read_to_string(self.memory_dir.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// SIGKILL everything in the bot's cgroup: every process it started, in any session,
    /// also after its supervisor is gone (v2: `cgroup.kill`).
    pub fn kill_all(&self) {
        if self.version == Version::V2
            && std::fs::write(self.memory_dir.join("cgroup.kill"), "1").is_ok()
        {
            return;
        }
        kill_members(&self.memory_dir);
    }

    /// Whether a process is still in the bot's cgroup.
    pub fn populated(&self) -> bool {
        std::fs::read_to_string(self.memory_dir.join("cgroup.procs"))
            .map(|p| !p.trim().is_empty())
            .unwrap_or(false)
    }
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        // The bot is gone by now (its supervisor was reaped); whatever is left is killed.
        if self.populated() {
            self.kill_all();
        }
        let _ = remove_when_empty(&self.memory_dir, 8);
        for d in [&self.pids_dir, &self.cpuset_dir, &self.cpu_dir]
            .into_iter()
            .flatten()
        {
            let _ = remove_when_empty(d, 8);
        }
    }
}

#[cfg(test)]
mod tests;
