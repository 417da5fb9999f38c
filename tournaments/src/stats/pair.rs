//! Two bots from their own games only, as fastchess reports a match: the score (the share of
//! points, a draw half), its Elo, and the interval of both, from single games or whole deals.
//!
//! For two bots `i` and `j` that sat together, a *comparison* is a game in which one of them was
//! the durak (the other finished ahead), or a draw; a game another player lost says nothing of
//! these two. `i`'s score is `(ahead + draws/2) / (ahead + behind + draws)`.
//!
//! Its spread is taken over *units*: single games (the trinomial win/draw/loss variance,
//! fastchess's "unpaired" figures) or deals, each deal played at every seat rotation (at two
//! seats: the pentanomial of game pairs). With `hᵤ` the half points and `nᵤ` the comparisons of
//! unit `u`, the score `p = Σh / 2Σn` is a ratio estimator and its variance about a score `x` is
//! `S(x)/(Σn)²`, `S(x) = U/(U−1) · Σᵤ (hᵤ/2 − x·nᵤ)²` over `U` units.
//!
//! - The **interval** is built on the logit scale, where Elo is linear:
//!   `ln(p/(1−p)) ± z·σ/(p(1−p))` with `σ = √S(p)/Σn` (the delta method), mapped to Elo
//!   (`400/ln 10` per unit) and to the score (the logistic) at both ends; both ends are finite
//!   whenever both bots scored (a normal interval on the score itself would cross 1 at 38–2).
//!   After a clean sweep (`p` = 0 or 1) there is no spread to measure; the interval is then
//!   Wilson's for `Σh/2` of `Σn`, its open end infinite.
//! - **LOS** is `Φ((p − ½) / (√S(½)/Σn))`, the spread taken at an even score: over single games
//!   without draws that is fastchess's `Φ((W − L)/√(W + L))` (here with the factor `U/(U−1)`).
//! - **Paired** figures blend the spread of deals with that of single games, as the fit does
//!   ([`paired_estimate`]), so that a few deals do not look unanimous.

use super::{elo_of_score, normal_cdf, wilson_real, ELO_PER_NAT};

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The sums over units that a pair estimate needs (half points `h`, comparisons `n`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairSums {
    pub units: u64,
    pub h: f64,
    pub n: f64,
    pub hh: f64,
    pub hn: f64,
    pub nn: f64,
}

/// The figures of one bot against another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairEstimate {
    /// Share of the points.
    pub score: f64,
    /// Standard deviation of the score (0 after a clean sweep; infinite below two units).
    pub sd: f64,
    /// `400·log10(score/(1−score))`: ±∞ for a clean sweep.
    pub elo: f64,
    /// 95 % interval of the score.
    pub score_ci95: (f64, f64),
    /// The same in Elo (ends may be infinite).
    pub elo_ci95: (f64, f64),
    /// Likelihood of superiority.
    pub los: f64,
}

/// `S(x) = a − b·x + c·x²` (module docs), scaled by `U/(U−1)` and blended.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spread {
    a: f64,
    b: f64,
    c: f64,
}

impl Spread {
    fn at(&self, x: f64) -> f64 {
        (self.a - self.b * x + self.c * x * x).max(0.0)
    }
    fn blend(self, w: f64, other: Spread, v: f64) -> Spread {
        let t = w + v;
        Spread {
            a: (w * self.a + v * other.a) / t,
            b: (w * self.b + v * other.b) / t,
            c: (w * self.c + v * other.c) / t,
        }
    }
}

impl PairSums {
    /// Single games as units: `ahead` wins, `behind` losses, `draws`.
    pub fn from_games(ahead: u64, behind: u64, draws: u64) -> PairSums {
        let (a, b, d) = (ahead as f64, behind as f64, draws as f64);
        PairSums {
            units: ahead + behind + draws,
            h: 2.0 * a + d,
            n: a + b + d,
            hh: 4.0 * a + d,
            hn: 2.0 * a + d,
            nn: a + b + d,
        }
    }

    /// Add one unit with `h` half points out of `n` comparisons.
    pub fn add_unit(&mut self, h: f64, n: f64) {
        self.units += 1;
        self.h += h;
        self.n += n;
        self.hh += h * h;
        self.hn += h * n;
        self.nn += n * n;
    }

    /// Add `count` units of `h` half points out of `n` comparisons each.
    pub fn add_units(&mut self, h: f64, n: f64, count: u64) {
        let c = count as f64;
        self.units += count;
        self.h += c * h;
        self.n += c * n;
        self.hh += c * h * h;
        self.hn += c * h * n;
        self.nn += c * n * n;
    }

    /// Add another set of units.
    pub fn add(&mut self, o: &PairSums) {
        self.units += o.units;
        self.h += o.h;
        self.n += o.n;
        self.hh += o.hh;
        self.hn += o.hn;
        self.nn += o.nn;
    }

    /// The same units from the other bot's side: `h' = 2n − h`.
    pub fn mirrored(&self) -> PairSums {
        PairSums {
            units: self.units,
            h: 2.0 * self.n - self.h,
            n: self.n,
            hh: 4.0 * self.nn - 4.0 * self.hn + self.hh,
            hn: 2.0 * self.nn - self.hn,
            nn: self.nn,
        }
    }

    /// The score, `Σh / 2Σn`.
    fn score(&self) -> Option<f64> {
        (self.n > 0.0).then(|| self.h / (2.0 * self.n))
    }

    /// `S(x)`; `None` below two units.
    fn spread(&self) -> Option<Spread> {
        (self.units > 1).then(|| {
            let u = self.units as f64;
            let f = u / (u - 1.0);
            Spread {
                a: f * self.hh / 4.0,
                b: f * self.hn,
                c: f * self.nn,
            }
        })
    }

    /// The estimate over these units, at two-sided normal quantile `z`; `None` without a
    /// comparison.
    pub fn estimate(&self, z: f64) -> Option<PairEstimate> {
        let p = self.score()?;
        Some(PairEstimate::new(p, self.spread(), self.h, self.n, z))
    }
}

/// The paired estimate: the spread of whole `deals`, blended with the spread of single `games`
/// (the same games) as if `prior_deals` deals of it had been seen, like the fit's paired
/// covariance: `(κ·S_games + U·S_deals) / (κ + U)` over `U` deals (the games' alone below two).
pub fn paired_estimate(
    deals: &PairSums,
    games: &PairSums,
    prior_deals: f64,
    z: f64,
) -> Option<PairEstimate> {
    let p = games.score()?;
    let spread = match (games.spread(), deals.spread()) {
        (Some(g), Some(d)) => Some(g.blend(prior_deals, d, deals.units as f64)),
        (g, _) => g,
    };
    Some(PairEstimate::new(p, spread, games.h, games.n, z))
}

impl PairEstimate {
    fn new(p: f64, spread: Option<Spread>, h: f64, n: f64, z: f64) -> PairEstimate {
        let sd = spread.map_or(f64::INFINITY, |s| s.at(p).sqrt() / n);
        let sd_even = spread.map_or(f64::INFINITY, |s| s.at(0.5).sqrt() / n);
        let los = if sd_even > 0.0 && sd_even.is_finite() {
            normal_cdf((p - 0.5) / sd_even)
        } else if sd_even.is_infinite() || (p - 0.5).abs() < 1e-12 {
            0.5
        } else if p > 0.5 {
            1.0
        } else {
            0.0
        };
        let (score_ci95, elo_ci95) = if sd.is_finite() && (p <= 0.0 || p >= 1.0) {
            let w = wilson_real(h / 2.0, n, z);
            (w, (elo_of_score(w.0), elo_of_score(w.1)))
        } else if sd.is_finite() {
            // On the logit scale (the delta method: the sd of ln(p/(1−p)) is sd/(p(1−p))), so
            // that both ends stay finite whenever both bots scored.
            let logit = (p / (1.0 - p)).ln();
            let half = z * sd / (p * (1.0 - p));
            let (lo, hi) = (logit - half, logit + half);
            (
                (logistic(lo), logistic(hi)),
                (ELO_PER_NAT * lo, ELO_PER_NAT * hi),
            )
        } else {
            ((0.0, 1.0), (f64::NEG_INFINITY, f64::INFINITY))
        };
        PairEstimate {
            score: p,
            sd,
            elo: elo_of_score(p),
            score_ci95,
            elo_ci95,
            los,
        }
    }
}

/// The deals of two bots at a two-seat table, each played at both rotations, from the first
/// bot's side (fastchess's pentanomial, with draws).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DealOutcomes {
    /// The other was the durak twice (score 1).
    pub won_both: u64,
    /// Won one, drew one (¾).
    pub won_drew: u64,
    /// Won one, lost one (½).
    pub split: u64,
    /// Two draws (½).
    pub drew_both: u64,
    /// Lost one, drew one (¼).
    pub lost_drew: u64,
    /// The durak twice (0).
    pub lost_both: u64,
    /// Deals not (yet) played at both rotations, or with a game nobody played.
    pub incomplete: u64,
}

impl DealOutcomes {
    /// Count a deal in which this bot was the durak `mine` times, the other `theirs` times, with
    /// `draws`, out of `games` that count (2 for a whole deal).
    pub fn add(&mut self, mine: u32, theirs: u32, draws: u32, games: u32) {
        let bin = match (games, mine, theirs, draws) {
            (2, 0, 2, 0) => &mut self.won_both,
            (2, 0, 1, 1) => &mut self.won_drew,
            (2, 1, 1, 0) => &mut self.split,
            (2, 0, 0, 2) => &mut self.drew_both,
            (2, 1, 0, 1) => &mut self.lost_drew,
            (2, 2, 0, 0) => &mut self.lost_both,
            _ => &mut self.incomplete,
        };
        *bin += 1;
    }

    /// The same deals from the other bot's side.
    pub fn mirrored(&self) -> DealOutcomes {
        DealOutcomes {
            won_both: self.lost_both,
            won_drew: self.lost_drew,
            split: self.split,
            drew_both: self.drew_both,
            lost_drew: self.won_drew,
            lost_both: self.won_both,
            incomplete: self.incomplete,
        }
    }

    /// Whole deals.
    pub fn complete(&self) -> u64 {
        self.won_both
            + self.won_drew
            + self.split
            + self.drew_both
            + self.lost_drew
            + self.lost_both
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: f64 = 1.959963984540054;

    /// 60 wins, 20 losses, 20 draws in 100 games: p = 0.7; squared residuals
    /// 60·0.3² + 20·0.7² + 20·0.2² = 16.0, sd = √(100/99 · 16.0)/100 = 0.040202.
    #[test]
    fn trinomial_figures_by_hand() {
        let e = PairSums::from_games(60, 20, 20).estimate(Z).unwrap();
        assert!((e.score - 0.7).abs() < 1e-12);
        let sd = (100.0f64 / 99.0 * 16.0).sqrt() / 100.0;
        assert!((e.sd - sd).abs() < 1e-12, "{} {sd}", e.sd);
        assert!((e.elo - 400.0 * (0.7f64 / 0.3).log10()).abs() < 1e-9);
        // On the logit scale: ln(0.7/0.3) ± Z·sd/0.21, in Elo.
        let half = Z * sd / (0.7 * 0.3);
        let lo = 400.0 * ((0.7f64 / 0.3).ln() - half) / std::f64::consts::LN_10;
        let hi = 400.0 * ((0.7f64 / 0.3).ln() + half) / std::f64::consts::LN_10;
        assert!((e.elo_ci95.0 - lo).abs() < 1e-9 && (e.elo_ci95.1 - hi).abs() < 1e-9);
        assert!(
            (e.score_ci95.1 - 10f64.powf(hi / 400.0) / (1.0 + 10f64.powf(hi / 400.0))).abs()
                < 1e-12
        );
        // LOS with the spread at ½: residuals ½ (wins), −½ (losses), 0 (draws): √(100/99·20)
        // /100; fastchess's Φ((W − L)/√(W + L)) but for the factor 100/99.
        let even = (100.0f64 / 99.0 * 20.0).sqrt() / 100.0;
        assert!((e.los - super::super::normal_cdf(0.2 / even)).abs() < 1e-12);
        let fastchess = super::super::normal_cdf(40.0 / 80f64.sqrt());
        assert!((e.los - fastchess).abs() < 1e-4, "{} {fastchess}", e.los);
    }

    /// The same games as whole deals: when every deal is split (the luck of the deal decides
    /// each game), the paired spread is zero where the unpaired one is the largest; blended
    /// with 10 deals of the unpaired spread, 50 deals keep 10/60 of its variance.
    #[test]
    fn paired_units_remove_what_the_deal_decides() {
        let mut paired = PairSums::default();
        for _ in 0..50 {
            paired.add_unit(2.0, 2.0); // one win, one loss: 2 half points of 2
        }
        let e = paired.estimate(Z).unwrap();
        assert_eq!((e.score, e.sd, e.los), (0.5, 0.0, 0.5));
        let games = PairSums::from_games(50, 50, 0);
        let u = games.estimate(Z).unwrap();
        assert!(u.sd > 0.05);
        let b = paired_estimate(&paired, &games, 10.0, Z).unwrap();
        assert!(
            (b.sd - u.sd * (10.0f64 / 60.0).sqrt()).abs() < 1e-12,
            "{} {}",
            b.sd,
            u.sd
        );
        // One deal: not paired at all.
        let mut one = PairSums::default();
        one.add_unit(2.0, 2.0);
        let g1 = PairSums::from_games(1, 1, 0);
        assert_eq!(paired_estimate(&one, &g1, 10.0, Z), g1.estimate(Z));
        // A clean sweep: infinite Elo, an infinite upper end, and Wilson's lower end (10 of
        // 10: 10/(10 + z²)); LOS from the spread at ½: Φ(10/√10 · √(9/10)) (fastchess: Φ(√10)).
        let sweep = PairSums::from_games(10, 0, 0).estimate(Z).unwrap();
        assert_eq!(
            (sweep.elo, sweep.elo_ci95.1),
            (f64::INFINITY, f64::INFINITY)
        );
        assert!((sweep.score_ci95.0 - 10.0 / (10.0 + Z * Z)).abs() < 1e-12);
        let los = super::super::normal_cdf(0.5 / ((10.0f64 / 9.0 * 2.5).sqrt() / 10.0));
        assert!((sweep.los - los).abs() < 1e-12 && sweep.los < 0.9999);
        assert!(PairSums::default().estimate(Z).is_none());
    }

    /// 38 wins and 2 losses: both bots scored, so both ends are finite (a normal interval on
    /// the score, 0.95 ± 0.068, crossed 1 and gave [+348.8, +∞]); only a clean sweep is open.
    #[test]
    fn a_lopsided_score_has_finite_ends() {
        let e = PairSums::from_games(38, 2, 0).estimate(Z).unwrap();
        let (lo, hi) = e.elo_ci95;
        assert!(lo.is_finite() && hi.is_finite(), "{lo} {hi}");
        assert!(
            lo < e.elo && e.elo < hi && lo > 200.0,
            "{lo} {} {hi}",
            e.elo
        );
        // sd = √(40/39 · (38·0.05² + 2·0.95²))/40; on the logit scale ÷ 0.95·0.05.
        let sd = (40.0f64 / 39.0 * (38.0 * 0.0025 + 2.0 * 0.9025)).sqrt() / 40.0;
        let want = 400.0 * (19f64.ln() + Z * sd / 0.0475) / std::f64::consts::LN_10;
        assert!((hi - want).abs() < 1e-9, "{hi} {want}");
        // The mirror image: finite too.
        let m = PairSums::from_games(2, 38, 0).estimate(Z).unwrap();
        assert!((m.elo_ci95.0 + hi).abs() < 1e-9 && (m.elo_ci95.1 + lo).abs() < 1e-9);
        // 40–0 stays open above.
        let sweep = PairSums::from_games(40, 0, 0).estimate(Z).unwrap();
        assert_eq!(sweep.elo_ci95.1, f64::INFINITY);
    }

    /// Mirrored sums are the sums of the mirrored units.
    #[test]
    fn mirrored_sums_are_the_other_sides() {
        let (mut s, mut m) = (PairSums::default(), PairSums::default());
        for (h, n) in [(4.0, 2.0), (1.0, 2.0), (0.0, 1.0), (3.0, 3.0)] {
            s.add_unit(h, n);
            m.add_unit(2.0 * n - h, n);
        }
        assert_eq!(s.mirrored(), m);
        let e = s.estimate(Z).unwrap();
        let f = m.estimate(Z).unwrap();
        assert!((e.score + f.score - 1.0).abs() < 1e-12 && (e.sd - f.sd).abs() < 1e-12);
    }

    #[test]
    fn deal_outcomes_bin_and_mirror() {
        let mut d = DealOutcomes::default();
        d.add(0, 2, 0, 2);
        d.add(1, 1, 0, 2);
        d.add(1, 0, 1, 2);
        d.add(0, 1, 0, 1);
        assert_eq!(
            (d.won_both, d.split, d.lost_drew, d.incomplete),
            (1, 1, 1, 1)
        );
        assert_eq!(d.complete(), 3);
        let m = d.mirrored();
        assert_eq!((m.lost_both, m.won_drew, m.split), (1, 1, 1));
    }
}
