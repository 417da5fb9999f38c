-- Issue 23: every game's replay, kept in the database with its row (one transaction, one sync
-- per batch of games) instead of a file and a folder per game. `bytes` is what a replay file
-- would hold: the JSON lines, compressed with zstd (a `.jsonl.zst` file's bytes) or plain.
-- `games.replay` of such a game is `db:replays/jJOB/gGAME.jsonl.zst` (`store/replays.rs`).
CREATE TABLE game_replays (
    job INTEGER NOT NULL,
    game INTEGER NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (job, game)
);
