//! What a build leaves in the bot's folder, checked before the version may pass (issue 22).
//!
//! The version's folder is packed for workers and unpacked there by the safe unpacker
//! (`archive.rs`), which refuses a symbolic link that is absolute or has a `..`, and anything
//! but files, folders and links. A build can leave such things (`ln -s ../../service.db x`,
//! `mkfifo f`), which the upload itself could not hold: a version with them would be refused by
//! every worker. So the folder is walked after the build, without following any link, and the
//! version is refused, naming the entry, when it holds a symbolic link that leads out of the
//! folder (or takes a `..` on the way, which workers refuse too), or a fifo, a socket or a
//! device.

use std::path::{Component, Path, PathBuf};

/// Entries looked at, at most (a build that leaves more was stopped by its disk limit).
const MAX_ENTRIES: usize = 200_000;
/// Offending entries named in the refusal.
const NAMED: usize = 5;

/// Where the link at `rel` (relative to the folder) pointing to `target` leads, relative to
/// the folder: `None` when it leads out of it.
fn lands(rel: &Path, target: &Path) -> Option<PathBuf> {
    if target.is_absolute() {
        return None;
    }
    let mut at: Vec<Component> = rel
        .parent()
        .map_or(Vec::new(), |p| p.components().collect());
    for c in target.components() {
        match c {
            Component::ParentDir => {
                at.pop()?;
            }
            Component::Normal(_) => at.push(c),
            _ => {}
        }
    }
    Some(at.iter().collect())
}

/// What is wrong with one entry, if anything.
fn fault(folder: &Path, path: &Path, m: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let rel = path.strip_prefix(folder).unwrap_or(path);
    let t = m.file_type();
    if t.is_symlink() {
        let target = std::fs::read_link(path).unwrap_or_default();
        let shown = format!("{} -> {}", rel.display(), target.display());
        if lands(rel, &target).is_none() {
            return Some(format!(
                "the symbolic link {shown} leads out of the bot's folder"
            ));
        }
        if target.components().any(|c| c == Component::ParentDir) {
            return Some(format!(
                "the symbolic link {shown} goes up with \"..\" (workers unpack only links that \
                 point further down the folder)"
            ));
        }
        return None;
    }
    let kind = if t.is_fifo() {
        "a fifo"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        return None;
    };
    Some(format!("{} is {kind}", rel.display()))
}

/// Why a build's folder is refused.
#[derive(Debug, thiserror::Error)]
pub enum LeftError {
    /// The folder (`path`: the part that failed) cannot be read.
    #[error("the build's folder cannot be read ({}): {source}", path.display())]
    Unreadable {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the build left more than {MAX_ENTRIES} files in its folder")]
    TooMany,
    /// What it may not hold: each entry in words (`found`), and how many more.
    #[error(
        "the build left what a bot's folder may not hold: {}{}: refused (the folder is sent to \
         workers, which unpack only files, folders and symbolic links that point further down \
         the folder)\n  fix: have the build copy what it needs into the folder instead of \
         linking to it, and remove fifos and sockets before it ends",
        found.join("; "),
        if *more > 0 { format!(" (and {more} more)") } else { String::new() }
    )]
    Unsafe { found: Vec<String>, more: usize },
}

/// Refuse (with words) a folder that holds a symbolic link leading out of it, or up with
/// `..`, or a fifo, a socket or a device; links are never followed.
pub fn check_left(folder: &Path) -> Result<(), LeftError> {
    let mut found: Vec<String> = Vec::new();
    let mut more = 0usize;
    let mut seen = 0usize;
    let mut todo = vec![folder.to_path_buf()];
    while let Some(d) = todo.pop() {
        let unreadable = |path: &Path| {
            let path = path.to_path_buf();
            move |source| LeftError::Unreadable { path, source }
        };
        let rd = std::fs::read_dir(&d).map_err(unreadable(&d))?;
        for e in rd {
            let e = e.map_err(unreadable(&d))?;
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(LeftError::TooMany);
            }
            let path = e.path();
            // symlink_metadata: the entry itself, never what a link points to.
            let m = std::fs::symlink_metadata(&path).map_err(unreadable(&path))?;
            if let Some(f) = fault(folder, &path, &m) {
                if found.len() < NAMED {
                    found.push(f);
                } else {
                    more += 1;
                }
            } else if m.is_dir() {
                todo.push(path);
            }
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    found.sort();
    Err(LeftError::Unsafe { found, more })
}

/// A passed build's report, failed when [`check_left`] refuses its folder.
pub fn refuse_unsafe(
    mut report: crate::build::BuildReport,
    folder: &Path,
) -> crate::build::BuildReport {
    if report.ok {
        if let Err(e) = check_left(folder) {
            report.ok = false;
            report.failure = Some(e.to_string());
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_out_of_the_folder_and_special_files_are_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("bot");
        std::fs::create_dir_all(f.join("lib/deep")).unwrap();
        std::fs::write(f.join("bot.py"), "x").unwrap();
        // Allowed: links further down.
        symlink("lib/deep", f.join("down")).unwrap();
        symlink("deep/x", f.join("lib/x")).unwrap();
        assert!(check_left(&f).is_ok());

        symlink("../../service.db", f.join("db")).unwrap();
        let e = check_left(&f).unwrap_err().to_string();
        assert!(
            e.contains("db -> ../../service.db leads out of the bot's folder"),
            "{e}"
        );
        std::fs::remove_file(f.join("db")).unwrap();
        symlink("/etc/passwd", f.join("lib/deep/pw")).unwrap();
        let e = check_left(&f).unwrap_err().to_string();
        assert!(e.contains("lib/deep/pw -> /etc/passwd leads out"), "{e}");
        assert!(e.contains("fix:"), "{e}");
        std::fs::remove_file(f.join("lib/deep/pw")).unwrap();
        // Inside, but up with "..": the workers' unpacker refuses it, so refused here too.
        symlink("../bot.py", f.join("lib/up")).unwrap();
        let e = check_left(&f).unwrap_err().to_string();
        assert!(e.contains("lib/up -> ../bot.py goes up"), "{e}");
        std::fs::remove_file(f.join("lib/up")).unwrap();
        // A link to a folder out of it is not followed (its contents are not walked).
        symlink("/", f.join("root")).unwrap();
        let e = check_left(&f).unwrap_err().to_string();
        assert!(e.contains("root -> / leads out"), "{e}");
        std::fs::remove_file(f.join("root")).unwrap();
        // A fifo and a socket.
        let pipe = std::ffi::CString::new(f.join("pipe").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(pipe.as_ptr(), 0o644) }, 0);
        let _sock = std::os::unix::net::UnixListener::bind(f.join("lib/sock")).unwrap();
        let e = check_left(&f).unwrap_err().to_string();
        assert!(
            e.contains("pipe is a fifo") && e.contains("lib/sock is a socket"),
            "{e}"
        );
        assert!(check_left(&d.path().join("nothing")).is_err());
    }

    #[test]
    fn where_a_link_lands() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(lands(&p("a/l"), &p("../b")), Some(p("b")));
        assert_eq!(lands(&p("l"), &p("../b")), None);
        assert_eq!(lands(&p("a/b/l"), &p("../../../x")), None);
        assert_eq!(lands(&p("l"), &p("/x")), None);
        assert_eq!(lands(&p("l"), &p("./x")), Some(p("x")));
    }
}
