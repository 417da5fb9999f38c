
CREATE INDEX game_seats_game ON game_seats(job, game);
CREATE TABLE game_rerun_steps (
    job INTEGER NOT NULL,
    game INTEGER NOT NULL,
    steps TEXT NOT NULL,
    PRIMARY KEY (job, game)
) WITHOUT ROWID;
