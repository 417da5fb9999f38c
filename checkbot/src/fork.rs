//! `durak fork REPLAY --step N BOT...` (issue 26): play a recorded game on from step N with other
//! bots. The game is dealt again from the replay's deal (its seed, dealer and game index: the
//! same deck), the moves of steps 1 to N-1 are played as recorded
//! ([`durak_referee::MatchConfig::opening`]) and from step N on the bots decide. Each bot reads
//! what its seat read in the recorded game up to step N (the hello, `game_start`, its events and
//! its requests, answering them as `durak rerun` feeds it, its answers there judged but replaced
//! by the recorded moves), then plays live. The result is an ordinary replay that verifies.
//!
//! `durak regress` uses [`fork`] to let a new version of a bot take its seat from the first
//! blunder of every game it lost.

use durak_protocol::{self as proto, Fault};
use durak_referee::{play_match, GameRecord, MatchConfig, PlannedGame, SeatInfo, SeatSpec};
use durak_replay::{Header, Simulation};
use durak_rules::{Move, Seat};
use std::path::{Path, PathBuf};

/// Why a game could not be forked: each message names the replay, the option or the step, and
/// the fix.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    #[error(
        "{replay}: the replay does not verify (`durak replay --verify` says where): a fork replays \
         its moves with the engine, which cannot follow this one"
    )]
    Unverified { replay: String },
    #[error(
        "--step {step}: this game's decisions are steps 1 to {last} (step {end} is its end)\n  \
         fix: give a step from 1 to {last}, for one `durak analyze` names as a blunder"
    )]
    NoSuchStep {
        step: usize,
        last: usize,
        end: usize,
    },
    #[error("step {step}: no move was recorded there (a fault ended the game)")]
    NoMove { step: usize },
    #[error("{given} bots given for a game of {players} players\n  fix: give one bot per seat, in seat order")]
    SeatCount { given: usize, players: usize },
    #[error("--replay-dir {}: {source}", dir.display())]
    ReplayDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("the fork of {replay} could not be played: {source}")]
    NotPlayed {
        replay: String,
        source: std::io::Error,
    },
    #[error("the fork played no game")]
    NoGame,
}

/// A forked game.
#[derive(Clone, Debug)]
pub struct Fork {
    /// The step live play started at (1-based, as `durak replay` numbers them).
    pub step: usize,
    /// Moves played as recorded (the steps before `step`).
    pub opening: usize,
    pub record: GameRecord,
    pub seats: Vec<SeatInfo>,
    /// The recorded game's result: its loser, and whether it was a draw.
    pub recorded_loser: Option<Seat>,
    pub recorded_draw: bool,
}

impl Fork {
    /// The forked replay's path.
    pub fn replay(&self) -> Option<&Path> {
        self.record.replay.as_deref()
    }
}

/// The moves of steps 1 to `step - 1` of a verified game: what a fork from `step` plays as
/// recorded. `step` must be a decision (not the end of the game).
pub fn opening(sim: &Simulation, step: usize) -> Result<Vec<Move>, ForkError> {
    if !sim.verified() {
        return Err(ForkError::Unverified {
            replay: sim.source.clone(),
        });
    }
    let decisions: Vec<usize> = sim
        .steps
        .iter()
        .filter(|s| s.decision.is_some() && s.end.is_none())
        .map(|s| s.number)
        .collect();
    let last = decisions.last().copied().unwrap_or(0);
    if !decisions.contains(&step) {
        return Err(ForkError::NoSuchStep {
            step,
            last,
            end: sim.steps.len(),
        });
    }
    sim.steps[..step - 1]
        .iter()
        .map(|s| s.mv.ok_or(ForkError::NoMove { step: s.number }))
        .collect()
}

/// A seat's limits as the replay's header records them (the defaults when it does not).
pub fn seat_limits(h: &Header, seat: Seat) -> proto::Limits {
    h.seats
        .iter()
        .find(|s| s.seat == seat)
        .and_then(|s| s.limits.clone())
        .map(|l| proto::Limits {
            startup_ms: l.startup_ms,
            move_ms: l.move_ms,
            bank_ms: l.bank_ms,
            max_line_bytes: l.max_line_bytes as usize,
        })
        .unwrap_or_default()
}

/// The match that plays the fork: one planned game, the recorded one's deal, the opening.
pub fn match_config(
    sim: &Simulation,
    step: usize,
    seats: Vec<SeatSpec>,
    replay_dir: &Path,
    replay_prefix: &str,
) -> Result<MatchConfig, ForkError> {
    let h = &sim.header;
    if seats.len() != h.players {
        return Err(ForkError::SeatCount {
            given: seats.len(),
            players: h.players,
        });
    }
    let opening = opening(sim, step)?;
    let mut cfg = MatchConfig::new(
        h.variant,
        seats,
        h.games.unwrap_or(h.game + 1),
        h.series_seed,
    );
    cfg.plan = Some(vec![PlannedGame {
        index: h.game,
        seed: h.seed,
        dealer: Some(h.dealer),
        first_game: h.first_game,
    }]);
    cfg.replay_dir = Some(replay_dir.to_path_buf());
    cfg.replay_prefix = replay_prefix.to_string();
    cfg.opening = opening;
    Ok(cfg)
}

/// The file name a fork of `source` from `step` gets by default (before the game's index):
/// `game-0003.jsonl` forked at step 12 is `game-0003-fork12-0003.jsonl`.
pub fn default_prefix(source: &Path, step: usize) -> String {
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "game".into());
    let plain = name.strip_suffix(".zst").unwrap_or(&name);
    let stem = plain.strip_suffix(".jsonl").unwrap_or(plain);
    format!("{stem}-fork{step}-")
}

/// Play `sim`'s game on from `step` with `seats`, writing the replay into `replay_dir`.
pub async fn fork(
    sim: &Simulation,
    step: usize,
    seats: Vec<SeatSpec>,
    replay_dir: &Path,
    replay_prefix: &str,
) -> Result<Fork, ForkError> {
    let cfg = match_config(sim, step, seats, replay_dir, replay_prefix)?;
    std::fs::create_dir_all(replay_dir).map_err(|source| ForkError::ReplayDir {
        dir: replay_dir.to_path_buf(),
        source,
    })?;
    let opening = cfg.opening.len();
    let result = play_match(&cfg, |_| {})
        .await
        .map_err(|source| ForkError::NotPlayed {
            replay: sim.source.clone(),
            source,
        })?;
    let record = result.games.into_iter().next().ok_or(ForkError::NoGame)?;
    let end = sim.end();
    Ok(Fork {
        step,
        opening,
        record,
        seats: result.seats,
        recorded_loser: end.loser,
        recorded_draw: end.draw,
    })
}

fn result_words(loser: Option<Seat>, draw: bool, seat_name: impl Fn(Seat) -> String) -> String {
    match (draw, loser) {
        (true, _) | (false, None) => "a draw".to_string(),
        (false, Some(l)) => format!("{} lost (the durak)", seat_name(l)),
    }
}

fn fault_words(f: &Fault) -> String {
    format!("seat {} {}: {}", f.seat, f.kind, f.detail)
}

impl Fork {
    /// The result for people.
    pub fn to_text(&self, source: &str) -> String {
        let name = |s: Seat| {
            let n = self.seats.get(s).map(|i| i.name.as_str()).unwrap_or("?");
            format!("seat {s} ({n})")
        };
        let mut o = format!(
            "durak fork: {source} from step {}, steps 1 to {} as recorded ({} moves)\n",
            self.step,
            self.step - 1,
            self.opening
        );
        for (i, s) in self.seats.iter().enumerate() {
            o.push_str(&format!("  seat {i}: {}\n", s.name));
        }
        o.push_str(&format!(
            "recorded: {}\n",
            result_words(self.recorded_loser, self.recorded_draw, |s| format!(
                "seat {s}"
            ))
        ));
        o.push_str(&format!(
            "fork:     {}, {} moves\n",
            result_words(self.record.loser, self.record.draw, name),
            self.record.moves
        ));
        for f in &self.record.faults {
            o.push_str(&format!("  fault: {}\n", fault_words(f)));
        }
        if let Some(p) = self.replay() {
            o.push_str(&format!("replay: {}\n", p.display()));
        }
        proto::text::escape_controls_multiline(&o).into_owned()
    }

    /// The result as JSON (docs/COMMANDS.md).
    pub fn to_json(&self, source: &str) -> serde_json::Value {
        serde_json::json!({
            "source": source,
            "step": self.step,
            "opening_moves": self.opening,
            "replay": self.replay().map(|p| p.display().to_string()),
            "seats": self.seats.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
            "recorded": {"loser": self.recorded_loser, "draw": self.recorded_draw},
            "fork": {
                "loser": self.record.loser,
                "draw": self.record.draw,
                "moves": self.record.moves,
                "faults": self.record.faults.iter().map(fault_words).collect::<Vec<_>>(),
            },
        })
    }
}

/// Where forks go when no `--replay-dir` is given.
pub fn default_dir() -> PathBuf {
    PathBuf::from("forks")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step that is not a decision gives the range of decisions and the fix.
    #[test]
    fn a_step_out_of_range_gives_the_decisions_and_the_fix() {
        let e = ForkError::NoSuchStep {
            step: 50,
            last: 30,
            end: 31,
        };
        assert_eq!(
            e.to_string(),
            "--step 50: this game's decisions are steps 1 to 30 (step 31 is its end)\n  fix: give \
             a step from 1 to 30, for one `durak analyze` names as a blunder"
        );
    }
}
