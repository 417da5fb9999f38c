//! Default mode's private working directory: `$TMPDIR/durak-bot-<referee pid>-XXXXXX`, removed
//! with the bot, by its supervisor when the referee dies first, and, should both be killed at
//! once, by the next referee (directories of referees that are gone).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::Once;

/// The name every private directory starts with.
const PREFIX: &str = "durak-bot-";

/// A fresh private directory (mode 0700) named after this referee, after removing those that
/// referees that are gone left behind.
pub(crate) fn private_dir() -> std::io::Result<tempfile::TempDir> {
    static SWEPT: Once = Once::new();
    SWEPT.call_once(|| sweep(&std::env::temp_dir()));
    tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{}-", std::process::id()))
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
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
