//! # durak-referee
//!
//! The one async driver around the pure rules engine: it starts bot processes, talks protocol v1
//! to them under time limits, turns any misbehaviour into a named fault, and writes a replay of
//! every game. The tournament layer schedules matches on top of [`play_match`]; it never touches
//! pipes.

pub mod affinity;
pub mod builtin;
pub mod clock;
mod command;
mod direct;
pub mod driver;
mod idle;
pub mod isolation;
pub mod lines;
pub mod process;
pub mod replay;
mod sent;
pub mod stderr;

pub use clock::DecisionTime;
pub use command::CommandError;
pub use driver::{
    play_match, play_match_with, play_planned, GameRecord, MatchConfig, MatchResult, PlannedGame,
    SeatInfo, SeatSpec,
};
pub use isolation::{Isolation, ResourceLimits, Sandbox};
pub use process::{BotCommand, BotProcess, IoFault, SpawnOptions};
pub use replay::ReplayLog;
pub use stderr::{StderrAt, StderrChunk};
