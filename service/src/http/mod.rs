//! The HTTP server (axum): pages for people (`pages.rs`, maud) and their JSON counterparts
//! under `/api/` (`api/`), described by the OpenAPI document at `/api/openapi.json`
//! (`openapi.rs`, checked against the routes by a test).
//!
//! Authentication: the API (`/api/...`) takes `Authorization: Bearer TOKEN` only; the pages
//! the `durak_token` cookie that the register and login forms set (HttpOnly, SameSite=Strict),
//! which holds a login session's token (`auth::new_session`, ended by logging out), not the
//! account's API token. The pages' forms are checked against cross-site requests (`csrf.rs`).

pub mod admin;
pub mod api;
pub mod cache;
pub mod challenge_pages;
pub mod csrf;
pub mod files;
pub mod forms;
pub mod limits;
pub mod live;
pub mod openapi;
pub mod pages;
pub mod play_pages;
pub use crate::private;
pub mod redact;
pub mod reports;
pub mod seasons;
pub mod version_page;
pub mod worker_answers;
pub mod worker_api;
pub mod worker_tokens;

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
    /// The data directory's path, as answers never show it (`redact.rs`).
    pub hidden_paths: Arc<Vec<String>>,
    /// Login, registration and token attempts per client address (`limits.rs`).
    pub limits: Arc<limits::RateLimits>,
    /// The games people play against bots (`crate::play`).
    pub plays: Arc<crate::play::Plays>,
}

impl AppState {
    pub fn new(ladder: Arc<Ladder>, tournaments: Arc<crate::tournament::Tournaments>) -> Self {
        AppState {
            hidden_paths: Arc::new(redact::forms(&ladder.paths.root)),
            plays: Arc::new(crate::play::Plays::new(ladder.clone())),
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

/// A database failure is the server's fault: 500, whatever the request was.
impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> ApiError {
        ApiError::internal(e)
    }
}

/// A refused change of state says which: 409 (the version is in a state it cannot leave so),
/// or the database's 500.
impl From<crate::domain::Error> for ApiError {
    fn from(e: crate::domain::Error) -> ApiError {
        let status = match e {
            crate::domain::Error::Db(_) => 500,
            crate::domain::Error::NotAWayOut(_) => 409,
        };
        ApiError::new(status, e.to_string())
    }
}

/// A fixed tournament not started: 409 for the organiser's request, 500 for the database.
impl From<crate::tournament::StartError> for ApiError {
    fn from(e: crate::tournament::StartError) -> ApiError {
        ApiError::new(e.status(), e.to_string())
    }
}

/// A version's view not made (the database, its comparison, its analysis): 500.
impl From<crate::views::ViewError> for ApiError {
    fn from(e: crate::views::ViewError) -> ApiError {
        ApiError::internal(e)
    }
}

/// A comparison's or a challenge's test not made (the database, the test's parameters): 500.
impl From<crate::ladder::compare::CompareError> for ApiError {
    fn from(e: crate::ladder::compare::CompareError) -> ApiError {
        ApiError::internal(e)
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

/// The token of an API request: `Authorization: Bearer TOKEN` only. The login cookie is not
/// one (`csrf.rs`: another site's page could make the browser send it).
pub fn token_of(parts: &Parts) -> Option<String> {
    let v = parts.headers.get(header::AUTHORIZATION)?;
    let t = v.to_str().ok()?.strip_prefix("Bearer ")?.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The login session of a page's request: its cookie.
pub fn session_of(parts: &Parts) -> Option<String> {
    csrf::cookie(&parts.headers, COOKIE).filter(|t| !t.is_empty())
}

/// The account of an API request, if it carries a valid token.
pub struct MaybeAuthor(pub Option<Account>);
/// The account of an API request: 401 without a token or with one that opens no account (each
/// told apart: unknown, revoked, a worker token), 403 with the login cookie only.
pub struct Author(pub Account);
/// The organiser: as [`Author`], and 403 for another account.
pub struct Organiser(pub Account);

/// The account of `token`, the request's (`parts`). A token that opens nothing counts as an attempt
/// against the client address's rate limit (`limits.rs`) — where an account is `needed`, or
/// sent as `Authorization` (a cookie that opens nothing on a public page is most often an
/// expired session, not an attempt) — and from an address over the limit no token is looked
/// at: `Err` (429) where an account is needed, `Ok(None)` (anonymous) where it is not.
async fn account_of(
    token: Option<String>,
    parts: &Parts,
    state: &AppState,
    needed: bool,
) -> Result<Option<Account>, ApiError> {
    let Some(token) = token else {
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
    let account =
        blocking(move || auth::account_of(&db, &token).map_err(ApiError::internal)).await?;
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
        Ok(MaybeAuthor(
            account_of(token_of(parts), parts, state, false).await?,
        ))
    }
}

/// Why a request opens no account, in words: no token, the cookie only, an unknown token, a
/// revoked one, a worker token.
async fn refusal(parts: &Parts, state: &AppState) -> Result<ApiError, ApiError> {
    let Some(token) = token_of(parts) else {
        if session_of(parts).is_some() {
            return Ok(ApiError::new(
                403,
                "the API takes a token in `Authorization: Bearer TOKEN`, not the login cookie \
                 (a page of another site could make a browser send the cookie): use a token \
                 from your page, /me",
            ));
        }
        return Ok(ApiError::new(
            401,
            "this needs a token: send `Authorization: Bearer TOKEN` with your account's token \
             (shown when you registered; make a new one on /me)",
        ));
    };
    let db = state.ladder.db.clone();
    let why =
        blocking(move || auth::why_not_an_account(&db, &token).map_err(ApiError::internal)).await?;
    Ok(match why {
        auth::NotAnAccount::Revoked(at) => ApiError::new(
            401,
            format!(
                "this token was revoked{}: make a new one on /me (log in there with another \
                 token of yours, or ask the organiser)",
                at.map(|t| format!(" on {}", pages::time(t)))
                    .unwrap_or_default()
            ),
        ),
        auth::NotAnAccount::SessionEnded => ApiError::new(
            401,
            "this is a login session's token that ended (logged out or expired), and the API \
             takes an account's token anyway: use a token from /me",
        ),
        auth::NotAnAccount::Worker => ApiError::new(
            401,
            "this is a worker token: it opens the worker routes only (/api/worker/...); use an \
             account's token here",
        ),
        auth::NotAnAccount::Suspended(reason) => ApiError::new(
            403,
            format!(
                "this account was suspended by the organiser ({reason}): its tokens open \
                 nothing until the organiser reinstates it"
            ),
        ),
        auth::NotAnAccount::Unknown => ApiError::new(
            401,
            "this token is not known to this server: check that it is this server's and whole \
             (dk_ and 64 hex digits), or make a new one on /me",
        ),
    })
}

impl FromRequestParts<AppState> for Author {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match account_of(token_of(parts), parts, state, true).await? {
            Some(a) => Ok(Author(a)),
            None => Err(refusal(parts, state).await?),
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

/// Who reads a page: the account of its login cookie (or of a bearer token), and what its
/// forms carry (`csrf.rs`).
#[derive(Clone, Debug, Default)]
pub struct Visitor {
    pub account: Option<Account>,
    /// The browser's random cookie (`csrf::Browser`); empty outside [`csrf::guard`].
    pub browser: String,
    /// The login session the page is made for.
    pub session: Option<String>,
}

impl Visitor {
    /// The token the page's forms carry.
    pub fn csrf(&self) -> String {
        csrf::form_token(&self.browser, self.session.as_deref())
    }
    pub fn who(&self) -> Option<&Account> {
        self.account.as_ref()
    }
    /// The same browser logged in as `account` with a new session.
    pub fn logged_in(&self, account: Account, session: String) -> Visitor {
        Visitor {
            account: Some(account),
            browser: self.browser.clone(),
            session: Some(session),
        }
    }
}

impl FromRequestParts<AppState> for Visitor {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let session = session_of(parts);
        let token = token_of(parts).or_else(|| session.clone());
        Ok(Visitor {
            account: account_of(token, parts, state, false).await?,
            browser: parts
                .extensions
                .get::<csrf::Browser>()
                .map(|b| b.id.clone())
                .unwrap_or_default(),
            session,
        })
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
    let pages = pages::routes(state.limits.layer(true));
    let r = r.route("/metrics", axum::routing::get(metrics_for_organiser));
    web_security(
        r.merge(pages)
            .merge(reports::routes())
            .merge(seasons::page_routes()),
        &state,
    )
    .layer(axum::middleware::from_fn(crate::metrics::track))
    .layer(request_log())
    .with_state(state)
}

/// `GET /metrics` on the main address: the organiser's token only (`Authorization: Bearer`).
async fn metrics_for_organiser(
    axum::extract::State(s): axum::extract::State<AppState>,
    Organiser(_): Organiser,
) -> Result<Response, ApiError> {
    metrics_text(&s).await
}

/// `GET /metrics` as Prometheus reads it.
async fn metrics_text(s: &AppState) -> Result<Response, ApiError> {
    let db = s.ladder.db.clone();
    let text = blocking(move || crate::metrics::render(&db).map_err(ApiError::internal)).await?;
    let kind = "text/plain; version=0.0.4; charset=utf-8";
    Ok(([(header::CONTENT_TYPE, kind)], text).into_response())
}

/// The router of `[metrics] listen`: `GET /metrics` without a token, and nothing else (that
/// address is for a Prometheus on the organiser's own network).
pub fn metrics_router(state: AppState) -> Router {
    async fn open(axum::extract::State(s): axum::extract::State<AppState>) -> Response {
        metrics_text(&s).await.into_response()
    }
    Router::new()
        .route("/metrics", axum::routing::get(open))
        .with_state(state)
}

/// A span per request (method, path) and a line per answer with its status and time, at
/// `info` (`DURAK_LOG=info`; as JSON with `durak --log-format json serve`).
fn request_log() -> tower_http::trace::TraceLayer<
    tower_http::classify::SharedClassifier<tower_http::classify::ServerErrorsAsFailures>,
> {
    use tower_http::trace::{DefaultMakeSpan, DefaultOnRequest, DefaultOnResponse, TraceLayer};
    use tracing::Level;
    TraceLayer::new_for_http()
        .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
        .on_request(DefaultOnRequest::new().level(Level::DEBUG))
        .on_response(
            DefaultOnResponse::new()
                .level(Level::INFO)
                .latency_unit(tower_http::LatencyUnit::Micros),
        )
}

/// The largest body of a request that is not an upload: forms and JSON (issue 22: a page
/// route without a limit took an 800 MB `POST /login` into memory).
pub const MAX_BODY: usize = 64 << 10;

/// The layers over every route that keep it safe on the web: a body limit (the uploads and
/// the workers' results set their own, larger ones on their routes), and the pages' forms
/// checked against cross-site requests (`csrf.rs`), and no path of the server's files in an
/// answer (`redact.rs`).
fn web_security(r: Router<AppState>, state: &AppState) -> Router<AppState> {
    r.layer(axum::middleware::from_fn(csrf::guard))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            redact::layer,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
}

/// A page or the API asking for an analysis answers 500 when it cannot be read.
impl From<crate::analysis::AnalysisError> for ApiError {
    fn from(e: crate::analysis::AnalysisError) -> ApiError {
        ApiError::internal(e)
    }
}
