//! The worker's requests to the server: signals, retries and how long an outage may last.
//!
//! Every request runs on a thread of its own while the caller waits for its answer, looking at
//! the clock and at the signal flag every 50 ms: a request the server does not answer (a hung
//! server, a network that drops packets) is given up when the outage has lasted `--retry-s`,
//! or at once after SIGINT/SIGTERM (unless the caller gives itself a while more, as posting
//! the games finished before the signal does). The outage is timed once, from the first
//! request that failed (or the start of the one that hangs) until any answer that is not a
//! server error, across retries and across the worker's threads: a worker whose server is
//! down gives up `--retry-s` after the outage began, whatever it was doing.

use crate::client::{Answer, Client, ClientError};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Why a request got no answer ([`Net::call`]).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("cannot start a thread: {0}")]
    Thread(std::io::Error),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("the request's thread ended without an answer")]
    ThreadEnded,
    #[error("given up (the worker is stopping)")]
    Stopping,
    #[error("no answer after {secs} s")]
    NoAnswer { secs: f64 },
}

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    if SIGNALS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) }
    }
    STOP.store(true, Ordering::SeqCst);
}

/// SIGINT and SIGTERM stop the worker (a second one exits at once).
pub(super) fn on_signals() {
    // SAFETY: installing a handler that only touches atomics (and _exit).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

pub(crate) fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Stop as a signal would (a fatal error).
pub(super) fn stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// When the worker was first seen stopping (a signal, or a fatal error), the same instant for
/// every caller: a deadline counted from it does not move as it is asked again.
pub(super) fn stopped_at() -> Option<Instant> {
    static AT: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    stopping().then(|| *AT.get_or_init(Instant::now))
}

/// A deadline of now once a signal came (retries stop), else none.
pub(super) fn now_if_stopping() -> Option<Instant> {
    stopping().then(Instant::now)
}

/// Sleep `d`, or less when a signal came.
pub(super) fn nap(d: Duration) {
    let until = Instant::now() + d;
    while !stopping() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50).min(until - Instant::now()));
    }
}

/// What a request came to after retries.
pub(super) enum Reply {
    /// An answer (any status but 5xx), with the body's bytes when the request kept them.
    Answer(Answer, Vec<u8>),
    /// The server stayed unreachable (or answered 5xx) until the deadline, or a signal came.
    GaveUp(String),
}

/// A request: what it asks of the client.
pub(super) type Request =
    Arc<dyn Fn(&Client) -> Result<(Answer, Vec<u8>), ClientError> + Send + Sync>;

/// The worker's way to the server.
pub(super) struct Net {
    pub client: Arc<Client>,
    pub server: String,
    /// `--retry-s`.
    pub retry_for: Duration,
    /// When the current outage began (none while the server answers).
    outage: Mutex<Option<Instant>>,
}

impl Net {
    pub fn new(client: Client, server: String, retry_for: Duration) -> Net {
        Net {
            client: Arc::new(client),
            server,
            retry_for,
            outage: Mutex::new(None),
        }
    }

    /// When the outage that began at `began` (or the one under way, if earlier) must end.
    fn outage_deadline(&self, began: Instant) -> Instant {
        let o = self.outage.lock().unwrap_or_else(|e| e.into_inner());
        o.map_or(began, |t| t.min(began)) + self.retry_for
    }

    fn outage_began(&self, at: Instant) {
        let mut o = self.outage.lock().unwrap_or_else(|e| e.into_inner());
        if o.is_none_or(|t| at < t) {
            *o = Some(at);
        }
    }

    fn answered(&self) -> bool {
        self.outage
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .is_some()
    }

    /// Run `f` once on a thread of its own; its answer, or an error when `until` (after a
    /// signal) or the outage's deadline comes first (the request is left to end by itself).
    pub fn call(
        &self,
        until: &dyn Fn() -> Option<Instant>,
        f: Request,
    ) -> Result<(Answer, Vec<u8>), CallError> {
        let began = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        let client = self.client.clone();
        std::thread::Builder::new()
            .name("worker-request".into())
            .spawn(move || {
                let _ = tx.send(f(&client));
            })
            .map_err(CallError::Thread)?;
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(r) => return Ok(r?),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(CallError::ThreadEnded)
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            // (`until` may be "now" once a signal came: the clock read after it.)
            let stop_at = until();
            let now = Instant::now();
            if stop_at.is_some_and(|t| now >= t) {
                return Err(CallError::Stopping);
            }
            if now >= self.outage_deadline(began) {
                return Err(CallError::NoAnswer {
                    secs: (now - began).as_secs_f64().round(),
                });
            }
        }
    }

    /// `f` until it gets an answer that is not a server error, with backoff (0.2 s doubling to
    /// 5 s), until the outage has lasted `retry_for` — or until `until` when it gives a time
    /// (after a signal).
    pub fn retrying(
        &self,
        what: &str,
        until: impl Fn() -> Option<Instant>,
        f: impl Fn(&Client) -> Result<(Answer, Vec<u8>), ClientError> + Send + Sync + 'static,
    ) -> Reply {
        let f: Request = Arc::new(f);
        let mut wait = Duration::from_millis(200);
        let mut said = None::<Instant>;
        loop {
            let began = Instant::now();
            let e = match self.call(&until, f.clone()) {
                Ok((a, bytes)) if a.status < 500 => {
                    if self.answered() || said.is_some() {
                        eprintln!("durak worker: {} answers again", self.server);
                    }
                    return Reply::Answer(a, bytes);
                }
                Ok((a, _)) => format!("{} {}", a.status, a.error()),
                Err(e) => e.to_string(),
            };
            self.outage_began(began);
            let now = Instant::now();
            let deadline = until().unwrap_or_else(|| self.outage_deadline(began));
            if now + wait > deadline {
                let since = self
                    .outage
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .map_or(0, |t| (now - t).as_secs());
                return Reply::GaveUp(format!(
                    "{what}: the server at {} did not answer for {since} s (last: {e})",
                    self.server,
                ));
            }
            if said.is_none_or(|t| now - t > Duration::from_secs(30)) {
                eprintln!(
                    "durak worker: {what}: {e}; retrying (for at most {} s)",
                    self.retry_for.as_secs()
                );
                said = Some(now);
            }
            // Sleep, but not past the deadline, and not after a signal.
            let wake = now + wait;
            while Instant::now() < wake && until().is_none_or(|t| t > Instant::now()) {
                std::thread::sleep(Duration::from_millis(50));
            }
            wait = (wait * 2).min(Duration::from_secs(5));
        }
    }
}
