//! Shared by the end-to-end tests: the `durak` binary ([`DURAK`], [`durak`]), servers, browsers
//! and HTTP clients, and the referee's test helpers (`referee/tests/common/`: hostile bots, the
//! built-in bots, `require` for system programs, `both_modes!`), included with the `durak`
//! binary as the built-in bots' program ([`BOT`]).
#![allow(dead_code)]

pub mod browser;
pub mod cdp;
pub mod http;
pub mod openapi;

use std::path::Path;
use std::process::{Command, Output};

#[path = "../../referee/tests/common/bots.rs"]
mod bots;
#[path = "../../referee/tests/common/modes.rs"]
pub mod modes;
#[path = "../../referee/tests/common/runtimes.rs"]
pub mod runtimes;
pub mod server;
#[path = "../../referee/tests/common/system.rs"]
pub mod system;
pub mod tls;

pub use bots::*;

/// The `durak` binary under test.
pub const DURAK: &str = env!("CARGO_BIN_EXE_durak");

/// Run `durak ARGS` in `cwd` (built-in bots run as this same binary).
pub fn durak(args: &[&str], cwd: &Path) -> Output {
    Command::new(DURAK)
        .args(args)
        .current_dir(cwd)
        .env("DURAK_EXE", DURAK)
        .output()
        .expect("durak runs")
}

/// A replay's lines as text, whether it is compressed (`.jsonl.zst`, what tournaments write by
/// default) or plain.
pub fn replay_text(path: &Path) -> std::io::Result<String> {
    let bytes = durak_referee::replay::read_replay_bytes(path)?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

/// The built-in bots' program for the referee's helpers: `durak bot NAME`.
pub const BOT: &str = DURAK;

/// The repository: sample bots and scripts are found from here.
pub fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
