//! Whether a bot has read what it was sent and gone quiet: its stdin pipe holds no unread byte and
//! none of its processes (every thread of every process below its supervisor) is running or in a
//! disk wait. Used after writing a kind of message a bot process has not read before (a bot that
//! crashes on an event it did not expect dies right after reading it), so that the crash is
//! charged to the game, and named after the message, it happened at
//! ([`crate::BotProcess::settle_input`]).

use std::os::fd::AsFd;

/// Bytes written to the pipe that its reader has not read yet (`FIONREAD` works on either end of
/// a Linux pipe). `None` when the kernel does not say.
pub(crate) fn unread_bytes(fd: impl AsFd) -> Option<u64> {
    rustix::io::ioctl_fionread(fd).ok()
}

/// Whether some thread of a process below `root` (not `root` itself: the supervisor, which only
/// waits) is runnable, in a disk wait, or a zombie not yet reaped (a process on its way out).
/// Processes that are gone by the time they are looked at count as quiet.
pub(crate) fn tree_busy(root: i32) -> bool {
    let mut todo = children(root);
    let mut seen = 0;
    while let Some(pid) = todo.pop() {
        seen += 1;
        if seen > 4096 {
            // A bot with thousands of processes is not quiet.
            return true;
        }
        if process_busy(pid) {
            return true;
        }
        todo.extend(children(pid));
    }
    false
}

/// Every process below `root` (not `root` itself), at most 4096 of them.
pub(crate) fn descendants(root: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let mut todo = children(root);
    while let Some(pid) = todo.pop() {
        if out.len() >= 4096 {
            break;
        }
        out.push(pid);
        todo.extend(children(pid));
    }
    out
}

/// The children of every thread of `pid` (a child belongs to the thread that forked it).
fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return crate::isolation::children_of(pid);
    };
    let mut out = Vec::new();
    for t in tasks.flatten() {
        if let Ok(s) = std::fs::read_to_string(t.path().join("children")) {
            out.extend(s.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
    }
    out
}

/// Whether a thread of process `pid` is runnable (`R`), in a disk wait (`D`) or a zombie (`Z`).
fn process_busy(pid: i32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        std::fs::read_to_string(t.path().join("stat"))
            .ok()
            .and_then(|stat| state_of(&stat))
            .is_some_and(|s| matches!(s, 'R' | 'D' | 'Z'))
    })
}

/// The state letter of a `/proc/.../stat` line (the field after the command name in parentheses,
/// which may itself hold spaces and parentheses).
fn state_of(stat: &str) -> Option<char> {
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_is_read_past_a_command_name_with_parentheses() {
        assert_eq!(state_of("12 (a) b)) S 1 12 12"), Some('S'));
        assert_eq!(state_of("7 (python3) R 1"), Some('R'));
        assert_eq!(state_of("garbage"), None);
    }

    #[test]
    fn a_sleeping_child_is_quiet_and_a_spinning_one_is_busy() {
        use std::process::Command;
        let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
        // A child that has not reached its sleep yet is briefly runnable.
        let quiet = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(5));
            !process_busy(sleeper.id() as i32)
        });
        assert!(quiet, "a sleeping process is quiet");
        let mut spinner = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        let busy = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(5));
            process_busy(spinner.id() as i32)
        });
        assert!(busy, "a spinning process is busy");
        // Below a parent that only waits: a spinning grandchild makes the tree busy, a
        // sleeping one does not.
        // Each tree in its own process group, killed whole at the end: killing the `sh` alone
        // would leave its spinning child running.
        use std::os::unix::process::CommandExt;
        let mut quiet_tree = Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let mut busy_tree = Command::new("sh")
            .args(["-c", "sh -c 'while :; do :; done' & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let settled = |pid: u32, want: bool| {
            (0..400).any(|_| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                tree_busy(pid as i32) == want
            })
        };
        assert!(settled(quiet_tree.id(), false), "a sleeping tree is quiet");
        assert!(
            settled(busy_tree.id(), true),
            "a spinning grandchild is busy"
        );
        for c in [&quiet_tree, &busy_tree] {
            // SAFETY: kill(2) on a process group this test created.
            unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
        }
        for c in [&mut sleeper, &mut spinner, &mut quiet_tree, &mut busy_tree] {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    #[test]
    fn unread_bytes_are_counted_from_the_write_end() {
        use std::io::Write;
        use std::process::{Command, Stdio};
        // `sleep` never reads its stdin: what is written stays in the pipe.
        let mut child = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        assert_eq!(unread_bytes(&stdin), Some(0));
        stdin.write_all(b"hello\n").unwrap();
        assert_eq!(unread_bytes(&stdin), Some(6));
        let _ = child.kill();
        let _ = child.wait();
    }
}
