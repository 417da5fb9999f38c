//! Accepting an upload: the archive is unpacked (safely, `archive.rs`) and its `bot.toml` read
//! before anything is kept, so a bad upload is refused at once with the reason; a good one is
//! made durable — the archive and the unpacked folder renamed into place and fsynced, then the
//! version's row committed — before the upload is acknowledged. The checker takes it from
//! there (`checker.rs`).

use crate::archive;
use crate::auth::Account;
use crate::config::Config;
use crate::db::{now_ms, Db};
use crate::store::{self, Paths, Version};
use durak_checkbot::manifest::{self, Manifest};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};
use std::path::Path;

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

/// Take the upload at `upload` (a file in the uploads folder, all of it received) for
/// `account`. On success the version is queued for its check and on disk (with a note when
/// its `bot.toml` names another author, [`author_note`]). An author (not the
/// organiser) meets the `[quota]`: uploads per UTC day (429) and storage (413), checked in the
/// transaction that keeps the version, so uploads at once cannot pass them together.
pub fn accept(
    db: &Db,
    paths: &Paths,
    cfg: &Config,
    account: &Account,
    upload: &Path,
) -> Result<(Version, Option<String>), Refused> {
    let limits = archive::Limits {
        max_unpacked: cfg.upload.max_unpacked,
        max_files: cfg.upload.max_files,
    };
    let tmp = tempfile::Builder::new()
        .prefix(".unpack-")
        .tempdir_in(paths.bots())
        .map_err(|e| refused(500, format!("cannot unpack: {e}")))?;
    let unpacked = archive::unpack(upload, tmp.path(), limits)
        .map_err(|e| refused(e.status(), e.to_string()))?;
    let (m, build) = read_manifest(&unpacked.folder).map_err(|e| refused(400, e.to_string()))?;
    durak_referee::BotCommand::parse(&m.command).map_err(|e| {
        refused(
            400,
            format!("{}: command = {:?}: {e}", manifest::FILE, m.command),
        )
    })?;
    let bytes = std::fs::read(upload).map_err(|e| refused(500, e.to_string()))?;
    let sha: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let size = bytes.len() as i64;
    let rel_folder = unpacked
        .folder
        .strip_prefix(tmp.path())
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    // Durable: the archive's bytes first.
    std::fs::File::open(upload)
        .and_then(|f| f.sync_all())
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
                &sha,
                size,
                now,
            )?;
            // The files into place (a kill before the commit leaves files under an id that
            // the next upload may get: they are replaced).
            let archive_to = paths.upload(id);
            let folder_to = paths.unpacked(id);
            let _ = std::fs::remove_file(&archive_to);
            let _ = std::fs::remove_dir_all(&folder_to);
            let moved = std::fs::rename(upload, &archive_to)
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

#[cfg(test)]
mod tests {
    use super::*;

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
