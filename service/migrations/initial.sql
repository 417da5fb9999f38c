
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    organiser INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
);
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL REFERENCES accounts(id),
    hash TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL DEFAULT '',
    created INTEGER NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE invites (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    created INTEGER NOT NULL,
    used_by INTEGER REFERENCES accounts(id)
);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    account INTEGER NOT NULL REFERENCES accounts(id),
    house INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
);
-- One row per submitted version. state: queued (on disk, waiting for its check), building,
-- checking, active (in the ladder), failed, retired (a newer version passed), suspended
-- (faulted repeatedly), disqualified, removed.
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    bot INTEGER NOT NULL REFERENCES bots(id),
    n INTEGER NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    archive TEXT,
    sha256 TEXT,
    size INTEGER,
    command TEXT NOT NULL,
    folder TEXT,
    language TEXT NOT NULL DEFAULT '',
    build_cmd TEXT,
    build TEXT,
    report TEXT,
    submitted INTEGER NOT NULL,
    checked INTEGER,
    entered INTEGER,
    first_game INTEGER,
    fault_streak INTEGER NOT NULL DEFAULT 0,
    UNIQUE (bot, n)
);
CREATE INDEX versions_state ON versions(state);
-- A job: one table's set of duplicate deals. seats: the version ids of the set of bots
-- (seat order of rotation 0); deals: [{seed, dealer}]; every deal is played at every seat
-- rotation, game = rotation * deals + deal. state: queued, claimed (by owner until lease_until,
-- unix ms), done, cancelled.
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL DEFAULT 'ladder',
    seats TEXT NOT NULL,
    deals TEXT NOT NULL,
    priority INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    owner TEXT,
    lease_until INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL,
    finished INTEGER
);
CREATE INDEX jobs_state ON jobs(state, priority, id);
CREATE TABLE games (
    job INTEGER NOT NULL REFERENCES jobs(id),
    game INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    loser INTEGER,
    draw INTEGER NOT NULL,
    faults TEXT NOT NULL,
    moves INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    move_limit INTEGER,
    replay TEXT NOT NULL,
    recorded INTEGER NOT NULL,
    PRIMARY KEY (job, game)
) WITHOUT ROWID;
-- Which versions played which game (a version's page lists its games).
CREATE TABLE game_seats (
    version INTEGER NOT NULL,
    job INTEGER NOT NULL,
    game INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    PRIMARY KEY (version, job, game, seat)
) WITHOUT ROWID;
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    state TEXT NOT NULL,
    dir TEXT NOT NULL,
    bots TEXT NOT NULL,
    created INTEGER NOT NULL,
    finished INTEGER,
    error TEXT
);
