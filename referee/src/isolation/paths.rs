//! Paths: absolute and canonical forms, and which are the system's.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// `base.join(p)`, cleaned of `.` components.
pub(crate) fn absolute(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// [`absolute`], with its `..` taken as the kernel takes them: the path up to the last `..` is
/// canonicalized (through any symlink), the rest kept as written. A strict sandbox shows the
/// bot's own files, not the directories a `..` climbs out of, so a path that still had one was
/// not found there: `python3 ../bots/x.py` from `/t/run` is passed as `/t/bots/x.py`, not
/// `/t/run/../bots/x.py`. A path whose `..` part does not exist is left as [`absolute`] makes it.
pub(crate) fn absolute_resolved(base: &Path, p: &Path) -> PathBuf {
    let abs = absolute(base, p);
    let parts: Vec<Component> = abs.components().collect();
    let Some(last) = parts.iter().rposition(|c| *c == Component::ParentDir) else {
        return abs;
    };
    match std::fs::canonicalize(parts[..=last].iter().collect::<PathBuf>()) {
        Ok(mut out) => {
            out.extend(&parts[last + 1..]);
            out
        }
        Err(_) => abs,
    }
}

/// The canonical path, also of a path that does not exist yet (its existing ancestor is
/// canonicalized and the rest appended).
pub(crate) fn canonical(base: &Path, p: &Path) -> PathBuf {
    let abs = absolute(base, p);
    let mut head = abs.clone();
    let mut tail: Vec<OsString> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&head) {
            let mut out = c;
            for t in tail.iter().rev() {
                out.push(t);
            }
            return out;
        }
        match (head.file_name().map(|f| f.to_os_string()), head.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                head = parent.to_path_buf();
            }
            _ => return abs,
        }
    }
}

/// Number of named components: `/` is 0, `/tmp` 1, `/tmp/bot` 2.
pub(crate) fn depth(p: &Path) -> usize {
    p.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count()
}

pub(crate) fn is_system_path(p: &Path) -> bool {
    [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    ]
    .iter()
    .any(|s| p.starts_with(s))
}

pub(crate) fn find_in_path(name: &Path, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|d| d.join(name))
        .find(|f| f.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_dir_is_climbed_out_of_as_the_kernel_does() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("run")).unwrap();
        std::fs::write(root.join("a/x.py"), "").unwrap();
        std::os::unix::fs::symlink(root.join("a/b"), root.join("run/link")).unwrap();
        let run = root.join("run");
        // `..` out of the run's directory: the file's own path, with no `..` left.
        assert_eq!(
            absolute_resolved(&run, Path::new("../a/x.py")),
            root.join("a/x.py")
        );
        // Through a symlink, `..` is the parent of its target (`a`), not of the link (`run`).
        assert_eq!(
            absolute_resolved(&run, Path::new("./link/../x.py")),
            root.join("a/x.py")
        );
        // Without `..`, or with a `..` part that does not exist: as written, made absolute.
        assert_eq!(
            absolute_resolved(&run, Path::new("link/y")),
            root.join("run/link/y")
        );
        assert_eq!(
            absolute_resolved(&run, Path::new("nope/../x")),
            root.join("run/nope/../x")
        );
    }
}
