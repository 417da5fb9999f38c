//! Uploaded bot folders: a tar.gz or zip archive unpacked safely, or refused with a message
//! that says what was wrong.
//!
//! Refused: an archive that is neither; more entries than `max_files`; more than
//! `max_unpacked` bytes once unpacked (counted as they are written, whatever the headers claim:
//! a decompression bomb stops at the limit); a path that is absolute, has a `..`, or goes
//! through a symlink; a symlink that is absolute or has a `..` (so it can only lead further
//! down the folder); a hard link to anything but a file earlier in the archive; devices, fifos
//! and the like. Files keep only their executable bit. The bot's folder is the archive's root,
//! or its only top-level folder when `bot.toml` is there.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// The limits of one upload.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_unpacked: u64,
    pub max_files: u64,
}

/// What was unpacked.
#[derive(Debug)]
pub struct Unpacked {
    /// The bot's folder (holding `bot.toml`), inside the destination.
    pub folder: PathBuf,
    pub files: u64,
    pub bytes: u64,
}

const MAX_PATH: usize = 1024;
const MAX_DEPTH: usize = 32;

/// Why an archive was refused (or could not be unpacked here), each with what to do about it.
/// Every variant but [`ArchiveError::Local`] is the upload's fault: [`ArchiveError::status`].
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("the path {start:?}... is longer than {MAX_PATH} bytes")]
    PathTooLong { start: String },
    #[error("the path {path:?} has a \"..\": an archive's entries must stay inside its folder")]
    ParentDir { path: String },
    #[error("the path {path:?} is absolute: an archive's entries must be relative to its folder")]
    Absolute { path: String },
    #[error("the path {path:?} is more than {MAX_DEPTH} folders deep")]
    TooDeep { path: String },
    #[error(
        "the archive has more than {max} entries (files, folders, links): the limit of this server"
    )]
    TooManyEntries { max: u64 },
    #[error(
        "the entry {entry} goes through the symlink {link}: refused (it could lead out of the \
         folder)"
    )]
    ThroughSymlink { entry: String, link: String },
    #[error("the archive holds {entry} twice: refused")]
    Twice { entry: String },
    #[error(
        "the archive unpacks to more than {max} bytes (a decompression bomb, or simply too big): \
         the limit of this server; leave out build outputs and data the bot does not need"
    )]
    TooBig { max: u64 },
    #[error(
        "the symlink {link} -> {target:?} points out of the folder (absolute, or with a \"..\"): \
         refused; a symlink in a bot's folder may only point further down it"
    )]
    LinkOut { link: String, target: String },
    #[error("the hard link {link} -> {target:?} points out of the folder: {why}")]
    HardLinkOut {
        link: String,
        target: String,
        why: Box<ArchiveError>,
    },
    #[error(
        "the hard link {link} -> {target:?} does not point to a file earlier in the archive: \
         refused"
    )]
    HardLinkNotFile { link: String, target: String },
    #[error(
        "the entry {entry} is a {kind} (a device, fifo or the like): a bot's folder holds only \
         files, folders and symlinks"
    )]
    Special { entry: String, kind: String },
    /// The archive's bytes cannot be read as what they claim to be (`what`: the detail).
    #[error("{what}")]
    Damaged { what: String },
    #[error(
        "the upload is not a tar.gz or zip archive: pack the bot's folder with `tar czf \
         bot.tar.gz -C my-bot .` or `zip -r bot.zip .` inside it (durak submit --server does it \
         for you)"
    )]
    NotAnArchive,
    #[error(
        "the archive has no {manifest} at its root (nor in its only folder): pack the bot's \
         folder, the one holding {manifest}",
        manifest = durak_checkbot::manifest::FILE
    )]
    NoManifest,
    /// This machine failed (a folder or file that cannot be created or read): not the upload's
    /// fault. `what`: what was being done.
    #[error("{what}{source}")]
    Local {
        what: String,
        source: std::io::Error,
    },
}

impl ArchiveError {
    /// The HTTP status of an upload refused so: 400 for the archive's faults, 500 for this
    /// machine's.
    pub fn status(&self) -> u16 {
        match self {
            ArchiveError::Local { .. } => 500,
            _ => 400,
        }
    }
}

/// A failure of this machine, `what` (ending in ": ", or empty) being what was being done.
fn local(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ArchiveError {
    let what = what.into();
    move |source| ArchiveError::Local { what, source }
}

fn damaged(what: String) -> ArchiveError {
    ArchiveError::Damaged { what }
}

/// The archive's kind from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    TarGz,
    Zip,
}

pub fn kind(head: &[u8]) -> Option<Kind> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Kind::TarGz)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Kind::Zip)
    } else {
        None
    }
}

struct Writer<'a> {
    dest: &'a Path,
    limits: Limits,
    files: u64,
    bytes: u64,
}

/// A relative path inside the archive, checked: no root, no `..`, not too long or deep.
fn clean(name: &str) -> Result<PathBuf, ArchiveError> {
    if name.len() > MAX_PATH {
        return Err(ArchiveError::PathTooLong {
            start: name[..64].to_string(),
        });
    }
    let p = Path::new(name);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => return Err(ArchiveError::ParentDir { path: name.into() }),
            Component::RootDir | Component::Prefix(_) => {
                return Err(ArchiveError::Absolute { path: name.into() })
            }
        }
    }
    if out.components().count() > MAX_DEPTH {
        return Err(ArchiveError::TooDeep { path: name.into() });
    }
    Ok(out)
}

impl Writer<'_> {
    fn count(&mut self) -> Result<(), ArchiveError> {
        self.files += 1;
        if self.files > self.limits.max_files {
            return Err(ArchiveError::TooManyEntries {
                max: self.limits.max_files,
            });
        }
        Ok(())
    }

    /// The destination of `rel`, after checking that no folder on the way is a symlink.
    fn target(&self, rel: &Path) -> Result<PathBuf, ArchiveError> {
        let mut cur = self.dest.to_path_buf();
        let comps: Vec<_> = rel.components().collect();
        for (i, c) in comps.iter().enumerate() {
            cur.push(c);
            if i + 1 < comps.len() {
                if let Ok(m) = std::fs::symlink_metadata(&cur) {
                    if m.file_type().is_symlink() {
                        return Err(ArchiveError::ThroughSymlink {
                            entry: rel.display().to_string(),
                            link: cur
                                .strip_prefix(self.dest)
                                .unwrap_or(&cur)
                                .display()
                                .to_string(),
                        });
                    }
                }
            }
        }
        Ok(cur)
    }

    fn dir(&mut self, rel: &Path) -> Result<(), ArchiveError> {
        self.count()?;
        let to = self.target(rel)?;
        std::fs::create_dir_all(&to).map_err(local(format!("cannot create {}: ", rel.display())))
    }

    fn file(
        &mut self,
        rel: &Path,
        data: &mut dyn Read,
        executable: bool,
    ) -> Result<(), ArchiveError> {
        self.count()?;
        let to = self.target(rel)?;
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(local(format!(
                "cannot create the folder of {}: ",
                rel.display()
            )))?;
        }
        if std::fs::symlink_metadata(&to).is_ok() {
            return Err(ArchiveError::Twice {
                entry: rel.display().to_string(),
            });
        }
        let mut f = std::fs::File::create(&to)
            .map_err(local(format!("cannot create {}: ", rel.display())))?;
        let room = self.limits.max_unpacked - self.bytes;
        let n = std::io::copy(&mut data.take(room + 1), &mut f).map_err(|e| {
            damaged(format!(
                "the archive is damaged: cannot read {}: {e}",
                rel.display()
            ))
        })?;
        self.bytes += n;
        if self.bytes > self.limits.max_unpacked {
            return Err(self.too_big());
        }
        f.flush().map_err(local(""))?;
        use std::os::unix::fs::PermissionsExt;
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(mode)).map_err(local(""))?;
        Ok(())
    }

    fn too_big(&self) -> ArchiveError {
        ArchiveError::TooBig {
            max: self.limits.max_unpacked,
        }
    }

    fn symlink(&mut self, rel: &Path, target: &str) -> Result<(), ArchiveError> {
        self.count()?;
        let t = Path::new(target);
        if t.is_absolute() || t.components().any(|c| c == Component::ParentDir) || target.is_empty()
        {
            return Err(ArchiveError::LinkOut {
                link: rel.display().to_string(),
                target: target.into(),
            });
        }
        let to = self.target(rel)?;
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(local(""))?;
        }
        std::os::unix::fs::symlink(t, &to).map_err(local(format!(
            "cannot create the symlink {}: ",
            rel.display()
        )))
    }

    fn hard_link(&mut self, rel: &Path, target: &str) -> Result<(), ArchiveError> {
        let src_rel = clean(target).map_err(|why| ArchiveError::HardLinkOut {
            link: rel.display().to_string(),
            target: target.into(),
            why: Box::new(why),
        })?;
        let src = self.target(&src_rel)?;
        match std::fs::symlink_metadata(&src) {
            Ok(m) if m.is_file() => {}
            _ => {
                return Err(ArchiveError::HardLinkNotFile {
                    link: rel.display().to_string(),
                    target: target.into(),
                })
            }
        }
        use std::os::unix::fs::PermissionsExt;
        let exec = std::fs::metadata(&src)
            .map(|m| m.permissions().mode() & 0o100 != 0)
            .unwrap_or(false);
        let mut f = std::fs::File::open(&src).map_err(local(""))?;
        self.file(rel, &mut f, exec)
    }
}

/// Unpack the archive at `archive` into `dest` (an empty folder).
pub fn unpack(archive: &Path, dest: &Path, limits: Limits) -> Result<Unpacked, ArchiveError> {
    let mut head = [0u8; 4];
    let mut f = std::fs::File::open(archive).map_err(local("cannot read the upload: "))?;
    let n = f.read(&mut head).map_err(local(""))?;
    let kind = kind(&head[..n]).ok_or(ArchiveError::NotAnArchive)?;
    let f = std::fs::File::open(archive).map_err(local(""))?;
    let mut w = Writer {
        dest,
        limits,
        files: 0,
        bytes: 0,
    };
    match kind {
        Kind::TarGz => unpack_tar(f, &mut w)?,
        Kind::Zip => unpack_zip(f, &mut w)?,
    }
    let folder = bot_folder(dest)?;
    Ok(Unpacked {
        folder,
        files: w.files,
        bytes: w.bytes,
    })
}

fn unpack_tar(f: std::fs::File, w: &mut Writer) -> Result<(), ArchiveError> {
    let gz = flate2::read::GzDecoder::new(std::io::BufReader::new(f));
    let mut a = tar::Archive::new(gz);
    let entries = a
        .entries()
        .map_err(|e| damaged(format!("the archive is damaged: {e}")))?;
    for e in entries {
        let mut e = e.map_err(|e| damaged(format!("the archive is damaged: {e}")))?;
        let path = e
            .path()
            .map_err(|e| damaged(format!("an entry's name cannot be read: {e}")))?
            .to_string_lossy()
            .into_owned();
        use tar::EntryType as T;
        let ty = e.header().entry_type();
        if matches!(
            ty,
            T::XGlobalHeader | T::XHeader | T::GNULongName | T::GNULongLink
        ) {
            continue;
        }
        let rel = clean(&path)?;
        if rel.as_os_str().is_empty() {
            continue; // "./"
        }
        match ty {
            T::Directory => w.dir(&rel)?,
            T::Regular | T::Continuous => {
                let exec = e.header().mode().map(|m| m & 0o100 != 0).unwrap_or(false);
                w.file(&rel, &mut e, exec)?
            }
            T::Symlink => {
                let target = e
                    .link_name()
                    .map_err(|e| damaged(e.to_string()))?
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                w.symlink(&rel, &target)?
            }
            T::Link => {
                let target = e
                    .link_name()
                    .map_err(|e| damaged(e.to_string()))?
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                w.hard_link(&rel, &target)?
            }
            other => {
                return Err(ArchiveError::Special {
                    entry: rel.display().to_string(),
                    kind: format!("{other:?}"),
                })
            }
        }
    }
    Ok(())
}

fn unpack_zip(f: std::fs::File, w: &mut Writer) -> Result<(), ArchiveError> {
    let mut z = zip::ZipArchive::new(std::io::BufReader::new(f))
        .map_err(|e| damaged(format!("the zip archive is damaged: {e}")))?;
    if z.len() as u64 > w.limits.max_files {
        return Err(ArchiveError::TooManyEntries {
            max: w.limits.max_files,
        });
    }
    for i in 0..z.len() {
        let mut e = z
            .by_index(i)
            .map_err(|e| damaged(format!("the zip archive is damaged: {e}")))?;
        let name = e.name().to_string();
        let rel = clean(&name)?;
        if rel.as_os_str().is_empty() {
            continue;
        }
        if e.is_symlink() {
            let mut target = String::new();
            (&mut e)
                .take(MAX_PATH as u64 + 1)
                .read_to_string(&mut target)
                .map_err(|e| damaged(format!("the symlink {name:?} cannot be read: {e}")))?;
            w.symlink(&rel, &target)?;
        } else if e.is_dir() {
            w.dir(&rel)?;
        } else {
            let exec = e.unix_mode().map(|m| m & 0o100 != 0).unwrap_or(false);
            w.file(&rel, &mut e, exec)?;
        }
    }
    Ok(())
}

/// The folder with `bot.toml`: the root, or the only folder at the root.
fn bot_folder(dest: &Path) -> Result<PathBuf, ArchiveError> {
    let manifest = durak_checkbot::manifest::FILE;
    if dest.join(manifest).is_file() {
        return Ok(dest.to_path_buf());
    }
    let entries: Vec<PathBuf> = std::fs::read_dir(dest)
        .map_err(local(""))?
        .flatten()
        .map(|e| e.path())
        .collect();
    if let [only] = entries.as_slice() {
        let is_dir = std::fs::symlink_metadata(only).is_ok_and(|m| m.is_dir());
        if is_dir && only.join(manifest).is_file() {
            return Ok(only.clone());
        }
    }
    Err(ArchiveError::NoManifest)
}

/// Pack a folder as tar.gz (for `durak submit --server`): its files, folders and symlinks as
/// they are (symlinks are not followed; the server decides what it accepts).
pub fn pack(folder: &Path) -> Result<Vec<u8>, ArchiveError> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut b = tar::Builder::new(gz);
    b.follow_symlinks(false);
    b.mode(tar::HeaderMode::Deterministic);
    b.append_dir_all(".", folder)
        .map_err(local(format!("{}: cannot pack it: ", folder.display())))?;
    let gz = b.into_inner().map_err(local(""))?;
    gz.finish().map_err(local(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_unpacked: 1 << 20,
        max_files: 100,
    };

    /// A tar.gz with raw headers: (path, type, data or link target).
    fn tar_gz(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        for (path, ty, data) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(*ty);
            h.set_mode(0o644);
            // Write the name bytes directly: set_path refuses ".." and absolute paths, which is
            // exactly what a hostile archive has.
            let name = path.as_bytes();
            h.as_old_mut().name[..name.len()].copy_from_slice(name);
            match ty {
                tar::EntryType::Symlink | tar::EntryType::Link => {
                    h.set_size(0);
                    let l = data;
                    h.as_old_mut().linkname[..l.len()].copy_from_slice(l);
                    h.set_cksum();
                    b.append(&h, std::io::empty()).unwrap();
                }
                _ => {
                    h.set_size(data.len() as u64);
                    h.set_cksum();
                    b.append(&h, *data).unwrap();
                }
            }
        }
        b.into_inner().unwrap().finish().unwrap()
    }

    fn try_unpack(bytes: &[u8]) -> (tempfile::TempDir, Result<Unpacked, ArchiveError>) {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("upload");
        std::fs::write(&a, bytes).unwrap();
        let dest = d.path().join("out");
        std::fs::create_dir(&dest).unwrap();
        let r = unpack(&a, &dest, LIMITS);
        (d, r)
    }

    const MANIFEST: &[u8] =
        b"name = \"x\"\ncommand = \"python3 bot.py\"\nlanguage = \"python\"\nauthor = \"a\"\n";
    use tar::EntryType as T;

    #[test]
    fn a_good_archive_unpacks_with_its_folder() {
        let (d, r) = try_unpack(&tar_gz(&[
            ("bot/", T::Directory, b""),
            ("bot/bot.toml", T::Regular, MANIFEST),
            ("bot/bot.py", T::Regular, b"print(1)"),
            ("bot/lib/", T::Directory, b""),
            ("bot/lib/link.py", T::Symlink, b"../bot.py"),
        ]));
        // A symlink with ".." is refused even when it would stay inside.
        assert!(r.unwrap_err().to_string().contains("points out"));
        drop(d);
        let (d, r) = try_unpack(&tar_gz(&[
            ("bot/", T::Directory, b""),
            ("bot/bot.toml", T::Regular, MANIFEST),
            ("bot/bot.py", T::Regular, b"print(1)"),
            ("bot/same.py", T::Link, b"bot/bot.py"),
            ("bot/down", T::Symlink, b"lib/x"),
        ]));
        let u = r.unwrap();
        assert_eq!(u.folder, d.path().join("out/bot"));
        assert_eq!(
            std::fs::read(u.folder.join("same.py")).unwrap(),
            b"print(1)"
        );
        assert_eq!(u.files, 5);
    }

    #[test]
    fn path_traversal_and_absolute_paths_are_refused() {
        let (d, r) = try_unpack(&tar_gz(&[
            ("bot.toml", T::Regular, MANIFEST),
            ("../escape.txt", T::Regular, b"x"),
        ]));
        let e = r.unwrap_err().to_string();
        assert!(e.contains("\"..\""), "{e}");
        assert!(!d.path().join("escape.txt").exists());
        let (_d, r) = try_unpack(&tar_gz(&[("/tmp/abs.txt", T::Regular, b"x")]));
        assert!(r.unwrap_err().to_string().contains("absolute"));
        assert!(
            !Path::new("/tmp/abs.txt").exists() || std::fs::read("/tmp/abs.txt").unwrap() != b"x"
        );
    }

    #[test]
    fn links_pointing_out_are_refused() {
        let (_d, r) = try_unpack(&tar_gz(&[("etc", T::Symlink, b"/etc")]));
        assert!(r.unwrap_err().to_string().contains("points out"));
        let (_d, r) = try_unpack(&tar_gz(&[("up", T::Symlink, b"../../x")]));
        assert!(r.unwrap_err().to_string().contains("points out"));
        let (_d, r) = try_unpack(&tar_gz(&[("pw", T::Link, b"/etc/passwd")]));
        assert!(r.unwrap_err().to_string().contains("absolute"));
        let (_d, r) = try_unpack(&tar_gz(&[("pw", T::Link, b"../../etc/passwd")]));
        assert!(r.unwrap_err().to_string().contains("\"..\""));
        // Through a symlink (even one pointing down): refused.
        let (d, r) = try_unpack(&tar_gz(&[
            ("sub/", T::Directory, b""),
            ("l", T::Symlink, b"sub"),
            ("l/x", T::Regular, b"x"),
        ]));
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("goes through the symlink"));
        assert!(!d.path().join("out/sub/x").exists());
        let (_d, r) = try_unpack(&tar_gz(&[("dev", T::Char, b"")]));
        assert!(r.unwrap_err().to_string().contains("device"));
    }

    #[test]
    fn a_decompression_bomb_stops_at_the_limit() {
        // 64 MiB of zeros compresses to about 64 KiB.
        let big = vec![0u8; 64 << 20];
        let bytes = tar_gz(&[
            ("bot.toml", T::Regular, MANIFEST),
            ("zeros", T::Regular, &big),
        ]);
        assert!(bytes.len() < 1 << 20, "{}", bytes.len());
        let (d, r) = try_unpack(&bytes);
        let e = r.unwrap_err().to_string();
        assert!(e.contains("decompression bomb"), "{e}");
        let written = std::fs::metadata(d.path().join("out/zeros")).unwrap().len();
        assert!(written <= LIMITS.max_unpacked + 1, "{written}");
    }

    #[test]
    fn too_many_entries_and_junk_are_refused() {
        let many: Vec<(String, T, &[u8])> = (0..150)
            .map(|i| (format!("f{i}"), T::Regular, &b""[..]))
            .collect();
        let refs: Vec<(&str, T, &[u8])> =
            many.iter().map(|(p, t, d)| (p.as_str(), *t, *d)).collect();
        let (_d, r) = try_unpack(&tar_gz(&refs));
        assert!(r.unwrap_err().to_string().contains("more than 100 entries"));
        let (_d, r) = try_unpack(b"just some text, not an archive");
        assert!(r.unwrap_err().to_string().contains("not a tar.gz or zip"));
        let (_d, r) = try_unpack(&tar_gz(&[("readme", T::Regular, b"x")]));
        assert!(r.unwrap_err().to_string().contains("no bot.toml"));
        let mut truncated = tar_gz(&[("bot.toml", T::Regular, MANIFEST)]);
        truncated.truncate(truncated.len() / 2);
        let (_d, r) = try_unpack(&truncated);
        assert!(r.is_err());
    }

    #[test]
    fn a_refusal_is_the_upload_s_fault_and_a_local_failure_the_server_s() {
        // A hostile archive: 400, its variant naming the entry and why.
        let (_d, r) = try_unpack(&tar_gz(&[("dev", T::Fifo, b"")]));
        let e = r.unwrap_err();
        assert!(
            matches!(&e, ArchiveError::Special { entry, .. } if entry == "dev"),
            "{e:?}"
        );
        assert_eq!(e.status(), 400);
        assert!(
            e.to_string().contains("a bot's folder holds only files"),
            "{e}"
        );
        // This machine failing (the destination is a file, not a folder): 500.
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("upload");
        std::fs::write(&a, tar_gz(&[("sub/", T::Directory, b"")])).unwrap();
        let dest = d.path().join("file");
        std::fs::write(&dest, "x").unwrap();
        let e = unpack(&a, &dest, LIMITS).unwrap_err();
        assert!(matches!(e, ArchiveError::Local { .. }), "{e:?}");
        assert_eq!(e.status(), 500);
        assert!(e.to_string().starts_with("cannot create sub: "), "{e}");
    }

    fn zip_of(entries: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
        let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let o = zip::write::SimpleFileOptions::default();
        for (name, link, data) in entries {
            match link {
                Some(t) => z.add_symlink(*name, *t, o).unwrap(),
                None => {
                    z.start_file(*name, o).unwrap();
                    z.write_all(data).unwrap();
                }
            }
        }
        z.finish().unwrap().into_inner()
    }

    #[test]
    fn zip_archives_are_held_to_the_same_rules() {
        let (_d, r) = try_unpack(&zip_of(&[
            ("bot.toml", None, MANIFEST),
            ("bot.py", None, b"print(1)"),
        ]));
        assert!(r.unwrap().folder.join("bot.py").is_file());
        let (_d, r) = try_unpack(&zip_of(&[("../x", None, b"x")]));
        assert!(r.unwrap_err().to_string().contains("\"..\""));
        let (_d, r) = try_unpack(&zip_of(&[("l", Some("/etc/passwd"), b"")]));
        assert!(r.unwrap_err().to_string().contains("points out"));
        let big = vec![7u8; 8 << 20];
        let (_d, r) = try_unpack(&zip_of(&[
            ("bot.toml", None, MANIFEST),
            ("big", None, &big),
        ]));
        assert!(r.unwrap_err().to_string().contains("decompression bomb"));
    }

    #[test]
    fn a_packed_folder_unpacks_the_same() {
        let d = tempfile::tempdir().unwrap();
        let bot = d.path().join("bot");
        std::fs::create_dir_all(bot.join("src")).unwrap();
        std::fs::write(bot.join("bot.toml"), MANIFEST).unwrap();
        std::fs::write(bot.join("src/a.py"), "x = 1").unwrap();
        let bytes = pack(&bot).unwrap();
        let (_t, r) = try_unpack(&bytes);
        let u = r.unwrap();
        assert_eq!(
            std::fs::read_to_string(u.folder.join("src/a.py")).unwrap(),
            "x = 1"
        );
    }
}
