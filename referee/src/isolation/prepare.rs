//! From a bot command to what is spawned: paths made absolute, the environment, the private
//! directory, the limits and, in strict mode, the bubblewrap command line.

use super::bwrap::{bwrap_path, check_other_readable, check_strict_sandbox, BwrapArgs};
use super::limits::child_limits;
use super::paths::{absolute, canonical, depth, find_in_path, is_system_path};
use super::procfs::nproc_base;
use super::uids::UidLease;
use super::{running_as_root, Context, Isolation, Sandbox, BWRAP_MISSING, SANDBOX_PATH};
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

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
    pub(crate) ptrs: Vec<*const libc::c_char>,
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
