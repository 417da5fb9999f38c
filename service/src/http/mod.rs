//! The HTTP server (axum): pages for people (`pages.rs`, maud) and their JSON counterparts
//! under `/api/` (`api.rs`), described by the OpenAPI document at `/api/openapi.json`
//! (`openapi.rs`, checked against the routes by a test).
//!
//! Authentication: `Authorization: Bearer TOKEN`, or the `durak_token` cookie that the
//! register and login forms set (HttpOnly, SameSite=Strict: another site's form cannot use it),
//! which holds a login session's token (`auth::new_session`, ended by logging out), not the
//! account's API token.

pub mod api;
pub mod cache;
pub mod files;
pub mod limits;
pub mod live;
pub mod openapi;
pub mod pages;
pub mod reports;
pub mod worker_api;

use crate::auth::{self, Account};
use crate::ladder::Ladder;
use axum::extract::{FromRequest, FromRequestParts, OptionalFromRequest};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use std::sync::Arc;

pub const COOKIE: &str = "durak_token";

#[derive(Clone)]
pub struct AppState {
    pub ladder: Arc<Ladder>,
    pub tournaments: Arc<crate::tournament::Tournaments>,
    /// The live leaderboard's publisher (`live.rs`).
    pub live: Arc<live::Live>,
    /// The pages' cache of version views (`cache.rs`).
    pub cache: Arc<cache::Cache>,
    /// Login, registration and token attempts per client address (`limits.rs`).
    pub limits: Arc<limits::RateLimits>,
}

impl AppState {
    pub fn new(ladder: Arc<Ladder>, tournaments: Arc<crate::tournament::Tournaments>) -> Self {
        AppState {
            limits: limits::RateLimits::new(&ladder.cfg.rate),
            ladder,
            tournaments,
            live: Default::default(),
            cache: Default::default(),
        }
    }
}

/// An error as JSON (`{"error": "..."}`) with its status.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Seconds until it may be tried again: sent as `Retry-After` (and `retry_after_s`).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            message: message.into(),
            retry_after: None,
        }
    }
    pub fn retry_after(mut self, secs: Option<u64>) -> ApiError {
        self.retry_after = secs;
        self
    }
    pub fn not_found(what: impl Into<String>) -> ApiError {
        ApiError::new(404, what)
    }
    pub fn internal(e: impl std::fmt::Display) -> ApiError {
        ApiError::new(500, e.to_string())
    }
}

impl From<String> for ApiError {
    fn from(e: String) -> ApiError {
        ApiError::internal(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let Some(secs) = self.retry_after else {
            return (
                self.status,
                axum::Json(serde_json::json!({"error": self.message})),
            )
                .into_response();
        };
        (
            self.status,
            [(header::RETRY_AFTER, secs.to_string())],
            axum::Json(serde_json::json!({"error": self.message, "retry_after_s": secs})),
        )
            .into_response()
    }
}

/// A JSON body, whatever its `Content-Type` says: `curl -d '{...}'` sends
/// `application/x-www-form-urlencoded`, and axum's `Json` refuses that (and a body with no
/// type at all), which made the documented commands fail. A body that is not the JSON the
/// route takes is refused: 400 when it is not JSON, 422 when it is JSON of another shape.
/// `Option<JsonBody<T>>`: an empty body is `None`.
pub struct JsonBody<T>(pub T);

async fn body_bytes<S: Send + Sync>(
    req: axum::extract::Request,
    state: &S,
) -> Result<bytes::Bytes, ApiError> {
    bytes::Bytes::from_request(req, state)
        .await
        .map_err(|e| ApiError::new(e.status().as_u16(), e.body_text()))
}

fn parse_body<T: serde::de::DeserializeOwned>(b: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(b).map_err(|e| {
        let status = if e.is_data() { 422 } else { 400 };
        ApiError::new(
            status,
            format!("the request's body is not the JSON this route takes: {e}"),
        )
    })
}

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;
    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        let b = body_bytes(req, state).await?;
        parse_body(&b).map(JsonBody)
    }
}

impl<T: serde::de::DeserializeOwned, S: Send + Sync> OptionalFromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;
    async fn from_request(
        req: axum::extract::Request,
        state: &S,
    ) -> Result<Option<Self>, ApiError> {
        let b = body_bytes(req, state).await?;
        if b.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        parse_body(&b).map(|t| Some(JsonBody(t)))
    }
}

/// The token a request carries, if any.
pub fn token_of(parts: &Parts) -> Option<String> {
    if let Some(v) = parts.headers.get(header::AUTHORIZATION) {
        if let Some(t) = v.to_str().ok().and_then(|s| s.strip_prefix("Bearer ")) {
            return Some(t.trim().to_string());
        }
    }
    for v in parts.headers.get_all(header::COOKIE) {
        for kv in v.to_str().unwrap_or("").split(';') {
            if let Some(t) = kv.trim().strip_prefix("durak_token=") {
                return Some(t.to_string());
            }
        }
    }
    None
}

/// The account of the request, if it carries a valid token.
pub struct MaybeAuthor(pub Option<Account>);
/// The account of the request: 401 without one.
pub struct Author(pub Account);
/// The organiser: 401 without a token, 403 for another account.
pub struct Organiser(pub Account);

/// The account of the request's token. A token that opens nothing counts as an attempt
/// against the client address's rate limit (`limits.rs`) — where an account is `needed`, or
/// sent as `Authorization` (a cookie that opens nothing on a public page is most often an
/// expired session, not an attempt) — and from an address over the limit no token is looked
/// at: `Err` (429) where an account is needed, `Ok(None)` (anonymous) where it is not.
async fn account_of(
    parts: &Parts,
    state: &AppState,
    needed: bool,
) -> Result<Option<Account>, ApiError> {
    let Some(token) = token_of(parts) else {
        return Ok(None);
    };
    let ip = state.limits.ip_of(parts);
    if let Some(wait) = state.limits.blocked(ip) {
        return if needed {
            Err(state.limits.api_error(ip, wait))
        } else {
            Ok(None)
        };
    }
    let db = state.ladder.db.clone();
    let account = tokio::task::spawn_blocking(move || auth::account_of(&db, &token))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    if account.is_none() && (needed || parts.headers.contains_key(header::AUTHORIZATION)) {
        if let (Err(wait), true) = (state.limits.bad_token(ip), needed) {
            return Err(state.limits.api_error(ip, wait));
        }
    }
    Ok(account)
}

impl FromRequestParts<AppState> for MaybeAuthor {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Ok(MaybeAuthor(account_of(parts, state, false).await?))
    }
}

impl FromRequestParts<AppState> for Author {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match account_of(parts, state, true).await? {
            Some(a) => Ok(Author(a)),
            None => Err(ApiError::new(
                401,
                "this needs an account's token: send `Authorization: Bearer TOKEN` (or log in \
                 on the web page)",
            )),
        }
    }
}

impl FromRequestParts<AppState> for Organiser {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Author(a) = Author::from_request_parts(parts, state).await?;
        if !a.organiser {
            return Err(ApiError::new(403, "only the organiser may do this"));
        }
        Ok(Organiser(a))
    }
}

/// Run blocking work (the database, files) off the async threads.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(ApiError::internal)?
}

/// Every route: the API's and the pages'.
pub fn router(state: AppState) -> Router {
    let mut r = Router::new();
    // Account creation and token creation are attempts, limited per client address.
    let limited = state.limits.layer(false);
    for (method, path, method_router) in api::routes() {
        let method_router = match (method, path) {
            ("post", "/api/accounts" | "/api/tokens") => method_router.layer(limited.clone()),
            _ => method_router,
        };
        r = r.route(path, method_router);
    }
    r.merge(pages::routes(state.limits.layer(true)))
        .merge(reports::routes())
        .with_state(state)
}
