//! Recording finished games, in group commits. Every game of the ladder — played by the
//! server's own tables or posted by a remote worker (after the server verified its replay,
//! `verify.rs`) — goes to the one *recorder* thread, which takes whatever games are waiting
//! (up to [`MAX_BATCH`]) and makes them durable together:
//!
//! 1. a game already recorded (by `(job, game)`: in the database, or earlier in the batch) is
//!    left as it is, and its replay is not touched — a job played twice, or resumed
//!    part-way, or finished by a worker after its lease ended, records each game once;
//! 2. one transaction (`synchronous = FULL`: one fsync of the WAL) inserts every new game's row
//!    and its replay (`game_replays`, `store/replays.rs`: compressed with zstd as tournaments
//!    write theirs, a few KB a game), and updates the fault streaks of its versions,
//!    suspending one that faulted in `max_consecutive_faults` games in a row (or could not be
//!    started at all), as tournaments disqualify;
//! 3. only then does each waiting caller get its answer: a table counts its job on the
//!    leaderboard once every game of it is answered, and a worker's post is acknowledged once
//!    its games are.
//!
//! Replays were files (`DATA/replays/jJOB/gGAME.jsonl.zst`) until issue 23: a file and a folder
//! per game, each synced, cost the recorder more CPU than the tables spent playing, and the
//! ladder played at 0.45 of a tournament's pace. Older data directories keep their files, and
//! every reader takes both.
//!
//! A batch is whatever arrived while the previous one was being committed: at one table
//! playing fast, games wait for at most about two commits (a few milliseconds to tens on a
//! slow disk), and at many tables and workers one commit takes them all.

use crate::db::{now_ms, Db};
use durak_protocol::{Fault, FaultKind};
use durak_referee::replay::ZSTD_MAGIC;
use durak_referee::GameRecord;
use rusqlite::params;
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Games in one commit, at most.
pub const MAX_BATCH: usize = 512;

/// The name of a game's replay, as a file relative to the data directory (older servers wrote
/// it there; it is now kept in the database under this name, `store/replays.rs`):
/// `.jsonl.zst` when it is compressed (every replay the ladder records now), `.jsonl` when not
/// (older data directories hold those; every reader takes both).
pub fn replay_rel(job: i64, game: u32, compressed: bool) -> String {
    let ext = if compressed { "jsonl.zst" } else { "jsonl" };
    format!("replays/j{job}/g{game:04}.{ext}")
}

/// What a start removes from `DATA/replays/jJOB/` beside the recorded games' files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// Only the atomic writer's temporaries (`.replay-*.tmp`): a server killed while writing a
    /// replay leaves one, of a game that was never recorded. Every start sweeps these (no
    /// writer runs yet: the data directory's lock keeps a second server out).
    Temporaries,
    /// Those and the referee's own copies of games that were not recorded (`rR-gNNNN.jsonl`,
    /// of jobs cancelled or given up while being played), which older servers left: this
    /// server takes every log and writes only the recorder's files, so once per directory.
    OlderServers,
}

/// Remove the files `sweep` names from `DATA/replays/jJOB/`. Returns how many it removed.
pub fn sweep_stray_replays(replays: &Path, sweep: Sweep) -> std::io::Result<usize> {
    let Ok(jobs) = std::fs::read_dir(replays) else {
        return Ok(0);
    };
    let mut n = 0;
    for job in jobs {
        let job = job?;
        if !job.file_name().to_string_lossy().starts_with('j') || !job.file_type()?.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(job.path())? {
            let f = f?;
            let name = f.file_name();
            let name = name.to_string_lossy();
            let temporary = name.starts_with(".replay-") && name.ends_with(".tmp");
            let older = name.starts_with('r') && name.contains("-g") && name.contains(".jsonl");
            let stray = temporary || (sweep == Sweep::OlderServers && older);
            if stray && f.file_type()?.is_file() {
                std::fs::remove_file(f.path())?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// What recording a game did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// It was not recorded before.
    pub new: bool,
    /// Versions suspended by this game: (seat, version, reason).
    pub suspended: Vec<(usize, i64, String)>,
}

/// A game to record.
#[derive(Clone, Debug)]
pub struct GameIn {
    pub job: i64,
    pub game: u32,
    pub rotation: usize,
    pub deal: usize,
    /// Version ids by seat.
    pub seats: Vec<i64>,
    pub record: GameRecord,
    /// The replay's bytes: its JSON lines compressed with zstd
    /// (`durak_referee::replay::compress_replay`; plain lines are named a `.jsonl`).
    pub replay: Vec<u8>,
    /// Who played it: `local` (the server's tables) or `worker:ID` (a worker token's id).
    pub played_by: String,
}

impl GameIn {
    /// Its replay's name, by what its bytes are.
    pub fn replay_rel(&self) -> String {
        replay_rel(self.job, self.game, self.replay.starts_with(&ZSTD_MAGIC))
    }
}

/// Why a game was not recorded (each game of a batch that failed is told the same).
#[derive(Clone, Debug, thiserror::Error)]
pub enum RecordError {
    #[error("the recorder stopped")]
    Stopped,
    #[error("not recorded")]
    NotRecorded,
    #[error("not durable within {0} s")]
    NotDurable(u64),
    #[error(transparent)]
    Db(Arc<crate::db::DbError>),
}

impl From<crate::db::DbError> for RecordError {
    fn from(e: crate::db::DbError) -> RecordError {
        RecordError::Db(Arc::new(e))
    }
}

type Answer = Result<Recorded, RecordError>;

struct Item {
    game: GameIn,
    answer: mpsc::SyncSender<Answer>,
}

/// The answer to one game, once its batch is committed.
pub struct Ticket(mpsc::Receiver<Answer>);

impl Ticket {
    /// Wait for the answer.
    pub fn wait(self) -> Answer {
        self.0.recv().unwrap_or(Err(RecordError::Stopped))
    }

    /// The answer if it came already.
    pub fn try_get(&self) -> Option<Answer> {
        match self.0.try_recv() {
            Ok(a) => Some(a),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err(RecordError::Stopped)),
        }
    }
}

/// How the recorder kept up (for `GET /api/status` and the benchmarks).
#[derive(Debug, Default)]
pub struct Stats {
    pub commits: AtomicU64,
    pub games: AtomicU64,
    /// The longest commit, in microseconds.
    pub commit_max_us: AtomicU64,
}

/// The recorder: a thread, and the queue to it.
pub struct Recorder {
    tx: Mutex<mpsc::Sender<Item>>,
    pub stats: Arc<Stats>,
}

impl Recorder {
    /// Start the recorder thread over `db` and the data directory `root`. `recorded` counts the
    /// new games it records.
    pub fn start(db: Arc<Db>, max_consecutive_faults: u32, recorded: Arc<AtomicU64>) -> Recorder {
        let (tx, rx) = mpsc::channel::<Item>();
        let stats = Arc::new(Stats::default());
        let st = stats.clone();
        std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || {
                let c = Committer {
                    db,
                    max_consecutive_faults,
                    recorded,
                    stats: st,
                };
                while let Ok(first) = rx.recv() {
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH {
                        match rx.try_recv() {
                            Ok(i) => batch.push(i),
                            Err(_) => break,
                        }
                    }
                    c.commit(batch);
                }
            })
            .expect("thread");
        Recorder {
            tx: Mutex::new(tx),
            stats,
        }
    }

    /// Queue a game; its [`Ticket`] answers once it is durable (or was recorded before).
    pub fn submit(&self, game: GameIn) -> Ticket {
        let (answer, rx) = mpsc::sync_channel(1);
        let sent = self
            .tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(Item { game, answer });
        if let Err(mpsc::SendError(item)) = sent {
            let _ = item.answer.send(Err(RecordError::Stopped));
        }
        Ticket(rx)
    }

    /// Record one game and wait for it.
    pub fn record(&self, game: GameIn) -> Answer {
        self.submit(game).wait()
    }
}

struct Committer {
    db: Arc<Db>,
    max_consecutive_faults: u32,
    recorded: Arc<AtomicU64>,
    stats: Arc<Stats>,
}

impl Committer {
    fn commit(&self, batch: Vec<Item>) {
        let start = std::time::Instant::now();
        let mut answers: Vec<Option<Answer>> = vec![None; batch.len()];
        // 1. Games recorded already.
        let keys: Vec<(i64, u32)> = batch.iter().map(|i| (i.game.job, i.game.game)).collect();
        let known = match self.recorded_of(&keys) {
            Ok(k) => k,
            Err(e) => {
                for i in batch {
                    let _ = i.answer.send(Err(e.clone()));
                }
                return;
            }
        };
        let mut seen: HashSet<(i64, u32)> = HashSet::new();
        let mut fresh = Vec::new();
        for (n, item) in batch.iter().enumerate() {
            let k = (item.game.job, item.game.game);
            if known.contains(&k) || !seen.insert(k) {
                answers[n] = Some(Ok(Recorded::default()));
            } else {
                fresh.push(n);
            }
        }
        // 2. One transaction (one sync) for every new game's row and replay.
        let games: Vec<&GameIn> = fresh.iter().map(|&n| &batch[n].game).collect();
        let rows = self.insert(&games);
        match rows {
            Ok(out) => {
                for (&n, r) in fresh.iter().zip(out) {
                    if r.new {
                        self.recorded.fetch_add(1, Ordering::Relaxed);
                        crate::metrics::game_recorded(&batch[n].game.record.faults);
                    }
                    answers[n] = Some(Ok(r));
                }
            }
            Err(e) => {
                for &n in &fresh {
                    answers[n] = Some(Err(e.clone()));
                }
            }
        }
        let us = start.elapsed().as_micros() as u64;
        self.stats.commits.fetch_add(1, Ordering::Relaxed);
        crate::metrics::recorder_commit();
        self.stats
            .games
            .fetch_add(fresh.len() as u64, Ordering::Relaxed);
        self.stats.commit_max_us.fetch_max(us, Ordering::Relaxed);
        // 3. The answers.
        for (item, a) in batch.into_iter().zip(answers) {
            let _ = item.answer.send(a.unwrap_or(Err(RecordError::NotRecorded)));
        }
    }

    fn recorded_of(&self, keys: &[(i64, u32)]) -> Result<HashSet<(i64, u32)>, RecordError> {
        self.db
            .read(|c| {
                let mut s = c.prepare_cached("SELECT 1 FROM games WHERE job = ?1 AND game = ?2")?;
                let mut out = HashSet::new();
                for &(job, game) in keys {
                    if s.exists(params![job, game])? {
                        out.insert((job, game));
                    }
                }
                Ok(out)
            })
            .map_err(RecordError::from)
    }

    fn insert(&self, games: &[&GameIn]) -> Result<Vec<Recorded>, RecordError> {
        let now = now_ms();
        self.db
            .write(|c| {
                let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                let mut out = Vec::with_capacity(games.len());
                for g in games {
                    out.push(insert_one(&tx, g, now, self.max_consecutive_faults)?);
                }
                tx.commit()?;
                Ok(out)
            })
            .map_err(RecordError::from)
    }
}

fn insert_one(
    tx: &rusqlite::Transaction,
    g: &GameIn,
    now: i64,
    max_consecutive_faults: u32,
) -> rusqlite::Result<Recorded> {
    let r = &g.record;
    let faults = serde_json::to_string(&r.faults).expect("json");
    let seats = serde_json::to_string(&g.seats).expect("json");
    let n = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO games(job, game, rotation, deal, seats, seed, dealer, loser, \
         draw, faults, moves, duration_ms, move_limit, replay, recorded, played_by, voided, \
         void) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
         ?17, ?18)",
        )?
        .execute(params![
            g.job,
            g.game,
            g.rotation as i64,
            g.deal as i64,
            seats,
            r.seed as i64,
            r.dealer as i64,
            r.loser.map(|l| l as i64),
            r.draw as i64,
            faults,
            r.moves,
            r.duration_ms as i64,
            r.move_limit,
            crate::store::replays::in_db(&g.replay_rel()),
            now,
            g.played_by,
            (!r.voided.is_empty()).then(|| serde_json::to_string(&r.voided).expect("json")),
            r.void as i64,
        ])?;
    let mut out = Recorded {
        new: n > 0,
        suspended: Vec::new(),
    };
    if !out.new {
        return Ok(out);
    }
    crate::store::replays::insert(tx, g.job, g.game, &g.replay)?;
    for (seat, &v) in g.seats.iter().enumerate() {
        tx.prepare_cached(
            "INSERT OR IGNORE INTO game_seats(version, job, game, seat) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![v, g.job, g.game, seat as i64])?;
        tx.prepare_cached(
            "UPDATE versions SET first_game = ?1 WHERE id = ?2 AND first_game IS NULL",
        )?
        .execute(params![now, v])?;
        let mine: Vec<&Fault> = r.faults.iter().filter(|f| f.seat == seat).collect();
        if mine.is_empty() {
            tx.prepare_cached("UPDATE versions SET fault_streak = 0 WHERE id = ?1")?
                .execute([v])?;
            continue;
        }
        let streak: i64 = tx.query_row(
            "UPDATE versions SET fault_streak = fault_streak + 1 WHERE id = ?1 RETURNING \
             fault_streak",
            [v],
            |r| r.get(0),
        )?;
        let start_failed = mine.iter().find(|f| f.kind == FaultKind::StartFailed);
        let reason = if let Some(f) = start_failed {
            Some(format!(
                "could not be started (job {}, game {}): {}",
                g.job, g.game, f.detail
            ))
        } else if max_consecutive_faults > 0 && streak >= max_consecutive_faults as i64 {
            Some(format!(
                "faulted in {streak} games in a row (the last, job {} game {}: {}: {})",
                g.job, g.game, mine[0].kind, mine[0].detail
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            if crate::domain::versions::suspend_active(tx, v, &reason)? {
                out.suspended.push((seat, v, reason));
            }
        }
    }
    Ok(out)
}

/// Games of a job already recorded.
pub fn recorded_games(db: &Db, job: i64) -> Result<Vec<u32>, crate::db::DbError> {
    db.read(|c| {
        let mut s = c.prepare_cached("SELECT game FROM games WHERE job = ?1 ORDER BY game")?;
        let rows = s.query_map([job], |r| r.get(0))?;
        rows.collect()
    })
}

/// Wait for a ticket at most `d` (for callers that must not hang on a stuck disk).
pub fn wait_for(t: Ticket, d: Duration) -> Answer {
    t.0.recv_timeout(d)
        .unwrap_or(Err(RecordError::NotDurable(d.as_secs())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_start_sweeps_temporaries_and_only_the_first_the_older_servers_copies() {
        let tmp = tempfile::tempdir().unwrap();
        let job = tmp.path().join("j3");
        std::fs::create_dir_all(&job).unwrap();
        let names = [".replay-x1.tmp", "r7-g0001.jsonl", "g0001.jsonl.zst"];
        let plant = || {
            for n in names {
                std::fs::write(job.join(n), b"x").unwrap();
            }
        };
        plant();
        assert_eq!(
            sweep_stray_replays(tmp.path(), Sweep::Temporaries).unwrap(),
            1
        );
        assert!(!job.join(".replay-x1.tmp").exists());
        assert!(job.join("r7-g0001.jsonl").exists());
        plant();
        assert_eq!(
            sweep_stray_replays(tmp.path(), Sweep::OlderServers).unwrap(),
            2
        );
        assert!(
            job.join("g0001.jsonl.zst").exists(),
            "a recorded game's file stays"
        );
    }

    #[test]
    fn a_game_not_recorded_says_why() {
        let (tx, rx) = mpsc::sync_channel(1);
        let e = wait_for(Ticket(rx), Duration::from_millis(1)).unwrap_err();
        assert!(matches!(e, RecordError::NotDurable(0)), "{e:?}");
        assert_eq!(e.to_string(), "not durable within 0 s");
        let (_, rx) = mpsc::sync_channel::<Answer>(1);
        drop(tx);
        let e = Ticket(rx).wait().unwrap_err();
        assert_eq!(e.to_string(), "the recorder stopped");
    }

    fn game(job: i64, game: u32, seats: Vec<i64>, faults: Vec<Fault>, text: &str) -> GameIn {
        GameIn {
            job,
            game,
            rotation: 0,
            deal: game as usize,
            seats,
            record: GameRecord {
                voided: Vec::new(),
                void: false,
                move_limit: None,
                game,
                seed: 7,
                dealer: 0,
                loser: Some(1),
                draw: false,
                faults,
                moves: 10,
                replay: None,
                duration_ms: 3,
            },
            replay: text.as_bytes().to_vec(),
            played_by: "local".into(),
        }
    }

    #[test]
    fn a_game_is_recorded_once_and_its_first_replay_stays() {
        let d = tempfile::tempdir().unwrap();
        let db = Arc::new(Db::open(&d.path().join("s.db")).unwrap());
        let n = Arc::new(AtomicU64::new(0));
        let r = Recorder::start(db.clone(), 3, n.clone());
        let job = crate::ladder::jobs::create(&db, 1, &[1, 2], 2, 0).unwrap();
        assert_eq!(job.id, 1);
        // Two copies of one game in one batch, and again later: the first stays.
        let a = r.submit(game(1, 0, vec![1, 2], vec![], "first\n"));
        let b = r.submit(game(1, 0, vec![1, 2], vec![], "second\n"));
        // (A compressed replay, as the ladder records them all, goes to a .jsonl.zst.)
        let mut packed = game(1, 1, vec![1, 2], vec![], "");
        packed.replay = durak_referee::replay::compress_replay(b"other\n").unwrap();
        let c = r.submit(packed);
        let news: Vec<bool> = [a, b, c]
            .into_iter()
            .map(|t| t.wait().unwrap().new)
            .collect();
        assert_eq!(news.iter().filter(|x| **x).count(), 2, "{news:?}");
        assert!(news[2]);
        let again = r.record(game(1, 0, vec![1, 2], vec![], "third\n")).unwrap();
        assert!(!again.new);
        assert_eq!(n.load(Ordering::Relaxed), 2);
        let replays = crate::store::replays::lines;
        let text = replays(&db, d.path(), 1, 0, "db:replays/j1/g0000.jsonl").unwrap();
        assert_eq!(text, b"first\n", "the first copy is the one kept");
        assert_eq!(recorded_games(&db, 1).unwrap(), vec![0, 1]);
        let rel: String = db
            .read(|c| c.query_row("SELECT replay FROM games WHERE game = 1", [], |r| r.get(0)))
            .unwrap();
        assert_eq!(rel, "db:replays/j1/g0001.jsonl.zst");
        let raw = crate::store::replays::stored(&db, d.path(), 1, 1, &rel).unwrap();
        assert!(raw.starts_with(&ZSTD_MAGIC), "kept as it came: compressed");
        assert_eq!(replays(&db, d.path(), 1, 1, &rel).unwrap(), b"other\n");
        assert!(
            std::fs::read_dir(d.path())
                .unwrap()
                .all(|e| e.unwrap().file_name() != "replays"),
            "no file per game"
        );
        let by: String = db
            .read(|c| c.query_row("SELECT played_by FROM games LIMIT 1", [], |r| r.get(0)))
            .unwrap();
        assert_eq!(by, "local");
    }

    #[test]
    fn a_void_game_keeps_its_reasons_and_counts_for_nobody_in_the_standings() {
        let d = tempfile::tempdir().unwrap();
        let db = Arc::new(Db::open(&d.path().join("s.db")).unwrap());
        let n = Arc::new(AtomicU64::new(0));
        let r = Recorder::start(db.clone(), 3, n);
        crate::ladder::jobs::create(&db, 1, &[1, 2], 2, 0).unwrap();
        let mut void = game(1, 0, vec![1, 2], vec![], "void\n");
        let reasons: Vec<String> = (1..=3).map(|k| format!("starved {k}")).collect();
        (void.record.loser, void.record.void) = (None, true);
        void.record.voided = reasons.clone();
        let mut replayed = game(1, 1, vec![1, 2], vec![], "replayed\n");
        replayed.record.voided = vec!["starved 0".into()];
        r.record(void).unwrap();
        r.record(replayed).unwrap();
        let g0 = crate::store::game(&db, 1, 0).unwrap().unwrap();
        assert!(g0.void);
        assert_eq!(g0.voided, reasons);
        let g1 = crate::store::game(&db, 1, 1).unwrap().unwrap();
        assert!(!g1.void);
        assert_eq!(g1.voided, vec!["starved 0".to_string()]);
        // The service's results (its games' JSON) say so; the standings count it for nobody.
        let json = serde_json::to_value(&g0).unwrap();
        assert_eq!(json["void"], true);
        assert_eq!(json["voided"].as_array().map(Vec::len), Some(3));
        let t = durak_tournaments::config::Tournament {
            variant: durak_rules::Variant::Podkidnoy,
            format: durak_tournaments::config::Format::RoundRobin,
            table_size: 2,
            games: 2,
            seed: 1,
            challenger: None,
            concurrency: None,
            max_consecutive_faults: 3,
            sprt: None,
            bots: ["1", "2"]
                .iter()
                .map(|n| durak_tournaments::config::Bot {
                    name: n.to_string(),
                    command: "builtin:random".into(),
                    cwd: "/".into(),
                    own_cwd: true,
                    limits: Default::default(),
                })
                .collect(),
        };
        let lines = [
            crate::ladder::board::result_line(&g0, true),
            crate::ladder::board::result_line(&g1, true),
        ];
        let s = durak_tournaments::standings::Standings::compute(&t, &lines);
        assert_eq!((s.games_void, s.attempts_voided), (1, 4));
        assert_eq!(s.get("1").unwrap().games, 1, "the void game is nobody's");
    }
}
