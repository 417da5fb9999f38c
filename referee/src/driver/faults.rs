//! How the driver words a fault: what a bot did wrong (an I/O fault, a refused answer), what it
//! had read when it died between two answers, why it could not start, and its stderr as replay
//! lines.

use crate::process::{BotProcess, IoFault};
use crate::stderr::StderrChunk;
use durak_protocol::{Fault, FaultKind};
use durak_rules::Seat;
use std::path::PathBuf;

/// The detail of the fault of a bot that killed its supervisor.
pub(super) const KILLED_ITS_SUPERVISOR: &str =
    "the bot killed its supervisor (the process that cleans up after it) and went on";

pub(super) fn io_fault(seat: Seat, f: IoFault, what: &str, limit_ms: u64, bank_ms: u64) -> Fault {
    let (kind, detail) = match f {
        IoFault::Timeout => (
            FaultKind::Timeout,
            format!("no {what} within {limit_ms} ms + {bank_ms} ms bank"),
        ),
        IoFault::Crash(how) => (FaultKind::Crash, format!("the bot {how} ({what})")),
        IoFault::Memory(how) => (FaultKind::Memory, format!("the bot {how} ({what})")),
        IoFault::Closed => (
            FaultKind::Closed,
            format!("the bot closed its stdout while alive ({what})"),
        ),
        IoFault::LineTooLong => (
            FaultKind::LineTooLong,
            format!("the bot sent a line longer than the limit ({what})"),
        ),
        // Voided by the driver before it comes here; elsewhere (a hello) a timeout.
        IoFault::Starved { wall, .. } => (
            FaultKind::Timeout,
            format!(
                "no {what} within {limit_ms} ms + {bank_ms} ms bank ({} ms of wall time)",
                wall.as_millis()
            ),
        ),
        IoFault::Quit => (
            FaultKind::Crash,
            "the person quit (q at the prompt): the seat forfeits the game".to_string(),
        ),
    };
    Fault {
        seat,
        kind,
        detail,
        rule: None,
    }
}

/// Short text of a raw line for logs.
pub(super) fn shown(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(&line[..line.len().min(4096)]).into_owned();
    if line.len() > 4096 {
        format!("{s}... ({} bytes)", line.len())
    } else {
        s
    }
}

/// A bot that ended before its hello: add the first line of its stderr (a missing class or
/// module says it all) and, when it ran in a private directory, that it did not run in the
/// caller's (`dir`), where a relative path that is not a file argument points nowhere.
pub(super) fn explain_start_failure(f: &mut Fault, proc: &BotProcess, dir: Option<PathBuf>) {
    let (text, _) = proc.stderr_text();
    if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
        let cut: String = first.chars().take(200).collect();
        f.detail.push_str(&format!("; its stderr began: {cut}"));
    }
    if let Some(dir) = dir {
        f.detail.push_str(&format!(
            "; it ran in a private directory ({}), not in yours: arguments that name your files \
             or folders (bot.py, -cp out) are made absolute, other relative paths point nowhere \
             (give them as absolute paths, or set the bot's working directory)",
            dir.display()
        ));
    }
}

/// What to add to the crash of a process that finished a game and exited before its first
/// answer in game `index`: it ended after game_end when it had read nothing past the previous
/// game's (`end_offset` bytes of its stdin); else it died reading this game's messages.
pub(super) fn died_between_answers(proc: &BotProcess, end_offset: u64, index: u32) -> String {
    let read = proc.bytes_read().unwrap_or(proc.bytes_written());
    if read <= end_offset {
        return ", before its first answer in this game: it ended after the previous game's \
                game_end. Keep reading stdin after game_end (the next game_start follows) and \
                exit after match_end"
            .into();
    }
    let last = proc.last_line_read().unwrap_or_default();
    // It took in a request last: it may have died on the request, not on an event.
    let asked = last.starts_with(r#"{"type":"request""#);
    format!(
        ", before its first answer in this game: it exited while reading events of game \
         {index}{}, after the last line it read: {last} (its stderr, in this game's replay, says \
         where it failed)",
        if asked {
            " (or deciding its request)"
        } else {
            ""
        }
    )
}

/// The replay's `stderr` lines of one seat in one game: one per point of the game it wrote at
/// (`at`: `"start"`, the request id, `"end"`; `sent`: the lines of the game it had been sent),
/// with the bytes dropped there beyond the game's cap.
pub(super) fn stderr_lines(
    seat: Seat,
    chunks: Vec<StderrChunk>,
) -> impl Iterator<Item = super::ReplayLine<'static>> {
    chunks.into_iter().map(move |c| super::ReplayLine::Stderr {
        seat,
        at: Some(c.at),
        sent: Some(c.sent),
        text: c.text_lossy(),
        dropped: c.dropped,
    })
}
