//! Strict mode as root: each running bot gets an unprivileged uid of its own.

use super::{SANDBOX_UID_BASE, SANDBOX_UID_COUNT};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::sync::{Mutex, OnceLock};

/// A uid of the sandbox range, taken by one running bot (strict mode as root).
#[derive(Debug)]
pub(crate) struct UidLease {
    pub uid: u32,
}

fn leased() -> &'static Mutex<std::collections::BTreeSet<u32>> {
    static LEASED: OnceLock<Mutex<std::collections::BTreeSet<u32>>> = OnceLock::new();
    LEASED.get_or_init(Default::default)
}

impl UidLease {
    /// The lowest uid of the range that no bot of this referee holds and no process runs as.
    pub(crate) fn take() -> io::Result<UidLease> {
        let busy = uids_in_use();
        let mut set = leased().lock().unwrap_or_else(|e| e.into_inner());
        for uid in SANDBOX_UID_BASE..SANDBOX_UID_BASE + SANDBOX_UID_COUNT {
            if !set.contains(&uid) && !busy.contains(&uid) {
                set.insert(uid);
                return Ok(UidLease { uid });
            }
        }
        Err(io::Error::other(format!(
            "no free uid in {SANDBOX_UID_BASE}..{} for a sandboxed bot",
            SANDBOX_UID_BASE + SANDBOX_UID_COUNT
        )))
    }
}

impl Drop for UidLease {
    fn drop(&mut self) {
        leased()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.uid);
    }
}

/// Owners of the running processes.
fn uids_in_use() -> std::collections::BTreeSet<u32> {
    let mut out = std::collections::BTreeSet::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            if e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
            {
                if let Ok(m) = e.metadata() {
                    out.insert(m.uid());
                }
            }
        }
    }
    out
}
