//! How the referee tells "the supervisor finished its work" from "someone killed the
//! supervisor": a page of memory shared with it (mapped before the fork), where the supervisor
//! writes a mark just before it exits with the bot's status. A supervisor gone without the mark
//! was killed under the bot (by the bot, as the same user, in default mode): nothing cleans up
//! after it any more, and the bot is at fault.

use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

/// The shared page.
#[derive(Debug)]
pub(crate) struct DoneFlag {
    page: NonNull<AtomicU32>,
}

// SAFETY: the page is only read and written through an atomic.
unsafe impl Send for DoneFlag {}
// SAFETY: as for `Send`: every access to the page is atomic.
unsafe impl Sync for DoneFlag {}

const PAGE: usize = 4096;

impl DoneFlag {
    pub(crate) fn new() -> io::Result<DoneFlag> {
        use rustix::mm::{mmap_anonymous, MapFlags, ProtFlags};
        // SAFETY: a fresh anonymous shared mapping, owned by this value until it is dropped.
        let p = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                PAGE,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
            )
        }?;
        let page = NonNull::new(p.cast::<AtomicU32>()).ok_or_else(|| io::Error::other("mmap"))?;
        Ok(DoneFlag { page })
    }

    /// The address the supervisor writes to (in its copy of the address space).
    pub(crate) fn addr(&self) -> usize {
        self.page.as_ptr() as usize
    }

    /// Write the mark here (a process without a supervisor: nothing to kill).
    pub(crate) fn set(&self) {
        // SAFETY: the page lives as long as self.
        unsafe { self.page.as_ref() }.store(1, Ordering::SeqCst);
    }

    /// Whether the supervisor wrote its mark.
    pub(crate) fn is_set(&self) -> bool {
        // SAFETY: the page lives as long as self.
        unsafe { self.page.as_ref() }.load(Ordering::SeqCst) != 0
    }
}

/// In the supervisor, just before it exits: the mark. `addr` 0: no page.
pub(crate) fn mark(addr: usize) {
    if addr != 0 {
        // SAFETY: the address of a shared page mapped before the fork, still mapped here.
        unsafe { (*(addr as *const AtomicU32)).store(1, Ordering::SeqCst) };
    }
}

impl Drop for DoneFlag {
    fn drop(&mut self) {
        // SAFETY: unmapping the page this value mapped; nothing refers to it any more.
        unsafe {
            let _ = rustix::mm::munmap(self.page.as_ptr().cast(), PAGE);
        }
    }
}
