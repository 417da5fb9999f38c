//! # durak-rules
//!
//! The rules of Durak as a pure, deterministic library: no I/O, no async, no clock. The rule ids
//! (`C-4`, `P-5`, `K-8`, ...) are those of `RULES.md` in the project's shared folder.
//!
//! A [`Game`] is a value. [`Game::decision`] says whose decision it is and of what kind,
//! [`Game::legal`] gives the legal choices in a compact form, [`Game::check`] names the rule a
//! move breaks, [`Game::apply`] applies a legal move and returns its events (each public or
//! private to one seat), and [`Game::observation`] gives one seat exactly what it may know.
//! [`Game::forced_move`] is the R-1 move the referee plays when a decision has one answer.

pub mod card;
pub mod deck;
mod game;
mod judge;
pub mod random;
pub mod series;
pub mod solve;
mod types;

pub use card::{Card, CardParseError, CardSet, Rank, Suit};
pub use deck::{Deck, DeckError};
pub use game::Game;
pub use judge::DecisionView;
pub use series::Series;
pub use types::*;
