//! A claimed job as the worker reads it, and its games played with the referee (also used by
//! the tests, which play a job's games to forge them).

use super::{stopping, JobError};
use crate::http::worker_api::encode_replay;
pub use crate::http::worker_api::{Claimed, ClaimedBatch, WorkerVersion};
use crate::ladder::verify::PostedResult;
use durak_referee::{
    BotCommand, GameRecord, MatchConfig, PlannedGame, ReplayLog, Sandbox, SeatSpec,
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
    /// The replay, compressed as a `.jsonl.zst` file holds it, in base64
    /// ([`crate::http::worker_api::encode_replay`]).
    pub replay_zst: String,
}

impl Played {
    /// The replay's JSON lines.
    pub fn text(&self) -> Result<String, JobError> {
        use base64::Engine;
        let replay = |e: &dyn std::fmt::Display| JobError::Replay(e.to_string());
        let packed = base64::engine::general_purpose::STANDARD
            .decode(&self.replay_zst)
            .map_err(|e| replay(&e))?;
        let text = durak_referee::replay::decode_replay_bytes(packed).map_err(|e| replay(&e))?;
        String::from_utf8(text).map_err(|e| replay(&e))
    }
}

/// Play the games of claimed jobs among the same versions with the referee, one at a time, in
/// one match: the table is seated as the first job's first rotation and every job's rotation is
/// played there with the dealer moved round the table (`Job::planned_at`: the same game), so
/// each bot's process is started once for all of them and keeps its seat. A job that cannot be
/// played at that seating (other versions, or not a rotation of it) is left out (the caller
/// forms batches that never hold one). `folders` holds the unpacked folder of each submitted
/// version, `hidden` what no bot may see in the strict sandbox (the cache). `on_game` gets each
/// game as it ends, with its job's index in `batch`; `false` stops (the rest is not played).
pub async fn play_games(
    batch: &[Claimed],
    folders: &HashMap<i64, PathBuf>,
    sandbox: Sandbox,
    hidden: Vec<PathBuf>,
    on_game: impl FnMut(usize, Played) -> bool,
) -> Result<(), JobError> {
    let cap: usize = batch.iter().map(|c| c.games.len()).sum();
    let first = batch.to_vec();
    let mut more = Some(first);
    play_batches(
        batch.first(),
        folders,
        sandbox,
        hidden,
        cap as u32,
        |_| more.take(),
        on_game,
    )
    .await
}

/// [`play_games`] over batches that come as the match goes: `more(left)` is asked for the next
/// batch when the games planned so far are played (first for the first), with room for `left`
/// more games of the match's `cap`; `None` ends the match. Jobs are numbered across batches in
/// the order they came, for `on_game`. `first` gives the match's seating, rules and commands:
/// every batch must be among its versions (`None`: nothing to play).
pub async fn play_batches(
    first: Option<&Claimed>,
    folders: &HashMap<i64, PathBuf>,
    sandbox: Sandbox,
    hidden: Vec<PathBuf>,
    cap: u32,
    mut more: impl FnMut(u32) -> Option<Vec<Claimed>>,
    mut on_game: impl FnMut(usize, Played) -> bool,
) -> Result<(), JobError> {
    let Some(c) = first else {
        return Ok(());
    };
    let variant: Variant =
        c.variant
            .parse()
            .map_err(|e: <Variant as std::str::FromStr>::Err| JobError::Variant {
                variant: c.variant.clone(),
                detail: e.to_string(),
            })?;
    let job = &c.job;
    let k = job.seats.len();
    let scratch = std::env::temp_dir().join("durak-worker-unused-replays");
    let seating = job.seating(0);
    let mut seats = Vec::new();
    for &v in &seating {
        let ver = c
            .versions
            .iter()
            .find(|x| x.id == v)
            .ok_or(JobError::NotInTheClaim(v))?;
        let mut command =
            BotCommand::parse(&ver.command).map_err(|e| JobError::Command(e.to_string()))?;
        if !ver.house {
            let folder = folders.get(&v).ok_or(JobError::NotFetched(v))?;
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
    // The match's games so far: planned and not started, and (job, game) of each planned game
    // not ended yet, in the plan's order (the games end in that order).
    struct Plan {
        planned: std::collections::VecDeque<PlannedGame>,
        playing: std::collections::VecDeque<(usize, u32)>,
        jobs: usize,
        total: u32,
        stopped: bool,
    }
    let plan = std::cell::RefCell::new(Plan {
        planned: Default::default(),
        playing: Default::default(),
        jobs: 0,
        total: 0,
        stopped: false,
    });
    let games = std::iter::from_fn(|| loop {
        let mut p = plan.borrow_mut();
        if let Some(g) = p.planned.pop_front() {
            return Some(Some(g));
        }
        if p.stopped || p.total >= cap || stopping() {
            return None;
        }
        let left = cap - p.total;
        drop(p);
        let batch = more(left)?;
        let mut p = plan.borrow_mut();
        let before = p.total;
        for c in &batch {
            let j = p.jobs;
            p.jobs += 1;
            let Some(at) = c.job.rotation_seated(&seating) else {
                continue;
            };
            let d = c.job.deals.len();
            for &g in c.games.iter().filter(|&&g| (g as usize) < k * d) {
                if p.total >= cap {
                    break;
                }
                let (r, deal) = c.job.split(g);
                p.planned.push_back(c.job.planned_at(r, deal, at));
                p.playing.push_back((j, g));
                p.total += 1;
            }
        }
        if p.total == before {
            // A batch with nothing to play at this seating: the match ends.
            return None;
        }
    });
    let mut m = MatchConfig::new(variant, seats, cap, job.deals[0].seed);
    m.max_moves = c.max_moves;
    // The logs are taken as games end: nothing is written there.
    m.replay_dir = Some(scratch);
    m.replay_prefix = format!("j{}-g", job.id);
    m.hidden = hidden;
    let all: Vec<Seat> = (0..k).collect();
    let on_end = |rec: &GameRecord, log: &mut Option<ReplayLog>| -> Vec<Seat> {
        // Taken whatever happens: the referee writes nothing in the scratch folder.
        let log = log.take();
        let mut p = plan.borrow_mut();
        // The games end in the plan's order.
        let (j, game) = p.playing.pop_front().expect("one game of the plan");
        // A signal came: what ends now may have been cut short by it, and is not posted.
        if p.stopped || stopping() {
            p.stopped = true;
            return all.clone();
        }
        let Some(log) = log else {
            return Vec::new();
        };
        let replay_zst = match log.to_bytes(false).and_then(|t| encode_replay(&t)) {
            Ok(r) => r,
            Err(e) => {
                eprintln!(
                    "durak worker: job {j} of the match: a replay could not be compressed: {e}"
                );
                p.stopped = true;
                return all.clone();
            }
        };
        let played = Played {
            game,
            result: PostedResult {
                loser: rec.loser,
                draw: rec.draw,
                moves: rec.moves,
            },
            replay_zst,
        };
        if !on_game(j, played) {
            p.stopped = true;
            return all.clone();
        }
        Vec::new()
    };
    durak_referee::play_planned(&m, games, on_end, |_| {})
        .await
        .map_err(|e| JobError::Match {
            job: job.id,
            detail: e.to_string(),
        })?;
    Ok(())
}
