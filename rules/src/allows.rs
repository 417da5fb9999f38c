//! Whether a move is legal, judged from a [`Legal`] alone: what a player (a person at the
//! terminal, a bot) can know from the `legal` object of a request. [`crate::Game::check`] is the
//! referee's judgement; `tests/properties.rs` checks that both agree on every kind of move, legal
//! or not, in random games of every variant and table size.

use crate::{CardSet, DecisionKind, Illegal, Legal, Move, ToBeat};

impl Legal {
    /// `Ok` when `mv` is a legal answer to this decision; otherwise the rule it breaks, in the
    /// words of [`crate::Game::check`] where the `legal` object allows.
    pub fn allows(&self, mv: &Move) -> Result<(), Illegal> {
        let prostoy = !self.same_rank && !self.must_cover_all && !self.can_take;
        match (self.decision.kind, mv) {
            (DecisionKind::Attack, Move::Attack { cards, exchange }) => {
                let hand = self.hand_for(*exchange)?;
                self.attack(*cards, hand)
            }
            (DecisionKind::Defend, Move::Defend { pairs, exchange }) => {
                let hand = self.hand_for(*exchange)?;
                let list = if *exchange {
                    &self.to_beat_after_exchange
                } else {
                    &self.to_beat
                };
                self.defend(pairs.iter(), hand, list)
            }
            (DecisionKind::Defend, Move::Take) if self.can_take => Ok(()),
            (DecisionKind::Defend, Move::Take) => Err(Illegal::new(
                "P-8",
                "prostoy has no 'take': beat all, some or none of the attack cards \
                 (an empty defence takes them all)",
            )),
            (DecisionKind::Add, Move::Add { cards }) => self.add(*cards),
            (DecisionKind::Add, Move::Pass) => Ok(()),
            (DecisionKind::Attack, Move::Pass) if prostoy => Err(Illegal::new(
                "P-5",
                "the attacker may not pass: attack with 1, 3 or 5 cards",
            )),
            (DecisionKind::Attack, Move::Pass) => Err(Illegal::new(
                "K-4",
                "the initial attacker may not pass: attack with one card or several of one rank",
            )),
            (kind, _) => Err(Illegal::new(
                "R-2",
                format!(
                    "you are asked to {}; '{}' is not that kind of move",
                    kind.name(),
                    mv.name()
                ),
            )),
        }
    }

    /// The hand a move is made from: after the trump-six exchange when it asks for one (P-4).
    fn hand_for(&self, exchange: bool) -> Result<CardSet, Illegal> {
        if !exchange {
            return Ok(self.hand);
        }
        let x = self
            .exchange
            .ok_or_else(|| Illegal::new("P-4", "the trump-six exchange is not open to you now"))?;
        Ok(self
            .hand
            .minus(CardSet::single(x.six))
            .union(CardSet::single(x.trump_card)))
    }

    fn attack(&self, cards: CardSet, hand: CardSet) -> Result<(), Illegal> {
        let rule = if self.same_rank { "K-4" } else { "P-5" };
        if cards.is_empty() {
            return Err(Illegal::new(
                rule,
                "an attack needs at least one card; the attacker may not pass",
            ));
        }
        let missing = cards.minus(hand);
        if !missing.is_empty() {
            return Err(Illegal::new(
                rule,
                format!("{missing} not in your hand (your hand: {hand})"),
            ));
        }
        let k = cards.len();
        if self.same_rank {
            if cards.rank_mask().count_ones() > 1 {
                return Err(Illegal::new(
                    "K-4",
                    format!("an opening attack is one card or several of one rank, not {cards}"),
                ));
            }
            if k >= 8 || self.attack_sizes & (1 << k) == 0 {
                return Err(Illegal::new(
                    "K-3",
                    format!("{k} attack cards exceed this round's limit"),
                ));
            }
            return Ok(());
        }
        if k != 1 && k != 3 && k != 5 {
            return Err(Illegal::new(
                "P-5",
                format!("an attack has 1, 3 or 5 cards, not {k} ({cards})"),
            ));
        }
        if self.attack_sizes & (1 << k) == 0 {
            return Err(Illegal::new(
                "P-6",
                format!("{k} attack cards, but the defender holds fewer"),
            ));
        }
        let pairs = cards.pair_count();
        if k == 3 && pairs < 1 {
            return Err(Illegal::new(
                "P-5",
                format!("a 3-card attack needs a pair (two cards of one rank): {cards} has none"),
            ));
        }
        if k == 5 && pairs < 2 {
            return Err(Illegal::new(
                "P-5",
                format!(
                    "a 5-card attack needs two separate pairs (or four of a kind): {cards} has {pairs}"
                ),
            ));
        }
        Ok(())
    }

    fn defend(
        &self,
        pairs: impl Iterator<Item = (crate::Card, crate::Card)>,
        hand: CardSet,
        list: &[ToBeat],
    ) -> Result<(), Illegal> {
        let rule = if self.must_cover_all { "K-7" } else { "P-8" };
        let unbeaten: CardSet = list.iter().map(|t| t.attack).collect();
        let mut attacked = CardSet::EMPTY;
        let mut used = CardSet::EMPTY;
        for (a, d) in pairs {
            let Some(t) = list.iter().find(|t| t.attack == a) else {
                return Err(Illegal::new(
                    rule,
                    format!("{a} is not an unbeaten attack card (unbeaten: {unbeaten})"),
                ));
            };
            if attacked.contains(a) {
                return Err(Illegal::new(
                    rule,
                    format!("{a} is beaten twice; beat each attack card once"),
                ));
            }
            attacked.insert(a);
            if !hand.contains(d) {
                return Err(Illegal::new(
                    rule,
                    format!("{d} is not in your hand (your hand: {hand})"),
                ));
            }
            if used.contains(d) {
                return Err(Illegal::new(
                    rule,
                    format!("{d} is used twice; each attack card needs a different card"),
                ));
            }
            used.insert(d);
            if !t.beaters.contains(d) {
                return Err(Illegal::new(
                    "C-4",
                    format!("{d} does not beat {a} (its beaters: {})", t.beaters),
                ));
            }
        }
        if self.must_cover_all && attacked != unbeaten {
            return Err(Illegal::new(
                "K-7",
                format!(
                    "one answer covers every unbeaten card or takes: {} left uncovered",
                    unbeaten.minus(attacked)
                ),
            ));
        }
        Ok(())
    }

    fn add(&self, cards: CardSet) -> Result<(), Illegal> {
        if cards.is_empty() {
            return Err(Illegal::new(
                "K-6",
                "an addition needs at least one card; to add nothing, pass",
            ));
        }
        let missing = cards.minus(self.addable);
        if !missing.is_empty() {
            return Err(Illegal::new(
                "K-6",
                format!(
                    "{missing} cannot be added: only cards of a rank on the table, from your hand \
                     (addable: {})",
                    self.addable
                ),
            ));
        }
        if cards.len() > self.room {
            return Err(Illegal::new(
                "K-3",
                format!(
                    "{} cards, but this round has room for {} more",
                    cards.len(),
                    self.room
                ),
            ));
        }
        Ok(())
    }
}
