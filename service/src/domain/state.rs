//! The states of a version, a job, a comparison, a fixed tournament and how a season ended, as
//! types: stored as their names (`TEXT` columns, read
//! and written through rusqlite's `FromSql`/`ToSql`), shown and sent in JSON as the same names.
//! A name the database holds that is no state fails the read, naming it.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An unknown state's name.
#[derive(Debug, thiserror::Error)]
#[error("{name:?} is no {what} state (one of: {known})")]
pub struct UnknownState {
    pub name: String,
    pub what: &'static str,
    pub known: String,
}

macro_rules! state_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal, { $($(#[$vdoc:meta])* $v:ident = $s:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(rename_all = "lowercase")]
        pub enum $name {
            $($(#[$vdoc])* $v,)*
        }

        impl $name {
            /// Every state, in the order of its life.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];

            /// Its name, as stored and shown.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$v => $s,)*
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownState;
            fn from_str(s: &str) -> Result<Self, UnknownState> {
                match s {
                    $($s => Ok($name::$v),)*
                    _ => Err(UnknownState {
                        name: s.to_string(),
                        what: $what,
                        known: $name::ALL
                            .iter()
                            .map(|x| x.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    }),
                }
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
                v.as_str()?.parse().map_err(|e| FromSqlError::Other(Box::new(e)))
            }
        }
    };
}

state_enum!(
    /// Where a version is in its life: submitted (`queued`), through its build and check, to
    /// the ladder (`active`) and out of it.
    VersionState, "version", {
        /// On disk, waiting for its check.
        Queued = "queued",
        /// Its `build` command runs.
        Building = "building",
        /// check-bot runs.
        Checking = "checking",
        /// Passed, waiting for its comparison with the bot's previous version
        /// (`[compare] require_not_worse`).
        Comparing = "comparing",
        /// In the ladder.
        Active = "active",
        /// Its build, check or comparison failed.
        Failed = "failed",
        /// A newer version of its bot replaced it.
        Retired = "retired",
        /// Out of play for faults, an unusable folder or its author's suspension.
        Suspended = "suspended",
        /// Taken out by the organiser: it broke the rules.
        Disqualified = "disqualified",
        /// Taken out by the organiser, withdrawn by its author, or a house bot dropped from the
        /// configuration.
        Removed = "removed",
    }
);

state_enum!(
    /// Where a job is: waiting, held under a lease, or over.
    JobState, "job", {
        /// Waiting for anyone to claim it.
        Queued = "queued",
        /// Held by `owner` until `lease_until`.
        Claimed = "claimed",
        /// Every game recorded.
        Done = "done",
        /// Stopped before its end (a version left, the organiser, failures).
        Cancelled = "cancelled",
    }
);

state_enum!(
    /// Where a comparison of a new version with its bot's previous one is (`ladder/compare/`).
    ComparisonState, "comparison", {
        /// Its games are being played (the test has not stopped).
        Running = "running",
        /// The test stopped: its verdict and figures are written down.
        Done = "done",
    }
);

state_enum!(
    /// Where a fixed tournament is (`tournament.rs`): `queued` → `running` → `done` |
    /// `failed` | `cancelled` (and `queued` → `cancelled`).
    TournamentState, "tournament", {
        /// Waiting behind the one being played.
        Queued = "queued",
        /// Being played (or left running by a stop, resumed at the next start).
        Running = "running",
        /// Every game played, the standings and report written.
        Done = "done",
        /// It could not be made or played (its `error` says why).
        Failed = "failed",
        /// The organiser cancelled it (its games so far kept).
        Cancelled = "cancelled",
    }
);

state_enum!(
    /// Who ended a season (`season.rs`).
    EndedBy, "season end", {
        /// The organiser: `POST /api/seasons/end`, the button, or `durak season end`.
        Organiser = "organiser",
        /// `[season] ends` passed.
        Deadline = "deadline",
    }
);

impl TournamentState {
    /// Queued or running: not over.
    pub fn is_open(self) -> bool {
        matches!(self, TournamentState::Queued | TournamentState::Running)
    }
}

impl VersionState {
    /// Waiting for or in its check: its page refreshes, `durak submit` keeps following it.
    pub fn in_check(self) -> bool {
        matches!(
            self,
            VersionState::Queued | VersionState::Building | VersionState::Checking
        )
    }

    /// Out of play for good (the organiser's pages offer no action on it).
    pub fn is_out(self) -> bool {
        matches!(
            self,
            VersionState::Failed
                | VersionState::Retired
                | VersionState::Disqualified
                | VersionState::Removed
        )
    }
}

impl JobState {
    /// Queued or claimed: its games are still to be played.
    pub fn is_open(self) -> bool {
        matches!(self, JobState::Queued | JobState::Claimed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_go_both_ways_and_an_unknown_one_is_named() {
        for s in VersionState::ALL {
            assert_eq!(s.as_str().parse::<VersionState>().unwrap(), *s);
            assert_eq!(
                serde_json::to_string(s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
        for s in JobState::ALL {
            assert_eq!(s.as_str().parse::<JobState>().unwrap(), *s);
        }
        for s in ComparisonState::ALL {
            assert_eq!(s.as_str().parse::<ComparisonState>().unwrap(), *s);
        }
        for s in TournamentState::ALL {
            assert_eq!(s.as_str().parse::<TournamentState>().unwrap(), *s);
            assert_eq!(
                s.is_open(),
                matches!(s.as_str(), "queued" | "running"),
                "{s}"
            );
        }
        for s in EndedBy::ALL {
            assert_eq!(s.as_str().parse::<EndedBy>().unwrap(), *s);
        }
        let e = "paused".parse::<VersionState>().unwrap_err().to_string();
        assert!(
            e.contains("\"paused\" is no version state") && e.contains("removed"),
            "{e}"
        );
    }

    #[test]
    fn the_database_reads_and_writes_them_and_refuses_an_unknown_name() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        let s: VersionState = c
            .query_row("SELECT ?1", [VersionState::Comparing], |r| r.get(0))
            .unwrap();
        assert_eq!(s, VersionState::Comparing);
        let bad = c.query_row("SELECT 'claimd'", [], |r| r.get::<_, JobState>(0));
        assert!(bad
            .unwrap_err()
            .to_string()
            .contains("\"claimd\" is no job state"));
    }
}
