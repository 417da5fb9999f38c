//! The crate's one error type: what went wrong, by kind, each message keeping the file, the
//! field and the fix it names (the text a person reads is unchanged by the kind), and the
//! commands such a fix gives.

use std::path::Path;

/// An error of a tournament: the configuration, the directory, its record, a resume, a run.
///
/// The kind decides what a caller does with it (the `durak` binary's exit status: 2 for bad
/// input, 1 for a disk or a run that failed); the message says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The configuration (a file, a key, a command-line option) is wrong.
    #[error("{0}")]
    Config(String),
    /// A directory that is not this tournament's (another tournament's, one in use, none).
    #[error("{0}")]
    Invalid(String),
    /// The file system refuses (read-only, full, no permission): nothing is wrong with the
    /// tournament, and once the disk is fixed it can go on.
    #[error("{0}")]
    Disk(String),
    /// The record is damaged: a results line, a pending game or a shard that cannot be read.
    #[error("{0}")]
    Record(String),
    /// A resume was asked to play differently from the recorded run.
    #[error("{0}")]
    Resume(String),
    /// The games could not be played (the referee's runtime failed to start).
    #[error("{0}")]
    Run(String),
}

impl Error {
    /// Bad input from the person running the command (exit status 2), as opposed to a disk
    /// or a run that failed (1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Error::Config(_) | Error::Invalid(_) | Error::Record(_) | Error::Resume(_)
        )
    }
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `Error::Config(format!(...))`.
macro_rules! config_error {
    ($($t:tt)*) => { $crate::error::Error::Config(format!($($t)*)) };
}
/// `Error::Record(format!(...))`.
macro_rules! record_error {
    ($($t:tt)*) => { $crate::error::Error::Record(format!($($t)*)) };
}
/// `Error::Disk(format!(...))`.
macro_rules! disk_error {
    ($($t:tt)*) => { $crate::error::Error::Disk(format!($($t)*)) };
}
/// `Error::Resume(format!(...))`.
macro_rules! resume_error {
    ($($t:tt)*) => { $crate::error::Error::Resume(format!($($t)*)) };
}
/// `Error::Invalid(format!(...))`.
macro_rules! invalid_error {
    ($($t:tt)*) => { $crate::error::Error::Invalid(format!($($t)*)) };
}
/// `Error::Run(format!(...))`.
macro_rules! run_error {
    ($($t:tt)*) => { $crate::error::Error::Run(format!($($t)*)) };
}

/// `path`, absolute, quoted for a shell when it needs to be.
pub fn quote_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    shell_words::quote(&abs.to_string_lossy()).into_owned()
}

/// The command that finishes the tournament in `path` exactly as it was configured (every
/// setting is in its `tournament.toml`), from any directory.
pub fn resume_command(path: &Path) -> String {
    format!("durak tournament --resume {}", quote_path(path))
}
