//! `durak backup --data-dir DIR --out NEW`: a copy of a data directory, taken while the server
//! runs, that `durak serve --data-dir NEW` serves as it was (issue 24).
//!
//! 1. The database through SQLite's online backup (one step: a consistent snapshot; the
//!    server goes on writing meanwhile, WAL readers do not block it).
//! 2. The files that snapshot names, and only those: every game's replay kept as a file (older
//!    servers' games: the replays of games recorded now are in the database, and so in the
//!    snapshot) and every version's upload are hard-linked (they never change once their row is committed: replays and
//!    uploads are written whole, fsynced, then renamed in before it), or copied when `NEW` is
//!    on another file system; versions' folders (a bot may write in its own) and fixed
//!    tournaments' directories (their results grow) are copied, but a tournament's replays are
//!    linked, after its results file is copied (a result line is never on disk before its
//!    replay).
//! 3. The paths the database holds (versions' archives and folders, tournaments' directories)
//!    rewritten to `NEW`, and everything synced to the disk.
//!
//! A game whose replay is missing in `DIR` is not an error of the copy: it is named in the
//! summary (the original server has lost it too).

use crate::db::Db;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// Why a backup was refused or stopped: the path, what failed and, for a refusal, the fix.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(
        "{}: no service.db here: not a data directory of `durak serve`\n  fix: give the folder \
         the server was started with (--data-dir DIR)",
        src.display()
    )]
    NotADataDirectory { src: PathBuf },
    #[error(
        "{}: exists and is not an empty folder\n  fix: give --out a new folder (a backup never \
         writes over anything)",
        out.display()
    )]
    OutNotEmpty { out: PathBuf },
    /// A file or folder failed (`what`: what was being done, ending in ": ", or empty).
    #[error("{}: {what}{source}", path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("cannot copy {} to {}: {source}", from.display(), to.display())]
    Copy {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
    /// SQLite's online backup failed (`what` as for [`BackupError::Io`]).
    #[error("{}: {what}{source}", path.display())]
    Snapshot {
        path: PathBuf,
        what: &'static str,
        source: rusqlite::Error,
    },
    #[error(transparent)]
    DataDir(#[from] crate::store::DataDirError),
    #[error(transparent)]
    Open(#[from] crate::db::OpenError),
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
}

/// A failure of `path` (`what`: what was being done), for `map_err`.
fn io(path: &Path, what: &'static str) -> impl FnOnce(std::io::Error) -> BackupError {
    let path = path.to_path_buf();
    move |source| BackupError::Io { path, what, source }
}

fn sqlite(path: &Path, what: &'static str) -> impl FnOnce(rusqlite::Error) -> BackupError {
    let path = path.to_path_buf();
    move |source| BackupError::Snapshot { path, what, source }
}

/// What a backup copied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games in the database copied.
    pub games: u64,
    /// Files hard-linked, and copied.
    pub linked: u64,
    pub copied: u64,
    /// Bytes of the files (linked or copied) and of the database.
    pub bytes: u64,
    /// Files the database names that `DIR` did not have (relative to it).
    pub missing: Vec<String>,
}

/// Back up the data directory `src` into `out` (a new folder, or an empty one).
pub fn backup(src: &Path, out: &Path) -> Result<Summary, BackupError> {
    let src_db = src.join("service.db");
    if !src_db.is_file() {
        return Err(BackupError::NotADataDirectory {
            src: src.to_path_buf(),
        });
    }
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(BackupError::OutNotEmpty {
                out: out.to_path_buf(),
            });
        }
    }
    let src = std::fs::canonicalize(src).map_err(io(src, ""))?;
    std::fs::create_dir_all(out).map_err(io(out, "cannot create it: "))?;
    let out = std::fs::canonicalize(out).map_err(io(out, ""))?;
    let paths = crate::store::Paths::new(&out);
    paths.create()?;
    let out_db = paths.db();
    crate::store::private_db(&out_db)?;
    snapshot(&src_db, &out_db)?;
    let mut summary = Summary {
        bytes: std::fs::metadata(&out_db).map(|m| m.len()).unwrap_or(0),
        ..Summary::default()
    };
    let db = Db::open(&out_db)?;
    let mut files = Files {
        src: &src,
        out: &out,
        link: true,
        summary: &mut summary,
    };
    // Every game's replay kept as a file (the others are in the snapshot).
    let replays: Vec<String> = db.read(|c| {
        let mut s = c.prepare("SELECT replay FROM games")?;
        let r = s.query_map([], |r| r.get(0))?;
        r.collect()
    })?;
    files.summary.games = replays.len() as u64;
    for rel in replays
        .iter()
        .filter(|r| !crate::store::replays::is_in_db(r))
    {
        files.link(Path::new(rel))?;
    }
    // Every version's upload and folder (the house bots have neither).
    type VersionFiles = (i64, Option<String>, Option<String>);
    let versions: Vec<VersionFiles> = db.read(|c| {
        let mut s = c.prepare("SELECT id, archive, folder FROM versions")?;
        let r = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        r.collect()
    })?;
    let mut moved = Vec::new();
    for (id, archive, folder) in versions {
        let upload = format!("uploads/v{id}.archive");
        let unpacked = format!("bots/v{id}");
        let new_archive = archive.as_ref().map(|_| out.join(&upload));
        if archive.is_some() {
            files.link(Path::new(&upload))?;
        }
        let new_folder = match &folder {
            Some(f) => {
                files.copy_tree(Path::new(&unpacked), false)?;
                // The folder is `bots/vID` or a folder inside it.
                let inside = inside_of(&src, f, &unpacked).unwrap_or_default();
                Some(out.join(&unpacked).join(inside))
            }
            None => None,
        };
        moved.push((id, new_archive, new_folder));
    }
    // Fixed tournaments.
    let tournaments: Vec<(i64, String)> = db.read(|c| {
        let mut s = c.prepare("SELECT id, dir FROM tournaments")?;
        let r = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        r.collect()
    })?;
    for (id, dir) in &tournaments {
        if dir.is_empty() {
            continue;
        }
        files.copy_tree(Path::new(&format!("tournaments/{id}")), true)?;
    }
    // The paths in the database, to the copy's.
    db.write(|c| {
        let tx = c.transaction()?;
        for (id, archive, folder) in &moved {
            tx.execute(
                "UPDATE versions SET archive = ?1, folder = ?2 WHERE id = ?3",
                rusqlite::params![
                    archive.as_ref().map(|p| p.display().to_string()),
                    folder.as_ref().map(|p| p.display().to_string()),
                    id
                ],
            )?;
        }
        for (id, dir) in &tournaments {
            if !dir.is_empty() {
                let d = out.join(format!("tournaments/{id}"));
                tx.execute(
                    "UPDATE tournaments SET dir = ?1 WHERE id = ?2",
                    rusqlite::params![d.display().to_string(), id],
                )?;
            }
        }
        tx.commit()
    })?;
    drop(db);
    paths.make_private(false)?;
    // Links and copies made, the database rewritten: all of it on the disk (one syncfs).
    let root = std::fs::File::open(&out).map_err(io(&out, ""))?;
    rustix::fs::syncfs(&root).map_err(|e| io(&out, "cannot sync: ")(e.into()))?;
    Ok(summary)
}

/// The database `src` copied into `out` by SQLite's online backup, in one step: the copy is
/// the database as of one commit, whatever the server writes meanwhile.
fn snapshot(src: &Path, out: &Path) -> Result<(), BackupError> {
    let from = Connection::open_with_flags(
        src,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite(src, ""))?;
    from.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(sqlite(src, ""))?;
    let mut to = Connection::open(out).map_err(sqlite(out, ""))?;
    {
        let b = rusqlite::backup::Backup::new(&from, &mut to)
            .map_err(sqlite(src, "cannot start the backup: "))?;
        loop {
            match b.step(-1) {
                Ok(rusqlite::backup::StepResult::Done) => break,
                Ok(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
                Err(e) => return Err(sqlite(src, "the backup failed: ")(e)),
            }
        }
    }
    Ok(())
}

/// Where the folder `stored` (as the database holds it) is inside `unpacked` (`bots/vID`):
/// the rest of its path after it, if it is there at all.
fn inside_of(src: &Path, stored: &str, unpacked: &str) -> Option<PathBuf> {
    let stored = Path::new(stored);
    if let Ok(rest) = stored.strip_prefix(src.join(unpacked)) {
        return Some(rest.to_path_buf());
    }
    // Another spelling of the data directory (relative, or through a link): from the
    // `bots/vID` component on.
    let parts: Vec<_> = stored.components().collect();
    let want: Vec<_> = Path::new(unpacked).components().collect();
    let at = parts
        .windows(want.len())
        .position(|w| w == want.as_slice())?;
    Some(parts[at + want.len()..].iter().collect())
}

/// Linking and copying files from the data directory to the backup.
struct Files<'a> {
    src: &'a Path,
    out: &'a Path,
    /// Hard links work (until one fails: another file system).
    link: bool,
    summary: &'a mut Summary,
}

impl Files<'_> {
    /// Hard-link (or copy) the file `rel`, which never changes once written.
    fn link(&mut self, rel: &Path) -> Result<(), BackupError> {
        let from = self.src.join(rel);
        let to = self.out.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            self.summary.missing.push(rel.display().to_string());
            return Ok(());
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent, "cannot create it: "))?;
        }
        if self.link {
            match std::fs::hard_link(&from, &to) {
                Ok(()) => {
                    self.summary.linked += 1;
                    self.summary.bytes += meta.len();
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(io(&to, "")(e))
                }
                // Another file system (EXDEV) or links not allowed: copies from now on.
                Err(_) => self.link = false,
            }
        }
        self.copy_file(&from, &to, meta.len())
    }

    fn copy_file(&mut self, from: &Path, to: &Path, len: u64) -> Result<(), BackupError> {
        std::fs::copy(from, to).map_err(|source| BackupError::Copy {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            source,
        })?;
        self.summary.copied += 1;
        self.summary.bytes += len;
        Ok(())
    }

    /// Copy the folder `rel` (files, folders and symbolic links as they are); with
    /// `link_replays`, the files under its `replays/` are linked, after everything else is
    /// copied.
    fn copy_tree(&mut self, rel: &Path, link_replays: bool) -> Result<(), BackupError> {
        if !self.src.join(rel).is_dir() {
            self.summary.missing.push(rel.display().to_string());
            return Ok(());
        }
        let mut later = Vec::new();
        let mut todo = vec![rel.to_path_buf()];
        while let Some(d) = todo.pop() {
            let to = self.out.join(&d);
            std::fs::create_dir_all(&to).map_err(io(&to, "cannot create it: "))?;
            let from = self.src.join(&d);
            let entries = std::fs::read_dir(&from).map_err(io(&from, ""))?;
            for e in entries {
                let e = e.map_err(io(&from, ""))?;
                let r = d.join(e.file_name());
                let t = e.file_type().map_err(io(&from, ""))?;
                if t.is_dir() {
                    if link_replays && r == rel.join("replays") {
                        later.push(r);
                    } else {
                        todo.push(r);
                    }
                } else if t.is_symlink() {
                    let target = std::fs::read_link(e.path()).map_err(io(&e.path(), ""))?;
                    let link = self.out.join(&r);
                    std::os::unix::fs::symlink(&target, &link).map_err(io(&link, ""))?;
                } else if t.is_file() {
                    let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                    self.copy_file(&e.path(), &self.out.join(&r), len)?;
                }
                // Fifos and sockets are refused in bots' folders (`build_check.rs`); none is
                // copied.
            }
        }
        for d in later {
            let from = self.src.join(&d);
            let entries = std::fs::read_dir(&from).map_err(io(&from, ""))?;
            for e in entries {
                let e = e.map_err(io(&from, ""))?;
                if e.file_type().is_ok_and(|t| t.is_file()) {
                    self.link(&d.join(e.file_name()))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_inside_a_versions_unpacked_folder_is_found_whatever_the_spelling() {
        let src = Path::new("/srv/data");
        assert_eq!(
            inside_of(src, "/srv/data/bots/v3/bot", "bots/v3"),
            Some(PathBuf::from("bot"))
        );
        assert_eq!(
            inside_of(src, "/srv/data/bots/v3", "bots/v3"),
            Some(PathBuf::new())
        );
        assert_eq!(
            inside_of(src, "data/bots/v3/a/b", "bots/v3"),
            Some(PathBuf::from("a/b"))
        );
        assert_eq!(inside_of(src, "/elsewhere/v3", "bots/v3"), None);
    }

    #[test]
    fn refuses_a_folder_that_is_not_a_data_directory_or_an_out_that_is_not_empty() {
        let d = tempfile::tempdir().unwrap();
        let e = backup(&d.path().join("nothing"), &d.path().join("out")).unwrap_err();
        assert!(matches!(e, BackupError::NotADataDirectory { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("no service.db here") && e.contains("fix:"),
            "{e}"
        );
        assert!(!d.path().join("out").exists(), "nothing made");
        let data = d.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        Db::open(&data.join("service.db")).unwrap();
        let out = d.path().join("full");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("x"), "keep").unwrap();
        let e = backup(&data, &out).unwrap_err();
        assert!(matches!(e, BackupError::OutNotEmpty { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("is not an empty folder") && e.contains("fix:"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(out.join("x")).unwrap(), "keep");
    }
}
