//! Why a game against a bot could not start or go on: the server's side (500), never the
//! person's request (those are `Refused`, with their status).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    /// A file or socket of the game (`path`) failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The game's thread cannot start.
    #[error("{0}")]
    Thread(std::io::Error),
    #[error("cannot find the durak executable: {0}")]
    NoExecutable(std::io::Error),
    #[error("no random seed: {0}")]
    NoSeed(String),
    /// A seat's command, or the game's variant, that the referee cannot take (`0`: why).
    #[error("{0}")]
    Seat(String),
    /// The bot's version cannot be seated.
    #[error(transparent)]
    Bot(#[from] crate::ladder::executor::SeatError),
    #[error("the new game's row is gone")]
    RowGone,
    #[error("its bot's version is no longer in the ladder")]
    NotInTheLadder,
    /// The moves kept in the game's row are not a JSON list.
    #[error("{0}")]
    MovesNotJson(#[from] serde_json::Error),
    /// Move `n` (from 1) kept in the game's row is not one of the protocol's answers.
    #[error("move {n}: {detail}")]
    BadMove { n: usize, detail: String },
}

/// Why a finished game's replay does not verify, in the words of `durak replay --verify`: on the
/// game's page, and kept in its row.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unverified {
    /// The replay cannot be read (the reader's words).
    #[error("{0}")]
    Unreadable(String),
    /// Dealt and played again, the game differs from its replay (the verdict).
    #[error("{0}")]
    Differs(String),
    /// As the game's row keeps it (a game read back after a restart).
    #[error("{0}")]
    Kept(String),
}

impl PlayError {
    /// A failure of `path`, for `map_err`.
    pub(super) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> PlayError {
        let path = path.to_path_buf();
        move |source| PlayError::Io { path, source }
    }
}
