//! Every game of a version (issue 25): `GET /api/bots/BOT/versions/N/games`, filtered by
//! opponent (a bot's name), result (`won`, `lost`, `draw`: at a table of more, `won` is "not
//! the durak"; `void`: given up after 3 voided attempts, counted for nobody) and fault (`fault=1`: the games in which this version faulted), paged
//! (`page` from 0, `per_page` up to 200), newest first; with the head to head per opponent over
//! all its games (games, wins, draws, losses, score, and at two seats the Elo above that
//! opponent with its 95 % interval paired by deal, `compare::heads_up`).

use super::*;

#[derive(Deserialize, Default)]
pub struct GamesQuery {
    pub opponent: Option<String>,
    pub result: Option<String>,
    pub fault: Option<u8>,
    pub page: Option<usize>,
    pub per_page: Option<usize>,
}

#[derive(Serialize, Clone, Debug, PartialEq, utoipa::ToSchema)]
pub struct HeadToHead {
    /// The opponent's bot and version (`bot vN`).
    pub opponent: String,
    /// Games counted: the void ones are not (no win, draw or loss, not in the score or Elo).
    pub games: u64,
    pub void_games: u64,
    /// Whole deals (every seat rotation in) at two seats, which the Elo is paired over.
    pub deals: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub score: f64,
    pub elo: Option<f64>,
    pub elo_ci95: [Option<f64>; 2],
    /// Elo above that opponent as the games accumulate (two seats): `[games, elo]`, at most
    /// [`HISTORY_POINTS`] points (none while the score is 0 or 1: the Elo is infinite).
    #[schema(value_type = Vec<Vec<f64>>)]
    pub history: Vec<(u64, f64)>,
}

/// Points of a head to head's Elo history at most.
pub const HISTORY_POINTS: usize = 50;
/// The version's newest games whose replays give its time per decision.
pub const TIMING_GAMES: usize = 100;

/// The version's answer times for one kind of decision, from the replays of its newest
/// [`TIMING_GAMES`] games (forced moves are the referee's, not counted). Part of the version's
/// view (`api::version_view`), which the pages' cache keeps until games are recorded: reading
/// a hundred replays is not done for every request.
#[derive(Serialize, Clone, Debug, PartialEq, utoipa::ToSchema)]
pub struct DecisionTime {
    pub decision: String,
    pub answers: u64,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
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

/// A game's replay, simulated (`durak_replay::simulate`).
pub fn simulate_row(s: &AppState, row: &GameRow) -> Result<durak_replay::Simulation, String> {
    let bytes = durak_referee::replay::read_replay_bytes(&s.ladder.paths.root.join(&row.replay))
        .map_err(|e| format!("{}: {e}", row.replay))?;
    let replay = durak_replay::parse_replay(&bytes, &row.replay)
        .map_err(|e| format!("{}: {e}", row.replay))?;
    Ok(durak_replay::simulate(&replay))
}

/// Median, p95 (nearest rank) and max of the answer times at `seat` in `games`, per kind of
/// decision.
pub fn timing(s: &AppState, games: &[(&GameRow, usize)]) -> Vec<DecisionTime> {
    let mut by_kind: Vec<(&'static str, Vec<f64>)> = Vec::new();
    for (row, seat) in games {
        // A replay that cannot be read leaves its game out (its page says why).
        let Ok(sim) = simulate_row(s, row) else {
            continue;
        };
        for step in &sim.steps {
            let (Some(d), Some(ms)) = (step.decision, step.elapsed_ms) else {
                continue;
            };
            if d.seat != *seat || step.forced {
                continue;
            }
            let kind = d.kind.name();
            match by_kind.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, v)) => v.push(ms),
                None => by_kind.push((kind, vec![ms])),
            }
        }
    }
    by_kind.sort_by_key(|(k, _)| *k);
    by_kind
        .into_iter()
        .map(|(kind, mut ms)| {
            ms.sort_by(f64::total_cmp);
            let rank = |q: f64| ms[((q * ms.len() as f64).ceil() as usize).clamp(1, ms.len()) - 1];
            DecisionTime {
                decision: kind.to_string(),
                answers: ms.len() as u64,
                median_ms: rank(0.5),
                p95_ms: rank(0.95),
                max_ms: ms[ms.len() - 1],
            }
        })
        .collect()
}

/// What a game was for the version at `seat`.
fn result_of(g: &GameRow, seat: usize) -> &'static str {
    match g.loser {
        _ if g.void => "void",
        None => "draw",
        Some(l) if l == seat => "lost",
        Some(_) => "won",
    }
}

/// The head to head of version `v` against each opponent version, over all its games (part of
/// the version's view, which the pages' cache keeps until games are recorded:
/// `api::version_view`).
pub fn head_to_head(s: &AppState, v: i64) -> Result<Vec<HeadToHead>, String> {
    let (all, _) = store::games_of_version(&s.ladder.db, v, usize::MAX >> 1)?;
    let names = seat_labels(s, all.iter())?;
    let seat_of = |g: &GameRow| g.seats.iter().position(|&x| x == v).unwrap_or(0);
    let mut h2h: Vec<(i64, Vec<GameRow>)> = Vec::new();
    for g in &all {
        for &o in g.seats.iter().filter(|&&o| o != v) {
            match h2h.iter_mut().find(|(id, _)| *id == o) {
                Some((_, gs)) => gs.push(g.clone()),
                None => h2h.push((o, vec![g.clone()])),
            }
        }
    }
    let mut head_to_head: Vec<HeadToHead> = h2h
        .into_iter()
        .map(|(o, mut gs)| {
            let (mut w, mut d, mut l, mut void) = (0, 0, 0, 0);
            for g in &gs {
                match result_of(g, seat_of(g)) {
                    "won" => w += 1,
                    "draw" => d += 1,
                    "void" => void += 1,
                    _ => l += 1,
                }
            }
            gs.retain(|g| g.seats.len() == 2);
            gs.sort_by_key(|g| (g.job, g.game));
            let every = gs.len().div_ceil(HISTORY_POINTS);
            let mut history = Vec::new();
            let st = crate::ladder::compare::heads_up_every(
                s.ladder.cfg.compare.params,
                v,
                o,
                &gs,
                every,
                |st| {
                    if let Some(e) = st.elo {
                        history.push((st.games, e));
                    }
                },
            )
            .ok();
            let games = w + d + l;
            HeadToHead {
                opponent: names
                    .get(&o)
                    .cloned()
                    .unwrap_or_else(|| format!("version {o}")),
                games,
                void_games: void,
                deals: st.as_ref().map_or(0, |st| st.deals),
                wins: w,
                draws: d,
                losses: l,
                score: (w as f64 + d as f64 / 2.0) / games.max(1) as f64,
                elo: st.as_ref().and_then(|st| st.elo),
                elo_ci95: st.map_or([None, None], |st| st.elo_ci95),
                history,
            }
        })
        .collect();
    head_to_head.sort_by(|a, b| b.games.cmp(&a.games).then(a.opponent.cmp(&b.opponent)));
    Ok(head_to_head)
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
    let names = seat_labels(s, rows.iter().map(|(g, _)| g)).map_err(ApiError::internal)?;
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
        let bytes =
            durak_referee::replay::read_replay_bytes(&s.ladder.paths.root.join(&row.replay))
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
