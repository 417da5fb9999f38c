//! How a bot process is isolated. `docs/SECURITY.md` says what each mode guarantees and what it
//! does not; this module is the mechanism.
//!
//! **Default mode**, for every bot: a fresh private working directory (unless configured), the
//! environment cleared except `PATH`, `LANG` and `HOME` (inside the private directory), no file
//! descriptor beyond stdin, stdout and stderr, resource limits ([`ResourceLimits`]), and a
//! *supervisor*: the referee's direct child is a small forked copy of the referee that does
//! nothing but wait. It is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so every process the bot
//! starts stays below it even after `setsid` or a double fork; when the bot's main process ends
//! (or the referee kills it), the supervisor kills every remaining descendant, reaps them, and
//! exits with the bot's own status. When the referee dies, even by SIGKILL, it is told
//! (`PR_SET_PDEATHSIG`, SIGUSR1) and does the same before exiting.
//!
//! **Strict mode** (`--sandbox strict`): the same, and the bot runs inside bubblewrap: new user,
//! pid, network, IPC, UTS and cgroup namespaces, a read-only system, only its own directory
//! visible (read-only), a private `/tmp`; as root, under its own unprivileged uid.
//!
//! The code that runs between `fork` and `exec` uses system calls only (rustix, and libc for
//! `fork`, signal masks and handlers, `_exit`): no allocation, no lock, no panic.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The isolation mode of a bot process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sandbox {
    /// Process isolation without privileges or extra software (see the module documentation).
    #[default]
    Default,
    /// Bubblewrap: namespaces, a read-only system, no network.
    Strict,
}

impl Sandbox {
    pub fn name(self) -> &'static str {
        match self {
            Sandbox::Default => "default",
            Sandbox::Strict => "strict",
        }
    }
}

impl std::fmt::Display for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Sandbox {
    type Err = String;
    fn from_str(s: &str) -> Result<Sandbox, String> {
        match s {
            "default" => Ok(Sandbox::Default),
            "strict" => Ok(Sandbox::Strict),
            _ => Err(format!(
                "unknown sandbox {s:?}: choose \"default\" or \"strict\""
            )),
        }
    }
}

const MIB: u64 = 1024 * 1024;

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
    pub fn set(&mut self, assignment: &str) -> Result<(), String> {
        let (key, value) = assignment.split_once('=').ok_or_else(|| {
            format!("{assignment:?}: write KEY=VALUE, e.g. memory=1G or processes=64")
        })?;
        self.set_value(key.trim(), value.trim())
    }

    /// Set one limit: `key` one of [`ResourceLimits::KEYS`], `value` as in
    /// [`ResourceLimits::set`].
    pub fn set_value(&mut self, key: &str, value: &str) -> Result<(), String> {
        let parsed = if value == "unlimited" {
            None
        } else {
            let (digits, unit) = match value.char_indices().last() {
                Some((i, c)) if c.is_ascii_alphabetic() => (&value[..i], Some(c)),
                _ => (value, None),
            };
            let n: u64 = digits.parse().map_err(|_| {
                format!("{key}: {value:?} is not a number (with K, M or G) or `unlimited`")
            })?;
            let scale = match unit.map(|u| u.to_ascii_uppercase()) {
                None => 1,
                Some('K') => 1 << 10,
                Some('M') => 1 << 20,
                Some('G') => 1 << 30,
                Some(u) => return Err(format!("{key}: unknown unit {u:?} (K, M or G)")),
            };
            Some(
                n.checked_mul(scale)
                    .ok_or_else(|| format!("{key}: {value} is too large"))?,
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
                return Err(format!(
                    "unknown limit {key:?}: the limits are {}",
                    Self::KEYS.join(", ")
                ))
            }
        };
        *slot = parsed;
        Ok(())
    }
}

/// How one bot is isolated: the mode and its resource limits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Isolation {
    pub sandbox: Sandbox,
    pub limits: ResourceLimits,
}

/// Where a bot is started from: what the referee knows beyond the command.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Games in the match (scales the CPU limit).
    pub games: u32,
    /// Paths the bot must not see (the replay directory and its parent): in strict mode they are
    /// left out of any directory made visible to the bot.
    pub hidden: Vec<PathBuf>,
}

/// The `PATH` inside the strict sandbox.
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// First uid (and gid) of the range strict mode gives bots when the referee runs as root; one
/// per concurrent bot.
pub const SANDBOX_UID_BASE: u32 = 61000;
/// Size of that range.
pub const SANDBOX_UID_COUNT: u32 = 4000;

/// The message when bubblewrap is missing.
pub const BWRAP_MISSING: &str = "--sandbox strict needs bubblewrap (the `bwrap` program), which \
    is not installed: install it with `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install \
    bubblewrap` (Fedora) or `pacman -S bubblewrap` (Arch)";

/// A command ready to spawn: program, arguments, directory, environment, credentials, limits.
pub(crate) struct Prepared {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    /// uid and gid to switch to before exec (strict mode as root).
    pub ids: Option<(u32, u32)>,
    pub child: ChildSetup,
    pub strict: bool,
    /// Kept for the life of the process; removed after.
    pub private_dir: Option<tempfile::TempDir>,
    /// How the supervisor removes the private directory if the referee dies first.
    pub cleanup: Option<std::sync::Arc<Cleanup>>,
    pub uid_lease: Option<UidLease>,
}

/// `rm -rf --one-file-system DIR`, ready for `execv` (built before the fork: no allocation
/// after it). The supervisor runs it when the referee died before it could remove the bot's
/// private directory.
pub(crate) struct Cleanup {
    _argv: Vec<std::ffi::CString>,
    ptrs: Vec<*const libc::c_char>,
}

// SAFETY: the pointers point into `_argv`, owned and never changed; only read after a fork.
unsafe impl Send for Cleanup {}
unsafe impl Sync for Cleanup {}

impl Cleanup {
    fn new(dir: &Path) -> Option<Cleanup> {
        use std::os::unix::ffi::OsStrExt;
        let rm = ["/usr/bin/rm", "/bin/rm"]
            .into_iter()
            .find(|p| Path::new(p).is_file())?;
        let argv: Vec<std::ffi::CString> = [
            rm.as_bytes(),
            b"-rf",
            b"--one-file-system",
            b"--",
            dir.as_os_str().as_bytes(),
        ]
        .into_iter()
        .map(|a| std::ffi::CString::new(a).ok())
        .collect::<Option<_>>()?;
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        Some(Cleanup { _argv: argv, ptrs })
    }
}

/// What the code between fork and exec needs: plain values only.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildSetup {
    /// The referee's pid: the supervisor checks it is still its parent.
    pub referee: i32,
    pub rlimits: [Option<RlimitSpec>; 6],
    /// Strict mode: move the bot's stdin and stdout to descriptors 3 and 4 and give bubblewrap
    /// /dev/null instead. bubblewrap's own processes keep 0, 1 and 2 open for the life of the
    /// sandbox (and close the others), so a bot closing its stdout would never be seen; the
    /// shim at the start of the sandboxed command moves 3 and 4 back to 0 and 1.
    pub stdio_on_3_4: bool,
}

/// One limit to set: the resource, its soft and hard values (`None`: unlimited).
pub(crate) type RlimitSpec = (rlim::Res, Option<u64>, Option<u64>);

/// The rlimit resources we set (a Copy mirror of rustix's enum).
pub(crate) mod rlim {
    #[derive(Clone, Copy, Debug)]
    pub enum Res {
        As,
        Cpu,
        Fsize,
        Nofile,
        Nproc,
        Core,
    }
}

fn lang_env() -> (OsString, OsString) {
    let lang = std::env::var_os("LANG")
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "C.UTF-8".into());
    ("LANG".into(), lang)
}

/// Whether this process runs as root (effective uid 0).
pub fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Resolve a bot command for isolation: absolute paths for arguments and the program (its
/// working directory changes), the environment, the limits and, in strict mode, the bubblewrap
/// command line.
pub(crate) fn prepare(
    spec: &str,
    program: &Path,
    args: &[String],
    cwd: Option<&Path>,
    iso: &Isolation,
    ctx: &Context,
) -> io::Result<Prepared> {
    let here = std::env::current_dir()?;
    let base = match cwd {
        Some(c) => absolute(&here, c),
        None => here.clone(),
    };
    // Arguments and the program are given relative to the configured directory or, without
    // one, to the referee's: the bot runs elsewhere, so make the ones that exist absolute.
    let program_is_path = program.components().count() > 1 || program.is_absolute();
    let program_abs = if program_is_path {
        Some(absolute(&base, program))
    } else {
        None
    };
    let mut abs_args: Vec<OsString> = Vec::with_capacity(args.len());
    let mut arg_paths: Vec<PathBuf> = Vec::new();
    // Only arguments that look like paths (a `/` or an extension: `bot.py`, `./data`,
    // `models/x`): a bare word (`bot`, `random`) is left alone even if a file has that name.
    // Built-in bots take no path at all.
    let builtin = spec.starts_with("builtin:");
    for a in args {
        let p = Path::new(a);
        let looks_like_path = a.contains('/') || a.contains('.');
        if builtin || a.starts_with('-') || a.is_empty() || !looks_like_path {
            abs_args.push(a.into());
            continue;
        }
        let full = absolute(&base, p);
        if full.exists() {
            arg_paths.push(full.clone());
            if cwd.is_none() {
                abs_args.push(full.into_os_string());
                continue;
            }
        }
        abs_args.push(a.into());
    }
    let limits = child_limits(iso, ctx);
    match iso.sandbox {
        Sandbox::Default => {
            warn_root_default_once();
            let private = tempfile::Builder::new()
                .prefix("durak-bot-")
                .permissions(std::fs::Permissions::from_mode(0o700))
                .tempdir()?;
            let home = private.path().join("home");
            std::fs::create_dir(&home)?;
            let path = std::env::var_os("PATH").unwrap_or_else(|| SANDBOX_PATH.into());
            let program = match program_abs {
                Some(p) => p,
                None => find_in_path(program, &path).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("{}: not found on PATH", program.display()),
                    )
                })?,
            };
            let limits = limits.with_nproc_base(nproc_base(rustix::process::getuid().as_raw()));
            let cleanup = Cleanup::new(private.path()).map(std::sync::Arc::new);
            Ok(Prepared {
                cleanup,
                program,
                args: abs_args,
                cwd: cwd.map_or_else(|| private.path().to_path_buf(), |_| base.clone()),
                env: vec![
                    ("PATH".into(), path),
                    lang_env(),
                    ("HOME".into(), home.into_os_string()),
                ],
                ids: None,
                child: limits.setup(),
                strict: false,
                private_dir: Some(private),
                uid_lease: None,
            })
        }
        Sandbox::Strict => {
            let bwrap = bwrap_path().ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, BWRAP_MISSING.to_string())
            })?;
            // Once per referee: can a sandbox be built here at all? (Else every bot would
            // crash at start-up with bubblewrap's message instead of this explanation.)
            check_strict_sandbox().map_err(io::Error::other)?;
            let inner_program: PathBuf = match &program_abs {
                Some(p) => p.clone(),
                None => {
                    if find_in_path(program, SANDBOX_PATH.as_ref()).is_none() {
                        return Err(io::Error::new(
                            io::ErrorKind::NotFound,
                            format!(
                                "bot {spec:?}: {} is not in the strict sandbox's PATH ({SANDBOX_PATH}); \
                                 give the program as a path, or install it there",
                                program.display()
                            ),
                        ));
                    }
                    program.to_path_buf()
                }
            };
            let lease = if running_as_root() {
                Some(UidLease::take()?)
            } else {
                None
            };
            let uid = lease
                .as_ref()
                .map_or_else(|| rustix::process::getuid().as_raw(), |l| l.uid);
            // What the bot may see of the host, read-only: its directory, or the files its
            // command names.
            let hidden: Vec<PathBuf> = ctx.hidden.iter().map(|h| canonical(&here, h)).collect();
            let mut visible: Vec<PathBuf> = Vec::new();
            let mut visible_files: Vec<PathBuf> = Vec::new();
            if cwd.is_some() {
                visible.push(canonical(&here, &base));
            }
            if let Some(p) = &program_abs {
                if !is_system_path(p) {
                    visible_files.push(canonical(&here, p));
                }
            }
            if cwd.is_none() {
                for p in &arg_paths {
                    if is_system_path(p) {
                        continue;
                    }
                    let c = canonical(&here, p);
                    if c.is_dir() {
                        visible.push(c);
                    } else {
                        // A file: its directory (sibling modules, data), unless that directory
                        // is a top-level one (/tmp, /home): then the file alone.
                        match c.parent() {
                            Some(parent) if depth(parent) >= 2 => {
                                visible.push(parent.to_path_buf())
                            }
                            _ => visible_files.push(c),
                        }
                    }
                }
            }
            if let Some(d) = visible.iter().find(|d| depth(d) < 2) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "bot {spec:?}: strict mode shows a bot only its own directory, and {} is \
                         not one (a top-level directory): move the bot into a directory of its own",
                        d.display()
                    ),
                ));
            }
            visible.sort();
            visible.dedup();
            if lease.is_some() {
                for p in visible.iter().chain(&visible_files) {
                    check_other_readable(p, uid)?;
                }
            }
            let mut b = BwrapArgs::default();
            b.system();
            b.private(iso.limits.tmp_size);
            for d in &visible {
                b.dir(d, &hidden);
            }
            for f in &visible_files {
                if !visible.iter().any(|d| f.starts_with(d)) {
                    b.push(["--ro-bind"]);
                    b.path(f);
                    b.path(f);
                }
            }
            let chdir = if cwd.is_some() {
                canonical(&here, &base)
            } else {
                PathBuf::from("/tmp")
            };
            b.push(["--chdir"]);
            b.path(&chdir);
            let (_, lang) = lang_env();
            b.push(["--setenv", "PATH", SANDBOX_PATH]);
            b.push(["--setenv", "HOME", "/tmp/home"]);
            b.args.push("--setenv".into());
            b.args.push("LANG".into());
            b.args.push(lang);
            // The shim: stdin and stdout come on descriptors 3 and 4 (see ChildSetup).
            b.push([
                "--",
                "/bin/sh",
                "-c",
                "exec 0<&3 1>&4 3<&- 4>&- && exec \"$@\"",
                "durak-bot",
            ]);
            b.args.push(inner_program.into_os_string());
            b.args.extend(abs_args);
            let limits = limits.with_nproc_base(nproc_base(uid));
            let mut setup = limits.setup();
            setup.stdio_on_3_4 = true;
            Ok(Prepared {
                program: bwrap,
                args: b.args,
                cwd: PathBuf::from("/"),
                env: vec![("PATH".into(), SANDBOX_PATH.into())],
                ids: lease.as_ref().map(|l| (l.uid, l.uid)),
                child: setup,
                strict: true,
                private_dir: None,
                cleanup: None,
                uid_lease: lease,
            })
        }
    }
}

/// `base.join(p)`, cleaned of `.` components.
fn absolute(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// The canonical path, also of a path that does not exist yet (its existing ancestor is
/// canonicalized and the rest appended).
fn canonical(base: &Path, p: &Path) -> PathBuf {
    let abs = absolute(base, p);
    let mut head = abs.clone();
    let mut tail: Vec<OsString> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&head) {
            let mut out = c;
            for t in tail.iter().rev() {
                out.push(t);
            }
            return out;
        }
        match (head.file_name().map(|f| f.to_os_string()), head.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                head = parent.to_path_buf();
            }
            _ => return abs,
        }
    }
}

/// Number of named components: `/` is 0, `/tmp` 1, `/tmp/bot` 2.
fn depth(p: &Path) -> usize {
    p.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count()
}

fn is_system_path(p: &Path) -> bool {
    [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    ]
    .iter()
    .any(|s| p.starts_with(s))
}

fn find_in_path(name: &Path, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|d| d.join(name))
        .find(|f| f.is_file())
}

/// bubblewrap's path, if it is installed.
pub fn bwrap_path() -> Option<PathBuf> {
    static BWRAP: OnceLock<Option<PathBuf>> = OnceLock::new();
    BWRAP
        .get_or_init(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            find_in_path(Path::new("bwrap"), &path).or_else(|| {
                let p = PathBuf::from("/usr/bin/bwrap");
                p.is_file().then_some(p)
            })
        })
        .clone()
}

/// Options this bubblewrap understands (`--size`, `--disable-userns` are recent).
fn bwrap_supports(option: &str) -> bool {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        bwrap_path()
            .and_then(|b| std::process::Command::new(b).arg("--help").output().ok())
            .map(|o| {
                let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
                s.push_str(&String::from_utf8_lossy(&o.stderr));
                s
            })
            .unwrap_or_default()
    })
    .contains(option)
}

#[derive(Default)]
struct BwrapArgs {
    args: Vec<OsString>,
}

impl BwrapArgs {
    fn push<const N: usize>(&mut self, a: [&str; N]) {
        self.args.extend(a.iter().map(OsString::from));
    }
    fn path(&mut self, p: &Path) {
        self.args.push(p.as_os_str().to_os_string());
    }

    /// Namespaces, the read-only system, a minimal /etc.
    fn system(&mut self) {
        self.push(["--unshare-all", "--unshare-user"]);
        if bwrap_supports("--disable-userns") {
            self.push(["--disable-userns"]);
        }
        self.push(["--die-with-parent", "--new-session", "--clearenv"]);
        self.push(["--hostname", "sandbox"]);
        self.push(["--ro-bind", "/usr", "/usr"]);
        for d in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            let p = Path::new(d);
            match std::fs::read_link(p) {
                Ok(target) => {
                    self.push(["--symlink"]);
                    self.path(&target);
                    self.path(p);
                }
                Err(_) if p.is_dir() => self.push(["--ro-bind", d, d]),
                Err(_) => {}
            }
        }
        // What the dynamic loader and interpreters read; no passwd, no network configuration.
        for f in [
            "/etc/ld.so.cache",
            "/etc/ld.so.conf",
            "/etc/ld.so.conf.d",
            "/etc/alternatives",
            "/etc/localtime",
        ] {
            if Path::new(f).exists() {
                self.push(["--ro-bind", f, f]);
            }
        }
    }

    /// /proc of the new pid namespace, a minimal /dev, the private /tmp and HOME.
    fn private(&mut self, tmp_size: Option<u64>) {
        self.push(["--proc", "/proc", "--dev", "/dev"]);
        if let Some(size) = tmp_size {
            if bwrap_supports("--size") {
                self.args.push("--size".into());
                self.args.push(size.to_string().into());
            }
        }
        self.push(["--tmpfs", "/tmp", "--dir", "/tmp/home"]);
    }

    /// Make directory `d` visible read-only, without any of `hidden` inside it: when one is
    /// inside, the directory is rebuilt entry by entry and the hidden entry left out (a mount
    /// over it would show its path in /proc/self/mountinfo).
    fn dir(&mut self, d: &Path, hidden: &[PathBuf]) {
        if !hidden.iter().any(|h| h.starts_with(d) && h != d) {
            self.push(["--ro-bind"]);
            self.path(d);
            self.path(d);
            return;
        }
        self.push(["--dir"]);
        self.path(d);
        let Ok(entries) = std::fs::read_dir(d) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            if hidden.iter().any(|h| h == &e) {
                continue;
            }
            match std::fs::symlink_metadata(&e) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(&e) {
                        self.push(["--symlink"]);
                        self.path(&target);
                        self.path(&e);
                    }
                }
                Ok(m) if m.is_dir() => self.dir(&e, hidden),
                Ok(_) => {
                    self.push(["--ro-bind"]);
                    self.path(&e);
                    self.path(&e);
                }
                Err(_) => {}
            }
        }
    }
}

/// Strict mode as root runs the bot under another uid: its files must be readable by others.
fn check_other_readable(p: &Path, uid: u32) -> io::Result<()> {
    let mut cur = PathBuf::new();
    let comps: Vec<Component> = p.components().collect();
    for (i, c) in comps.iter().enumerate() {
        cur.push(c);
        let Ok(m) = std::fs::metadata(&cur) else {
            continue;
        };
        let last = i + 1 == comps.len();
        let mode = m.permissions().mode();
        let need = if m.is_dir() {
            if last {
                0o005
            } else {
                0o001
            }
        } else {
            0o004
        };
        if mode & need != need && m.uid() != uid {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "strict mode runs the bot as uid {uid}, which cannot {} {} (mode {:o}): \
                     make the bot's files readable by others (chmod o+rX), or keep them \
                     outside private directories such as /root",
                    if m.is_dir() { "enter" } else { "read" },
                    cur.display(),
                    mode & 0o7777
                ),
            ));
        }
    }
    Ok(())
}

fn warn_root_default_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if running_as_root() {
        ONCE.call_once(|| {
            tracing::warn!(
                "bots run as root without a sandbox: a bot can signal the referee, read every \
                 file and start processes without limit; use --sandbox strict (docs/SECURITY.md)"
            );
        });
    }
}

/// The limits to set between fork and exec.
#[derive(Clone, Copy, Debug)]
struct ChildLimits {
    address_space: Option<u64>,
    cpu: Option<u64>,
    file_size: Option<u64>,
    open_files: Option<u64>,
    processes: Option<u64>,
    nproc_base: u64,
}

fn child_limits(iso: &Isolation, ctx: &Context) -> ChildLimits {
    let l = &iso.limits;
    ChildLimits {
        // No memory cgroup yet: the address-space limit stands in for `memory`.
        address_space: l
            .address_space
            .or(l.memory.map(|m| m.max(4096 * MIB))),
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
    fn with_nproc_base(mut self, base: u64) -> ChildLimits {
        self.nproc_base = base;
        self
    }

    fn setup(&self) -> ChildSetup {
        use rlim::Res;
        let same = |v: Option<u64>, r: Res| v.map(|v| (r, Some(v), Some(v)));
        ChildSetup {
            stdio_on_3_4: false,
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

/// Tasks (threads included) that `uid` runs now: the base of its `RLIMIT_NPROC`. `u64::MAX` when
/// `uid` is root (no limit applies).
fn nproc_base(uid: u32) -> u64 {
    if uid == 0 {
        return u64::MAX;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0u64;
    for e in dir.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let field = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        };
        if field("Uid:") == Some(u64::from(uid)) {
            n += field("Threads:").unwrap_or(1);
        }
    }
    n
}

/// A uid of the sandbox range, taken by one running bot (strict mode as root).
#[derive(Debug)]
pub(crate) struct UidLease {
    pub uid: u32,
}

fn leased() -> &'static Mutex<std::collections::BTreeSet<u32>> {
    static LEASED: OnceLock<Mutex<std::collections::BTreeSet<u32>>> = OnceLock::new();
    LEASED.get_or_init(Default::default)
}

impl UidLease {
    /// The lowest uid of the range that no bot of this referee holds and no process runs as.
    fn take() -> io::Result<UidLease> {
        let busy = uids_in_use();
        let mut set = leased().lock().unwrap_or_else(|e| e.into_inner());
        for uid in SANDBOX_UID_BASE..SANDBOX_UID_BASE + SANDBOX_UID_COUNT {
            if !set.contains(&uid) && !busy.contains(&uid) {
                set.insert(uid);
                return Ok(UidLease { uid });
            }
        }
        Err(io::Error::other(format!(
            "no free uid in {SANDBOX_UID_BASE}..{} for a sandboxed bot",
            SANDBOX_UID_BASE + SANDBOX_UID_COUNT
        )))
    }
}

impl Drop for UidLease {
    fn drop(&mut self) {
        leased()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.uid);
    }
}

/// Owners of the running processes.
fn uids_in_use() -> std::collections::BTreeSet<u32> {
    let mut out = std::collections::BTreeSet::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            if e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
            {
                if let Ok(m) = e.metadata() {
                    out.insert(m.uid());
                }
            }
        }
    }
    out
}

/// The direct children of `pid` (from `/proc/PID/task/PID/children`, or by scanning `/proc`).
pub(crate) fn children_of(pid: i32) -> Vec<i32> {
    if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")) {
        return s
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
    }
    let mut out = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            let Some(after) = stat.rsplit_once(')').map(|(_, a)| a) else {
                continue;
            };
            let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            if ppid == Some(pid) {
                if let Ok(p) = e.file_name().to_string_lossy().parse() {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Whether some process is in process group `pgid`.
pub(crate) fn group_has_members(pgid: i32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|stat| {
                let after = stat.rsplit_once(')')?.1.to_string();
                after.split_whitespace().nth(2)?.parse::<i32>().ok()
            })
            == Some(pgid)
    })
}

/// Check once that strict mode works here: bubblewrap is installed and can build a sandbox
/// (unprivileged user namespaces allowed), running as the uid bots would get.
pub fn check_strict_sandbox() -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            use std::os::unix::process::CommandExt;
            let bwrap = bwrap_path().ok_or_else(|| BWRAP_MISSING.to_string())?;
            let mut b = BwrapArgs::default();
            b.system();
            b.private(Some(MIB));
            b.push(["--", "/bin/sh", "-c", "exit 0"]);
            let lease = if running_as_root() {
                Some(UidLease::take().map_err(|e| e.to_string())?)
            } else {
                None
            };
            let mut c = std::process::Command::new(&bwrap);
            c.args(&b.args)
                .current_dir("/")
                .env_clear()
                .stdin(std::process::Stdio::null());
            if let Some(l) = &lease {
                c.uid(l.uid).gid(l.uid);
            }
            let out = c
                .output()
                .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "bubblewrap cannot build a sandbox here ({}): {}; unprivileged user \
                     namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1; on \
                     Ubuntu 24.04, an AppArmor profile for bwrap)",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        })
        .clone()
}

/// Hide the referee's own `/proc` entries (environment, open files, working directory, memory)
/// from bots running as the same user, and forbid them to ptrace it (`PR_SET_DUMPABLE` 0). The
/// command line (`/proc/PID/cmdline`) stays readable by everyone. Side effect: no core dump of
/// the referee, and a debugger must run as root to attach.
pub fn harden_referee() {
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
}

/// Describe an exit status reported by bubblewrap, which exits with 128 + N when the bot is
/// killed by signal N.
pub(crate) fn describe_sandbox_code(code: i32) -> Option<i32> {
    (129..=128 + 64).contains(&code).then_some(code - 128)
}

// ------------------------------------------------------------------------------------------------
// Between fork and exec: raw system calls only.
// ------------------------------------------------------------------------------------------------

pub(crate) mod child {
    use super::rlim::Res;
    use super::{ChildSetup, Cleanup};
    use rustix::fd::{AsRawFd, BorrowedFd};
    use rustix::process::{Pid, Resource, Rlimit, Signal, WaitOptions};
    use std::io;
    use std::mem::MaybeUninit;

    /// The `pre_exec` hook: runs in the referee's child, which becomes the supervisor; returns
    /// (to exec) only in the bot's process.
    pub fn pre_exec(setup: &ChildSetup, cleanup: Option<&Cleanup>) -> io::Result<()> {
        // The supervisor learns of the referee's death, even by SIGKILL: PR_SET_PDEATHSIG
        // sends it SIGUSR1, which interrupts its wait (a no-op handler, no SA_RESTART); it then
        // kills the bot and everything the bot started, and exits. (Before the handler is in
        // place, SIGUSR1's default action ends it at once.)
        // SAFETY: installs a handler that does nothing, in a single-threaded process.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = wake as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = 0;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        rustix::process::set_parent_process_death_signal(Some(Signal::USR1))?;
        if rustix::process::getppid().map(|p| p.as_raw_nonzero().get()) != Some(setup.referee) {
            return Err(io::Error::other("the referee is gone"));
        }
        // No core dump of this copy of the referee, nor of the bot.
        let _ = rustix::process::setrlimit(
            Resource::Core,
            Rlimit {
                current: Some(0),
                maximum: Some(0),
            },
        );
        // Orphans of the bot's process tree come to the supervisor, not to init.
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
        let supervisor = rustix::process::getpid();
        // SAFETY: this process is single-threaded (a child of fork); after the fork, the bot's
        // side returns to std's exec path and the supervisor's side never returns.
        match unsafe { libc::fork() } {
            -1 => Err(io::Error::last_os_error()),
            0 => bot(setup, supervisor),
            pid => match Pid::from_raw(pid) {
                Some(bot) => supervise(bot, setup.referee, cleanup),
                None => Err(io::Error::other("fork returned no pid")),
            },
        }
    }

    /// The bot's side: dies with the supervisor, its own process group, no inherited
    /// descriptors beyond 0, 1, 2, its limits. Then std execs it.
    fn bot(setup: &ChildSetup, supervisor: Pid) -> io::Result<()> {
        rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
        if rustix::process::getppid() != Some(supervisor) {
            return Err(io::Error::other("the supervisor is gone"));
        }
        rustix::process::setpgid(None, None)?;
        set_signal_mask(false)?;
        for_each_fd(|fd| {
            if fd > 2 {
                // SAFETY: fd is open (listed in /proc/self/fd); only its flags change.
                let b = unsafe { BorrowedFd::borrow_raw(fd) };
                let _ = rustix::io::fcntl_setfd(b, rustix::io::FdFlags::CLOEXEC);
            }
        });
        if setup.stdio_on_3_4 {
            // SAFETY: plain descriptor operations; dup2 leaves 3 and 4 without CLOEXEC.
            unsafe {
                if libc::dup2(0, 3) < 0 || libc::dup2(1, 4) < 0 {
                    return Err(io::Error::last_os_error());
                }
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
                if null < 0 || libc::dup2(null, 0) < 0 || libc::dup2(null, 1) < 0 {
                    return Err(io::Error::last_os_error());
                }
                libc::close(null);
            }
        }
        for (res, soft, hard) in setup.rlimits.iter().flatten().copied() {
            let r = match res {
                Res::As => Resource::As,
                Res::Cpu => Resource::Cpu,
                Res::Fsize => Resource::Fsize,
                Res::Nofile => Resource::Nofile,
                Res::Nproc => Resource::Nproc,
                Res::Core => Resource::Core,
            };
            rustix::process::setrlimit(
                r,
                Rlimit {
                    current: soft,
                    maximum: hard,
                },
            )?;
        }
        Ok(())
    }

    /// Call `f` with every open descriptor (from /proc/self/fd; without /proc, 0..1024).
    fn for_each_fd(mut f: impl FnMut(i32)) {
        let dir = rustix::fs::open(
            c"/proc/self/fd",
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        );
        let Ok(dir) = dir else {
            for fd in 0..1024 {
                f(fd);
            }
            return;
        };
        let own = dir.as_raw_fd();
        let mut buf = [MaybeUninit::<u8>::uninit(); 2048];
        let mut iter = rustix::fs::RawDir::new(&dir, &mut buf);
        while let Some(Ok(entry)) = iter.next() {
            if let Some(fd) = parse_int(entry.file_name().to_bytes()) {
                if fd != own {
                    f(fd);
                }
            }
        }
    }

    fn parse_int(s: &[u8]) -> Option<i32> {
        if s.is_empty() || s.len() > 9 {
            return None;
        }
        let mut n: i32 = 0;
        for &b in s {
            if !b.is_ascii_digit() {
                return None;
            }
            n = n * 10 + i32::from(b - b'0');
        }
        Some(n)
    }

    /// The supervisor: waits for the bot; once it is gone, kills every remaining descendant
    /// (they are all its children or below, as it is a subreaper) until none is left, then exits
    /// with the bot's status.
    fn supervise(bot: Pid, referee: i32, cleanup: Option<&Cleanup>) -> ! {
        // Hold nothing open: not std's exec-error pipe (so the referee sees the exec), not the
        // bot's stdio (so the bot closing stdout is an end of file for the referee).
        for_each_fd(|fd| {
            // SAFETY: closing descriptors this process will never use again.
            unsafe { rustix::io::close(fd) };
        });
        // Only SIGUSR1 (the referee's death) gets through; SIGKILL cannot be blocked: only the
        // referee (or a bot of the same user) can end the supervisor early.
        let _ = set_signal_mask(true);
        // SAFETY: unblocking one signal of a single-threaded process.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGUSR1);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
        let _ = rustix::thread::set_name(c"durak-supervise");
        let orphaned =
            || rustix::process::getppid().map(|p| p.as_raw_nonzero().get()) != Some(referee);
        let mut status = None;
        // Wait for the bot (reaping the orphans it leaves meanwhile), or for the referee's end.
        let mut referee_gone = orphaned();
        while status.is_none() && !referee_gone {
            match rustix::process::wait(WaitOptions::empty()) {
                Ok(Some((pid, st))) if pid == bot => status = Some(st),
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => referee_gone = orphaned(),
                Err(_) => finish(None),
            }
        }
        // Then kill whatever is left, every 2 ms, until nothing is.
        loop {
            kill_children();
            loop {
                match rustix::process::wait(WaitOptions::NOHANG) {
                    Ok(Some((pid, st))) => {
                        if pid == bot && status.is_none() {
                            status = Some(st);
                        }
                    }
                    Err(rustix::io::Errno::INTR) => {}
                    Ok(None) => break,
                    Err(_) => {
                        // Nothing is left. If the referee is gone, nobody else will remove the
                        // bot's private directory.
                        if let (true, Some(c)) = (referee_gone || orphaned(), cleanup) {
                            // SAFETY: argv prepared before the fork, null-terminated.
                            unsafe { libc::execv(c.ptrs[0], c.ptrs.as_ptr()) };
                        }
                        finish(status)
                    }
                }
            }
            let _ = rustix::thread::nanosleep(&rustix::thread::Timespec {
                tv_sec: 0,
                tv_nsec: 2_000_000,
            });
        }
    }

    /// The handler of SIGUSR1 in the supervisor: only interrupts its wait.
    extern "C" fn wake(_: libc::c_int) {}

    /// SIGKILL every child of this process (and its process group).
    fn kill_children() {
        let mut buf = [0u8; 4096];
        let Ok(fd) = rustix::fs::open(
            c"/proc/thread-self/children",
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        ) else {
            kill_children_by_scan();
            return;
        };
        let mut carry: i32 = 0;
        let mut in_num = false;
        loop {
            let n = match rustix::io::read(&fd, &mut buf[..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for &b in &buf[..n] {
                if b.is_ascii_digit() {
                    carry = carry.saturating_mul(10).saturating_add(i32::from(b - b'0'));
                    in_num = true;
                } else if in_num {
                    kill_pid(carry);
                    carry = 0;
                    in_num = false;
                }
            }
        }
        if in_num {
            kill_pid(carry);
        }
    }

    /// Without /proc/PID/task/TID/children: every process whose parent is this one.
    fn kill_children_by_scan() {
        let me = rustix::process::getpid().as_raw_nonzero().get();
        let Ok(proc_dir) = rustix::fs::open(
            c"/proc",
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        ) else {
            return;
        };
        let mut dbuf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut iter = rustix::fs::RawDir::new(&proc_dir, &mut dbuf);
        while let Some(Ok(entry)) = iter.next() {
            let name = entry.file_name().to_bytes();
            let Some(pid) = parse_int(name) else {
                continue;
            };
            // "PID/stat\0" in a stack buffer.
            let mut path = [0u8; 32];
            if name.len() + 6 > path.len() {
                continue;
            }
            path[..name.len()].copy_from_slice(name);
            path[name.len()..name.len() + 6].copy_from_slice(b"/stat\0");
            let Ok(cpath) = std::ffi::CStr::from_bytes_with_nul(&path[..name.len() + 6]) else {
                continue;
            };
            let Ok(fd) = rustix::fs::openat(
                &proc_dir,
                cpath,
                rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            ) else {
                continue;
            };
            let mut stat = [0u8; 512];
            let Ok(n) = rustix::io::read(&fd, &mut stat[..]) else {
                continue;
            };
            // "pid (comm) state ppid ...": the ppid follows the last ')'.
            let s = &stat[..n];
            let Some(close) = s.iter().rposition(|&b| b == b')') else {
                continue;
            };
            let mut fields = s[close + 1..]
                .split(|&b| b == b' ')
                .filter(|f| !f.is_empty());
            let _state = fields.next();
            if fields.next().and_then(parse_int) == Some(me) {
                kill_pid(pid);
            }
        }
    }

    fn kill_pid(pid: i32) {
        if let Some(p) = Pid::from_raw(pid) {
            let _ = rustix::process::kill_process_group(p, Signal::KILL);
            let _ = rustix::process::kill_process(p, Signal::KILL);
        }
    }

    /// Block every signal, or none.
    fn set_signal_mask(block_all: bool) -> io::Result<()> {
        // SAFETY: sigset_t is plain data, initialized by sigfillset/sigemptyset; changing the
        // mask of a single-threaded process.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            if block_all {
                libc::sigfillset(&mut set);
            } else {
                libc::sigemptyset(&mut set);
            }
            if libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Exit as the bot did: with its code, or killed by its signal.
    fn finish(status: Option<rustix::process::WaitStatus>) -> ! {
        let code = match status {
            Some(st) => match (st.exit_status(), st.terminating_signal()) {
                (Some(code), _) => code,
                (None, Some(sig)) => {
                    // SAFETY: restoring the default action of one signal, unblocking it and
                    // sending it to ourselves, in a single-threaded process about to end.
                    unsafe {
                        libc::signal(sig, libc::SIG_DFL);
                        let mut set: libc::sigset_t = std::mem::zeroed();
                        libc::sigemptyset(&mut set);
                        libc::sigaddset(&mut set, sig);
                        libc::kill(libc::getpid(), sig);
                        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                    }
                    128 + sig
                }
                _ => 125,
            },
            None => 125,
        };
        // SAFETY: ends the process without running anything of the referee's.
        unsafe { libc::_exit(code) }
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
        assert!(l.set("ram=1G").unwrap_err().contains("address_space"));
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
        assert!(l.set("processes=lots").is_err());
        assert!(l.set("processes").is_err());
        assert!(l.set("open_files=3T").is_err());
    }

    #[test]
    fn sandbox_names() {
        assert_eq!("strict".parse::<Sandbox>().unwrap(), Sandbox::Strict);
        assert_eq!("default".parse::<Sandbox>().unwrap(), Sandbox::Default);
        assert!("none".parse::<Sandbox>().is_err());
    }

    #[test]
    fn hidden_paths_are_left_out_of_a_visible_directory() {
        let d = tempfile::tempdir().unwrap();
        let bot = d.path().join("bot");
        std::fs::create_dir_all(bot.join("out/replays")).unwrap();
        std::fs::write(bot.join("bot.py"), "").unwrap();
        let mut b = BwrapArgs::default();
        b.dir(&bot, &[bot.join("out/replays"), bot.join("out")]);
        let args: Vec<String> = b
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(args.contains(&bot.join("bot.py").display().to_string()));
        assert!(!args.iter().any(|a| a.contains("out")), "{args:?}");
        // Nothing hidden inside: one bind of the whole directory.
        let mut b = BwrapArgs::default();
        b.dir(&bot, &[d.path().join("elsewhere")]);
        assert_eq!(b.args.len(), 3);
    }
}
