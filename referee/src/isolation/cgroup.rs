//! A memory and pids cgroup per bot: the memory a bot really uses (all its processes together:
//! resident memory, page cache, the tmpfs files it writes) and the processes and threads it
//! runs, bounded by the kernel, whatever the runtime reserves. cgroup v2 (`memory.max`,
//! `pids.max`, `memory.oom.group`, `cgroup.kill`) and v1 (the `memory` and `pids` hierarchies:
//! `memory.limit_in_bytes`, `pids.max`) are both supported; where neither can be used (not
//! root, no delegated subtree, the controllers missing), [`support`] says why and the caller
//! falls back to an address-space limit.
//!
//! Layout: `<base>/durak-<referee pid>/bot-<n>`, where `<base>` is the referee's own cgroup
//! (v1) or its parent (v2, whose "no internal processes" rule forbids children with
//! controllers under a cgroup that holds processes). A referee killed by SIGKILL leaves empty
//! directories behind: the next referee removes those whose referee is gone.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
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
}

/// Whether per-bot cgroups can be used here, found once per process: `Err` says why not.
pub fn support() -> &'static Result<Support, String> {
    SUPPORT.get_or_init(|| {
        if std::env::var_os("DURAK_NO_CGROUP").is_some() {
            return Err("DURAK_NO_CGROUP is set".into());
        }
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let s = set_up(&mountinfo, &own, std::process::id())?;
        // SAFETY: registers a plain function to run at normal process exit.
        unsafe { libc::atexit(remove_own_base) };
        Ok(s)
    })
}

static SUPPORT: OnceLock<Result<Support, String>> = OnceLock::new();

/// At exit: the referee's `durak-<pid>` directories, if its bots' cgroups are gone.
extern "C" fn remove_own_base() {
    if let Some(Ok(s)) = SUPPORT.get() {
        let _ = std::fs::remove_dir(&s.memory);
        if s.pids != s.memory {
            let _ = std::fs::remove_dir(&s.pids);
        }
    }
}

/// Find the hierarchies, make this referee's directories (removing those of referees that are
/// gone), and check that a bot's cgroup can be made with its limits.
fn set_up(mountinfo: &str, own: &str, pid: u32) -> Result<Support, String> {
    let mounts = parse_mountinfo(mountinfo);
    let own = parse_own_cgroups(own);
    let mut why = Vec::new();
    // v2 first, where its controllers are available; then v1.
    if let Some(m) = mounts.iter().find(|m| m.fstype == "cgroup2") {
        match v2_base(m, &own) {
            Ok(parent) => match make_base(&parent, pid, Some("+memory +pids")) {
                Ok(dir) => {
                    return Ok(Support {
                        version: Version::V2,
                        memory: dir.clone(),
                        pids: dir,
                    })
                }
                Err(e) => why.push(format!("cgroup v2: {e}")),
            },
            Err(e) => why.push(format!("cgroup v2: {e}")),
        }
    }
    let v1 = |controller: &str| -> Result<PathBuf, String> {
        let m = mounts
            .iter()
            .find(|m| m.fstype == "cgroup" && m.options.iter().any(|o| o == controller))
            .ok_or_else(|| format!("no {controller} hierarchy is mounted"))?;
        let path = own
            .iter()
            .find(|(_, controllers, _)| controllers.iter().any(|c| c == controller))
            .map(|(_, _, p)| p.clone())
            .ok_or_else(|| format!("/proc/self/cgroup names no {controller} cgroup"))?;
        make_base(&m.join(&path), pid, None)
    };
    match (v1("memory"), v1("pids")) {
        (Ok(memory), Ok(pids)) => Ok(Support {
            version: Version::V1,
            memory,
            pids,
        }),
        (m, p) => {
            for e in [m.err(), p.err()].into_iter().flatten() {
                why.push(format!("cgroup v1: {e}"));
            }
            Err(why.join("; "))
        }
    }
}

/// One line of `/proc/self/mountinfo`, the fields used here.
#[derive(Debug)]
struct Mount {
    /// The part of the hierarchy mounted there.
    root: String,
    point: PathBuf,
    fstype: String,
    /// The superblock options (for cgroup v1: the controllers).
    options: Vec<String>,
}

impl Mount {
    /// The directory of cgroup `path` (as `/proc/self/cgroup` gives it) under this mount.
    fn join(&self, path: &str) -> PathBuf {
        let rel = path
            .strip_prefix(self.root.as_str())
            .filter(|_| self.root != "/")
            .unwrap_or(path);
        let rel = rel.trim_start_matches('/');
        if rel.is_empty() {
            self.point.clone()
        } else {
            self.point.join(rel)
        }
    }
}

/// `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS`
fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let left: Vec<&str> = left.split(' ').collect();
            let right: Vec<&str> = right.split(' ').collect();
            Some(Mount {
                root: unescape(left.get(3)?),
                point: PathBuf::from(unescape(left.get(4)?)),
                fstype: right.first()?.to_string(),
                options: right
                    .get(2)
                    .map(|o| o.split(',').map(String::from).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `/proc/self/cgroup`: `(hierarchy id, controllers, path)`; v2 is `0::/path`.
fn parse_own_cgroups(text: &str) -> Vec<(u32, Vec<String>, String)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ':');
            let id = it.next()?.parse().ok()?;
            let controllers = it
                .next()?
                .split(',')
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect();
            Some((id, controllers, it.next()?.to_string()))
        })
        .collect()
}

/// cgroup v2: the directory to make `durak-<pid>` in. Not the referee's own cgroup, which
/// holds processes (a cgroup with processes cannot give its children controllers), but its
/// parent, whose children have the controllers; the root cgroup may have both.
fn v2_base(m: &Mount, own: &[(u32, Vec<String>, String)]) -> Result<PathBuf, String> {
    let path = own
        .iter()
        .find(|(id, c, _)| *id == 0 && c.is_empty())
        .map(|(_, _, p)| p.clone())
        .ok_or("/proc/self/cgroup has no v2 line")?;
    let dir = m.join(&path);
    let controllers = std::fs::read_to_string(dir.join("cgroup.controllers"))
        .map_err(|e| format!("{}: {e}", dir.join("cgroup.controllers").display()))?;
    for c in ["memory", "pids"] {
        if !controllers.split_whitespace().any(|x| x == c) {
            return Err(format!(
                "the {c} controller is not available in {} (cgroup.controllers: {:?})",
                dir.display(),
                controllers.trim()
            ));
        }
    }
    if dir == m.point {
        return Ok(dir);
    }
    Ok(dir.parent().map(Path::to_path_buf).unwrap_or(dir))
}

/// Make `parent/durak-<pid>` (v2: with `enable` in its `cgroup.subtree_control`), after
/// removing the directories of referees that are gone. Checks that it is writable.
fn make_base(parent: &Path, pid: u32, enable: Option<&str>) -> Result<PathBuf, String> {
    sweep(parent);
    let dir = parent.join(format!("durak-{pid}"));
    match std::fs::create_dir(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot make {}: {e}", dir.display())),
    }
    if let Some(enable) = enable {
        std::fs::write(dir.join("cgroup.subtree_control"), enable).map_err(|e| {
            let _ = std::fs::remove_dir(&dir);
            format!(
                "cannot enable {enable:?} in {}: {e}",
                dir.join("cgroup.subtree_control").display()
            )
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

/// One bot's cgroup (both hierarchies in v1), removed when dropped.
#[derive(Debug)]
pub struct BotCgroup {
    pub version: Version,
    /// The memory cgroup (v2: the bot's one cgroup).
    memory_dir: PathBuf,
    /// v1: the pids cgroup; v2: none.
    pids_dir: Option<PathBuf>,
    /// The memory limit, for messages.
    pub memory_limit: Option<u64>,
}

impl BotCgroup {
    /// Make a bot's cgroup with its limits (`None`: not limited).
    pub fn create(
        s: &Support,
        memory: Option<u64>,
        processes: Option<u64>,
    ) -> io::Result<BotCgroup> {
        let name = format!("bot-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let memory_dir = s.memory.join(&name);
        let write = |dir: &Path, file: &str, value: &str| {
            std::fs::write(dir.join(file), value).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot set {}: {e}", dir.join(file).display()),
                )
            })
        };
        let value =
            |v: Option<u64>, unlimited: &str| v.map_or(unlimited.to_string(), |v| v.to_string());
        match s.version {
            Version::V2 => {
                std::fs::create_dir(&memory_dir)?;
                let cg = BotCgroup {
                    version: Version::V2,
                    memory_dir,
                    pids_dir: None,
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
                Ok(cg)
            }
            Version::V1 => {
                std::fs::create_dir(&memory_dir)?;
                let pids_dir = s.pids.join(&name);
                let mut cg = BotCgroup {
                    version: Version::V1,
                    memory_dir,
                    pids_dir: None,
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
        if let Some(p) = &self.pids_dir {
            let _ = remove_when_empty(p, 8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_and_own_cgroups_parse() {
        let mi = "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                  31 25 0:27 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n\
                  32 25 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n\
                  33 25 0:29 / /mnt/with\\040space rw shared:1 - tmpfs tmpfs rw\n";
        let m = parse_mountinfo(mi);
        assert_eq!(m.len(), 4);
        assert_eq!(m[0].fstype, "cgroup");
        assert!(m[0].options.contains(&"memory".to_string()));
        assert_eq!(m[2].fstype, "cgroup2");
        assert_eq!(m[3].point, PathBuf::from("/mnt/with space"));
        let own = parse_own_cgroups("4:memory:/a/b\n8:pids:/\n1:cpu,cpuacct:/x\n0::/user.slice\n");
        assert_eq!(own[0], (4, vec!["memory".to_string()], "/a/b".to_string()));
        assert_eq!(own[2].1, vec!["cpu".to_string(), "cpuacct".to_string()]);
        assert_eq!(own[3], (0, vec![], "/user.slice".to_string()));
        assert_eq!(
            m[0].join("/a/b"),
            PathBuf::from("/sys/fs/cgroup/memory/a/b")
        );
        assert_eq!(m[1].join("/"), PathBuf::from("/sys/fs/cgroup/pids"));
    }

    /// cgroup v2 on a fake tree (this machine's v2 has no controllers): the base is the
    /// referee's cgroup's parent, `durak-PID` gets the controllers, a bot's cgroup its limits,
    /// and what a referee that is gone left is removed.
    #[test]
    fn v2_layout_on_a_fake_tree() {
        let root = tempfile::tempdir().unwrap();
        let own = root.path().join("user.slice/session-1.scope");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(own.join("cgroup.controllers"), "cpu memory pids\n").unwrap();
        // What a referee that is gone left (its pid cannot be a running process's).
        let stale = root.path().join("user.slice/durak-4194999/bot-3");
        std::fs::create_dir_all(&stale).unwrap();
        let mi = format!(
            "32 25 0:28 / {} rw - cgroup2 cgroup2 rw\n",
            root.path().display()
        );
        // Plain directories cannot be removed while they hold files; a real cgroupfs can.
        let s = set_up(&mi, "0::/user.slice/session-1.scope\n", 77).unwrap();
        assert_eq!(s.version, Version::V2);
        assert_eq!(s.memory, root.path().join("user.slice/durak-77"));
        assert_eq!(
            std::fs::read_to_string(s.memory.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids"
        );
        assert!(!stale.exists(), "the stale bot cgroup is removed");
        std::fs::write(s.memory.join("bot-probe"), "").unwrap();
        std::fs::remove_file(s.memory.join("bot-probe")).unwrap();
        let cg = BotCgroup::create(&s, Some(64 << 20), Some(32)).unwrap();
        let d = cg.memory_dir.clone();
        assert_eq!(
            std::fs::read_to_string(d.join("memory.max")).unwrap(),
            "67108864"
        );
        assert_eq!(std::fs::read_to_string(d.join("pids.max")).unwrap(), "32");
        assert_eq!(
            cg.procs_files()[0].to_str().unwrap(),
            d.join("cgroup.procs").to_str().unwrap()
        );
        std::fs::write(
            d.join("memory.events"),
            "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n",
        )
        .unwrap();
        assert_eq!(cg.oom_kills(), 1);
        // Without the controllers, v2 is refused with the reason.
        std::fs::write(own.join("cgroup.controllers"), "cpu\n").unwrap();
        let e = set_up(&mi, "0::/user.slice/session-1.scope\n", 78).unwrap_err();
        assert!(e.contains("memory controller is not available"), "{e}");
    }

    /// cgroup v1 for real where it can be used (as root on this machine): a bot's cgroup gets
    /// its limits and goes when dropped.
    #[test]
    fn v1_or_v2_for_real_when_available() {
        let Ok(s) = support() else {
            eprintln!("note: no cgroup for bots here: {:?}", support());
            return;
        };
        let cg = BotCgroup::create(s, Some(100 << 20), Some(10)).unwrap();
        let dir = cg.memory_dir.clone();
        let file = match s.version {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        };
        let v: u64 = std::fs::read_to_string(dir.join(file))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(v, 100 << 20);
        assert_eq!(cg.oom_kills(), 0);
        drop(cg);
        assert!(!dir.exists(), "{} removed", dir.display());
    }
}
