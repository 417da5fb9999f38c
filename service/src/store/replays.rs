//! Where the ladder keeps its games' replays. Every game the recorder takes now has its replay
//! in the database's `game_replays` (the bytes a replay file would hold: the JSON lines,
//! compressed with zstd), inserted in the same transaction as the game's row: one sync per
//! batch of games, and no file or folder to make per game (issue 23: making those cost the
//! recorder more CPU than the tables spent playing). The game's `games.replay` is then
//! `db:replays/jJOB/gGAME.jsonl.zst`, the name it is served by.
//!
//! Data directories of older servers keep their replays as files, `games.replay` relative to
//! the data directory; [`lines`] reads either.

use crate::db::Db;
use rusqlite::{params, OptionalExtension};
use std::path::Path;

/// The prefix of `games.replay` for a replay kept in the database.
pub const IN_DB: &str = "db:";

/// `games.replay` of a replay kept in the database under the name `rel`.
pub fn in_db(rel: &str) -> String {
    format!("{IN_DB}{rel}")
}

/// Whether `games.replay` names a replay kept in the database.
pub fn is_in_db(replay: &str) -> bool {
    replay.starts_with(IN_DB)
}

/// Store a game's replay bytes (in the caller's transaction); an existing one stays.
pub fn insert(
    tx: &rusqlite::Transaction,
    job: i64,
    game: u32,
    bytes: &[u8],
) -> rusqlite::Result<()> {
    tx.prepare_cached("INSERT OR IGNORE INTO game_replays(job, game, bytes) VALUES (?1, ?2, ?3)")?
        .execute(params![job, game, bytes])?;
    Ok(())
}

/// A game's replay as stored (compressed or plain), from the database or its file.
pub fn stored(db: &Db, root: &Path, job: i64, game: u32, replay: &str) -> std::io::Result<Vec<u8>> {
    if !is_in_db(replay) {
        return std::fs::read(root.join(replay));
    }
    let bytes: Option<Vec<u8>> = db
        .read(|c| {
            c.query_row(
                "SELECT bytes FROM game_replays WHERE job = ?1 AND game = ?2",
                params![job, game],
                |r| r.get(0),
            )
            .optional()
        })
        .map_err(std::io::Error::other)?;
    bytes.ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no replay of job {job} game {game} in the database"),
        )
    })
}

/// A game's replay lines (decompressed when stored compressed), wherever they are kept.
pub fn lines(db: &Db, root: &Path, job: i64, game: u32, replay: &str) -> std::io::Result<Vec<u8>> {
    durak_referee::replay::decode_replay_bytes(stored(db, root, job, game, replay)?)
}

/// [`lines`] of a game's row.
pub fn of_row(db: &Db, root: &Path, row: &super::GameRow) -> std::io::Result<Vec<u8>> {
    lines(db, root, row.job, row.game, &row.replay)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_is_read_from_the_database_or_an_older_servers_file() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let packed = durak_referee::replay::compress_replay(b"kept\n").unwrap();
        db.write(|c| {
            let tx = c.transaction()?;
            insert(&tx, 4, 2, &packed)?;
            // An existing replay stays.
            insert(&tx, 4, 2, b"again\n")?;
            tx.commit()
        })
        .unwrap();
        let name = in_db("replays/j4/g0002.jsonl.zst");
        assert!(is_in_db(&name) && !is_in_db("replays/j4/g0002.jsonl.zst"));
        assert_eq!(lines(&db, d.path(), 4, 2, &name).unwrap(), b"kept\n");
        // An older server's file, compressed or plain.
        std::fs::create_dir_all(d.path().join("replays/j1")).unwrap();
        std::fs::write(d.path().join("replays/j1/g0000.jsonl.zst"), &packed).unwrap();
        std::fs::write(d.path().join("replays/j1/g0001.jsonl"), b"plain\n").unwrap();
        let old = |g, rel| lines(&db, d.path(), 1, g, rel).unwrap();
        assert_eq!(old(0, "replays/j1/g0000.jsonl.zst"), b"kept\n");
        assert_eq!(old(1, "replays/j1/g0001.jsonl"), b"plain\n");
        // One that is in neither says which.
        let e = lines(&db, d.path(), 4, 3, "db:replays/j4/g0003.jsonl.zst").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(e.to_string(), "no replay of job 4 game 3 in the database");
        let e = lines(&db, d.path(), 1, 2, "replays/j1/g0002.jsonl").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}
