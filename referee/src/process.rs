//! One bot process: isolated (see [`crate::isolation`] and `docs/SECURITY.md`), spoken to in
//! lines, killed with everything it started.

use crate::clock::{self, DecisionTime, Pending, RefereeWait, Sample, Tracker};
use crate::isolation::{self, Context};
use crate::sent::Sent;
use crate::stderr::{StderrAt, StderrChunk, StderrDrain};
use bytes::Bytes;
use futures_util::StreamExt;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, FramedRead};

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
    lines: FramedRead<ChildStdout, AnyDelimiterCodec>,
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
}

/// Resolves once the kernel has killed a process of the bot's cgroup for memory (checked every
/// 20 ms while an answer is awaited, first 20 ms in: an answer that comes sooner reads no file);
/// never without a cgroup. A bot whose main process is killed is told by its exit at once.
async fn oom_kill(cgroup: Option<&isolation::cgroup::BotCgroup>) {
    let Some(cg) = cgroup else {
        return std::future::pending().await;
    };
    let every = Duration::from_millis(20);
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if cg.oom_kills() > 0 {
            return;
        }
    }
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
    /// Start a bot with piped stdin, stdout and stderr, isolated as its command says, for a
    /// match of one game and hiding nothing in particular.
    pub fn spawn(cmd: &BotCommand, max_line: usize, stderr_cap: usize) -> io::Result<BotProcess> {
        BotProcess::spawn_with(
            cmd,
            &SpawnOptions {
                max_line,
                stderr_cap,
                context: Context {
                    games: 1,
                    hidden: Vec::new(),
                },
            },
        )
    }

    /// Start a bot with piped stdin, stdout and stderr, isolated as its command says.
    pub fn spawn_with(cmd: &BotCommand, opts: &SpawnOptions) -> io::Result<BotProcess> {
        if cmd.is_human() {
            return BotProcess::spawn_human(cmd, opts);
        }
        let prep = isolation::prepare(
            &cmd.spec,
            &cmd.program,
            &cmd.args,
            cmd.cwd.as_deref(),
            &cmd.isolation,
            &opts.context,
        )?;
        let mut c = Command::new(&prep.program);
        c.args(&prep.args)
            .env_clear()
            .envs(prep.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&prep.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            // The supervisor must outlive the bot to clean up after it: never SIGKILL it first.
            .kill_on_drop(false);
        // Between fork and exec: the supervisor (cleans up when the referee dies:
        // PR_SET_PDEATHSIG; child subreaper), then the bot (own process group, dies with the supervisor, no inherited
        // descriptors, rlimits). Raw system calls only.
        let plan = prep.plan.clone();
        // SAFETY: the hook only makes async-signal-safe system calls (see isolation::child).
        unsafe {
            c.pre_exec(move || isolation::child::pre_exec(&plan));
        }
        let mut child = c.spawn()?;
        let pgid = child.id().map(|p| p as i32);
        // spawn returns once the bot's exec succeeded: the supervisor's only child is the bot.
        let bot_pid = pgid.and_then(|p| isolation::children_of(p).first().copied());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let stderr = StderrDrain::start(child.stderr.take().expect("piped"), opts.stderr_cap);
        let max_line = opts.max_line;
        // One more byte than the limit so that a line of exactly the limit (plus newline) passes.
        let codec = AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), vec![], max_line + 1);
        Ok(BotProcess {
            child,
            pgid,
            bot_pid,
            killed_supervisor: false,
            stdin,
            outbox: Vec::with_capacity(4096),
            sent: Sent::default(),
            lines: FramedRead::new(stdout, codec),
            stderr,
            exit: None,
            max_line,
            strict: prep.strict,
            private_dir: prep.private_dir,
            _uid: prep.uid_lease,
            cgroup: prep.cgroup,
            done: prep.done,
            human: false,
            written_at: Instant::now(),
            tracker: None,
            #[cfg(test)]
            status_checks: 0,
        })
    }

    /// The human seat: `durak human` in the referee's terminal and its foreground process
    /// group (it reads the keyboard), with no supervisor, sandbox or private directory.
    /// The referee's stdin and stdout (the terminal, or what a test pipes in) are its
    /// [`HUMAN_KEYS_FD`] and [`HUMAN_SCREEN_FD`].
    fn spawn_human(cmd: &BotCommand, opts: &SpawnOptions) -> io::Result<BotProcess> {
        use std::os::fd::{AsRawFd, OwnedFd};
        // Copies above the low descriptors (close-on-exec), moved into place in the child.
        let keys: OwnedFd = rustix::io::fcntl_dupfd_cloexec(std::io::stdin(), 10)?;
        let screen: OwnedFd = rustix::io::fcntl_dupfd_cloexec(std::io::stdout(), 10)?;
        let (k, s) = (keys.as_raw_fd(), screen.as_raw_fd());
        let mut c = Command::new(&cmd.program);
        c.args(&cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // SAFETY: dup2 is async-signal-safe; the descriptors stay open until spawn returns.
        unsafe {
            c.pre_exec(move || {
                if libc::dup2(k, HUMAN_KEYS_FD) < 0 || libc::dup2(s, HUMAN_SCREEN_FD) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = c.spawn()?;
        drop((keys, screen));
        let pid = child.id().map(|p| p as i32);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let stderr = StderrDrain::start(child.stderr.take().expect("piped"), opts.stderr_cap);
        let codec =
            AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), vec![], opts.max_line + 1);
        let done = isolation::DoneFlag::new()?;
        // No supervisor: nobody can kill one.
        done.set();
        Ok(BotProcess {
            child,
            pgid: None,
            bot_pid: pid,
            killed_supervisor: false,
            stdin,
            outbox: Vec::with_capacity(4096),
            sent: Sent::default(),
            lines: FramedRead::new(stdout, codec),
            stderr,
            exit: None,
            max_line: opts.max_line,
            strict: false,
            private_dir: None,
            _uid: None,
            cgroup: None,
            done,
            human: true,
            written_at: Instant::now(),
            tracker: None,
            #[cfg(test)]
            status_checks: 0,
        })
    }

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
            let lines = self.outbox.iter().filter(|b| **b == b'\n').count() as u64;
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

    /// Someone (the bot, as the same user in default mode) killed the supervisor: it ended
    /// without its mark (see `isolation::done`), and not by the referee's hand. Nothing cleans
    /// up after the bot any more. Checked at every game's end, and after every answer without
    /// a system call ([`BotProcess::supervisor_seen_killed`]), so a bot that does so is at
    /// fault in that game.
    pub fn supervisor_was_killed(&mut self) -> bool {
        !self.killed_supervisor && self.try_exit().is_some() && !self.done.is_set()
    }

    /// [`BotProcess::supervisor_was_killed`] without a system call while the supervisor's
    /// pidfd is quiet: the runtime's readiness of it is looked at (set by the `epoll_wait` that
    /// woke the referee for the answer, or an earlier one), and only once it says the
    /// supervisor ended is its status collected. A supervisor killed after that `epoll_wait`
    /// shows at the next answer, or at the game's end ([`BotProcess::supervisor_was_killed`]).
    async fn supervisor_seen_killed(&mut self) -> bool {
        if self.killed_supervisor {
            return false;
        }
        if self.exit.is_none() {
            let child = &mut self.child;
            let ended = std::future::poll_fn(|cx| {
                let wait = std::pin::pin!(child.wait());
                std::task::Poll::Ready(match std::future::Future::poll(wait, cx) {
                    std::task::Poll::Ready(Ok(s)) => Some(s),
                    _ => None,
                })
            })
            .await;
            self.exit = ended;
        }
        self.exit.is_some() && !self.done.is_set()
    }

    /// The answer to what was just written, on the decision clock (see [`crate::clock`]):
    /// timed from the moment the last byte of the request went into the pipe, and a timeout
    /// only when the bot's own time passes `limit`. A decision answered within
    /// [`crate::clock::FIRST_SAMPLE`] (or half of `limit`) reads nothing but its answer; past
    /// that, the baseline of the bot's threads (and of the referee's) is read, a `pread` per
    /// known thread, and the bot's tasks are read again at the answer or the limit. A bot the machine kept
    /// waiting past [`crate::clock::HARD_CAP`] times `limit` is [`IoFault::Starved`].
    pub async fn answer(&mut self, limit: Duration) -> Result<(Bytes, DecisionTime), IoFault> {
        let start = self.written_at;
        // The human seat is a person: its wall time is its time.
        let root = self.pgid.filter(|_| !self.human);
        if self.tracker.as_ref().map(|t| t.root()) != root {
            self.tracker = root.map(Tracker::new);
        }
        let read_past = (limit / 2).min(clock::FIRST_SAMPLE);
        let due = start + read_past;
        // The fast path reads nothing but the answer: a decision answered within `read_past`
        // is all the bot's own time (nothing could change its verdict).
        match self
            .recv(due.saturating_duration_since(Instant::now()))
            .await
        {
            Ok((line, arrived)) => {
                let wall = arrived.saturating_duration_since(start);
                return Ok((line, DecisionTime::wall_only(wall)));
            }
            Err(IoFault::Timeout) => {}
            Err(f) => return Err(f),
        }
        // The baseline, taken at `due` (or as soon after as the referee's thread ran: that
        // delay is the machine's, as is the referee's run-queue wait later on).
        let base = self.tracker.as_mut().map(|t| {
            let now = Instant::now();
            Base {
                at: due,
                sample: t.baseline(),
                referee: RefereeWait::now(),
                late: now.saturating_duration_since(due),
            }
        });
        let cap = start + limit.saturating_mul(clock::HARD_CAP);
        let mut until = start + limit;
        let mut pending: Option<Pending> = None;
        loop {
            let now = Instant::now();
            match self.recv(until.saturating_duration_since(now)).await {
                Ok((line, arrived)) => {
                    let time = match (&base, self.tracker.as_mut()) {
                        (Some(base), Some(tracker)) => account(tracker, base, start, arrived).0,
                        _ => DecisionTime::wall_only(arrived.saturating_duration_since(start)),
                    };
                    return Ok((line, time));
                }
                Err(IoFault::Timeout) => {}
                Err(f) => return Err(f),
            }
            let (Some(base), Some(tracker)) = (&base, self.tracker.as_mut()) else {
                return Err(IoFault::Timeout);
            };
            let now = Instant::now();
            let (time, sample) = account(tracker, base, start, now);
            let pending = pending.get_or_insert_with(|| Pending::new(&base.sample, base.at));
            if time.own >= limit {
                // At best, with what its runnable threads may have waited unseen: only when
                // even that is past the limit is it charged; otherwise look again in 1 ms
                // (once they have run, their wait shows).
                let unseen = pending.bound(&sample, now);
                let best = own_with(&time, base, now, unseen);
                if best >= limit || now >= cap {
                    // An answer that came while the accounting was read still counts.
                    if let Ok((line, _)) = self.recv(Duration::ZERO).await {
                        return Ok((line, time));
                    }
                }
                if best >= limit {
                    return Err(IoFault::Timeout);
                }
                if now >= cap {
                    return Err(IoFault::Starved {
                        wall: time.wall,
                        own: best,
                    });
                }
                until = (now + Duration::from_millis(1)).min(cap);
                continue;
            }
            pending.bound(&sample, now);
            if now >= cap {
                return Err(IoFault::Starved {
                    wall: time.wall,
                    own: time.own,
                });
            }
            // Its own time left, at the soonest: look again then (not before 1 ms).
            let left = (limit - time.own).max(Duration::from_millis(1));
            until = (now + left).min(cap);
        }
    }

    /// Read one line within `limit`; returns it with the instant it arrived.
    pub async fn recv(&mut self, limit: Duration) -> Result<(Bytes, Instant), IoFault> {
        if let Some(s) = self.exit {
            // The process is gone: only a line it left in the pipe can still come.
            return match tokio::time::timeout(Duration::from_millis(50), self.lines.next()).await {
                Ok(Some(Ok(b))) => Ok((b, Instant::now())),
                _ => Err(self.ended(s)),
            };
        }
        enum Woke {
            Line(Option<Result<Bytes, AnyDelimiterCodecError>>),
            Exit(io::Result<ExitStatus>),
            Memory,
            Deadline,
        }
        let woke = {
            let deadline = tokio::time::sleep(limit);
            let oom = oom_kill(self.cgroup.as_ref());
            tokio::pin!(deadline, oom);
            tokio::select! {
                biased;
                r = self.lines.next() => Woke::Line(r),
                _ = &mut oom => Woke::Memory,
                s = self.child.wait() => Woke::Exit(s),
                _ = &mut deadline => Woke::Deadline,
            }
        };
        match woke {
            Woke::Line(r) => self.line_result(r).await,
            Woke::Memory => Err(self.memory_fault(None)),
            Woke::Deadline => Err(IoFault::Timeout),
            Woke::Exit(s) => {
                if let Ok(s) = s {
                    self.exit = Some(s);
                }
                // A line written just before exiting is still an answer.
                match tokio::time::timeout(Duration::from_millis(50), self.lines.next()).await {
                    Ok(r @ Some(Ok(_))) => self.line_result(r).await,
                    _ => Err(match self.exit {
                        Some(s) => self.ended(s),
                        None => IoFault::Crash("ended".into()),
                    }),
                }
            }
        }
    }

    async fn line_result(
        &mut self,
        r: Option<Result<Bytes, AnyDelimiterCodecError>>,
    ) -> Result<(Bytes, Instant), IoFault> {
        let now = Instant::now();
        match r {
            Some(Ok(b)) => {
                let mut b = b;
                if b.last() == Some(&b'\r') {
                    b.truncate(b.len() - 1);
                }
                if b.len() > self.max_line {
                    return Err(IoFault::LineTooLong);
                }
                if self.supervisor_seen_killed().await {
                    return Err(IoFault::Crash(
                        "killed its supervisor (the process that cleans up after it) and went on"
                            .into(),
                    ));
                }
                Ok((b, now))
            }
            Some(Err(AnyDelimiterCodecError::MaxChunkLengthExceeded)) => Err(IoFault::LineTooLong),
            Some(Err(AnyDelimiterCodecError::Io(_))) | None => Err(self.closed_or_crashed().await),
        }
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

    /// Kill the bot and everything it started, then reap the supervisor. Never blocks on the
    /// bot for long.
    pub async fn kill(&mut self) {
        // What the bot writes from now on (a killed bot's last words) belongs to the last mark.
        self.stderr.apply_mark().await;
        if self.try_exit().is_some() {
            self.after_supervisor_killed();
        } else {
            self.signal_bot();
            match tokio::time::timeout(Duration::from_secs(3), self.child.wait()).await {
                Ok(Ok(s)) => self.exit = Some(s),
                _ => {
                    // The supervisor did not finish (it should within milliseconds): kill it.
                    self.kill_supervisor();
                    if let Ok(Ok(s)) =
                        tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await
                    {
                        self.exit = Some(s);
                    }
                }
            }
        }
        // Everything of the bot is gone, so its stderr ends: read the rest (a crash's last
        // words, a traceback) before anyone looks at it.
        self.stderr.wait_eof(Duration::from_millis(250)).await;
        // Whatever is still in the bot's cgroup (nothing, unless it got away from its
        // supervisor) goes too.
        if let Some(cg) = &self.cgroup {
            if cg.populated() {
                cg.kill_all();
            }
        }
        // Remove its private directory now.
        if let Some(dir) = self.private_dir.take() {
            let _ = dir.close();
        }
    }

    /// SIGKILL the supervisor's children and their process groups: the bot's main process and
    /// its group, and any orphan the supervisor adopted. The supervisor then kills what is left
    /// and exits. Only while the supervisor is not reaped (its pid, and so its children, are
    /// still ours).
    fn signal_bot(&self) {
        let Some(sup) = self.pgid else {
            // The human seat: one process of ours, no supervisor.
            if let Some(p) = self.bot_pid.and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
            return;
        };
        for pid in isolation::children_of(sup) {
            if let Some(p) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
    }

    /// A supervisor killed by someone else (a bot of the same user, the OOM killer) could not
    /// clean up: kill what is left of the bot's process group. Its id cannot have been reused
    /// while a member lives, and it is signalled only if one does.
    fn after_supervisor_killed(&self) {
        use std::os::unix::process::ExitStatusExt;
        let killed = self.exit.and_then(|s| s.signal()) == Some(9);
        if !killed || self.killed_supervisor {
            return;
        }
        if let Some(b) = self.bot_pid {
            if isolation::group_has_members(b) {
                if let Some(p) = rustix::process::Pid::from_raw(b) {
                    let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
                }
            }
        }
        // With a cgroup, nothing escapes: every process the bot started is in it.
        if let Some(cg) = &self.cgroup {
            cg.kill_all();
        }
    }

    fn kill_supervisor(&mut self) {
        self.killed_supervisor = true;
        if let Some(pg) = self.pgid.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(pg, rustix::process::Signal::KILL);
        }
        let _ = self.child.start_kill();
    }

    /// Whether the process has ended (without waiting).
    pub fn try_exit(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            #[cfg(test)]
            {
                self.status_checks += 1;
            }
            if let Ok(Some(s)) = self.child.try_wait() {
                self.exit = Some(s);
            }
        }
        self.exit
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // Whatever happens to the driver, no process of the bot outlives it: the supervisor
        // kills the rest and exits (tokio reaps it).
        if self.try_exit().is_none() {
            self.signal_bot();
        } else {
            self.after_supervisor_killed();
        }
    }
}

/// A decision's baseline: the bot's threads (and the referee's) read once the decision had
/// gone on for its first sample's time, at `at`; the referee's thread ran `late` after that
/// (its wait for a CPU, or its runtime's other work: the machine's time, not the bot's).
struct Base {
    at: Instant,
    sample: Sample,
    referee: Option<RefereeWait>,
    late: Duration,
}

/// The decision clock at `now`: the bot's threads (walked again) and the referee's thread
/// against the baseline; with the walk. The time before the baseline was due is the bot's own.
fn account(
    tracker: &mut Tracker,
    base: &Base,
    start: Instant,
    now: Instant,
) -> (DecisionTime, Sample) {
    let sample = tracker.walk();
    let (cpu, wait) = sample.since(&base.sample);
    let wait = wait + RefereeWait::since(base.referee) + base.late;
    let wall = now.saturating_duration_since(start);
    let time = DecisionTime::accounted(wall, now.saturating_duration_since(base.at), cpu, wait);
    (time, sample)
}

/// The own time of `time` had its threads also waited `unseen` more.
fn own_with(time: &DecisionTime, base: &Base, now: Instant, unseen: Duration) -> Duration {
    let (cpu, wait) = (time.cpu.unwrap_or_default(), time.wait.unwrap_or_default());
    let window = now.saturating_duration_since(base.at);
    DecisionTime::accounted(time.wall, window, cpu, wait + unseen).own
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// Events are queued and go out with the next request, in order; a long queue goes out by
    /// itself before it could fill the pipe.
    #[test]
    fn queued_lines_go_out_with_the_next_send_in_order() {
        runtime().block_on(async {
            let cmd = BotCommand::parse("cat").unwrap();
            let mut p = BotProcess::spawn(&cmd, 1 << 20, 1024).unwrap();
            let limit = Duration::from_secs(5);
            p.send_later(&serde_json::json!({"n": 1}), limit)
                .await
                .unwrap();
            p.send_later(&serde_json::json!({"n": 2}), limit)
                .await
                .unwrap();
            // Nothing was written yet: `cat` has nothing to echo.
            assert!(matches!(
                p.recv(Duration::from_millis(300)).await,
                Err(IoFault::Timeout)
            ));
            p.send(&serde_json::json!({"n": 3}), limit).await.unwrap();
            for n in 1..=3 {
                let (line, _) = p.recv(limit).await.unwrap();
                assert_eq!(&line[..], format!("{{\"n\":{n}}}").as_bytes());
            }
            // Enough queued lines are written without a send.
            let big = "x".repeat(1000);
            let mut queued = 0;
            while queued < OUTBOX_FLUSH {
                p.send_later(&big, limit).await.unwrap();
                queued += big.len() + 3;
            }
            let (line, _) = p.recv(limit).await.unwrap();
            assert_eq!(&line[..], format!("\"{big}\"").as_bytes());
            p.kill().await;
        });
    }

    /// The decision clock stays off the fast path: an answer within the first sample reads no
    /// accounting at all (not even a baseline); one past it is accounted.
    #[test]
    fn a_quick_answer_reads_no_accounting_and_a_slow_one_does() {
        runtime().block_on(async {
            let cmd =
                BotCommand::parse("sh -c 'read a; echo quick; read b; sleep 0.05; echo slow'")
                    .unwrap();
            let mut p = BotProcess::spawn(&cmd, 1 << 20, 1024).unwrap();
            let limit = Duration::from_secs(5);
            p.send_raw(b"1\n", limit).await.unwrap();
            let (line, time) = p.answer(limit).await.unwrap();
            assert_eq!(&line[..], b"quick");
            // `sh` answers a line within 5 ms unless the machine is very busy: then it is
            // accounted like any slow answer, and only the check below can be made.
            if time.wall < clock::FIRST_SAMPLE {
                assert_eq!((time.cpu, time.wait), (None, None));
                let tracker = p.tracker.as_ref().expect("a tracker for a bot");
                assert!(!tracker.has_read(), "a quick answer read the bot's threads");
            }
            p.send_raw(b"2\n", limit).await.unwrap();
            let (line, time) = p.answer(limit).await.unwrap();
            assert_eq!(&line[..], b"slow");
            assert!(time.wall >= Duration::from_millis(50), "{time:?}");
            assert!(time.cpu.is_some() && time.wait.is_some(), "{time:?}");
            assert!(p.tracker.as_ref().unwrap().has_read());
            p.kill().await;
        });
    }

    /// The transport's fast path: a decision never looks into the stderr pipe of a bot quiet on
    /// it (the drain task's readiness says nothing came) and asks for the supervisor's status
    /// never while its pidfd is quiet; what the bot writes on stderr before each answer still
    /// goes with that request, and a killed supervisor is still seen.
    #[test]
    fn a_decision_never_polls_a_quiet_stderr_nor_asks_a_live_supervisor_for_its_status() {
        runtime().block_on(async {
            let limit = Duration::from_secs(5);
            // A bot silent on stderr: no settle looks into its pipe.
            let mut p =
                BotProcess::spawn(&BotCommand::parse("cat").unwrap(), 1 << 20, 1024).unwrap();
            let (polls, checks) = (p.stderr.polls, p.status_checks);
            for id in 1..=20u64 {
                p.mark_stderr(StderrAt::Request(id)).await;
                p.send_raw(format!("{id}\n").as_bytes(), limit)
                    .await
                    .unwrap();
                let (line, _) = p.answer(limit).await.unwrap();
                assert_eq!(&line[..], id.to_string().as_bytes());
            }
            assert_eq!(p.stderr.polls - polls, 0, "no look into a quiet stderr");
            assert_eq!(
                p.status_checks - checks,
                0,
                "no wait4 while the supervisor lives"
            );
            p.kill().await;
            // A bot that writes on stderr before each answer.
            let cmd =
                BotCommand::parse("sh -c 'while read l; do echo \"e$l\" >&2; echo \"$l\"; done'")
                    .unwrap();
            let mut p = BotProcess::spawn(&cmd, 1 << 20, 1 << 16).unwrap();
            for id in 1..=20u64 {
                p.mark_stderr(StderrAt::Request(id)).await;
                p.send_raw(format!("{id}\n").as_bytes(), limit)
                    .await
                    .unwrap();
                let (line, _) = p.answer(limit).await.unwrap();
                assert_eq!(&line[..], id.to_string().as_bytes());
            }
            p.mark_stderr(StderrAt::End).await;
            p.send_raw(b"end\n", limit).await.unwrap();
            p.recv(limit).await.unwrap();
            // Each request's stderr is its own (a mark settles what came before it).
            let chunks = p.take_stderr().await;
            let mut by_at: Vec<(StderrAt, String)> = Vec::new();
            for c in chunks {
                match by_at.last_mut() {
                    Some((at, text)) if *at == c.at => text.push_str(&c.text_lossy()),
                    _ => by_at.push((c.at, c.text_lossy())),
                }
            }
            let mut want: Vec<(StderrAt, String)> = (1..=20u64)
                .map(|id| (StderrAt::Request(id), format!("e{id}\n")))
                .collect();
            want.push((StderrAt::End, "eend\n".into()));
            assert_eq!(by_at, want);
            // The supervisor killed (not by the referee): the bot dies with it, and the first
            // answer after the runtime saw the supervisor's pidfd says who killed it (answers
            // may still come while the supervisor is dying, as with a status asked for at once;
            // a loaded machine can take milliseconds to let it die).
            let sup = rustix::process::Pid::from_raw(p.pgid.unwrap()).unwrap();
            rustix::process::kill_process(sup, rustix::process::Signal::KILL).unwrap();
            let mut answered = 0;
            let fault = loop {
                let r = match p.send_raw(b"x\n", limit).await {
                    Ok(()) => p.answer(limit).await.map(|_| ()),
                    Err(f) => Err(f),
                };
                match r {
                    Ok(()) if answered < 100 => answered += 1,
                    r => break r,
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            };
            match fault {
                Err(IoFault::Crash(d)) => assert!(d.contains("killed its supervisor"), "{d}"),
                r => panic!("{r:?} after {answered} answers"),
            }
            p.kill().await;
        });
    }

    /// A bot that has closed its input: queueing reports it as soon as a write fails, and every
    /// later queued line at once, like a send.
    #[test]
    fn queueing_for_a_bot_that_closed_its_input_is_a_fault() {
        runtime().block_on(async {
            let cmd = BotCommand::parse("sh -c 'exec 0<&-; echo closed; sleep 5'").unwrap();
            let mut p = BotProcess::spawn(&cmd, 1 << 20, 1024).unwrap();
            let limit = Duration::from_secs(10);
            // Wait until the bot closed its input. The supervisor may still hold the pipe for
            // a moment after that (it closes its copies after the fork), so the first writes
            // can still succeed; a write fails once nobody can read.
            let (line, _) = p.recv(limit).await.unwrap();
            assert_eq!(&line[..], b"closed");
            let line = "y".repeat(OUTBOX_FLUSH);
            let mut r = Ok(());
            for _ in 0..200 {
                r = p.send_later(&line, limit).await;
                if r.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert!(matches!(r, Err(IoFault::Closed)), "{r:?}");
            let r = p.send_later(&1, limit).await;
            assert!(matches!(r, Err(IoFault::Closed)), "{r:?}");
            p.kill().await;
        });
    }
}
