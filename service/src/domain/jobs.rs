//! Jobs: the unit of work of the ladder. A job is one table's set of duplicate deals: a set of
//! bot versions and `deals` deals, every deal played at every seat rotation (game number
//! `rotation * deals + deal`), so every version holds every hand of every deal.
//!
//! Workers *claim* jobs under a lease (`owner`, `lease_until`), renew it while they play, and
//! finish them; a job whose lease ends unrenewed is handed out again. The server's own
//! executor claims jobs exactly so (owner `local:...`); on start, the jobs its previous run
//! held are handed out again at once (that process is gone). Games are recorded by (job, game)
//! (`ladder/recorder.rs`), so a job played twice, or resumed part-way, records each game once.

use super::JobState;
use crate::db::{now_ms, Db, DbError};
use durak_rules::deck::{derive_seed, uniform_from_seed};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// One deal of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    /// The deck seed (`Game::new(setup, seed)`), as text in JSON (64 bits do not fit a JSON
    /// number everywhere).
    #[serde(with = "u64_text")]
    pub seed: u64,
    /// The dealer's seat at rotation 0; the same seat at every rotation, so the deal is the
    /// same deal for every bot.
    pub dealer: usize,
}

/// A job as a worker gets it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    pub id: i64,
    /// Version ids, the seat order of rotation 0.
    pub seats: Vec<i64>,
    pub deals: Vec<Deal>,
    pub priority: i64,
    pub state: JobState,
    pub owner: Option<String>,
    pub lease_until: Option<i64>,
    pub attempts: i64,
    /// `ladder` (rated), `compare` (a new version against its previous one, `ladder/compare/`) or
    /// `challenge`: only the ladder's games count on the leaderboard.
    #[serde(default = "ladder_kind")]
    pub kind: String,
}

fn ladder_kind() -> String {
    KIND_LADDER.to_string()
}

/// The kinds of job.
pub const KIND_LADDER: &str = "ladder";

/// Job priorities: the highest is claimed first (then the oldest).
pub mod priority {
    /// The ladder's own games.
    pub const LADDER: i64 = 0;
    /// Challenges (unrated games an author asked for).
    pub const CHALLENGE: i64 = 1;
    /// A new version against its author's previous one (`ladder/compare/`).
    pub const COMPARE: i64 = 2;
    /// A version that has just entered the ladder and has no game yet.
    pub const FIRST_GAMES: i64 = 3;
}

impl Job {
    /// Games in the job.
    pub fn games(&self) -> usize {
        self.seats.len() * self.deals.len()
    }

    /// The versions at each seat at `rotation`: rotation `r` seats `seats[(s + r) mod k]` at
    /// seat `s`.
    pub fn seating(&self, rotation: usize) -> Vec<i64> {
        let k = self.seats.len();
        (0..k).map(|s| self.seats[(s + rotation) % k]).collect()
    }

    /// Deal `deal` as the referee plays it at rotation `deal`'s own seating (at any rotation:
    /// the same deck and dealer).
    pub fn planned(&self, deal: usize) -> durak_referee::PlannedGame {
        durak_referee::PlannedGame {
            index: deal as u32,
            seed: self.deals[deal].seed,
            dealer: Some(self.deals[deal].dealer as durak_rules::Seat),
            first_game: true,
        }
    }

    /// Game (`rotation`, `deal`) played at a table seated as [`Job::seating`]`(at)`: the same
    /// deck with the dealer moved by `rotation - at` seats. Dealing, the first attack and every
    /// turn go round the table from the dealer (C-2, C-10, K-2), so each version gets the same
    /// hand at the same place after the dealer as at `seating(rotation)` with the deal's own
    /// dealer: the same game, its seats numbered from elsewhere. A table keeps one seating for
    /// every rotation of a job (and the jobs after it among the same versions), so the bots'
    /// processes play them all, each in one seat throughout (as the protocol says).
    pub fn planned_at(
        &self,
        rotation: usize,
        deal: usize,
        at: usize,
    ) -> durak_referee::PlannedGame {
        let k = self.seats.len();
        let mut p = self.planned(deal);
        p.dealer = Some((self.deals[deal].dealer + rotation % k + k - at % k) % k);
        p
    }

    /// The rotation `at` whose [`Job::seating`] is `seating`, if one is.
    pub fn rotation_seated(&self, seating: &[i64]) -> Option<usize> {
        (0..self.seats.len()).find(|&q| self.seating(q) == seating)
    }

    /// (rotation, deal) of game `game`.
    pub fn split(&self, game: u32) -> (usize, usize) {
        let d = self.deals.len();
        (game as usize / d, game as usize % d)
    }
}

pub mod u64_text {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum N {
            S(String),
            N(u64),
        }
        match N::deserialize(d)? {
            N::S(s) => s.parse().map_err(serde::de::Error::custom),
            N::N(n) => Ok(n),
        }
    }
}

/// Tags of the ladder's seeds (with the ladder seed and the job id).
const TAG_LADDER_DEAL: u64 = 0x71_0001;
const TAG_LADDER_DEALER: u64 = 0x71_0002;

/// The deals of job `id`: a pure function of the ladder seed and the job id.
pub fn deals_of(ladder_seed: u64, id: i64, deals: u32, table_size: usize) -> Vec<Deal> {
    (0..deals as u64)
        .map(|d| {
            let i = (id as u64) << 16 | d;
            Deal {
                seed: derive_seed(ladder_seed, TAG_LADDER_DEAL, i),
                dealer: uniform_from_seed(
                    derive_seed(ladder_seed, TAG_LADDER_DEALER, i),
                    table_size as u32,
                ) as usize,
            }
        })
        .collect()
}

fn row_to_job(r: &rusqlite::Row) -> rusqlite::Result<Job> {
    let seats: String = r.get(1)?;
    let deals: String = r.get(2)?;
    let bad = |e: serde_json::Error| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    };
    Ok(Job {
        id: r.get(0)?,
        seats: serde_json::from_str(&seats).map_err(bad)?,
        deals: serde_json::from_str(&deals).map_err(bad)?,
        priority: r.get(3)?,
        state: r.get(4)?,
        owner: r.get(5)?,
        lease_until: r.get(6)?,
        attempts: r.get(7)?,
        kind: r.get(8)?,
    })
}

const JOB_COLUMNS: &str = "id, seats, deals, priority, state, owner, lease_until, attempts, kind";

/// Create a ladder job for `seats` (version ids) with fresh deals; returns it.
pub fn create(
    db: &Db,
    ladder_seed: u64,
    seats: &[i64],
    deals: u32,
    priority: i64,
) -> Result<Job, DbError> {
    create_kind(db, ladder_seed, seats, deals, priority, KIND_LADDER)
}

/// [`create`] a job of `kind`.
pub fn create_kind(
    db: &Db,
    ladder_seed: u64,
    seats: &[i64],
    deals: u32,
    priority: i64,
    kind: &str,
) -> Result<Job, DbError> {
    let seats_json = serde_json::to_string(seats).expect("json");
    let k = seats.len();
    db.write_relaxed(|c| {
        let tx = c.transaction()?;
        tx.execute(
            "INSERT INTO jobs(seats, deals, priority, state, created, kind) VALUES (?1, '[]', \
             ?2, 'queued', ?3, ?4)",
            params![seats_json, priority, now_ms(), kind],
        )?;
        let id = tx.last_insert_rowid();
        let d = deals_of(ladder_seed, id, deals, k);
        tx.execute(
            "UPDATE jobs SET deals = ?1 WHERE id = ?2",
            params![serde_json::to_string(&d).expect("json"), id],
        )?;
        let job = job_row(&tx, id)?;
        tx.commit()?;
        Ok(job)
    })
}

/// Claim the next job (highest priority, then oldest) for `owner` until `lease_ms` from now:
/// a queued job, or a claimed one whose lease has ended.
pub fn claim(db: &Db, owner: &str, lease_ms: i64) -> Result<Option<Job>, DbError> {
    claim_as(db, owner, lease_ms, None)
}

/// [`claim`], and among the jobs of the highest priority open, one seating exactly `versions`
/// (at any rotation) first: a table seated with them plays it over the same processes.
pub fn claim_among(
    db: &Db,
    owner: &str,
    lease_ms: i64,
    versions: &[i64],
) -> Result<Option<Job>, DbError> {
    claim_preferring(db, owner, lease_ms, None, versions)
}

/// [`claim`], and when `worker` (a worker token's id) is given, the lease is written down as
/// handed to that token for that job, in the same transaction: the token may post the job's
/// games under it ([`handed`]), and under no other lease.
pub fn claim_as(
    db: &Db,
    owner: &str,
    lease_ms: i64,
    worker: Option<i64>,
) -> Result<Option<Job>, DbError> {
    claim_preferring(db, owner, lease_ms, worker, &[])
}

/// Every order of `versions`, as a job's `seats` is written (`[3,5]`), in a JSON array.
fn seatings_json(versions: &[i64]) -> String {
    fn orders(rest: &mut Vec<i64>, at: usize, out: &mut Vec<String>) {
        if at == rest.len() {
            out.push(serde_json::to_string(&rest).expect("json"));
            return;
        }
        for i in at..rest.len() {
            rest.swap(at, i);
            orders(rest, at + 1, out);
            rest.swap(at, i);
        }
    }
    let mut out = Vec::new();
    if !versions.is_empty() {
        orders(&mut versions.to_vec(), 0, &mut out);
    }
    serde_json::to_string(&out).expect("json")
}

/// [`claim_as`], preferring a job among `versions` as [`claim_among`] does (a worker that
/// plays such jobs in turn over the same processes).
pub fn claim_preferring(
    db: &Db,
    owner: &str,
    lease_ms: i64,
    worker: Option<i64>,
    versions: &[i64],
) -> Result<Option<Job>, DbError> {
    claim_next(db, owner, lease_ms, worker, versions, false)
}

/// [`claim_preferring`], but only when the job it would hand out is among `versions`: `None`
/// when there is none, or when a job of a higher priority among other versions comes first
/// (a worker's batch of jobs over the same processes stops there, and that job is played next).
pub fn claim_more_among(
    db: &Db,
    owner: &str,
    lease_ms: i64,
    worker: Option<i64>,
    versions: &[i64],
) -> Result<Option<Job>, DbError> {
    claim_next(db, owner, lease_ms, worker, versions, true)
}

fn claim_next(
    db: &Db,
    owner: &str,
    lease_ms: i64,
    worker: Option<i64>,
    versions: &[i64],
    only_among: bool,
) -> Result<Option<Job>, DbError> {
    let now = now_ms();
    let seatings = seatings_json(versions);
    db.write_relaxed(|c| {
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let found: Option<(i64, JobState, bool)> = tx
            .prepare_cached(
                "SELECT id, state, seats IN (SELECT value FROM json_each(?2)) AS among FROM jobs \
                 WHERE state = 'queued' OR (state = 'claimed' AND lease_until < ?1) ORDER BY \
                 priority DESC, among DESC, id LIMIT 1",
            )?
            .query_row(params![now, seatings], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        let Some((id, state, among)) = found else {
            return Ok(None);
        };
        if only_among && !among {
            return Ok(None);
        }
        tx.prepare_cached(
            "UPDATE jobs SET state = 'claimed', owner = ?1, lease_until = ?2, attempts = \
             attempts + 1 WHERE id = ?3",
        )?
        .execute(params![owner, now + lease_ms, id])?;
        if let Some(w) = worker {
            tx.prepare_cached(
                "INSERT OR IGNORE INTO job_leases(job, lease, worker, claimed) VALUES (?1, ?2, \
                 ?3, ?4)",
            )?
            .execute(params![id, owner, w, now])?;
        }
        let job = job_row(&tx, id)?;
        tx.commit()?;
        if state == JobState::Claimed {
            crate::metrics::lease_expired();
        }
        Ok(Some(job))
    })
}

/// Whether the server handed `lease` to worker token `worker` for job `job` (at any claim of
/// it: a worker's games are still the job's after its lease ended).
pub fn handed(db: &Db, job: i64, lease: &str, worker: i64) -> Result<bool, DbError> {
    db.read(|c| {
        c.prepare_cached(
            "SELECT COUNT(*) FROM job_leases WHERE job = ?1 AND lease = ?2 AND worker = ?3",
        )?
        .query_row(params![job, lease, worker], |r| r.get::<_, i64>(0))
        .map(|n| n > 0)
    })
}

/// Whether version `version` sits at a job that worker token `worker` was handed.
pub fn worker_had_version(db: &Db, worker: i64, version: i64) -> Result<bool, DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT EXISTS (SELECT 1 FROM job_leases l JOIN jobs j ON j.id = l.job, \
             json_each(j.seats) s WHERE l.worker = ?1 AND s.value = ?2)",
            params![worker, version],
            |r| r.get::<_, bool>(0),
        )
    })
}

/// Extend `owner`'s lease on a job; `false` when it holds the job no more (handed out again, or
/// cancelled).
pub fn renew(db: &Db, id: i64, owner: &str, lease_ms: i64) -> Result<bool, DbError> {
    db.write_relaxed(|c| {
        c.execute(
            "UPDATE jobs SET lease_until = ?1 WHERE id = ?2 AND owner = ?3 AND state = 'claimed'",
            params![now_ms() + lease_ms, id, owner],
        )
        .map(|n| n > 0)
    })
}

/// The job is over: `done` (every game recorded) unless it was cancelled meanwhile.
pub fn finish(db: &Db, id: i64, owner: &str) -> Result<bool, DbError> {
    db.write_relaxed(|c| {
        c.execute(
            "UPDATE jobs SET state = 'done', finished = ?1, owner = NULL, lease_until = NULL \
             WHERE id = ?2 AND owner = ?3 AND state = 'claimed'",
            params![now_ms(), id, owner],
        )
        .map(|n| n > 0)
    })
}

/// The job is over whoever held it, when every one of its games is recorded (a worker's last
/// results came in, perhaps after its lease ended): `true` when this call made it `done`.
pub fn finish_complete(db: &Db, id: i64) -> Result<bool, DbError> {
    db.write_relaxed(|c| {
        c.execute(
            "UPDATE jobs SET state = 'done', finished = ?1, owner = NULL, lease_until = NULL \
             WHERE id = ?2 AND state IN ('queued', 'claimed') AND (SELECT COUNT(*) FROM games \
             WHERE job = ?2) >= json_array_length(seats) * json_array_length(deals)",
            params![now_ms(), id],
        )
        .map(|n| n > 0)
    })
}

/// `owner` gives the job up (it stops before its end): queued again at once, for anyone.
pub fn release(db: &Db, id: i64, owner: &str) -> Result<bool, DbError> {
    db.write_relaxed(|c| {
        c.execute(
            "UPDATE jobs SET state = 'queued', owner = NULL, lease_until = NULL WHERE id = ?1 \
             AND owner = ?2 AND state = 'claimed'",
            params![id, owner],
        )
        .map(|n| n > 0)
    })
}

/// Cancel one job (queued or claimed): `true` when this call did.
pub fn cancel(db: &Db, id: i64) -> Result<bool, DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE jobs SET state = 'cancelled', finished = ?1, owner = NULL, lease_until = \
             NULL WHERE id = ?2 AND state IN ('queued', 'claimed')",
            params![now_ms(), id],
        )
        .map(|n| n > 0)
    })
}

/// Cancel the open jobs (queued or claimed) of a version: it left the ladder.
pub fn cancel_of_version(db: &Db, version: i64) -> Result<Vec<i64>, DbError> {
    let open = open_jobs(db)?;
    let ids: Vec<i64> = open
        .into_iter()
        .filter(|j| j.seats.contains(&version))
        .map(|j| j.id)
        .collect();
    cancel_many(db, &ids)?;
    Ok(ids)
}

/// Cancel the jobs `ids` that are still open (queued or claimed), in one transaction: those
/// this call cancelled. (A season's end cancels every open ladder job: a run is 50 of them,
/// and one commit each held the season's end for a second or more.)
pub fn cancel_many(db: &Db, ids: &[i64]) -> Result<Vec<i64>, DbError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    db.write(|c| {
        let tx = c.transaction()?;
        let mut done = Vec::new();
        for &id in ids {
            let n = tx
                .prepare_cached(
                    "UPDATE jobs SET state = 'cancelled', finished = ?1, owner = NULL, \
                     lease_until = NULL WHERE id = ?2 AND state IN ('queued', 'claimed')",
                )?
                .execute(params![now_ms(), id])?;
            if n > 0 {
                done.push(id);
            }
        }
        tx.commit()?;
        Ok(done)
    })
}

/// Queued and claimed jobs.
pub fn open_jobs(db: &Db) -> Result<Vec<Job>, DbError> {
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('queued', 'claimed') ORDER BY id"
        ))?;
        let rows = s.query_map([], row_to_job)?;
        rows.collect()
    })
}

pub fn get(db: &Db, id: i64) -> Result<Option<Job>, DbError> {
    db.read(|c| job_row(c, id).optional())
}

/// Job `id` read back (in the transaction that made or claimed it, or on a reader).
fn job_row(c: &rusqlite::Connection, id: i64) -> rusqlite::Result<Job> {
    c.prepare_cached(&format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?1"))?
        .query_row([id], row_to_job)
}

/// The server's executor gives a job up after too many attempts (`cancelled`, its owner
/// cleared).
pub fn give_up(db: &Db, id: i64) -> Result<(), DbError> {
    db.write(|c| {
        c.execute(
            "UPDATE jobs SET state = 'cancelled', owner = NULL WHERE id = ?1",
            [id],
        )
        .map(|_| ())
    })
}

/// Hand out again at once the jobs a previous run of this server held (owners starting with
/// `prefix`): that process is gone, its games in flight are played again.
pub fn release_owner_prefix(db: &Db, prefix: &str) -> Result<usize, DbError> {
    db.write_relaxed(|c| {
        c.execute(
            "UPDATE jobs SET state = 'queued', owner = NULL, lease_until = NULL WHERE state = \
             'claimed' AND owner LIKE ?1 || '%'",
            [prefix],
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn db() -> (tempfile::TempDir, Db) {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        (d, db)
    }

    #[test]
    fn deals_are_a_function_of_the_seed_and_the_job() {
        assert_eq!(deals_of(7, 3, 4, 2), deals_of(7, 3, 4, 2));
        assert_ne!(deals_of(7, 3, 4, 2), deals_of(7, 4, 4, 2));
        assert_ne!(deals_of(7, 3, 4, 2), deals_of(8, 3, 4, 2));
        assert!(deals_of(7, 3, 50, 3).iter().all(|d| d.dealer < 3));
    }

    #[test]
    fn a_table_claims_a_job_among_its_own_versions_first_but_never_before_a_higher_priority() {
        let (_d, db) = db();
        let other = create(&db, 1, &[1, 2], 2, 0).unwrap();
        let mine = create(&db, 1, &[3, 1, 2], 2, 0).unwrap();
        let also = create(&db, 1, &[2, 3, 1], 2, 0).unwrap();
        assert_eq!(seatings_json(&[1, 2]), r#"["[1,2]","[2,1]"]"#);
        assert_eq!(
            serde_json::from_str::<Vec<String>>(&seatings_json(&[1, 2, 3]))
                .unwrap()
                .len(),
            6
        );
        // Any order of the table's versions; the oldest first.
        let a = claim_among(&db, "t1", 60_000, &[1, 2, 3]).unwrap().unwrap();
        assert_eq!(a.id, mine.id);
        let fresh = create(&db, 1, &[4, 1, 2], 2, 1).unwrap();
        let b = claim_among(&db, "t1", 60_000, &[1, 2, 3]).unwrap().unwrap();
        assert_eq!(b.id, fresh.id, "a new version's job comes first");
        let c = claim_among(&db, "t1", 60_000, &[1, 2, 3]).unwrap().unwrap();
        assert_eq!(c.id, also.id);
        // None of its versions' left: the oldest.
        let d = claim_among(&db, "t1", 60_000, &[1, 2, 3]).unwrap().unwrap();
        assert_eq!(d.id, other.id);
        assert_eq!(claim_among(&db, "t1", 60_000, &[1, 2]).unwrap(), None);
    }

    #[test]
    fn more_jobs_come_only_among_the_same_versions_and_never_before_a_higher_priority() {
        let (_d, db) = db();
        let other = create(&db, 1, &[1, 3], 2, 0).unwrap();
        let mine = create(&db, 1, &[2, 1], 2, 0).unwrap();
        let also = create(&db, 1, &[1, 2], 2, 0).unwrap();
        let more = |owner: &str| claim_more_among(&db, owner, 60_000, Some(7), &[1, 2]).unwrap();
        assert_eq!(more("w:7:a").map(|j| j.id), Some(mine.id));
        let fresh = create(&db, 1, &[4, 1], 2, 1).unwrap();
        assert_eq!(
            more("w:7:b"),
            None,
            "a job of a higher priority comes first"
        );
        assert_eq!(get(&db, fresh.id).unwrap().unwrap().state, JobState::Queued);
        assert_eq!(
            claim(&db, "t", 60_000).unwrap().map(|j| j.id),
            Some(fresh.id)
        );
        assert_eq!(more("w:7:c").map(|j| j.id), Some(also.id));
        assert!(
            handed(&db, also.id, "w:7:c", 7).unwrap(),
            "its lease is the token's"
        );
        assert_eq!(more("w:7:d"), None, "none left among them: {other:?} stays");
        assert_eq!(get(&db, other.id).unwrap().unwrap().state, JobState::Queued);
    }

    #[test]
    fn a_job_is_claimed_once_and_again_after_its_lease() {
        let (_d, db) = db();
        let j = create(&db, 1, &[5, 6], 2, 0).unwrap();
        assert_eq!(j.games(), 4);
        assert_eq!(j.seating(1), vec![6, 5]);
        assert_eq!(j.split(3), (1, 1));
        let high = create(&db, 1, &[5, 7], 2, 1).unwrap();
        let a = claim(&db, "w1", 60_000).unwrap().unwrap();
        assert_eq!(a.id, high.id, "priority first");
        let b = claim(&db, "w2", 60_000).unwrap().unwrap();
        assert_eq!(b.id, j.id);
        assert_eq!(claim(&db, "w3", 60_000).unwrap(), None, "both held");
        assert!(
            renew(&db, b.id, "w2", -1).unwrap(),
            "its owner renews (here: ends) the lease"
        );
        assert!(!renew(&db, b.id, "w3", 60_000).unwrap(), "nobody else can");
        let again = claim(&db, "w3", 60_000).unwrap().unwrap();
        assert_eq!(
            (again.id, again.attempts),
            (j.id, 2),
            "handed out again after its lease"
        );
        assert!(!finish(&db, j.id, "w2").unwrap(), "the first owner lost it");
        assert!(finish(&db, j.id, "w3").unwrap());
        assert_eq!(get(&db, j.id).unwrap().unwrap().state, JobState::Done);
        assert_eq!(cancel_of_version(&db, 7).unwrap(), vec![high.id]);
        assert_eq!(open_jobs(&db).unwrap(), vec![]);
    }

    #[test]
    fn many_jobs_are_cancelled_at_once_and_only_the_open_ones_are_said_to_be() {
        let (_d, db) = db();
        let ids: Vec<i64> = (0..60)
            .map(|_| create(&db, 1, &[5, 6], 2, 0).unwrap().id)
            .collect();
        let held = claim(&db, "w1", 60_000).unwrap().unwrap();
        let done = claim(&db, "w2", 60_000).unwrap().unwrap();
        assert!(finish(&db, done.id, "w2").unwrap());
        let cancelled = cancel_many(&db, &ids).unwrap();
        assert_eq!(cancelled.len(), 59, "all but the done one");
        assert!(cancelled.contains(&held.id), "a claimed job too");
        assert!(!cancelled.contains(&done.id));
        assert_eq!(open_jobs(&db).unwrap(), vec![]);
        assert_eq!(get(&db, done.id).unwrap().unwrap().state, JobState::Done);
        assert_eq!(cancel_many(&db, &ids).unwrap(), Vec::<i64>::new(), "once");
    }

    #[test]
    fn a_job_is_done_when_all_its_games_are_in_whoever_posted_them() {
        let (_d, db) = db();
        let db = std::sync::Arc::new(db);
        let j = create(&db, 1, &[1, 2], 1, 0).unwrap();
        let mine = claim(&db, "worker:1:a", 60_000).unwrap().unwrap();
        assert_eq!(mine.id, j.id);
        assert!(!release(&db, j.id, "worker:2:b").unwrap(), "not its lease");
        assert!(release(&db, j.id, "worker:1:a").unwrap());
        assert_eq!(get(&db, j.id).unwrap().unwrap().state, JobState::Queued);
        claim(&db, "worker:2:b", 60_000).unwrap().unwrap();
        let n = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let r = crate::ladder::recorder::Recorder::start(db.clone(), 3, n);
        let game = |g: u32| crate::ladder::recorder::GameIn {
            job: j.id,
            game: g,
            rotation: g as usize,
            deal: 0,
            seats: j.seating(g as usize),
            record: durak_referee::GameRecord {
                voided: Vec::new(),
                void: false,
                move_limit: None,
                game: 0,
                seed: j.deals[0].seed,
                dealer: j.deals[0].dealer,
                loser: Some(0),
                draw: false,
                faults: vec![],
                moves: 3,
                replay: None,
                duration_ms: 1,
            },
            replay: b"x\n".to_vec(),
            played_by: "worker:1".into(),
        };
        r.record(game(0)).unwrap();
        assert!(!finish_complete(&db, j.id).unwrap(), "one game of two");
        r.record(game(1)).unwrap();
        assert!(
            finish_complete(&db, j.id).unwrap(),
            "by whoever posted the last"
        );
        assert!(!finish_complete(&db, j.id).unwrap(), "once");
        assert!(!finish(&db, j.id, "worker:2:b").unwrap(), "done already");
        assert_eq!(get(&db, j.id).unwrap().unwrap().state, JobState::Done);
    }

    /// Play game (`rotation`, deal 0) of `job` at a table seated as `seating(at)`, every
    /// version with its own strategy (greedy for even ids, random from its own generator for
    /// odd ones): every decision as (the version deciding, its move), and the version that lost.
    fn play_seated(
        job: &Job,
        variant: durak_rules::Variant,
        rotation: usize,
        at: usize,
    ) -> (Vec<(i64, durak_rules::Move)>, Option<i64>) {
        use durak_rules::random::{greedy_move, random_move, SmallRng};
        use durak_rules::{Game, Legal, Setup};
        let seating = job.seating(at);
        let p = job.planned_at(rotation, 0, at);
        let setup = Setup {
            variant,
            players: seating.len(),
            dealer: p.dealer.unwrap(),
            first_game: true,
        };
        let mut game = Game::new(setup, p.seed).unwrap();
        let mut rngs: HashMap<i64, SmallRng> = seating
            .iter()
            .map(|&v| (v, SmallRng::new(v as u64)))
            .collect();
        let (mut legal, mut events, mut trace) = (Legal::empty(), Vec::new(), Vec::new());
        while game.legal_into(&mut legal) && game.move_count() < 2000 {
            let seat = legal.decision.seat;
            let v = seating[seat];
            let mv = match v % 2 {
                0 => greedy_move(&legal, game.trump()),
                _ => random_move(&legal, rngs.get_mut(&v).unwrap()),
            };
            game.apply_into(seat, &mv, &mut events).unwrap();
            trace.push((v, mv));
        }
        let loser = game.outcome().and_then(|o| o.loser).map(|s| seating[s]);
        (trace, loser)
    }

    #[test]
    fn a_rotation_played_at_another_seating_is_the_same_game() {
        use durak_rules::Variant;
        let mut decided = 0;
        // P-1: prostoy at 2 to 4 players; podkidnoy at 2 to 6 (K-1).
        for (variant, most) in [(Variant::Podkidnoy, 6), (Variant::Prostoy, 4)] {
            for k in 2..=most {
                for seed in 0..8u64 {
                    let seats: Vec<i64> = (0..k as i64).map(|i| 100 + 7 * i).collect();
                    let mut job = create_free(&seats, seed);
                    for dealer in 0..k {
                        job.deals[0].dealer = dealer;
                        for rotation in 0..k {
                            let own = play_seated(&job, variant, rotation, rotation);
                            for at in 0..k {
                                let other = play_seated(&job, variant, rotation, at);
                                assert_eq!(
                                    own, other,
                                    "{variant:?}, {k} seats, seed {seed}, dealer {dealer}, \
                                     rotation {rotation} seated as rotation {at}"
                                );
                                decided += own.1.is_some() as u32;
                            }
                        }
                    }
                }
            }
        }
        assert!(decided > 1000, "most games have a loser: {decided}");
    }

    /// A job of `seats` with one deal of deck seed `seed`, not in any database.
    fn create_free(seats: &[i64], seed: u64) -> Job {
        Job {
            id: 1,
            seats: seats.to_vec(),
            deals: vec![Deal { seed, dealer: 0 }],
            priority: 0,
            state: JobState::Claimed,
            owner: None,
            lease_until: None,
            attempts: 1,
            kind: ladder_kind(),
        }
    }

    #[test]
    fn a_table_finds_the_rotation_it_is_seated_as() {
        let j = create_free(&[4, 5, 6], 1);
        assert_eq!(j.rotation_seated(&[5, 6, 4]), Some(1));
        assert_eq!(j.rotation_seated(&[6, 4, 5]), Some(2));
        assert_eq!(j.rotation_seated(&[4, 6, 5]), None, "not a rotation");
        assert_eq!(j.rotation_seated(&[4, 5]), None);
        // The deal's own dealer at its own seating; moved with the table otherwise.
        let mut j = j;
        j.deals[0].dealer = 2;
        assert_eq!(j.planned_at(1, 0, 1).dealer, Some(2));
        assert_eq!(j.planned_at(1, 0, 0).dealer, Some(0));
        assert_eq!(j.planned_at(0, 0, 2).dealer, Some(0));
    }

    #[test]
    fn a_restarted_server_releases_its_own_claims_at_once() {
        let (_d, db) = db();
        create(&db, 1, &[1, 2], 1, 0).unwrap();
        create(&db, 1, &[1, 3], 1, 0).unwrap();
        claim(&db, "local:old", 600_000).unwrap().unwrap();
        claim(&db, "remote:x", 600_000).unwrap().unwrap();
        assert_eq!(release_owner_prefix(&db, "local:").unwrap(), 1);
        let j = claim(&db, "local:new", 600_000).unwrap().unwrap();
        assert_eq!(j.seats, vec![1, 2]);
        assert_eq!(
            claim(&db, "local:new", 600_000).unwrap(),
            None,
            "the remote lease holds"
        );
    }
}
