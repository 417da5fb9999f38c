//! # durak-protocol
//!
//! Protocol v1 between the referee and bot processes: JSON lines both ways (see
//! `docs/PROTOCOL.md`). This crate builds every referee message from the rules engine's types,
//! validates every bot message against the JSON Schemas in `schemas/` ([`schema`]), and turns a
//! valid answer into an engine [`durak_rules::Move`] ([`judge_answer`]: every step that judges an
//! answer, for every reader of one). It also decodes requests back into engine
//! types, for bots written in Rust (the built-in bots and the Rust sample bot). [`text`] escapes
//! the control characters of bot-provided text before it reaches a terminal. [`replay`] types
//! a replay file's lines, for the referee that writes them and every reader.

mod answer;
#[cfg(test)]
mod answer_corpus;
pub mod bot;
mod error;
pub mod judge;
pub mod kinds;
pub mod messages;
pub mod replay;
pub mod schema;
pub mod text;

pub use error::DecodeError;
pub use judge::judge_answer;
pub use kinds::MessageKinds;
pub use messages::*;
