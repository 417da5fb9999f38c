//! Replay files: one JSON-lines file per game, complete enough to re-simulate and verify the game.
//! Written atomically (a temporary file in the same directory, fsync, rename): a replay is
//! complete or absent, even if the referee is killed. Tournaments write many without waiting
//! and make them durable together ([`ReplayLog::write_atomic_unsynced`], then `syncfs`).
//!
//! Lines, in order (format version [`REPLAY_FORMAT`]; schema `schemas/replay.json`; typed in
//! `durak_protocol::replay`, which the driver writes with and every reader reads with):
//! `header` (format, variant, players, seeds, dealer, whole deck order, seats, limits), then
//! `event` (with `to`: null for public or the seat), `request`, `answer` (raw line of a refused
//! answer), `move` (every applied move, `forced` for R-1 moves, with `elapsed_ms`), `fault`,
//! `stderr` (what a seat wrote during this game, one line per point of the game it arrived at:
//! `at` is `"start"`, a request id or `"end"`; capped per game, with the bytes `dropped`) and
//! last `result`.
//!
//! A replay whose file name ends in `.zst` is written compressed with zstd (a frame of the same
//! lines; tournaments do so by default: a game takes about a tenth of the disk). Every reader
//! takes both, telling them apart by the zstd magic number, not the name
//! ([`read_replay_bytes`]).

use durak_protocol::replay::Record;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The replay format version this build writes and reads.
pub use durak_protocol::replay::REPLAY_FORMAT;

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

    /// Set the `voided` list of the `result` line (the last): why earlier attempts at this game
    /// were voided and it was played again (see `GameRecord::voided`).
    pub fn note_voided(&mut self, reasons: &[String]) {
        let Some(last) = self.lines.last_mut() else {
            return;
        };
        if let Ok(Record::Result(mut r)) = serde_json::from_str::<Record>(last) {
            r.voided = reasons.to_vec();
            let line: Record = Record::Result(r);
            *last = serde_json::to_string(&line).expect("json");
        }
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

    fn write_lines(&self, w: &mut impl Write) -> std::io::Result<()> {
        for line in &self.lines {
            w.write_all(line.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The file's bytes: every line with its newline; compressed (a zstd frame, as a `.zst`
    /// file holds) when `compressed`.
    pub fn to_bytes(&self, compressed: bool) -> std::io::Result<Vec<u8>> {
        let mut text = Vec::with_capacity(self.lines.iter().map(|l| l.len() + 1).sum());
        self.write_lines(&mut text)?;
        if compressed {
            compress_replay(&text)
        } else {
            Ok(text)
        }
    }

    fn write(&self, path: &Path, sync: bool) -> std::io::Result<()> {
        let bytes = self.to_bytes(is_compressed_name(path))?;
        write_file_atomic(path, &bytes, sync)
    }
}

/// A replay's lines compressed as a `.zst` replay file holds them (one zstd frame at
/// [`ZSTD_LEVEL`], its size in the header), with this thread's compressor.
pub fn compress_replay(text: &[u8]) -> std::io::Result<Vec<u8>> {
    // One compressor per thread, reused game after game (a level-9 context is a few MB:
    // allocated once, not per game).
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(zstd::bulk::Compressor::new(ZSTD_LEVEL)?);
        }
        // The frame header holds the size: a reader allocates once.
        c.as_mut().expect("just made").compress(text)
    })
}

/// Write `bytes` to `path` atomically: through a temporary file beside it, renamed into place
/// (complete or absent). With `sync`, the file and its folder are synced before it returns;
/// without, [`sync_files`] makes a group of them durable later. Replays written by the referee
/// and replays received by the service both go through here.
pub fn write_file_atomic(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".replay-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.as_file_mut().write_all(bytes)?;
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

thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// The most a frame may say it holds to be decompressed in one call (into a buffer of that
/// size, allocated before a byte is read); a larger one is read as a stream, up to its limit.
const BULK_MAX: u64 = 4 << 20;

/// The zstd level replays are compressed at: level 9 takes a 30 KB game to about 3 KB at a
/// small cost next to playing it (docs/SCALING.md has the figures).
pub const ZSTD_LEVEL: i32 = 9;

/// The first four bytes of a zstd frame.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether a replay at `path` is written compressed (its name ends in `.zst`).
pub fn is_compressed_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// The file name of game `index` in a replay directory: `{prefix}{index:04}.jsonl`, or
/// `.jsonl.zst` when `compressed`.
pub fn replay_path(dir: &Path, prefix: &str, index: u32, compressed: bool) -> PathBuf {
    let ext = if compressed { "jsonl.zst" } else { "jsonl" };
    dir.join(format!("{prefix}{index:04}.{ext}"))
}

/// How many threads [`sync_files`] syncs on at once.
pub const SYNC_THREADS: usize = 4;

/// fdatasync each file, a few at a time in parallel (the journal then commits them together):
/// how replays written unsynced are made durable in groups, by the tournament's writer and the
/// service's recorder. The error names the file.
pub fn sync_files(paths: &[PathBuf]) -> Result<(), (PathBuf, std::io::Error)> {
    if paths.is_empty() {
        return Ok(());
    }
    let per = paths.len().div_ceil(SYNC_THREADS);
    if per == paths.len() {
        return paths
            .iter()
            .try_for_each(|p| sync_path(p).map_err(|e| (p.clone(), e)));
    }
    std::thread::scope(|s| {
        let workers: Vec<_> = paths
            .chunks(per)
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .try_for_each(|p| sync_path(p).map_err(|e| (p.clone(), e)))
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or(Ok(())))
    })
}

/// fsync a file or a directory by path.
pub fn sync_path(p: &Path) -> std::io::Result<()> {
    std::fs::File::open(p)?.sync_data()
}

/// A replay's lines as bytes, whether the file is compressed (it starts with the zstd magic
/// number, whatever its name) or plain.
pub fn read_replay_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = std::fs::read(path)?;
    decode_replay_bytes(bytes)
}

/// [`read_replay_bytes`] of bytes already read: decompressed when they are a zstd frame.
pub fn decode_replay_bytes(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if bytes.starts_with(&ZSTD_MAGIC) {
        zstd::stream::decode_all(&bytes[..])
    } else {
        Ok(bytes)
    }
}

/// [`decode_replay_bytes`] of bytes from someone else (a worker's post): an error, not an
/// allocation, when they unpack to more than `max` bytes (a decompression bomb).
pub fn decode_replay_bytes_limited(bytes: Vec<u8>, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if !bytes.starts_with(&ZSTD_MAGIC) {
        return Ok(bytes);
    }
    // A frame as `compress_replay` writes it (its size in the header, a game's tens of KB): in
    // one call with this thread's context. A stream decoder per call allocated its context and
    // a 128 KiB buffer each time, a server's busiest allocation while it checked workers' games.
    let size = zstd::zstd_safe::get_frame_content_size(&bytes)
        .ok()
        .flatten();
    if let Some(n) = size.filter(|&n| n <= BULK_MAX.min(max)) {
        return DECOMPRESSOR.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = Some(zstd::bulk::Decompressor::new()?);
            }
            d.as_mut()
                .expect("just made")
                .decompress(&bytes, n as usize)
        });
    }
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(&bytes[..])?
        .take(max + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it unpacks to more than {max} bytes"),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `note_voided` sets the result line's `voided` where the typed line writes it (after
    /// `void`), replacing the one attempt a void game noted, and leaves other lines alone.
    #[test]
    fn the_voided_attempts_are_noted_on_the_result_line() {
        let mut log = ReplayLog::default();
        log.lines
            .push(r#"{"type":"event","to":null,"event":{}}"#.into());
        log.note_voided(&["a".into()]);
        assert_eq!(log.lines[0], r#"{"type":"event","to":null,"event":{}}"#);
        log.lines.push(
            r#"{"type":"result","loser":1,"draw":false,"faults":[],"moves":9,"duration_ms":5}"#
                .into(),
        );
        log.note_voided(&["a".into(), "b".into()]);
        assert_eq!(
            log.lines[1],
            r#"{"type":"result","loser":1,"draw":false,"faults":[],"moves":9,"duration_ms":5,"voided":["a","b"]}"#
        );
        log.lines[1] = r#"{"type":"result","loser":null,"draw":false,"faults":[],"moves":3,"duration_ms":5,"void":true,"voided":["c"]}"#.into();
        log.note_voided(&["a".into(), "b".into(), "c".into()]);
        assert_eq!(
            log.lines[1],
            r#"{"type":"result","loser":null,"draw":false,"faults":[],"moves":3,"duration_ms":5,"void":true,"voided":["a","b","c"]}"#
        );
    }

    /// A compressed replay reads back as the same lines as a plain one, whatever its name.
    #[test]
    fn a_limited_decode_reads_frames_with_and_without_their_size_and_refuses_past_the_limit() {
        let text: Vec<u8> = (0..2000)
            .flat_map(|i| format!("{{\"type\":\"event\",\"i\":{i}}}\n").into_bytes())
            .collect();
        let sized = compress_replay(&text).unwrap();
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&sized).unwrap(),
            Some(text.len() as u64),
            "compress_replay writes the size"
        );
        let streamed = zstd::stream::encode_all(&text[..], 3).unwrap();
        let cap = 1 << 20;
        // Twice on this thread: the context is reused.
        for _ in 0..2 {
            assert_eq!(
                decode_replay_bytes_limited(sized.clone(), cap).unwrap(),
                text
            );
            assert_eq!(
                decode_replay_bytes_limited(streamed.clone(), cap).unwrap(),
                text
            );
        }
        assert_eq!(
            decode_replay_bytes_limited(text.clone(), cap).unwrap(),
            text
        );
        // Cut off, either way: an error, not part of the game.
        assert!(decode_replay_bytes_limited(sized[..sized.len() / 2].to_vec(), cap).is_err());
        assert!(decode_replay_bytes_limited(streamed[..streamed.len() / 2].to_vec(), cap).is_err());
        // More than the limit, said in the header or not.
        let small = text.len() as u64 / 2;
        for frame in [sized, streamed] {
            let e = decode_replay_bytes_limited(frame, small).unwrap_err();
            assert!(e.to_string().contains("unpacks to more than"), "{e}");
        }
    }

    #[test]
    fn compressed_and_plain_replays_read_back_the_same_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = ReplayLog::default();
        for i in 0..500 {
            log.push(serde_json::json!({"type": "event", "i": i, "text": "x".repeat(40)}));
        }
        let plain = replay_path(dir.path(), "g-", 0, false);
        let packed = replay_path(dir.path(), "g-", 0, true);
        assert!(plain.to_string_lossy().ends_with("g-0000.jsonl"));
        assert!(packed.to_string_lossy().ends_with("g-0000.jsonl.zst"));
        log.write_atomic(&plain).unwrap();
        log.write_atomic_unsynced(&packed).unwrap();
        let raw = std::fs::read(&packed).unwrap();
        assert!(raw.starts_with(&ZSTD_MAGIC), "written compressed");
        let size = |p: &Path| std::fs::metadata(p).unwrap().len();
        assert!(
            size(&packed) * 5 < size(&plain),
            "{} vs {}",
            size(&packed),
            size(&plain)
        );
        let text = std::fs::read(&plain).unwrap();
        assert_eq!(read_replay_bytes(&packed).unwrap(), text);
        assert_eq!(read_replay_bytes(&plain).unwrap(), text);
        // Told apart by content, not name: a compressed file renamed still reads.
        let renamed = dir.path().join("renamed.jsonl");
        std::fs::rename(&packed, &renamed).unwrap();
        assert_eq!(read_replay_bytes(&renamed).unwrap(), text);
        // A damaged frame is an error, not garbage.
        std::fs::write(&renamed, &raw[..raw.len() / 2]).unwrap();
        assert!(read_replay_bytes(&renamed).is_err());
        // The bytes as a file holds them, and read with a limit.
        assert_eq!(log.to_bytes(false).unwrap(), text);
        let packed = log.to_bytes(true).unwrap();
        assert_eq!(packed, raw);
        let n = text.len() as u64;
        assert_eq!(
            decode_replay_bytes_limited(packed.clone(), n).unwrap(),
            text
        );
        let e = decode_replay_bytes_limited(packed, n - 1).unwrap_err();
        assert!(e.to_string().contains("more than"), "{e}");
        assert_eq!(decode_replay_bytes_limited(text.clone(), 1).unwrap(), text);
    }
}
