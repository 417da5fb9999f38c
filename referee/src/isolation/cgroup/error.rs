//! Why per-bot cgroups cannot be used here: what [`super::support`] answers instead of a
//! [`super::Support`], each reason with the file or the controller it is about.

use super::Version;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Why per-bot cgroups cannot be used here ([`super::support`]). Clone: found once per process,
/// read by every bot's start.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SupportError {
    #[error("DURAK_NO_CGROUP is set")]
    Disabled,
    #[error("cannot read {file}: {source}")]
    Unreadable {
        file: &'static str,
        source: Arc<io::Error>,
    },
    /// No version could be used: why not, for each one tried (v2 first).
    #[error("{}", tried(.0))]
    Unusable(Vec<(Version, BaseError)>),
}

/// "cgroup v2: ...; cgroup v1: ...".
fn tried(why: &[(Version, BaseError)]) -> String {
    why.iter()
        .map(|(v, e)| format!("cgroup {v}: {e}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why one hierarchy gives the referee no directory for its bots' cgroups.
#[derive(Clone, Debug, thiserror::Error)]
pub enum BaseError {
    #[error("no {controller} hierarchy is mounted")]
    NoHierarchy { controller: String },
    #[error("/proc/self/cgroup names no {controller} cgroup")]
    NotListed { controller: String },
    #[error("/proc/self/cgroup has no v2 line")]
    NoV2Line,
    #[error("{}: {source}", file.display())]
    Read {
        file: PathBuf,
        source: Arc<io::Error>,
    },
    #[error(
        "the {controller} controller is not available in {} (cgroup.controllers: {controllers:?})",
        dir.display()
    )]
    Unavailable {
        controller: &'static str,
        dir: PathBuf,
        /// The controllers there are, as `cgroup.controllers` lists them.
        controllers: String,
    },
    #[error("cannot make {}: {source}", dir.display())]
    Make {
        dir: PathBuf,
        source: Arc<io::Error>,
    },
    #[error("cannot enable {enable:?} in {}: {source}", file.display())]
    Enable {
        enable: String,
        file: PathBuf,
        source: Arc<io::Error>,
    },
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Version::V1 => "v1",
            Version::V2 => "v2",
        })
    }
}
