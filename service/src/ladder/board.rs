//! The leaderboard: the standings of the tournaments crate (`Standings::builder`: one fit of
//! all games, Elo with paired intervals, tied ranks) over the ladder's games among the versions
//! in the ladder now. A job's games are added when the job is over — all its deals at every
//! rotation when it is done, so the intervals are paired by deal; each game alone when it was
//! cut short (a version left) — and the standings computed again (at most every 200 ms, when
//! asked). When the versions in the ladder change, everything is built again from the
//! database.

use crate::db::Db;
use crate::domain::{JobState, VersionState};
use crate::store::{self, GameRow, Version};
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::{FaultLine, ResultLine};
use durak_tournaments::{Standings, StandingsBuilder};
use rusqlite::params;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One row of the leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Row {
    pub rank: usize,
    /// `"=2"` when tied.
    pub rank_label: String,
    pub tied: bool,
    pub bot: String,
    pub version: i64,
    pub version_id: i64,
    pub author: String,
    pub language: String,
    pub house: bool,
    pub elo: Option<f64>,
    /// The 95 % interval; an end is `null` when the data gives no bound on that side.
    pub elo_ci95: [Option<f64>; 2],
    /// Its games counted: the finished ladder jobs' games of this season against the versions
    /// on the board now (its void games apart: `void_games`).
    pub games: u64,
    pub losses: u64,
    pub draws: u64,
    pub loss_rate: f64,
    pub faults: std::collections::BTreeMap<String, u64>,
    /// Its void games among these (given up after 3 voided attempts: a bot starved by the
    /// machine each time), counted for nobody: not in `games`, `losses` or `draws`.
    pub void_games: u64,
    /// Attempts at its games voided and played again (those of void games included).
    pub attempts_voided: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Leaderboard {
    /// The season whose games these are (fresh ratings each season: `season.rs`).
    pub season: i64,
    pub variant: String,
    pub table_size: usize,
    /// Games among the ranked versions (void ones included).
    pub games: u64,
    /// Of those, the void ones (counted for nobody), and the attempts voided and played again.
    pub games_void: u64,
    pub attempts_voided: u64,
    /// `"paired"` (by deal) or `"unpaired"`.
    pub interval: String,
    pub rows: Vec<Row>,
    /// When it was computed (ms since the epoch).
    pub computed_ms: i64,
}

struct State {
    t: Tournament,
    builder: StandingsBuilder,
    ranked: HashMap<i64, Version>,
    /// The jobs whose games are in (a job finishing during a rebuild is added once).
    jobs: std::collections::HashSet<i64>,
    /// The current season's first job: older jobs are an earlier season's (`season.rs`).
    first_job: i64,
    season: i64,
    games: u64,
    /// Void games and voided attempts by version id.
    voids: HashMap<i64, Voids>,
    dirty: bool,
    last: Instant,
    cached: Arc<Leaderboard>,
}

pub struct Board {
    variant: durak_rules::Variant,
    table_size: usize,
    deals: u32,
    state: Mutex<Option<State>>,
    /// A generation, counted up whenever what the leaderboard shows may have changed (games
    /// in, versions in or out, a pause): the live leaderboard and the pages' caches watch it.
    changes: tokio::sync::watch::Sender<u64>,
}

/// A version's void games and voided attempts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Voids {
    pub games: u64,
    pub attempts: u64,
}

/// Count `g`'s void game and voided attempts for each version at it.
fn count_voids(voids: &mut HashMap<i64, Voids>, g: &GameRow) {
    if !g.void && g.voided.is_empty() {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for v in g.seats.iter().filter(|v| seen.insert(**v)) {
        let c = voids.entry(*v).or_default();
        c.games += g.void as u64;
        c.attempts += g.voided.len() as u64;
    }
}

/// A recorded game as the standings read it (the version id is the bot's name there).
pub fn result_line(g: &GameRow, paired: bool) -> ResultLine {
    let name = |s: usize| g.seats[s].to_string();
    ResultLine {
        id: (g.job as u64) << 16 | g.game as u64,
        table: g.job as u32,
        game: g.game,
        deal: paired.then_some(g.deal),
        seats: g.seats.iter().map(|v| v.to_string()).collect(),
        seed: g.seed,
        dealer: g.dealer,
        loser: g.loser,
        durak: g.loser.map(name),
        draw: g.draw,
        faults: g
            .faults
            .iter()
            .map(|f| FaultLine {
                seat: f.seat,
                bot: name(f.seat),
                kind: f.kind,
                detail: f.detail.clone(),
                rule: f.rule.clone(),
            })
            .collect(),
        moves: g.moves,
        replay: None,
        duration_ms: g.duration_ms,
        disqualified: Vec::new(),
        voided: g.voided.clone(),
        void: g.void,
        move_limit: g.move_limit,
    }
}

impl Board {
    pub fn new(variant: durak_rules::Variant, table_size: usize, deals: u32) -> Board {
        Board {
            variant,
            table_size,
            deals,
            state: Mutex::new(None),
            changes: tokio::sync::watch::channel(0).0,
        }
    }

    /// Say that what the leaderboard shows may have changed.
    pub fn touch(&self) {
        self.changes.send_modify(|g| *g += 1);
    }

    /// The generation now (see [`Board::subscribe`]).
    pub fn generation(&self) -> u64 {
        *self.changes.borrow()
    }

    /// A receiver that sees the generation count up.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn tournament(&self, ranked: &[Version]) -> Tournament {
        Tournament {
            variant: self.variant,
            format: Format::Duplicate,
            table_size: self.table_size,
            games: self.deals,
            seed: 0,
            challenger: None,
            concurrency: None,
            max_consecutive_faults: 0,
            sprt: None,
            bots: ranked
                .iter()
                .map(|v| Bot {
                    name: v.id.to_string(),
                    command: v.command.clone(),
                    cwd: PathBuf::new(),
                    own_cwd: true,
                    limits: durak_protocol::Limits::default(),
                })
                .collect(),
        }
    }

    /// Build everything again from the database: the versions in the ladder now and every
    /// finished job's games among them, of the current season's jobs (fresh ratings each
    /// season).
    pub fn rebuild(&self, db: &Db) -> Result<(), crate::db::DbError> {
        let season = crate::season::current(db)?;
        let (first_job, season) = (season.first_job, season.n);
        let ranked = store::versions(db, &[VersionState::Active])?;
        let t = self.tournament(&ranked);
        let mut builder = Standings::builder(&t);
        let ids: HashMap<i64, Version> = ranked.iter().map(|v| (v.id, v.clone())).collect();
        let mut games = 0u64;
        let mut voids = HashMap::new();
        let mut jobs = std::collections::HashSet::new();
        db.read(|c| {
            let mut s = c.prepare(&format!(
                "SELECT {}, j.state FROM games g JOIN jobs j ON j.id = g.job WHERE j.state IN \
                 (?1, ?2) AND j.kind = 'ladder' AND j.id >= ?3 ORDER BY g.job, g.game",
                store::GAME_COLUMNS
            ))?;
            let mut rows = s.query(rusqlite::params![
                JobState::Done,
                JobState::Cancelled,
                first_job
            ])?;
            while let Some(r) = rows.next()? {
                let g = store::row_to_game(r)?;
                let state: JobState = r.get(store::GAME_COLUMN_COUNT)?;
                jobs.insert(g.job);
                if g.seats.iter().all(|v| ids.contains_key(v)) {
                    builder.add(&result_line(&g, state == JobState::Done));
                    count_voids(&mut voids, &g);
                    games += 1;
                }
            }
            Ok(())
        })?;
        let mut st = State {
            t,
            builder,
            ranked: ids,
            jobs,
            first_job,
            season,
            games,
            voids,
            dirty: true,
            last: Instant::now() - Duration::from_secs(1),
            cached: Arc::new(self.empty(season)),
        };
        self.compute(&mut st);
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(st);
        self.touch();
        Ok(())
    }

    /// A job is over: add its games (`done`: every game in, paired by deal).
    pub fn add_job(&self, db: &Db, job: i64, done: bool) -> Result<(), crate::db::DbError> {
        let rows: Vec<GameRow> = db.read(|c| {
            let mut s = c.prepare(&format!(
                "SELECT {} FROM games g JOIN jobs j ON j.id = g.job WHERE g.job = ?1 AND \
                 j.kind = 'ladder' ORDER BY g.game",
                store::GAME_COLUMNS
            ))?;
            let rows = s.query_map(params![job], store::row_to_game)?;
            rows.collect()
        })?;
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(st) = guard.as_mut() else {
            return Ok(());
        };
        if job < st.first_job || !st.jobs.insert(job) {
            return Ok(());
        }
        for g in &rows {
            if g.seats.iter().all(|v| st.ranked.contains_key(v)) {
                st.builder.add(&result_line(g, done));
                count_voids(&mut st.voids, g);
                st.games += 1;
                st.dirty = true;
            }
        }
        drop(guard);
        self.touch();
        Ok(())
    }

    fn empty(&self, season: i64) -> Leaderboard {
        Leaderboard {
            season,
            variant: self.variant.name().to_string(),
            table_size: self.table_size,
            games: 0,
            games_void: 0,
            attempts_voided: 0,
            interval: "paired".into(),
            rows: Vec::new(),
            computed_ms: crate::db::now_ms(),
        }
    }

    fn compute(&self, st: &mut State) {
        let s = st.builder.clone().finish();
        let rows = s
            .standings
            .iter()
            .filter_map(|b| {
                let id: i64 = b.bot.parse().ok()?;
                let v = st.ranked.get(&id)?;
                let voids = st.voids.get(&id).copied().unwrap_or_default();
                Some(Row {
                    rank: b.rank,
                    rank_label: b.rank_label.clone(),
                    tied: b.tied,
                    bot: v.bot.clone(),
                    version: v.n,
                    version_id: v.id,
                    author: v.author.clone(),
                    language: v.language.clone(),
                    house: v.house,
                    elo: b.elo,
                    elo_ci95: b.elo_ci95,
                    games: b.games,
                    losses: b.losses,
                    draws: b.draws,
                    loss_rate: b.loss_rate,
                    faults: b.faults.clone(),
                    void_games: voids.games,
                    attempts_voided: voids.attempts,
                })
            })
            .collect();
        st.cached = Arc::new(Leaderboard {
            season: st.season,
            variant: s.variant.clone(),
            table_size: s.table_size,
            games: st.games,
            games_void: s.games_void as u64,
            attempts_voided: s.attempts_voided as u64,
            interval: s.method.interval.to_string(),
            rows,
            computed_ms: crate::db::now_ms(),
        });
        st.dirty = false;
        st.last = Instant::now();
        let _ = &st.t;
    }

    /// The leaderboard: computed again when games came in (at most every 200 ms).
    pub fn current(&self) -> Arc<Leaderboard> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(st) = guard.as_mut() else {
            return Arc::new(self.empty(0));
        };
        if st.dirty && st.last.elapsed() >= Duration::from_millis(200) {
            self.compute(st);
        }
        st.cached.clone()
    }

    /// The leaderboard now, whatever the time since the last computation.
    pub fn fresh(&self) -> Arc<Leaderboard> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(st) = guard.as_mut() else {
            return Arc::new(self.empty(0));
        };
        if st.dirty {
            self.compute(st);
        }
        st.cached.clone()
    }
}
