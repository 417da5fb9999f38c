//! Fast decoding of referee messages for bots written in Rust (the built-in bots): typed,
//! borrowed deserialization straight into engine types, skipping what a bot does not need.

use crate::DecodeError;
use durak_rules::{
    Card, CardSet, Decision, DecisionKind, DecisionView, Exchange, Legal, Rank, Seat, Suit, ToBeat,
    Variant,
};
use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A message from the referee, as much of it as a bot needs.
#[derive(Debug)]
pub enum ForBot {
    Hello,
    GameStart {
        game: u64,
        seat: Seat,
    },
    Request {
        id: u64,
        legal: Box<Legal>,
        trump: Suit,
    },
    MatchEnd,
    /// Events, errors, game_end and anything newer: nothing to answer.
    Other,
}

struct CardsDe(CardSet);

impl<'de> Deserialize<'de> for CardsDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardsDe, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CardsDe;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of cards")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CardsDe, A::Error> {
                let mut set = CardSet::EMPTY;
                while let Some(c) = seq.next_element::<CardDe>()? {
                    set.insert(c.0);
                }
                Ok(CardsDe(set))
            }
        }
        d.deserialize_seq(V)
    }
}

struct CardDe(Card);

impl<'de> Deserialize<'de> for CardDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardDe, D::Error> {
        let s = <&'de str>::deserialize(d)?;
        s.parse().map(CardDe).map_err(serde::de::Error::custom)
    }
}

#[derive(Deserialize)]
struct ExchangeDe {
    six: CardDe,
    trump_card: CardDe,
}

#[derive(Deserialize)]
struct ToBeatDe {
    attack: CardDe,
    beaters: CardsDe,
}

/// The observation: the seat and its hand, and what its move is judged by
/// ([`durak_rules::DecisionView`]).
#[derive(Deserialize)]
struct ObservationDe<'a> {
    seat: Seat,
    hand: CardsDe,
    #[serde(borrow)]
    trump_suit: &'a str,
    #[serde(default, borrow)]
    variant: &'a str,
    #[serde(default)]
    trump_card: Option<CardDe>,
    #[serde(default)]
    trump_card_in_stock: bool,
    #[serde(default)]
    hand_counts: Vec<usize>,
    #[serde(default)]
    defender: Seat,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    table: Vec<TableDe>,
    #[serde(default)]
    taking: bool,
}

#[derive(Deserialize)]
struct TableDe {
    attack: CardDe,
    defence: Option<CardDe>,
}

#[derive(Deserialize, Default)]
struct LegalDe {
    #[serde(default)]
    sizes: Vec<u8>,
    #[serde(default)]
    same_rank: bool,
    #[serde(default)]
    exchange: Option<ExchangeDe>,
    #[serde(default)]
    to_beat: Vec<ToBeatDe>,
    #[serde(default)]
    to_beat_after_exchange: Vec<ToBeatDe>,
    #[serde(default)]
    must_cover_all: bool,
    #[serde(default)]
    can_cover: bool,
    #[serde(default)]
    can_take: bool,
    #[serde(default)]
    addable: Option<CardsDe>,
    #[serde(default)]
    room: usize,
    #[serde(default)]
    after_take: bool,
}

#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    id: Option<u64>,
    game: Option<u64>,
    seat: Option<Seat>,
    #[serde(borrow)]
    decision: Option<&'a str>,
    #[serde(borrow)]
    observation: Option<ObservationDe<'a>>,
    legal: Option<LegalDe>,
    #[serde(default, rename = "event")]
    _event: Option<IgnoredAny>,
}

fn to_beat(list: &[ToBeatDe]) -> arrayvec::ArrayVec<ToBeat, 6> {
    list.iter()
        .take(6)
        .map(|t| ToBeat {
            attack: t.attack.0,
            beaters: t.beaters.0,
        })
        .collect()
}

/// Decode one line from the referee.
pub fn read_for_bot(line: &str) -> Result<ForBot, DecodeError> {
    let m: Incoming = serde_json::from_str(line)?;
    Ok(match m.kind {
        "hello" => ForBot::Hello,
        "game_start" => ForBot::GameStart {
            game: m.game.unwrap_or(0),
            seat: m.seat.unwrap_or(0),
        },
        "match_end" => ForBot::MatchEnd,
        "request" => {
            let (legal, trump) = legal_of(&m)?;
            ForBot::Request {
                id: m.id.ok_or(DecodeError::Missing("id"))?,
                legal: Box::new(legal),
                trump,
            }
        }
        _ => ForBot::Other,
    })
}

/// A request (as JSON) decoded into the engine's [`Legal`]: what `durak_protocol::legal_from_request`
/// gives.
pub(crate) fn legal_from_value(req: &serde_json::Value) -> Result<Legal, DecodeError> {
    let m = Incoming::deserialize(req)?;
    Ok(legal_of(&m)?.0)
}

/// A request's legal choices, with the view its move is judged by, and its trump suit.
fn legal_of(m: &Incoming) -> Result<(Legal, Suit), DecodeError> {
    let kind = match m.decision {
        Some("attack") => DecisionKind::Attack,
        Some("defend") => DecisionKind::Defend,
        Some("add") => DecisionKind::Add,
        other => return Err(DecodeError::UnknownDecision(other.map(str::to_string))),
    };
    let o = m
        .observation
        .as_ref()
        .ok_or(DecodeError::Missing("observation"))?;
    let empty = LegalDe::default();
    let l = m.legal.as_ref().unwrap_or(&empty);
    let mut legal = Legal::empty();
    legal.decision = Decision {
        seat: o.seat,
        kind,
        after_take: l.after_take,
    };
    legal.hand = o.hand.0;
    for &k in &l.sizes {
        if k < 8 {
            legal.attack_sizes |= 1 << k;
        }
    }
    legal.same_rank = l.same_rank;
    legal.exchange = l.exchange.as_ref().map(|x| Exchange {
        six: x.six.0,
        trump_card: x.trump_card.0,
    });
    legal.to_beat = to_beat(&l.to_beat);
    legal.to_beat_after_exchange = to_beat(&l.to_beat_after_exchange);
    legal.must_cover_all = l.must_cover_all;
    legal.can_cover = l.can_cover;
    legal.can_take = l.can_take;
    legal.addable = l.addable.as_ref().map(|a| a.0).unwrap_or_default();
    legal.room = l.room;
    let trump = o
        .trump_suit
        .chars()
        .next()
        .and_then(Suit::from_letter)
        .ok_or(DecodeError::BadTrumpSuit)?;
    legal.view = view(o, &legal, trump);
    Ok((legal, trump))
}

/// What the deciding seat's move is judged by, from its observation (the variant, if not
/// named, from the kind of choices).
fn view(o: &ObservationDe, legal: &Legal, trump: Suit) -> DecisionView {
    let podkidnoy = legal.same_rank
        || legal.must_cover_all
        || legal.can_take
        || legal.decision.kind == DecisionKind::Add;
    let guessed = match podkidnoy {
        true => Variant::Podkidnoy,
        false => Variant::Prostoy,
    };
    DecisionView {
        variant: o.variant.parse().unwrap_or(guessed),
        decision: legal.decision,
        hand: legal.hand,
        trump_card: o
            .trump_card
            .as_ref()
            .map_or(Card::new(Rank::Ace, trump), |c| c.0),
        trump_card_in_stock: o.trump_card_in_stock,
        defender: o.defender,
        defender_cards: o.hand_counts.get(o.defender).copied().unwrap_or(0),
        limit: o.limit.unwrap_or(0),
        table: o
            .table
            .iter()
            .take(6)
            .map(|t| (t.attack.0, t.defence.as_ref().map(|d| d.0)))
            .collect(),
        taking: o.taking,
    }
}
