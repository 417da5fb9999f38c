//! Files served from a folder of the data directory (a tournament's report), safely: the path
//! a request names is taken apart into names, each a plain name (not empty, not `.` or `..`,
//! not hidden, no backslash or NUL), then opened one folder at a time from the folder itself
//! with `O_NOFOLLOW` (`openat`), so that nothing outside it is reached, not by `..`, not by a
//! symbolic link anywhere on the way (a link is refused, even one pointing inside), and only a
//! regular file is read.

use rustix::fs::{openat, Mode, OFlags, CWD};
use std::os::fd::OwnedFd;
use std::path::Path;

/// Why a file is not served.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The path is not one of plain names (400).
    BadPath(String),
    /// Nothing there, or not a regular file, or a link on the way (404).
    NotFound,
    /// Larger than the largest file served (the caller's `max`).
    TooLarge,
}

/// The names of a relative path, each checked.
pub fn names(rel: &str) -> Result<Vec<&str>, Refused> {
    let bad = |why: &str| Err(Refused::BadPath(format!("{rel:?}: {why}")));
    if rel.is_empty() {
        return bad("no file named");
    }
    if rel.starts_with('/') {
        return bad("an absolute path");
    }
    let mut out = Vec::new();
    for n in rel.split('/') {
        if n.is_empty() {
            return bad("an empty name (`//`)");
        }
        if n == "." || n == ".." {
            return bad("`.` and `..` are refused");
        }
        if n.starts_with('.') {
            return bad("hidden files are not served");
        }
        if n.contains(['\\', '\0']) {
            return bad("a backslash or NUL in a name");
        }
        out.push(n);
    }
    Ok(out)
}

fn open_in(dir: &OwnedFd, name: &str, flags: OFlags) -> Result<OwnedFd, Refused> {
    openat(
        dir,
        name,
        flags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|_| Refused::NotFound)
}

/// Read `rel` inside `root` (see the module documentation), at most `max` bytes.
pub fn read_inside(root: &Path, rel: &str, max: u64) -> Result<Vec<u8>, Refused> {
    use std::io::Read;
    let names = names(rel)?;
    let mut dir = openat(
        CWD,
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|_| Refused::NotFound)?;
    let (last, folders) = names.split_last().expect("one name at least");
    for n in folders {
        dir = open_in(&dir, n, OFlags::RDONLY | OFlags::DIRECTORY)?;
    }
    // NONBLOCK: a fifo put there would not hang the open.
    let fd = open_in(&dir, last, OFlags::RDONLY | OFlags::NONBLOCK)?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata().map_err(|_| Refused::NotFound)?;
    if !meta.is_file() {
        return Err(Refused::NotFound);
    }
    if meta.len() > max {
        return Err(Refused::TooLarge);
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut out)
        .map_err(|_| Refused::NotFound)?;
    if out.len() as u64 > max {
        return Err(Refused::TooLarge);
    }
    Ok(out)
}

/// The content type of a served file, by its extension.
pub fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "jsonl" => "application/x-ndjson",
        "csv" => "text/csv; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "toml" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("report");
        std::fs::create_dir_all(root.join("g/000")).unwrap();
        std::fs::write(root.join("index.html"), "index").unwrap();
        std::fs::write(root.join("g/000/1.html"), "game").unwrap();
        std::fs::write(t.path().join("secret"), "secret").unwrap();
        std::fs::create_dir(t.path().join("outside")).unwrap();
        std::fs::write(t.path().join("outside/x.html"), "outside").unwrap();
        t
    }

    #[test]
    fn files_inside_are_read() {
        let t = tree();
        let root = t.path().join("report");
        assert_eq!(read_inside(&root, "index.html", 100).unwrap(), b"index");
        assert_eq!(read_inside(&root, "g/000/1.html", 100).unwrap(), b"game");
        assert_eq!(
            read_inside(&root, "nothing.html", 100),
            Err(Refused::NotFound)
        );
        assert_eq!(
            read_inside(&root, "g", 100),
            Err(Refused::NotFound),
            "a folder"
        );
        assert_eq!(read_inside(&root, "index.html", 3), Err(Refused::TooLarge));
    }

    #[test]
    fn traversal_and_odd_names_are_refused() {
        let t = tree();
        let root = t.path().join("report");
        for rel in [
            "../secret",
            "g/../../secret",
            "./index.html",
            "/etc/passwd",
            "g//000/1.html",
            "",
            ".hidden",
            "g/000/..",
            "a\\..\\secret",
            "index.html\0",
        ] {
            assert!(
                matches!(read_inside(&root, rel, 100), Err(Refused::BadPath(_))),
                "{rel:?}"
            );
        }
    }

    #[test]
    fn symbolic_links_are_not_followed_out_nor_in() {
        let t = tree();
        let root = t.path().join("report");
        symlink(t.path().join("secret"), root.join("link.html")).unwrap();
        symlink("index.html", root.join("inner.html")).unwrap();
        symlink(t.path().join("outside"), root.join("dir")).unwrap();
        symlink("g", root.join("g2")).unwrap();
        for rel in ["link.html", "inner.html", "dir/x.html", "g2/000/1.html"] {
            assert_eq!(
                read_inside(&root, rel, 100),
                Err(Refused::NotFound),
                "{rel}"
            );
        }
        // The root itself a link: refused too.
        symlink(&root, t.path().join("root-link")).unwrap();
        assert_eq!(
            read_inside(&t.path().join("root-link"), "index.html", 100),
            Err(Refused::NotFound)
        );
    }

    #[test]
    fn a_fifo_is_not_read() {
        let t = tree();
        let root = t.path().join("report");
        rustix::fs::mknodat(
            CWD,
            root.join("pipe.html").as_path(),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert_eq!(read_inside(&root, "pipe.html", 100), Err(Refused::NotFound));
    }
}
