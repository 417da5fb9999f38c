//! Comparing two bots of a [`Fit`](super::fit::Fit): the likelihood of superiority, and which
//! bots the data orders.
//!
//! - **LOS** of `a` over `b`: `Φ((θa − θb) / sd(θa − θb))`, the probability that `a` is the
//!   better bot under the normal approximation of the fit (flat prior on the difference). It
//!   uses all games, not only the games between the two. fastchess prints the same figure for
//!   two engines from their wins and losses.
//! - A difference **counts** when its two-sided 95 % interval excludes zero, which is
//!   `LOS ≥ 97.5 %` (or ≤ 2.5 %).
//! - **Tie groups** ([`tie_groups`]): bots sorted by rating, best first, are cut into
//!   consecutive groups. A cut between positions `p` and `p+1` is made exactly when *every* bot
//!   above it is better than *every* bot below it at LOS ≥ 97.5 %. Such cuts do not depend on
//!   one another, so the groups are unique; a rank printed above another rank is established
//!   for every pair of bots across them. Within a group some pairs may be separable (LOS is not
//!   transitive: a > c can be clear while a ≈ b ≈ c): the group says only that the data does not
//!   give one order of all its members. A group of several bots shares the rank of its first
//!   position, printed `=2`. No correction for multiple comparisons is made.

use nalgebra::DMatrix;
use std::ops::Range;

/// The LOS a difference needs to count: the upper end of a two-sided 95 % interval.
pub const LOS_THRESHOLD: f64 = 0.975;

/// Standard deviation of `θa − θb` under `cov`.
pub fn difference_sd(cov: &DMatrix<f64>, a: usize, b: usize) -> f64 {
    (cov[(a, a)] + cov[(b, b)] - 2.0 * cov[(a, b)])
        .max(0.0)
        .sqrt()
}

/// Likelihood of superiority of `a` over `b`. With no spread left (sd 0): 1, 0, or ½ for no
/// difference.
pub fn los(theta: &[f64], cov: &DMatrix<f64>, a: usize, b: usize) -> f64 {
    let d = theta[a] - theta[b];
    let sd = difference_sd(cov, a, b);
    if sd > 0.0 && sd.is_finite() {
        super::normal_cdf(d / sd)
    } else if d.abs() < 1e-12 {
        0.5
    } else if d > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// The tie groups of `count` bots in rank order (position 0 the best), given `los(i, j)`: the
/// LOS of the bot at position `i` over the one at `j`. Returns the groups as ranges of
/// positions, in order.
pub fn tie_groups(count: usize, los: impl Fn(usize, usize) -> f64) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut start = 0;
    for cut in 1..count {
        let clear = (0..cut).all(|i| (cut..count).all(|j| los(i, j) >= LOS_THRESHOLD));
        if clear {
            groups.push(start..cut);
            start = cut;
        }
    }
    if count > 0 {
        groups.push(start..count);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(table: &[[f64; 4]]) -> impl Fn(usize, usize) -> f64 + '_ {
        move |i, j| table[i][j]
    }

    #[test]
    fn groups_cut_only_where_every_pair_across_is_clear() {
        // a ≫ b ≈ c ≫ d: groups {a}, {b, c}, {d}.
        let t = [
            [0.5, 0.99, 0.99, 1.0],
            [0.01, 0.5, 0.6, 0.99],
            [0.01, 0.4, 0.5, 0.98],
            [0.0, 0.01, 0.02, 0.5],
        ];
        assert_eq!(tie_groups(4, from(&t)), vec![0..1, 1..3, 3..4]);
        // a > c is clear but a ≈ b ≈ c: not transitive, one group of three (b could be first
        // or last); d is below all of them.
        let t = [
            [0.5, 0.9, 0.99, 0.999],
            [0.1, 0.5, 0.9, 0.999],
            [0.01, 0.1, 0.5, 0.99],
            [0.0, 0.0, 0.01, 0.5],
        ];
        assert_eq!(tie_groups(4, from(&t)), vec![0..3, 3..4]);
        // One unclear pair across a cut forbids it: a ≫ b, but a ≈ c (c's rating is
        // uncertain), so no cut between a and b, nor between b and c.
        let t = [
            [0.5, 0.99, 0.9, 0.99],
            [0.01, 0.5, 0.5, 0.99],
            [0.1, 0.5, 0.5, 0.99],
            [0.01, 0.01, 0.01, 0.5],
        ];
        assert_eq!(tie_groups(4, from(&t)), vec![0..3, 3..4]);
        assert_eq!(tie_groups(0, |_, _| 0.5), Vec::<Range<usize>>::new());
        assert_eq!(tie_groups(1, |_, _| 0.5), vec![0..1]);
    }

    #[test]
    fn los_is_the_normal_probability_of_a_positive_difference() {
        let cov = DMatrix::from_row_slice(2, 2, &[0.04, -0.01, -0.01, 0.02]);
        // sd = √(0.04 + 0.02 + 0.02) = √0.08; d = 0.3: Φ(1.06066) = 0.855578 (scipy).
        let l = los(&[0.2, -0.1], &cov, 0, 1);
        assert!((l - 0.8555778168267576).abs() < 1e-10, "{l}");
        assert!((los(&[0.2, -0.1], &cov, 1, 0) + l - 1.0).abs() < 1e-12);
        let zero = DMatrix::zeros(2, 2);
        assert_eq!(los(&[0.0, 0.0], &zero, 0, 1), 0.5);
        assert_eq!(los(&[0.1, 0.0], &zero, 0, 1), 1.0);
    }
}
