//! What the organiser does through the API: pause and resume the ladder, take versions out,
//! start and read fixed tournaments.

use super::*;
use crate::domain::TournamentState;
use crate::tournament::{TournamentListed, TournamentView};

/// The ladder paused or resumed: whether it is paused now.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Paused {
    pub paused: bool,
}

pub(super) async fn pause(
    State(s): State<AppState>,
    Organiser(_): Organiser,
) -> Result<Json<Paused>, ApiError> {
    blocking(move || s.ladder.set_paused(true).map_err(ApiError::internal)).await?;
    Ok(Json(Paused { paused: true }))
}

pub(super) async fn resume(
    State(s): State<AppState>,
    Organiser(_): Organiser,
) -> Result<Json<Paused>, ApiError> {
    blocking(move || s.ladder.set_paused(false).map_err(ApiError::internal)).await?;
    Ok(Json(Paused { paused: false }))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
pub struct ReasonBody {
    #[serde(default)]
    pub reason: Option<String>,
}

/// Take a version out of the ladder by the organiser's hand.
pub fn set_out(
    s: &AppState,
    bot: &str,
    n: i64,
    state: VersionState,
    reason: &str,
) -> Result<Version, ApiError> {
    let v = store::versions_of_bot(&s.ladder.db, bot)?
        .into_iter()
        .find(|v| v.n == n)
        .ok_or_else(|| ApiError::not_found(format!("bot {bot:?} has no version {n}")))?;
    crate::domain::versions::take_out(&s.ladder.db, v.id, state, reason)?;
    s.ladder.version_left(v.id)?;
    s.cache.forget(bot, n);
    Ok(store::version(&s.ladder.db, v.id)?.unwrap_or(v))
}

pub(super) async fn disqualify(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    Path((bot, n)): Path<(String, i64)>,
    body: Option<JsonBody<ReasonBody>>,
) -> Result<Json<Version>, ApiError> {
    let reason = body
        .and_then(|b| b.0.reason)
        .unwrap_or_else(|| "disqualified by the organiser".into());
    blocking(move || set_out(&s, &bot, n, VersionState::Disqualified, &reason))
        .await
        .map(Json)
}

pub(super) async fn remove(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    Path((bot, n)): Path<(String, i64)>,
) -> Result<Json<Version>, ApiError> {
    blocking(move || {
        set_out(
            &s,
            &bot,
            n,
            VersionState::Removed,
            "removed by the organiser",
        )
    })
    .await
    .map(Json)
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
pub struct TournamentBody {
    /// Deals per table (default 10).
    #[serde(default)]
    pub games: Option<u32>,
}

/// A tournament started: its id, its state (`running`, or `queued` behind the one running)
/// and its addresses.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentStarted {
    pub id: i64,
    pub state: TournamentState,
    /// Its page.
    pub url: String,
    /// Its JSON (`GET /api/tournaments/{id}`).
    pub api: String,
}

pub(super) async fn start_tournament(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    body: Option<JsonBody<TournamentBody>>,
) -> Result<(StatusCode, Json<TournamentStarted>), ApiError> {
    let games = body.and_then(|b| b.0.games).unwrap_or(10);
    let (id, state) = blocking(move || s.tournaments.start(games).map_err(ApiError::from)).await?;
    Ok((
        StatusCode::CREATED,
        Json(TournamentStarted {
            id,
            state,
            url: format!("/tournaments/{id}"),
            api: format!("/api/tournaments/{id}"),
        }),
    ))
}

/// A tournament cancelled.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentCancelled {
    pub id: i64,
    /// Always `true` (a refusal is an error).
    pub cancelled: bool,
}

/// Cancel a fixed tournament: a queued one at once, the running one at its tables' next
/// games (its games so far are kept).
pub(super) async fn cancel_tournament(
    State(s): State<AppState>,
    Organiser(_): Organiser,
    Path(id): Path<i64>,
) -> Result<Json<TournamentCancelled>, ApiError> {
    use crate::tournament::Cancelled;
    blocking(move || match s.tournaments.cancel(id)? {
        Cancelled::Yes => Ok(Json(TournamentCancelled {
            id,
            cancelled: true,
        })),
        Cancelled::Unknown => Err(ApiError::not_found(format!("no tournament {id}"))),
        Cancelled::Over(state) => Err(ApiError::new(
            409,
            format!("tournament {id} is over ({state}): only a queued or running one is cancelled"),
        )),
    })
    .await
}

pub(super) async fn tournament(
    State(s): State<AppState>,
    Path(id): Path<i64>,
) -> Result<Json<TournamentView>, ApiError> {
    blocking(move || {
        s.tournaments
            .view(&s.ladder, id)?
            .map(Json)
            .ok_or_else(|| ApiError::not_found(format!("no tournament {id}")))
    })
    .await
}

/// `GET /api/tournaments`: every tournament, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentList {
    pub tournaments: Vec<TournamentListed>,
}

pub(super) async fn tournaments(
    State(s): State<AppState>,
) -> Result<Json<TournamentList>, ApiError> {
    blocking(move || {
        let tournaments = s.tournaments.list(&s.ladder)?;
        Ok(Json(TournamentList { tournaments }))
    })
    .await
}
