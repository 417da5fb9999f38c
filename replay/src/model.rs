//! What a re-simulated replay is ([`Simulation`]: its steps, each with its request, answer,
//! timing, faults and stderr, and the first divergence if any): the model that the walk in
//! [`crate::sim`] builds and that the viewers and [`crate::raw`] read. Data only, apart from
//! both, so that the walk and the raw transcripts each depend on it and not on each other.

use crate::read::{FaultRecord, Header, RequestTime, StderrAt};
use durak_rules::{Decision, Event, Game, Legal, Move, Seat};
use std::fmt;

/// The request a step answered.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestInfo {
    pub id: u64,
    pub time: Option<RequestTime>,
}

/// A decision's clock beyond its wall time (docs/PROTOCOL.md, "Time limits"), in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accounting {
    /// The time charged: the wall time minus the machine's wait.
    pub own_ms: f64,
    /// CPU time of the bot's threads over the sampled part of the decision.
    pub cpu_ms: Option<f64>,
    /// Time the bot's threads waited for a CPU over the sampled part.
    pub wait_ms: Option<f64>,
}

/// An answer the referee refused: the raw line and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    pub line: String,
    pub reason: String,
    pub elapsed_ms: Option<f64>,
}

/// How the game ended, as the replay's result line says (or, without one, as far as known).
#[derive(Clone, Debug, PartialEq)]
pub struct End {
    pub loser: Option<Seat>,
    pub draw: bool,
    pub faults: Vec<FaultRecord>,
    pub moves: u32,
    pub duration_ms: Option<u64>,
    /// False when the replay has no result line (truncated).
    pub logged: bool,
    /// False when the game never started (a fault before the deal was announced).
    pub started: bool,
}

/// What a bot wrote on stderr, kept at the step it belongs to.
#[derive(Clone, Debug, PartialEq)]
pub struct StderrText {
    pub seat: Seat,
    /// Where in the game it arrived; `None` in older replays (a process's whole stderr, shown at
    /// the end).
    pub at: Option<StderrAt>,
    pub text: String,
    /// Bytes that arrived there beyond the game's cap, left out.
    pub dropped: u64,
    /// Lines of this game the referee had written to the seat when it arrived; `None` in older
    /// replays (placed by `at`).
    pub sent: Option<u64>,
    /// The last line the seat had been sent then, in a few words ("request 13", "a "game_over"
    /// event"), once placed; `None` for `sent` 0 and older replays.
    pub after: Option<String>,
    /// Its replay line.
    pub line: usize,
}

/// One step of the game: a decision, or the end.
#[derive(Clone, Debug)]
pub struct Step {
    /// 1-based.
    pub number: usize,
    /// The replay line where this step starts (its request, move or fault; the result line for
    /// the end).
    pub line: usize,
    /// The game when the decision was asked.
    pub state: Game,
    /// The engine's events since the previous step (the deal, for step 1).
    pub before: Vec<Event>,
    /// Whose decision it was; `None` for the end of a game.
    pub decision: Option<Decision>,
    pub legal: Option<Legal>,
    /// the referee played the only legal answer.
    pub forced: bool,
    pub request: Option<RequestInfo>,
    /// The move applied.
    pub mv: Option<Move>,
    /// How long the bot took, from the request written to the answer read (wall time).
    pub elapsed_ms: Option<f64>,
    /// The time charged, its CPU time and its run-queue wait, when the referee read them.
    pub accounting: Option<Accounting>,
    pub refused: Option<Refused>,
    pub faults: Vec<FaultRecord>,
    /// Set on the last step.
    pub end: Option<End>,
    /// Where the replay and the re-simulation disagree, at this step.
    pub note: Option<String>,
    /// What the bots wrote on stderr at this step: at the step of the last line the seat had been
    /// sent when it arrived (`sent`: its event, request or game_end), before that at step 1. In
    /// older replays (no `sent`): `"start"` at step 1, a request's at the step of that request,
    /// `"end"` (and an older replay's) at the last.
    pub stderr: Vec<StderrText>,
}

/// The first place where the replay and the re-simulation disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The step it belongs to (`None`: the header).
    pub step: Option<usize>,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            Some(s) => write!(f, "step {s}, line {}: {}", self.line, self.message),
            None => write!(f, "line {} (header): {}", self.line, self.message),
        }
    }
}

/// A replay re-simulated: its steps, and whether it verified.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub source: String,
    pub header: Header,
    pub steps: Vec<Step>,
    /// `None` when every line and the result match the re-simulation.
    pub divergence: Option<Divergence>,
}

impl Simulation {
    pub fn verified(&self) -> bool {
        self.divergence.is_none()
    }

    /// The last step (the end of the game).
    pub fn end(&self) -> &End {
        self.steps
            .last()
            .and_then(|s| s.end.as_ref())
            .expect("a simulation always ends with an end step")
    }

    /// Moves that were applied (chosen and forced).
    pub fn moves(&self) -> usize {
        self.steps.iter().filter(|s| s.mv.is_some()).count()
    }
}
