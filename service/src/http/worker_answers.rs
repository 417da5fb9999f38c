//! What the workers' routes answer (`worker_api.rs`), each type the schema of its answer in
//! the OpenAPI document: a claim (a job, or none yet), a lease renewed, a job released, a
//! results post's games.

use super::worker_api::ClaimedBatch;
use serde::Serialize;
use utoipa::openapi::schema::{ObjectBuilder, Type};

/// `POST /api/worker/claim`: a job under a lease, or none to play now.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ClaimAnswer {
    Job(Box<ClaimedBatch>),
    None(NoJob),
}

/// No job to play now: claim again after `retry_ms`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct NoJob {
    /// Always `null`.
    #[schema(schema_with = null, required = true)]
    pub job: Option<()>,
    pub retry_ms: u64,
}

/// The schema of `null`.
fn null() -> utoipa::openapi::Object {
    ObjectBuilder::new().schema_type(Type::Null).build()
}

/// A lease renewed: the job, and the lease's length from now.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Renewed {
    pub job: i64,
    pub lease_ms: i64,
}

/// A job given up: whether it was released (queued again), and what the server did about a
/// failure the worker reported (`failed`), if anything.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Released {
    pub job: i64,
    /// `false` when the lease no longer held the job.
    pub released: bool,
    /// The job failed too often and was cancelled: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
    /// The version whose packed folder the server cannot unpack either, suspended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspended: Option<Suspension>,
}

/// A version suspended because its packed folder cannot be unpacked.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Suspension {
    pub version: i64,
    pub reason: String,
}

impl Released {
    pub fn new(job: i64, released: bool) -> Released {
        Released {
            job,
            released,
            cancelled: None,
            suspended: None,
        }
    }
}

/// A game of a results post: recorded now (`true`) or recorded before (`false`, with a note).
#[derive(Serialize, utoipa::ToSchema)]
pub struct GameRecorded {
    pub game: u32,
    pub recorded: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}
