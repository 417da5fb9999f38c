//! The sequential probability ratio test, as pure math: "is the challenger better?", answered
//! as soon as the games say so.
//!
//! # Hypotheses
//!
//! On Elo, relative to the field: `H0: Δ = elo0` against `H1: Δ = elo1` (`elo0 < elo1`), with
//! `Δ` the challenger's rating minus its opponents' in the [fit's model](super::fit): at a table
//! of `k` with `k − 1` opponents of equal strength, the challenger is the durak with probability
//! `1 / (1 + (k−1)·10^(Δ/400))`. Its *score* in a game is 1 when someone else is the durak, 0
//! when it is, and `1 − 1/k` for a draw (a `1/k` share of the loss, as in the fit; at two seats
//! chess's half point); under a hypothesis its expected score is [`expected_score`]`(Δ, k)`
//! (at two seats `1/(1 + 10^(−Δ/400))`, chess's).
//!
//! # The test
//!
//! Observations are scores in `[0, 1]`: single games (unpaired), or the mean score over the `k`
//! seat rotations of one duplicate deal (paired: at two seats 0, ¼, ½, ¾ or 1, fastchess's
//! pentanomial). They are counted in a histogram over their possible values. The statistic is
//! the generalized log-likelihood ratio (GSPRT, as fishtest and fastchess compute it): for each
//! hypothesis, the maximum-likelihood distribution over those values whose mean is that
//! hypothesis's expected score (`pᵢ = p̂ᵢ / (1 + λ(aᵢ − s))`, `λ` the root of
//! `Σ p̂ᵢ (aᵢ − s)/(1 + λ(aᵢ − s)) = 0`), and
//! `LLR = Σ nᵢ · ln(p1ᵢ / p0ᵢ)`. A value never seen counts as 10⁻³ of an observation (fishtest's
//! regularisation), so every mean strictly between 0 and 1 is reachable.
//!
//! Wald's bounds: the test accepts H1 when `LLR ≥ ln((1−β)/α)` and H0 when
//! `LLR ≤ ln(β/(1−α))`; `α` is the chance of accepting H1 when H0 holds, `β` of accepting H0
//! when H1 holds. Paired deals count the luck of the deal once instead of in every game, so their
//! scores spread less and the test decides in fewer games (see `examples/sprt_games.rs`).

use crate::error::Error;

/// What the test accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Hypothesis {
    H0,
    H1,
}

/// The test's settings.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SprtParams {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Checked finite ([`SprtParams::new`]): equality is total.
impl Eq for SprtParams {}

/// Counts below this are raised to it (a value never seen).
pub const REGULARISATION: f64 = 1e-3;

impl SprtParams {
    /// Checked settings: finite Elos with `elo0 < elo1`, `0 < α, β` and `α + β < 1`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<SprtParams, Error> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(config_error!(
                "SPRT: elo0 ({elo0}) must be below elo1 ({elo1})\n  fix: e.g. elo0 = 0, elo1 = 10"
            ));
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(config_error!(
                    "SPRT: {name} = {v} is not a probability between 0 and 0.5\n  fix: e.g. \
                     {name} = 0.05"
                ));
            }
        }
        Ok(SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// (lower, upper): accept H0 at or below `lower`, H1 at or above `upper`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision a log-likelihood ratio makes, if any.
    pub fn decide(&self, llr: f64) -> Option<Hypothesis> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Hypothesis::H1)
        } else if llr <= lower {
            Some(Hypothesis::H0)
        } else {
            None
        }
    }

    /// The LLR of H1 against H0 for observations scored `values[i]` seen `counts[i]` times, at
    /// tables of `table_size`.
    pub fn llr(&self, values: &[f64], counts: &[u64], table_size: usize) -> f64 {
        llr(
            values,
            counts,
            expected_score(self.elo0, table_size),
            expected_score(self.elo1, table_size),
        )
    }
}

/// The expected score of a player `elo` above its `table_size − 1` equal opponents.
pub fn expected_score(elo: f64, table_size: usize) -> f64 {
    let others = table_size.saturating_sub(1).max(1) as f64;
    1.0 - 1.0 / (1.0 + others * 10f64.powf(elo / 400.0))
}

/// The Elo whose [`expected_score`] at tables of `table_size` is `score` (the inverse);
/// `None` at a score of 0 or 1 (infinite).
pub fn score_to_elo(score: f64, table_size: usize) -> Option<f64> {
    let others = table_size.saturating_sub(1).max(1) as f64;
    (score > 0.0 && score < 1.0).then(|| 400.0 * (score / ((1.0 - score) * others)).log10())
}

/// The challenger's Elo above the field and its 95 % interval, as `(elo, [low, high])` with
/// `None` for an infinite value; `None` without games. `games` is the histogram of single games'
/// scores (`values`, `counts`); `deals`, when paired, that of whole deals' mean scores, each deal
/// `k` games. The figures are [`pair`](super::pair)'s, with the challenger's score in place of a
/// pair's (each game one comparison worth `2·score` half points): the score over the games, its
/// interval on the logit scale, its spread from whole deals blended with the games' as if
/// `prior_deals` deals of it had been seen ([`pair::paired_estimate`](super::pair::paired_estimate),
/// the same as the pairs table). Mapped to Elo at `k` seats by [`score_to_elo`].
pub fn elo_interval(
    games: (&[f64], &[u64]),
    deals: Option<(&[f64], &[u64])>,
    k: usize,
    prior_deals: f64,
    z: f64,
) -> Option<(Option<f64>, [Option<f64>; 2])> {
    use super::pair::{paired_estimate, PairSums};
    let sums = |(values, counts): (&[f64], &[u64]), games_each: f64| {
        let mut s = PairSums::default();
        for (&v, &c) in values.iter().zip(counts) {
            s.add_units(2.0 * games_each * v, games_each, c);
        }
        s
    };
    let g = sums(games, 1.0);
    let e = match deals {
        Some(d) => paired_estimate(&sums(d, k as f64), &g, prior_deals, z)?,
        None => g.estimate(z)?,
    };
    // score_to_elo at k seats is the two-seat Elo less 400·log10(k − 1).
    let shift = 400.0 * (k.saturating_sub(1).max(1) as f64).log10();
    let elo = |x: f64| x.is_finite().then_some(x - shift);
    Some((elo(e.elo), [elo(e.elo_ci95.0), elo(e.elo_ci95.1)]))
}

/// The generalized log-likelihood ratio of mean `s1` against mean `s0` (module docs). `values`
/// are the possible scores (in `[0, 1]`, spanning both means), `counts` how often each was seen.
pub fn llr(values: &[f64], counts: &[u64], s0: f64, s1: f64) -> f64 {
    assert_eq!(values.len(), counts.len());
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let n: Vec<f64> = counts
        .iter()
        .map(|&c| (c as f64).max(REGULARISATION))
        .collect();
    let total: f64 = n.iter().sum();
    let p: Vec<f64> = n.iter().map(|x| x / total).collect();
    let l0 = lambda(values, &p, s0);
    let l1 = lambda(values, &p, s1);
    values
        .iter()
        .zip(&n)
        .map(|(&a, &ni)| ni * ((1.0 + l0 * (a - s0)) / (1.0 + l1 * (a - s1))).ln())
        .sum()
}

/// The root `λ` of `Σ pᵢ (aᵢ − s)/(1 + λ(aᵢ − s)) = 0` inside the interval that keeps every
/// `1 + λ(aᵢ − s)` positive: safeguarded Newton (the function decreases strictly).
fn lambda(values: &[f64], p: &[f64], s: f64) -> f64 {
    let lo_a = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi_a = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(
        lo_a < s && s < hi_a,
        "the mean {s} must lie strictly between the scores {lo_a} and {hi_a}"
    );
    let (mut lo, mut hi) = (-1.0 / (hi_a - s), 1.0 / (s - lo_a));
    let f = |l: f64| -> (f64, f64) {
        let mut v = 0.0;
        let mut d = 0.0;
        for (&a, &pi) in values.iter().zip(p) {
            let x = a - s;
            let den = 1.0 + l * x;
            v += pi * x / den;
            d -= pi * x * x / (den * den);
        }
        (v, d)
    };
    let mut l = 0.0;
    for _ in 0..200 {
        let (v, d) = f(l);
        if v.abs() < 1e-15 {
            break;
        }
        if v > 0.0 {
            lo = l;
        } else {
            hi = l;
        }
        let newton = l - v / d;
        l = if newton > lo && newton < hi && d < 0.0 {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo < 1e-15 * (1.0 + l.abs()) {
            break;
        }
    }
    l
}

/// The possible mean scores of one deal at a table of `k` (over its `k` rotations), in units
/// of `1/k²`: `k·a + (k−1)·b` for `a` games another bot lost and `b` draws, `a + b ≤ k`.
pub fn paired_values(k: usize) -> Vec<u32> {
    let k = k as u32;
    let mut v: Vec<u32> = (0..=k)
        .flat_map(|a| (0..=k - a).map(move |b| k * a + (k - 1) * b))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_scores() {
        let p = SprtParams::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let (lo, hi) = p.bounds();
        assert!((hi - 19f64.ln()).abs() < 1e-12 && (lo + 19f64.ln()).abs() < 1e-12);
        assert_eq!(p.decide(3.0), Some(Hypothesis::H1));
        assert_eq!(p.decide(-3.0), Some(Hypothesis::H0));
        assert_eq!(p.decide(0.0), None);
        assert!((expected_score(0.0, 2) - 0.5).abs() < 1e-15);
        assert!((expected_score(0.0, 4) - 0.75).abs() < 1e-15);
        // 400 Elo at two seats: 10:1.
        assert!((expected_score(400.0, 2) - 10.0 / 11.0).abs() < 1e-12);
        for k in [2, 3, 6] {
            for e in [-250.0, 0.0, 35.0] {
                let back = score_to_elo(expected_score(e, k), k).unwrap();
                assert!((back - e).abs() < 1e-9, "{k} {e} {back}");
            }
        }
        assert_eq!(score_to_elo(1.0, 2), None);
        assert!(SprtParams::new(5.0, 5.0, 0.05, 0.05).is_err());
        assert!(SprtParams::new(0.0, 5.0, 0.0, 0.05).is_err());
        assert!(SprtParams::new(0.0, 5.0, 0.05, 0.7).is_err());
    }

    #[test]
    fn paired_values_at_two_and_three_seats() {
        // Two seats: 0, ¼, ½, ¾, 1 in quarters.
        assert_eq!(paired_values(2), vec![0, 1, 2, 3, 4]);
        // Three seats, ninths: a, b with a + b ≤ 3 → 3a + 2b.
        assert_eq!(paired_values(3), vec![0, 2, 3, 4, 5, 6, 7, 8, 9]);
    }

    /// The constrained distributions have the required mean and sum to one, and the LLR is
    /// the log-ratio of their likelihoods.
    #[test]
    fn the_constrained_fit_has_the_hypothesis_mean() {
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        let counts = [3u64, 20, 50, 30, 7];
        let total: f64 = counts.iter().sum::<u64>() as f64;
        let p: Vec<f64> = counts.iter().map(|&c| c as f64 / total).collect();
        for s in [0.45, 0.5, 0.52, 0.6] {
            let l = lambda(&values, &p, s);
            let q: Vec<f64> = values
                .iter()
                .zip(&p)
                .map(|(&a, &pi)| pi / (1.0 + l * (a - s)))
                .collect();
            let sum: f64 = q.iter().sum();
            let mean: f64 = q.iter().zip(&values).map(|(qi, a)| qi * a).sum();
            assert!((sum - 1.0).abs() < 1e-12 && (mean - s).abs() < 1e-12, "{s}");
        }
        // With the observed mean exactly at s1, H1's distribution is the empirical one.
        let mean: f64 = p.iter().zip(&values).map(|(pi, a)| pi * a).sum();
        let at = llr(&values, &counts, 0.5, mean);
        assert!(at > 0.0);
        assert!(llr(&values, &counts, 0.5, mean + 0.02) < at);
        assert_eq!(llr(&values, &[0; 5], 0.5, 0.51), 0.0);
    }
}
