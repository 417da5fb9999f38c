//! What the referee wrote to a bot's stdin: bytes since the process started, lines in this game,
//! the last line, and (with the pipe's unread bytes, [`crate::idle::unread_bytes`]) how far the
//! bot has read. The driver tells from it whether a bot that died between two games had read
//! anything of the new game, and the stderr drain files what a bot writes after the last line it
//! had been sent ([`crate::stderr::StderrLog`]).

/// Bytes of the last line kept (enough to tell a request from an event and which).
const LAST_LINE_MAX: usize = 160;

/// What was written to one bot process's stdin.
#[derive(Debug, Default)]
pub(crate) struct Sent {
    /// Bytes written since the process started.
    pub bytes: u64,
    /// Lines written in the current game (since [`Sent::new_game`]).
    pub game_lines: u64,
    /// The last whole line written, its first [`LAST_LINE_MAX`] bytes, without the newline.
    pub last_line: Vec<u8>,
    /// Whether `last_line` was cut.
    pub last_cut: bool,
    /// Bytes the bot had not read when the referee let go of its stdin (it had ended).
    pub unread_at_close: Option<u64>,
    /// Where each line of the current game ends (`bytes` just after its newline).
    line_ends: Vec<u64>,
}

impl Sent {
    /// `bytes` went through the pipe.
    pub fn wrote(&mut self, bytes: &[u8]) {
        let before = self.bytes;
        self.bytes += bytes.len() as u64;
        for (i, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            self.line_ends.push(before + i as u64 + 1);
            self.game_lines += 1;
        }
        let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        let start = bytes[..end]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        let line = &bytes[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        self.last_cut = line.len() > LAST_LINE_MAX;
        self.last_line.clear();
        self.last_line
            .extend_from_slice(&line[..line.len().min(LAST_LINE_MAX)]);
    }

    /// The last line written, cut with `...` when long; `None` before any.
    pub fn last_line(&self) -> Option<String> {
        if self.last_line.is_empty() {
            return None;
        }
        let s = String::from_utf8_lossy(&self.last_line).into_owned();
        Some(if self.last_cut { format!("{s}...") } else { s })
    }

    /// A new game starts: its lines are counted from 0.
    pub fn new_game(&mut self) {
        self.game_lines = 0;
        self.line_ends.clear();
    }

    /// Lines of the current game the bot had taken in whole when it had read `read` bytes.
    pub fn lines_read(&self, read: u64) -> u64 {
        self.line_ends.partition_point(|&end| end <= read) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_bytes_and_lines_and_keeps_the_last_whole_line() {
        let mut s = Sent::default();
        assert_eq!(s.last_line(), None);
        s.wrote(b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!((s.bytes, s.game_lines), (16, 2));
        assert_eq!(s.last_line().as_deref(), Some("{\"b\":2}"));
        // A write cut short: the last whole line is the one before the cut.
        s.wrote(b"{\"c\":3}\n{\"d\"");
        assert_eq!((s.bytes, s.game_lines), (28, 3));
        assert_eq!(s.last_line().as_deref(), Some("{\"c\":3}"));
        assert_eq!(
            (s.lines_read(15), s.lines_read(16), s.lines_read(28)),
            (1, 2, 3)
        );
        s.new_game();
        assert_eq!(s.lines_read(28), 0);
        let long = format!("{{\"x\":\"{}\"}}\n", "y".repeat(500));
        s.wrote(long.as_bytes());
        assert_eq!(s.game_lines, 1);
        let last = s.last_line().unwrap();
        assert!(
            last.starts_with("{\"x\":\"yyy") && last.ends_with("..."),
            "{last}"
        );
        assert_eq!(last.len(), LAST_LINE_MAX + 3);
    }
}
