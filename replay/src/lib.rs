//! # durak-replay
//!
//! Replay files (one game each, written by the referee: `referee/src/replay.rs`) read, re-simulated
//! and verified with the rules engine, and shown step by step: as plain text ([`text`]) or as an
//! HTML page with the viewer beside it ([`html`]); the terminal viewer is the `durak-tui` crate,
//! so that a crate that only reads and verifies replays does not build a terminal UI. [`moves`]: a seat's
//! legal choices listed for a person and a typed move read (the terminal's human seat and the
//! service's "Play my bot").
//!
//! ```no_run
//! let replay = durak_replay::read_replay(std::path::Path::new("replays/game-0000.jsonl"))?;
//! let sim = durak_replay::simulate(&replay);
//! println!("{}", durak_replay::text::verdict(&sim));
//! # Ok::<(), durak_replay::ReplayError>(())
//! ```

pub mod analyze;
mod error;
pub mod html;
pub mod model;
pub mod moves;
pub mod raw;
pub mod read;
pub mod sim;
pub mod text;
pub mod view;

pub use error::{ErrorKind, ReplayError};
pub use html::{game_page, html_page, write_html_page, GameContext};
pub use read::{parse_replay, read_replay, Header, Replay, FORMAT};
pub use sim::{simulate, Divergence, Simulation, Step};
pub use view::{step_view, StepView};
