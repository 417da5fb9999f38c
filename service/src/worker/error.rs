//! Why `durak worker` stopped ([`WorkerError`]), or could not get a version's folder
//! ([`FetchError`], told to the server when the archive is at fault).

use std::path::PathBuf;

/// Why the worker stopped: a flag to fix, the server that cannot be reached, or a fatal error
/// of a slot (a token refused).
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(
        "--server {server:?}: not a URL ({detail})\n  fix: give the server's address, such as \
         http://judge.example.org:8080"
    )]
    NotAUrl { server: String, detail: String },
    #[error(
        "--server {server:?}: {scheme}:// is not supported: give an https:// (or, on this \
         machine or a private network, http://) address"
    )]
    Scheme { server: String, scheme: String },
    #[error("--server {server:?}: no scheme\n  fix: https://{server}")]
    NoScheme { server: String },
    #[error("--server {server:?}: no host in the URL")]
    NoHost { server: String },
    #[error("--concurrency 0: at least one job must be played at once")]
    NoSlots,
    /// Strict mode's sandbox cannot run here (`0`: the referee's words).
    #[error(
        "{0}\n  (or run with --sandbox default, which does not protect this machine against \
         hostile bots)"
    )]
    Sandbox(String),
    #[error("{}: cannot create the cache: {source}", path.display())]
    Cache {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Client(#[from] crate::client::ClientError),
    /// The server did not answer until `--retry-s` ran out (`0`: the last failure).
    #[error("{0}\n  fix: check that `durak serve` runs there and that --server is its address")]
    Unreachable(String),
    /// A slot stopped the worker (`0`: why, with its fix).
    #[error("{0}")]
    Fatal(String),
}

/// Why a version's folder could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("version {id} ({label}) comes without its SHA-256")]
    NoSha { id: i64, label: String },
    /// The server did not answer (`0`: the retrier's words).
    #[error("{0}")]
    GaveUp(String),
    #[error("fetching {label} ({url}): {status} {error}")]
    Refused {
        label: String,
        url: String,
        status: u16,
        error: String,
    },
    #[error(
        "the archive of {label} (version {id}) does not match its SHA-256: {got}, the server \
         said {sha}: not unpacked"
    )]
    Sha {
        label: String,
        id: i64,
        got: String,
        sha: String,
    },
    /// The cache (`path`) failed; `what`: what was being done, ending in ": ", or empty.
    #[error("{}: {what}{source}", path.display())]
    Cache {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("the archive of {label}: {source}")]
    Unpack {
        label: String,
        source: crate::archive::ArchiveError,
    },
}

impl FetchError {
    /// A failure of the cache at `path`, for `map_err`.
    pub(super) fn cache(
        path: &std::path::Path,
        what: &'static str,
    ) -> impl FnOnce(std::io::Error) -> FetchError {
        let path = path.to_path_buf();
        move |source| FetchError::Cache { path, what, source }
    }
}

/// Why a claimed job's games could not be played (or a played game's replay read back).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("the server's variant {variant:?}: {detail}")]
    Variant { variant: String, detail: String },
    #[error("the job's version {0} is not in the claim")]
    NotInTheClaim(i64),
    #[error("version {0}'s folder was not fetched")]
    NotFetched(i64),
    /// A version's command that the referee cannot run (`0`: why).
    #[error("{0}")]
    Command(String),
    /// The match failed.
    #[error("job {job}: {detail}")]
    Match { job: i64, detail: String },
    /// A played game's replay cannot be read back (`0`: base64, zstd or UTF-8's words).
    #[error("{0}")]
    Replay(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::{run, Options, Played};

    fn options(server: &str, concurrency: usize) -> Options {
        Options {
            server: server.into(),
            token: "dk_x".into(),
            sandbox: durak_referee::Sandbox::Default,
            concurrency,
            cache: std::env::temp_dir().join("durak-worker-test-unused"),
            retry_for: std::time::Duration::from_secs(1),
            verbose: false,
            trust: Default::default(),
        }
    }

    #[test]
    fn flags_are_refused_before_anything_is_asked_with_the_fix() {
        let e = run(options("judge.example.org", 1)).unwrap_err();
        assert!(matches!(e, WorkerError::NoScheme { .. }), "{e:?}");
        assert!(
            e.to_string().contains("fix: https://judge.example.org"),
            "{e}"
        );
        let e = run(options("ftp://judge.example.org", 1)).unwrap_err();
        assert!(e.to_string().contains("ftp:// is not supported"), "{e}");
        let e = run(options("http://127.0.0.1:9", 0)).unwrap_err();
        assert!(matches!(e, WorkerError::NoSlots), "{e:?}");
    }

    #[test]
    fn a_replay_that_is_not_base64_is_a_replay_error() {
        let p = Played {
            game: 0,
            result: crate::ladder::verify::PostedResult {
                loser: None,
                draw: true,
                moves: 0,
            },
            replay_zst: "not base64!".into(),
        };
        assert!(matches!(p.text(), Err(JobError::Replay(_))));
        let e = FetchError::Sha {
            label: "ada/bot v2".into(),
            id: 7,
            got: "ab".into(),
            sha: "cd".into(),
        };
        assert!(
            e.to_string()
                .contains("(version 7) does not match its SHA-256"),
            "{e}"
        );
    }
}
