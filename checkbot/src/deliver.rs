//! Sending the bot what needs no answer (`game_start`, events, `game_end`) as the referee does,
//! queued and written with the next request, except the first message of each kind a process is
//! sent: that one is written at once, and the bot is given a moment to read it and go quiet
//! (`BotProcess::settle_input`). A bot that dies then died reading it, and the report names the
//! message ("the bot exited while reading events, right after the first "game_over" event it was
//! sent") with the end of its stderr: the usual beginner's crash, a `KeyError` on an event kind
//! it did not expect, is named for what it is, in the game it happened in.

use crate::report::{fix_for, Problem};
use durak_protocol::{FaultKind, Limits, MessageKinds};
use durak_referee::{BotProcess, IoFault};
use std::time::Duration;

/// The kinds in `kinds` in words, for the report: `game_start, game_end and 14 kinds of event
/// (all but "exchanged" and "exited")`.
pub fn describe(kinds: MessageKinds) -> String {
    let events = kinds.events().count();
    let missing: Vec<String> = kinds.missing_events().map(|e| format!("{e:?}")).collect();
    let mut parts: Vec<String> = [MessageKinds::GAME_START, MessageKinds::GAME_END]
        .into_iter()
        .filter(|k| kinds.contains(*k))
        .map(MessageKinds::name)
        .collect();
    parts.push(match missing.len() {
        0 => "every kind of event".to_string(),
        _ if events == 0 => "no event".to_string(),
        _ if missing.len() <= 4 => format!(
            "{events} kinds of event (all but {})",
            missing.join(" and ")
        ),
        _ => format!("{events} kinds of event"),
    });
    parts.join(", ")
}

/// What happened to the bot while it read a message of kind `kind` (the first of that kind it
/// was sent). `line` is the message, `what` the referee's activity ("events", "game_end").
fn died_reading(
    f: &IoFault,
    kind: MessageKinds,
    line: &str,
    proc: &BotProcess,
    limits: &Limits,
) -> Problem {
    let mut p = io_problem(f, "sent it a message", limits, 0);
    let how = match f {
        IoFault::Crash(how) | IoFault::Memory(how) => Some(how),
        _ => None,
    };
    if let Some(how) = how {
        let what = if kind == MessageKinds::GAME_START || kind == MessageKinds::GAME_END {
            kind.name()
        } else {
            "events".into()
        };
        p.message = format!(
            "the bot {how} while reading {what}, right after the first {} it was sent: {}",
            kind.name(),
            crate::report::truncate(line, 300)
        );
        if matches!(f, IoFault::Crash(_)) {
            p.fix = "read every kind of message and ignore what you do not use: events come in \
                     16 kinds (docs/PROTOCOL.md, \"event\"), a bot may ignore them all, and \
                     messages may gain fields in later minor versions. Look up a kind or a \
                     field only after checking it is there (Python: msg.get(...), a dict of \
                     handlers with a default). The bot's stderr (below) says where it failed."
                .into();
        }
    } else {
        p.fix = fix_for(p.fault, None, None, "");
    }
    p.stderr = stderr_tail(proc);
    p
}

/// Send `msg` (of kind `kind`) to the bot. Known kinds are queued (written with the next request,
/// as the referee does), but for `game_end` (written at once, as the referee does); the first of
/// a kind is written now, and the bot given up to
/// `settle` to read it. `read` holds the kinds this process has read. A bot that exits with
/// status 0 right after its first `game_end` is left for the caller to find (it quit after
/// game_end: a mistake of its own, checked as such).
pub async fn deliver(
    proc: &mut BotProcess,
    read: &mut MessageKinds,
    msg: &impl serde::Serialize,
    kind: MessageKinds,
    limits: &Limits,
) -> Result<(), Problem> {
    let limit = Duration::from_millis(limits.move_ms.max(100));
    if read.contains(kind) {
        // game_end is written at once, as the referee does: then what the bot read of its
        // stdin tells whether it read anything of the next game (see `Session::run_group`).
        let sent = if kind == MessageKinds::GAME_END {
            proc.send(msg, limit).await
        } else {
            proc.send_later(msg, limit).await
        };
        return sent.map_err(|f| {
            let mut p = io_problem(&f, "sent it events", limits, 0);
            p.stderr = stderr_tail(proc);
            p
        });
    }
    let line = serde_json::to_string(msg).expect("json");
    if let Err(f) = proc.send(msg, limit).await {
        return Err(died_reading(&f, kind, &line, proc, limits));
    }
    let settle = Duration::from_millis(limits.move_ms.clamp(100, 2000));
    match proc.settle_input(settle).await {
        Ok(_) => {
            read.insert(kind);
            Ok(())
        }
        Err(_)
            if kind == MessageKinds::GAME_END
                && proc.try_exit().and_then(|s| s.code()) == Some(0) =>
        {
            Ok(())
        }
        Err(f) => {
            let mut p = died_reading(&f, kind, &line, proc, limits);
            if f == IoFault::Closed {
                p.fault = FaultKind::Closed.into();
            }
            Err(p)
        }
    }
}

/// The last lines of a bot's stderr, if it wrote anything.
pub fn stderr_tail(p: &BotProcess) -> Option<String> {
    let (text, _) = p.stderr_text();
    let text = text.trim_end();
    if text.is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(12)..].join("\n");
    Some(crate::report::truncate(&tail, 1500))
}

/// A problem from a failed read or write. `doing` is what the referee was doing: "waited for
/// its answer", "sent it events", ...
pub fn io_problem(f: &IoFault, doing: &str, limits: &Limits, bank_ms: u64) -> Problem {
    let (kind, message) = match f {
        IoFault::Timeout if doing.starts_with("waited for") => (
            FaultKind::Timeout,
            format!(
                "no reply within {} ms + {bank_ms} ms of bank (the referee {doing})",
                limits.move_ms
            ),
        ),
        IoFault::Timeout => (
            FaultKind::Timeout,
            format!("the bot stopped reading its input (the referee {doing})"),
        ),
        IoFault::Crash(how) => (
            FaultKind::Crash,
            format!("the bot {how} while the referee {doing}"),
        ),
        IoFault::Memory(how) => (
            FaultKind::Memory,
            format!("the bot {how} while the referee {doing}"),
        ),
        IoFault::Closed => (
            FaultKind::Closed,
            format!("the bot closed its stdout while the referee {doing}"),
        ),
        // Not the bot's fault: say so (a tournament would void the game and play it again).
        IoFault::Starved { wall, own } => (
            FaultKind::Timeout,
            format!(
                "the machine kept the bot waiting for a CPU: no reply after {} ms, of which \
                 only {} ms were its own (the referee {doing}); run the check on a less \
                 loaded machine",
                wall.as_millis(),
                own.as_millis()
            ),
        ),
        // Only the human seat quits, and check-bot refuses it.
        IoFault::Quit => (
            FaultKind::Crash,
            format!("the person quit while the referee {doing}"),
        ),
        IoFault::LineTooLong => (
            FaultKind::LineTooLong,
            format!(
                "the bot sent a line longer than {} bytes while the referee {doing}",
                limits.max_line_bytes
            ),
        ),
    };
    Problem {
        fault: kind.into(),
        rule: None,
        pointer: None,
        message,
        fix: fix_for(kind.into(), None, None, ""),
        stderr: None,
    }
}
