//! The statistics behind the standings and the SPRT, free of tournament types: plain numbers in,
//! plain numbers out, so each can be checked against an independent implementation.
//!
//! - [`fit`]: the rating fit over all games (who is the durak, given the table), with its
//!   model-based and its paired (per-deal) covariance.
//! - [`compare`]: from a fit, the likelihood of superiority between two bots and the tie groups.
//! - [`pair`]: fastchess-style figures for two bots from their own games only: the score, its
//!   Elo, and its interval from single games (trinomial) or from whole deals (pentanomial).
//! - [`sprt`]: the generalized sequential probability ratio test on such scores.

pub mod compare;
pub mod fit;
pub mod pair;
pub mod sprt;

use statrs::distribution::{ContinuousCDF, Normal};

/// Elo points per natural unit of the rating: Elo differences are `400·log10` of odds.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Deals of the model's spread added to each set of bots' paired spread ([`fit`] module docs,
/// and [`pair`]): a few deals are not trusted to narrow an interval.
pub const PRIOR_DEALS: f64 = 10.0;

/// The confidence of every interval, and the LOS a difference needs to count (two-sided).
pub const CONFIDENCE: f64 = 0.95;

/// The standard normal distribution function Φ.
pub fn normal_cdf(x: f64) -> f64 {
    std_normal().cdf(x)
}

/// The standard normal quantile Φ⁻¹(p).
pub fn normal_quantile(p: f64) -> f64 {
    std_normal().inverse_cdf(p)
}

/// z of a two-sided interval at [`CONFIDENCE`] (1.959964…).
pub fn z_two_sided() -> f64 {
    normal_quantile(0.5 + CONFIDENCE / 2.0)
}

fn std_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("the standard normal exists")
}

/// Elo difference of a score `p` (the expected share of points, a draw half): `400·log10(p/(1-p))`,
/// ±∞ at 1 and 0.
pub fn elo_of_score(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        ELO_PER_NAT * (p / (1.0 - p)).ln()
    }
}

/// The Wilson score interval for `x` successes in `n` trials at normal quantile `z`.
/// With no trials: `(0, 1)`.
pub fn wilson(x: u64, n: u64, z: f64) -> (f64, f64) {
    wilson_real(x as f64, n as f64, z)
}

/// [`wilson`] for counts that need not be whole (a draw is half a success).
pub fn wilson_real(x: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = x / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At x = 0 and x = n the bound is exactly 0 (or 1); computed, it can miss by a rounding
    // error (1e-17), and the interval would not contain the rate itself.
    let low = if x <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if x >= n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// z and Φ against scipy.stats.norm (ppf(0.975) = 1.959963984540054,
    /// cdf(1) = 0.8413447460685429, cdf(-2.5) = 0.006209665325776132). statrs' Φ is good to
    /// about 1e-11, far below what a percentage shows.
    #[test]
    fn quantiles_match_scipy() {
        assert!((z_two_sided() - 1.959963984540054).abs() < 1e-12);
        assert!((normal_cdf(1.0) - 0.8413447460685429).abs() < 1e-10);
        assert!((normal_cdf(-2.5) - 0.006209665325776132).abs() < 1e-10);
    }

    #[test]
    fn elo_of_a_score() {
        assert_eq!(elo_of_score(0.5), 0.0);
        // 10:1 odds are 400 Elo.
        assert!((elo_of_score(10.0 / 11.0) - 400.0).abs() < 1e-9);
        assert_eq!(elo_of_score(1.0), f64::INFINITY);
        assert_eq!(elo_of_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn wilson_matches_hand_computed_values() {
        // x = 3, n = 10, z = 1.96 (textbook): p = 0.3, centre = (0.3 + 0.19208)/1.38416
        // = 0.355508, half = 1.96 * sqrt(0.021 + 0.009604)/1.38416 = 0.247719.
        let (lo, hi) = wilson(3, 10, 1.96);
        assert!((lo - 0.107789).abs() < 1e-6, "{lo}");
        assert!((hi - 0.603227).abs() < 1e-6, "{hi}");
        let z = z_two_sided();
        // No losses in 5: the upper bound is z²/(n + z²).
        let (lo, hi) = wilson(0, 5, z);
        assert_eq!(lo, 0.0);
        assert!((hi - z * z / (5.0 + z * z)).abs() < 1e-12);
        assert_eq!(wilson(0, 0, z), (0.0, 1.0));
        // Every interval contains its rate, exactly at the ends: 0 losses, or all (a
        // disqualified bot), for every game count (24 of 0 and 10 of 10 used to miss by 1e-17).
        for n in 1..=2000 {
            assert_eq!(wilson(0, n, z).0, 0.0, "0 of {n}");
            assert_eq!(wilson(n, n, z).1, 1.0, "{n} of {n}");
            for x in [1, n / 2, n - 1] {
                let (lo, hi) = wilson(x, n, z);
                let p = x as f64 / n as f64;
                assert!(lo <= p && p <= hi, "{x} of {n}: {lo}..{hi}");
            }
        }
    }
}
