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
    /// Bytes the bot had not read when the referee let go of its stdin (it had ended).
    pub unread_at_close: Option<u64>,
    /// Where each line of the current game ends (`bytes` just after its newline).
    line_ends: Vec<u64>,
    /// The last write, whole (the outbox it was written from, kept until the next), and where
    /// in the stream it starts.
    last_write: Vec<u8>,
    last_write_start: u64,
    /// The last write before it that held a whole line (kept as bytes: no text is made
    /// until someone asks, so a write allocates nothing once the buffers have grown).
    before: Vec<u8>,
}

/// The last whole line of `bytes` (ended by a newline), cut with `...` when long.
fn last_whole_line(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().rposition(|b| *b == b'\n')?;
    let start = bytes[..end]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line = &bytes[start..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let s = String::from_utf8_lossy(&line[..line.len().min(LAST_LINE_MAX)]).into_owned();
    Some(if line.len() > LAST_LINE_MAX {
        format!("{s}...")
    } else {
        s
    })
}

impl Sent {
    /// The first `done` bytes of `out` went through the pipe. `out` is kept (swapped with the
    /// previous write's buffer, which comes back empty).
    pub fn wrote(&mut self, out: &mut Vec<u8>, done: usize) {
        let before = self.bytes;
        self.bytes += done as u64;
        for i in memchr::memchr_iter(b'\n', &out[..done]) {
            self.line_ends.push(before + i as u64 + 1);
            self.game_lines += 1;
        }
        if done == 0 {
            out.clear();
            return;
        }
        if memchr::memchr(b'\n', &self.last_write).is_some() {
            std::mem::swap(&mut self.before, &mut self.last_write);
        }
        out.truncate(done);
        std::mem::swap(&mut self.last_write, out);
        self.last_write_start = before;
        out.clear();
    }

    /// The last whole line written, cut when long; `None` before any.
    pub fn last_line(&self) -> Option<String> {
        last_whole_line(&self.last_write).or_else(|| last_whole_line(&self.before))
    }

    /// The last whole line the bot had taken in when it had read `read` bytes (one of the last
    /// two writes'; else the last line written).
    pub fn last_line_read(&self, read: u64) -> Option<String> {
        let Some(upto) = read.checked_sub(self.last_write_start) else {
            return self.last_line();
        };
        let upto = (upto as usize).min(self.last_write.len());
        last_whole_line(&self.last_write[..upto]).or_else(|| last_whole_line(&self.before))
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
        let mut out = Vec::new();
        let mut write = |s: &mut Sent, bytes: &[u8], done: usize| {
            out.extend_from_slice(bytes);
            s.wrote(&mut out, done);
            assert!(out.is_empty());
        };
        assert_eq!(s.last_line(), None);
        write(&mut s, b"{\"a\":1}\n{\"b\":2}\n", 16);
        assert_eq!((s.bytes, s.game_lines), (16, 2));
        assert_eq!(s.last_line().as_deref(), Some("{\"b\":2}"));
        // A write cut short: the last whole line is the one before the cut.
        write(&mut s, b"{\"c\":3}\n{\"d\":4}\n", 12);
        assert_eq!((s.bytes, s.game_lines), (28, 3));
        assert_eq!(s.last_line().as_deref(), Some("{\"c\":3}"));
        assert_eq!(
            (s.lines_read(15), s.lines_read(16), s.lines_read(28)),
            (1, 2, 3)
        );
        // What the bot had read: within the last write, or up to the write before.
        assert_eq!(s.last_line_read(28).as_deref(), Some("{\"c\":3}"));
        assert_eq!(s.last_line_read(20).as_deref(), Some("{\"b\":2}"));
        assert_eq!(s.last_line_read(3).as_deref(), Some("{\"c\":3}"));
        s.new_game();
        assert_eq!(s.lines_read(28), 0);
        let long = format!("{{\"x\":\"{}\"}}\n", "y".repeat(500));
        write(&mut s, long.as_bytes(), long.len());
        assert_eq!(s.game_lines, 1);
        let last = s.last_line().unwrap();
        assert!(
            last.starts_with("{\"x\":\"yyy") && last.ends_with("..."),
            "{last}"
        );
        assert_eq!(last.len(), LAST_LINE_MAX + 3);
    }
}
