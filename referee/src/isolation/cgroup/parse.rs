//! What `/proc/self/mountinfo`, `/proc/self/cgroup` and cpuset lists say.

use std::path::PathBuf;

/// One line of `/proc/self/mountinfo`, the fields used here.
#[derive(Debug)]
pub(super) struct Mount {
    /// The part of the hierarchy mounted there.
    pub root: String,
    pub point: PathBuf,
    pub fstype: String,
    /// The superblock options (for cgroup v1: the controllers).
    pub options: Vec<String>,
}

impl Mount {
    /// The directory of cgroup `path` (as `/proc/self/cgroup` gives it) under this mount.
    pub fn join(&self, path: &str) -> PathBuf {
        let rel = path
            .strip_prefix(self.root.as_str())
            .filter(|_| self.root != "/")
            .unwrap_or(path);
        let rel = rel.trim_start_matches('/');
        if rel.is_empty() {
            self.point.clone()
        } else {
            self.point.join(rel)
        }
    }
}

/// `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS`
pub(super) fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let left: Vec<&str> = left.split(' ').collect();
            let right: Vec<&str> = right.split(' ').collect();
            Some(Mount {
                root: unescape(left.get(3)?),
                point: PathBuf::from(unescape(left.get(4)?)),
                fstype: right.first()?.to_string(),
                options: right
                    .get(2)
                    .map(|o| o.split(',').map(String::from).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `/proc/self/cgroup`: `(hierarchy id, controllers, path)`; v2 is `0::/path`.
pub(super) fn parse_own_cgroups(text: &str) -> Vec<(u32, Vec<String>, String)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ':');
            let id = it.next()?.parse().ok()?;
            let controllers = it
                .next()?
                .split(',')
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect();
            Some((id, controllers, it.next()?.to_string()))
        })
        .collect()
}

/// A cpuset list (`cpuset.cpus`, `Cpus_allowed_list`): `0-3,8,10-11`. `None` if malformed.
pub(super) fn parse_cpu_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if a > b {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Some(cpus)
}

/// The list form of `cpus` (`0,2,3`), which `cpuset.cpus` accepts.
pub(super) fn format_cpu_list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
