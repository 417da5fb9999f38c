
CREATE TABLE play_games (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL REFERENCES accounts(id),
    version INTEGER NOT NULL REFERENCES versions(id),
    seat INTEGER NOT NULL,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    state TEXT NOT NULL,
    moves TEXT NOT NULL DEFAULT '[]',
    result TEXT,
    replay TEXT,
    verified TEXT,
    created INTEGER NOT NULL,
    finished INTEGER
);
CREATE INDEX play_games_account ON play_games(account, state, id);
