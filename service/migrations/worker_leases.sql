
CREATE TABLE job_leases (
    job INTEGER NOT NULL,
    lease TEXT NOT NULL,
    worker INTEGER NOT NULL,
    claimed INTEGER NOT NULL,
    PRIMARY KEY (job, lease)
) WITHOUT ROWID;
CREATE INDEX job_leases_worker ON job_leases(worker, job);
CREATE TABLE job_failures (
    job INTEGER NOT NULL,
    lease TEXT NOT NULL,
    worker INTEGER NOT NULL,
    version INTEGER,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (job, lease)
) WITHOUT ROWID;
