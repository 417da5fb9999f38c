//! Judging a move of the deciding seat, in one place: [`DecisionView::check`] is what the
//! referee's [`crate::Game::check`] does once the move is the deciding seat's, and what a player
//! who holds only a request does ([`crate::Legal::allows`]: a person at the terminal or in the
//! browser, before the move is sent). The view holds only what that seat is told (its hand, the
//! table, the trump card, the defender's number of cards, the limit: I-1, I-2), so a request
//! carries all of it (`durak_protocol::legal_from_request`), and a move is refused with the same
//! rule id and the same words wherever it is judged.

use crate::card::{ranks_text, Card, CardSet, Rank, Suit};
use crate::types::*;
use arrayvec::ArrayVec;

/// What judging the deciding seat's move needs of the game, as that seat sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionView {
    pub variant: Variant,
    pub decision: Decision,
    /// The deciding seat's hand.
    pub hand: CardSet,
    /// The trump card (its suit is the trump suit), and whether it still lies under the stock.
    pub trump_card: Card,
    pub trump_card_in_stock: bool,
    pub defender: Seat,
    /// The defender's number of cards (P-6).
    pub defender_cards: usize,
    /// Podkidnoy: the round's limit of attack cards (K-3); 0 in prostoy.
    pub limit: usize,
    /// The attack cards in the order played, each with its defence card if beaten.
    pub table: ArrayVec<(Card, Option<Card>), 6>,
    /// Podkidnoy: the defender has declared that they take (K-9).
    pub taking: bool,
}

impl DecisionView {
    /// A blank view (for [`Legal::empty`]).
    pub fn empty() -> DecisionView {
        DecisionView {
            variant: Variant::Prostoy,
            decision: Decision {
                seat: 0,
                kind: DecisionKind::Attack,
                after_take: false,
            },
            hand: CardSet::EMPTY,
            trump_card: Card::new(Rank::Six, Suit::Clubs),
            trump_card_in_stock: false,
            defender: 0,
            defender_cards: 0,
            limit: 0,
            table: ArrayVec::new(),
            taking: false,
        }
    }

    fn trump(&self) -> Suit {
        self.trump_card.suit()
    }

    fn unbeaten(&self) -> impl Iterator<Item = Card> + '_ {
        self.table
            .iter()
            .filter(|(_, d)| d.is_none())
            .map(|&(a, _)| a)
    }

    fn table_ranks(&self) -> u16 {
        let cards: CardSet = self
            .table
            .iter()
            .flat_map(|&(a, d)| std::iter::once(a).chain(d))
            .collect();
        cards.rank_mask()
    }

    /// P-4: the exchange open to the deciding seat now, if any.
    pub fn exchange_open(&self) -> Option<Exchange> {
        if self.variant != Variant::Prostoy || !self.trump_card_in_stock {
            return None;
        }
        let six = Card::new(Rank::Six, self.trump());
        (self.trump_card != six && self.hand.contains(six)).then_some(Exchange {
            six,
            trump_card: self.trump_card,
        })
    }

    /// Check `mv`, the deciding seat's move: `Err` names the rule it breaks.
    pub fn check(&self, mv: &Move) -> Result<(), Illegal> {
        let (d, seat) = (self.decision, self.decision.seat);
        match (self.variant, d.kind, mv) {
            (_, DecisionKind::Attack, Move::Attack { cards, exchange }) => {
                self.check_attack(*cards, *exchange)
            }
            (_, DecisionKind::Defend, Move::Defend { pairs, exchange }) => {
                self.check_defend(pairs, *exchange)
            }
            (Variant::Podkidnoy, DecisionKind::Defend, Move::Take) => Ok(()),
            (Variant::Podkidnoy, DecisionKind::Add, Move::Add { cards }) => {
                self.check_add(*cards)
            }
            (Variant::Podkidnoy, DecisionKind::Add, Move::Pass) => Ok(()),
            (Variant::Prostoy, DecisionKind::Attack, Move::Pass) => Err(Illegal::new(
                "P-5",
                "the attacker may not pass: attack with 1, 3 or 5 cards",
            )),
            (Variant::Podkidnoy, DecisionKind::Attack, Move::Pass) => Err(Illegal::new(
                "K-4",
                "the initial attacker may not pass: attack with one card or several of one rank",
            )),
            (Variant::Prostoy, DecisionKind::Defend, Move::Take) => Err(Illegal::new(
                "P-8",
                "prostoy has no 'take': beat all, some or none of the attack cards \
                 (an empty defence takes them all)",
            )),
            (Variant::Prostoy, _, Move::Add { .. } | Move::Take | Move::Pass) => Err(Illegal::new(
                "P-7",
                "nothing is ever added to a prostoy attack, and nobody passes or takes",
            )),
            (Variant::Podkidnoy, DecisionKind::Defend, _) => Err(Illegal::new(
                "K-7",
                format!(
                    "the defender covers every unbeaten card or takes; '{}' is not a defender's move",
                    mv.name()
                ),
            )),
            (Variant::Podkidnoy, DecisionKind::Add, _) => Err(Illegal::new(
                if d.after_take { "K-9" } else { "K-8" },
                format!(
                    "seat {seat} is asked to add cards or pass; '{}' is not one of those",
                    mv.name()
                ),
            )),
            (_, kind, _) => Err(Illegal::new(
                "R-2",
                format!(
                    "seat {seat} is asked to {}; '{}' is not that kind of move",
                    kind.name(),
                    mv.name()
                ),
            )),
        }
    }

    fn exchange_error(&self) -> Illegal {
        if self.variant == Variant::Podkidnoy {
            return Illegal::new("K-14", "podkidnoy has no exchange of the trump six");
        }
        let six = Card::new(Rank::Six, self.trump());
        let why = if !self.trump_card_in_stock {
            format!(
                "the trump card {} has already been drawn, so nothing lies under the stock to exchange",
                self.trump_card
            )
        } else if self.trump_card == six {
            format!("the trump card is {six} itself")
        } else if !self.hand.contains(six) {
            format!("you do not hold {six}, the six of trumps")
        } else {
            "it is not open".to_string()
        };
        Illegal::new("P-4", format!("you cannot exchange the trump six: {why}"))
    }

    fn hand_after_exchange(&self, exchange: bool) -> Result<CardSet, Illegal> {
        let mut hand = self.hand;
        if exchange {
            let x = self.exchange_open().ok_or_else(|| self.exchange_error())?;
            hand.remove(x.six);
            hand.insert(x.trump_card);
        }
        Ok(hand)
    }

    fn check_attack(&self, cards: CardSet, exchange: bool) -> Result<(), Illegal> {
        let hand = self.hand_after_exchange(exchange)?;
        let prostoy = self.variant == Variant::Prostoy;
        let rule = if prostoy { "P-5" } else { "K-4" };
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
                format!(
                    "{missing} not in your hand (your hand{}: {hand})",
                    if exchange { " after the exchange" } else { "" }
                ),
            ));
        }
        let k = cards.len();
        if prostoy {
            if k != 1 && k != 3 && k != 5 {
                return Err(Illegal::new(
                    "P-5",
                    format!("an attack has 1, 3 or 5 cards, not {k} ({cards})"),
                ));
            }
            let def = self.defender_cards;
            if k > def {
                return Err(Illegal::new(
                    "P-6",
                    format!(
                        "{k} attack cards, but the defender (seat {}) holds only {def}",
                        self.defender
                    ),
                ));
            }
            let pairs = cards.pair_count();
            if k == 3 && pairs < 1 {
                return Err(Illegal::new(
                    "P-5",
                    format!(
                        "a 3-card attack needs a pair (two cards of one rank): {cards} has none"
                    ),
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
        } else {
            if cards.rank_mask().count_ones() > 1 {
                return Err(Illegal::new(
                    "K-4",
                    format!("an opening attack is one card or several of one rank, not {cards}"),
                ));
            }
            if k > self.limit {
                return Err(Illegal::new(
                    "K-3",
                    format!(
                        "{k} attack cards exceed this round's limit of {} (min of 6 and the defender's {} cards)",
                        self.limit,
                        self.defender_cards
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_defend(&self, pairs: &Pairs, exchange: bool) -> Result<(), Illegal> {
        let hand = self.hand_after_exchange(exchange)?;
        let prostoy = self.variant == Variant::Prostoy;
        let rule = if prostoy { "P-8" } else { "K-7" };
        let unbeaten: CardSet = self.unbeaten().collect();
        let mut attacked = CardSet::EMPTY;
        let mut used = CardSet::EMPTY;
        for (a, d) in pairs.iter() {
            if !unbeaten.contains(a) {
                let why = if self.table.iter().any(|&(x, _)| x == a) {
                    "is already beaten"
                } else {
                    "is not an attack card on the table"
                };
                return Err(Illegal::new(
                    rule,
                    format!("{a} {why} (unbeaten: {})", none_text(unbeaten)),
                ));
            }
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
            if !d.beats(a, self.trump()) {
                let why = if d.suit() == a.suit() {
                    "it is lower in the same suit".to_string()
                } else if a.suit() == self.trump() {
                    format!("{a} is a trump and only a higher trump beats it")
                } else {
                    format!(
                        "it is neither a higher {} nor a trump ({})",
                        a.suit().name(),
                        self.trump().name()
                    )
                };
                return Err(Illegal::new("C-4", format!("{d} does not beat {a}: {why}")));
            }
        }
        if !prostoy && attacked != unbeaten {
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

    fn check_add(&self, cards: CardSet) -> Result<(), Illegal> {
        let hand = self.hand;
        if cards.is_empty() {
            return Err(Illegal::new(
                "K-6",
                "an addition needs at least one card; to add nothing, pass",
            ));
        }
        let missing = cards.minus(hand);
        if !missing.is_empty() {
            return Err(Illegal::new(
                "K-6",
                format!("{missing} not in your hand (your hand: {hand})"),
            ));
        }
        let ranks = self.table_ranks();
        let bad = cards.minus(cards.with_ranks(ranks));
        if let Some(c) = bad.first() {
            return Err(Illegal::new(
                "K-6",
                format!(
                    "{c} cannot be added: no {} is on the table (ranks on the table: {})",
                    rank_word(c.rank()),
                    ranks_text(ranks)
                ),
            ));
        }
        let room = self.limit - self.table.len();
        if cards.len() > room {
            return Err(Illegal::new(
                "K-3",
                format!(
                    "{} cards cannot be added: the limit is {} attack cards and {} are on the table, \
                     so {room} more at most{}",
                    cards.len(),
                    self.limit,
                    self.table.len(),
                    if self.taking { " (even after a take)" } else { "" }
                ),
            ));
        }
        Ok(())
    }
}

fn none_text(s: CardSet) -> String {
    if s.is_empty() {
        "none".to_string()
    } else {
        s.to_string()
    }
}

fn rank_word(r: Rank) -> &'static str {
    [
        "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace",
    ][r as usize]
}

impl Legal {
    /// `Ok` when `mv` is a legal answer to this decision; otherwise the rule it breaks, in the
    /// referee's words: [`DecisionView::check`] on the view the request carries.
    pub fn allows(&self, mv: &Move) -> Result<(), Illegal> {
        self.view.check(mv)
    }
}
