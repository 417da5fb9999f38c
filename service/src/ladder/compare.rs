//! "Is my new version better?" (issue 25). When a version passes its check and its bot has a
//! version in the ladder, the new one plays the previous one heads-up (two seats, whatever the
//! ladder's table size) on paired deals — every deal at both seat rotations — in jobs of kind
//! `compare`, under the SPRT that `durak tournament --sprt` runs (the tournaments crate's
//! [`SprtTracker`]: the new version is the challenger, `H0: elo0` against `H1: elo1` Elo above
//! the previous one, Wald's bounds). Its games are unrated: they never count on the
//! leaderboard.
//!
//! The verdict: `better` when the test accepts H1; when it accepts H0, `worse` if the 95 %
//! Elo interval (paired by deal) lies below 0 (or it lost every game), else `equal`; `undecided` while it runs, and
//! when it stopped at `[compare] max_games` (or a version left) without a decision. The
//! scheduler calls [`tick`]: it keeps one job open per running comparison, and once the test
//! stops it cancels what is left and writes the final status down (`comparisons.result`).
//!
//! With `[compare] require_not_worse = true` a passing version waits in state `comparing`
//! (its previous version plays on in the ladder) and enters only when the verdict is not
//! `worse`; a `worse` one fails with the figures as its reason.

use super::jobs::{self, priority};
use super::Ladder;
use crate::db::{Db, DbError};
use crate::domain::{comparisons, ComparisonState, VersionState};
use crate::store::{self, GameRow};
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::sprt::{SprtStatus, SprtTracker};
use durak_tournaments::stats::sprt::{Hypothesis, SprtParams};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

/// The jobs' kind.
pub const KIND: &str = "compare";

/// `[compare]`, as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareSection {
    pub enabled: Option<bool>,
    pub elo0: Option<f64>,
    pub elo1: Option<f64>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub max_games: Option<u32>,
    pub deals_per_job: Option<u32>,
    pub require_not_worse: Option<bool>,
}

/// The comparison's settings, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareConfig {
    pub enabled: bool,
    pub params: SprtParams,
    /// The test stops undecided after this many games.
    pub max_games: u32,
    /// Deals per job (each played at both rotations).
    pub deals_per_job: u32,
    /// A new version enters the ladder only once the verdict is not `worse`.
    pub require_not_worse: bool,
}

impl Default for CompareConfig {
    fn default() -> CompareConfig {
        CompareConfig {
            enabled: true,
            params: SprtParams::new(0.0, 20.0, 0.05, 0.05).expect("valid"),
            max_games: 2000,
            deals_per_job: 10,
            require_not_worse: false,
        }
    }
}

/// Resolve `[compare]` (every refusal names the key and the fix).
pub fn resolve(s: &CompareSection) -> Result<CompareConfig, crate::config::ConfigError> {
    use crate::config::ConfigError;
    let d = CompareConfig::default();
    let p = d.params;
    let params = SprtParams::new(
        s.elo0.unwrap_or(p.elo0),
        s.elo1.unwrap_or(p.elo1),
        s.alpha.unwrap_or(p.alpha),
        s.beta.unwrap_or(p.beta),
    )
    .map_err(|e| ConfigError::key("[compare]", format!("[compare] {e}")))?;
    let max_games = s.max_games.unwrap_or(d.max_games);
    if max_games < 2 {
        let m = format!(
            "[compare] max_games = {max_games}: the test needs at least one deal (2 games)\n  \
             fix: set max_games = {} (or enabled = false to compare no versions)",
            d.max_games
        );
        return Err(ConfigError::key("[compare] max_games", m));
    }
    let deals_per_job = s.deals_per_job.unwrap_or(d.deals_per_job);
    if deals_per_job == 0 || deals_per_job > 1000 {
        let m = format!(
            "[compare] deals_per_job = {deals_per_job}: a job plays 1 to 1000 deals\n  fix: set \
             deals_per_job = {}",
            d.deals_per_job
        );
        return Err(ConfigError::key("[compare] deals_per_job", m));
    }
    Ok(CompareConfig {
        enabled: s.enabled.unwrap_or(d.enabled),
        params,
        max_games,
        deals_per_job,
        require_not_worse: s.require_not_worse.unwrap_or(d.require_not_worse),
    })
}

/// Whether a version in `state` may sit at a job of `kind`: the ladder's jobs take versions
/// in the ladder only; a comparison also its previous (retired) version and a new one waiting
/// for its verdict.
pub fn may_play(kind: &str, state: VersionState) -> bool {
    use VersionState::*;
    match kind {
        KIND => matches!(state, Active | Retired | Comparing),
        _ => state == Active,
    }
}

/// What the comparison says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Better,
    Worse,
    Equal,
    Undecided,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Equal => "equal",
            Verdict::Undecided => "undecided",
        }
    }
}

/// The verdict of a test's status (see the module's comment).
pub fn verdict_of(st: &SprtStatus) -> Verdict {
    match st.decision {
        Some(Hypothesis::H1) => Verdict::Better,
        // Below 0, or no bound because it lost every game (an Elo of minus infinity).
        Some(Hypothesis::H0)
            if st.elo_ci95[1].is_some_and(|u| u < 0.0) || (st.games > 0 && st.score == 0.0) =>
        {
            Verdict::Worse
        }
        Some(Hypothesis::H0) => Verdict::Equal,
        None => Verdict::Undecided,
    }
}

/// A version's comparison with its previous one: the `previous` of its JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Comparison {
    /// The version compared with.
    pub bot: String,
    pub version: i64,
    pub version_id: i64,
    /// `running` or `done`.
    pub state: ComparisonState,
    pub verdict: Verdict,
    /// Games counted (and whole deals: both rotations in).
    pub games: u64,
    pub deals: u64,
    /// Void games (given up after 3 voided attempts: a bot starved by the machine), counted
    /// for nobody: not in `games`, the score, the LLR or the Elo.
    #[serde(default)]
    pub void_games: u64,
    /// Deals left out of the paired figures because a game of theirs is void.
    #[serde(default)]
    pub void_deals: u64,
    pub max_games: u32,
    /// The new version's mean score per game (a draw ½).
    pub score: f64,
    /// The log-likelihood ratio of H1 against H0, and its bounds (accept H0 at or below the
    /// first, H1 at or above the second).
    pub llr: f64,
    pub llr_bounds: [f64; 2],
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// The new version's Elo above the previous one and its 95 % interval (paired by deal);
    /// an end is `null` when unbounded.
    pub elo: Option<f64>,
    pub elo_ci95: [Option<f64>; 2],
    /// Why it stopped before a decision, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The line `durak submit` prints.
    pub summary: String,
}

impl Comparison {
    fn of(
        cfg: &CompareConfig,
        prev: &store::Version,
        state: ComparisonState,
        (st, voids): &(SprtStatus, Voids),
    ) -> Self {
        let verdict = verdict_of(st);
        let mut c = Comparison {
            bot: prev.bot.clone(),
            version: prev.n,
            version_id: prev.id,
            state,
            verdict,
            games: st.games,
            deals: st.deals,
            void_games: voids.games,
            void_deals: voids.deals,
            max_games: cfg.max_games,
            score: st.score,
            llr: st.llr,
            llr_bounds: [st.lower, st.upper],
            elo0: st.params.elo0,
            elo1: st.params.elo1,
            alpha: st.params.alpha,
            beta: st.params.beta,
            elo: st.elo,
            elo_ci95: st.elo_ci95,
            note: None,
            summary: String::new(),
        };
        c.summary = c.line();
        c
    }

    /// `against version 1: better (LLR +2.95 in [-2.94, +2.94], 120 games, Elo +35.1 [+12.0,
    /// +58.3])`.
    pub fn line(&self) -> String {
        let e = |x: Option<f64>, inf: &str| x.map_or(inf.to_string(), |x| format!("{x:+.1}"));
        let what = if self.state == ComparisonState::Running && self.verdict == Verdict::Undecided {
            "undecided so far".to_string()
        } else {
            self.verdict.name().to_string()
        };
        let void = match self.void_games {
            0 => String::new(),
            n => format!(" ({n} void, counted for nobody)"),
        };
        format!(
            "against version {}: {what} (LLR {:+.2} in [{:+.2}, {:+.2}], {} games of at most \
             {}{void}, Elo {} [{}, {}])",
            self.version,
            self.llr,
            self.llr_bounds[0],
            self.llr_bounds[1],
            self.games,
            self.max_games,
            e(self.elo, "?"),
            e(self.elo_ci95[0], "-inf"),
            e(self.elo_ci95[1], "+inf"),
        )
    }
}

/// The games of the comparison of `version` with `previous`, by job and game.
pub fn games(db: &Db, version: i64, previous: i64) -> Result<Vec<GameRow>, crate::db::DbError> {
    let seats = serde_json::to_string(&[version, previous]).expect("json");
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {} FROM games g JOIN jobs j ON j.id = g.job WHERE j.kind = ?1 AND j.seats = \
             ?2 ORDER BY g.job, g.game",
            store::GAME_COLUMNS
        ))?;
        let rows = s.query_map(params![KIND, seats], store::row_to_game)?;
        rows.collect()
    })
}

/// The void games among heads-up games (given up after 3 voided attempts: they count for
/// nobody), and the deals left out of the paired figures because of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Voids {
    pub games: u64,
    pub deals: u64,
}

impl Voids {
    pub fn of(games: &[GameRow]) -> Voids {
        let deals: std::collections::BTreeSet<(i64, u32)> = games
            .iter()
            .filter(|g| g.void)
            .map(|g| (g.job, g.deal))
            .collect();
        Voids {
            games: games.iter().filter(|g| g.void).count() as u64,
            deals: deals.len() as u64,
        }
    }
}

/// Games a comparison may still play: `max_games` bounds the games played, void ones
/// included (issue 23), so a comparison whose games are voided does not play past its nominal
/// length; its note says how many of them were void ([`stopped_at`]).
pub fn games_left(max_games: u32, counted: u64, void: u64) -> u64 {
    (max_games as u64).saturating_sub(counted + void)
}

/// Why an undecided comparison stopped at `max_games`, saying how many of its games were void.
pub fn stopped_at(max_games: u32, void: u64) -> String {
    match void {
        0 => format!("stopped at max_games = {max_games}"),
        n => format!(
            "stopped at max_games = {max_games} games played, {n} of them void (counted for \
             nobody)"
        ),
    }
}

/// A comparison that could not be tested or kept going: the tournaments crate refused the
/// test's parameters (`[compare]`, its message says which), or the database failed. Both are
/// the server's: a page showing one answers 500.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error(transparent)]
    Sprt(#[from] durak_tournaments::Error),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The test over the comparison's games so far, and its void games.
pub fn status(
    db: &Db,
    cfg: &CompareConfig,
    version: i64,
    previous: i64,
) -> Result<(SprtStatus, Voids), CompareError> {
    let games = games(db, version, previous)?;
    Ok((
        heads_up(cfg.params, version, previous, &games)?,
        Voids::of(&games),
    ))
}

/// The SPRT of `version` (the challenger) against `other` over their heads-up games, in job
/// order (each job's deals paired over its two rotations); its status also holds the score and
/// the paired Elo interval. A void game counts for nobody (the tournaments crate's
/// `SprtTracker`): not in the games, the score or the Elo, and its deal is left out of the
/// paired figures.
pub fn heads_up(
    params: SprtParams,
    version: i64,
    other: i64,
    games: &[GameRow],
) -> Result<SprtStatus, CompareError> {
    heads_up_every(params, version, other, games, usize::MAX, |_| {})
}

/// As [`heads_up`], calling `at` with the status after every `every` games and after the last
/// (the version page's chart of Elo as games accumulate).
pub fn heads_up_every(
    params: SprtParams,
    version: i64,
    other: i64,
    games: &[GameRow],
    every: usize,
    mut at: impl FnMut(&SprtStatus),
) -> Result<SprtStatus, CompareError> {
    let t = Tournament {
        variant: durak_rules::Variant::Podkidnoy,
        format: Format::Gauntlet,
        table_size: 2,
        games: 1,
        seed: 0,
        challenger: Some(version.to_string()),
        concurrency: None,
        max_consecutive_faults: 0,
        sprt: None,
        bots: [version, other]
            .iter()
            .map(|v| Bot {
                name: v.to_string(),
                command: String::new(),
                cwd: std::path::PathBuf::new(),
                own_cwd: true,
                limits: durak_protocol::Limits::default(),
            })
            .collect(),
    };
    let mut tracker = SprtTracker::new(&t, params)?;
    // A deal is (job, deal): numbered apart across jobs so that their rotations pair.
    let mut jobs: Vec<i64> = Vec::new();
    for (i, g) in games.iter().enumerate() {
        if jobs.last() != Some(&g.job) {
            jobs.push(g.job);
        }
        let mut line = super::board::result_line(g, true);
        line.deal = Some((jobs.len() as u32 - 1) * 1000 + g.deal);
        tracker.add(&line);
        if (i + 1) % every.max(1) == 0 && i + 1 < games.len() {
            at(&tracker.status());
        }
    }
    let last = tracker.status();
    if !games.is_empty() {
        at(&last);
    }
    Ok(last)
}

/// Start comparing `version` with `previous`.
pub fn begin(db: &Db, version: i64, previous: i64) -> Result<(), crate::db::DbError> {
    crate::domain::comparisons::begin(db, version, previous)
}

/// The version a new version of the same bot would be compared with: the bot's version in the
/// ladder (none for a house bot, or when the bot has none active).
pub fn previous_of(db: &Db, version: i64) -> Result<Option<i64>, crate::db::DbError> {
    db.read(|c| {
        c.query_row(
            "SELECT p.id FROM versions v JOIN versions p ON p.bot = v.bot AND p.id != v.id JOIN \
             bots b ON b.id = v.bot WHERE v.id = ?1 AND p.state = ?2 AND b.house = 0 ORDER BY \
             p.n DESC LIMIT 1",
            params![version, VersionState::Active],
            |r| r.get(0),
        )
        .optional()
    })
}

/// The comparison of `version` with its previous one, as it stands (`None`: not compared).
pub fn view(
    db: &Db,
    cfg: &CompareConfig,
    version: i64,
) -> Result<Option<Comparison>, CompareError> {
    let row = comparisons::get(db, version)?;
    let Some((previous, state, result)) = row else {
        return Ok(None);
    };
    if let Some(done) = result.and_then(|r| serde_json::from_str(&r).ok()) {
        return Ok(Some(done));
    }
    let Some(prev) = store::version(db, previous)? else {
        return Ok(None);
    };
    let st = status(db, cfg, version, previous)?;
    Ok(Some(Comparison::of(cfg, &prev, state, &st)))
}

/// Keep the running comparisons going (called by the scheduler): stop those whose test
/// decided, reached `max_games` or lost a version, and open a job for each other one that has
/// none. Returns how many jobs it opened.
pub fn tick(ladder: &Ladder) -> Result<usize, CompareError> {
    let cfg = &ladder.cfg.compare;
    let running = comparisons::running(&ladder.db)?;
    if running.is_empty() {
        return Ok(0);
    }
    let open = jobs::open_jobs(&ladder.db)?;
    let mut made = 0;
    for (version, previous) in running {
        let (Some(v), Some(p)) = (
            store::version(&ladder.db, version)?,
            store::version(&ladder.db, previous)?,
        ) else {
            continue;
        };
        let both = status(&ladder.db, cfg, version, previous)?;
        let st = &both.0;
        let mine: Vec<&jobs::Job> = open
            .iter()
            .filter(|j| j.kind == KIND && j.seats == [version, previous])
            .collect();
        let left = [&v, &p]
            .into_iter()
            .find(|x| !may_play(KIND, x.state))
            .map(|x| format!("{} left ({})", x.label(), x.state));
        let remaining = games_left(cfg.max_games, st.games, both.1.games);
        let capped = remaining == 0;
        if st.decision.is_none() && !capped && left.is_none() {
            if mine.is_empty() {
                let remaining = remaining.div_ceil(2);
                let deals = (cfg.deals_per_job as u64).min(remaining.max(1)) as u32;
                jobs::create_kind(
                    &ladder.db,
                    ladder.seed,
                    &[version, previous],
                    deals,
                    priority::COMPARE,
                    KIND,
                )?;
                made += 1;
            }
            continue;
        }
        let mut c = Comparison::of(cfg, &p, ComparisonState::Done, &both);
        c.note = match (left, capped && st.decision.is_none()) {
            (Some(why), _) => Some(why),
            (None, true) => Some(stopped_at(cfg.max_games, both.1.games)),
            _ => None,
        };
        for j in mine {
            if jobs::cancel(&ladder.db, j.id)? {
                ladder.job_cancelled(j.id);
            }
        }
        finish(ladder, &v, &c)?;
    }
    if made > 0 {
        ladder.notify();
    }
    Ok(made)
}

/// The test stopped: write it down, and decide a version waiting for it.
fn finish(ladder: &Ladder, v: &store::Version, c: &Comparison) -> Result<(), DbError> {
    let json = serde_json::to_string(c).expect("json");
    comparisons::finish(&ladder.db, v.id, c.verdict.name(), &json)?;
    tracing::info!("{} {}", v.label(), c.summary);
    // The version's page and JSON are cached until games are recorded or the board changes:
    // a comparison stopped between games (its job cancelled) records none, so say it here.
    ladder.board.touch();
    if v.state != VersionState::Comparing {
        return Ok(());
    }
    if c.verdict == Verdict::Worse {
        let reason = format!(
            "worse than version {} on paired deals ([compare] require_not_worse): {}",
            c.version, c.summary
        );
        crate::domain::versions::fail_comparison(&ladder.db, v.id, &reason)?;
        return ladder.versions_changed();
    }
    crate::checker::enter_ladder(ladder, v.id, None)?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_comparison_the_database_cannot_read_is_a_database_error() {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(&d.path().join("s.db")).unwrap();
        let cfg = CompareConfig::default();
        assert!(view(&db, &cfg, 1).unwrap().is_none(), "no comparison yet");
        db.write(|c| c.execute_batch("DROP TABLE comparisons"))
            .unwrap();
        let e = view(&db, &cfg, 1).unwrap_err();
        assert!(matches!(e, CompareError::Db(_)), "{e:?}");
        assert!(
            e.to_string()
                .contains("database: no such table: comparisons"),
            "{e}"
        );
    }

    fn status(decision: Option<Hypothesis>, ci: [Option<f64>; 2]) -> SprtStatus {
        SprtStatus {
            params: CompareConfig::default().params,
            paired: true,
            llr: 0.0,
            lower: -2.94,
            upper: 2.94,
            decision,
            deals: 10,
            games: 20,
            score: 0.5,
            llr_unpaired: 0.0,
            elo: Some(0.0),
            elo_ci95: ci,
        }
    }

    #[test]
    fn the_verdict_reads_the_decision_and_the_interval() {
        let h1 = status(Some(Hypothesis::H1), [Some(5.0), Some(60.0)]);
        assert_eq!(verdict_of(&h1), Verdict::Better);
        let below = status(Some(Hypothesis::H0), [Some(-90.0), Some(-10.0)]);
        assert_eq!(verdict_of(&below), Verdict::Worse);
        let around = status(Some(Hypothesis::H0), [Some(-30.0), Some(12.0)]);
        assert_eq!(verdict_of(&around), Verdict::Equal);
        let open = status(Some(Hypothesis::H0), [None, None]);
        assert_eq!(
            verdict_of(&open),
            Verdict::Equal,
            "no bound: not shown worse"
        );
        let lost_all = SprtStatus {
            score: 0.0,
            elo: None,
            ..status(Some(Hypothesis::H0), [None, None])
        };
        assert_eq!(verdict_of(&lost_all), Verdict::Worse, "every game lost");
        let none = status(None, [Some(-90.0), Some(-10.0)]);
        assert_eq!(verdict_of(&none), Verdict::Undecided);
    }

    /// A heads-up game of job 5 between versions 1 and 2 on `deal` at `rotation`.
    pub(crate) fn row(deal: u32, rotation: u32, loser: Option<usize>, void: bool) -> GameRow {
        GameRow {
            job: 5,
            game: 2 * deal + rotation,
            rotation,
            deal,
            seats: if rotation == 0 {
                vec![1, 2]
            } else {
                vec![2, 1]
            },
            seed: 9,
            dealer: 0,
            loser,
            draw: false,
            faults: Vec::new(),
            moves: 10,
            duration_ms: 3,
            move_limit: None,
            replay: String::new(),
            recorded: 0,
            voided: if void {
                vec!["starved".into(); 3]
            } else {
                Vec::new()
            },
            void,
        }
    }

    /// Version 1 wins every game of 4 deals but deal 2's second, given up as void: 7 games, 3
    /// whole deals, a score of 1 (the void game is no draw), and the JSON and the line say so.
    pub(crate) fn four_deals_one_void() -> Vec<GameRow> {
        let mut games = Vec::new();
        for d in 0..4 {
            games.push(row(d, 0, Some(1), false));
            let void = d == 2;
            games.push(row(d, 1, (!void).then_some(0), void));
        }
        games
    }

    #[test]
    fn void_games_count_towards_max_games_and_the_note_says_so() {
        // 8 games counted and 2 void: 10 played, the cap of 10 reached.
        assert_eq!(games_left(10, 8, 2), 0);
        assert_eq!(games_left(10, 8, 0), 2);
        assert_eq!(games_left(10, 9, 3), 0);
        assert_eq!(stopped_at(10, 0), "stopped at max_games = 10");
        assert_eq!(
            stopped_at(10, 2),
            "stopped at max_games = 10 games played, 2 of them void (counted for nobody)"
        );
    }

    #[test]
    fn a_void_game_is_not_played_and_its_deal_is_left_out() {
        let games = four_deals_one_void();
        let st = heads_up(CompareConfig::default().params, 1, 2, &games).unwrap();
        assert_eq!((st.games, st.deals), (7, 3), "{st}");
        assert_eq!(st.score, 1.0, "{st}");
        let voids = Voids::of(&games);
        assert_eq!(voids, Voids { games: 1, deals: 1 });
        let prev = store::Version {
            id: 2,
            bot: "b".into(),
            bot_id: 1,
            n: 1,
            author: "a".into(),
            account: 1,
            house: false,
            state: VersionState::Retired,
            reason: None,
            command: String::new(),
            language: String::new(),
            build_cmd: None,
            sha256: None,
            size: None,
            submitted: 0,
            checked: None,
            entered: None,
            first_game: None,
            fault_streak: 0,
            files_removed: None,
        };
        let c = Comparison::of(
            &CompareConfig::default(),
            &prev,
            ComparisonState::Running,
            &(st, voids),
        );
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(
            (json["games"].as_u64(), json["deals"].as_u64()),
            (Some(7), Some(3))
        );
        assert_eq!(json["void_games"], 1);
        assert_eq!(json["void_deals"], 1);
        assert!(
            c.summary
                .contains("7 games of at most 2000 (1 void, counted for nobody)"),
            "{}",
            c.summary
        );
        // A result stored before void games were counted still reads.
        let mut old = json.as_object().unwrap().clone();
        old.remove("void_games");
        old.remove("void_deals");
        let back: Comparison = serde_json::from_value(old.into()).unwrap();
        assert_eq!((back.void_games, back.void_deals), (0, 0));
    }

    #[test]
    fn bad_settings_name_the_key_and_the_fix() {
        let d = resolve(&CompareSection::default()).unwrap();
        assert_eq!(d, CompareConfig::default());
        assert!(d.enabled && !d.require_not_worse);
        let e = resolve(&CompareSection {
            elo0: Some(10.0),
            elo1: Some(5.0),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("[compare]") && e.contains("fix:"), "{e}");
        let e = resolve(&CompareSection {
            max_games: Some(1),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("max_games = 1") && e.contains("fix:"), "{e}");
        let e = resolve(&CompareSection {
            deals_per_job: Some(0),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("deals_per_job = 0") && e.contains("fix:"), "{e}");
    }

    #[test]
    fn only_a_comparison_seats_versions_out_of_the_ladder() {
        assert!(may_play("ladder", VersionState::Active));
        assert!(!may_play("ladder", VersionState::Retired));
        assert!(!may_play("ladder", VersionState::Comparing));
        assert!(may_play(KIND, VersionState::Retired) && may_play(KIND, VersionState::Comparing));
        assert!(!may_play(KIND, VersionState::Suspended) && !may_play(KIND, VersionState::Removed));
    }
}
