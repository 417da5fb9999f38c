
CREATE TABLE game_analysis (
    job INTEGER NOT NULL,
    game INTEGER NOT NULL,
    endgame TEXT NOT NULL,
    seats TEXT NOT NULL,
    PRIMARY KEY (job, game)
) WITHOUT ROWID;
