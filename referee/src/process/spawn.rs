//! Starting a bot: isolated as its command says (see [`crate::isolation`]), or the human seat in
//! the referee's terminal.

use super::{BotProcess, SpawnOptions, HUMAN_KEYS_FD, HUMAN_SCREEN_FD};
use crate::command::BotCommand;
use crate::isolation::{self, Context};
use crate::lines::LineReader;
use crate::sent::Sent;
use crate::stderr::StderrDrain;
use std::io;
use std::process::Stdio;
use std::time::Instant;
use tokio::process::Command;

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
        Ok(BotProcess {
            child,
            pgid,
            bot_pid,
            killed_supervisor: false,
            stdin,
            outbox: Vec::with_capacity(4096),
            sent: Sent::default(),
            // One more byte than the limit so that a line of exactly the limit (and a \r) passes.
            lines: LineReader::new(stdout, max_line + 1),
            direct: crate::direct::available(),
            alone: crate::direct::alone_on_one_cpu(),
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
            #[cfg(test)]
            direct_answers: 0,
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
            lines: LineReader::new(stdout, opts.max_line + 1),
            // A person's answers come slowly: through the runtime.
            direct: false,
            alone: false,
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
            #[cfg(test)]
            direct_answers: 0,
        })
    }
}
