//! A decision's answer read on the table's own thread, without the runtime: the same system
//! calls as a bare pipe echo's, a `write` and a `read`, whenever the bot answers at once.
//!
//! Each table (a `play`, a tournament's table, a ladder's table, a check) runs its referee on
//! a current-thread runtime of its own, pinned with its bots to one CPU. Awaiting an answer
//! through that runtime costs a turn of it: the `epoll_wait` with its deadline, the select of
//! the line, the bot's exit, the memory check and the timer, set up and torn down per wait. On
//! this path ([`wait_line`]), right after the request is written:
//!
//! 1. a `read`: the bot, woken by the request on this CPU, often ran and answered before the
//!    referee went on;
//! 2. on a table pinned to one CPU, `sched_yield` (the bot was woken and waits for this CPU:
//!    it runs now) and a `read` again;
//! 3. else one `ppoll` of the bot's stdout and of the stderr of every bot on this thread, until
//!    the answer comes or the decision's first sample is due ([`crate::clock::FIRST_SAMPLE`],
//!    or half the limit).
//!
//! Anything else (the end of stdout, an error, the first sample) goes back to the runtime's
//! path, which words it as before. Measured in docs/BENCHMARKS.md ("The answer on the table's
//! own thread").
//!
//! While the thread waits here the runtime does not run, so neither do the stderr drain tasks:
//! the `ppoll` watches every bot's stderr on this thread ([`watch_stderr`]) and reads what comes
//! straight into that bot's log, under the mark in effect, as its drain task would have, and
//! before each write the bot's own stderr is looked into (one `poll`, in
//! `StderrDrain::mark_sent`), so that what a bot wrote after its last request, before or after
//! its answer, is kept with that request. The runtime gets a turn at least every
//! [`TURN_EVERY`] ([`turn_due`]): the supervisor's pidfd, timers and other tasks are seen then.
//!
//! `DURAK_DIRECT=off` in the environment turns this path off (every answer through the
//! runtime), to compare the two.

use crate::lines::{LineReader, NextLine};
use crate::stderr::Watched;
use std::cell::RefCell;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// The longest the runtime goes without a turn while answers come on this path.
pub const TURN_EVERY: Duration = Duration::from_millis(1);

/// The stderr pipes of the bots started on this thread, and when the runtime last had a turn.
struct Table {
    stderr: Vec<Weak<Watched>>,
    last_turn: Instant,
    /// Reused per wait: the pipes alive, and the descriptors polled (stdout first).
    live: Vec<Arc<Watched>>,
    fds: Vec<libc::pollfd>,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table {
        stderr: Vec::new(),
        last_turn: Instant::now(),
        live: Vec::new(),
        fds: Vec::new(),
    });
}

/// Whether answers may be read on this path here: on a current-thread runtime (its tasks all
/// run on this thread, so blocking it holds up nobody else's), unless `DURAK_DIRECT=off`.
pub fn available() -> bool {
    static OFF: OnceLock<bool> = OnceLock::new();
    let off = *OFF.get_or_init(|| std::env::var("DURAK_DIRECT").is_ok_and(|v| v == "off"));
    !off && tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread)
}

/// Watch this bot's stderr while answers are awaited on this thread (until it is dropped).
pub(crate) fn watch_stderr(pipe: &Arc<Watched>) {
    TABLE.with_borrow_mut(|t| {
        t.stderr.retain(|w| w.strong_count() > 0);
        t.stderr.push(Arc::downgrade(pipe));
    });
}

/// Whether the runtime is due a turn (see [`TURN_EVERY`]); [`turned`] once it had one.
pub fn turn_due() -> bool {
    TABLE.with_borrow(|t| t.last_turn.elapsed() >= TURN_EVERY)
}

/// The runtime just had a turn.
pub fn turned() {
    TABLE.with_borrow_mut(|t| t.last_turn = Instant::now());
}

/// Wait on this thread, at most until `until`, for the next line of `lines`: `Some` with it (or
/// with the end of stdout, or a line too long), `None` when `until` came first or the pipe
/// failed (the caller then awaits it through the runtime). Meanwhile every watched stderr is
/// read into its log as it comes.
pub(crate) fn wait_line(lines: &mut LineReader, until: Instant, alone: bool) -> Option<NextLine> {
    if let Some(next) = lines.buffered() {
        return Some(next);
    }
    // Woken by the request on this CPU, the bot may have run and answered before the referee
    // went on: then the answer is in the pipe.
    if let Some(next) = read_ready(lines) {
        return Some(next);
    }
    if alone {
        // The bot shares this thread's one CPU: let it run now (it was woken by the request),
        // and look again once it is done or its turn is over.
        rustix::thread::sched_yield();
        if let Some(next) = read_ready(lines) {
            return Some(next);
        }
    }
    TABLE.with_borrow_mut(|t| t.wait_line(lines, until))
}

/// A line from what the pipe holds now, if it holds one whole (or the end).
fn read_ready(lines: &mut LineReader) -> Option<NextLine> {
    match lines.read_now() {
        Ok(_) => lines.buffered(),
        Err(_) => None,
    }
}

/// Whether this thread may run on one CPU only (a pinned table: its bots share that CPU).
pub fn alone_on_one_cpu() -> bool {
    rustix::thread::sched_getaffinity(None).is_ok_and(|set| set.count() == 1)
}

impl Table {
    fn wait_line(&mut self, lines: &mut LineReader, until: Instant) -> Option<NextLine> {
        if let Some(next) = lines.buffered() {
            return Some(next);
        }
        self.gather(lines);
        let got = self.poll_loop(lines, until);
        self.live.clear();
        got
    }

    /// The descriptors to poll: the deciding bot's stdout, then each live watched stderr.
    fn gather(&mut self, lines: &LineReader) {
        self.live.clear();
        self.stderr.retain(|w| match w.upgrade() {
            Some(p) => {
                self.live.push(p);
                true
            }
            None => false,
        });
        self.fds.clear();
        let pollfd = |fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        self.fds.push(pollfd(lines.fd()));
        for p in &self.live {
            // A pipe that ended is left out (`poll` skips a negative descriptor).
            self.fds.push(pollfd(if p.ended() { -1 } else { p.fd() }));
        }
    }

    fn poll_loop(&mut self, lines: &mut LineReader, until: Instant) -> Option<NextLine> {
        loop {
            let left = until.checked_duration_since(Instant::now())?;
            if left.is_zero() {
                return None;
            }
            let ts = libc::timespec {
                tv_sec: left.as_secs() as libc::time_t,
                tv_nsec: left.subsec_nanos() as libc::c_long,
            };
            // SAFETY: `fds` is a live, initialized array of `fds.len()` pollfd structures.
            let n = unsafe {
                libc::ppoll(
                    self.fds.as_mut_ptr(),
                    self.fds.len() as libc::nfds_t,
                    &ts,
                    std::ptr::null(),
                )
            };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return None;
            }
            if n == 0 {
                return None;
            }
            // stderr first: what a bot wrote before its answer is read before the answer.
            for (fd, pipe) in self.fds[1..].iter_mut().zip(&self.live) {
                if fd.revents != 0 && !pipe.read_inline() {
                    fd.fd = -1;
                }
            }
            if self.fds[0].revents != 0 {
                match lines.read_now() {
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return None,
                }
                if let Some(next) = lines.buffered() {
                    return Some(next);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stderr::StderrDrain;
    use std::process::Stdio;
    use tokio::process::Command;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    /// While the thread blocks for one bot's answer, the runtime does not run, so the drain
    /// tasks do not either: the wait itself reads every watched stderr as it comes, into its
    /// log (what comes after the answer is left to the drain task).
    #[test]
    fn the_wait_reads_every_watched_stderr_while_an_answer_is_awaited() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut other = sh("echo early >&2; sleep 0.05; echo late >&2; sleep 5")
                .spawn()
                .unwrap();
            let other_err = StderrDrain::start(other.stderr.take().unwrap(), 1024);
            let mut deciding =
                sh("echo thinking >&2; sleep 0.2; echo answer; sleep 0.2; echo after >&2")
                    .spawn()
                    .unwrap();
            let own_err = StderrDrain::start(deciding.stderr.take().unwrap(), 1024);
            let mut lines = LineReader::new(deciding.stdout.take().unwrap(), 100);
            // Nothing awaited since the drain tasks were spawned: they have not run.
            let got = wait_line(&mut lines, Instant::now() + Duration::from_secs(10), false);
            match got {
                Some(Some(Ok(line))) => assert_eq!(&line[..], b"answer"),
                other => panic!("{other:?}"),
            }
            assert_eq!(other_err.text().0, "early\nlate\n");
            assert_eq!(own_err.text().0, "thinking\n");
            other.kill().await.unwrap();
        });
    }

    /// The wait gives up at its deadline (the runtime's path goes on from there), and a line
    /// already read is given at once.
    #[test]
    fn the_wait_ends_at_its_deadline_and_gives_a_buffered_line_at_once() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut slow = sh("echo one; echo two; sleep 5").spawn().unwrap();
            let mut lines = LineReader::new(slow.stdout.take().unwrap(), 100);
            let first = wait_line(&mut lines, Instant::now() + Duration::from_secs(10), true);
            assert!(matches!(first, Some(Some(Ok(l))) if &l[..] == b"one"));
            // "two" came in the same read, or comes now.
            let second = wait_line(&mut lines, Instant::now() + Duration::from_secs(10), true);
            assert!(matches!(second, Some(Some(Ok(l))) if &l[..] == b"two"));
            let started = Instant::now();
            let none = wait_line(&mut lines, started + Duration::from_millis(30), true);
            assert!(none.is_none());
            assert!(started.elapsed() >= Duration::from_millis(30));
            slow.kill().await.unwrap();
        });
    }

    /// An answer in pieces (a partial line, pauses of a few milliseconds, the rest, and the
    /// next line begun in the same write) is one line on this path; a line half written at
    /// the deadline stays half read, and the runtime's path ends that same line.
    #[test]
    fn a_line_in_pieces_is_one_line_and_a_half_line_at_the_deadline_is_ended_by_the_runtime() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        rt.block_on(async {
            let mut bot = sh(&format!(
                "printf 'ans'; sleep 0.003; printf 'w'; sleep 0.008; printf 'er\\nne'; \
                 sleep 0.002; printf 'xt\\n'; printf 'sl'; touch {d}/half; \
                 while [ ! -e {d}/go ]; do sleep 0.005; done; printf 'ow\\n'; sleep 5"
            ))
            .spawn()
            .unwrap();
            let mut lines = LineReader::new(bot.stdout.take().unwrap(), 100);
            let far = || Instant::now() + Duration::from_secs(10);
            let first = wait_line(&mut lines, far(), false);
            assert!(
                matches!(&first, Some(Some(Ok(l))) if &l[..] == b"answer"),
                "{first:?}"
            );
            let second = wait_line(&mut lines, far(), true);
            assert!(
                matches!(&second, Some(Some(Ok(l))) if &l[..] == b"next"),
                "{second:?}"
            );
            // "sl" is in the pipe: read at the deadline, no line.
            while !dir.path().join("half").exists() {
                std::thread::sleep(Duration::from_millis(2));
            }
            let none = wait_line(&mut lines, Instant::now() + Duration::from_millis(20), true);
            assert!(none.is_none(), "{none:?}");
            assert!(lines.buffered().is_none());
            std::fs::write(dir.path().join("go"), b"").unwrap();
            let rest = tokio::time::timeout(Duration::from_secs(10), lines.next()).await;
            assert!(
                matches!(&rest, Ok(Some(Ok(l))) if &l[..] == b"slow"),
                "{rest:?}"
            );
            bot.kill().await.unwrap();
        });
    }
}
