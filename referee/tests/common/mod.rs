//! Shared by the referee's tests: the bots of [`bots`] (hostile `sh` scripts, the built-in bots,
//! the Rust sample bot), the sample bots of other runtimes ([`runtimes`]), the system programs a
//! test needs ([`system`]) and `both_modes!` ([`modes`]). The workspace's end-to-end tests
//! (`tests/common/mod.rs`) include the same files, with the `durak` binary as [`BOT`].
#![allow(dead_code)]

mod bots;
pub mod modes;
pub mod runtimes;
pub mod system;

pub use bots::*;

/// The built-in bots' program (`durak-bot bot NAME`, the referee's own binary; `$DURAK` in the
/// hostile scripts).
pub const BOT: &str = env!("CARGO_BIN_EXE_durak-bot");

/// What `durak replay --verify` checks, without the binary: the replay at `path` is read and
/// played again by the rules engine (`durak_replay`), and every line agrees. Panics with the
/// verdict otherwise.
pub fn assert_verifies(path: &std::path::Path) {
    let replay =
        durak_replay::read_replay(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let sim = durak_replay::simulate(&replay);
    assert!(
        sim.verified(),
        "{}: {}",
        path.display(),
        durak_replay::text::verdict(&sim)
    );
}

/// The repository: sample bots and scripts are found from here.
pub fn repo() -> std::path::PathBuf {
    let referee = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    referee.parent().expect("the workspace").to_path_buf()
}
