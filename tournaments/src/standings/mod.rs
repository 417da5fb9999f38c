//! Standings, computed from the result lines only (and the configuration, for the list of
//! bots), in one pass and in any order: [`Standings::builder`] keeps aggregates whose size does
//! not grow with the number of games, [`Standings::compute`] feeds it a slice.
//!
//! - **Rating**: Elo from a maximum-likelihood fit of all games (who was the durak at each
//!   table, [`stats::fit`](crate::stats::fit)), relative to the mean of the bots, with its 95 %
//!   interval; the same whatever order games were played or recorded in. In the duplicate and
//!   gauntlet formats the interval is *paired*: taken over whole deals (every seat rotation of
//!   one deck), which leaves the luck of the deal out.
//! - **Ranks**: by rating; bots whose order the data does not establish at 95 % share a rank,
//!   printed `=2` ([`stats::compare`](crate::stats::compare) gives the exact rule), and the LOS
//!   matrix says how sure each comparison is.
//! - **Counts**: games, losses (times the bot was the durak), draws, faults by kind, the loss
//!   rate with its Wilson interval, the game after which a bot was disqualified.
//! - **Head to head**, at any table size: how often each bot finished ahead of each other one
//!   (the other was the durak) and behind it.
//! - **Pairs**: each pair of bots (gauntlet: the challenger and each opponent) from their own
//!   games only, as fastchess reports a match: score, Elo, the interval from single games and,
//!   with deals, from whole deals ([`stats::pair`](crate::stats::pair)), and at two seats the
//!   deals won both / split / lost both.

mod builder;
mod pairs;
mod render;

pub use builder::{scheduled_games, StandingsBuilder};

use crate::config::Tournament;
use crate::line::ResultLine;
use crate::stats::compare::{los, tie_groups};
use crate::stats::fit::{fit, Fit};
use crate::stats::pair::DealOutcomes;
use crate::stats::{wilson, z_two_sided, CONFIDENCE, ELO_PER_NAT, PRIOR_DEALS};
use durak_protocol::FaultKind;
use serde::Serialize;
use std::collections::BTreeMap;

/// The standard deviation of the rating prior (a weak one: see
/// [`stats::fit`](crate::stats::fit)).
pub const PRIOR_SD_ELO: f64 = 500.0;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotStanding {
    /// 1 + the number of bots ranked above this one's tie group (a bot without a rating: its
    /// place after the rated bots, for sorting only).
    pub rank: usize,
    /// The rank as printed: `"=2"` when the bot shares it, `"-"` for a bot without a rating
    /// (no game that counts yet).
    pub rank_label: String,
    /// Whether other bots share this rank (the data does not order them at 95 %); never for a
    /// bot without a rating.
    pub tied: bool,
    pub bot: String,
    /// Elo relative to the mean of the rated bots; `null` without a game that counts.
    pub elo: Option<f64>,
    /// Its 95 % interval; an end is `null` when the data gives no bound on that side (a bot
    /// that never lost has no upper bound).
    pub elo_ci95: [Option<f64>; 2],
    /// With paired intervals: the interval if the games were independent, for comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo_ci95_unpaired: Option<[Option<f64>; 2]>,
    pub games: u64,
    /// Times this bot was the durak.
    pub losses: u64,
    pub draws: u64,
    /// Fault kind → count (kinds that occurred).
    pub faults: BTreeMap<String, u64>,
    pub loss_rate: f64,
    /// 95% Wilson score interval of the loss rate, over single games taken as independent
    /// (unpaired, even in the duplicate formats: `method.loss_rate_interval`); the paired
    /// comparisons are the Elo interval, LOS and the pairs.
    pub loss_rate_ci95: [f64; 2],
    /// The game after which the bot was disqualified.
    pub disqualified_after_game: Option<u64>,
}

impl BotStanding {
    pub fn fault_count(&self, kind: FaultKind) -> u64 {
        self.faults.get(kind.name()).copied().unwrap_or(0)
    }
}

/// How often one bot finished ahead of another at the tables they shared (any table size).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeadToHead {
    pub bot: String,
    pub opponent: String,
    /// Games at the same table.
    pub games: u64,
    /// Games the opponent lost (at two seats: this bot's wins).
    pub ahead: u64,
    /// Games this bot lost.
    pub behind: u64,
    /// Games without a durak (draws, and games nobody played).
    pub draws: u64,
}

/// A 95 % interval of a pair's Elo, from single games or from whole deals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairInterval {
    /// An end is `null` when it is infinite.
    pub elo_ci95: [Option<f64>; 2],
    /// Standard deviation of the score.
    pub score_sd: f64,
    /// Likelihood of superiority of the bot over the opponent, from these figures.
    pub los: f64,
}

/// One bot against another, from their own games only.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairStanding {
    pub bot: String,
    pub opponent: String,
    /// Games at the same table.
    pub games: u64,
    /// Games the opponent was the durak, this bot was, and draws (games nobody played aside).
    pub ahead: u64,
    pub behind: u64,
    pub draws: u64,
    /// `(ahead + draws/2) / (ahead + behind + draws)`.
    pub score: Option<f64>,
    /// The score's Elo; `null` when infinite (a score of 0 or 1) or without a comparison.
    pub elo: Option<f64>,
    /// From single games (trinomial).
    pub unpaired: Option<PairInterval>,
    /// From whole deals (duplicate and gauntlet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairInterval>,
    /// The paired interval's width over the unpaired one's (in score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_width_ratio: Option<f64>,
    /// At two seats with deals: how the deals went, from this bot's side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deals: Option<DealOutcomes>,
}

/// How the figures were computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Method {
    /// `"paired"` (over whole deals) or `"unpaired"` (games as independent): the rating
    /// intervals, the LOS matrix and the tie groups use it.
    pub interval: &'static str,
    /// The loss rate's interval: always `"unpaired"` (Wilson's, games taken as independent).
    pub loss_rate_interval: &'static str,
    pub confidence: f64,
    pub prior_sd_elo: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standings {
    pub variant: String,
    pub format: String,
    pub table_size: usize,
    pub games_per_table: u32,
    pub seed: u64,
    pub games_scheduled: usize,
    pub games_played: usize,
    /// Of the games played, those given up as void after 3 voided attempts (a bot starved by
    /// the machine past ten times its limit each time): they count for nobody.
    pub games_void: usize,
    /// Attempts voided and played again with the same deal (those of void games included).
    pub attempts_voided: usize,
    /// Why, for the first 20 voided attempts: "game ID: reason".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenger: Option<String>,
    pub method: Method,
    /// In rank order.
    pub standings: Vec<BotStanding>,
    /// `los[i][j]`: the likelihood of superiority of `standings[i]` over `standings[j]`, from
    /// the fit; `null` on the diagonal and for a bot without a rating.
    pub los: Vec<Vec<Option<f64>>>,
    /// Every ordered pair of bots that shared a table.
    pub head_to_head: Vec<HeadToHead>,
    /// Pairs of bots in rank order (gauntlet: the challenger and each opponent).
    pub pairs: Vec<PairStanding>,
    /// A gauntlet run with the SPRT: where the test stands over these games, its decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<crate::sprt::SprtStatus>,
}

impl Standings {
    /// A builder that takes result lines one at a time, in any order (memory independent of
    /// the number of games).
    pub fn builder(t: &Tournament) -> StandingsBuilder {
        StandingsBuilder::new(t)
    }

    /// Compute the standings of `t` from its result lines (in any order).
    pub fn compute(t: &Tournament, lines: &[ResultLine]) -> Standings {
        let mut b = Standings::builder(t);
        for l in lines {
            b.add(l);
        }
        b.finish()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("standings serialise")
    }

    pub fn get(&self, bot: &str) -> Option<&BotStanding> {
        self.standings.iter().find(|s| s.bot == bot)
    }
}

/// From the aggregates to the standings.
fn assemble(b: StandingsBuilder) -> Standings {
    let t = &b.t;
    let n = t.bots.len();
    let z = z_two_sided();
    let (fitted, f) = fit_rated(&b);
    let (cov, interval_kind) = match (&f.paired_cov, b.deals) {
        (Some(p), true) => (p, "paired"),
        _ => (&f.model_cov, "unpaired"),
    };
    let order = rank_order(t, &fitted, &f);
    let rated_count = fitted.iter().flatten().count();
    let los_at = |i: usize, j: usize| -> f64 {
        los(
            &f.theta,
            cov,
            fitted[order[i]].unwrap(),
            fitted[order[j]].unwrap(),
        )
    };
    let mut groups_of = tie_groups(rated_count, los_at);
    // Bots without a rating come after the others, each alone (rank label `-`).
    groups_of.extend((rated_count..n).map(|p| p..p + 1));
    let mut rank_of = vec![(0usize, false); n];
    for g in &groups_of {
        for p in g.clone() {
            rank_of[p] = (g.start + 1, g.len() > 1);
        }
    }
    let one = OneStanding {
        b: &b,
        f: &f,
        fitted: &fitted,
        cov,
        paired: interval_kind == "paired",
        z,
    };
    let standings: Vec<BotStanding> = order
        .iter()
        .enumerate()
        .map(|(pos, &i)| one.standing(i, rank_of[pos]))
        .collect();
    let los_matrix: Vec<Vec<Option<f64>>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| (i != j && i < rated_count && j < rated_count).then(|| los_at(i, j)))
                .collect()
        })
        .collect();

    let challenger = t
        .challenger
        .as_deref()
        .filter(|_| t.format == crate::config::Format::Gauntlet)
        .and_then(|c| t.bot_index(c));
    let (h2h, pairs) = pairs::head_to_head_and_pairs(&b, &order, challenger, z);
    let sprt = b.sprt.as_ref().map(crate::sprt::SprtTracker::status);

    Standings {
        variant: t.variant.name().to_string(),
        format: t.format.name().to_string(),
        table_size: t.table_size,
        games_per_table: t.games,
        seed: t.seed,
        games_scheduled: scheduled_games(t),
        games_played: b.lines as usize,
        games_void: b.void as usize,
        attempts_voided: b.attempts_voided as usize,
        voided: b.void_notes.clone(),
        challenger: challenger.map(|c| t.bots[c].name.clone()),
        method: Method {
            interval: interval_kind,
            loss_rate_interval: "unpaired",
            confidence: CONFIDENCE,
            prior_sd_elo: PRIOR_SD_ELO,
        },
        standings,
        los: los_matrix,
        head_to_head: h2h,
        pairs,
        sprt,
    }
}

/// The ratings' fit over the bots with a game that counts: each bot's index in the fit (`None`:
/// no rating), and the fit.
fn fit_rated(b: &StandingsBuilder) -> (Vec<Option<usize>>, Fit) {
    let n = b.t.bots.len();
    let mut rated = vec![false; n];
    for c in b.combos.iter().filter(|c| c.games > c.void) {
        for &m in &c.members {
            rated[m] = true;
        }
    }
    let mut fitted: Vec<Option<usize>> = vec![None; n];
    let mut count = 0;
    for i in (0..n).filter(|&i| rated[i]) {
        fitted[i] = Some(count);
        count += 1;
    }
    let groups: Vec<_> = b
        .combos
        .iter()
        .filter(|c| c.games > c.void)
        .map(|c| c.group(&fitted, b.deals))
        .collect();
    let f = fit(count, &groups, PRIOR_SD_ELO / ELO_PER_NAT, PRIOR_DEALS);
    (fitted, f)
}

/// Rank order: rated bots by rating (then name), then the others by name. Ratings equal to
/// 1e-10 (identical records, summed in another order) count as equal.
fn rank_order(t: &Tournament, fitted: &[Option<usize>], f: &Fit) -> Vec<usize> {
    let key = |a: usize| (f.theta[a] * 1e10).round() as i64;
    let mut order: Vec<usize> = (0..t.bots.len()).collect();
    order.sort_by(|&x, &y| match (fitted[x], fitted[y]) {
        (Some(a), Some(b)) => key(b)
            .cmp(&key(a))
            .then(t.bots[x].name.cmp(&t.bots[y].name)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => t.bots[x].name.cmp(&t.bots[y].name),
    });
    order
}

/// What a bot's row is made of.
struct OneStanding<'a> {
    b: &'a StandingsBuilder,
    f: &'a Fit,
    fitted: &'a [Option<usize>],
    /// The covariance the intervals are read from (paired where the deals are).
    cov: &'a nalgebra::DMatrix<f64>,
    paired: bool,
    z: f64,
}

impl OneStanding<'_> {
    /// The rating interval of the fit's bot `a` from `cov` (an end the data do not bound is
    /// `None`).
    fn interval(&self, a: usize, cov: &nalgebra::DMatrix<f64>) -> [Option<f64>; 2] {
        let e = self.f.theta[a] * ELO_PER_NAT;
        let half = self.z * cov[(a, a)].max(0.0).sqrt() * ELO_PER_NAT;
        let (no_lower, no_upper) = self.f.unbounded[a];
        [
            (!no_lower).then_some(e - half),
            (!no_upper).then_some(e + half),
        ]
    }

    /// Bot `i`'s row, at `rank` (`tied`: with others).
    fn standing(&self, i: usize, (rank, tied): (usize, bool)) -> BotStanding {
        let c = &self.b.bots[i];
        let (elo, ci, unpaired) = match self.fitted[i] {
            Some(a) => (
                Some(self.f.theta[a] * ELO_PER_NAT),
                self.interval(a, self.cov),
                self.paired.then(|| self.interval(a, &self.f.model_cov)),
            ),
            None => (None, [None, None], None),
        };
        let rate = if c.games == 0 {
            0.0
        } else {
            c.losses as f64 / c.games as f64
        };
        let (lo, hi) = wilson(c.losses, c.games, self.z);
        BotStanding {
            rank,
            rank_label: if self.fitted[i].is_none() {
                "-".to_string()
            } else if tied {
                format!("={rank}")
            } else {
                rank.to_string()
            },
            tied,
            bot: self.b.t.bots[i].name.clone(),
            elo,
            elo_ci95: ci,
            elo_ci95_unpaired: unpaired,
            games: c.games,
            losses: c.losses,
            draws: c.draws,
            faults: c.faults.clone(),
            loss_rate: rate,
            loss_rate_ci95: [lo, hi],
            disqualified_after_game: c.disqualified_after,
        }
    }
}
