//! # durak-tournaments
//!
//! Tournaments of Durak bots an organiser can trust, on top of the referee's
//! [`play_match`](durak_referee::play_match). This crate never touches pipes: it builds
//! [`MatchConfig`](durak_referee::MatchConfig)s and reads [`GameRecord`](durak_referee::GameRecord)s.
//!
//! - [`config`]: the TOML configuration (`[tournament]`, `[[bot]]`), checked before anything
//!   starts, with the file, the key and the fix in every refusal.
//! - [`schedule`]: tables and games from the tournament seed — round-robin, duplicate deals
//!   (the default), series (C-10) and gauntlet. The same seed gives the same schedule and decks.
//! - [`line`]: one result line (a finished game), a leaf every reader of results uses;
//!   [`lines`] reads a results file a line at a time, in file or id order.
//! - [`results`]: the tournament directory (`tournament.toml`, `results.jsonl`, `replays/`); one
//!   JSON line per finished game, appended and fsynced after its replay is on disk.
//! - [`runner`]: plays the tables concurrently, disqualifies failing bots, resumes after a kill;
//!   [`sequencer`] puts finished games in id order, [`writer`] makes them durable in group
//!   commits, [`recorded`] checks and keeps (a bit per game) what is recorded.
//! - [`shard`]: the games of shard `I/N` (`--shard`), a split of the schedule that keeps
//!   duplicate deal sets and series together; [`merge`] puts finished shards together
//!   (`durak merge`), as one machine would have recorded them.
//! - [`settings`]: how a run plays (sandbox, limits, affinity, concurrency, web pages), recorded
//!   with the tournament so a resume goes on the same way.
//! - [`standings`]: Elo from one fit of all games with 95 % intervals (paired by deal in the
//!   duplicate formats), tied ranks, the LOS matrix, head to head, pairs; games, losses,
//!   faults; as a table, JSON, CSV or HTML. Built in one pass over the results, in any order.
//! - [`stats`]: the statistics themselves (the fit, LOS and ties, pair figures, the SPRT).
//! - [`sprt`]: the sequential test fed with result lines (gauntlet: is the challenger better?).

#[macro_use]
pub mod error;
pub mod config;
pub mod line;
pub mod lines;
pub mod merge;
pub mod recorded;
pub mod results;
pub mod runner;
pub mod schedule;
pub mod sequencer;
pub mod settings;
pub mod shard;
pub mod shared;
pub mod sprt;
pub mod standings;
pub mod stats;
pub mod writer;

pub use config::{Bot, ConfigFile, Format, Tournament};
pub use error::Error;
pub use recorded::verify_results;
pub use results::{DirLock, ResultLine, TournamentDir};
pub use runner::{run_tournament, Observer, RunOptions, RunSummary};
pub use schedule::{Schedule, ScheduledGame, Table};
pub use standings::{Standings, StandingsBuilder};
