//! `POST /api/challenges` and `GET /api/challenges/ID` (`ladder/challenges.rs`).

use super::*;
use crate::ladder::challenges::{self, ChallengeView};

#[derive(Deserialize, utoipa::ToSchema)]
pub struct ChallengeBody {
    pub bot: String,
    pub opponent: String,
    pub deals: u32,
}

/// Make a challenge (the caller's bot against another), as the bot's page's form does.
pub fn make(s: &AppState, account: i64, b: &ChallengeBody) -> Result<i64, ApiError> {
    match challenges::create(&s.ladder, account, &b.bot, &b.opponent, b.deals)
        .map_err(ApiError::internal)?
    {
        Ok(id) => Ok(id),
        Err(r) => Err(ApiError::new(r.status, r.message).retry_after(r.retry_after)),
    }
}

/// A challenge made: its id and addresses.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ChallengeMade {
    pub id: i64,
    /// Its page.
    pub url: String,
    /// Its JSON (`GET /api/challenges/{id}`).
    pub api: String,
}

pub(super) async fn create(
    State(s): State<AppState>,
    Author(a): Author,
    JsonBody(b): JsonBody<ChallengeBody>,
) -> Result<(StatusCode, Json<ChallengeMade>), ApiError> {
    let id = blocking(move || make(&s, a.id, &b)).await?;
    Ok((
        StatusCode::CREATED,
        Json(ChallengeMade {
            id,
            url: format!("/challenges/{id}"),
            api: format!("/api/challenges/{id}"),
        }),
    ))
}

/// A challenge with its games.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ChallengeOut {
    #[serde(flatten)]
    pub view: ChallengeView,
    pub game_list: Vec<GameSummary>,
}

/// Challenge `id` as served (`None`: no such challenge).
pub fn challenge_out(
    s: &AppState,
    id: i64,
) -> Result<Option<ChallengeOut>, crate::ladder::compare::CompareError> {
    let Some((view, games)) = challenges::view(&s.ladder, id)? else {
        return Ok(None);
    };
    let names = seat_labels(&s.ladder, games.iter())?;
    let seat = |g: &GameRow| {
        g.seats
            .iter()
            .position(|&x| x == view.version_id)
            .unwrap_or(0)
    };
    let game_list = games.iter().map(|g| summary(&names, g, seat(g))).collect();
    Ok(Some(ChallengeOut { view, game_list }))
}

pub(super) async fn get_one(
    State(s): State<AppState>,
    Path(id): Path<i64>,
) -> Result<Json<ChallengeOut>, ApiError> {
    blocking(move || {
        challenge_out(&s, id)
            .map_err(ApiError::internal)?
            .map(Json)
            .ok_or_else(|| ApiError::not_found(format!("no challenge {id}")))
    })
    .await
}
