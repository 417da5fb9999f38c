//! The end of a bot: killed with everything it started, its supervisor reaped, and what to say
//! when someone else killed the supervisor.

use super::BotProcess;
use crate::isolation;
use std::process::ExitStatus;
use std::time::Duration;

impl BotProcess {
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
    pub(super) async fn supervisor_seen_killed(&mut self) -> bool {
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
    pub(super) fn signal_bot(&self) {
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
    pub(super) fn after_supervisor_killed(&self) {
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

    pub(super) fn kill_supervisor(&mut self) {
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
