//! What a run's tables, its results writer and its caller share: the books under one lock
//! ([`Shared`]), and what the caller sees of the run ([`Observer`]). Apart from the runner and
//! the writer, so that neither names the other's internals.

use crate::line::ResultLine;
use crate::sequencer::Books;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// What a caller sees of a running tournament (a progress bar, a log).
pub trait Observer: Send + Sync {
    /// Before the first game: games in the schedule, games already in the results, faults in
    /// them.
    fn start(&self, _total: usize, _done: usize, _faults: usize) {}
    /// After each game is recorded (durable).
    fn game(&self, _line: &ResultLine, _done: usize, _faults: usize) {}
    /// A bot was disqualified.
    fn disqualified(&self, _bot: &str, _reason: &str) {}
}

/// An observer that sees nothing.
pub struct Silent;
impl Observer for Silent {}

/// The state the tables and the results writer share.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Notified when held games go, a table stops or the run fails: tables waiting for the
    /// writer look again.
    pub(crate) wake: Condvar,
    /// Per table: stop at the next game (a late game stopped it, in this pass).
    pub(crate) stop: Vec<AtomicBool>,
    /// Every table stops (an error).
    halt: AtomicBool,
    /// Every table stops: no more games are accepted ([`Closed`]).
    closed: AtomicBool,
    /// [`RunOptions::stop`].
    outside: Option<Arc<AtomicBool>>,
}

pub(crate) struct State {
    pub(crate) books: Books,
    /// Games recorded (durable), and the faults in them.
    pub(crate) done: usize,
    pub(crate) faults: usize,
    pub(crate) error: Option<String>,
}

impl Shared {
    pub(crate) fn new(
        books: Books,
        done: usize,
        faults: usize,
        tables: usize,
        outside: Option<Arc<AtomicBool>>,
    ) -> Shared {
        Shared {
            state: Mutex::new(State {
                books,
                done,
                faults,
                error: None,
            }),
            wake: Condvar::new(),
            stop: (0..tables).map(|_| AtomicBool::new(false)).collect(),
            halt: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            outside,
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `table` stops at its next game (it is played again in the next pass).
    pub(crate) fn stop_table(&self, table: u32) {
        if let Some(s) = self.stop.get(table as usize) {
            s.store(true, Ordering::SeqCst);
        }
        self.wake.notify_all();
    }

    /// The run fails: every table stops at its next game.
    pub(crate) fn fail(&self, e: String) {
        self.lock().error.get_or_insert(e);
        self.halt.store(true, Ordering::SeqCst);
        self.wake.notify_all();
    }

    /// No more games are accepted: every table stops at its next game.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake.notify_all();
    }

    pub(crate) fn stopped_outside(&self) -> bool {
        self.outside
            .as_ref()
            .is_some_and(|s| s.load(Ordering::SeqCst))
    }

    pub(crate) fn stopped(&self, table: u32) -> bool {
        self.stopped_outside()
            || self.halt.load(Ordering::SeqCst)
            || self.closed.load(Ordering::SeqCst)
            || self
                .stop
                .get(table as usize)
                .is_some_and(|s| s.load(Ordering::SeqCst))
    }
}
