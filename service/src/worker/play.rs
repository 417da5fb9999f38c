//! A claimed job as the worker reads it, and its games played with the referee (also used by
//! the tests, which play a job's games to forge them).

use super::stopping;
pub use crate::http::worker_api::{Claimed, WorkerVersion};
use crate::ladder::executor::replay_bytes;
use crate::ladder::verify::PostedResult;
use durak_referee::{
    play_match_with, BotCommand, GameRecord, MatchConfig, PlannedGame, ReplayLog, Sandbox, SeatSpec,
};
use durak_rules::{Seat, Variant};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

/// A game played, as posted.
#[derive(Clone, Debug, Serialize)]
pub struct Played {
    pub game: u32,
    pub result: PostedResult,
    /// The replay's JSON lines.
    pub replay: String,
}

/// Play `games` of a claimed job with the referee, one at a time, rotation by rotation:
/// `folders` holds the unpacked folder of each submitted version, `hidden` what no bot may see
/// in the strict sandbox (the cache). `on_game` gets each game as it ends; `false` stops (the
/// rest of the job is not played).
pub async fn play_games(
    c: &Claimed,
    folders: &HashMap<i64, PathBuf>,
    sandbox: Sandbox,
    hidden: Vec<PathBuf>,
    mut on_game: impl FnMut(Played) -> bool,
) -> Result<(), String> {
    let variant: Variant = c
        .variant
        .parse()
        .map_err(|e| format!("the server's variant {:?}: {e}", c.variant))?;
    let job = &c.job;
    let k = job.seats.len();
    let d = job.deals.len();
    let scratch = std::env::temp_dir().join("durak-worker-unused-replays");
    let mut stopped = false;
    for r in 0..k {
        if stopped {
            break;
        }
        let plan: Vec<PlannedGame> = c
            .games
            .iter()
            .filter(|&&g| g as usize / d == r)
            .map(|&g| job.planned(g as usize % d))
            .collect();
        if plan.is_empty() {
            continue;
        }
        let mut seats = Vec::new();
        for v in job.seating(r) {
            let ver = c
                .versions
                .iter()
                .find(|x| x.id == v)
                .ok_or_else(|| format!("the job's version {v} is not in the claim"))?;
            let mut command = BotCommand::parse(&ver.command)?;
            if !ver.house {
                let folder = folders
                    .get(&v)
                    .ok_or_else(|| format!("version {v}'s folder was not fetched"))?;
                command.cwd = Some(folder.clone());
                command.isolation.sandbox = sandbox;
                command.isolation.limits = c.resources;
            }
            seats.push(SeatSpec {
                name: v.to_string(),
                command,
                limits: c.limits,
            });
        }
        let mut m = MatchConfig::new(variant, seats, d as u32, job.deals[0].seed ^ r as u64);
        m.plan = Some(plan);
        m.max_moves = c.max_moves;
        // The logs are taken as games end: nothing is written there.
        m.replay_dir = Some(scratch.clone());
        m.replay_prefix = format!("j{}-r{r}-g", job.id);
        m.hidden = hidden.clone();
        let all: Vec<Seat> = (0..k).collect();
        let on_end = |rec: &GameRecord, log: &mut Option<ReplayLog>| -> Vec<Seat> {
            // A signal came: what ends now may have been cut short by it, and is not posted.
            if stopped || stopping() {
                stopped = true;
                return all.clone();
            }
            let Some(log) = log.take() else {
                return Vec::new();
            };
            let replay = String::from_utf8(replay_bytes(&log)).unwrap_or_default();
            let played = Played {
                game: (r * d) as u32 + rec.game,
                result: PostedResult {
                    loser: rec.loser,
                    draw: rec.draw,
                    moves: rec.moves,
                },
                replay,
            };
            if !on_game(played) {
                stopped = true;
                return all.clone();
            }
            Vec::new()
        };
        play_match_with(&m, on_end, |_| {})
            .await
            .map_err(|e| format!("job {} rotation {r}: {e}", job.id))?;
    }
    Ok(())
}
