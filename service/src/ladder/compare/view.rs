//! What a comparison says: its verdict from the test's status, and the comparison as the
//! version's page, its JSON (`previous`) and `durak submit` show it.

use super::{status, CompareConfig, CompareError, Voids};
use crate::db::Db;
use crate::domain::{comparisons, ComparisonState};
use crate::store;
use durak_tournaments::sprt::SprtStatus;
use durak_tournaments::stats::sprt::Hypothesis;
use serde::{Deserialize, Serialize};

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
    pub(super) fn of(
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

#[cfg(test)]
mod tests {
    use super::super::{heads_up, tests::four_deals_one_void};
    use super::*;
    use crate::domain::VersionState;

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
}
