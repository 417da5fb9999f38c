//! The crate's one error type: what could not be written, naming the file.

use std::io;
use std::path::PathBuf;

/// Why the report could not be written. Every kind is the disk's (a folder that cannot be
/// created, a file that cannot be written or copied: read-only, full, no permission), never the
/// tournament's: once the disk is fixed, the same command writes the report (the `durak`
/// binary's exit status 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A folder of the report (or the report's own) could not be created.
    #[error("cannot create {}: {source}", path.display())]
    CreateDir { path: PathBuf, source: io::Error },
    /// A page or a data file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    /// The shared files (styles, scripts) could not be written into the report's folder.
    #[error("cannot write into {}: {source}", dir.display())]
    Assets { dir: PathBuf, source: io::Error },
    /// A file of the tournament the pages link to could not be copied into `data/`.
    #[error("cannot copy {} to {}: {source}", from.display(), to.display())]
    Copy {
        from: PathBuf,
        to: PathBuf,
        source: io::Error,
    },
    /// `games.csv` could not be built.
    #[error("games.csv: {0}")]
    Csv(#[from] csv::Error),
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
