//! Jobs a worker could not prepare (issue 22): a worker that cannot fetch or unpack a job's
//! bots releases the job saying so (`failed` on `POST /api/worker/jobs/JOB/release`), and the
//! server keeps count instead of handing the job out again for ever.
//!
//! - When the worker names a version, the server unpacks that version's packed folder itself,
//!   with the safe unpacker and the limits a worker uses: if it cannot, the version's archive
//!   is at fault, whoever reported it, and the version is suspended with the unpacker's words
//!   (it leaves the ladder, its open jobs are cancelled).
//! - Otherwise the failure is the worker's (its disk, its network) or cannot be told: the job
//!   is queued again for anyone, until it failed on [`MAX_WORKERS`] worker tokens or
//!   [`MAX_FAILURES`] times in all; then it is cancelled (its recorded games stay; matchmaking
//!   makes other jobs).

use super::jobs;
use super::Ladder;
use crate::db::now_ms;
use rusqlite::params;

/// A job that failed on this many worker tokens is cancelled.
pub const MAX_WORKERS: i64 = 2;
/// A job that failed this many times (on any worker tokens) is cancelled.
pub const MAX_FAILURES: i64 = 3;

/// What the server made of a reported failure.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Queued again for anyone.
    Released,
    /// Cancelled: it failed too often.
    Cancelled { failures: i64, workers: i64 },
    /// The version's packed folder cannot be unpacked: it was suspended (its jobs cancelled).
    Suspended { version: i64, reason: String },
}

/// The limits a worker unpacks with (`worker/mod.rs`).
pub const WORKER_UNPACK: crate::archive::Limits = crate::archive::Limits {
    max_unpacked: 8 << 30,
    max_files: 1_000_000,
};

/// Whether the server itself can unpack `archive` as a worker would: why not, if it cannot.
pub fn unpackable(archive: &std::path::Path) -> Result<(), crate::archive::ArchiveError> {
    let tmp = tempfile::tempdir().map_err(|source| crate::archive::ArchiveError::Local {
        what: "a temporary folder: ".into(),
        source,
    })?;
    crate::archive::unpack(archive, tmp.path(), WORKER_UNPACK).map(|_| ())
}

/// Worker token `worker` could not prepare job `job` held under `lease` (`version`: the one it
/// names, `reason`: its words). `packed`: the version's packed folder on the server.
pub fn report(
    l: &Ladder,
    job: &jobs::Job,
    lease: &str,
    worker: i64,
    version: Option<i64>,
    reason: &str,
    packed: impl FnOnce(i64) -> Option<std::path::PathBuf>,
) -> Result<Outcome, crate::db::DbError> {
    let reason: String = reason.chars().take(2000).collect();
    l.db.write_relaxed(|c| {
        c.execute(
            "INSERT OR IGNORE INTO job_failures(job, lease, worker, version, reason, at) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6)",
            params![job.id, lease, worker, version, reason, now_ms()],
        )
    })?;
    if let Some(v) = version.filter(|v| job.seats.contains(v)) {
        if let Some(file) = packed(v) {
            if let Err(e) = unpackable(&file) {
                let why = format!(
                    "workers cannot use its built folder (job {} failed on a worker): {e}",
                    job.id
                );
                let changed =
                    l.db.write(|c| crate::domain::versions::suspend_active(c, v, &why))?;
                if changed {
                    tracing::warn!("version {v} suspended: {why}");
                }
                l.version_left(v)?;
                return Ok(Outcome::Suspended {
                    version: v,
                    reason: why,
                });
            }
        }
    }
    let (failures, workers): (i64, i64) = l.db.read(|c| {
        c.query_row(
            "SELECT COUNT(*), COUNT(DISTINCT worker) FROM job_failures WHERE job = ?1",
            [job.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    })?;
    if failures >= MAX_FAILURES || workers >= MAX_WORKERS {
        jobs::cancel(&l.db, job.id)?;
        l.job_cancelled(job.id);
        tracing::warn!(
            "job {} cancelled: workers could not prepare it {failures} time(s) on {workers} \
             worker token(s) (last: {reason})",
            job.id
        );
        return Ok(Outcome::Cancelled { failures, workers });
    }
    jobs::release(&l.db, job.id, lease)?;
    l.notify();
    Ok(Outcome::Released)
}
