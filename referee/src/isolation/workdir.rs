//! Default mode's private working directories: `bot-XXXXXX` inside this run's own directory,
//! `$TMPDIR/durak-bot-<referee pid>-XXXXXX`. Each is removed with its bot, by the referee, or
//! by its supervisor when the referee dies first. The run's directory goes with the run: a
//! *watcher* started with it (`sh`, in a process group of its own, waiting for the end of a
//! pipe only the referee holds) removes it as soon as the referee is gone, whatever ended it,
//! SIGKILL included; should the watcher be killed too (a machine reset), the next referee
//! removes the directories of referees that are gone.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Once, OnceLock};

/// The name every run's directory starts with.
const PREFIX: &str = "durak-bot-";

/// A fresh private directory (mode 0700) in this run's directory (made on first use, after
/// removing those that referees that are gone left behind).
pub(crate) fn private_dir() -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("bot-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(run_dir()?)
}

/// This run's directory, and the write end of its watcher's pipe: held by this process only
/// (close-on-exec; the supervisors, forks of the referee, hold it until they exit), so the
/// watcher reads its end when the referee and its supervisors are gone.
struct RunDir {
    path: PathBuf,
    _watcher: std::process::ChildStdin,
}

/// This run's directory (mode 0700), made with its watcher on first use.
pub(crate) fn run_dir() -> std::io::Result<&'static Path> {
    static RUN: OnceLock<Result<RunDir, Arc<std::io::Error>>> = OnceLock::new();
    static SWEPT: Once = Once::new();
    SWEPT.call_once(|| sweep(&std::env::temp_dir()));
    RUN.get_or_init(|| make_run_dir(&std::env::temp_dir()).map_err(Arc::new))
        .as_ref()
        .map(|r| r.path.as_path())
        // Every caller gets the first failure, with its kind.
        .map_err(|e| std::io::Error::new(e.kind(), Arc::clone(e)))
}

fn make_run_dir(tmp: &Path) -> std::io::Result<RunDir> {
    let path = tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{}-", std::process::id()))
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(tmp)
        .map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!(
                    "cannot make the bots' private directories in {} ({e}): set TMPDIR to a \
                     writable directory",
                    tmp.display()
                ),
            )
        })?
        .keep();
    let mut child = Command::new("/bin/sh")
        .args([
            "-c",
            "trap '' HUP INT; cat >/dev/null; exec rm -rf --one-file-system -- \"$0\"",
        ])
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir("/")
        .process_group(0)
        .spawn()
        .inspect_err(|_| {
            let _ = std::fs::remove_dir(&path);
        })?;
    let watcher = child.stdin.take().expect("piped");
    Ok(RunDir {
        path,
        _watcher: watcher,
    })
}

/// Remove `dir/durak-bot-<pid>-*` directories of this user whose referee (`pid`) is gone.
pub(crate) fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let me = rustix::process::getuid().as_raw();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me || super::procfs::alive(pid) {
            continue;
        }
        let _ = std::fs::remove_dir_all(e.path());
    }
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
// SAFETY: as for `Send`: nothing changes what the pointers point at.
unsafe impl Sync for Cleanup {}

impl Cleanup {
    pub(crate) fn new(dir: &Path) -> Option<Cleanup> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary directory where none can be made is refused with the fix, in one sentence.
    #[test]
    fn a_run_directory_that_cannot_be_made_says_to_set_tmpdir() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("gone");
        let Err(e) = make_run_dir(&missing) else {
            panic!("a run directory in a missing directory");
        };
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "cannot make the bots' private directories in {} (",
                missing.display()
            )),
            "{text}"
        );
        assert!(
            text.ends_with("): set TMPDIR to a writable directory"),
            "{text}"
        );
    }

    /// The run's directory goes when the pipe's write end is closed (as when the referee
    /// dies): its watcher removes it, whatever is inside.
    #[test]
    fn the_watcher_removes_the_run_directory_when_the_referee_is_gone() {
        let tmp = tempfile::tempdir().unwrap();
        let run = make_run_dir(tmp.path()).unwrap();
        let path = run.path.clone();
        assert!(path.starts_with(tmp.path()));
        std::fs::create_dir_all(path.join("bot-1/home")).unwrap();
        std::fs::write(path.join("bot-1/home/f"), "x").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(path.exists(), "kept while the referee lives");
        drop(run);
        let start = std::time::Instant::now();
        while path.exists() && start.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!path.exists(), "{} is left", path.display());
    }

    #[test]
    fn directories_of_referees_that_are_gone_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        // A pid above any pid_max: nobody runs it.
        let gone = tmp.path().join("durak-bot-4194999-abc123");
        std::fs::create_dir_all(gone.join("home")).unwrap();
        std::fs::write(gone.join("home/data"), "x").unwrap();
        let mine = tmp
            .path()
            .join(format!("durak-bot-{}-def456", std::process::id()));
        std::fs::create_dir(&mine).unwrap();
        // Not ours to touch: another name, an old-style name, a file.
        let other = tmp.path().join("durak-bot-xyz");
        std::fs::create_dir(&other).unwrap();
        let file = tmp.path().join("durak-bot-4194999-file");
        std::fs::write(&file, "").unwrap();
        sweep(tmp.path());
        assert!(!gone.exists());
        assert!(mine.exists() && other.exists() && file.exists());
    }
}
