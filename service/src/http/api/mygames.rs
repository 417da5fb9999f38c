//! Every game of a version (issue 25): `GET /api/bots/BOT/versions/N/games`, filtered by
//! opponent (a bot's name), result (`won`, `lost`, `draw`: at a table of more, `won` is "not
//! the durak"; `void`: given up after 3 voided attempts, counted for nobody) and fault (`fault=1`: the games in which this version faulted), paged
//! (`page` from 0, `per_page` up to 200), newest first; with the head to head per opponent over
//! all its games (games, wins, draws, losses, score, and at two seats the Elo above that
//! opponent with its 95 % interval paired by deal, `compare::heads_up`).

use super::*;
use crate::views::version::HeadToHead;

#[derive(Deserialize, Default)]
pub struct GamesQuery {
    pub opponent: Option<String>,
    pub result: Option<String>,
    pub fault: Option<u8>,
    pub page: Option<usize>,
    pub per_page: Option<usize>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct GamesPage {
    pub games: Vec<GameSummary>,
    /// Games matching the filters, and pages of them.
    pub total: u64,
    pub page: usize,
    pub per_page: usize,
    pub pages: usize,
    pub head_to_head: Vec<HeadToHead>,
}

/// One page of a version's games: filtered and paged in SQL (`store::version_games`), the head
/// to head from the version's cached view.
pub fn games_page(
    s: &AppState,
    bot: &str,
    n: i64,
    q: &GamesQuery,
) -> Result<Option<GamesPage>, ApiError> {
    if let Some(r) = &q.result {
        if !matches!(r.as_str(), "won" | "lost" | "draw" | "void") {
            return Err(ApiError::new(
                400,
                format!(
                    "result = {r:?}: not a result\n  fix: result=won, result=lost, result=draw \
                     or result=void"
                ),
            ));
        }
    }
    let per_page = q.per_page.unwrap_or(50);
    if per_page == 0 || per_page > 200 {
        return Err(ApiError::new(
            400,
            format!("per_page = {per_page}: 1 to 200 games a page\n  fix: per_page=50"),
        ));
    }
    let Some(view) = s.cache.version(s, bot, n).map_err(ApiError::internal)? else {
        return Ok(None);
    };
    let page = q.page.unwrap_or(0);
    let filter = store::GamesFilter {
        opponent: q.opponent.as_deref(),
        result: q.result.as_deref(),
        fault: q.fault.unwrap_or(0) != 0,
    };
    let offset = page
        .checked_mul(per_page)
        .ok_or_else(|| ApiError::new(400, format!("page = {page}: too far\n  fix: page=0")))?;
    let (rows, total) =
        store::version_games(&s.ladder.db, view.version.id, &filter, per_page, offset)
            .map_err(ApiError::internal)?;
    let names = seat_labels(&s.ladder, rows.iter().map(|(g, _)| g)).map_err(ApiError::internal)?;
    Ok(Some(GamesPage {
        games: rows
            .iter()
            .map(|(g, seat)| summary(&names, g, *seat))
            .collect(),
        total,
        page,
        per_page,
        pages: (total as usize).div_ceil(per_page),
        head_to_head: view.head_to_head.clone(),
    }))
}

pub(super) async fn games(
    State(s): State<AppState>,
    Path((bot, n)): Path<(String, i64)>,
    axum::extract::Query(q): axum::extract::Query<GamesQuery>,
) -> Result<Json<GamesPage>, ApiError> {
    blocking(move || {
        games_page(&s, &bot, n, &q)?
            .map(Json)
            .ok_or_else(|| ApiError::not_found(format!("bot {bot:?} has no version {n}")))
    })
    .await
}

/// `GET /api/games/JOB/GAME/seats/SEAT/raw`: what the bot at `seat` read, sent and wrote on
/// stderr in that game (`durak_replay::raw`, as `durak replay --seat S --raw` prints it), for
/// its author and the organiser only (it holds the bot's stderr); the `X-Durak-Rerun` header
/// gives the command that re-runs one of its decisions from the game's replay.
pub(super) async fn raw(
    State(s): State<AppState>,
    MaybeAuthor(who): MaybeAuthor,
    Path((job, g, seat)): Path<(i64, u32, usize)>,
) -> Result<Response, ApiError> {
    let text = blocking(move || {
        let row = store::game(&s.ladder.db, job, g)?
            .ok_or_else(|| ApiError::not_found(format!("no game {g} in job {job}")))?;
        if seat >= row.seats.len() {
            return Err(ApiError::not_found(format!(
                "game {g} of job {job} has seats 0 to {}",
                row.seats.len() - 1
            )));
        }
        let visible = private::visible_seats(&s.ladder.db, &row, who.as_ref())?;
        if !visible[seat] {
            return Err(ApiError::new(
                403,
                format!(
                    "seat {seat}'s lines hold its bot's stderr: its author and the organiser \
                     only\n  fix: ask with the token of the bot's author"
                ),
            ));
        }
        let bytes = crate::store::replays::of_row(&s.ladder.db, &s.ladder.paths.root, &row)
            .map_err(|e| ApiError::internal(format!("{}: {e}", row.replay)))?;
        let replay = durak_replay::parse_replay(&bytes, &row.replay)
            .map_err(|e| ApiError::internal(format!("{}: {e}", row.replay)))?;
        let sim = durak_replay::simulate(&replay);
        let lines = durak_replay::raw::transcript(&sim, seat).map_err(ApiError::internal)?;
        Ok(durak_replay::raw::to_text(&lines))
    })
    .await?;
    let rerun = format!(
        "curl -H \"Authorization: Bearer $TOKEN\" -o g{job}-{g}.jsonl SERVER/api/games/{job}/{g}/replay \
         && durak rerun g{job}-{g}.jsonl --step N \"YOUR BOT COMMAND\""
    );
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (header::CACHE_CONTROL, "private, no-cache".to_string()),
            (header::HeaderName::from_static("x-durak-rerun"), rerun),
        ],
        text,
    )
        .into_response())
}
