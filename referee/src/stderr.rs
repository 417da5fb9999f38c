//! A bot's stderr: drained all the time, so that the bot never blocks on it, and kept for the
//! replay of the game it was written in, up to a cap per game, in chunks that say where in the
//! game each arrived ([`StderrAt`]).
//!
//! The driver marks each point of a game ([`StderrDrain::mark`]: the bot's request `id`, the
//! game's end) and takes what arrived at the end of each game ([`StderrDrain::take`]). A mark
//! takes effect just before the next write to the bot ([`StderrDrain::mark_sent`]) or the next
//! take, after the bytes already in the pipe were read under the previous mark
//! ([`StderrDrain::settle`]), so that what a bot writes before its answer is kept with that
//! answer's request, even when the same bot is asked again at once. Before a write the pipe is
//! looked into (a `poll`) on a table's own thread, where answers are read without the runtime
//! ([`crate::direct`]: the runtime may not have run since the bot's last answer); elsewhere only
//! when the runtime's readiness of it says bytes came that the drain task has not read: the
//! drain task reads the pipe through an [`AsyncFd`] the referee looks at too, so a bot quiet on
//! stderr costs no system call there ([`StderrDrain::mark_sent`]). On a table's own thread the
//! pipe is also read while an answer is awaited ([`Watched`]).
//!
//! Each chunk also says how many lines of the game the referee had written to the bot when it
//! arrived ([`StderrChunk::sent`], set before each write: [`StderrDrain::mark_sent`]), so that a
//! viewer shows it after the last line the bot had been sent: a traceback after the event that
//! caused it, not at the seat's next request.

use std::future::Future;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::process::ChildStderr;
use tokio::sync::watch;

/// Where in a game a piece of stderr arrived. In a replay: `"start"`, the request id, `"end"`
/// (the replay line's own type, `durak_protocol::replay::StderrAt`).
pub use durak_protocol::replay::StderrAt;

/// Bytes of stderr that arrived at one point of a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StderrChunk {
    pub at: StderrAt,
    /// Lines of this game the referee had written to the bot when these bytes arrived (0:
    /// before `game_start`: start-up, hello, between games).
    pub sent: u64,
    /// What was kept (within the game's cap).
    pub text: Vec<u8>,
    /// Bytes that arrived here beyond the cap, left out.
    pub dropped: u64,
}

impl StderrChunk {
    /// The text, with invalid UTF-8 replaced.
    pub fn text_lossy(&self) -> String {
        String::from_utf8_lossy(&self.text).into_owned()
    }
}

/// stderr kept since the last [`StderrLog::take`]: its first `cap` bytes, in chunks by the point
/// they arrived at, and a count of what was dropped at each.
#[derive(Debug, Default)]
pub struct StderrLog {
    pub chunks: Vec<StderrChunk>,
    /// Bytes of text in `chunks`.
    pub kept: usize,
    pub cap: usize,
    /// Where bytes arriving now belong.
    pub at: StderrAt,
    /// Lines of this game written to the bot so far.
    pub sent: u64,
}

impl StderrLog {
    pub fn new(cap: usize) -> StderrLog {
        StderrLog {
            cap,
            ..StderrLog::default()
        }
    }

    /// Bytes read from the pipe.
    pub fn add(&mut self, bytes: &[u8]) {
        let keep = self.cap.saturating_sub(self.kept).min(bytes.len());
        let (at, sent) = (self.at, self.sent);
        if self
            .chunks
            .last()
            .is_none_or(|c| c.at != at || c.sent != sent)
        {
            self.chunks.push(StderrChunk {
                at,
                sent,
                ..StderrChunk::default()
            });
        }
        let chunk = self.chunks.last_mut().expect("pushed");
        chunk.text.extend_from_slice(&bytes[..keep]);
        chunk.dropped += (bytes.len() - keep) as u64;
        self.kept += keep;
    }

    /// Everything since the last take; the cap starts again.
    pub fn take(&mut self) -> Vec<StderrChunk> {
        self.kept = 0;
        std::mem::take(&mut self.chunks)
    }

    /// A new game starts: what is held so far came before it (between games, or at start-up), so
    /// it is the new game's [`StderrAt::Start`].
    pub fn new_game(&mut self) {
        self.at = StderrAt::Start;
        self.sent = 0;
        if self.chunks.is_empty() {
            return;
        }
        let mut all = StderrChunk::default();
        for c in self.chunks.drain(..) {
            all.text.extend_from_slice(&c.text);
            all.dropped += c.dropped;
        }
        self.chunks.push(all);
    }

    /// The text held, as one string, and the bytes dropped.
    pub fn text(&self) -> (String, u64) {
        let bytes: Vec<u8> = self.chunks.iter().flat_map(|c| c.text.clone()).collect();
        let dropped = self.chunks.iter().map(|c| c.dropped).sum();
        (String::from_utf8_lossy(&bytes).into_owned(), dropped)
    }
}

/// A bot's stderr as [`crate::direct`] watches it while an answer is awaited on the table's
/// thread: read there straight into the log, as the drain task would have.
#[derive(Debug)]
pub(crate) struct Watched {
    pipe: Arc<AsyncFd<OwnedFd>>,
    log: Arc<Mutex<StderrLog>>,
    /// The pipe ended (or failed): not watched any more; the drain task finds that too.
    ended: AtomicBool,
}

impl Watched {
    pub(crate) fn fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.pipe.get_ref().as_raw_fd()
    }

    pub(crate) fn ended(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }

    /// Read what the pipe holds into the log (at most a few reads, so that a flood does not
    /// hold the table up); `false` once it ended.
    pub(crate) fn read_inline(&self) -> bool {
        let mut buf = [0u8; 8192];
        for _ in 0..4 {
            match rustix::io::read(self.pipe.get_ref(), &mut buf) {
                Ok(0) => {}
                Ok(n) => {
                    self.log.lock().expect("stderr log").add(&buf[..n]);
                    continue;
                }
                Err(rustix::io::Errno::AGAIN) | Err(rustix::io::Errno::INTR) => return true,
                Err(_) => {}
            }
            self.ended.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// How far the drain task got: reads done, and whether stderr has ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Progress {
    reads: u64,
    eof: bool,
}

/// The drain task of one bot's stderr and what it keeps.
#[derive(Debug)]
pub struct StderrDrain {
    log: Arc<Mutex<StderrLog>>,
    progress: watch::Receiver<Progress>,
    /// The pipe's read end, which the drain task reads: its readiness (set by the runtime's
    /// `epoll_wait`, cleared by the drain task once the pipe is empty) says whether bytes came
    /// that the task has not read; `poll` on it whether bytes wait in it.
    pipe: Option<Arc<AsyncFd<OwnedFd>>>,
    /// A mark not in effect yet: it is, once the pipe is settled before the next write or take.
    pending: Option<StderrAt>,
    /// The pipe as [`crate::direct`] watches it (on a current-thread runtime): kept alive here,
    /// so that it is watched as long as the bot's process is.
    watched: Option<Arc<Watched>>,
    /// Looks into the pipe ([`StderrDrain::waiting`]), for the tests of the fast path.
    #[cfg(test)]
    pub(crate) polls: u64,
}

impl StderrDrain {
    /// Drain `err` from now on (a tokio task), keeping `cap` bytes per game.
    pub fn start(err: ChildStderr, cap: usize) -> StderrDrain {
        // tokio hands the pipe back blocking: the drain task must never block the runtime.
        let pipe = err
            .into_owned_fd()
            .and_then(|fd| {
                rustix::io::ioctl_fionbio(&fd, true)?;
                // SAFETY: an OwnedFd stays open, and the same descriptor, while the AsyncFd
                // owns it.
                Ok(unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }?)
            })
            .map(Arc::new)
            .ok();
        let log = Arc::new(Mutex::new(StderrLog::new(cap)));
        let kept = log.clone();
        let (tx, progress) = watch::channel(Progress::default());
        let read_end = pipe.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 8192];
            let Some(fd) = read_end else {
                tx.send_modify(|p| p.eof = true);
                return;
            };
            loop {
                let Ok(mut ready) = fd.readable().await else {
                    tx.send_modify(|p| p.eof = true);
                    break;
                };
                // An empty pipe clears the readiness (try_io on WouldBlock).
                match ready.try_io(|fd| Ok(rustix::io::read(fd.get_ref(), &mut buf)?)) {
                    Err(_would_block) => {}
                    Ok(Ok(0)) | Ok(Err(_)) => {
                        tx.send_modify(|p| p.eof = true);
                        break;
                    }
                    Ok(Ok(n)) => {
                        kept.lock().expect("stderr log").add(&buf[..n]);
                        tx.send_modify(|p| p.reads += 1);
                    }
                }
            }
        });
        let watched = pipe
            .as_ref()
            .filter(|_| crate::direct::available())
            .map(|p| {
                let w = Arc::new(Watched {
                    pipe: p.clone(),
                    log: log.clone(),
                    ended: AtomicBool::new(false),
                });
                crate::direct::watch_stderr(&w);
                w
            });
        StderrDrain {
            log,
            progress,
            pipe,
            pending: None,
            watched,
            #[cfg(test)]
            polls: 0,
        }
    }

    /// Whether bytes (or the end) wait in the pipe, unread.
    fn waiting(&mut self) -> bool {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        #[cfg(test)]
        {
            self.polls += 1;
        }
        let Some(fd) = &self.pipe else {
            return false;
        };
        let mut fds = [PollFd::new(fd.get_ref(), PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0)
            && fds[0]
                .revents()
                .intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR)
    }

    /// Let the drain task read what is already in the pipe: at most a few reads, so that a bot
    /// that floods stderr does not hold the referee up, each within a second (the drain task
    /// runs at once unless the machine starves the referee's threads).
    pub async fn settle(&mut self) {
        for _ in 0..4 {
            let seen = *self.progress.borrow_and_update();
            if seen.eof || !self.waiting() {
                return;
            }
            let moved = self.progress.wait_for(|p| p.reads != seen.reads || p.eof);
            if tokio::time::timeout(Duration::from_secs(1), moved)
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// stderr belongs to `at` from the next write to the bot (or the next take) on; what is in
    /// the pipe then stays where it was. Nothing is read here: the write settles the pipe once
    /// for the mark and itself.
    pub fn mark(&mut self, at: StderrAt) {
        self.pending = Some(at);
    }

    /// Whether the runtime has seen bytes (or the end) come into the pipe that the drain task
    /// has not read yet: its readiness, looked at without a system call. It is set by the
    /// `epoll_wait` that saw them, so what a bot wrote before an answer the referee was woken
    /// for shows here; the drain task clears it once it finds the pipe empty.
    fn unread_seen(&self) -> bool {
        let Some(fd) = &self.pipe else {
            return false;
        };
        // No waker to keep (the drain task waits on its own), and outside the task's budget:
        // a spent budget would answer "not ready".
        let look = std::future::poll_fn(|cx| Poll::Ready(fd.poll_read_ready(cx).is_ready()));
        let mut look = std::pin::pin!(tokio::task::unconstrained(look));
        match look.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(seen) => seen,
            Poll::Pending => true,
        }
    }

    /// The referee is about to write lines to the bot, `sent` lines of this game in all once
    /// they are written: what arrives from now on came after them, and belongs to the last
    /// mark (what is already in the pipe did not). The pipe is settled when bytes wait in it:
    /// on a table's own thread a `poll` says so; elsewhere the runtime's readiness
    /// ([`StderrDrain::unread_seen`]), no system call for a bot quiet on stderr.
    pub async fn mark_sent(&mut self, sent: u64) {
        // On a table's own thread ([`crate::direct`]) the runtime may not have looked at the
        // pipe since the bot's last answer: look into it (one `poll`).
        let unread = match self.watched {
            Some(_) => self.waiting(),
            None => self.unread_seen(),
        };
        if unread {
            self.settle().await;
        }
        let mut log = self.log.lock().expect("stderr log");
        if let Some(at) = self.pending.take() {
            log.at = at;
        }
        log.sent = sent;
    }

    /// A mark not in effect yet takes effect now (nothing is to be written: the bot is gone or
    /// being killed), after the pipe is settled.
    pub async fn apply_mark(&mut self) {
        if let Some(at) = self.pending {
            self.settle().await;
            self.pending = None;
            self.log.lock().expect("stderr log").at = at;
        }
    }

    /// A new game starts (see [`StderrLog::new_game`]); a mark not in effect yet is dropped.
    pub fn new_game(&mut self) {
        self.pending = None;
        self.log.lock().expect("stderr log").new_game();
    }

    /// What arrived since the last take, after letting the pipe's bytes be read (a pending mark
    /// takes effect then: what arrives from now on belongs to it).
    pub async fn take(&mut self) -> Vec<StderrChunk> {
        self.settle().await;
        let mut log = self.log.lock().expect("stderr log");
        if let Some(at) = self.pending.take() {
            log.at = at;
        }
        log.take()
    }

    /// The text held (since the last take), and the bytes dropped.
    pub fn text(&self) -> (String, u64) {
        self.log.lock().expect("stderr log").text()
    }

    /// Wait until stderr has ended (every process of the bot is gone), at most `limit`.
    pub async fn wait_eof(&mut self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.progress.wait_for(|p| p.eof)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_follow_the_marks_and_the_cap_is_per_take() {
        let mut log = StderrLog::new(10);
        log.add(b"hello ");
        log.at = StderrAt::Request(1);
        log.add(b"r1");
        log.add(b" more");
        log.at = StderrAt::Request(3);
        log.add(b"r3 beyond");
        let chunks = log.take();
        let got: Vec<(StderrAt, &[u8], u64)> = chunks
            .iter()
            .map(|c| (c.at, &c.text[..], c.dropped))
            .collect();
        assert_eq!(
            got,
            vec![
                (StderrAt::Start, &b"hello "[..], 0),
                (StderrAt::Request(1), &b"r1 m"[..], 3),
                (StderrAt::Request(3), &b""[..], 9),
            ]
        );
        // The next game has the whole cap again.
        log.new_game();
        log.add(b"0123456789ab");
        let chunks = log.take();
        assert_eq!(chunks.len(), 1);
        assert_eq!(
            (chunks[0].at, &chunks[0].text[..], chunks[0].dropped),
            (StderrAt::Start, &b"0123456789"[..], 2)
        );
    }

    #[test]
    fn what_came_between_games_is_the_next_game_start() {
        let mut log = StderrLog::new(100);
        log.at = StderrAt::End;
        log.add(b"bye ");
        log.at = StderrAt::Request(2);
        log.add(b"??");
        log.new_game();
        assert_eq!(log.at, StderrAt::Start);
        let chunks = log.take();
        assert_eq!(chunks.len(), 1);
        assert_eq!(
            (chunks[0].at, &chunks[0].text[..]),
            (StderrAt::Start, &b"bye ??"[..])
        );
    }

    #[test]
    fn chunks_split_at_each_line_count_and_a_new_game_counts_from_zero() {
        let mut log = StderrLog::new(100);
        log.sent = 1;
        log.add(b"a");
        log.add(b"b");
        log.sent = 4;
        log.add(b"c");
        let got: Vec<(u64, Vec<u8>)> = log.take().into_iter().map(|c| (c.sent, c.text)).collect();
        assert_eq!(got, vec![(1, b"ab".to_vec()), (4, b"c".to_vec())]);
        log.add(b"tail");
        log.new_game();
        assert_eq!(log.sent, 0);
        let chunks = log.take();
        assert_eq!((chunks[0].sent, &chunks[0].text[..]), (0, &b"tail"[..]));
    }

    #[test]
    fn marks_serialize_as_the_replay_writes_them() {
        let j = |a: StderrAt| serde_json::to_string(&a).unwrap();
        assert_eq!(j(StderrAt::Start), "\"start\"");
        assert_eq!(j(StderrAt::Request(7)), "7");
        assert_eq!(j(StderrAt::End), "\"end\"");
    }
}
