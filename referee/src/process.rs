//! One bot process: isolated (see [`crate::isolation`] and `docs/SECURITY.md`), spoken to in
//! lines, killed with everything it started.

use crate::clock::Tracker;
use crate::isolation::{self, Context};
use crate::lines::LineReader;
use crate::sent::Sent;
use crate::stderr::{StderrAt, StderrChunk, StderrDrain};
use std::io;
use std::process::ExitStatus;
use std::time::{Duration, Instant};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, ChildStdin};

pub use crate::command::{which, BotCommand, BUILTINS, HUMAN};

/// The exit code of the human seat when the person quits (`q` at the prompt): the referee
/// records "the person quit" ([`IoFault::Quit`]), not a crash's advice for bots.
pub const HUMAN_QUIT: i32 = 3;

/// The file descriptors the human seat gets the referee's stdin and stdout on (its own stdin
/// and stdout speak the protocol): where the person types and reads.
pub const HUMAN_KEYS_FD: i32 = 3;
pub const HUMAN_SCREEN_FD: i32 = 4;

/// Why reading from or writing to a bot failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IoFault {
    Timeout,
    /// Exited or killed by a signal: the description.
    Crash(String),
    /// Killed by the kernel for using more than its memory limit: the description.
    Memory(String),
    /// stdout (or stdin) closed while the process lives.
    Closed,
    LineTooLong,
    /// The human seat's person quit (it exited with [`HUMAN_QUIT`]).
    Quit,
    /// Starved by the machine: no answer after [`crate::clock::HARD_CAP`] times the limit of
    /// wall time, its own time (`own`) still under the limit. Not the bot's fault: the game is
    /// voided and played again.
    Starved {
        wall: Duration,
        own: Duration,
    },
}

/// What [`BotProcess::spawn_with`] needs besides the command.
#[derive(Clone, Debug)]
pub struct SpawnOptions {
    /// Longest line accepted from the bot, in bytes.
    pub max_line: usize,
    /// Bytes of stderr kept per game (per [`BotProcess::take_stderr`]).
    pub stderr_cap: usize,
    /// The games of the match and the paths the bot must not see.
    pub context: Context,
}

/// Queued lines are written once they reach this many bytes, well below a pipe's capacity
/// (64 KiB on Linux), so that a bot that reads its input never makes the referee wait.
pub const OUTBOX_FLUSH: usize = 16 * 1024;

/// How long a bot must stay quiet (stdin read, no process running) before [`Process::settle_input`]
/// calls it settled.
const QUIET_FOR: Duration = Duration::from_millis(20);

/// A running bot.
pub struct BotProcess {
    /// The supervisor (see [`crate::isolation`]): the referee's direct child, which exits with
    /// the bot's status once the bot and everything it started are gone.
    child: Child,
    /// The supervisor's pid (also its process group).
    pgid: Option<i32>,
    /// The bot's main process (the supervisor's child), which leads the bot's process group.
    bot_pid: Option<i32>,
    /// Whether the referee itself had to kill the supervisor.
    killed_supervisor: bool,
    stdin: Option<ChildStdin>,
    /// Lines queued by [`BotProcess::send_later`], not yet written.
    outbox: Vec<u8>,
    /// What went through stdin (see [`crate::sent`]).
    sent: Sent,
    lines: LineReader,
    /// Answers are read on the table's own thread ([`crate::direct`]) when they come soon.
    direct: bool,
    /// The referee's thread (and so the bot) may run on one CPU only: waiting for an answer
    /// starts by yielding that CPU to the bot.
    alone: bool,
    /// stderr, drained all the time and kept per game.
    stderr: StderrDrain,
    exit: Option<ExitStatus>,
    max_line: usize,
    strict: bool,
    /// The private working directory (default mode), removed with the process.
    private_dir: Option<tempfile::TempDir>,
    /// The uid the bot runs as (strict mode as root), free again after.
    _uid: Option<isolation::UidLease>,
    /// The bot's memory and pids cgroup (when this machine allows one): everything the bot
    /// starts is in it, whatever it does to its supervisor.
    cgroup: Option<isolation::cgroup::BotCgroup>,
    /// Where the supervisor marks that it finished.
    done: isolation::DoneFlag,
    /// The human seat ([`BotCommand::is_human`]).
    human: bool,
    /// When the last byte of the last write went into the pipe (the instant just before the
    /// write call that took it): a decision's clock starts there ([`BotProcess::answer`]).
    written_at: Instant,
    /// The bot's threads' schedstat files, for the decision clock ([`BotProcess::answer`]).
    tracker: Option<Tracker>,
    /// System calls asking for the supervisor's status ([`BotProcess::try_exit`]).
    #[cfg(test)]
    status_checks: u64,
    /// Decisions whose answer (or fault) was read on the table's own thread ([`crate::direct`]).
    #[cfg(test)]
    direct_answers: u64,
}

/// Describe an exit status in words, with the code or signal.
pub fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}{}", signal_name(sig)),
        _ => "ended".to_string(),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => " (SIGILL)",
        5 => " (SIGTRAP)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        15 => " (SIGTERM)",
        24 => " (SIGXCPU)",
        25 => " (SIGXFSZ)",
        _ => "",
    }
}

impl BotProcess {
    /// Whether this is the human seat's process.
    pub fn is_human(&self) -> bool {
        self.human
    }

    /// The private working directory the bot runs in (default mode, without a configured
    /// working directory), until the bot is killed.
    pub fn private_dir(&self) -> Option<&std::path::Path> {
        self.private_dir.as_ref().map(|d| d.path())
    }

    /// The supervisor's pid (the bot's main process is its child).
    pub fn pid(&self) -> Option<u32> {
        self.pgid.map(|p| p as u32)
    }

    /// Write one JSON line, and every line queued by [`BotProcess::send_later`] before it,
    /// within `limit`. A bot that does not read its stdin times out here; the referee never
    /// blocks on it.
    pub async fn send(
        &mut self,
        v: &impl serde::Serialize,
        limit: Duration,
    ) -> Result<(), IoFault> {
        self.queue(v);
        self.flush(limit).await
    }

    /// Queue one JSON line (an event: no answer expected): it is written with the next
    /// [`BotProcess::send`], so that a bot reads a request and the events before it in one go,
    /// woken once instead of once per event. Queued lines are written at once when they reach
    /// [`OUTBOX_FLUSH`] bytes, within `limit`.
    pub async fn send_later(
        &mut self,
        v: &impl serde::Serialize,
        limit: Duration,
    ) -> Result<(), IoFault> {
        if self.stdin.is_none() {
            self.outbox.clear();
            return Err(self.closed_or_crashed().await);
        }
        self.queue(v);
        if self.outbox.len() >= OUTBOX_FLUSH {
            self.flush(limit).await
        } else {
            Ok(())
        }
    }

    /// Write `bytes` as they are (after any queued lines) within `limit`.
    pub async fn send_raw(&mut self, bytes: &[u8], limit: Duration) -> Result<(), IoFault> {
        self.outbox.extend_from_slice(bytes);
        self.flush(limit).await
    }

    fn queue(&mut self, v: &impl serde::Serialize) {
        serde_json::to_writer(&mut self.outbox, v).expect("json");
        self.outbox.push(b'\n');
    }

    async fn flush(&mut self, limit: Duration) -> Result<(), IoFault> {
        if self.stdin.is_none() {
            self.stderr.apply_mark().await;
            self.outbox.clear();
            return Err(self.closed_or_crashed().await);
        }
        if !self.outbox.is_empty() {
            // What the bot writes on stderr from now on came after these lines.
            let lines = memchr::memchr_iter(b'\n', &self.outbox).count() as u64;
            self.stderr.mark_sent(self.sent.game_lines + lines).await;
        } else {
            self.stderr.apply_mark().await;
        }
        let stdin = self.stdin.as_mut().expect("checked");
        let out = &self.outbox;
        let mut done = 0;
        let mut at = Instant::now();
        let write = async {
            while done < out.len() {
                // The instant is taken just before each write call: the one that writes the
                // last byte starts the clock. Taken after the write, it would come late by as
                // long as the referee waits for a CPU once the bot is woken, and a bot that
                // answers meanwhile (a Python bot on the referee's CPU) would be timed at 0.
                let n = std::future::poll_fn(|cx| {
                    at = Instant::now();
                    std::pin::Pin::new(&mut *stdin).poll_write(cx, &out[done..])
                })
                .await?;
                match n {
                    0 => return Err(io::ErrorKind::WriteZero.into()),
                    n => done += n,
                }
            }
            stdin.flush().await
        };
        let r = tokio::time::timeout(limit, write).await;
        self.written_at = at;
        self.sent.wrote(&mut self.outbox, done);
        match r {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                self.close_stdin();
                Err(self.closed_or_crashed().await)
            }
            Err(_) => Err(IoFault::Timeout),
        }
    }

    /// Let go of stdin (the bot stopped reading it), noting what it left unread.
    fn close_stdin(&mut self) {
        if let Some(stdin) = self.stdin.take() {
            self.sent.unread_at_close = crate::idle::unread_bytes(&stdin);
        }
    }

    /// Bytes written to the bot's stdin since it started (lines queued and not yet written are
    /// not counted).
    pub fn bytes_written(&self) -> u64 {
        self.sent.bytes
    }

    /// Bytes of its stdin the bot has read (taken out of the pipe: a reader that buffers may
    /// not have looked at all of them yet), when the kernel says.
    pub fn bytes_read(&self) -> Option<u64> {
        let unread = match &self.stdin {
            Some(stdin) => crate::idle::unread_bytes(stdin)?,
            None => self.sent.unread_at_close?,
        };
        Some(self.sent.bytes.saturating_sub(unread))
    }

    /// The last line written to the bot's stdin (cut when long), if any.
    pub fn last_line_sent(&self) -> Option<String> {
        self.sent.last_line()
    }

    /// The last whole line the bot has read from its stdin (cut when long): the last line
    /// written, unless the kernel says the bot left some of it unread.
    pub fn last_line_read(&self) -> Option<String> {
        match self.bytes_read() {
            Some(read) => self.sent.last_line_read(read),
            None => self.sent.last_line(),
        }
    }

    /// After a broken pipe or EOF: did the process end (crash) or only close the stream?
    async fn closed_or_crashed(&mut self) -> IoFault {
        if let Some(s) = self.exit {
            return self.ended(s);
        }
        match tokio::time::timeout(Duration::from_millis(250), self.child.wait()).await {
            Ok(Ok(s)) => {
                self.exit = Some(s);
                self.ended(s)
            }
            _ => IoFault::Closed,
        }
    }

    /// The fault of a bot whose supervisor ended with `status`: killed by the kernel for
    /// memory (its cgroup says so), or a crash.
    /// A supervisor that ended without its mark, and not by the referee's hand, was killed
    /// under the bot (the bot then died of `PR_SET_PDEATHSIG`): the fault says so, not the
    /// signal, which would blame nobody.
    fn ended(&self, status: ExitStatus) -> IoFault {
        if self.human && status.code() == Some(HUMAN_QUIT) {
            return IoFault::Quit;
        }
        if self.cgroup.as_ref().is_some_and(|cg| cg.oom_kills() > 0) {
            return self.memory_fault(Some(status));
        }
        if !self.killed_supervisor && !self.done.is_set() {
            return IoFault::Crash(format!(
                "killed its supervisor (the process that cleans up after it), and so itself: \
                 the supervisor {}",
                describe_exit(status)
            ));
        }
        IoFault::Crash(self.describe(status))
    }

    /// The kernel killed a process of the bot for memory (the whole bot is at fault: its
    /// processes together went over the limit).
    fn memory_fault(&self, status: Option<ExitStatus>) -> IoFault {
        let limit = self
            .cgroup
            .as_ref()
            .and_then(|c| c.memory_limit)
            .map_or_else(
                || "its memory limit".into(),
                |l| isolation::format_limit(Some(l)),
            );
        let how = status.map_or_else(
            || "a process of it was killed".to_string(),
            |s| self.describe(s),
        );
        IoFault::Memory(format!(
            "was killed for using more memory than its limit ({limit}, all its processes \
             together; --limit memory=... raises it): {how}"
        ))
    }

    /// Write what is queued, then wait, at most `limit`, until the bot has read all of it and
    /// gone quiet (no byte left in its stdin pipe, none of its processes running: see
    /// [`crate::idle`]), or has ended. `Ok(true)`: quiet; `Ok(false)`: still busy at the limit
    /// (it may be thinking; it is alive); `Err`: it ended (or stopped reading), with the fault.
    /// For a kind of message a process has not read before: a bot that crashes on it does so
    /// right after reading it.
    pub async fn settle_input(&mut self, limit: Duration) -> Result<bool, IoFault> {
        self.flush(limit).await?;
        let until = Instant::now() + limit;
        // Quiet means quiet for a while: one look at /proc is not atomic (a process that
        // forks or exits while its tree is walked can be missed), so a single quiet sample
        // does not settle it.
        let mut quiet_since: Option<Instant> = None;
        loop {
            if let Some(s) = self.try_exit() {
                self.close_stdin();
                return Err(self.ended(s));
            }
            let unread = self
                .stdin
                .as_ref()
                .and_then(crate::idle::unread_bytes)
                .unwrap_or(0);
            let busy = unread > 0 || self.pgid.is_some_and(crate::idle::tree_busy);
            let now = Instant::now();
            if busy {
                quiet_since = None;
            } else if now.duration_since(*quiet_since.get_or_insert(now)) >= QUIET_FOR {
                return Ok(true);
            }
            if now >= until {
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// The most memory the bot used at once (its cgroup's peak), when known.
    pub fn peak_memory(&self) -> Option<u64> {
        self.cgroup.as_ref().and_then(|c| c.peak_memory())
    }

    /// How many times a fork of the bot was refused for its process limit (its cgroup's
    /// `pids.events`), when known.
    pub fn process_limit_hits(&self) -> u64 {
        self.cgroup.as_ref().map_or(0, |c| c.process_limit_hits())
    }

    /// The stderr captured since the last [`BotProcess::take_stderr`], as text, and the bytes
    /// dropped beyond the cap.
    pub fn stderr_text(&self) -> (String, u64) {
        self.stderr.text()
    }

    /// The stderr that arrived since the last call, in chunks by where it arrived (at most after
    /// the last line the bot has read: [`StderrChunk::sent`]); the cap starts again. Bytes
    /// already in the pipe are read first.
    pub async fn take_stderr(&mut self) -> Vec<StderrChunk> {
        let mut chunks = self.stderr.take().await;
        // Nothing the bot wrote can come after a line it had not read yet: a bot that died
        // reading the fourth of six lines written at once wrote its last words after the fourth.
        if let Some(read) = self.bytes_read().map(|b| self.sent.lines_read(b)) {
            for c in &mut chunks {
                c.sent = c.sent.min(read);
            }
        }
        chunks
    }

    /// stderr arriving from the next write to the bot on belongs to `at` (what is in the pipe
    /// then does not). No system call: the write settles the pipe for both, and only when the
    /// runtime saw bytes in it the drain task has not read ([`crate::stderr`]).
    pub async fn mark_stderr(&mut self, at: StderrAt) {
        self.stderr.mark(at);
    }

    /// A new game starts: the stderr held so far is its start (see [`StderrAt::Start`]), and
    /// the lines written to the bot are counted from 0 again (see [`StderrChunk::sent`]).
    pub fn new_game_stderr(&mut self) {
        self.sent.new_game();
        self.stderr.new_game();
    }

    /// Describe how the bot ended. In strict mode bubblewrap reports a bot killed by signal N
    /// as exit code 128 + N.
    fn describe(&self, status: ExitStatus) -> String {
        match (
            self.strict,
            status.code().and_then(isolation::describe_sandbox_code),
        ) {
            (true, Some(sig)) => format!(
                "killed by signal {sig}{} in the sandbox (exit code {})",
                signal_name(sig),
                sig + 128
            ),
            _ => describe_exit(status),
        }
    }
}

mod answer;
mod kill;
mod spawn;
#[cfg(test)]
mod tests;
