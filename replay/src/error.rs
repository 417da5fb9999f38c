//! The one error type of this crate: bad input (a missing file, not a replay, a newer format, a
//! cut or invalid line) and failures to write a page. Every error names the file and, where there
//! is one, the line.

use std::fmt;
use std::path::Path;

/// What went wrong, for callers that react differently to each (the CLI maps all to status 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file cannot be read (it does not exist, no permission, ...).
    Io,
    /// The file is not a replay (empty, binary, or its first line is not a replay header).
    NotReplay,
    /// The replay's format version is newer than this build reads.
    NewerFormat,
    /// A line is not valid JSON, not a known replay line, or misses fields.
    InvalidLine,
    /// The file ends in the middle of a line (the last line is cut off).
    TruncatedLine,
    /// A page or the index cannot be written.
    Write,
}

/// An error reading a replay or writing its pages: `FILE:LINE: message`.
#[derive(Debug)]
pub struct ReplayError {
    pub kind: ErrorKind,
    /// The file, as given (or a label such as `<memory>`).
    pub file: String,
    /// The 1-based line the error is about, if any.
    pub line: Option<usize>,
    pub message: String,
}

impl ReplayError {
    pub(crate) fn new(
        kind: ErrorKind,
        file: &str,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> ReplayError {
        ReplayError {
            kind,
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }

    pub(crate) fn write(path: &Path, e: std::io::Error) -> ReplayError {
        ReplayError::new(
            ErrorKind::Write,
            &path.display().to_string(),
            None,
            format!("cannot write: {e}"),
        )
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ReplayError {}
