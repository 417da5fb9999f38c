//! The SPRT fed with result lines: in a gauntlet, is the challenger better than the field?
//!
//! [`SprtTracker`] takes each finished game ([`SprtTracker::add`], in any order), pairs the
//! games of a deal (all `k` seat rotations of one deck at one set of bots) and keeps two
//! histograms: of whole deals (the challenger's mean score over the deal's rotations; the
//! paired test) and of single games (the unpaired one). [`SprtTracker::status`] gives the
//! log-likelihood ratio, the bounds and the decision; its `Display` is the progress line. The
//! math is [`stats::sprt`](crate::stats::sprt): hypotheses on the challenger's Elo relative to
//! the field, the GSPRT over the histogram's values, Wald's bounds.
//!
//! Memory: the histograms, and one small entry per deal whose rotations are not all in yet.
//! A deal counts once all its rotations are in (and none was a game nobody played or a void
//! game, given up after voided attempts: such a game counts for nobody): feed
//! rotations of the same deal close together (deal-major order) for the test to stop early.

use crate::config::{Format, Tournament};
use crate::error::Error;
use crate::line::ResultLine;
use crate::stats::sprt::{elo_interval, paired_values, Hypothesis, SprtParams};
use crate::stats::{z_two_sided, PRIOR_DEALS};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// The SPRT's state over the games seen so far.
#[derive(Clone, Debug)]
pub struct SprtTracker {
    params: SprtParams,
    k: usize,
    challenger: String,
    paired: bool,
    /// Deals not complete yet, by (sorted bots, deal).
    partial: HashMap<(Vec<String>, u32), Deal>,
    /// Possible deal scores (units of 1/k²) and how often each was seen.
    deal_values: Vec<u32>,
    deal_counts: Vec<u64>,
    /// Games: the challenger was the durak, a draw, another was.
    game_counts: [u64; 3],
}

#[derive(Clone, Copy, Debug, Default)]
struct Deal {
    seen: u32,
    void: bool,
    /// Sum of the challenger's scores, in units of 1/k.
    units: u32,
}

/// Where the test stands.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SprtStatus {
    pub params: SprtParams,
    /// Over whole deals (paired) when the format has them, else over games.
    pub paired: bool,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: Option<Hypothesis>,
    /// Whole deals and games counted.
    pub deals: u64,
    pub games: u64,
    /// The challenger's mean score per game (a draw `1 − 1/k`), over the games counted.
    pub score: f64,
    /// The same test over single games (for comparison; it does not decide).
    pub llr_unpaired: f64,
    /// The Elo of the challenger's score above the field (the inverse of the hypotheses'
    /// expected score), and its 95 % interval: the pairs table's figures
    /// ([`stats::sprt::elo_interval`](crate::stats::sprt::elo_interval)), paired by deal when
    /// the test is; an end is `null` when infinite (a score of 0 or 1), all `null` without
    /// games.
    pub elo: Option<f64>,
    pub elo_ci95: [Option<f64>; 2],
}

impl SprtStatus {
    /// The verdict for people: which hypothesis the test accepted and what it means.
    pub fn verdict(&self) -> String {
        let p = &self.params;
        match self.decision {
            Some(Hypothesis::H1) => format!(
                "H1 accepted: the challenger is better ({} Elo rather than {})",
                p.elo1, p.elo0
            ),
            Some(Hypothesis::H0) => format!(
                "H0 accepted: the challenger is not better ({} Elo rather than {})",
                p.elo0, p.elo1
            ),
            None => "undecided".to_string(),
        }
    }
}

impl SprtTracker {
    /// A test of `t`'s challenger (gauntlet) against the field.
    pub fn new(t: &Tournament, params: SprtParams) -> Result<SprtTracker, Error> {
        let challenger =
            match (&t.format, &t.challenger) {
                (Format::Gauntlet, Some(c)) if t.bot_index(c).is_some() => c.clone(),
                _ => return Err(Error::Config(
                    "--sprt tests a challenger against the field\n  fix: use --format gauntlet \
                     --challenger NAME"
                        .to_string(),
                )),
            };
        let k = t.table_size;
        let deal_values = paired_values(k);
        Ok(SprtTracker {
            params,
            k,
            challenger,
            paired: true,
            partial: HashMap::new(),
            deal_counts: vec![0; deal_values.len()],
            deal_values,
            game_counts: [0; 3],
        })
    }

    /// The test over the games recorded in `results` (a tournament directory's
    /// `results.jsonl`), for a tournament with the SPRT (`None` without).
    pub fn recorded(t: &Tournament, results: &Path) -> Result<Option<SprtTracker>, Error> {
        let Some(p) = t.sprt else {
            return Ok(None);
        };
        let mut tracker = SprtTracker::new(t, p)?;
        for l in crate::lines::LineReader::open(results)? {
            tracker.add(&l?.line);
        }
        Ok(Some(tracker))
    }

    /// Count one finished game (lines without the challenger are ignored).
    pub fn add(&mut self, l: &ResultLine) {
        let Some(seat) = l.seats.iter().position(|s| *s == self.challenger) else {
            return;
        };
        let k = self.k as u32;
        // A game given up as void (a bot starved by the machine at every attempt) or that
        // nobody played counts for nobody: not a loss, not a draw, and its deal is left out.
        let void =
            l.void || durak_protocol::nobody_played(l.seats.len(), l.faults.iter().map(|f| f.seat));
        // The challenger's score in units of 1/k.
        let units = match l.loser {
            _ if void => 0,
            Some(s) if s == seat => {
                self.game_counts[0] += 1;
                0
            }
            Some(_) => {
                self.game_counts[2] += 1;
                k
            }
            None => {
                self.game_counts[1] += 1;
                k - 1
            }
        };
        let Some(deal) = l.deal else {
            self.paired = false;
            return;
        };
        let mut bots = l.seats.clone();
        bots.sort();
        let key = (bots, deal);
        let d = self.partial.entry(key.clone()).or_default();
        d.seen += 1;
        d.void |= void;
        d.units += units;
        if d.seen >= k {
            let d = self.partial.remove(&key).unwrap();
            if !d.void {
                if let Some(i) = self.deal_values.iter().position(|&v| v == d.units) {
                    self.deal_counts[i] += 1;
                }
            }
        }
    }

    pub fn status(&self) -> SprtStatus {
        let k = self.k as f64;
        let (lower, upper) = self.params.bounds();
        let deal_values: Vec<f64> = self
            .deal_values
            .iter()
            .map(|&v| v as f64 / (k * k))
            .collect();
        let game_values = [0.0, (k - 1.0) / k, 1.0];
        let llr_paired = self.params.llr(&deal_values, &self.deal_counts, self.k);
        let llr_unpaired = self.params.llr(&game_values, &self.game_counts, self.k);
        let games: u64 = self.game_counts.iter().sum();
        let score = if games == 0 {
            0.0
        } else {
            (self.game_counts[1] as f64 * (k - 1.0) / k + self.game_counts[2] as f64) / games as f64
        };
        let llr = if self.paired {
            llr_paired
        } else {
            llr_unpaired
        };
        let deals = self
            .paired
            .then_some((deal_values.as_slice(), self.deal_counts.as_slice()));
        let (elo, elo_ci95) = elo_interval(
            (&game_values, &self.game_counts),
            deals,
            self.k,
            PRIOR_DEALS,
            z_two_sided(),
        )
        .unwrap_or((None, [None, None]));
        SprtStatus {
            params: self.params,
            paired: self.paired,
            llr,
            lower,
            upper,
            decision: self.params.decide(llr),
            deals: self.deal_counts.iter().sum(),
            games,
            score,
            llr_unpaired,
            elo,
            elo_ci95,
        }
    }
}

impl fmt::Display for SprtStatus {
    /// `SPRT H0 0 Elo vs H1 10 Elo (α 0.05, β 0.05): LLR +1.23 in [−2.94, +2.94] · 120 deals,
    /// 240 games · score 53.1%`, then the decision once there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.params;
        write!(
            f,
            "SPRT H0 {} Elo vs H1 {} Elo (α {}, β {}): LLR {:+.2} in [{:.2}, {:+.2}] · ",
            p.elo0, p.elo1, p.alpha, p.beta, self.llr, self.lower, self.upper
        )?;
        if self.paired {
            write!(f, "{} deals, ", self.deals)?;
        }
        write!(f, "{} games · score {:.1}%", self.games, 100.0 * self.score)?;
        let elo = |e: Option<f64>, inf: &str| e.map_or(inf.to_string(), |e| format!("{e:+.1}"));
        if self.games > 0 {
            write!(
                f,
                " · Elo {} [{}, {}]",
                elo(self.elo, if self.score >= 1.0 { "+∞" } else { "−∞" }),
                elo(self.elo_ci95[0], "−∞"),
                elo(self.elo_ci95[1], "+∞")
            )?;
        }
        if self.decision.is_some() {
            write!(f, " · {}", self.verdict())?;
        }
        Ok(())
    }
}
