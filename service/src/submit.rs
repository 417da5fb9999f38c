//! Accepting an upload, unpacked once (issue 24). The archive is hashed as it is received
//! ([`Received`], `http/api/accounts.rs`), then unpacked (safely, `archive.rs`) into a staging
//! folder of `DATA/bots/` and its `bot.toml` read before anything is kept, so a bad upload is
//! refused at once with the reason. A good one is made durable in one pass — the archive and
//! every file and folder unpacked fsynced once ([`sync_tree`]), renamed into place, their
//! folders fsynced — then the version's row committed, before the upload is acknowledged. The
//! checker builds and checks that folder as it is (`checker.rs`); the archive is kept for the
//! backups, the authors' storage and a check cut short by a kill, which starts again from it.

use crate::archive;
use crate::auth::Account;
use crate::config::Config;
use crate::db::{now_ms, Db};
use crate::store::{self, Paths, Version};
use durak_checkbot::manifest::{self, Manifest};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Why an upload was refused: an HTTP status and the message.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    pub status: u16,
    pub message: String,
    /// Seconds until it may be tried again (a quota's `Retry-After`).
    pub retry_after: Option<u64>,
}

fn refused(status: u16, message: impl Into<String>) -> Refused {
    Refused {
        status,
        message: message.into(),
        retry_after: None,
    }
}

impl From<crate::quota::OverQuota> for Refused {
    fn from(q: crate::quota::OverQuota) -> Refused {
        Refused {
            status: q.status,
            message: q.message,
            retry_after: q.retry_after,
        }
    }
}

/// An upload's `bot.toml` refused (400): unreadable, or what its reader says (the line and
/// column, the key, the fix).
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{}: cannot read it: {}", manifest::FILE, .0)]
    Unreadable(std::io::Error),
    #[error("{0}")]
    Invalid(String),
}

/// `bot.toml` read by its one reader (`durak_checkbot::manifest`), with its optional `build`
/// key: the text as the author wrote it, so that an error names the line and column where it
/// is (issue 22: a reparse here once made every error line 1).
pub fn read_manifest(folder: &Path) -> Result<(Manifest, Option<String>), ManifestError> {
    let path = folder.join(manifest::FILE);
    let text = std::fs::read_to_string(&path).map_err(ManifestError::Unreadable)?;
    let m = Manifest::parse(&text, Path::new(manifest::FILE))
        .map_err(|e| ManifestError::Invalid(e.to_string()))?;
    let build = m.build.clone();
    Ok((m, build))
}

/// An upload received whole into a file of the uploads folder: its SHA-256 and size counted
/// as its bytes arrived ([`Receiving`]), so the archive is never read again to hash it.
pub struct Received {
    pub file: tempfile::NamedTempFile,
    pub sha256: String,
    pub size: u64,
}

/// An upload being received: its bytes hashed and counted as they are written.
#[derive(Default)]
pub struct Receiving {
    hash: Sha256,
    size: u64,
}

impl Receiving {
    pub fn add(&mut self, bytes: &[u8]) {
        self.hash.update(bytes);
        self.size += bytes.len() as u64;
    }

    /// Bytes so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn done(self, file: tempfile::NamedTempFile) -> Received {
        Received {
            file,
            sha256: self
                .hash
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            size: self.size,
        }
    }
}

/// The upload limits of `cfg`.
pub fn limits(cfg: &Config) -> archive::Limits {
    archive::Limits {
        max_unpacked: cfg.upload.max_unpacked,
        max_files: cfg.upload.max_files,
    }
}

/// `archive` unpacked into a staging folder of `DATA/bots/` (`.unpack-*`: renamed into place
/// by the caller, removed when dropped otherwise), and where its bot's folder is inside it.
pub fn stage(
    paths: &Paths,
    archive: &Path,
    limits: archive::Limits,
) -> Result<(tempfile::TempDir, PathBuf), archive::ArchiveError> {
    let tmp = tempfile::Builder::new()
        .prefix(".unpack-")
        .tempdir_in(paths.bots())
        .map_err(|source| archive::ArchiveError::Local {
            what: format!("cannot make a folder in {}: ", paths.bots().display()),
            source,
        })?;
    crate::metrics::unpacked();
    let unpacked = archive::unpack(archive, tmp.path(), limits)?;
    let rel = unpacked
        .folder
        .strip_prefix(tmp.path())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok((tmp, rel))
}

/// Take the upload `upload` (received whole into a file of the uploads folder) for `account`.
/// On success the version is queued for its check and on disk, unpacked in its place (with a
/// note when its `bot.toml` names another author, [`author_note`]). An author (not the
/// organiser) meets the `[quota]`: uploads per UTC day (429) and storage (413), checked in the
/// transaction that keeps the version, so uploads at once cannot pass them together.
pub fn accept(
    db: &Db,
    paths: &Paths,
    cfg: &Config,
    account: &Account,
    upload: &Received,
) -> Result<(Version, Option<String>), Refused> {
    let (tmp, rel_folder) = stage(paths, upload.file.path(), limits(cfg))
        .map_err(|e| refused(e.status(), e.to_string()))?;
    let (m, build) =
        read_manifest(&tmp.path().join(&rel_folder)).map_err(|e| refused(400, e.to_string()))?;
    durak_referee::BotCommand::parse(&m.command).map_err(|e| {
        refused(
            400,
            format!("{}: command = {:?}: {e}", manifest::FILE, m.command),
        )
    })?;
    let (sha, size) = (&upload.sha256, upload.size as i64);
    // Durable, in one pass: the archive's bytes and every file and folder unpacked (their
    // names in `uploads/` and `bots/` once renamed, below).
    upload
        .file
        .as_file()
        .sync_all()
        .and_then(|_| sync_tree(tmp.path()))
        .map_err(|e| refused(500, format!("cannot make the upload durable: {e}")))?;
    let now = now_ms();
    let adding = size as u64 + crate::build::folder_size(tmp.path()).0;
    let result: Result<i64, Refused> = db
        .write(|c| {
            let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            if !account.organiser {
                let q = &cfg.quota;
                if let Err(over) = crate::quota::check_daily(&tx, q, account.id, now)? {
                    return Ok(Err(over.into()));
                }
                if let Err(over) = crate::quota::check_storage(&tx, paths, q, account.id, adding)? {
                    return Ok(Err(over.into()));
                }
            }
            let bot: Option<(i64, i64, i64)> = tx
                .query_row(
                    "SELECT id, account, house FROM bots WHERE name = ?1",
                    [&m.name],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let bot_id = match bot {
                Some((_, owner, _)) if owner != account.id => {
                    return Ok(Err(refused(
                        403,
                        format!(
                            "{}: name = {:?}: this bot belongs to another author; fix: choose \
                             another name in {}",
                            manifest::FILE,
                            m.name,
                            manifest::FILE
                        ),
                    )))
                }
                Some((id, _, _)) => id,
                None => {
                    tx.execute(
                        "INSERT INTO bots(name, account, created) VALUES (?1, ?2, ?3)",
                        params![m.name, account.id, now],
                    )?;
                    tx.last_insert_rowid()
                }
            };
            let n: i64 = tx.query_row(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM versions WHERE bot = ?1",
                [bot_id],
                |r| r.get(0),
            )?;
            let id = crate::domain::versions::insert_queued(
                &tx,
                bot_id,
                n,
                &m.command,
                &m.language,
                build.as_deref(),
                sha,
                size,
                now,
            )?;
            // The files into place (a kill before the commit leaves files under an id that
            // the next upload may get: they are replaced).
            let archive_to = paths.upload(id);
            let folder_to = paths.unpacked(id);
            let _ = std::fs::remove_file(&archive_to);
            let _ = std::fs::remove_dir_all(&folder_to);
            let moved = std::fs::rename(upload.file.path(), &archive_to)
                .and_then(|_| std::fs::rename(tmp.path(), &folder_to))
                .and_then(|_| sync_dir(&paths.uploads()))
                .and_then(|_| sync_dir(&paths.bots()));
            if let Err(e) = moved {
                return Ok(Err(refused(500, format!("cannot keep the upload: {e}"))));
            }
            let folder = folder_to.join(&rel_folder);
            tx.execute(
                "UPDATE versions SET archive = ?1, folder = ?2 WHERE id = ?3",
                params![
                    archive_to.display().to_string(),
                    folder.display().to_string(),
                    id
                ],
            )?;
            tx.commit()?;
            Ok(Ok(id))
        })
        .map_err(|e| refused(500, e.to_string()))?;
    let id = result?;
    // The temporary folder was renamed away: dropping it removes nothing.
    drop(tmp);
    let v = store::version(db, id)
        .map_err(|e| refused(500, e.to_string()))?
        .ok_or_else(|| refused(500, "the version vanished"))?;
    Ok((v, author_note(&m.author, &account.name)))
}

/// What to tell an author whose `bot.toml` names another author than their account (issue 24:
/// it was replaced without a word): the pages and the leaderboard name the account.
pub fn author_note(manifest: &str, account: &str) -> Option<String> {
    let m = manifest.trim();
    (m != account).then(|| {
        format!(
            "{}: author = {m:?} is not this account's name: the leaderboard and the pages name \
             the account that submitted it, {account:?}",
            manifest::FILE
        )
    })
}

pub fn sync_dir(d: &Path) -> std::io::Result<()> {
    std::fs::File::open(d)?.sync_all()
}

/// Threads fsyncing an upload's files at once: the file system commits their journal entries
/// together (one fsync after another, a 1000-file upload took 0.3 s more on the development
/// machine).
const SYNC_THREADS: usize = 8;

/// Make a folder the unpacker made durable: each file and folder in it fsynced once (a
/// symbolic link is its folder's entry; links are not followed), the files by
/// [`SYNC_THREADS`] threads.
pub fn sync_tree(dir: &Path) -> std::io::Result<()> {
    let (mut files, mut dirs) = (Vec::new(), vec![dir.to_path_buf()]);
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let t = e.file_type()?;
            if t.is_dir() {
                todo.push(e.path());
                dirs.push(e.path());
            } else if t.is_file() {
                files.push(e.path());
            }
        }
    }
    let sync = |p: &PathBuf| std::fs::File::open(p).and_then(|f| f.sync_all());
    let per = files.len().div_ceil(SYNC_THREADS).max(1);
    std::thread::scope(|s| {
        let running: Vec<_> = files
            .chunks(per)
            .map(|part| s.spawn(move || part.iter().try_for_each(sync)))
            .collect();
        running.into_iter().try_for_each(|t| {
            t.join()
                .unwrap_or_else(|_| Err(std::io::Error::other("panicked")))
        })
    })?;
    dirs.iter().try_for_each(sync)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An upload hashed as its chunks arrive has the SHA-256 of its whole bytes (it is never
    /// read again to hash it), and its size.
    #[test]
    fn an_upload_is_hashed_as_it_is_received() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut got = Receiving::default();
        for chunk in bytes.chunks(8191) {
            got.add(chunk);
        }
        assert_eq!(got.size(), bytes.len() as u64);
        let r = got.done(tempfile::NamedTempFile::new().unwrap());
        let whole: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!((r.sha256, r.size), (whole, bytes.len() as u64));
    }

    /// The durable pass reaches every file and folder the unpacker made, and does not follow
    /// a symbolic link out of the folder.
    #[test]
    fn the_durable_pass_syncs_the_tree_without_following_links() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("t");
        std::fs::create_dir_all(t.join("a/b")).unwrap();
        std::fs::write(t.join("a/b/f"), "x").unwrap();
        std::os::unix::fs::symlink("/nonexistent/out", t.join("a/out")).unwrap();
        sync_tree(&t).unwrap();
        assert!(sync_tree(&d.path().join("missing")).is_err());
    }

    #[test]
    fn a_bot_toml_error_names_the_line_it_is_on() {
        let d = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(d.path().join(manifest::FILE), text).unwrap();
        let e = read_manifest(d.path()).unwrap_err();
        assert!(matches!(e, ManifestError::Unreadable(_)), "{e:?}");
        assert!(
            e.to_string().starts_with("bot.toml: cannot read it: "),
            "{e}"
        );
        let head = "name = \"b\"\ncommand = \"python3 bot.py\"\nauthor = \"Ada\"\n";
        // A key misspelt on line 4.
        write(&format!("{head}langauge = \"python\"\n"));
        let e = read_manifest(d.path()).unwrap_err().to_string();
        assert!(e.contains("line 4"), "{e}");
        assert!(e.contains("langauge") && e.contains("fix:"), "{e}");
        // A TOML error (an unquoted string) on line 5.
        write(&format!("{head}language = \"python\"\nbuild = make\n"));
        let e = read_manifest(d.path()).unwrap_err().to_string();
        assert!(e.contains("line 5"), "{e}");
        // A build that is not a string, on line 4.
        write(&format!("{head}build = 3\nlanguage = \"python\"\n"));
        let e = read_manifest(d.path()).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("build"), "{e}");
        write(&format!("{head}language = \"python\"\nbuild = \"make\"\n"));
        let (m, build) = read_manifest(d.path()).unwrap();
        assert_eq!((m.name.as_str(), build.as_deref()), ("b", Some("make")));
    }
}
