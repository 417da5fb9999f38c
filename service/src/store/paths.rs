//! The data directory's layout (`Paths`, see `store.rs`), held by one server (its lock) and kept
//! the server's alone; versions' folders opened to the bots that must read them.

use std::path::{Path, PathBuf};

/// The data directory cannot be made, held or kept private: the path and what failed.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    /// `what`: what could not be done to `path` ("cannot create it", "cannot open", ...).
    #[error("{}: {what}: {source}", path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{}: cannot set its mode to {mode:o}: {source}", path.display())]
    Mode {
        path: PathBuf,
        mode: u32,
        source: std::io::Error,
    },
    #[error(
        "{}: another `durak serve` is running on this data directory (it holds {} locked)\n  \
         fix: stop it, or give this one another --data-dir",
        root.display(),
        lock.display()
    )]
    Locked { root: PathBuf, lock: PathBuf },
}

/// A failure `what` of `path`, for `map_err`.
fn io_error(path: &Path, what: &'static str) -> impl FnOnce(std::io::Error) -> DataDirError {
    let path = path.to_path_buf();
    move |source| DataDirError::Io { path, what, source }
}

/// How long a start waits for a lock still held before it says another server runs.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

#[derive(Clone, Debug)]
pub struct Paths {
    pub root: PathBuf,
}

impl Paths {
    pub fn new(root: &Path) -> Paths {
        Paths {
            root: root.to_path_buf(),
        }
    }
    pub fn db(&self) -> PathBuf {
        self.root.join("service.db")
    }
    pub fn uploads(&self) -> PathBuf {
        self.root.join("uploads")
    }
    pub fn upload(&self, version: i64) -> PathBuf {
        self.uploads().join(format!("v{version}.archive"))
    }
    pub fn bots(&self) -> PathBuf {
        self.root.join("bots")
    }
    /// Where version `id` is unpacked (its folder is this, or a folder inside it).
    pub fn unpacked(&self, version: i64) -> PathBuf {
        self.bots().join(format!("v{version}"))
    }
    pub fn replays(&self) -> PathBuf {
        self.root.join("replays")
    }
    pub fn tournaments(&self) -> PathBuf {
        self.root.join("tournaments")
    }
    /// Hold the data directory: an exclusive `flock` on `DATA/lock`, released when the file
    /// drops or the process dies (even by SIGKILL). A second server on the same directory is
    /// refused (both would hand out the same jobs).
    ///
    /// A lock still held is tried again for up to [`LOCK_WAIT`]: a server killed a moment ago
    /// (SIGKILL, then a restart at once) may have left a child between its fork and its
    /// exec, or a bot's supervisor before it closes what it inherited; each holds the lock's
    /// descriptor for a few milliseconds more (CI saw a restart refused that way).
    pub fn lock(&self) -> Result<std::fs::File, DataDirError> {
        self.lock_within(LOCK_WAIT)
    }

    fn lock_within(&self, wait: std::time::Duration) -> Result<std::fs::File, DataDirError> {
        let start = std::time::Instant::now();
        loop {
            match self.try_lock() {
                Err(DataDirError::Locked { .. }) if start.elapsed() < wait => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                other => return other,
            }
        }
    }

    fn try_lock(&self) -> Result<std::fs::File, DataDirError> {
        let path = self.root.join("lock");
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error(&path, "cannot open"))?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(file),
            Err(rustix::io::Errno::WOULDBLOCK) => Err(DataDirError::Locked {
                root: self.root.clone(),
                lock: path,
            }),
            Err(e) => Err(io_error(&path, "cannot lock")(e.into())),
        }
    }

    /// Keep the data directory the server's alone (issue 22), on every start: the directory,
    /// its folders and the database (`service.db`, `-wal`, `-shm`) readable by the server's
    /// user only (0700, 0600), whatever an older server left; the files it makes later sit in
    /// those folders. `bots_other_uid`: strict mode as
    /// root runs each bot under a uid of its own, which must pass through to its folder: then
    /// the directory and `bots/` are 0711 (others pass through, but cannot list them) and each
    /// version's folder is opened to bots by [`open_for_bots`].
    pub fn make_private(&self, bots_other_uid: bool) -> Result<(), DataDirError> {
        use std::os::unix::fs::PermissionsExt;
        let set = |p: &Path, mode: u32| match std::fs::set_permissions(
            p,
            std::fs::Permissions::from_mode(mode),
        ) {
            Err(source) if source.kind() != std::io::ErrorKind::NotFound => {
                Err(DataDirError::Mode {
                    path: p.to_path_buf(),
                    mode,
                    source,
                })
            }
            _ => Ok(()),
        };
        let pass = if bots_other_uid { 0o711 } else { 0o700 };
        set(&self.root, pass)?;
        set(&self.bots(), pass)?;
        for d in [
            self.uploads(),
            self.replays(),
            self.tournaments(),
            self.root.join("packed"),
        ] {
            set(&d, 0o700)?;
        }
        for f in ["service.db", "service.db-wal", "service.db-shm", "lock"] {
            set(&self.root.join(f), 0o600)?;
        }
        Ok(())
    }

    /// Create the directories.
    pub fn create(&self) -> Result<(), DataDirError> {
        for d in [
            self.uploads(),
            self.bots(),
            self.replays(),
            self.tournaments(),
        ] {
            std::fs::create_dir_all(&d).map_err(io_error(&d, "cannot create it"))?;
        }
        Ok(())
    }
}

/// Create the database file readable by the server's user only (0600) before SQLite opens it:
/// SQLite gives `-wal` and `-shm` the database's mode. (No umask: bubblewrap would make the
/// folders of a strict sandbox with it, out of the bot's reach.)
pub fn private_db(path: &Path) -> Result<(), DataDirError> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map(|_| ())
        .map_err(io_error(path, "cannot create it"))
}

/// A version's folder as its bots need it: strict mode as root runs a bot under a uid of its
/// own, which must read it (`open`: folders 0755; the unpacker gave files 0644 or 0755);
/// otherwise bots run as the server's user, and the folder is 0700 (links are not followed,
/// and their own mode does not matter).
pub fn folder_for_bots(dir: &Path, open: bool) {
    use std::os::unix::fs::PermissionsExt;
    if !open {
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        return;
    }
    open_for_bots(dir);
}

fn open_for_bots(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755));
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_server_on_one_data_directory_is_refused_with_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let paths = Paths::new(d.path());
        paths.create().unwrap();
        let _held = paths.lock().unwrap();
        let e = paths
            .lock_within(std::time::Duration::from_millis(200))
            .unwrap_err();
        assert!(matches!(e, DataDirError::Locked { .. }), "{e:?}");
        let m = e.to_string();
        assert!(
            m.contains("another `durak serve`") && m.contains("fix:"),
            "{m}"
        );
        // A data directory that cannot be made names the path.
        let file = d.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let e = Paths::new(&file).create().unwrap_err();
        assert!(e.to_string().contains("uploads: cannot create it: "), "{e}");
    }

    #[test]
    fn a_lock_released_a_moment_later_is_taken_not_refused() {
        // A killed server's child may hold the lock's descriptor for a few milliseconds
        // after the server is gone: a restart then waits for it instead of failing.
        let d = tempfile::tempdir().unwrap();
        let paths = Paths::new(d.path());
        paths.create().unwrap();
        let held = paths.lock().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(held);
        });
        let took = paths.lock_within(std::time::Duration::from_secs(10));
        release.join().unwrap();
        assert!(took.is_ok(), "{:?}", took.err());
    }
}
