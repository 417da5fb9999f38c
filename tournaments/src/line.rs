//! One line of `results.jsonl` (and `pending.jsonl`): a finished game, what the standings, the
//! report and a resume read. A leaf: it names no other module of the crate, so every module
//! that reads results can use it without depending on the tournament directory
//! ([`crate::results`]).

use durak_protocol::FaultKind;
use durak_rules::Seat;
use serde::{Deserialize, Serialize};

/// A fault in a result line: the seat, its bot, the kind and the details.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultLine {
    pub seat: Seat,
    pub bot: String,
    pub kind: FaultKind,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultLine {
    /// The game's stable id (its position in the schedule).
    pub id: u64,
    pub table: u32,
    /// Index at the table.
    pub game: u32,
    /// Duplicate deal number (duplicate and gauntlet formats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<u32>,
    /// Bot name at each seat.
    pub seats: Vec<String>,
    /// Deck seed.
    pub seed: u64,
    pub dealer: Seat,
    /// The durak's seat; `null` for a draw.
    pub loser: Option<Seat>,
    /// The durak's name.
    pub durak: Option<String>,
    pub draw: bool,
    pub faults: Vec<FaultLine>,
    pub moves: u32,
    /// The replay, relative to the tournament directory.
    pub replay: Option<String>,
    pub duration_ms: u64,
    /// Bots disqualified after this game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disqualified: Vec<String>,
    /// Set when the referee ended the game as a draw at its move limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_limit: Option<u32>,
    /// Why earlier attempts at this game were voided (a bot starved by the machine past ten
    /// times its limit, its own time still under it) and the game played again with the same
    /// deal; oldest first (see `durak_referee::GameRecord::voided`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<String>,
    /// The game was given up after 3 voided attempts: it counts for nobody (no loser, no
    /// draw), and `voided` says why (see `durak_referee::GameRecord::void`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub void: bool,
}

impl ResultLine {
    /// The line without what varies between identical runs (timings).
    pub fn without_timing(&self) -> ResultLine {
        ResultLine {
            duration_ms: 0,
            ..self.clone()
        }
    }
}
