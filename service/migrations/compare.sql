
CREATE TABLE comparisons (
    version INTEGER PRIMARY KEY REFERENCES versions(id),
    previous INTEGER NOT NULL REFERENCES versions(id),
    state TEXT NOT NULL,
    verdict TEXT,
    result TEXT,
    created INTEGER NOT NULL,
    finished INTEGER
);
