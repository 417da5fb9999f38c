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
