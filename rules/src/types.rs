//! Variants, setups, moves, decisions, legal choices, events and errors.

use crate::card::{Card, CardSet, Suit};
use crate::judge::DecisionView;
use arrayvec::ArrayVec;
use std::fmt;
use std::str::FromStr;

/// A seat number, `0..n` clockwise (C-2).
pub type Seat = usize;

/// The two variants this project enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Prostoy Durak, rules P-1..P-12.
    Prostoy,
    /// Podkidnoy Durak with the seed's conventions, rules K-1..K-15.
    Podkidnoy,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Prostoy, Variant::Podkidnoy];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Prostoy => "prostoy",
            Variant::Podkidnoy => "podkidnoy",
        }
    }

    /// P-1: 5 cards; K-1: 6 cards.
    pub fn hand_size(self) -> usize {
        match self {
            Variant::Prostoy => 5,
            Variant::Podkidnoy => 6,
        }
    }

    /// P-1: 2 to 4 players; K-1: 2 to 6.
    pub fn players(self) -> std::ops::RangeInclusive<usize> {
        match self {
            Variant::Prostoy => 2..=4,
            Variant::Podkidnoy => 2..=6,
        }
    }

    /// The rule that fixes the player count and hand size.
    pub fn players_rule(self) -> &'static str {
        match self {
            Variant::Prostoy => "P-1",
            Variant::Podkidnoy => "K-1",
        }
    }

    /// Check a player count before the deal (P-1, K-1).
    pub fn check_players(self, n: usize) -> Result<(), SetupError> {
        if self.players().contains(&n) {
            Ok(())
        } else {
            Err(SetupError {
                rule: self.players_rule(),
                message: format!(
                    "{} is played by {} to {} players, not {n}",
                    self.name(),
                    self.players().start(),
                    self.players().end()
                ),
            })
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        match s.to_ascii_lowercase().as_str() {
            "prostoy" => Ok(Variant::Prostoy),
            "podkidnoy" => Ok(Variant::Podkidnoy),
            _ => Err(UnknownVariant(s.to_string())),
        }
    }
}

/// A variant's name that is neither `prostoy` nor `podkidnoy` (the text given).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?}: the variants are prostoy and podkidnoy")]
pub struct UnknownVariant(pub String);

/// Everything fixed before the deal (C-11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    pub variant: Variant,
    pub players: usize,
    /// The dealer's seat (C-5, C-10).
    pub dealer: Seat,
    /// The first game of a series: in podkidnoy the lowest trump attacks first (K-2).
    pub first_game: bool,
}

impl Setup {
    pub fn new(variant: Variant, players: usize) -> Setup {
        Setup {
            variant,
            players,
            dealer: 0,
            first_game: true,
        }
    }

    pub fn check(&self) -> Result<(), SetupError> {
        self.variant.check_players(self.players)?;
        if self.dealer >= self.players {
            return Err(SetupError {
                rule: "C-2",
                message: format!(
                    "the dealer is seat {}, but seats are 0 to {}",
                    self.dealer,
                    self.players - 1
                ),
            });
        }
        Ok(())
    }
}

/// A game that cannot be set up, with the rule that refuses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    pub rule: &'static str,
    pub message: String,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

impl std::error::Error for SetupError {}

/// Defence pairs `(attack card, defence card)`, at most six.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Pairs {
    len: u8,
    items: [(u8, u8); 6],
}

impl Pairs {
    pub const EMPTY: Pairs = Pairs {
        len: 0,
        items: [(0, 0); 6],
    };

    /// Build from a list; `None` when it has more than six pairs (no table holds more).
    pub fn from_slice(pairs: &[(Card, Card)]) -> Option<Pairs> {
        let mut p = Pairs::EMPTY;
        for &(a, d) in pairs {
            if !p.push(a, d) {
                return None;
            }
        }
        Some(p)
    }

    pub fn push(&mut self, attack: Card, defence: Card) -> bool {
        if self.len as usize >= 6 {
            return false;
        }
        self.items[self.len as usize] = (attack.index(), defence.index());
        self.len += 1;
        true
    }

    pub fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (Card, Card)> + '_ {
        self.items[..self.len as usize].iter().map(|&(a, d)| {
            (
                Card::from_index(a).expect("valid card"),
                Card::from_index(d).expect("valid card"),
            )
        })
    }

    pub fn defence_cards(&self) -> CardSet {
        self.iter().map(|(_, d)| d).collect()
    }

    pub fn attack_cards(&self) -> CardSet {
        self.iter().map(|(a, _)| a).collect()
    }
}

impl fmt::Debug for Pairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v: Vec<String> = self.iter().map(|(a, d)| format!("{a}/{d}")).collect();
        write!(f, "[{}]", v.join(" "))
    }
}

/// A move as a player proposes it. Any value can be built; [`crate::Game::check`] says whether it is
/// legal and, if not, which rule forbids it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Prostoy attack (P-5), optionally preceded by the trump-six exchange (P-4); podkidnoy opening
    /// attack (K-4).
    Attack { cards: CardSet, exchange: bool },
    /// Beat attack cards, each pair `(attack, defence)`: prostoy any subset (P-8), optionally after
    /// the exchange (P-4); podkidnoy every unbeaten card (K-7).
    Defend { pairs: Pairs, exchange: bool },
    /// Podkidnoy: the defender takes (K-7).
    Take,
    /// Podkidnoy: an adder adds cards (K-6).
    Add { cards: CardSet },
    /// Podkidnoy: an adder passes (K-8, K-9).
    Pass,
}

impl Move {
    pub fn name(&self) -> &'static str {
        match self {
            Move::Attack { .. } => "attack",
            Move::Defend { .. } => "defend",
            Move::Take => "take",
            Move::Add { .. } => "add",
            Move::Pass => "pass",
        }
    }
}

/// What kind of decision is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecisionKind {
    /// Prostoy attack (P-5) or podkidnoy opening attack (K-4).
    Attack,
    /// Prostoy partial defence (P-8) or podkidnoy cover-or-take (K-7).
    Defend,
    /// Podkidnoy: add or pass (K-8), or after a take (K-9).
    Add,
}

impl DecisionKind {
    pub fn name(self) -> &'static str {
        match self {
            DecisionKind::Attack => "attack",
            DecisionKind::Defend => "defend",
            DecisionKind::Add => "add",
        }
    }
}

/// Whose decision it is and of what kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub seat: Seat,
    pub kind: DecisionKind,
    /// Podkidnoy: the defender has declared that they take (K-9).
    pub after_take: bool,
}

/// The trump-six exchange open to a player (P-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The six of trumps the player gives.
    pub six: Card,
    /// The trump card the player takes.
    pub trump_card: Card,
}

/// One unbeaten attack card and the cards of the player's hand that beat it (C-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToBeat {
    pub attack: Card,
    pub beaters: CardSet,
}

/// The legal choices of the current decision in a compact form a bot can use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legal {
    pub decision: Decision,
    pub hand: CardSet,
    /// What the move is judged by ([`Legal::allows`]): the request's observation, as the deciding
    /// seat sees the game.
    pub view: DecisionView,
    /// Attack: the legal numbers of attack cards (P-5 with P-6: a subset of 1, 3, 5; K-4 with K-3:
    /// 1 to the limit). Bit `k` set means `k` cards.
    pub attack_sizes: u8,
    /// Attack: podkidnoy opening attacks are of one rank (K-4).
    pub same_rank: bool,
    /// The trump-six exchange, when open (P-4).
    pub exchange: Option<Exchange>,
    /// Defend: every unbeaten attack card with the hand cards that beat it.
    pub to_beat: ArrayVec<ToBeat, 6>,
    /// Defend, prostoy with the exchange open: the same computed on the hand after the exchange.
    pub to_beat_after_exchange: ArrayVec<ToBeat, 6>,
    /// Defend, podkidnoy: every unbeaten card must be covered in one answer (K-7).
    pub must_cover_all: bool,
    /// Defend, podkidnoy: covering every unbeaten card at once is possible.
    pub can_cover: bool,
    /// Defend, podkidnoy: taking is always possible (K-7).
    pub can_take: bool,
    /// Add: the hand cards whose rank is on the table (K-6).
    pub addable: CardSet,
    /// Add: how many more attack cards the limit allows (K-3).
    pub room: usize,
}

impl Legal {
    /// A blank value for [`crate::Game::legal_into`] to fill.
    pub fn empty() -> Legal {
        Legal {
            decision: Decision {
                seat: 0,
                kind: DecisionKind::Attack,
                after_take: false,
            },
            hand: CardSet::EMPTY,
            view: DecisionView::empty(),
            attack_sizes: 0,
            same_rank: false,
            exchange: None,
            to_beat: ArrayVec::new(),
            to_beat_after_exchange: ArrayVec::new(),
            must_cover_all: false,
            can_cover: false,
            can_take: false,
            addable: CardSet::EMPTY,
            room: 0,
        }
    }

    pub(crate) fn reset(&mut self, decision: Decision, hand: CardSet, exchange: Option<Exchange>) {
        self.decision = decision;
        self.hand = hand;
        self.attack_sizes = 0;
        self.same_rank = false;
        self.exchange = exchange;
        self.to_beat.clear();
        self.to_beat_after_exchange.clear();
        self.must_cover_all = false;
        self.can_cover = false;
        self.can_take = false;
        self.addable = CardSet::EMPTY;
        self.room = 0;
    }

    /// The legal attack sizes, ascending.
    pub fn attack_size_list(&self) -> Vec<usize> {
        (1..8).filter(|k| self.attack_sizes >> k & 1 == 1).collect()
    }

    /// The largest legal attack size (0 when this is not an attack).
    pub fn max_attack_size(&self) -> usize {
        (8 - self.attack_sizes.leading_zeros() as usize).saturating_sub(1)
    }

    /// the only legal answer, when the decision has exactly one.
    pub fn forced_move(&self, variant: Variant) -> Option<Move> {
        let hand = self.hand;
        match (variant, self.decision.kind) {
            (Variant::Prostoy, DecisionKind::Attack) => {
                (self.exchange.is_none() && hand.len() == 1).then_some(Move::Attack {
                    cards: hand,
                    exchange: false,
                })
            }
            (Variant::Prostoy, DecisionKind::Defend) => (self.exchange.is_none()
                && self.to_beat.iter().all(|t| t.beaters.is_empty()))
            .then_some(Move::Defend {
                pairs: Pairs::EMPTY,
                exchange: false,
            }),
            (Variant::Podkidnoy, DecisionKind::Attack) => {
                (hand.len() == 1).then_some(Move::Attack {
                    cards: hand,
                    exchange: false,
                })
            }
            (Variant::Podkidnoy, DecisionKind::Defend) => (!self.can_cover).then_some(Move::Take),
            (_, DecisionKind::Add) => {
                (self.room == 0 || self.addable.is_empty()).then_some(Move::Pass)
            }
        }
    }
}

/// A move that breaks a rule: the rule's id and a sentence a bot author understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    pub rule: &'static str,
    pub message: String,
}

impl Illegal {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Illegal {
        Illegal {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

impl std::error::Error for Illegal {}

/// Who may see an event (I-1, I-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    All,
    Seat(Seat),
}

impl Audience {
    pub fn sees(self, seat: Seat) -> bool {
        match self {
            Audience::All => true,
            Audience::Seat(s) => s == seat,
        }
    }
}

/// Something that happened, as the players learn it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Public: the deal is done (C-5, K-1).
    Dealt {
        dealer: Seat,
        trump_card: Card,
        hand_size: usize,
        stock: usize,
    },
    /// Private: the cards dealt to a seat.
    DealtHand { seat: Seat, cards: CardSet },
    /// Public: K-2, the lowest trump is shown (`None`: nobody held a trump, or P-2 / a later game).
    FirstAttacker {
        seat: Seat,
        shown_trump: Option<Card>,
    },
    /// Public: a new turn (prostoy) or round (podkidnoy) starts. `limit` is the K-3 limit.
    TurnStarted {
        attacker: Seat,
        defender: Seat,
        limit: Option<usize>,
    },
    /// Public: the trump-six exchange (P-4).
    Exchanged {
        seat: Seat,
        six: Card,
        trump_card: Card,
    },
    /// Public: an attack (P-5, K-4).
    Attacked { seat: Seat, cards: CardSet },
    /// Public: defence cards placed on attack cards (P-8, K-7).
    Defended { seat: Seat, pairs: Pairs },
    /// Public: the podkidnoy defender declares that they take (K-7).
    Takes { seat: Seat },
    /// Public: cards added (K-6).
    Added { seat: Seat, cards: CardSet },
    /// Public: an adder passes (K-8, K-9).
    Passed { seat: Seat },
    /// Public: the defender picks these cards up (P-9, K-11).
    PickedUp { seat: Seat, cards: CardSet },
    /// Public: these cards go to the discard (C-7).
    Discarded { cards: CardSet },
    /// Public: a seat draws `count` cards; `trump_card` is set when the last one is the face-up
    /// trump card (I-2).
    Drew {
        seat: Seat,
        count: usize,
        trump_card: Option<Card>,
    },
    /// Private: the cards a seat drew (I-2).
    DrewCards { seat: Seat, cards: CardSet },
    /// Public: a seat exits (C-8).
    Exited { seat: Seat },
    /// Public: the game is over (C-9): `loser` is the durak, `None` is a draw.
    GameOver { loser: Option<Seat> },
}

/// An event and who sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub to: Audience,
    pub kind: EventKind,
}

/// How a game ended (C-9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The durak, or `None` for a draw.
    pub loser: Option<Seat>,
}

impl Outcome {
    pub fn is_draw(&self) -> bool {
        self.loser.is_none()
    }
}

/// One seat's view of the game: exactly what I-1 and I-2 allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    pub seat: Seat,
    pub variant: Variant,
    pub players: usize,
    pub dealer: Seat,
    /// I-2: this seat's own hand.
    pub hand: CardSet,
    /// I-1: every seat's number of cards.
    pub hand_counts: Vec<usize>,
    /// I-1: cards publicly known to be in each seat's hand (taken from the table, the trump card
    /// drawn or exchanged, the lowest trump shown), not yet played.
    pub known: Vec<CardSet>,
    /// I-1: who is still active (C-3, C-8).
    pub active: Vec<bool>,
    pub trump_suit: Suit,
    /// I-1: the trump card, face up under the stock until drawn.
    pub trump_card: Card,
    pub trump_card_in_stock: bool,
    /// I-1: the number of cards in the stock (including the trump card while it lies there).
    pub stock: usize,
    /// I-1, C-7: the discard.
    pub discard: CardSet,
    /// I-1: the table, attack cards in the order played, each with its defence card if beaten.
    pub table: Vec<(Card, Option<Card>)>,
    /// The current turn's (initial) attacker and defender.
    pub attacker: Seat,
    pub defender: Seat,
    /// Podkidnoy: the round's limit (K-3).
    pub limit: Option<usize>,
    /// Podkidnoy: the defender has declared that they take (K-9).
    pub taking: bool,
    /// The pending decision, if the game is not over.
    pub decision: Option<Decision>,
    pub outcome: Option<Outcome>,
}
