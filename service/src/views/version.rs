//! A version's figures from its games (issue 25): the head to head per opponent (with the
//! paired Elo as games accumulate) and its time per decision read from the replays. Part of
//! the version's view ([`super::version_view`]), which the pages' cache keeps.

use super::seat_labels;
use crate::ladder::Ladder;
use crate::store::{self, GameRow};
use serde::Serialize;

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
/// view ([`super::version_view`]), which the pages' cache keeps until games are recorded: reading
/// a hundred replays is not done for every request.
#[derive(Serialize, Clone, Debug, PartialEq, utoipa::ToSchema)]
pub struct DecisionTime {
    pub decision: String,
    pub answers: u64,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

/// A game's replay that could not be simulated: its file (named relative to the data
/// directory) unreadable or not a replay.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parse {
        path: String,
        source: durak_replay::ReplayError,
    },
}

/// A game's replay, simulated (`durak_replay::simulate`).
pub fn simulate_row(
    ladder: &Ladder,
    row: &GameRow,
) -> Result<durak_replay::Simulation, SimulateError> {
    let path = || row.replay.clone();
    let bytes =
        crate::store::replays::of_row(&ladder.db, &ladder.paths.root, row).map_err(|source| {
            SimulateError::Read {
                path: path(),
                source,
            }
        })?;
    let replay =
        durak_replay::parse_replay(&bytes, &row.replay).map_err(|source| SimulateError::Parse {
            path: path(),
            source,
        })?;
    Ok(durak_replay::simulate(&replay))
}

/// Median, p95 (nearest rank) and max of the answer times at `seat` in `games`, per kind of
/// decision.
pub fn timing(ladder: &Ladder, games: &[(&GameRow, usize)]) -> Vec<DecisionTime> {
    let mut by_kind: Vec<(&'static str, Vec<f64>)> = Vec::new();
    for (row, seat) in games {
        // A replay that cannot be read leaves its game out (its page says why).
        let Ok(sim) = simulate_row(ladder, row) else {
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
/// [`super::version_view`]).
pub fn head_to_head(ladder: &Ladder, v: i64) -> Result<Vec<HeadToHead>, crate::db::DbError> {
    let (all, _) = store::games_of_version(&ladder.db, v, usize::MAX >> 1)?;
    let names = seat_labels(ladder, all.iter())?;
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
                ladder.cfg.compare.params,
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
