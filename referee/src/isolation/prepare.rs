//! From a bot command to what is spawned: paths made absolute, the environment, the private
//! directory, the cgroup, the limits and, in strict mode, the bubblewrap command line.

use super::bwrap::{bwrap_path, check_other_readable, check_strict_sandbox, BwrapArgs};
use super::cgroup::{self, BotCgroup};
use super::limits::child_limits;
use super::paths::{absolute, absolute_resolved, find_in_path};
use super::procfs::nproc_base;
use super::uids::UidLease;
use super::visible::{view, View};
use super::workdir::{private_dir, Cleanup};
use super::DoneFlag;
use super::{running_as_root, Context, Isolation, Sandbox, BWRAP_MISSING, SANDBOX_PATH};
use std::ffi::{CString, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A command ready to spawn: program, arguments, directory, environment, and what happens
/// between fork and exec.
pub(crate) struct Prepared {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    pub plan: Arc<ChildPlan>,
    pub strict: bool,
    /// Kept for the life of the process; removed after.
    pub private_dir: Option<tempfile::TempDir>,
    pub uid_lease: Option<UidLease>,
    /// The bot's memory and pids cgroup, when one can be used here.
    pub cgroup: Option<BotCgroup>,
    /// Where the supervisor marks that it finished (see `done.rs`).
    pub done: DoneFlag,
    /// Strict mode: the descriptor bubblewrap reads the seccomp filter from; kept open until
    /// the bot is spawned.
    pub _seccomp: Option<std::os::fd::OwnedFd>,
}

/// What the code between fork and exec does, all of it prepared before the fork (no
/// allocation after it).
pub(crate) struct ChildPlan {
    pub setup: ChildSetup,
    /// `cgroup.procs` files the bot's process joins (writes `0` to) before anything else.
    pub cgroup_procs: Vec<CString>,
    /// How the supervisor removes the private directory if the referee dies first.
    pub cleanup: Option<Cleanup>,
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
    /// uid and gid the bot's side switches to (strict mode as root), after joining its cgroup
    /// and setting its limits; the supervisor keeps the referee's.
    pub ids: Option<(u32, u32)>,
    /// The address of the supervisor's mark (`DoneFlag::addr`; 0: none).
    pub done_flag: usize,
    /// Default mode: the bot's side drops every capability (bounding, ambient, inheritable,
    /// permitted, effective; as root also root's right to regain them at exec) and sets
    /// `PR_SET_NO_NEW_PRIVS`, so a bot run by root cannot use root's privileges: no TIOCSTI
    /// into a terminal that is not its own, no reading another user's files, no signalling
    /// other users' processes. Strict mode needs none of it (the bot runs as its own uid, and
    /// bubblewrap drops capabilities itself).
    pub drop_caps: bool,
    /// A descriptor the bot's side keeps open across exec (strict mode: the seccomp filter
    /// bubblewrap reads, `--seccomp N`); -1: none.
    pub keep_fd: i32,
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

/// A bot command with its paths made absolute.
struct Resolved {
    /// The configured working directory, absolute.
    cwd: Option<PathBuf>,
    /// The program when it is a path, absolute.
    program_abs: Option<PathBuf>,
    /// The arguments, those naming existing files made absolute when there is no configured
    /// working directory (the bot runs elsewhere).
    args: Vec<OsString>,
    /// The arguments that name existing files, absolute.
    arg_paths: Vec<PathBuf>,
}

fn resolve_command(
    spec: &str,
    program: &Path,
    args: &[String],
    cwd: Option<&Path>,
) -> io::Result<Resolved> {
    let here = std::env::current_dir()?;
    let base = match cwd {
        Some(c) => absolute(&here, c),
        None => here,
    };
    // Arguments and the program are given relative to the configured directory or, without
    // one, to the referee's.
    let program_is_path = program.components().count() > 1 || program.is_absolute();
    let program_abs = program_is_path.then(|| absolute_resolved(&base, program));
    let mut abs_args: Vec<OsString> = Vec::with_capacity(args.len());
    let mut arg_paths: Vec<PathBuf> = Vec::new();
    // Only arguments that look like paths (a `/` or an extension: `bot.py`, `./data`,
    // `models/x`): a bare word (`bot`, `random`) is left alone even if a file has that name.
    // Built-in bots take no path at all.
    let builtin = spec.starts_with("builtin:");
    // The value after a class or module path flag (`java -cp out Bot`) is a list of paths: its
    // entries that exist are resolved too.
    let mut path_list = false;
    for a in args {
        if std::mem::take(&mut path_list) && !builtin && !a.starts_with('-') {
            let entries: Vec<PathBuf> = std::env::split_paths(a)
                .map(|e| {
                    let full = absolute_resolved(&base, &e);
                    if e.as_os_str().is_empty() || !full.exists() {
                        return e;
                    }
                    arg_paths.push(full.clone());
                    full
                })
                .collect();
            match (cwd, std::env::join_paths(&entries)) {
                (None, Ok(joined)) => abs_args.push(joined),
                _ => abs_args.push(a.into()),
            }
            continue;
        }
        path_list = matches!(
            a.as_str(),
            "-cp" | "-classpath" | "--class-path" | "-p" | "--module-path"
        );
        let p = Path::new(a);
        let looks_like_path = a.contains('/') || a.contains('.');
        if builtin || a.starts_with('-') || a.is_empty() || !looks_like_path {
            abs_args.push(a.into());
            continue;
        }
        let full = absolute_resolved(&base, p);
        if full.exists() {
            arg_paths.push(full.clone());
            if cwd.is_none() {
                abs_args.push(full.into_os_string());
                continue;
            }
        }
        abs_args.push(a.into());
    }
    Ok(Resolved {
        cwd: cwd.map(|_| base),
        program_abs,
        args: abs_args,
        arg_paths,
    })
}

/// The bot's cgroup, when this machine allows one; otherwise `None` (its memory limit then
/// becomes an address-space limit), said once.
fn bot_cgroup(iso: &Isolation) -> Option<BotCgroup> {
    static NOTE: std::sync::Once = std::sync::Once::new();
    static CPU_NOTE: std::sync::Once = std::sync::Once::new();
    match cgroup::support() {
        Ok(s) => {
            if !s.cpu_notes.is_empty() {
                CPU_NOTE.call_once(|| {
                    tracing::debug!(
                        "{}: a table's CPUs are kept by sched_setaffinity only, which a bot's \
                         child can undo",
                        s.cpu_notes.join("; ")
                    )
                });
            }
            bot_cgroup_in(s, iso)
        }
        Err(why) => {
            NOTE.call_once(|| {
                tracing::debug!("no cgroup for bots ({why}): memory is limited per process")
            });
            None
        }
    }
}

/// The bot's cgroup in `s`, held to the CPUs of the thread that starts it (its table's).
fn bot_cgroup_in(s: &cgroup::Support, iso: &Isolation) -> Option<BotCgroup> {
    static NOTE: std::sync::Once = std::sync::Once::new();
    match BotCgroup::create(
        s,
        iso.limits.memory,
        iso.limits.processes,
        &crate::affinity::allowed_cpus(),
    ) {
        Ok(cg) => Some(cg),
        Err(e) => {
            NOTE.call_once(|| {
                tracing::warn!(
                    "cannot make a cgroup for a bot ({e}): memory is limited per process \
                         (address space) instead"
                )
            });
            None
        }
    }
}

/// Resolve a bot command for isolation: absolute paths for arguments and the program (its
/// working directory changes), the environment, the cgroup, the limits and, in strict mode,
/// the bubblewrap command line.
pub(crate) fn prepare(
    spec: &str,
    program: &Path,
    args: &[String],
    cwd: Option<&Path>,
    iso: &Isolation,
    ctx: &Context,
) -> io::Result<Prepared> {
    let r = resolve_command(spec, program, args, cwd)?;
    match iso.sandbox {
        Sandbox::Default => {
            // The built-in bots are the referee's own program: the warning is about the others.
            if !spec.starts_with("builtin:") {
                warn_root_default_once();
            }
            prepare_default(program, r, iso, ctx)
        }
        Sandbox::Strict => prepare_strict(spec, program, r, iso, ctx),
    }
}

fn prepare_default(
    program: &Path,
    r: Resolved,
    iso: &Isolation,
    ctx: &Context,
) -> io::Result<Prepared> {
    let private = private_dir()?;
    let home = private.path().join("home");
    std::fs::create_dir(&home)?;
    let path = std::env::var_os("PATH").unwrap_or_else(|| SANDBOX_PATH.into());
    let program = match r.program_abs {
        Some(p) => p,
        None => find_in_path(program, &path).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: not found on PATH", program.display()),
            )
        })?,
    };
    let cgroup = bot_cgroup(iso);
    let limits = child_limits(iso, ctx, cgroup.is_some())
        .with_nproc_base(nproc_base(rustix::process::getuid().as_raw()));
    let done = DoneFlag::new()?;
    let mut setup = limits.setup();
    setup.done_flag = done.addr();
    setup.drop_caps = true;
    let plan = ChildPlan {
        setup,
        cgroup_procs: cgroup.as_ref().map(|c| c.procs_files()).unwrap_or_default(),
        cleanup: Cleanup::new(private.path()),
    };
    Ok(Prepared {
        program,
        args: r.args,
        cwd: r.cwd.unwrap_or_else(|| private.path().to_path_buf()),
        env: vec![
            ("PATH".into(), path),
            lang_env(),
            ("HOME".into(), home.into_os_string()),
        ],
        plan: Arc::new(plan),
        strict: false,
        private_dir: Some(private),
        uid_lease: None,
        cgroup,
        done,
        _seccomp: None,
    })
}

fn prepare_strict(
    spec: &str,
    program: &Path,
    r: Resolved,
    iso: &Isolation,
    ctx: &Context,
) -> io::Result<Prepared> {
    let bwrap = bwrap_path()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, BWRAP_MISSING.to_string()))?;
    // Once per referee: can a sandbox be built here at all? (Else every bot would crash at
    // start-up with bubblewrap's message instead of this explanation.)
    check_strict_sandbox().map_err(io::Error::other)?;
    let inner_program = inner_program(spec, program, &r)?;
    let lease = if running_as_root() {
        Some(UidLease::take()?)
    } else {
        None
    };
    let uid = lease
        .as_ref()
        .map_or_else(|| rustix::process::getuid().as_raw(), |l| l.uid);
    // What the bot may see of the host, read-only: its own files, and nothing of the match.
    let v = view(
        spec,
        (r.cwd.as_deref(), !iso.foreign_cwd),
        r.program_abs.as_deref(),
        &r.arg_paths,
        &ctx.hidden,
    )?;
    if lease.is_some() {
        for p in v.dirs.iter().chain(&v.files) {
            check_other_readable(p, uid)?;
        }
    }
    let cgroup = bot_cgroup(iso);
    let mut b = BwrapArgs::default();
    b.system();
    b.private(iso.limits.tmp_size)
        .map_err(|e| io::Error::new(io::ErrorKind::Unsupported, e))?;
    if let Some(cg) = &cgroup {
        b.cgroup(cg);
    }
    // A build's working directory is shown read-write (`Isolation::writable_cwd`).
    let writable = writable_cwd(spec, &v, iso.writable_cwd)?;
    show(&mut b, &v, writable.as_ref());
    b.seal();
    // No file lock (seen across namespaces): see seccomp.rs.
    let seccomp = super::seccomp::descriptor()?;
    let seccomp_fd = std::os::fd::AsRawFd::as_raw_fd(&seccomp);
    command(
        &mut b,
        seccomp_fd,
        v.chdir.as_deref(),
        inner_program,
        r.args,
    );
    let limits = child_limits(iso, ctx, cgroup.is_some()).with_nproc_base(nproc_base(uid));
    let mut setup = limits.setup();
    setup.stdio_on_3_4 = true;
    setup.ids = lease.as_ref().map(|l| (l.uid, l.uid));
    let done = DoneFlag::new()?;
    setup.done_flag = done.addr();
    setup.keep_fd = seccomp_fd;
    let plan = ChildPlan {
        setup,
        cgroup_procs: cgroup.as_ref().map(|c| c.procs_files()).unwrap_or_default(),
        cleanup: None,
    };
    Ok(Prepared {
        program: bwrap,
        args: b.args,
        cwd: PathBuf::from("/"),
        env: vec![("PATH".into(), SANDBOX_PATH.into())],
        plan: Arc::new(plan),
        strict: true,
        private_dir: None,
        uid_lease: lease,
        cgroup,
        done,
        _seccomp: Some(seccomp),
    })
}

/// The program as the sandbox runs it: its absolute path, or a name found in the sandbox's PATH.
fn inner_program(spec: &str, program: &Path, r: &Resolved) -> io::Result<PathBuf> {
    if let Some(p) = &r.program_abs {
        return Ok(p.clone());
    }
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
    Ok(program.to_path_buf())
}

/// The working directory shown read-write, when `writable_cwd` asks for one: the bot's own,
/// and holding nothing that must stay hidden.
fn writable_cwd(spec: &str, v: &View, writable_cwd: bool) -> io::Result<Option<PathBuf>> {
    let writable = match (&v.chdir, writable_cwd) {
        (Some(_), true) if v.chdir_made => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "bot {spec:?}: a read-write working directory must be the bot's own \
                     (not only where it starts)"
                ),
            ))
        }
        (Some(c), true) => {
            if let Some(h) = v.hidden.iter().find(|h| h.starts_with(c)) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "bot {spec:?}: its working directory {} cannot be shown read-write: \
                         it holds {}, which must stay hidden",
                        c.display(),
                        h.display()
                    ),
                ));
            }
            Some(c.clone())
        }
        (None, true) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bot {spec:?}: a read-write working directory needs a working directory"),
            ))
        }
        _ => None,
    };
    Ok(writable)
}

/// What the bot sees of the host in `b`: where it starts, its directories (the writable one
/// read-write), its files and the symlinks that lead to them.
fn show(b: &mut BwrapArgs, v: &View, writable: Option<&PathBuf>) {
    // Where the bot only starts: made, empty but for what is shown inside it (read-only once
    // sealed; inside the private /tmp when it lies under /tmp).
    if let Some(c) = v.chdir.as_ref().filter(|_| v.chdir_made) {
        b.push(["--dir"]);
        b.path(c);
    }
    for d in &v.dirs {
        if writable == Some(d) {
            b.push(["--bind"]);
            b.path(d);
            b.path(d);
        } else {
            b.dir(d, &v.hidden);
        }
    }
    // A working directory inside another shown directory: bound again, read-write, over it.
    if let Some(c) = writable.filter(|c| !v.dirs.contains(c)) {
        b.push(["--bind"]);
        b.path(c);
        b.path(c);
    }
    for f in &v.files {
        b.push(["--ro-bind"]);
        b.path(f);
        b.path(f);
    }
    for (target, at) in &v.links {
        b.push(["--symlink"]);
        b.path(target);
        b.path(at);
    }
}

/// The end of the bubblewrap command: the seccomp filter, where the bot starts, its
/// environment, and the shim that runs `program` with `args` on descriptors 3 and 4.
fn command(
    b: &mut BwrapArgs,
    seccomp_fd: i32,
    chdir: Option<&Path>,
    program: PathBuf,
    args: Vec<OsString>,
) {
    b.push(["--seccomp"]);
    b.args.push(seccomp_fd.to_string().into());
    b.push(["--chdir"]);
    b.path(chdir.unwrap_or(Path::new("/tmp")));
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
    b.args.push(program.into_os_string());
    b.args.extend(args);
}

fn warn_root_default_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if running_as_root() {
        ONCE.call_once(|| {
            tracing::warn!(
                "bots other than the built-in ones run as root without a sandbox: such a bot can \
                 signal the referee, read every file and start processes without limit; use \
                 --sandbox strict (docs/SECURITY.md)"
            );
        });
    }
}
