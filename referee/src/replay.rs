//! Replay files: one JSON-lines file per game, complete enough to re-simulate and verify the game.
//! Written atomically (a temporary file in the same directory, fsync, rename): a replay is
//! complete or absent, even if the referee is killed. Tournaments write many without waiting
//! and make them durable together ([`ReplayLog::write_atomic_unsynced`], then `syncfs`).
//!
//! Lines, in order (format version [`REPLAY_FORMAT`]; schema `schemas/replay_line.json`):
//! `header` (format, variant, players, seeds, dealer, whole deck order, seats, limits), then
//! `event` (with `to`: null for public or the seat), `request`, `answer` (raw line of a refused
//! answer), `move` (every applied move, `forced` for R-1 moves, with `elapsed_ms`), `fault`,
//! `stderr` (what a seat wrote during this game, one line per point of the game it arrived at:
//! `at` is `"start"`, a request id or `"end"`; capped per game, with the bytes `dropped`) and
//! last `result`.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The replay format version this build writes and reads.
pub const REPLAY_FORMAT: u64 = 1;

/// A replay being recorded in memory.
#[derive(Debug, Default)]
pub struct ReplayLog {
    /// Serialized JSON lines, without their newline.
    pub lines: Vec<String>,
}

impl ReplayLog {
    pub fn push(&mut self, v: impl serde::Serialize) {
        self.lines.push(serde_json::to_string(&v).expect("json"));
    }

    /// Write atomically to `path` (directories are created), and make it durable: the file is
    /// fsynced before it is renamed into place, and the directory after.
    pub fn write_atomic(&self, path: &Path) -> std::io::Result<()> {
        self.write(path, true)
    }

    /// Write atomically to `path` (a temporary file renamed: complete or absent), without
    /// waiting for the disk. For group commits: many replays are written, then one `syncfs`
    /// makes them all durable (the tournament's results writer does this). After a crash before
    /// that `syncfs`, the file may be missing or empty, never partly written with a valid end.
    pub fn write_atomic_unsynced(&self, path: &Path) -> std::io::Result<()> {
        self.write(path, false)
    }

    fn write(&self, path: &Path, sync: bool) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or_else(|| Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".replay-")
            .suffix(".tmp")
            .tempfile_in(dir)?;
        {
            let mut w = std::io::BufWriter::new(tmp.as_file_mut());
            for line in &self.lines {
                w.write_all(line.as_bytes())?;
                w.write_all(b"\n")?;
            }
            w.flush()?;
        }
        if sync {
            tmp.as_file().sync_all()?;
        }
        tmp.persist(path).map_err(|e| e.error)?;
        if sync {
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

/// The file name of game `index` in a replay directory.
pub fn replay_path(dir: &Path, prefix: &str, index: u32) -> PathBuf {
    dir.join(format!("{prefix}{index:04}.jsonl"))
}
