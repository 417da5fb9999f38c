//! A bot's stdout, read in lines: awaited through the runtime ([`LineReader::next`]), or read
//! straight from the pipe on a table's own thread ([`LineReader::read_now`], see
//! [`crate::direct`]). Both fill the same buffer and cut it the same way, so a line is the same
//! line whichever path read its bytes.

use bytes::{Bytes, BytesMut};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use tokio::io::AsyncRead;
use tokio::process::ChildStdout;

/// Bytes asked for per read of the pipe.
const READ_SIZE: usize = 8 * 1024;

/// Why no line could be read.
#[derive(Debug)]
pub enum LineError {
    /// More than the longest line allowed came without a newline.
    TooLong,
    /// Reading the pipe failed.
    Io(io::Error),
}

/// What the next line is: a line (without its newline), a mistake, or the end of stdout
/// (`None`). After a mistake only `None` comes: the bot is at fault and killed.
pub type NextLine = Option<Result<Bytes, LineError>>;

/// The line reader of one bot's stdout.
#[derive(Debug)]
pub struct LineReader {
    pipe: ChildStdout,
    buf: BytesMut,
    /// The longest line, in bytes before the newline.
    max: usize,
    /// Bytes at the start of `buf` already searched for a newline.
    searched: usize,
    /// The pipe said end of file: what is left in the buffer is the last (unfinished) line.
    eof: bool,
    /// Nothing more comes (the end was given, or a mistake): only `None` from now on.
    done: bool,
}

impl LineReader {
    /// Lines of at most `max` bytes before the newline (a longer one is a mistake).
    pub fn new(pipe: ChildStdout, max: usize) -> LineReader {
        LineReader {
            pipe,
            buf: BytesMut::with_capacity(READ_SIZE),
            max,
            searched: 0,
            eof: false,
            done: false,
        }
    }

    /// The pipe's descriptor (non-blocking: the runtime set it so).
    pub fn fd(&self) -> RawFd {
        self.pipe.as_raw_fd()
    }

    /// The next line from what was read already, without reading: `None` when no whole line
    /// is buffered (and stdout has not ended).
    pub fn buffered(&mut self) -> Option<NextLine> {
        if self.done {
            return Some(None);
        }
        // A newline at index `max` or before ends a line short enough.
        let upto = self.buf.len().min(self.max.saturating_add(1));
        if let Some(i) = memchr::memchr(b'\n', &self.buf[self.searched.min(upto)..upto]) {
            let end = self.searched.min(upto) + i;
            self.searched = 0;
            let mut line = self.buf.split_to(end + 1);
            line.truncate(end);
            return Some(Some(Ok(line.freeze())));
        }
        self.searched = upto;
        if self.buf.len() > self.max {
            self.done = true;
            return Some(Some(Err(LineError::TooLong)));
        }
        if self.eof {
            self.done = true;
            self.searched = 0;
            return Some((!self.buf.is_empty()).then(|| Ok(self.buf.split().freeze())));
        }
        None
    }

    /// Read what the pipe holds now, without waiting: `Ok(0)` at end of file, `WouldBlock`
    /// when it is empty.
    pub fn read_now(&mut self) -> io::Result<usize> {
        self.buf.reserve(READ_SIZE);
        let fd = self.fd();
        let spare = self.buf.spare_capacity_mut();
        // SAFETY: `read` writes at most `spare.len()` bytes into memory we own; exactly the
        // `n` bytes it reports are then marked initialized.
        let n = unsafe { libc::read(fd, spare.as_mut_ptr().cast(), spare.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = n as usize;
        // SAFETY: the kernel initialized `n` bytes past the length (see above).
        unsafe { self.buf.set_len(self.buf.len() + n) };
        if n == 0 {
            self.eof = true;
        }
        Ok(n)
    }

    /// The next line, awaited through the runtime (cancel-safe: what was read stays in the
    /// buffer).
    pub async fn next(&mut self) -> NextLine {
        loop {
            if let Some(next) = self.buffered() {
                return next;
            }
            self.buf.reserve(READ_SIZE);
            let (pipe, buf) = (&mut self.pipe, &mut self.buf);
            let read = std::future::poll_fn(|cx| {
                let mut spare = tokio::io::ReadBuf::uninit(buf.spare_capacity_mut());
                std::task::ready!(std::pin::Pin::new(&mut *pipe).poll_read(cx, &mut spare))?;
                let n = spare.filled().len();
                // SAFETY: `poll_read` initialized the `n` bytes it filled past the length.
                unsafe { buf.set_len(buf.len() + n) };
                std::task::Poll::Ready(Ok::<_, io::Error>(n))
            })
            .await;
            match read {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(LineError::Io(e)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

    fn reader(script: &str, max: usize) -> (tokio::process::Child, LineReader) {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        (child, LineReader::new(out, max))
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// Lines of up to `max` bytes before the newline pass, a longer one is a mistake and
    /// ends the stream, and a last line without its newline is still a line (as
    /// `FramedRead` with `AnyDelimiterCodec` gave them).
    #[test]
    fn lines_up_to_the_limit_pass_a_longer_one_ends_the_stream() {
        rt().block_on(async {
            let (_c, mut r) = reader("printf '1234\\n12345\\n123456\\nnext\\n'", 5);
            let mut got = Vec::new();
            while let Some(line) = r.next().await {
                got.push(line.map(|l| l.to_vec()).map_err(|e| format!("{e:?}")));
            }
            assert_eq!(
                got,
                vec![
                    Ok(b"1234".to_vec()),
                    Ok(b"12345".to_vec()),
                    Err("TooLong".to_string())
                ]
            );
            let (_c, mut r) = reader("printf 'a\\n\\nlast'", 5);
            assert_eq!(&r.next().await.unwrap().unwrap()[..], b"a");
            assert_eq!(&r.next().await.unwrap().unwrap()[..], b"");
            assert_eq!(&r.next().await.unwrap().unwrap()[..], b"last");
            assert!(r.next().await.is_none());
            assert!(r.next().await.is_none());
        });
    }

    /// Bytes read straight from the pipe and bytes read through the runtime make the same
    /// lines: a line begun on one path ends on the other.
    #[test]
    fn both_paths_fill_one_buffer() {
        rt().block_on(async {
            let (_c, mut r) = reader("printf 'hal'; sleep 0.1; printf 'f\\nwhole\\n'", 100);
            // Wait for the first bytes, read them directly: no whole line yet.
            let mut n = 0;
            while n == 0 {
                match r.read_now() {
                    Ok(k) => n = k,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        std::thread::sleep(std::time::Duration::from_millis(5))
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(r.buffered().is_none());
            assert_eq!(&r.next().await.unwrap().unwrap()[..], b"half");
            assert_eq!(&r.next().await.unwrap().unwrap()[..], b"whole");
        });
    }
}
