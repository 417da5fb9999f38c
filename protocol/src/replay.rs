//! A replay file's lines, typed: the referee writes them with these types
//! (`referee/src/replay.rs`, `driver/`) and every reader reads them with the same ones
//! (`durak_replay::read`), so a field is named, ordered and made optional in one place
//! (schema `schemas/replay.json`).
//!
//! The first line is a [`HeaderLine`]; every other line is a [`Record`], told apart by its
//! `type`. The payloads the engine serializes (an event, a request's legal choices, a move) are
//! type parameters: the referee writes them straight from engine values
//! ([`crate::EventSer`], [`crate::LegalSer`], [`crate::MoveSer`]), a reader takes them as JSON
//! values (the defaults) and decodes them with the engine.
//!
//! Optional fields: one that older replays lack is read as absent (`serde(default)`), and left
//! out when written absent; one the referee writes as `null` (a forced move's `id`, a public
//! event's `to`, a fault's `rule` when it broke none) is written `null`.

use crate::messages::{Fault, Limits};
use durak_rules::Seat;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// The replay format version this build writes and reads.
pub const REPLAY_FORMAT: u64 = 1;

/// The header's `type`: always `"header"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeaderType {
    #[default]
    #[serde(rename = "header")]
    Header,
}

/// The first line of a replay as written: everything fixed before the deal. Its variant and
/// deck are the names written; a reader checks them (`durak_replay::Header`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeaderLine {
    #[serde(rename = "type")]
    pub kind: HeaderType,
    pub format: u64,
    /// The referee that wrote the replay, e.g. `durak-referee 0.1.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referee: Option<String>,
    pub variant: String,
    pub players: usize,
    pub series_seed: u64,
    /// The game's index in its match, from 0.
    pub game: u32,
    /// The deck seed.
    pub seed: u64,
    pub dealer: Seat,
    pub first_game: bool,
    /// The moves after which the referee ends a game as a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_moves: Option<u32>,
    /// The games of the match (absent in older replays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<u32>,
    /// The deck in deal order, as card names.
    pub deck: Vec<String>,
    pub seats: Vec<SeatHeader>,
}

/// The limits a seat played under (as in the referee's hello; every field optional to read).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatLimits {
    #[serde(default)]
    pub startup_ms: u64,
    #[serde(default)]
    pub move_ms: u64,
    #[serde(default)]
    pub bank_ms: u64,
    #[serde(default)]
    pub max_line_bytes: u64,
}

impl From<Limits> for SeatLimits {
    fn from(l: Limits) -> SeatLimits {
        SeatLimits {
            startup_ms: l.startup_ms,
            move_ms: l.move_ms,
            bank_ms: l.bank_ms,
            max_line_bytes: l.max_line_bytes as u64,
        }
    }
}

/// One seat of the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatHeader {
    pub seat: Seat,
    pub name: String,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub bot_name: Option<String>,
    #[serde(default)]
    pub bot_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<SeatLimits>,
    /// The seat's process was started for this game (it got the referee's hello first); absent
    /// in older replays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello: Option<bool>,
}

impl SeatHeader {
    /// How the seat is shown: its name, and the bot's own name when it differs.
    pub fn label(&self) -> String {
        match self.own_name() {
            Some(b) => format!("{} ({b})", self.name),
            None => self.name.clone(),
        }
    }

    /// The bot's own name (from its hello) when it says something the seat's name does not.
    pub fn own_name(&self) -> Option<&str> {
        self.bot_name
            .as_deref()
            .filter(|b| *b != self.name && !b.is_empty())
    }
}

/// A time limit announced with a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestTime {
    pub move_ms: u64,
    pub bank_ms: u64,
}

/// A fault as logged (a `fault` line or an entry of the result's `faults`). Its kind is the
/// name as written: a reader that needs a [`crate::FaultKind`] takes
/// [`crate::FaultKind::from_recorded`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRecord {
    pub seat: Seat,
    pub kind: String,
    pub detail: String,
    #[serde(default)]
    pub rule: Option<String>,
}

impl From<&Fault> for FaultRecord {
    fn from(f: &Fault) -> FaultRecord {
        FaultRecord {
            seat: f.seat,
            kind: f.kind.name().to_string(),
            detail: f.detail.clone(),
            rule: f.rule.clone(),
        }
    }
}

/// The last line of a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    pub loser: Option<Seat>,
    pub draw: bool,
    #[serde(default)]
    pub faults: Vec<FaultRecord>,
    pub moves: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The referee ended the game as a draw at this many moves (its `max_moves`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_limit: Option<u32>,
    /// The game was given up, voided each time: it counts for nobody, and stops at the starved
    /// seat's open request.
    #[serde(default, skip_serializing_if = "is_false")]
    pub void: bool,
    /// Why attempts at this game were voided (a bot starved by the machine), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where in the game a `stderr` line's text arrived (its `at`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StderrAt {
    /// `"start"`: before the seat's first request of the game: its start-up and hello,
    /// `game_start`, and what it wrote after the previous game's end was taken.
    #[default]
    Start,
    /// A request id: after the referee sent the seat that request of this game, while it
    /// decided and after its answer until its next request.
    Request(u64),
    /// `"end"`: after `game_end` was sent (its last words, and a killed bot's, read to the end).
    End,
}

impl Serialize for StderrAt {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StderrAt::Start => s.serialize_str("start"),
            StderrAt::Request(id) => s.serialize_u64(*id),
            StderrAt::End => s.serialize_str("end"),
        }
    }
}

impl<'de> Deserialize<'de> for StderrAt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match &v {
            Value::String(s) if s == "start" => Ok(StderrAt::Start),
            Value::String(s) if s == "end" => Ok(StderrAt::End),
            Value::Number(n) if n.as_u64().is_some_and(|n| n >= 1) => {
                Ok(StderrAt::Request(n.as_u64().expect("checked")))
            }
            _ => Err(serde::de::Error::custom(format!(
                "\"at\" is \"start\", \"end\" or a request id (1, 2, ...), not {v}"
            ))),
        }
    }
}

/// One line after the header. `E`, `L` and `M` are an event, a request's legal choices and a
/// move: engine serializers when written, JSON values (the defaults) when read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record<E = Value, L = Value, M = Value> {
    /// An event of the game; `to` is `None` for a public event, else the one seat that saw it.
    Event { to: Option<Seat>, event: E },
    /// The referee asked `seat` for a decision.
    Request {
        id: u64,
        seat: Seat,
        decision: Cow<'static, str>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time: Option<RequestTime>,
        legal: L,
    },
    /// A move applied: chosen by the bot, or `forced` (R-1, played by the referee, with `id`
    /// and `elapsed_ms` null).
    Move {
        seat: Seat,
        forced: bool,
        #[serde(default)]
        id: Option<u64>,
        #[serde(default)]
        elapsed_ms: Option<f64>,
        /// The time charged and the accounting behind it (docs/PROTOCOL.md, "Time limits"),
        /// when the referee read it; absent in older replays.
        #[serde(flatten)]
        clock: Clock,
        #[serde(rename = "move")]
        mv: M,
    },
    /// A refused answer: the raw line and why it was refused.
    Answer {
        id: u64,
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elapsed_ms: Option<f64>,
        line: String,
        refused: String,
        #[serde(flatten)]
        clock: Clock,
    },
    /// A fault: the seat loses the game.
    Fault(FaultRecord),
    /// What a bot wrote on stderr during the game (capped per game), and where in the game it
    /// arrived (`at`; absent in older replays, which hold a process's whole stderr at the end).
    Stderr {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<StderrAt>,
        /// Lines of this game the referee had written to the seat when the text arrived
        /// (absent in older replays: they are placed by `at`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sent: Option<u64>,
        #[serde(default)]
        text: String,
        /// Bytes that arrived there beyond the game's cap, left out.
        #[serde(default)]
        dropped: u64,
    },
    /// How the game ended.
    Result(ResultRecord),
}

/// A decision's clock beside its wall time (`elapsed_ms`), in milliseconds: `own_ms` the time
/// charged, `cpu_ms` and `wait_ms` the CPU time and run-queue wait of the bot's tasks, each
/// when the referee read it (absent otherwise, and in older replays).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<f64>,
}

impl<E, L, M> Record<E, L, M> {
    /// The line's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Record::Event { .. } => "event",
            Record::Request { .. } => "request",
            Record::Move { .. } => "move",
            Record::Answer { .. } => "answer",
            Record::Fault(_) => "fault",
            Record::Stderr { .. } => "stderr",
            Record::Result(_) => "result",
        }
    }
}

/// Every `type` a replay line may have, the header's first.
pub const LINE_TYPES: [&str; 8] = [
    "header", "event", "request", "move", "answer", "fault", "stderr", "result",
];
