//! Pure move choosers over the compact legal choices: uniform-ish random and a simple greedy
//! heuristic. Used by the built-in bots, the property tests and the benchmark.

use crate::card::{Card, CardSet, Rank, Suit};
use crate::types::{DecisionKind, Legal, Move, Pairs, ToBeat};

/// A small, fast, seeded generator (SplitMix64). Not for shuffles: those use ChaCha20 (deck.rs).
#[derive(Clone, Debug)]
pub struct SmallRng(u64);

impl SmallRng {
    pub fn new(seed: u64) -> SmallRng {
        SmallRng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    pub fn pick(&mut self, set: CardSet) -> Option<Card> {
        if set.is_empty() {
            None
        } else {
            set.nth(self.below(set.len()))
        }
    }
}

fn random_subset(rng: &mut SmallRng, set: CardSet, max: usize) -> CardSet {
    // A random non-empty subset of `set` with at most `max` cards.
    let k = 1 + rng.below(set.len().min(max));
    let mut pool = set;
    let mut out = CardSet::EMPTY;
    for _ in 0..k {
        let c = rng.pick(pool).expect("non-empty");
        pool.remove(c);
        out.insert(c);
    }
    out
}

/// A random rank among the bits of a 9-bit mask.
fn pick_rank(rng: &mut SmallRng, mask: u16) -> Option<Rank> {
    let n = mask.count_ones() as usize;
    if n == 0 {
        return None;
    }
    let mut m = mask;
    for _ in 0..rng.below(n) {
        m &= m - 1;
    }
    Some(Rank::ALL[m.trailing_zeros() as usize])
}

fn take_pair(rng: &mut SmallRng, hand: CardSet) -> Option<CardSet> {
    let r = pick_rank(rng, hand.paired_ranks())?;
    let mut of = hand.of_rank(r);
    let a = rng.pick(of)?;
    of.remove(a);
    let b = rng.pick(of)?;
    Some(CardSet::single(a).union(CardSet::single(b)))
}

/// Find an assignment covering every card of `to_beat` with distinct cards (K-7), trying beaters
/// in ascending `order`, most constrained attack card first. `None` if impossible.
pub fn find_cover(to_beat: &[ToBeat], order: impl Fn(Card) -> u32) -> Option<Pairs> {
    fn rec(
        i: usize,
        list: &[ToBeat],
        used: CardSet,
        acc: &mut Pairs,
        order: &dyn Fn(Card) -> u32,
    ) -> bool {
        let Some(t) = list.get(i) else {
            return true;
        };
        let mut candidates = t.beaters.minus(used);
        while let Some(d) = candidates.iter().min_by_key(|&c| order(c)) {
            candidates.remove(d);
            acc.push(t.attack, d);
            if rec(i + 1, list, used.union(CardSet::single(d)), acc, order) {
                return true;
            }
            acc.pop();
        }
        false
    }
    let mut list: arrayvec::ArrayVec<ToBeat, 6> = to_beat.iter().copied().collect();
    list.sort_unstable_by_key(|t| t.beaters.len());
    let mut acc = Pairs::EMPTY;
    rec(0, &list, CardSet::EMPTY, &mut acc, &order).then_some(acc)
}

/// A random legal move for `legal` (each kind of answer reachable).
pub fn random_move(legal: &Legal, rng: &mut SmallRng) -> Move {
    match legal.decision.kind {
        DecisionKind::Attack if legal.same_rank => {
            let r = pick_rank(rng, legal.hand.rank_mask()).expect("attacker has cards");
            let max = legal.max_attack_size().max(1);
            Move::Attack {
                cards: random_subset(rng, legal.hand.of_rank(r), max),
                exchange: false,
            }
        }
        DecisionKind::Attack => {
            let exchange = legal.exchange.is_some() && rng.coin();
            let mut hand = legal.hand;
            if let (true, Some(x)) = (exchange, legal.exchange) {
                hand.remove(x.six);
                hand.insert(x.trump_card);
            }
            let pairs = hand.pair_count();
            let sizes: Vec<usize> = legal
                .attack_size_list()
                .into_iter()
                .filter(|&k| {
                    k <= hand.len() && (k == 1 || (k == 3 && pairs >= 1) || (k == 5 && pairs >= 2))
                })
                .collect();
            let k = sizes[rng.below(sizes.len())];
            let mut cards = CardSet::EMPTY;
            for _ in 0..k / 2 {
                let p = take_pair(rng, hand.minus(cards)).expect("pairs counted");
                cards = cards.union(p);
            }
            cards.insert(rng.pick(hand.minus(cards)).expect("enough cards"));
            Move::Attack { cards, exchange }
        }
        DecisionKind::Defend if legal.must_cover_all => {
            if legal.can_cover && rng.below(4) != 0 {
                let salt = rng.next_u64();
                let pairs = find_cover(&legal.to_beat, |c| {
                    (crate::deck::splitmix64(salt ^ c.index() as u64) >> 32) as u32
                })
                .expect("can_cover");
                Move::Defend {
                    pairs,
                    exchange: false,
                }
            } else {
                Move::Take
            }
        }
        DecisionKind::Defend => {
            let exchange = legal.exchange.is_some() && rng.coin();
            let list = if exchange {
                &legal.to_beat_after_exchange
            } else {
                &legal.to_beat
            };
            let mut used = CardSet::EMPTY;
            let mut pairs = Pairs::EMPTY;
            for t in list {
                if rng.below(3) != 0 {
                    if let Some(d) = rng.pick(t.beaters.minus(used)) {
                        used.insert(d);
                        pairs.push(t.attack, d);
                    }
                }
            }
            Move::Defend { pairs, exchange }
        }
        DecisionKind::Add => {
            if legal.room > 0 && !legal.addable.is_empty() && rng.coin() {
                Move::Add {
                    cards: random_subset(rng, legal.addable, legal.room),
                }
            } else {
                Move::Pass
            }
        }
    }
}

/// Card strength for the greedy bot: trumps above everything, then rank.
fn strength(c: Card, trump: Suit) -> u32 {
    c.rank() as u32 + if c.suit() == trump { 100 } else { 0 }
}

/// A simple heuristic: attack with the weakest cards (pairs of low ranks in prostoy), beat with
/// the cheapest cards, add low non-trumps, take when a cover would cost a high trump.
pub fn greedy_move(legal: &Legal, trump: Suit) -> Move {
    let key = |c: Card| strength(c, trump);
    let weakest = |s: CardSet| s.iter().min_by_key(|&c| key(c));
    match legal.decision.kind {
        DecisionKind::Attack if legal.same_rank => {
            let low = weakest(legal.hand).expect("attacker has cards");
            let max = legal.max_attack_size().max(1);
            let same: CardSet = legal
                .hand
                .of_rank(low.rank())
                .iter()
                .filter(|c| c.suit() != trump || *c == low)
                .take(max)
                .collect();
            Move::Attack {
                cards: same,
                exchange: false,
            }
        }
        DecisionKind::Attack => {
            // Exchange whenever open: the trump card is worth more than the six.
            let exchange = legal.exchange.is_some();
            let mut hand = legal.hand;
            if let Some(x) = legal.exchange {
                hand.remove(x.six);
                hand.insert(x.trump_card);
            }
            let sizes = legal.attack_size_list();
            let non_trump = hand.minus(trump.cards());
            let low_pairs: Vec<Rank> = Rank::ALL
                .iter()
                .copied()
                .filter(|&r| non_trump.of_rank(r).len() >= 2)
                .collect();
            let mut cards = CardSet::EMPTY;
            let want = if sizes.contains(&5) && low_pairs.len() >= 2 {
                2
            } else if sizes.contains(&3) && !low_pairs.is_empty() {
                1
            } else {
                0
            };
            for r in low_pairs.iter().take(want) {
                cards = cards.union(non_trump.of_rank(*r).iter().take(2).collect());
            }
            cards.insert(weakest(hand.minus(cards)).expect("cards left"));
            Move::Attack { cards, exchange }
        }
        DecisionKind::Defend if legal.must_cover_all => match find_cover(&legal.to_beat, key) {
            Some(pairs)
                if legal.to_beat.len() <= 2
                    || pairs.iter().all(|(_, d)| key(d) < 100 + Rank::Queen as u32) =>
            {
                Move::Defend {
                    pairs,
                    exchange: false,
                }
            }
            _ => Move::Take,
        },
        DecisionKind::Defend => {
            let exchange = legal.exchange.is_some();
            let list = if exchange {
                &legal.to_beat_after_exchange
            } else {
                &legal.to_beat
            };
            let mut used = CardSet::EMPTY;
            let mut pairs = Pairs::EMPTY;
            let mut order: Vec<&ToBeat> = list.iter().collect();
            order.sort_by_key(|t| std::cmp::Reverse(key(t.attack)));
            for t in order {
                if let Some(d) = weakest(t.beaters.minus(used)) {
                    used.insert(d);
                    pairs.push(t.attack, d);
                }
            }
            Move::Defend { pairs, exchange }
        }
        DecisionKind::Add => {
            let cheap: CardSet = legal
                .addable
                .iter()
                .filter(|&c| c.suit() != trump && (c.rank() as u32) < Rank::King as u32)
                .take(legal.room)
                .collect();
            if cheap.is_empty() || legal.room == 0 {
                Move::Pass
            } else {
                Move::Add { cards: cheap }
            }
        }
    }
}
