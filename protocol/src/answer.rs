//! The answer's fast path: a typed reading of the line, straight from its bytes, that takes
//! only answers the schema (`schemas/answer.json`) takes, and gives the same id and move as the
//! schema's path ([`crate::messages::parse_answer`]).
//!
//! A well-formed answer is read here without building a JSON value or running the JSON-schema
//! validator (most of the referee's own time per decision, `docs/BENCHMARKS.md`). Anything this
//! reading does not take, whatever the reason (a mistake, but also what the schema allows and
//! this reading leaves to it: a key written twice, an escaped card), goes the schema's way,
//! which words the refusal: so an answer is refused exactly as before, with the same message.
//! The corpus test in `answer_corpus.rs` holds the two paths to the same verdicts.

use durak_rules::{Card, CardSet, Move, Pairs, Rank, Suit};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// `line`'s request id and move, when it is an answer the schema takes, written the plain way;
/// `None` sends it the schema's way ([`crate::judge_answer`]).
pub(crate) fn typed_answer(line: &[u8]) -> Option<(u64, Move)> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let fields = de.deserialize_map(FieldsVisitor).ok()?;
    // Trailing garbage (anything but white space) is the schema path's `malformed`.
    de.end().ok()?;
    fields.into_move()
}

/// What the answer's five keys said, each at most once.
#[derive(Default)]
struct Fields {
    type_ok: bool,
    id: Option<u64>,
    action: Option<Action>,
    cards: Option<Cards>,
    pairs: Option<PairList>,
    exchange: Option<bool>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Attack,
    Defend,
    Take,
    Add,
    Pass,
}

impl Fields {
    /// The schema's `oneOf`, branch by `action`: the fields each allows and needs.
    fn into_move(self) -> Option<(u64, Move)> {
        if !self.type_ok {
            return None;
        }
        let id = self.id?;
        let exchange = self.exchange.unwrap_or(false);
        let mv = match (self.action?, self.cards, self.pairs, self.exchange) {
            (Action::Attack, Some(cards), None, _) => Move::Attack {
                cards: cards.0,
                exchange,
            },
            (Action::Add, Some(cards), None, None) => Move::Add { cards: cards.0 },
            (Action::Defend, None, Some(pairs), _) => Move::Defend {
                pairs: pairs.0,
                exchange,
            },
            (Action::Take, None, None, None) => Move::Take,
            (Action::Pass, None, None, None) => Move::Pass,
            _ => return None,
        };
        Some((id, mv))
    }
}

/// Any refusal of the fast path: the line goes the schema's way, which says what is wrong.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain answer")
}

/// Reads the object's keys and values; a key not in the schema, or written twice, ends it.
struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an answer object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut fields = Fields::default();
        let mut seen_type = false;
        while let Some(key) = map.next_key::<Key>()? {
            let again = match key {
                Key::Type => std::mem::replace(&mut seen_type, true),
                Key::Id => fields.id.is_some(),
                Key::Action => fields.action.is_some(),
                Key::Cards => fields.cards.is_some(),
                Key::Pairs => fields.pairs.is_some(),
                Key::Exchange => fields.exchange.is_some(),
            };
            if again {
                // serde_json's value keeps the last of twice-written keys: the schema's path
                // decides such a line.
                return Err(not_plain());
            }
            match key {
                Key::Type => fields.type_ok = map.next_value::<TypeAnswer>()?.0,
                Key::Id => fields.id = Some(map.next_value::<Id>()?.0),
                Key::Action => fields.action = Some(map.next_value::<Action>()?),
                Key::Cards => fields.cards = Some(map.next_value::<Cards>()?),
                Key::Pairs => fields.pairs = Some(map.next_value::<PairList>()?),
                Key::Exchange => fields.exchange = Some(map.next_value::<Bool>()?.0),
            }
        }
        Ok(fields)
    }
}

/// The keys the schema allows, written without escapes.
enum Key {
    Type,
    Id,
    Action,
    Cards,
    Pairs,
    Exchange,
}

/// A visitor that takes one kind of string, borrowed from the line (written without escapes),
/// and nothing else.
fn plain_str<'de, D: Deserializer<'de>, T>(
    d: D,
    what: &'static str,
    read: fn(&str) -> Option<T>,
) -> Result<T, D::Error> {
    struct V<T>(&'static str, fn(&str) -> Option<T>);
    impl<'de, T> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<T, E> {
            (self.1)(s).ok_or_else(|| not_plain())
        }
    }
    d.deserialize_str(V(what, read))
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        plain_str(d, "a key of the answer", |s| {
            Some(match s {
                "type" => Key::Type,
                "id" => Key::Id,
                "action" => Key::Action,
                "cards" => Key::Cards,
                "pairs" => Key::Pairs,
                "exchange" => Key::Exchange,
                _ => return None,
            })
        })
    }
}

/// `"answer"`, the schema's `const` for `type`.
struct TypeAnswer(bool);

impl<'de> de::Deserialize<'de> for TypeAnswer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TypeAnswer, D::Error> {
        plain_str(d, "\"answer\"", |s| {
            (s == "answer").then_some(TypeAnswer(true))
        })
    }
}

impl<'de> de::Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        plain_str(d, "an action", |s| {
            Some(match s {
                "attack" => Action::Attack,
                "defend" => Action::Defend,
                "take" => Action::Take,
                "add" => Action::Add,
                "pass" => Action::Pass,
                _ => return None,
            })
        })
    }
}

/// A card as the schema's pattern `^[6789TJQKA][CDHS]$` has it.
struct PlainCard(Card);

fn card(text: &str) -> Option<PlainCard> {
    let &[r, s] = text.as_bytes() else {
        return None;
    };
    if !b"6789TJQKA".contains(&r) || !b"CDHS".contains(&s) {
        return None;
    }
    let rank = Rank::from_letter(r as char)?;
    let suit = Suit::from_letter(s as char)?;
    Some(PlainCard(Card::new(rank, suit)))
}

impl<'de> de::Deserialize<'de> for PlainCard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PlainCard, D::Error> {
        plain_str(d, "a card", card)
    }
}

/// A whole number from 0 to 2^64 - 1, written as one (`6.0`, `-0` and `1e3` are floats to
/// serde_json: not ids, the schema's path says why).
struct Id(u64);

impl<'de> de::Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a request id")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Id, E> {
                Ok(Id(n))
            }
        }
        d.deserialize_u64(V)
    }
}

/// `true` or `false`, nothing else (not `null`).
struct Bool(bool);

impl<'de> de::Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bool, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Bool, E> {
                Ok(Bool(b))
            }
        }
        d.deserialize_bool(V)
    }
}

/// `cards`: 1 to 6 distinct cards.
struct Cards(CardSet);

impl<'de> de::Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cards, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cards;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("1 to 6 distinct cards")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cards, A::Error> {
                let (mut set, mut n) = (CardSet::EMPTY, 0);
                while let Some(PlainCard(c)) = seq.next_element()? {
                    if set.contains(c) || n == 6 {
                        return Err(not_plain());
                    }
                    set.insert(c);
                    n += 1;
                }
                if n == 0 {
                    return Err(not_plain());
                }
                Ok(Cards(set))
            }
        }
        d.deserialize_seq(V)
    }
}

/// `pairs`: 0 to 6 distinct pairs, each two different cards.
struct PairList(Pairs);

impl<'de> de::Deserialize<'de> for PairList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PairList, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PairList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("0 to 6 distinct pairs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PairList, A::Error> {
                let mut pairs = Pairs::EMPTY;
                while let Some(Pair(a, d)) = seq.next_element()? {
                    if pairs.iter().any(|p| p == (a, d)) || !pairs.push(a, d) {
                        return Err(not_plain());
                    }
                }
                Ok(PairList(pairs))
            }
        }
        d.deserialize_seq(V)
    }
}

/// `[attack, defence]`: exactly two different cards.
struct Pair(Card, Card);

impl<'de> de::Deserialize<'de> for Pair {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pair, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pair;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a pair of cards")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pair, A::Error> {
                let (Some(PlainCard(a)), Some(PlainCard(d))) =
                    (seq.next_element()?, seq.next_element()?)
                else {
                    return Err(not_plain());
                };
                if a == d || seq.next_element::<Never>()?.is_some() {
                    return Err(not_plain());
                }
                Ok(Pair(a, d))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A third element of a pair: never taken.
struct Never;

impl<'de> de::Deserialize<'de> for Never {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Never, D::Error> {
        Err(not_plain())
    }
}
