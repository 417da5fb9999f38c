//! Every distinct choice of an endgame decision (stock empty, P-4 closed), each class of moves that
//! lead to the same position given once.
//!
//! Two moves are the same choice when they leave the same position: a podkidnoy cover is decided by
//! the set of cards it uses (which card lies on which does not matter: K-10 discards them all,
//! K-11 picks them all up); a prostoy defence by the attack cards it beats and the cards it uses
//! (P-9 discards the pairs and gives back the rest). Attacks and additions are all distinct.

use crate::card::{Card, CardSet, Suit};
use crate::game::Game;
use crate::types::{DecisionKind, Legal, Move, Pairs, ToBeat, Variant};

/// Fill `out` with one move per distinct choice of the decision `legal` describes.
pub(crate) fn choices(game: &Game, legal: &Legal, out: &mut Vec<Move>) {
    out.clear();
    match (game.variant(), legal.decision.kind) {
        (Variant::Podkidnoy, DecisionKind::Attack) => {
            // K-4: one card or several of one rank, at most the limit (K-3).
            let most = game.limit();
            let mut ranks = legal.hand.rank_mask();
            while ranks != 0 {
                let r = ranks.trailing_zeros();
                ranks &= ranks - 1;
                let of = legal.hand.with_ranks(1 << r);
                subsets(of, 1, most, &mut |cards| {
                    out.push(Move::Attack {
                        cards,
                        exchange: false,
                    })
                });
            }
        }
        (Variant::Prostoy, DecisionKind::Attack) => {
            // P-5 with P-6: 1 card; 3 with a pair; 5 with two pairs; the sizes `legal` allows.
            for k in [1, 3, 5] {
                if legal.attack_sizes >> k & 1 == 0 {
                    continue;
                }
                let need = k / 2;
                subsets(legal.hand, k, k, &mut |cards| {
                    if cards.pair_count() >= need {
                        out.push(Move::Attack {
                            cards,
                            exchange: false,
                        });
                    }
                });
            }
        }
        (Variant::Podkidnoy, DecisionKind::Defend) => {
            // K-7: cover every unbeaten card at once (one move per set of cards used), or take.
            let mut seen: Vec<u64> = Vec::new();
            covers(
                &legal.to_beat,
                0,
                CardSet::EMPTY,
                &mut Pairs::default(),
                true,
                &mut |pairs, used| {
                    if !seen.contains(&used.bits()) {
                        seen.push(used.bits());
                        out.push(Move::Defend {
                            pairs: *pairs,
                            exchange: false,
                        });
                    }
                },
            );
            out.push(Move::Take);
        }
        (Variant::Prostoy, DecisionKind::Defend) => {
            // P-8: beat any subset of the attack cards, each with a different card.
            let mut seen: Vec<(u64, u64)> = Vec::new();
            covers(
                &legal.to_beat,
                0,
                CardSet::EMPTY,
                &mut Pairs::default(),
                false,
                &mut |pairs, used| {
                    let key = (pairs.attack_cards().bits(), used.bits());
                    if !seen.contains(&key) {
                        seen.push(key);
                        out.push(Move::Defend {
                            pairs: *pairs,
                            exchange: false,
                        });
                    }
                },
            );
        }
        (_, DecisionKind::Add) => {
            // K-6 within the room K-3 leaves, or pass (K-8, K-9).
            out.push(Move::Pass);
            if legal.room > 0 {
                subsets(legal.addable, 1, legal.room, &mut |cards| {
                    out.push(Move::Add { cards })
                });
            }
        }
    }
}

/// Call `f` with every subset of `set` of `min..=max` cards.
fn subsets(set: CardSet, min: usize, max: usize, f: &mut impl FnMut(CardSet)) {
    fn rec(
        cards: &[Card],
        from: usize,
        acc: CardSet,
        min: usize,
        max: usize,
        f: &mut impl FnMut(CardSet),
    ) {
        if acc.len() >= min {
            f(acc);
        }
        if acc.len() == max {
            return;
        }
        for i in from..cards.len() {
            let mut next = acc;
            next.insert(cards[i]);
            rec(cards, i + 1, next, min, max, f);
        }
    }
    let cards: arrayvec::ArrayVec<Card, 36> = set.iter().collect();
    rec(&cards, 0, CardSet::EMPTY, min.max(1), max, f);
}

/// Call `f` with every assignment of distinct beaters to the cards of `to_beat` from `i` on (all of
/// them when `all`, else any subset), with the cards used so far.
fn covers(
    to_beat: &[ToBeat],
    i: usize,
    used: CardSet,
    acc: &mut Pairs,
    all: bool,
    f: &mut impl FnMut(&Pairs, CardSet),
) {
    let Some(t) = to_beat.get(i) else {
        f(acc, used);
        return;
    };
    if !all {
        covers(to_beat, i + 1, used, acc, all, f);
    }
    for d in t.beaters.minus(used).iter() {
        acc.push(t.attack, d);
        let mut u = used;
        u.insert(d);
        covers(to_beat, i + 1, u, acc, all, f);
        acc.pop();
    }
}

/// Put the likeliest best choices first (alpha-beta cuts more the sooner it meets them): playing
/// cards before taking or passing, more cards before fewer, low cards before high, trumps last.
/// Only an order: every choice is still searched unless a better one already decided.
pub(crate) fn order(trump: Suit, list: &mut [Move]) {
    let cost = |cards: CardSet| -> u32 {
        cards
            .iter()
            .map(|c| c.rank() as u32 + if c.suit() == trump { 20 } else { 0 })
            .sum()
    };
    list.sort_by_cached_key(|m| match *m {
        Move::Attack { cards, .. } | Move::Add { cards } => {
            (0, u32::MAX - cards.len() as u32, cost(cards))
        }
        Move::Defend { pairs, .. } => (
            0,
            u32::MAX - pairs.len() as u32,
            cost(pairs.defence_cards()),
        ),
        Move::Take | Move::Pass => (1, 0, 0),
    });
}
