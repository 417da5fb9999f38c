//! The organiser's worker tokens (`/api/worker-tokens`): issued once for `durak worker`,
//! stored hashed, listed without the tokens, revoked. The workers' own routes are
//! `worker_api.rs`.

use super::api::{NewToken, Revoked};
use super::{blocking, ApiError, AppState, JsonBody, Organiser};
use crate::auth::{self, WorkerToken};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post, MethodRouter};
use axum::Json;
use serde::{Deserialize, Serialize};

pub fn routes() -> Vec<(&'static str, &'static str, MethodRouter<AppState>)> {
    vec![
        ("get", "/api/worker-tokens", get(list_tokens)),
        ("post", "/api/worker-tokens", post(new_token)),
        ("delete", "/api/worker-tokens/{id}", delete(revoke_token)),
    ]
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
#[schema(as = WorkerTokenBody)]
pub struct TokenBody {
    #[serde(default)]
    pub label: String,
}

async fn new_token(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    body: Option<JsonBody<TokenBody>>,
) -> Result<(StatusCode, Json<NewToken>), ApiError> {
    let label = body.map(|b| b.0.label).unwrap_or_default();
    let (id, token) =
        blocking(move || auth::new_worker_token(&s.ladder.db, &label).map_err(ApiError::internal))
            .await?;
    Ok((
        StatusCode::CREATED,
        Json(NewToken {
            id,
            token,
            note: Some(
                "keep the token: it is shown only once; start a worker with durak worker \
                 --server URL --token TOKEN",
            ),
        }),
    ))
}

/// `GET /api/worker-tokens`: every worker token, by id.
#[derive(Serialize, utoipa::ToSchema)]
pub struct WorkerTokens {
    pub worker_tokens: Vec<WorkerToken>,
}

async fn list_tokens(
    State(s): State<AppState>,
    Organiser(_): Organiser,
) -> Result<Json<WorkerTokens>, ApiError> {
    let worker_tokens =
        blocking(move || auth::worker_tokens(&s.ladder.db).map_err(ApiError::internal)).await?;
    Ok(Json(WorkerTokens { worker_tokens }))
}

async fn revoke_token(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    Path(id): Path<i64>,
) -> Result<Json<Revoked>, ApiError> {
    let ok =
        blocking(move || auth::revoke_worker_token(&s.ladder.db, id).map_err(ApiError::internal))
            .await?;
    if !ok {
        return Err(ApiError::not_found(format!("no worker token {id}")));
    }
    Ok(Json(Revoked { revoked: id }))
}
