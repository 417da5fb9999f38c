//! The domain layer under the HTTP: the states of versions, jobs, comparisons, fixed
//! tournaments and seasons as types (`state.rs`), and every change of those states with its SQL
//! (`versions.rs`, `jobs.rs`, `comparisons.rs`, `tournaments.rs`, `seasons.rs`). Nothing else in
//! the service writes a state or spells one in SQL: it calls these functions, and binds a state
//! as a parameter where it reads by state.

pub mod comparisons;
pub mod jobs;
pub mod seasons;
pub mod state;
pub mod tournaments;
pub mod versions;

pub use state::{ComparisonState, EndedBy, JobState, TournamentState, UnknownState, VersionState};

/// Why a change of state did not happen.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    /// A version is taken out as `disqualified`, `removed` or `suspended`, never as this.
    #[error("a version is not taken out as {0}: only as disqualified, removed or suspended")]
    NotAWayOut(VersionState),
}
