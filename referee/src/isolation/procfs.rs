//! What `/proc` says: a process's children, members of a process group, a user's tasks.

/// Tasks (threads included) that `uid` runs now: the base of its `RLIMIT_NPROC`. `u64::MAX` when
/// `uid` is root (no limit applies).
pub(crate) fn nproc_base(uid: u32) -> u64 {
    if uid == 0 {
        return u64::MAX;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0u64;
    for e in dir.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let field = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        };
        if field("Uid:") == Some(u64::from(uid)) {
            n += field("Threads:").unwrap_or(1);
        }
    }
    n
}

/// The direct children of `pid` (from `/proc/PID/task/PID/children`, or by scanning `/proc`).
pub(crate) fn children_of(pid: i32) -> Vec<i32> {
    if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")) {
        return s
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
    }
    let mut out = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            let Some(after) = stat.rsplit_once(')').map(|(_, a)| a) else {
                continue;
            };
            let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
            if ppid == Some(pid) {
                if let Ok(p) = e.file_name().to_string_lossy().parse() {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Whether some process is in process group `pgid`.
pub(crate) fn group_has_members(pgid: i32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|stat| {
                let after = stat.rsplit_once(')')?.1.to_string();
                after.split_whitespace().nth(2)?.parse::<i32>().ok()
            })
            == Some(pgid)
    })
}

/// Whether a process with this pid exists (as far as this pid namespace sees).
pub(crate) fn alive(pid: u32) -> bool {
    match rustix::process::Pid::from_raw(pid as i32) {
        Some(p) => !matches!(
            rustix::process::test_kill_process(p),
            Err(rustix::io::Errno::SRCH)
        ),
        None => false,
    }
}
