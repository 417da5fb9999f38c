//! The workers' API (`/api/worker/...`, for `durak worker`); the organiser's worker tokens
//! (`/api/worker-tokens`) are `worker_tokens.rs`.
//!
//! A worker claims a job under a lease (`owner` = `worker:TOKEN_ID:RANDOM`, returned as
//! `lease`), fetches the bots it does not have (the version's built folder packed as tar.gz,
//! with its SHA-256), plays the games of the job not yet recorded, posts them in batches (each
//! replay verified and checked to be the job's game, `ladder/verify.rs`, then recorded by the
//! recorder like the server's own games: idempotent by (job, game)), renews its lease while it
//! plays and releases the job if it stops before the end. The job is done, and counts on the
//! leaderboard, once every game of it is recorded, whoever posted them.
//!
//! Every lease handed to a worker token is written down with its job (`job_leases`): a post
//! must name the exact lease its claim gave for that job, and a refusal says nothing of a job
//! the token was not handed. A worker that cannot prepare a job says so when it releases it
//! (`ladder/unplayable.rs`).

pub use super::worker_answers::{ClaimAnswer, GameRecorded, NoJob, Released, Renewed, Suspension};
use super::{blocking, token_of, ApiError, AppState, JsonBody};
use crate::auth::{self, WorkerToken};
use crate::domain::JobState;
use crate::ladder::jobs::{self, Job};
use crate::ladder::recorder;
use crate::ladder::verify::{self, PostedResult};
use crate::store;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, State};
use axum::http::header;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The largest results post: a batch of games with their replays.
pub const MAX_RESULTS_BODY: usize = 64 << 20;

/// Header of a bot archive's SHA-256 (hex).
pub const SHA256_HEADER: &str = "x-durak-sha256";

pub fn routes() -> Vec<(&'static str, &'static str, MethodRouter<AppState>)> {
    vec![
        ("post", "/api/worker/claim", post(claim)),
        ("post", "/api/worker/jobs/{job}/renew", post(renew)),
        (
            "post",
            "/api/worker/jobs/{job}/results",
            post(results).layer(DefaultBodyLimit::max(MAX_RESULTS_BODY)),
        ),
        ("post", "/api/worker/jobs/{job}/release", post(release)),
        ("get", "/api/worker/versions/{id}/bot", get(bot_archive)),
    ]
}

/// The worker token of the request: 401 without one or with an unknown one, 403 with an
/// account's token.
pub struct Worker(pub WorkerToken);

impl FromRequestParts<AppState> for Worker {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(token) = token_of(parts) else {
            return Err(ApiError::new(
                401,
                "this needs a worker token: send `Authorization: Bearer TOKEN` with a token the \
                 organiser issued (POST /api/worker-tokens, or `durak worker-token new`)",
            ));
        };
        let db = state.ladder.db.clone();
        let found = tokio::task::spawn_blocking(move || {
            let w = auth::worker_of(&db, &token)?;
            let account = match w {
                Some(_) => None,
                None => auth::account_of(&db, &token)?,
            };
            Ok::<_, crate::db::DbError>((w, account))
        })
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
        match found {
            (Some(w), _) => Ok(Worker(w)),
            (None, Some(a)) => Err(ApiError::new(
                403,
                format!(
                    "this is the token of the account {:?}, not a worker token: workers use a \
                     token the organiser issued for them (POST /api/worker-tokens)",
                    a.name
                ),
            )),
            (None, None) => Err(ApiError::new(
                401,
                "the token is not a worker token of this server (or it was revoked): ask the \
                 organiser for one",
            )),
        }
    }
}

/// A version as a worker needs it.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WorkerVersion {
    pub id: i64,
    pub label: String,
    pub house: bool,
    /// The command (`builtin:NAME` for house bots), run in the unpacked folder.
    pub command: String,
    /// The packed folder's SHA-256 and size (not for house bots).
    pub sha256: Option<String>,
    pub size: Option<u64>,
    pub bot_url: Option<String>,
}

/// A claimed job, with everything needed to play it: what the server sends and what
/// `durak worker` reads (`crate::worker`).
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Claimed {
    /// The job: id, kind, seats (version ids), deals with their seeds and dealers.
    #[schema(value_type = Object)]
    pub job: Job,
    /// Pass it back to renew, post and release.
    pub lease: String,
    pub lease_ms: i64,
    /// The games not recorded yet (game = rotation * deals + deal).
    pub games: Vec<u32>,
    pub variant: String,
    pub table_size: usize,
    /// The protocol's time limits (`startup_ms`, `move_ms`, `bank_ms`, `max_line_bytes`).
    #[schema(value_type = Object)]
    pub limits: durak_protocol::Limits,
    /// Resource limits of submitted bots in the sandbox.
    #[schema(value_type = Object)]
    pub resources: durak_referee::ResourceLimits,
    pub max_moves: u32,
    pub versions: Vec<WorkerVersion>,
}

/// Pack a version's folder once (`DATA/packed/vID.tar.gz`, with its SHA-256 beside it).
fn packed(s: &AppState, id: i64) -> Result<(PathBuf, String, u64), ApiError> {
    let dir = s.ladder.paths.root.join("packed");
    let file = dir.join(format!("v{id}.tar.gz"));
    let sum = dir.join(format!("v{id}.sha256"));
    if let (Ok(m), Ok(h)) = (std::fs::metadata(&file), std::fs::read_to_string(&sum)) {
        return Ok((file, h.trim().to_string(), m.len()));
    }
    let folder = crate::ladder::executor::version_folder(&s.ladder, id)?
        .ok_or_else(|| ApiError::not_found(format!("version {id} has no folder")))?;
    let bytes = crate::archive::pack(&folder).map_err(ApiError::internal)?;
    let h = sha256_hex(&bytes);
    // The server's alone, as the rest of the data directory (store::Paths::make_private).
    std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
        .create(&dir)
        .map_err(ApiError::internal)?;
    let write = |path: &std::path::Path, b: &[u8]| -> std::io::Result<()> {
        let mut t = tempfile::NamedTempFile::new_in(&dir)?;
        std::io::Write::write_all(&mut t, b)?;
        t.persist(path).map_err(|e| e.error)?;
        Ok(())
    };
    write(&file, &bytes).map_err(ApiError::internal)?;
    write(&sum, h.as_bytes()).map_err(ApiError::internal)?;
    Ok((file, h, bytes.len() as u64))
}

pub fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
pub struct ClaimBody {
    /// The worker's name, for the server's log.
    #[serde(default)]
    pub name: Option<String>,
    /// Version ids: a job among exactly these (at any seating) comes before any other of the
    /// same priority (a worker plays such jobs in turn over the same bot processes).
    #[serde(default)]
    pub versions: Vec<i64>,
    /// Up to this many games in one answer: after the first job, the jobs among its versions
    /// (at any seating) that come next, each under its own lease, as `more` (none when a job of
    /// a higher priority among other versions comes first). Absent: one job.
    #[serde(default)]
    pub max_games: Option<usize>,
}

/// A new lease for worker token `w`: `worker:TOKEN_ID:RANDOM`.
fn new_lease(w: &WorkerToken) -> Result<String, ApiError> {
    let mut random = [0u8; 6];
    getrandom::fill(&mut random).map_err(ApiError::internal)?;
    let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("worker:{}:{hex}", w.id))
}

/// Claim a job for worker `w` (blocking): `None` when there is none (or the ladder is paused).
/// A job among `prefer` comes first among those of the same priority. With `max_games`, the
/// jobs among the first's versions that come next join it, up to that many games in all.
pub fn claim_for(
    s: &AppState,
    w: &WorkerToken,
    prefer: &[i64],
    max_games: usize,
) -> Result<Option<ClaimedBatch>, ApiError> {
    let l = &s.ladder;
    let _ = auth::worker_seen(&l.db, w.id);
    if l.is_paused() {
        return Ok(None);
    }
    let mut first = None;
    for _ in 0..8 {
        let lease = new_lease(w)?;
        let lease_ms = l.cfg.ladder.lease_ms;
        let Some(job) = jobs::claim_preferring(&l.db, &lease, lease_ms, Some(w.id), prefer)? else {
            l.notify();
            return Ok(None);
        };
        if let Some(c) = claimed(s, w, job, lease)? {
            first = Some(c);
            break;
        }
    }
    let Some(first) = first else {
        return Ok(None);
    };
    let mut games = first.games.len();
    let seats = first.job.seats.clone();
    let mut more = Vec::new();
    // A job that went (a version left, or every game in) is passed over: at most 8 of them.
    let mut passed = 0;
    // A ladder's jobs among the same versions have as many games each: stop before one that
    // would not fit.
    while games + first.job.games() <= max_games && passed < 8 {
        let lease = new_lease(w)?;
        let lease_ms = l.cfg.ladder.lease_ms;
        let Some(job) = jobs::claim_more_among(&l.db, &lease, lease_ms, Some(w.id), &seats)? else {
            break;
        };
        if games + job.games() > max_games {
            // Too big for the batch: handed back, as it was.
            jobs::release(&l.db, job.id, &lease)?;
            break;
        }
        match claimed(s, w, job, lease)? {
            Some(c) => {
                games += c.games.len();
                more.push(c);
            }
            None => passed += 1,
        }
    }
    Ok(Some(ClaimedBatch { first, more }))
}

/// Job `job`, just claimed under `lease`, as the worker gets it: `None` when it went instead (a
/// version at it left since it was made, or every game of it is recorded).
fn claimed(
    s: &AppState,
    w: &WorkerToken,
    job: Job,
    lease: String,
) -> Result<Option<Claimed>, ApiError> {
    let l = &s.ladder;
    let mut versions = Vec::new();
    for &id in &job.seats {
        match store::version(&l.db, id)? {
            Some(v) if crate::ladder::compare::may_play(&job.kind, v.state) => versions.push(v),
            _ => {
                // A version that left since the job was made: the job goes.
                l.version_left(id)?;
                return Ok(None);
            }
        }
    }
    let done: std::collections::HashSet<u32> = recorder::recorded_games(&l.db, job.id)?
        .into_iter()
        .collect();
    let games: Vec<u32> = (0..job.games() as u32)
        .filter(|g| !done.contains(g))
        .collect();
    if games.is_empty() {
        l.job_complete(job.id)?;
        return Ok(None);
    }
    let mut out = Vec::new();
    for v in versions {
        let (sha256, size, bot_url) = if v.house {
            (None, None, None)
        } else {
            let (_, h, n) = packed(s, v.id)?;
            (
                Some(h),
                Some(n),
                Some(format!("/api/worker/versions/{}/bot", v.id)),
            )
        };
        out.push(WorkerVersion {
            id: v.id,
            label: v.label(),
            house: v.house,
            command: v.command.clone(),
            sha256,
            size,
            bot_url,
        });
    }
    tracing::info!(
        "job {} claimed by worker token {} ({})",
        job.id,
        w.id,
        w.label
    );
    Ok(Some(Claimed {
        lease,
        lease_ms: l.cfg.ladder.lease_ms,
        games,
        variant: l.cfg.ladder.variant.name().to_string(),
        table_size: l.cfg.ladder.table_size,
        limits: l.cfg.ladder.limits,
        resources: l.cfg.resources,
        max_moves: durak_referee::driver::DEFAULT_MAX_MOVES,
        versions: out,
        job,
    }))
}

/// A claim's answer: the first job, and the jobs among its versions that came with it
/// (`ClaimBody::max_games`).
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClaimedBatch {
    #[serde(flatten)]
    pub first: Claimed,
    /// More jobs among the same versions, each under its own lease (as many as `max_games`
    /// allows; empty when it was not asked for).
    #[serde(default)]
    pub more: Vec<Claimed>,
}

async fn claim(
    State(s): State<AppState>,
    Worker(w): Worker,
    body: Option<JsonBody<ClaimBody>>,
) -> Result<Json<ClaimAnswer>, ApiError> {
    let body = body.map(|b| b.0).unwrap_or_default();
    let max_games = body.max_games.unwrap_or(0);
    let c = blocking(move || claim_for(&s, &w, &body.versions, max_games)).await?;
    Ok(Json(match c {
        Some(c) => ClaimAnswer::Job(Box::new(c)),
        None => ClaimAnswer::None(NoJob {
            job: None,
            retry_ms: 1000,
        }),
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct LeaseBody {
    pub lease: String,
}

/// The lease must be one of this token's.
fn own_lease(w: &WorkerToken, lease: &str) -> Result<(), ApiError> {
    if !lease.starts_with(&format!("worker:{}:", w.id)) {
        return Err(ApiError::new(
            403,
            format!("the lease {lease:?} is not one of this worker token's"),
        ));
    }
    Ok(())
}

/// The lease must be one the server handed to this worker token for this job (when it claimed
/// it; its games are still welcome after the lease ended). Refused with 403 otherwise, in the
/// same words whether the job exists or not, and with nothing of the job: a worker learns
/// nothing of jobs it was not handed.
fn held_lease(s: &AppState, w: &WorkerToken, job: i64, lease: &str) -> Result<(), ApiError> {
    own_lease(w, lease)?;
    if !jobs::handed(&s.ladder.db, job, lease, w.id)? {
        return Err(ApiError::new(
            403,
            format!(
                "job {job} was not handed to this worker token under the lease {lease:?}: post                  a job's games with the lease its claim gave (POST /api/worker/claim)"
            ),
        ));
    }
    Ok(())
}

async fn renew(
    State(s): State<AppState>,
    Worker(w): Worker,
    Path(job): Path<i64>,
    JsonBody(b): JsonBody<LeaseBody>,
) -> Result<Json<Renewed>, ApiError> {
    own_lease(&w, &b.lease)?;
    let lease_ms = s.ladder.cfg.ladder.lease_ms;
    let held = blocking(move || {
        let _ = auth::worker_seen(&s.ladder.db, w.id);
        jobs::renew(&s.ladder.db, job, &b.lease, lease_ms).map_err(ApiError::internal)
    })
    .await?;
    if !held {
        return Err(ApiError::new(
            409,
            format!(
                "job {job} is not held by this lease any more (the lease ended and the job was \
                 handed out again, or it was cancelled or is done): stop playing it"
            ),
        ));
    }
    Ok(Json(Renewed { job, lease_ms }))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct ReleaseBody {
    pub lease: String,
    /// The worker could not prepare the job (fetch or unpack a bot): the server keeps count.
    #[serde(default)]
    pub failed: Option<Failed>,
}

/// Why a worker could not play a job.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct Failed {
    /// The version whose bot it could not prepare, if it was one.
    #[serde(default)]
    pub version: Option<i64>,
    pub reason: String,
}

async fn release(
    State(s): State<AppState>,
    Worker(w): Worker,
    Path(job): Path<i64>,
    JsonBody(b): JsonBody<ReleaseBody>,
) -> Result<Json<Released>, ApiError> {
    own_lease(&w, &b.lease)?;
    blocking(move || {
        let Some(f) = b.failed else {
            let r = jobs::release(&s.ladder.db, job, &b.lease).map_err(ApiError::internal)?;
            s.ladder.notify();
            return Ok(Json(Released::new(job, r)));
        };
        held_lease(&s, &w, job, &b.lease)?;
        let j = jobs::get(&s.ladder.db, job)?.ok_or_else(|| ApiError::internal("job gone"))?;
        tracing::warn!(
            "worker token {} could not prepare job {job}: {}",
            w.id,
            f.reason
        );
        let packed_file = |v: i64| packed(&s, v).ok().map(|(file, _, _)| file);
        let outcome = crate::ladder::unplayable::report(
            &s.ladder,
            &j,
            &b.lease,
            w.id,
            f.version,
            &f.reason,
            packed_file,
        )?;
        use crate::ladder::unplayable::Outcome;
        let mut out = Released::new(job, true);
        match outcome {
            Outcome::Released => {}
            Outcome::Cancelled { failures, workers } => {
                out.cancelled = Some(format!(
                    "job {job} could not be prepared {failures} time(s) on {workers} worker \
                     token(s): cancelled"
                ))
            }
            Outcome::Suspended { version, reason } => {
                out.suspended = Some(Suspension { version, reason })
            }
        }
        Ok(Json(out))
    })
    .await
}

/// One game of a results post.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct PostedGame {
    /// rotation * deals + deal.
    pub game: u32,
    /// The result as the worker saw it (checked against the replay's).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub result: Option<PostedResult>,
    /// The replay compressed as a `.jsonl.zst` file holds it (zstd), in base64: what
    /// `durak worker` posts (a few KB a game).
    #[serde(default)]
    pub replay_zst: Option<String>,
    /// Or the replay file's lines as they are (JSON lines, as the referee writes them).
    #[serde(default)]
    pub replay: Option<String>,
}

/// A replay's bytes as a results post carries them (`replay_zst`): compressed with zstd, in
/// base64.
pub fn encode_replay(text: &[u8]) -> std::io::Result<String> {
    use base64::Engine;
    let packed = durak_referee::replay::compress_replay(text)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(packed))
}

impl PostedGame {
    /// The replay file's bytes as posted (compressed or plain), or why there are none.
    pub fn replay_bytes(&self) -> Result<Vec<u8>, ReplayBytesError> {
        use base64::Engine;
        match (&self.replay_zst, &self.replay) {
            (Some(b), None) => Ok(base64::engine::general_purpose::STANDARD.decode(b)?),
            (None, Some(text)) => Ok(text.as_bytes().to_vec()),
            _ => Err(ReplayBytesError::NotOnce),
        }
    }
}

/// Why a posted game's replay has no bytes to verify.
#[derive(Debug, thiserror::Error)]
pub enum ReplayBytesError {
    #[error("replay_zst is not base64: {0}")]
    NotBase64(#[from] base64::DecodeError),
    #[error("give the replay once: replay_zst (zstd, base64) or replay (its JSON lines)")]
    NotOnce,
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct ResultsBody {
    pub lease: String,
    pub games: Vec<PostedGame>,
}

/// What became of a results post.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ResultsAnswer {
    pub job: i64,
    /// Per game: recorded now or recorded before (counted once).
    pub games: Vec<GameRecorded>,
    pub new: usize,
    pub already: usize,
    /// Every game of the job is recorded: it is done.
    pub job_done: bool,
}

/// Check and record a results post (blocking). Every game is checked first: one refused game
/// refuses the post, and nothing of it is recorded.
pub fn record_results(
    s: &AppState,
    w: &WorkerToken,
    job_id: i64,
    b: ResultsBody,
) -> Result<ResultsAnswer, ApiError> {
    let l = &s.ladder;
    let _ = auth::worker_seen(&l.db, w.id);
    held_lease(s, w, job_id, &b.lease)?;
    let job =
        jobs::get(&l.db, job_id)?.ok_or_else(|| ApiError::not_found(format!("no job {job_id}")))?;
    if job.state == JobState::Cancelled {
        return Err(ApiError::new(
            409,
            format!(
                "job {job_id} was cancelled (one of its versions left the ladder): its games \
                 are not recorded"
            ),
        ));
    }
    let played_by = format!("worker:{}", w.id);
    let mut checked = Vec::new();
    let mut refused: Vec<verify::Refusal> = Vec::new();
    for g in &b.games {
        let checked_game = g
            .replay_bytes()
            .map_err(|e| verify::Refusal {
                status: 422,
                message: format!("job {job_id} game {}: {e}", g.game),
            })
            .and_then(|bytes| {
                verify::check_game(
                    &l.cfg.ladder,
                    &job,
                    g.game,
                    bytes,
                    g.result.as_ref(),
                    &played_by,
                )
            });
        match checked_game {
            Ok(x) => checked.push(x),
            Err(r) => refused.push(r),
        }
    }
    if !refused.is_empty() {
        let status = if refused.iter().any(|r| r.status == 422) {
            422
        } else {
            409
        };
        let msg: Vec<String> = refused.into_iter().map(|r| r.message).collect();
        tracing::warn!("worker token {} refused: {}", w.id, msg.join(" | "));
        return Err(ApiError::new(
            status,
            format!("nothing of this post was recorded: {}", msg.join("; ")),
        ));
    }
    let tickets: Vec<(u32, recorder::Ticket)> = checked
        .into_iter()
        .map(|g| (g.game, l.recorder.submit(g)))
        .collect();
    let mut games = Vec::new();
    let (mut new, mut already) = (0, 0);
    let mut failed = None;
    for (game, t) in tickets {
        match recorder::wait_for(t, Duration::from_secs(300)) {
            Ok(r) => {
                l.after_recorded(&r);
                if r.new {
                    new += 1;
                    games.push(GameRecorded {
                        game,
                        recorded: true,
                        note: None,
                    });
                } else {
                    already += 1;
                    games.push(GameRecorded {
                        game,
                        recorded: false,
                        note: Some("recorded before: counted once"),
                    });
                }
            }
            Err(e) => failed = Some(e),
        }
    }
    if let Some(e) = failed {
        return Err(ApiError::new(
            503,
            format!("the server could not record the games ({e}): post them again later"),
        ));
    }
    let job_done = l.job_complete(job_id)?
        || jobs::get(&l.db, job_id)?.is_some_and(|j| j.state == JobState::Done);
    Ok(ResultsAnswer {
        job: job_id,
        games,
        new,
        already,
        job_done,
    })
}

async fn results(
    State(s): State<AppState>,
    Worker(w): Worker,
    Path(job): Path<i64>,
    JsonBody(b): JsonBody<ResultsBody>,
) -> Result<Json<ResultsAnswer>, ApiError> {
    blocking(move || record_results(&s, &w, job, b))
        .await
        .map(Json)
}

async fn bot_archive(
    State(s): State<AppState>,
    Worker(w): Worker,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let (bytes, h) = blocking(move || {
        // Only the bots of jobs this token was handed; the same words for a version that does
        // not exist.
        let not_handed = || {
            ApiError::not_found(format!(
                "version {id} plays in no job this worker token was handed: fetch the bots a                  claim names"
            ))
        };
        if !jobs::worker_had_version(&s.ladder.db, w.id, id)? {
            return Err(not_handed());
        }
        let v = store::version(&s.ladder.db, id)?.ok_or_else(not_handed)?;
        if v.house {
            return Err(ApiError::not_found(format!(
                "version {id} is a house bot ({}): nothing to fetch",
                v.command
            )));
        }
        let (file, h, _) = packed(&s, id)?;
        Ok((std::fs::read(file).map_err(ApiError::internal)?, h))
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/gzip".to_string()),
            (header::HeaderName::from_static(SHA256_HEADER), h),
        ],
        bytes,
    )
        .into_response())
}
