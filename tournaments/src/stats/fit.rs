//! The rating fit: maximum likelihood over all games, whatever their order.
//!
//! # The model
//!
//! In Durak one player loses (the durak) and the others are not ranked among themselves, so a
//! game says one thing: *who* the durak was, among the players at the table. Each bot `i` has a
//! rating `θᵢ`; at a table of the set `S`, bot `i` is the durak with probability
//!
//! ```text
//! P(i is the durak | S) = exp(−θᵢ) / Σ_{j∈S} exp(−θⱼ)
//! ```
//!
//! (a Luce choice of the loser: the first step of a Plackett–Luce ranking from the bottom, which
//! is all a Durak game reveals). At a table of two this is Bradley–Terry, and `θᵢ − θⱼ` in
//! [Elo](super::ELO_PER_NAT) units is chess's Elo difference; at any table, 400 Elo more means
//! ten times less likely than the other to be the durak. The likelihood of the games is the
//! product of these probabilities, so it depends on the counts only (how often each bot was the
//! durak at each set of bots), never on the order of the games.
//!
//! - A **draw** (no durak: the last cards went at once, or the referee's move limit) counts as
//!   each of the `k` players being `1/k` of a durak, a weighted observation; at two players that
//!   is chess's half point each.
//! - A game **nobody played** (every seat forfeited or failed to start, a draw) says nothing and
//!   is left out. Forfeits and faults count as recorded: the faulting bot was the durak.
//! - **Prior**: a bot that was never the durak (or always, or a group of bots that never lost to
//!   the rest) has no finite maximum likelihood estimate. Each `θᵢ` gets a weak Gaussian prior,
//!   mean 0 and standard deviation `prior_sd` (the standings use 500 Elo), and the fit is the
//!   posterior mode (MAP). Between two bots its pull on their difference is the prior precision
//!   on the difference, `1/(2·prior_sd²)` (0.06 at 500 Elo), against the data's (the number of
//!   games × p(1−p)): under 1 % from 40 games at even odds, 0.1 % from 400. It only keeps the
//!   degenerate cases finite, and [`Fit::unbounded`] says honestly which bounds the data alone
//!   leaves open. Because every bot has the same prior, the fitted ratings sum to zero: a
//!   rating is relative to the mean of the bots in the fit.
//!
//! The fit is Newton's method on the log-posterior, which is strictly concave (a multinomial
//! logit plus a Gaussian), from all ratings 0, with a backtracking line search; it stops when
//! the gradient is below 1e-10. `choix.opt_top1` (PyPI) fits the same model with the durak as
//! the "winner" and `alpha = 1/(2·prior_sd²)` (with draws: every decisive game given `k` times,
//! a draw once per player, and `alpha = k/(2·prior_sd²)`): `tests/data/fit_reference.py`
//! checks these figures against it.
//!
//! # The intervals
//!
//! - **Model-based** ([`Fit::model_cov`]): the inverse of the observed information (the negative
//!   Hessian of the log-posterior), as if every game were independent.
//! - **Paired** ([`Fit::paired_cov`]): in the duplicate and gauntlet formats each deal is played
//!   at every seat rotation, and the luck of the deal is shared by those games. The sandwich
//!   (cluster-robust) estimator with the deal as the cluster, `H⁻¹ (Σ_S M_S) H⁻¹`, with
//!   `M_S = Σ_c g_c g_cᵀ · G_S/(G_S−1)` over the `G_S` deals of each set of bots `S` (`g_c`: the
//!   score — gradient of the log-likelihood — of deal `c`'s games), measures the spread of whole
//!   deals, so the luck that cancels within
//!   a deal leaves the interval: the analogue, at any table size, of fastchess's pentanomial
//!   statistics on game pairs. A cluster is one deal at one set of bots (its `k` rotations); the
//!   same deck at another set of bots counts as another deal.
//!
//!   The spread of a handful of deals is itself too uncertain to trust (three deals can look
//!   unanimous), so each set of bots' `M_S` is blended with what the model expects of it,
//!   `F_S` (its part of the information), as if `κ` deals of that spread had been seen:
//!   `(κ·F_S + G_S·M_S) / (κ + G_S)`, the posterior mean of a covariance under a conjugate prior
//!   worth `κ` observations. With `κ = 10` (the standings' choice) 10 deals are half paired,
//!   300 deals 97 %; one deal is not paired at all.
//!
//! Both are covariances of ratings relative to the mean of the fitted bots.

use nalgebra::{DMatrix, DVector};

/// The games of one table composition (a set of bots), aggregated.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The bots at the table (indices below the fit's bot count), distinct.
    pub members: Vec<usize>,
    /// Games that count (all but those nobody played).
    pub games: f64,
    /// Per member: the times it was the durak, plus `1/k` of every draw.
    pub losses: Vec<f64>,
    /// The group's deals, for the paired covariance.
    pub clusters: Option<Clusters>,
}

/// Moments over the deals of a group. For deal `c`, `y_c = (d₁, …, d_k, draws, games)`: the
/// times each member was the durak, the draws, and the games that count, in that deal.
#[derive(Clone, Debug, PartialEq)]
pub struct Clusters {
    /// Deals.
    pub count: u64,
    /// `Σ_c y_c y_cᵀ`, `(k+2)²` numbers, row-major.
    pub outer: Vec<f64>,
}

/// A fitted set of ratings.
#[derive(Clone, Debug)]
pub struct Fit {
    /// Ratings in natural units (multiply by [`ELO_PER_NAT`](super::ELO_PER_NAT) for Elo),
    /// summing to zero.
    pub theta: Vec<f64>,
    /// Model-based covariance of the ratings (relative to their mean).
    pub model_cov: DMatrix<f64>,
    /// Paired (per-deal sandwich) covariance, when the groups carry deals.
    pub paired_cov: Option<DMatrix<f64>>,
    /// Per bot: (the data gives no lower bound, the data gives no upper bound).
    pub unbounded: Vec<(bool, bool)>,
    pub iterations: usize,
    pub converged: bool,
}

/// Log-posterior, its gradient and the information matrix (minus its Hessian) at `theta`.
fn evaluate(
    theta: &DVector<f64>,
    groups: &[Group],
    prior_precision: f64,
    with_derivatives: bool,
) -> (f64, DVector<f64>, DMatrix<f64>) {
    let n = theta.len();
    let mut ll = 0.0;
    let mut grad = DVector::zeros(if with_derivatives { n } else { 0 });
    let mut info = DMatrix::zeros(
        if with_derivatives { n } else { 0 },
        if with_derivatives { n } else { 0 },
    );
    for g in groups {
        let (log_z, q) = durak_probabilities(theta, &g.members);
        for (a, &i) in g.members.iter().enumerate() {
            ll -= g.losses[a] * theta[i];
        }
        ll -= g.games * log_z;
        if with_derivatives {
            for (a, &i) in g.members.iter().enumerate() {
                grad[i] += g.games * q[a] - g.losses[a];
                for (b, &j) in g.members.iter().enumerate() {
                    let d = if a == b { q[a] } else { 0.0 };
                    info[(i, j)] += g.games * (d - q[a] * q[b]);
                }
            }
        }
    }
    for i in 0..n {
        ll -= 0.5 * prior_precision * theta[i] * theta[i];
        if with_derivatives {
            grad[i] -= prior_precision * theta[i];
            info[(i, i)] += prior_precision;
        }
    }
    (ll, grad, info)
}

/// `H + J` (`J` all ones). The information `H` has the all-ones direction as an eigenvector with
/// the prior's tiny precision as eigenvalue (the likelihood does not change when every rating
/// moves together), so `H` is ill-conditioned; `H + J` has the same inverse on differences of
/// ratings and eigenvalue `precision + n` along the ones: `(H+J)⁻¹ − J/(n(precision+n))` is
/// `H⁻¹` centred on the mean, and for a matrix `M` that annihilates the ones (the sandwich's),
/// `H⁻¹ M H⁻¹ = (H+J)⁻¹ M (H+J)⁻¹`. The Newton step solves with it too: the gradient has no
/// component along the ones when the ratings sum to zero, as they do from the start.
fn shifted(info: &DMatrix<f64>) -> DMatrix<f64> {
    info.add_scalar(1.0)
}

/// `log Σ exp(−θⱼ)` over `members`, and each member's probability of being the durak.
pub fn durak_probabilities(theta: &DVector<f64>, members: &[usize]) -> (f64, Vec<f64>) {
    let top = members
        .iter()
        .map(|&j| -theta[j])
        .fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = members.iter().map(|&j| (-theta[j] - top).exp()).sum();
    let log_z = top + sum.ln();
    let q = members.iter().map(|&j| (-theta[j] - log_z).exp()).collect();
    (log_z, q)
}

/// Fit `bots` ratings to `groups` with a Gaussian prior of standard deviation `prior_sd`
/// (natural units); the paired covariance trusts each group's deals as if `prior_deals` deals
/// of the model's spread were added (module docs). Every bot should sit in some group with games; one that does not keeps
/// rating 0 and the prior's variance.
pub fn fit(bots: usize, groups: &[Group], prior_sd: f64, prior_deals: f64) -> Fit {
    let precision = 1.0 / (prior_sd * prior_sd);
    let mut theta = DVector::zeros(bots);
    let mut iterations = 0;
    let mut converged = bots == 0;
    while !converged && iterations < 200 {
        iterations += 1;
        let (ll, grad, info) = evaluate(&theta, groups, precision, true);
        if grad.amax() < 1e-10 {
            converged = true;
            break;
        }
        let Some(chol) = shifted(&info).cholesky() else {
            break;
        };
        let step = chol.solve(&grad);
        // Backtracking: Newton's step, halved until the posterior does not fall.
        let mut t = 1.0;
        let mut next = &theta + &step * t;
        for _ in 0..60 {
            let (ll_next, _, _) = evaluate(&next, groups, precision, false);
            if ll_next >= ll - 1e-12 * ll.abs().max(1.0) {
                break;
            }
            t *= 0.5;
            next = &theta + &step * t;
        }
        let moved = (&next - &theta).amax();
        theta = next;
        if moved < 1e-13 {
            converged = true;
        }
    }
    // At the mode the ratings sum to zero (every bot has the same prior); make it exact.
    if bots > 0 {
        let mean = theta.mean();
        theta.add_scalar_mut(-mean);
    }
    let (_, _, info) = evaluate(&theta, groups, precision, true);
    // (H + J)⁻¹ on the ratings' differences is H⁻¹ there (module docs of `shifted`).
    let inv = shifted(&info)
        .cholesky()
        .map(|c| c.inverse())
        .unwrap_or_else(|| DMatrix::from_diagonal_element(bots, bots, prior_sd * prior_sd));
    let nb = bots.max(1) as f64;
    let model_cov = &inv - DMatrix::from_element(bots, bots, 1.0 / (nb * (precision + nb)));
    let paired_cov = paired_covariance(&theta, groups, &inv, prior_deals);
    Fit {
        theta: theta.iter().copied().collect(),
        model_cov,
        paired_cov,
        unbounded: unbounded(bots, groups),
        iterations,
        converged,
    }
}

/// The sandwich `H⁻¹ (Σ_S B_S) H⁻¹` (module docs). For group `S` with `G` deals,
/// `M_S = Σ_c g_c g_cᵀ · G/(G−1)`; `g_c` is linear in `y_c`: `g_c = A y_c` with
/// `A = [−I | −1/k | q]` (durak counts, draws, games), so `Σ g gᵀ = A (Σ y yᵀ) Aᵀ`. Blended with
/// the group's model information `F_S = N (diag q − q qᵀ)` as `κ` deals:
/// `B_S = (κ F_S + G M_S) / (κ + G)` (`F_S` alone below two deals).
fn paired_covariance(
    theta: &DVector<f64>,
    groups: &[Group],
    inv: &DMatrix<f64>,
    prior_deals: f64,
) -> Option<DMatrix<f64>> {
    let n = theta.len();
    let mut meat = DMatrix::zeros(n, n);
    for g in groups {
        let c = g.clusters.as_ref()?;
        let k = g.members.len();
        let (_, q) = durak_probabilities(theta, &g.members);
        let mut model = DMatrix::zeros(k, k);
        for i in 0..k {
            for j in 0..k {
                let d = if i == j { q[i] } else { 0.0 };
                model[(i, j)] = g.games * (d - q[i] * q[j]);
            }
        }
        let blended = if c.count >= 2 {
            let mut a = DMatrix::zeros(k, k + 2);
            for i in 0..k {
                a[(i, i)] = -1.0;
                a[(i, k)] = -1.0 / k as f64;
                a[(i, k + 1)] = q[i];
            }
            let outer = DMatrix::from_row_slice(k + 2, k + 2, &c.outer);
            let deals = c.count as f64;
            let empirical = &a * outer * a.transpose() * (deals / (deals - 1.0));
            (model * prior_deals + empirical * deals) / (prior_deals + deals)
        } else {
            model
        };
        for (x, &i) in g.members.iter().enumerate() {
            for (y, &j) in g.members.iter().enumerate() {
                meat[(i, j)] += blended[(x, y)];
            }
        }
    }
    Some(inv * meat * inv)
}

/// Which bounds the data leaves open. Bot `i` *beat* `j` when `j` had a share of a loss at a
/// table with `i` (a draw: both ways). The maximum likelihood estimate exists when every bot
/// reaches every other along such edges (the graph is strongly connected); then every bound is
/// finite. Otherwise, relative to the mean: a set of bots that nobody outside it ever beat has
/// no upper bound; one that never beat anybody outside it has no lower bound; one that did both
/// has neither (its place between the others is not identified).
fn unbounded(bots: usize, groups: &[Group]) -> Vec<(bool, bool)> {
    let mut reach = vec![vec![false; bots]; bots];
    for (i, row) in reach.iter_mut().enumerate() {
        row[i] = true;
    }
    for g in groups {
        for (b, &j) in g.members.iter().enumerate() {
            if g.losses[b] > 0.0 {
                for &i in &g.members {
                    reach[i][j] = true;
                }
            }
        }
    }
    // Transitive closure (Floyd–Warshall; bots are few).
    for m in 0..bots {
        let via = reach[m].clone();
        for row in reach.iter_mut() {
            if row[m] {
                for (r, &v) in row.iter_mut().zip(&via) {
                    *r |= v;
                }
            }
        }
    }
    let connected = (0..bots).all(|i| (0..bots).all(|j| reach[i][j]));
    (0..bots)
        .map(|i| {
            if connected {
                return (false, false);
            }
            // Beaten from outside its component / beats outside it.
            let beaten = (0..bots).any(|j| reach[j][i] && !reach[i][j]);
            let beats = (0..bots).any(|j| reach[i][j] && !reach[j][i]);
            // Bounded above only when beaten and not beating (a set at the bottom), below only
            // when beating and not beaten (at the top).
            let no_upper = !beaten || beats;
            let no_lower = !beats || beaten;
            (no_lower, no_upper)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(members: &[usize], losses: &[f64]) -> Group {
        Group {
            members: members.to_vec(),
            games: losses.iter().sum(),
            losses: losses.to_vec(),
            clusters: None,
        }
    }

    /// Two bots, 30 to 10: the MLE is ln(3) (the odds), the model variance of the difference
    /// 1/30 + 1/10 (the Wald variance of a log-odds). The standings' prior (500 Elo) shrinks the
    /// difference by 0.8 % at 40 games: prior precision on the difference 1/(2σ²) = 0.060
    /// against the data's 7.5.
    #[test]
    fn two_bots_give_the_log_odds() {
        let f = fit(2, &[group(&[0, 1], &[10.0, 30.0])], 1e6, 10.0);
        assert!(f.converged);
        let d = f.theta[0] - f.theta[1];
        assert!((d - 3f64.ln()).abs() < 1e-9, "{d}");
        assert!((f.theta[0] + f.theta[1]).abs() < 1e-12);
        let v = f.model_cov[(0, 0)] + f.model_cov[(1, 1)] - 2.0 * f.model_cov[(0, 1)];
        assert!((v - (1.0 / 30.0 + 1.0 / 10.0)).abs() < 1e-9, "{v}");
        let weak = fit(
            2,
            &[group(&[0, 1], &[10.0, 30.0])],
            500.0 / super::super::ELO_PER_NAT,
            10.0,
        );
        let dw = weak.theta[0] - weak.theta[1];
        assert!(dw < d && dw > 0.99 * d, "{dw} vs {d}");
    }

    /// A bot that never lost: finite thanks to the prior, and its upper bound is open; the
    /// one that always lost has no lower bound.
    #[test]
    fn a_bot_that_never_lost_is_unbounded_above() {
        let f = fit(2, &[group(&[0, 1], &[0.0, 16.0])], 2.878, 10.0);
        assert!(f.converged && f.theta.iter().all(|t| t.is_finite()));
        assert!(f.theta[0] > 1.0);
        assert_eq!(f.unbounded, vec![(false, true), (true, false)]);
        // With a draw between them, both are bounded.
        let f = fit(2, &[group(&[0, 1], &[0.5, 16.5])], 2.878, 10.0);
        assert_eq!(f.unbounded, vec![(false, false); 2]);
    }

    /// A chain a > b > c with no upset: b's place relative to the mean is not identified.
    #[test]
    fn a_chain_without_upsets_leaves_the_middle_open_both_ways() {
        let f = fit(
            3,
            &[
                group(&[0, 1], &[0.0, 5.0]),
                group(&[1, 2], &[0.0, 5.0]),
                group(&[0, 2], &[0.0, 5.0]),
            ],
            2.878,
            10.0,
        );
        assert_eq!(
            f.unbounded,
            vec![(false, true), (true, true), (true, false)]
        );
    }

    /// Identical records give identical ratings, to the last bit that matters.
    #[test]
    fn identical_bots_get_identical_ratings() {
        let f = fit(
            3,
            &[
                group(&[0, 1, 2], &[3.0, 3.0, 10.0]),
                group(&[0, 2], &[4.0, 9.0]),
                group(&[1, 2], &[4.0, 9.0]),
            ],
            2.878,
            10.0,
        );
        assert!((f.theta[0] - f.theta[1]).abs() < 1e-12, "{:?}", f.theta);
        assert!((f.model_cov[(0, 0)] - f.model_cov[(1, 1)]).abs() < 1e-12);
    }
}
