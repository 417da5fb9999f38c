//! Matchmaking: which versions sit at the next table. As psyleague and CG Arena do, it
//! prefers the versions with the fewest games (counting those already planned) and the widest
//! intervals first, then opponents with close ratings:
//!
//! 1. The first seat goes to the candidate with the fewest games (ties: the widest interval,
//!    then at random). A version that has just entered the ladder has none, so it plays next.
//! 2. Each other seat goes to the candidate with the lowest score, where
//!    `score = |Δelo| / 200 + ln(1 + games) / 2 + 1 if it already has an open job with the
//!    first + noise`, `Δelo` against the first (a version without a rating counts as the mean,
//!    0), and `noise` uniform in [0, 0.5) so that a field of equals still mixes.

use durak_rules::deck::{derive_seed, uniform_from_seed};

/// A version that may be seated.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub id: i64,
    pub elo: Option<f64>,
    /// Width of its 95 % interval (infinite when unbounded or unrated).
    pub width: f64,
    /// Games recorded and planned.
    pub games: u64,
}

/// Pick `k` candidates for a table (sorted by id: the set of bots), or `None` with fewer than
/// `k`. `busy(a, b)`: the two already share an open job. `seed` drives the noise.
pub fn pick(
    cands: &[Candidate],
    k: usize,
    busy: impl Fn(i64, i64) -> bool,
    seed: u64,
) -> Option<Vec<i64>> {
    if cands.len() < k || k == 0 {
        return None;
    }
    let noise = |i: u64| uniform_from_seed(derive_seed(seed, 0x72_0001, i), 1000) as f64 / 2000.0;
    let first = cands
        .iter()
        .enumerate()
        .min_by(|(i, a), (j, b)| {
            a.games
                .cmp(&b.games)
                .then(b.width.total_cmp(&a.width))
                .then(noise(*i as u64).total_cmp(&noise(*j as u64)))
        })
        .map(|(_, c)| c)?;
    let e0 = first.elo.unwrap_or(0.0);
    let mut rest: Vec<(f64, i64)> = cands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.id != first.id)
        .map(|(i, c)| {
            let score = (c.elo.unwrap_or(0.0) - e0).abs() / 200.0
                + (1.0 + c.games as f64).ln() / 2.0
                + if busy(first.id, c.id) { 1.0 } else { 0.0 }
                + noise(1000 + i as u64);
            (score, c.id)
        })
        .collect();
    rest.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<i64> = std::iter::once(first.id)
        .chain(rest.into_iter().take(k - 1).map(|(_, id)| id))
        .collect();
    out.sort_unstable();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: i64, elo: Option<f64>, width: f64, games: u64) -> Candidate {
        Candidate {
            id,
            elo,
            width,
            games,
        }
    }

    #[test]
    fn a_new_version_plays_first() {
        let cands = vec![
            c(1, Some(100.0), 50.0, 400),
            c(2, Some(-100.0), 50.0, 380),
            c(3, None, f64::INFINITY, 0),
        ];
        for seed in 0..20 {
            assert!(pick(&cands, 2, |_, _| false, seed).unwrap().contains(&3));
        }
    }

    #[test]
    fn opponents_are_close_in_rating() {
        let cands = vec![
            c(1, Some(0.0), 60.0, 10),
            c(2, Some(20.0), 60.0, 100),
            c(3, Some(900.0), 60.0, 100),
            c(4, Some(-850.0), 60.0, 100),
        ];
        let mut with2 = 0;
        for seed in 0..50 {
            let t = pick(&cands, 2, |_, _| false, seed).unwrap();
            assert!(t.contains(&1), "fewest games first: {t:?}");
            if t.contains(&2) {
                with2 += 1;
            }
        }
        assert_eq!(with2, 50, "the closest rating every time");
    }

    #[test]
    fn wide_intervals_break_ties_and_equals_mix() {
        let cands = vec![
            c(1, Some(0.0), 40.0, 10),
            c(2, Some(0.0), 90.0, 10),
            c(3, Some(0.0), 40.0, 10),
            c(4, Some(0.0), 40.0, 10),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..100 {
            let t = pick(&cands, 2, |_, _| false, seed).unwrap();
            assert!(t.contains(&2), "{t:?}");
            seen.insert(t);
        }
        assert_eq!(
            seen.len(),
            3,
            "every opponent of equal rating gets its turn"
        );
        assert_eq!(pick(&cands[..1], 2, |_, _| false, 0), None);
        assert_eq!(pick(&cands, 4, |_, _| false, 0).unwrap(), vec![1, 2, 3, 4]);
    }
}
