
CREATE TABLE worker_tokens (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL DEFAULT '',
    created INTEGER NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0,
    last_seen INTEGER
);
ALTER TABLE games ADD COLUMN played_by TEXT;
