//! The JSON API (`/api/...`): one handler per route, each the counterpart of a page. Here the
//! routes and what anyone may read (status, leaderboard, bots, versions, games);
//! `accounts.rs` what an author does (account, tokens, uploads), `organiser.rs` what the
//! organiser does (the ladder, versions out, fixed tournaments).

mod accounts;
pub mod challenges;
pub mod mygames;
mod organiser;

pub use accounts::{accept_upload, me_view, receive, register_account, too_large, MeView};
use accounts::{invite, me, new_token, register, revoke_token, submit};
pub use accounts::{Invite, NewAccount, NewToken, RegisterBody, Submitted, TokenBody};
use organiser::{
    cancel_tournament, disqualify, pause, remove, resume, start_tournament, tournament, tournaments,
};
pub use organiser::{set_out, ReasonBody, TournamentBody};

use super::{blocking, private, ApiError, AppState, Author, JsonBody, MaybeAuthor, Organiser};
use crate::auth;
use crate::domain::{JobState, VersionState};
use crate::ladder::board::Leaderboard;
use crate::store::{self, GameRow, Version};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post, MethodRouter};
use axum::Json;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

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
    r.extend(super::seasons::api_routes());
    r
}

async fn openapi() -> Json<Value> {
    Json(super::openapi::document())
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Status {
    pub service: &'static str,
    pub version: &'static str,
    pub variant: String,
    pub table_size: usize,
    pub deals_per_job: u32,
    pub sandbox: String,
    /// `open` or `invite`.
    #[schema(value_type = String)]
    pub registration: crate::config::Registration,
    pub paused: bool,
    pub games: u64,
    pub games_this_run: u64,
    pub active_versions: usize,
    pub queued_versions: usize,
    pub open_jobs: usize,
    /// The largest archive an upload may be, in bytes.
    pub max_archive: u64,
    /// The server's own tables play (else only workers do).
    pub local_play: bool,
    /// Jobs held by remote workers now.
    pub worker_jobs: usize,
    /// The recorder's group commits so far (this run), and the games in them.
    pub commits: u64,
    pub committed_games: u64,
}

pub fn status_of(s: &AppState) -> Result<Status, String> {
    let l = &s.ladder;
    let versions = store::versions(&l.db, &[])?;
    let open = crate::ladder::jobs::open_jobs(&l.db)?;
    Ok(Status {
        service: "durak serve",
        version: env!("CARGO_PKG_VERSION"),
        variant: l.cfg.ladder.variant.name().to_string(),
        table_size: l.cfg.ladder.table_size,
        deals_per_job: l.cfg.ladder.deals,
        sandbox: l.cfg.sandbox.name().to_string(),
        registration: l.cfg.registration,
        paused: l.is_paused(),
        games: store::game_count(&l.db)?,
        games_this_run: l.recorded.load(std::sync::atomic::Ordering::Relaxed),
        active_versions: versions
            .iter()
            .filter(|v| v.state == VersionState::Active)
            .count(),
        queued_versions: versions.iter().filter(|v| v.state.in_check()).count(),
        open_jobs: open.len(),
        max_archive: l.cfg.upload.max_archive,
        local_play: l.cfg.ladder.local_play,
        worker_jobs: open
            .iter()
            .filter(|j| {
                j.state == JobState::Claimed
                    && j.owner.as_deref().is_some_and(|o| o.starts_with("worker:"))
            })
            .count(),
        commits: l
            .recorder
            .stats
            .commits
            .load(std::sync::atomic::Ordering::Relaxed),
        committed_games: l
            .recorder
            .stats
            .games
            .load(std::sync::atomic::Ordering::Relaxed),
    })
}

async fn status(State(s): State<AppState>) -> Result<Json<Status>, ApiError> {
    blocking(move || status_of(&s).map_err(ApiError::internal))
        .await
        .map(Json)
}

/// `GET /api/leaderboard`: the leaderboard, whether the ladder is paused and the time limits
/// in force.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LeaderboardOut {
    #[serde(flatten)]
    pub board: Leaderboard,
    pub paused: bool,
    pub limits: LimitsInForce,
}

/// The time limits in force, and since when (a restart that changed them applies them in
/// full: docs/SERVICE.md, "Restarts").
#[derive(Serialize, utoipa::ToSchema)]
pub struct LimitsInForce {
    pub move_ms: u64,
    pub bank_ms: u64,
    pub startup_ms: u64,
    pub max_line_bytes: usize,
    /// When these limits came into force (unix ms).
    pub since: i64,
}

/// The leaderboard's JSON (`board` given: the one to show; else the current one), with whether
/// the ladder is paused.
pub fn leaderboard_json(s: &AppState, board: Option<Arc<Leaderboard>>) -> Value {
    let lb: Arc<Leaderboard> = board.unwrap_or_else(|| s.ladder.board.current());
    let l = &s.ladder.cfg.ladder.limits;
    let out = LeaderboardOut {
        board: (*lb).clone(),
        paused: s.ladder.is_paused(),
        limits: LimitsInForce {
            move_ms: l.move_ms,
            bank_ms: l.bank_ms,
            startup_ms: l.startup_ms,
            max_line_bytes: l.max_line_bytes,
            since: s.ladder.limits_since,
        },
    };
    serde_json::to_value(out).expect("json")
}

async fn leaderboard(State(s): State<AppState>) -> Response {
    Json(leaderboard_json(&s, None)).into_response()
}

/// A bot and its versions.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BotView {
    pub bot: String,
    pub author: String,
    pub house: bool,
    pub versions: Vec<VersionSummary>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct VersionSummary {
    #[serde(flatten)]
    pub version: Version,
    pub games: u64,
    /// Its row on the leaderboard, when it is in the ladder.
    pub standing: Option<crate::ladder::board::Row>,
}

pub fn bot_view(s: &AppState, name: &str) -> Result<Option<BotView>, String> {
    let vs = store::versions_of_bot(&s.ladder.db, name)?;
    let Some(first) = vs.first() else {
        return Ok(None);
    };
    let lb = s.ladder.board.current();
    let mut versions = Vec::new();
    for v in &vs {
        let (_, games) = store::games_of_version(&s.ladder.db, v.id, 0)?;
        versions.push(VersionSummary {
            standing: lb.rows.iter().find(|r| r.version_id == v.id).cloned(),
            version: v.clone(),
            games,
        });
    }
    Ok(Some(BotView {
        bot: first.bot.clone(),
        author: first.author.clone(),
        house: first.house,
        versions,
    }))
}

async fn bot(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<BotView>, ApiError> {
    blocking(move || {
        bot_view(&s, &name)?
            .map(Json)
            .ok_or_else(|| ApiError::not_found(format!("no bot named {name:?}")))
    })
    .await
}

/// A version: its reports, its latest games and faults (what the pages' cache keeps: its
/// standing on the leaderboard is added when it is served, [`VersionOut`]).
#[derive(Serialize, utoipa::ToSchema)]
pub struct VersionView {
    #[serde(flatten)]
    pub version: Version,
    /// The build's output (absent without a `build` command).
    #[schema(value_type = Option<Object>)]
    pub build: Option<Value>,
    /// check-bot's report (JSON).
    #[schema(value_type = Option<Object>)]
    pub report: Option<Value>,
    /// check-bot's report as text.
    pub report_text: Option<String>,
    pub games: u64,
    pub latest_games: Vec<GameSummary>,
    /// Its latest faulted games.
    pub faults: Vec<GameSummary>,
    /// Per kind of decision, from check-bot (median, p95, max ms).
    #[schema(value_type = Vec<Object>)]
    pub timing: Value,
    /// Its comparison with the bot's previous version (`ladder/compare.rs`), if it has one.
    pub previous: Option<crate::ladder::compare::Comparison>,
    /// Per kind of decision, from the replays of its newest games (`ladder_timing_games` of
    /// them, at most `mygames::TIMING_GAMES`): median, p95, max ms.
    pub ladder_timing: Vec<mygames::DecisionTime>,
    pub ladder_timing_games: u64,
    /// Its endgame accuracy over its games analysed so far (issue 26, `crate::analysis`).
    pub endgame: crate::analysis::VersionAccuracy,
    /// Its head to head per opponent over all its games (served with its games list,
    /// `mygames::games_page`, not in this JSON).
    #[serde(skip)]
    #[schema(ignore)]
    pub head_to_head: Vec<mygames::HeadToHead>,
}

/// A version as served: its view and its row on the leaderboard now.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VersionOut<'a> {
    #[serde(flatten)]
    #[schema(value_type = VersionView)]
    pub view: &'a VersionView,
    pub standing: Option<crate::ladder::board::Row>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct GameSummary {
    pub job: i64,
    pub game: u32,
    pub seat: usize,
    /// Labels (`bot vN`) by seat.
    pub seats: Vec<String>,
    pub result: String,
    /// The protocol's faults (`schemas/replay.json`), a bot's stderr left out.
    #[schema(value_type = Vec<Object>)]
    pub faults: Vec<durak_protocol::Fault>,
    pub moves: u32,
    pub recorded: i64,
    pub url: String,
}

/// The labels of the seats of `games`, read in one query.
pub fn seat_labels<'a>(
    s: &AppState,
    games: impl IntoIterator<Item = &'a GameRow>,
) -> Result<HashMap<i64, String>, crate::db::DbError> {
    let ids: Vec<i64> = games
        .into_iter()
        .flat_map(|g| g.seats.iter().copied())
        .collect();
    store::labels(&s.ladder.db, &ids)
}

pub fn labels(names: &HashMap<i64, String>, ids: &[i64]) -> Vec<String> {
    ids.iter()
        .map(|id| {
            names
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("version {id}"))
        })
        .collect()
}

pub fn summary(names: &HashMap<i64, String>, g: &GameRow, seat: usize) -> GameSummary {
    let seats = labels(names, &g.seats);
    let result = match g.loser {
        _ if g.void => "void (counted for nobody)".to_string(),
        Some(l) if l == seat => "lost (durak)".to_string(),
        Some(l) => format!(
            "{} was the durak",
            seats.get(l).cloned().unwrap_or_default()
        ),
        None => "draw".to_string(),
    };
    GameSummary {
        job: g.job,
        game: g.game,
        seat,
        seats,
        result,
        faults: g
            .faults
            .iter()
            .map(|f| durak_protocol::Fault {
                detail: private::public_detail(&f.detail),
                ..f.clone()
            })
            .collect(),
        moves: g.moves,
        recorded: g.recorded,
        url: format!("/games/{}/{}", g.job, g.game),
    }
}

/// A version's view from the database (the pages' cache calls it: `super::cache`).
pub fn version_view(s: &AppState, bot: &str, n: i64) -> Result<Option<VersionView>, String> {
    let Some(v) = store::versions_of_bot(&s.ladder.db, bot)?
        .into_iter()
        .find(|v| v.n == n)
    else {
        return Ok(None);
    };
    let (build, report) = store::reports(&s.ladder.db, v.id)?;
    let report: Option<Value> = report.and_then(|r| serde_json::from_str(&r).ok());
    let report_text = report
        .as_ref()
        .and_then(|r| r["text"].as_str().map(str::to_string));
    let (latest, games) = store::games_of_version(&s.ladder.db, v.id, 30)?;
    let faulted = store::faults_of_version(&s.ladder.db, v.id, 20)?;
    let names = seat_labels(s, latest.iter().chain(faulted.iter().map(|(g, _)| g)))?;
    let seat_of = |g: &GameRow| g.seats.iter().position(|&x| x == v.id).unwrap_or(0);
    let latest_games = latest
        .iter()
        .map(|g| summary(&names, g, seat_of(g)))
        .collect();
    let faults = faulted
        .iter()
        .map(|(g, seat)| summary(&names, g, *seat))
        .collect();
    let timing = report
        .as_ref()
        .and_then(|r| r.get("timing").cloned())
        .unwrap_or(json!([]));
    let previous = crate::ladder::compare::view(&s.ladder.db, &s.ladder.cfg.compare, v.id)?;
    let (newest, _) = store::games_of_version(&s.ladder.db, v.id, mygames::TIMING_GAMES)?;
    let newest: Vec<(&GameRow, usize)> = newest.iter().map(|g| (g, seat_of(g))).collect();
    let endgame = crate::analysis::of_version(&s.ladder.db, v.id)?;
    Ok(Some(VersionView {
        head_to_head: mygames::head_to_head(s, v.id)?,
        ladder_timing: mygames::timing(s, &newest),
        ladder_timing_games: newest.len() as u64,
        previous,
        endgame,
        version: v,
        build: build.and_then(|b| serde_json::from_str(&b).ok()),
        report,
        report_text,
        games,
        latest_games,
        faults,
        timing,
    }))
}

/// A version's row on the leaderboard now.
pub fn standing_of(s: &AppState, version: i64) -> Option<crate::ladder::board::Row> {
    s.ladder
        .board
        .current()
        .rows
        .iter()
        .find(|r| r.version_id == version)
        .cloned()
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
        standing: standing_of(&s, view.version.id),
        view: &view,
    };
    Ok(Json(out).into_response())
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct GameView {
    #[serde(flatten)]
    pub game: GameRow,
    pub labels: Vec<String>,
    pub replay_url: String,
    /// The seats whose stderr the reader may not see (left out of the replay served to them).
    pub stderr_hidden: Vec<usize>,
    /// Said when some are: whose log it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_note: Option<&'static str>,
}

/// A game as `who` may read it: the faults' details without a bot's stderr, and which seats'
/// logs are left out for them (`super::private`).
pub fn game_view(
    s: &AppState,
    job: i64,
    game: u32,
    who: Option<&auth::Account>,
) -> Result<Option<GameView>, String> {
    let Some(g) = store::game(&s.ladder.db, job, game)? else {
        return Ok(None);
    };
    let names = seat_labels(s, [&g])?;
    let hidden = private::hidden(&private::visible_seats(&s.ladder.db, &g, who)?);
    Ok(Some(GameView {
        labels: labels(&names, &g.seats),
        replay_url: format!("/api/games/{job}/{game}/replay"),
        stderr_note: (!hidden.is_empty()).then_some(private::NOTE),
        stderr_hidden: hidden,
        game: private::public_row(g),
    }))
}

async fn game(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path((job, g)): Path<(i64, u32)>,
) -> Result<Json<GameView>, ApiError> {
    blocking(move || {
        game_view(&s, job, g, who.as_ref())?
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
        let text = durak_referee::replay::read_replay_bytes(&s.ladder.paths.root.join(&row.replay))
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
