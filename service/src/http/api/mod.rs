//! The JSON API (`/api/...`): one handler per route, each the counterpart of a page. Here the
//! routes and what anyone may read (status, leaderboard, bots, versions, games: the views of
//! `crate::views`, served as JSON);
//! `accounts.rs` what an author does (account, tokens, uploads), `organiser.rs` what the
//! organiser does (the ladder, versions out, fixed tournaments).

mod accounts;
pub mod challenges;
pub mod mygames;
mod organiser;

pub use accounts::{accept_upload, receive, register_account, too_large};
use accounts::{invite, me, new_token, register, revoke_token, submit};
pub use accounts::{Invite, NewAccount, NewToken, RegisterBody, Revoked, Submitted, TokenBody};
use organiser::{
    cancel_tournament, disqualify, pause, remove, resume, start_tournament, tournament, tournaments,
};
pub use organiser::{
    set_out, Paused, ReasonBody, TournamentBody, TournamentCancelled, TournamentList,
    TournamentStarted,
};

use super::{blocking, private, ApiError, AppState, Author, JsonBody, MaybeAuthor, Organiser};
use crate::auth;
use crate::domain::VersionState;
use crate::store::{self, GameRow, Version};
use crate::views::{
    self, seat_labels, summary, BotView, GameSummary, GameView, Status, VersionOut,
};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post, MethodRouter};
use axum::Json;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;

/// (method, path, handler) of every API route; the OpenAPI document lists the same.
pub fn routes() -> Vec<(&'static str, &'static str, MethodRouter<AppState>)> {
    let mut r = vec![
        ("get", "/api/status", get(status)),
        ("get", "/api/leaderboard", get(leaderboard)),
        (
            "get",
            "/api/leaderboard/events",
            get(super::live::leaderboard_events),
        ),
        ("get", "/api/bots/{bot}", get(bot)),
        ("get", "/api/bots/{bot}/versions/{n}", get(version)),
        ("get", "/api/games/{job}/{game}", get(game)),
        ("get", "/api/games/{job}/{game}/replay", get(replay)),
        ("get", "/api/me", get(me)),
        ("post", "/api/accounts", post(register)),
        ("post", "/api/tokens", post(new_token)),
        ("delete", "/api/tokens/{id}", delete(revoke_token)),
        ("post", "/api/invites", post(invite)),
        ("post", "/api/submit", post(submit)),
        ("post", "/api/ladder/pause", post(pause)),
        ("post", "/api/ladder/resume", post(resume)),
        (
            "post",
            "/api/bots/{bot}/versions/{n}/disqualify",
            post(disqualify),
        ),
        ("post", "/api/bots/{bot}/versions/{n}/remove", post(remove)),
        ("post", "/api/tournaments", post(start_tournament)),
        ("get", "/api/tournaments/{id}", get(tournament)),
        ("get", "/api/tournaments", get(tournaments)),
        (
            "post",
            "/api/tournaments/{id}/cancel",
            post(cancel_tournament),
        ),
        ("get", "/api/openapi.json", get(openapi)),
        ("post", "/api/challenges", post(challenges::create)),
        ("get", "/api/challenges/{id}", get(challenges::get_one)),
        ("post", "/api/play", post(super::play_pages::api_create)),
        ("get", "/api/play/{id}", get(super::play_pages::api_state)),
        (
            "post",
            "/api/play/{id}/move",
            post(super::play_pages::api_move),
        ),
        (
            "get",
            "/api/bots/{bot}/versions/{n}/games",
            get(mygames::games),
        ),
        (
            "get",
            "/api/games/{job}/{game}/seats/{seat}/raw",
            get(mygames::raw),
        ),
    ];
    r.extend(super::worker_api::routes());
    r.extend(super::worker_tokens::routes());
    r.extend(super::seasons::api_routes());
    r
}

async fn openapi() -> Json<Value> {
    Json(super::openapi::document())
}

async fn status(State(s): State<AppState>) -> Result<Json<Status>, ApiError> {
    blocking(move || views::status_of(&s.ladder).map_err(ApiError::internal))
        .await
        .map(Json)
}

async fn leaderboard(State(s): State<AppState>) -> Response {
    Json(views::leaderboard_json(&s.ladder, None)).into_response()
}

async fn bot(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<BotView>, ApiError> {
    blocking(move || {
        views::bot_view(&s.ladder, &name)?
            .map(Json)
            .ok_or_else(|| ApiError::not_found(format!("no bot named {name:?}")))
    })
    .await
}

async fn version(
    State(s): State<AppState>,
    Path((bot, n)): Path<(String, i64)>,
) -> Result<Response, ApiError> {
    let s2 = s.clone();
    let b2 = bot.clone();
    let view = blocking(move || Ok(s2.cache.version(&s2, &b2, n)?)).await?;
    let view =
        view.ok_or_else(|| ApiError::not_found(format!("bot {bot:?} has no version {n}")))?;
    let out = VersionOut {
        standing: views::standing_of(&s.ladder, view.version.id),
        view: &view,
    };
    Ok(Json(out).into_response())
}

async fn game(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path((job, g)): Path<(i64, u32)>,
) -> Result<Json<GameView>, ApiError> {
    blocking(move || {
        views::game_view(&s.ladder, job, g, who.as_ref())?
            .map(Json)
            .ok_or_else(|| ApiError::not_found(format!("no game {g} in job {job}")))
    })
    .await
}

/// A game's replay lines as the reader may see them: the stderr of the seats that are not
/// theirs left out (`super::private`), the seats left out named in a header. Never cached by
/// a shared cache: it depends on who asks.
async fn replay(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path((job, g)): Path<(i64, u32)>,
) -> Result<Response, ApiError> {
    let (bytes, hidden) = blocking(move || {
        let row = store::game(&s.ladder.db, job, g)?
            .ok_or_else(|| ApiError::not_found(format!("no game {g} in job {job}")))?;
        let visible = private::visible_seats(&s.ladder.db, &row, who.as_ref())?;
        // Its lines, whether the file is compressed (`.jsonl.zst`) or plain.
        let text = crate::store::replays::of_row(&s.ladder.db, &s.ladder.paths.root, &row)
            .map_err(|e| ApiError::internal(format!("{}: {e}", row.replay)))?;
        Ok((
            private::filter_replay(&text, &visible),
            private::hidden(&visible),
        ))
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_string()),
            (header::CACHE_CONTROL, "private, no-cache".to_string()),
            (header::VARY, "Authorization, Cookie".to_string()),
            (
                header::HeaderName::from_static(private::HIDDEN_HEADER),
                private::header_value(&hidden),
            ),
        ],
        bytes,
    )
        .into_response())
}
