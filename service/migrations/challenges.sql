
CREATE TABLE challenges (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL REFERENCES accounts(id),
    version INTEGER NOT NULL REFERENCES versions(id),
    opponent INTEGER NOT NULL REFERENCES versions(id),
    deals INTEGER NOT NULL,
    job INTEGER NOT NULL REFERENCES jobs(id),
    created INTEGER NOT NULL
);
CREATE INDEX challenges_account ON challenges(account, created);
