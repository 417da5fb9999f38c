
CREATE TABLE seasons (
    n INTEGER PRIMARY KEY,
    started INTEGER NOT NULL,
    first_job INTEGER NOT NULL,
    ended INTEGER,
    ended_by TEXT,
    leaderboard TEXT,
    tournament INTEGER REFERENCES tournaments(id),
    final_error TEXT
);
INSERT INTO seasons(n, started, first_job) VALUES (1, COALESCE((SELECT MIN(created) FROM
    accounts), CAST(strftime('%s', 'now') AS INTEGER) * 1000), 1);
