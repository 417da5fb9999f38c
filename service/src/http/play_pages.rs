//! "Play my bot" (`crate::play`): the form on a bot's page (the seat and, where the server
//! allows more than one, the variant), `POST /api/play`, and the game's page `/play/ID` for its
//! player only, in the replay viewer's layout (`viewer.js` draws the seats, the table, the
//! trump, the stock and the discard from the page's `#play-data`: the seat's own view, the
//! request's observation, never the bot's hand or the stock's order; the same view as a table
//! without JavaScript), the legal choices as buttons (forms posting `/play/ID/move` with their
//! CSRF token), a typed move for the rest, a refusal with its rule id, the seat's events as
//! they come (the page reloads while the bot decides), and at the end the result, the replay's
//! verification and the game in the replay viewer. `GET /api/play/ID` is the same state as
//! JSON and `POST /api/play/ID/move` plays a move, for scripts and tests.

use super::pages::{csrf_field, error_page, page_error, page_styled};
use super::{blocking, ApiError, AppState, Author, JsonBody, Visitor};
use crate::play::{PlayGame, Posted, Refused, SeatChoice, Wanted};
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use durak_replay::html::layout::{script_json, VIEWER_CSS, VIEWER_JS};
use durak_replay::moves;
use maud::{html, Markup};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/play", post(create))
        .route("/play/{id}", get(show))
        .route("/play/{id}/move", post(play_move))
        .route("/play/{id}/replay", get(replay))
        .route("/play/{id}/view", get(view))
}

/// How to type a move here (`moves::HELP` without the terminal's numbers and `q`).
const WEB_HELP: &str = "\
A move in the protocol's card codes (rank 6789TJQKA, suit CDHS):
  attack or add:  7C 7D QH        (the cards; prefix 'x' for the trump-six exchange: x 7C)
  defend:         7C>KC 8D>9D     (attack card > the card that beats it; nothing = beat nothing)
  take | pass     as the words say";

/// The form on bot `bot`'s page, for a logged-in author: the seat, and the variant where the
/// server allows more than the ladder's (`[play] variants`).
pub fn form(s: &AppState, v: &Visitor, bot: &str) -> Markup {
    let variants = &s.ladder.cfg.play_variants;
    html! {
        @if v.account.is_some() {
            h2 { "Play " (bot) " yourself" }
            form.box #play method="post" action="/play" {
                (csrf_field(v))
                input type="hidden" name="bot" value=(bot);
                label { "Your seat: " select name="seat" {
                    option value="0" { "seat 0: you attack first" }
                    option value="1" { "seat 1: the bot attacks first" }
                    option value="random" { "at random" }
                } } " "
                @if variants.len() > 1 {
                    label { "Variant: " select name="variant" {
                        @for var in variants { option value=(var.name()) { (var.name()) } }
                    } } " "
                }
                button type="submit" { "Take a seat against " (bot) " (unrated)" }
            }
        }
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct PlayBody {
    pub bot: String,
    /// `0`, `1` or `random` (absent: 0).
    pub seat: Option<String>,
    /// Absent: the ladder's.
    pub variant: Option<String>,
}

fn start(s: &AppState, account: i64, b: &PlayBody) -> Result<u64, ApiError> {
    let seat = SeatChoice::parse(b.seat.as_deref())
        .map_err(|e| ApiError::new(e.status(), e.to_string()))?;
    let wanted = Wanted {
        bot: b.bot.clone(),
        seat,
        variant: b.variant.clone().filter(|v| !v.is_empty()),
    };
    match s
        .plays
        .start(account, &wanted)
        .map_err(ApiError::internal)?
    {
        Ok(id) => Ok(id),
        Err(Refused { status, message }) => Err(ApiError::new(status, message)),
    }
}

/// A game of Play my bot started: its id and the address of its page.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PlayStarted {
    pub id: u64,
    /// Its page (`/play/ID`), where the person plays.
    pub url: String,
}

/// `POST /api/play`: a game of the caller against the bot's version in the ladder.
pub(super) async fn api_create(
    State(s): State<AppState>,
    Author(a): Author,
    JsonBody(b): JsonBody<PlayBody>,
) -> Result<(StatusCode, Json<PlayStarted>), ApiError> {
    let id = blocking(move || start(&s, a.id, &b)).await?;
    Ok((
        StatusCode::CREATED,
        Json(PlayStarted {
            id,
            url: format!("/play/{id}"),
        }),
    ))
}

async fn create(State(s): State<AppState>, v: Visitor, Form(f): Form<PlayBody>) -> Response {
    let Some(a) = v.account.clone() else {
        return error_page(401, &v, "log in first");
    };
    match blocking(move || start(&s, a.id, &f)).await {
        Ok(id) => Redirect::to(&format!("/play/{id}")).into_response(),
        Err(e) => page_error(&v, e),
    }
}

/// The game, for its player only (else the error page's status and message).
fn mine(s: &AppState, v: &Visitor, id: u64) -> Result<Arc<PlayGame>, (u16, String)> {
    let Some(a) = v.account.as_ref() else {
        return Err((401, "log in first".into()));
    };
    match s.plays.get(id) {
        Some(g) if g.account == a.id => Ok(g),
        Some(_) => Err((403, "this game is another author's".into())),
        None => Err((404, format!("no game {id}"))),
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct MoveForm {
    pub choice: Option<usize>,
    #[serde(rename = "move")]
    pub typed: Option<String>,
}

async fn play_move(
    State(s): State<AppState>,
    v: Visitor,
    Path(id): Path<u64>,
    Form(f): Form<MoveForm>,
) -> Response {
    let g = match mine(&s, &v, id) {
        Ok(g) => g,
        Err((status, why)) => return error_page(status, &v, &why),
    };
    let posted = match (&f.choice, &f.typed) {
        (Some(n), _) => Posted::Choice(*n),
        (None, Some(t)) => Posted::Typed(t),
        (None, None) => return error_page(400, &v, "a move: choice=N or move=CARDS"),
    };
    match g.answer(posted) {
        // A refusal is on the page (with its rule), the decision still open.
        Ok(())
        | Err(Refused {
            status: 422 | 400, ..
        }) => Redirect::to(&format!("/play/{id}")).into_response(),
        Err(r) => error_page(r.status, &v, &r.message),
    }
}

/// The finished game's replay as its player may read it: the bot's stderr left out unless the
/// player is its author (`private.rs`).
async fn replay_text(s: &AppState, g: &PlayGame) -> Result<(String, Vec<u8>), (u16, String)> {
    let Some(name) = g.seen.lock().unwrap().replay.clone() else {
        return Err((404, "the game has no replay yet".into()));
    };
    let path = s.ladder.paths.root.join("play").join(&name);
    match tokio::fs::read(&path).await {
        Ok(bytes) => Ok((
            name,
            super::private::filter_replay(&bytes, &g.visible_seats()),
        )),
        Err(e) => Err((500, format!("the replay: {e}"))),
    }
}

async fn replay(State(s): State<AppState>, v: Visitor, Path(id): Path<u64>) -> Response {
    let text = match mine(&s, &v, id) {
        Ok(g) => replay_text(&s, &g).await,
        Err(e) => Err(e),
    };
    match text {
        Ok((_, bytes)) => ([(header::CONTENT_TYPE, "application/x-ndjson")], bytes).into_response(),
        Err((status, why)) => error_page(status, &v, &why),
    }
}

/// The finished game in the replay viewer, as the ladder's games are shown.
async fn view(State(s): State<AppState>, v: Visitor, Path(id): Path<u64>) -> Response {
    let g = match mine(&s, &v, id) {
        Ok(g) => g,
        Err((status, why)) => return error_page(status, &v, &why),
    };
    let (name, text) = match replay_text(&s, &g).await {
        Ok(t) => t,
        Err((status, why)) => return error_page(status, &v, &why),
    };
    let replay = match durak_replay::parse_replay(&text, &name) {
        Ok(r) => r,
        Err(e) => return error_page(500, &v, &e.to_string()),
    };
    let sim = durak_replay::simulate(&replay);
    let mut crumbs = super::pages::crumbs(v.who());
    crumbs.push((format!("/play/{id}"), format!("game {id}")));
    let ctx = durak_replay::html::GameContext {
        crumbs,
        place: Some(format!("you against {} v{}, unrated", g.bot, g.version)),
        root: super::pages::ASSET_ROOT.to_string(),
        notes: Vec::new(),
        endgame: Vec::new(),
    };
    (
        [(header::CACHE_CONTROL, "private, no-cache")],
        axum::response::Html(durak_replay::html::game_page(&sim, &ctx)),
    )
        .into_response()
}

/// A decision's time in words: `10 minutes`, `5 seconds`.
fn clock(ms: u64) -> String {
    match ms {
        ms if ms % 60_000 == 0 => format!("{} minutes", ms / 60_000),
        ms => format!("{} seconds", ms / 1000),
    }
}

fn card(code: &Value) -> Markup {
    let text = code
        .as_str()
        .and_then(|c| c.parse().ok())
        .map_or_else(|| "-".to_string(), moves::card);
    html! { span.card { (text) } }
}

fn cards(list: &Value) -> Markup {
    html! { @for c in list.as_array().into_iter().flatten() { (card(c)) " " } }
}

/// The seat's own view as a table, from the last request's observation (without JavaScript;
/// `viewer.js` draws the same view as the replay viewer does).
fn position(o: &Value) -> Markup {
    let seat = o["seat"].as_u64().unwrap_or(0) as usize;
    html! {
        table #position {
            tbody {
                tr { th { "trump" } td { (card(&o["trump_card"])) " · stock " (o["stock"]) } }
                tr { th { "cards held" } td { @for (s, n) in o["hand_counts"].as_array().into_iter().flatten().enumerate() {
                    @if s == seat { "you " (n) } @else { " · the bot " (n) } } } }
                tr { th { "table" } td #table { @for p in o["table"].as_array().into_iter().flatten() {
                    (card(&p["attack"])) @if !p["defence"].is_null() { " beaten by " (card(&p["defence"])) } " · " } } }
                tr { th { "known in the bot's hand" } td { @for (s, k) in o["known"].as_array().into_iter().flatten().enumerate() {
                    @if s != seat { (cards(k)) } } } }
                tr { th { "discarded" } td { (cards(&o["discard"])) } }
                tr { th { "your hand" } td #hand { (cards(&o["hand"])) } }
            }
        }
    }
}

/// A game of Play my bot for its player (`GET /api/play/ID`, and the page's `#play-data`):
/// only what the person's seat was sent.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PlayState {
    pub id: u64,
    /// The bot played against, and its version.
    pub bot: String,
    pub version: i64,
    /// The person's seat.
    pub seat: usize,
    pub variant: &'static str,
    /// Who sits at each seat: `you` and `BOT vN`.
    pub names: Vec<String>,
    pub state: PlayPhase,
    /// The last request's observation (the person's seat's own view, as the protocol sends
    /// it: schemas/request.json), none before the first.
    #[schema(value_type = Option<Object>)]
    pub observation: Option<Value>,
    /// The open decision (`attack`, `defend`, ...), when it is the person's move.
    pub decision: Option<&'static str>,
    /// The legal moves in words, in the order `{"choice": N}` numbers them (from 1).
    pub choices: Vec<String>,
    /// The last refusal of a move, with its rule id.
    pub refusal: Option<String>,
    /// The events the seat was sent, in words, oldest first.
    pub log: Vec<String>,
    /// The game's end in words, once over.
    pub result: Option<String>,
    /// Whether its replay verified, once over.
    pub verified: Option<bool>,
    /// The replay's address, once written.
    pub replay: Option<String>,
}

/// Where a game of Play my bot stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayPhase {
    /// The person's decision is open.
    YourMove,
    /// The bot decides (the page reloads until it has).
    BotDeciding,
    /// The game is over: `result` says how.
    Over,
}

fn state_json(g: &PlayGame) -> PlayState {
    let seen = g.seen.lock().unwrap().clone();
    let state = match (&seen.end, &seen.open) {
        (Some(_), _) => PlayPhase::Over,
        (None, Some(_)) => PlayPhase::YourMove,
        (None, None) => PlayPhase::BotDeciding,
    };
    let (verb, choices) = match &seen.open {
        Some((_, legal)) => (
            Some(moves::verb(legal)),
            moves::choices(legal)
                .into_iter()
                .map(|(text, _)| text)
                .collect(),
        ),
        None => (None, Vec::new()),
    };
    let mut names = vec![format!("{} v{}", g.bot, g.version); 2];
    names[g.seat.min(1)] = "you".into();
    PlayState {
        id: g.id,
        bot: g.bot.clone(),
        version: g.version,
        seat: g.seat,
        variant: g.variant.name(),
        names,
        state,
        observation: seen.observation,
        decision: verb,
        choices,
        refusal: seen.refusal,
        log: seen.log,
        result: seen.end,
        verified: seen.verified.as_ref().map(|v| v.is_ok()),
        replay: seen
            .replay
            .as_ref()
            .map(|_| format!("/play/{}/replay", g.id)),
    }
}

/// `GET /api/play/ID`: the game's state, for its player.
pub(super) async fn api_state(
    State(s): State<AppState>,
    Author(a): Author,
    Path(id): Path<u64>,
) -> Result<Json<PlayState>, ApiError> {
    let g = blocking(move || api_mine(&s, a.id, id)).await?;
    Ok(Json(state_json(&g)))
}

fn api_mine(s: &AppState, account: i64, id: u64) -> Result<Arc<PlayGame>, ApiError> {
    match s.plays.get(id) {
        Some(g) if g.account == account => Ok(g),
        Some(_) => Err(ApiError::new(403, "this game is another author's")),
        None => Err(ApiError::not_found(format!("no game {id}"))),
    }
}

/// `POST /api/play/ID/move`: `{"choice": N}` (1-based) or `{"move": "7C>KC"}`; a refusal
/// names its rule (422) and leaves the decision open.
pub(super) async fn api_move(
    State(s): State<AppState>,
    Author(a): Author,
    Path(id): Path<u64>,
    JsonBody(f): JsonBody<MoveForm>,
) -> Result<Json<PlayState>, ApiError> {
    let g = blocking(move || api_mine(&s, a.id, id)).await?;
    let posted = match (&f.choice, &f.typed) {
        (Some(n), _) => Posted::Choice(*n),
        (None, Some(t)) => Posted::Typed(t),
        (None, None) => return Err(ApiError::new(400, "a move: choice=N or move=CARDS")),
    };
    g.answer(posted)
        .map_err(|r| ApiError::new(r.status, r.message))?;
    Ok(Json(state_json(&g)))
}

async fn show(State(s): State<AppState>, v: Visitor, Path(id): Path<u64>) -> Response {
    let g = match mine(&s, &v, id) {
        Ok(g) => g,
        Err((status, why)) => return error_page(status, &v, &why),
    };
    let data = state_json(&g);
    let seen = g.seen.lock().unwrap().clone();
    let choices = seen
        .open
        .as_ref()
        .map(|(_, legal)| (moves::verb(legal), moves::choices(legal)));
    let body = html! {
        @if seen.end.is_none() && seen.open.is_none() {
            meta http-equiv="refresh" content="1";
        }
        p { "Unrated: this game is not part of the ladder. " (g.variant.name()) ", you play seat "
            (g.seat) @if g.seat == 0 { " (you attack first)" } @else { " (the bot attacks first)" }
            "; each decision has " (clock(s.ladder.cfg.play_move_ms))
            ", then the game ends as your timeout." }
        main #viewer.play aria-live="polite" {
            noscript { @if let Some(o) = &seen.observation { (position(o)) } }
        }
        script type="application/json" #play-data { (script_json(&data)) }
        @if let Some(r) = &seen.refusal { p.error #refusal { "Refused: " (r) } }
        @if let Some((verb, list)) = &choices {
            h2 { "Your move: " (verb) }
            div #choices {
                @for (i, (text, _)) in list.iter().enumerate() {
                    form.choice method="post" action=(format!("/play/{id}/move")) {
                        (csrf_field(&v))
                        input type="hidden" name="choice" value=(i + 1);
                        button type="submit" { (text) }
                    }
                }
            }
            form #typed method="post" action=(format!("/play/{id}/move")) {
                (csrf_field(&v))
                label { "Or type a move: " input type="text" name="move"; }
                button type="submit" { "Play it" }
            }
            pre.help { (WEB_HELP) }
        } @else if seen.end.is_none() {
            p #waiting { "The bot is deciding…" }
        }
        @if let Some(end) = &seen.end {
            h2 { "The end" }
            p #result { (end) }
            @match &seen.verified {
                Some(Ok(())) => p #verified { "The replay verifies: every move checked again by the rules engine." },
                Some(Err(e)) => p.error #verified { "The replay does not verify: " (e) },
                None => {},
            }
            @if seen.replay.is_some() {
                p { a #view href=(format!("/play/{id}/view")) { "The game in the replay viewer" }
                    " · " a #replay href=(format!("/play/{id}/replay")) { "the replay" }
                    " (a file for " code { "durak replay" } ")" }
            }
        }
        h2 { "What happened" }
        ol #log { @for l in &seen.log { li { (l) } } }
    };
    let meta =
        html! { "You against " a href=(format!("/bots/{}", g.bot)) { (g.bot) } " v" (g.version) };
    page_styled(
        &format!("Game {id} against {}", g.bot),
        Some(meta),
        &v,
        &[VIEWER_CSS],
        &[VIEWER_JS],
        body,
    )
    .into_response()
}
