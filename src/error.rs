//! The error of every `durak` subcommand: its kind decides the exit status, its message (the
//! file, the field and the fix) is printed after `error: `.

use std::process::ExitCode;

/// Why a subcommand stopped. The kind decides the exit status (docs/COMMANDS.md, "Exit
/// statuses"): 2 for bad input from the person running it, 1 for a disk or a run that failed
/// with nothing wrong in the input; the message says what to do either way.
#[derive(Debug, thiserror::Error)]
pub enum CmdError {
    /// Bad input: an option, a file, a key, a bot that does not exist (exit status 2).
    #[error("{0}")]
    Input(String),
    /// The disk refused or the run could not go on (exit status 1): once that is fixed, the same
    /// command works.
    #[error("{0}")]
    Failed(String),
}

impl CmdError {
    /// The process's exit status for this error.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CmdError::Input(_) => ExitCode::from(2),
            CmdError::Failed(_) => ExitCode::from(1),
        }
    }
}

/// A message from a crate that still reports bad input as text (exit status 2, as before).
impl From<String> for CmdError {
    fn from(e: String) -> CmdError {
        CmdError::Input(e)
    }
}

impl From<&str> for CmdError {
    fn from(e: &str) -> CmdError {
        CmdError::Input(e.to_string())
    }
}

/// A tournament's error keeps its kind: bad input (2) or a disk or run that failed (1).
impl From<durak_tournaments::Error> for CmdError {
    fn from(e: durak_tournaments::Error) -> CmdError {
        if e.is_bad_input() {
            CmdError::Input(e.to_string())
        } else {
            CmdError::Failed(e.to_string())
        }
    }
}

/// The report's pages could not be written: the disk's error (1), not the tournament's.
impl From<durak_report::Error> for CmdError {
    fn from(e: durak_report::Error) -> CmdError {
        CmdError::Failed(e.to_string())
    }
}

impl From<durak_rules::UnknownVariant> for CmdError {
    fn from(e: durak_rules::UnknownVariant) -> CmdError {
        CmdError::Input(e.to_string())
    }
}

/// The human seat's errors exit 2, as every error of `durak human` did.
impl From<crate::human::HumanError> for CmdError {
    fn from(e: crate::human::HumanError) -> CmdError {
        CmdError::Input(e.to_string())
    }
}

/// The referee's refusals of a bot command, a limit or a strict sandbox, and the check-bot
/// crate's refusals of a manifest, a fork or a re-run, are bad input (exit status 2, as their text was before they were typed); each says
/// the fix.
macro_rules! referee_errors_are_input {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for CmdError {
            fn from(e: $t) -> CmdError {
                CmdError::Input(e.to_string())
            }
        }
    )*};
}

referee_errors_are_input!(
    durak_referee::CommandError,
    durak_referee::isolation::LimitError,
    durak_referee::isolation::StrictSandboxError,
    durak_checkbot::manifest::ManifestError,
    durak_checkbot::fork::ForkError,
    durak_checkbot::rerun::RerunError,
);

/// The service's errors reach the `durak serve`, `submit`, `worker`, `backup` and
/// `organiser-token` commands as text exited 2, as they did before they were typed (each keeps
/// its message: the file, the field and the fix). Configuration errors are bad input; a
/// service that failed at run time is too, for now (docs/COMMANDS.md, "Exit statuses").
macro_rules! service_errors_are_input {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for CmdError {
            fn from(e: $t) -> CmdError {
                CmdError::Input(e.to_string())
            }
        }
    )*};
}

service_errors_are_input!(
    durak_service::config::ConfigError,
    durak_service::ServeError,
    durak_service::client::ClientError,
    durak_service::db::DbError,
    durak_service::db::OpenError,
    durak_service::backup::BackupError,
    durak_service::worker::WorkerError,
    durak_service::season::OfflineError,
);

/// What a subcommand returns: its exit status, or why it stopped.
pub type CmdResult<T = ExitCode> = Result<T, CmdError>;

/// `CmdError::Input(format!(...))`: bad input, exit status 2.
macro_rules! bad_input {
    ($($t:tt)*) => { $crate::error::CmdError::Input(format!($($t)*)) };
}
pub(crate) use bad_input;

/// `CmdError::Failed(format!(...))`: a disk or a run that failed, exit status 1.
macro_rules! failed {
    ($($t:tt)*) => { $crate::error::CmdError::Failed(format!($($t)*)) };
}
pub(crate) use failed;
