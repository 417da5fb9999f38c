//! Head to head and pairs, from the aggregates in one pass over the sets of bots: every pair
//! of members of a set gets that set's games.

use super::builder::StandingsBuilder;
use super::{HeadToHead, PairInterval, PairStanding};
use crate::stats::pair::{paired_estimate, DealOutcomes, PairEstimate, PairSums};
use crate::stats::PRIOR_DEALS;
use std::collections::HashMap;

/// Bot `i` against bot `j`, `i < j`, from `i`'s side.
#[derive(Clone, Debug, Default)]
struct Acc {
    games: u64,
    ahead: u64,
    behind: u64,
    draws: u64,
    void: u64,
    deals: PairSums,
    outcomes: Option<DealOutcomes>,
}

impl Acc {
    /// The same from `j`'s side.
    fn mirrored(&self) -> Acc {
        Acc {
            ahead: self.behind,
            behind: self.ahead,
            deals: self.deals.mirrored(),
            outcomes: self.outcomes.map(|o| o.mirrored()),
            ..self.clone()
        }
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn interval(e: &PairEstimate) -> PairInterval {
    PairInterval {
        elo_ci95: [finite(e.elo_ci95.0), finite(e.elo_ci95.1)],
        score_sd: e.sd,
        los: e.los,
    }
}

/// Every ordered pair that shared a table (in rank `order`), and the pairs to report: the
/// challenger against each opponent, or every pair in rank order.
pub(super) fn head_to_head_and_pairs(
    b: &StandingsBuilder,
    order: &[usize],
    challenger: Option<usize>,
    z: f64,
) -> (Vec<HeadToHead>, Vec<PairStanding>) {
    let t = &b.t;
    let mut acc: HashMap<(usize, usize), Acc> = HashMap::new();
    for c in &b.combos {
        for (pi, &i) in c.members.iter().enumerate() {
            for (pj, &j) in c.members.iter().enumerate().skip(pi + 1) {
                let a = acc.entry((i, j)).or_default();
                a.games += c.games;
                a.ahead += c.durak[pj];
                a.behind += c.durak[pi];
                a.draws += c.draws;
                a.void += c.void;
                if let Some(s) = c.pair_sums(i, j) {
                    a.deals.add(&s);
                }
                if b.deals && c.members.len() == 2 {
                    a.outcomes = Some(c.outcomes);
                }
            }
        }
    }
    // Members are sorted, so every key has i < j.
    let get = |i: usize, j: usize| -> Option<Acc> {
        if i < j {
            acc.get(&(i, j)).cloned()
        } else {
            acc.get(&(j, i)).map(Acc::mirrored)
        }
    };

    let mut h2h = Vec::new();
    for &i in order {
        for &j in order {
            if i == j {
                continue;
            }
            if let Some(a) = get(i, j).filter(|a| a.games > 0) {
                h2h.push(HeadToHead {
                    bot: t.bots[i].name.clone(),
                    opponent: t.bots[j].name.clone(),
                    games: a.games,
                    ahead: a.ahead,
                    behind: a.behind,
                    draws: a.draws + a.void,
                });
            }
        }
    }

    let mut list = Vec::new();
    match challenger {
        Some(c) => list.extend(order.iter().filter(|&&j| j != c).map(|&j| (c, j))),
        None => {
            for (x, &i) in order.iter().enumerate() {
                list.extend(order[x + 1..].iter().map(|&j| (i, j)));
            }
        }
    }
    let mut pairs = Vec::new();
    for (i, j) in list {
        let Some(a) = get(i, j).filter(|a| a.games > 0) else {
            continue;
        };
        let games = PairSums::from_games(a.ahead, a.behind, a.draws);
        let unpaired = games.estimate(z);
        let paired = b
            .deals
            .then(|| paired_estimate(&a.deals, &games, PRIOR_DEALS, z))
            .flatten();
        pairs.push(PairStanding {
            bot: t.bots[i].name.clone(),
            opponent: t.bots[j].name.clone(),
            games: a.games,
            ahead: a.ahead,
            behind: a.behind,
            draws: a.draws,
            score: unpaired.map(|e| e.score),
            elo: unpaired.and_then(|e| finite(e.elo)),
            paired_width_ratio: match (&paired, &unpaired) {
                (Some(p), Some(u)) if u.sd > 0.0 && u.sd.is_finite() && p.sd.is_finite() => {
                    Some(p.sd / u.sd)
                }
                _ => None,
            },
            unpaired: unpaired.as_ref().map(interval),
            paired: paired.as_ref().map(interval),
            deals: a.outcomes,
        });
    }
    (h2h, pairs)
}
