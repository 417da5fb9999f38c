//! Building referee messages and reading bot messages (protocol v1).

use crate::schema::{self, Schema};
use durak_rules::{
    Card, CardSet, Decision, DecisionKind, EventKind, Exchange, Legal, Move, Observation, Outcome,
    Pairs, Seat, Suit, ToBeat, Variant,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::fmt;

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// Why a bot lost a game. Named outcomes, recorded in results and replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// No answer within the decision's time (move limit plus bank), or no hello in time.
    Timeout,
    /// The process exited or was killed by a signal.
    Crash,
    /// The process closed its stdout.
    Closed,
    /// A line that is not UTF-8 or not JSON.
    Malformed,
    /// JSON of the wrong shape (fails the message's JSON Schema).
    Schema,
    /// A well-formed move the rules refuse (with the rule id).
    Illegal,
    /// A line longer than the limit.
    LineTooLong,
    /// The process could not be started, or its hello was wrong.
    StartFailed,
    /// Not a fault of play: the bot was disqualified from the tournament before this game.
    Forfeit,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Timeout,
        FaultKind::Crash,
        FaultKind::Closed,
        FaultKind::Malformed,
        FaultKind::Schema,
        FaultKind::Illegal,
        FaultKind::LineTooLong,
        FaultKind::StartFailed,
        FaultKind::Forfeit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::Closed => "closed",
            FaultKind::Malformed => "malformed",
            FaultKind::Schema => "schema",
            FaultKind::Illegal => "illegal",
            FaultKind::LineTooLong => "line_too_long",
            FaultKind::StartFailed => "start_failed",
            FaultKind::Forfeit => "forfeit",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fault: who, what kind, and the details in words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    pub seat: Seat,
    pub kind: FaultKind,
    pub detail: String,
    /// The rule a refused move breaks (illegal faults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// Time limits announced in the hello.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub startup_ms: u64,
    pub move_ms: u64,
    pub bank_ms: u64,
    pub max_line_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            startup_ms: 10_000,
            move_ms: 1_000,
            bank_ms: 10_000,
            max_line_bytes: 1 << 20,
        }
    }
}

// ----- engine values as JSON ------------------------------------------------------------------

pub fn card_json(c: Card) -> Value {
    Value::String(c.to_string())
}

pub fn cards_json(s: CardSet) -> Value {
    Value::Array(s.iter().map(card_json).collect())
}

fn opt_card(c: Option<Card>) -> Value {
    c.map(card_json).unwrap_or(Value::Null)
}

fn pairs_json(p: &Pairs) -> Value {
    Value::Array(
        p.iter()
            .map(|(a, d)| json!([a.to_string(), d.to_string()]))
            .collect(),
    )
}

fn suit_json(s: Suit) -> Value {
    Value::String(s.letter().to_string())
}

/// An event's JSON object (`kind` plus its fields).
pub fn event_json(e: &EventKind) -> Value {
    match *e {
        EventKind::Dealt {
            dealer,
            trump_card,
            hand_size,
            stock,
        } => json!({"kind": "dealt", "dealer": dealer, "trump_card": card_json(trump_card),
                    "hand_size": hand_size, "stock": stock}),
        EventKind::DealtHand { seat, cards } => {
            json!({"kind": "dealt_hand", "seat": seat, "cards": cards_json(cards)})
        }
        EventKind::FirstAttacker { seat, shown_trump } => {
            json!({"kind": "first_attacker", "seat": seat, "shown_trump": opt_card(shown_trump)})
        }
        EventKind::TurnStarted {
            attacker,
            defender,
            limit,
        } => json!({"kind": "turn_started", "attacker": attacker, "defender": defender,
                    "limit": limit}),
        EventKind::Exchanged {
            seat,
            six,
            trump_card,
        } => json!({"kind": "exchanged", "seat": seat, "six": card_json(six),
                    "trump_card": card_json(trump_card)}),
        EventKind::Attacked { seat, cards } => {
            json!({"kind": "attacked", "seat": seat, "cards": cards_json(cards)})
        }
        EventKind::Defended { seat, pairs } => {
            json!({"kind": "defended", "seat": seat, "pairs": pairs_json(&pairs)})
        }
        EventKind::Takes { seat } => json!({"kind": "takes", "seat": seat}),
        EventKind::Added { seat, cards } => {
            json!({"kind": "added", "seat": seat, "cards": cards_json(cards)})
        }
        EventKind::Passed { seat } => json!({"kind": "passed", "seat": seat}),
        EventKind::PickedUp { seat, cards } => {
            json!({"kind": "picked_up", "seat": seat, "cards": cards_json(cards)})
        }
        EventKind::Discarded { cards } => json!({"kind": "discarded", "cards": cards_json(cards)}),
        EventKind::Drew {
            seat,
            count,
            trump_card,
        } => json!({"kind": "drew", "seat": seat, "count": count,
                    "trump_card": opt_card(trump_card)}),
        EventKind::DrewCards { seat, cards } => {
            json!({"kind": "drew_cards", "seat": seat, "cards": cards_json(cards)})
        }
        EventKind::Exited { seat } => json!({"kind": "exited", "seat": seat}),
        EventKind::GameOver { loser } => json!({"kind": "game_over", "loser": loser}),
    }
}

/// A seat's observation as JSON (exactly the engine's [`Observation`], I-1 and I-2).
pub fn observation_json(o: &Observation) -> Value {
    json!({
        "seat": o.seat,
        "variant": o.variant.name(),
        "players": o.players,
        "dealer": o.dealer,
        "hand": cards_json(o.hand),
        "hand_counts": o.hand_counts,
        "known": o.known.iter().map(|k| cards_json(*k)).collect::<Vec<_>>(),
        "active": o.active,
        "trump_suit": suit_json(o.trump_suit),
        "trump_card": card_json(o.trump_card),
        "trump_card_in_stock": o.trump_card_in_stock,
        "stock": o.stock,
        "discard": cards_json(o.discard),
        "table": o.table.iter().map(|(a, d)| json!({"attack": card_json(*a), "defence": opt_card(*d)})).collect::<Vec<_>>(),
        "attacker": o.attacker,
        "defender": o.defender,
        "limit": o.limit,
        "taking": o.taking,
    })
}

fn exchange_json(x: Option<Exchange>) -> Value {
    match x {
        Some(x) => json!({"six": card_json(x.six), "trump_card": card_json(x.trump_card)}),
        None => Value::Null,
    }
}

fn to_beat_json(list: &[ToBeat]) -> Value {
    Value::Array(
        list.iter()
            .map(|t| json!({"attack": card_json(t.attack), "beaters": cards_json(t.beaters)}))
            .collect(),
    )
}

/// The compact legal choices as JSON, by decision kind.
pub fn legal_json(l: &Legal) -> Value {
    match l.decision.kind {
        DecisionKind::Attack => json!({
            "hand": cards_json(l.hand),
            "sizes": l.attack_size_list(),
            "same_rank": l.same_rank,
            "exchange": exchange_json(l.exchange),
        }),
        DecisionKind::Defend => json!({
            "to_beat": to_beat_json(&l.to_beat),
            "to_beat_after_exchange": to_beat_json(&l.to_beat_after_exchange),
            "exchange": exchange_json(l.exchange),
            "must_cover_all": l.must_cover_all,
            "can_cover": l.can_cover,
            "can_take": l.can_take,
        }),
        DecisionKind::Add => json!({
            "addable": cards_json(l.addable),
            "room": l.room,
            "after_take": l.decision.after_take,
        }),
    }
}

/// A move as the `action` fields of an answer (without `type` and `id`).
pub fn move_json(m: &Move) -> Map<String, Value> {
    let v = match *m {
        Move::Attack { cards, exchange } => {
            json!({"action": "attack", "cards": cards_json(cards), "exchange": exchange})
        }
        Move::Defend { pairs, exchange } => {
            json!({"action": "defend", "pairs": pairs_json(&pairs), "exchange": exchange})
        }
        Move::Take => json!({"action": "take"}),
        Move::Add { cards } => json!({"action": "add", "cards": cards_json(cards)}),
        Move::Pass => json!({"action": "pass"}),
    };
    match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

// ----- referee -> bot ---------------------------------------------------------------------------

pub fn hello(variant: Variant, players: usize, seat: Seat, games: u32, limits: &Limits) -> Value {
    json!({"type": "hello", "protocol": PROTOCOL_VERSION, "variant": variant.name(),
           "players": players, "seat": seat, "games": games, "limits": limits})
}

pub fn game_start(
    game: u32,
    variant: Variant,
    players: usize,
    seat: Seat,
    dealer: Seat,
    first_game: bool,
) -> Value {
    json!({"type": "game_start", "game": game, "variant": variant.name(), "players": players,
           "seat": seat, "dealer": dealer, "hand_size": variant.hand_size(),
           "first_game": first_game})
}

pub fn event(game: u32, e: &EventKind) -> Value {
    json!({"type": "event", "game": game, "event": event_json(e)})
}

pub fn request(
    id: u64,
    game: u32,
    legal: &Legal,
    obs: &Observation,
    move_ms: u64,
    bank_ms: u64,
) -> Value {
    json!({"type": "request", "id": id, "game": game, "decision": legal.decision.kind.name(),
           "time": {"move_ms": move_ms, "bank_ms": bank_ms},
           "observation": observation_json(obs), "legal": legal_json(legal)})
}

pub fn error(
    id: Option<u64>,
    fault: FaultKind,
    rule: Option<&str>,
    pointer: Option<&str>,
    message: &str,
) -> Value {
    json!({"type": "error", "id": id, "fault": fault.name(), "rule": rule, "pointer": pointer,
           "message": message})
}

pub fn game_end(game: u32, outcome: Outcome, faults: &[Fault]) -> Value {
    let faults: Vec<Value> = faults
        .iter()
        .map(|f| json!({"seat": f.seat, "kind": f.kind.name(), "detail": f.detail}))
        .collect();
    json!({"type": "game_end", "game": game, "loser": outcome.loser, "draw": outcome.is_draw(),
           "faults": faults})
}

pub fn match_end(games: u32, losses: &[u32], draws: u32) -> Value {
    json!({"type": "match_end", "games": games, "losses": losses, "draws": draws})
}

// ----- bot -> referee ---------------------------------------------------------------------------

/// A bot message the referee refuses, with the fault it counts as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: FaultKind,
    pub rule: Option<&'static str>,
    pub pointer: Option<String>,
    pub message: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parse one line from a bot: UTF-8, then JSON (fault `malformed`).
pub fn parse_line(line: &[u8]) -> Result<Value, Refusal> {
    let malformed = |message: String| Refusal {
        kind: FaultKind::Malformed,
        rule: None,
        pointer: None,
        message,
    };
    let text = std::str::from_utf8(line).map_err(|e| {
        malformed(format!(
            "the line is not valid UTF-8 (bad byte at offset {}); send UTF-8 JSON text",
            e.valid_up_to()
        ))
    })?;
    serde_json::from_str(text).map_err(|e| {
        let shown: String = text.chars().take(80).collect();
        malformed(format!(
            "the line is not JSON ({e}); each line must be one JSON object. The line began: {shown:?}"
        ))
    })
}

fn check_schema(schema: Schema, v: &Value) -> Result<(), Refusal> {
    schema::validate(schema, v).map_err(|e| Refusal {
        kind: FaultKind::Schema,
        rule: None,
        pointer: Some(e.pointer.clone()),
        message: e.message,
    })
}

/// The bot's hello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotHello {
    pub name: String,
    pub version: String,
}

/// Validate and read a bot's hello.
pub fn parse_bot_hello(v: &Value) -> Result<BotHello, Refusal> {
    check_schema(Schema::BotHello, v)?;
    if v["protocol"].as_u64() != Some(PROTOCOL_VERSION) {
        return Err(Refusal {
            kind: FaultKind::Schema,
            rule: None,
            pointer: Some("/protocol".into()),
            message: format!(
                "this referee speaks protocol {PROTOCOL_VERSION}; the bot said {}",
                v["protocol"]
            ),
        });
    }
    Ok(BotHello {
        name: v["name"].as_str().unwrap_or_default().to_string(),
        version: v["version"].as_str().unwrap_or_default().to_string(),
    })
}

fn card_at(v: &Value) -> Option<Card> {
    v.as_str()?.parse().ok()
}

fn card_list(v: &Value, pointer: &str) -> Result<CardSet, Refusal> {
    let mut set = CardSet::EMPTY;
    for (i, c) in v.as_array().into_iter().flatten().enumerate() {
        let card = card_at(c).ok_or_else(|| Refusal {
            kind: FaultKind::Schema,
            rule: Some("C-1"),
            pointer: Some(format!("{pointer}/{i}")),
            message: format!("{pointer}/{i}: {c} is not a card"),
        })?;
        if set.contains(card) {
            return Err(Refusal {
                kind: FaultKind::Schema,
                rule: Some("C-1"),
                pointer: Some(format!("{pointer}/{i}")),
                message: format!("{pointer}/{i}: {card} is listed twice; each card exists once"),
            });
        }
        set.insert(card);
    }
    Ok(set)
}

/// Validate an answer and read its request id and move. Rule checks come after, in the engine.
pub fn parse_answer(v: &Value) -> Result<(u64, Move), Refusal> {
    check_schema(Schema::Answer, v)?;
    let id = v["id"].as_u64().unwrap_or_default();
    let exchange = v["exchange"].as_bool().unwrap_or(false);
    let mv = match v["action"].as_str().unwrap_or_default() {
        "attack" => Move::Attack {
            cards: card_list(&v["cards"], "/cards")?,
            exchange,
        },
        "add" => Move::Add {
            cards: card_list(&v["cards"], "/cards")?,
        },
        "defend" => {
            let mut pairs = Pairs::EMPTY;
            for (i, p) in v["pairs"].as_array().into_iter().flatten().enumerate() {
                let (Some(a), Some(d)) = (card_at(&p[0]), card_at(&p[1])) else {
                    return Err(Refusal {
                        kind: FaultKind::Schema,
                        rule: None,
                        pointer: Some(format!("/pairs/{i}")),
                        message: format!("/pairs/{i}: a pair is [attack card, defence card]"),
                    });
                };
                if !pairs.push(a, d) {
                    return Err(Refusal {
                        kind: FaultKind::Schema,
                        rule: None,
                        pointer: Some("/pairs".into()),
                        message: "/pairs: at most 6 pairs".into(),
                    });
                }
            }
            Move::Defend { pairs, exchange }
        }
        "take" => Move::Take,
        "pass" => Move::Pass,
        other => {
            return Err(Refusal {
                kind: FaultKind::Schema,
                rule: None,
                pointer: Some("/action".into()),
                message: format!(
                    "/action: {other:?} is not an action (attack, defend, take, add, pass)"
                ),
            })
        }
    };
    Ok((id, mv))
}

// ----- decoding referee messages (for bots written in Rust) -----------------------------------

fn cards_from(v: &Value) -> CardSet {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(card_at)
        .collect()
}

fn to_beat_from(v: &Value) -> arrayvec_like::ToBeatList {
    let mut out = arrayvec_like::ToBeatList::new();
    for t in v.as_array().into_iter().flatten().take(6) {
        if let Some(a) = card_at(&t["attack"]) {
            out.push(ToBeat {
                attack: a,
                beaters: cards_from(&t["beaters"]),
            });
        }
    }
    out
}

mod arrayvec_like {
    pub type ToBeatList = arrayvec::ArrayVec<durak_rules::ToBeat, 6>;
}

/// Decode a request's decision and legal choices into the engine's [`Legal`] (for Rust bots).
pub fn legal_from_request(req: &Value) -> Result<Legal, String> {
    let kind = match req["decision"].as_str() {
        Some("attack") => DecisionKind::Attack,
        Some("defend") => DecisionKind::Defend,
        Some("add") => DecisionKind::Add,
        other => return Err(format!("unknown decision {other:?}")),
    };
    let l = &req["legal"];
    let o = &req["observation"];
    let seat = o["seat"].as_u64().unwrap_or(0) as Seat;
    let mut legal = Legal::empty();
    legal.decision = Decision {
        seat,
        kind,
        after_take: l["after_take"].as_bool().unwrap_or(false),
    };
    legal.hand = cards_from(&o["hand"]);
    for k in l["sizes"].as_array().into_iter().flatten() {
        if let Some(k) = k.as_u64().filter(|k| *k < 8) {
            legal.attack_sizes |= 1 << k;
        }
    }
    legal.same_rank = l["same_rank"].as_bool().unwrap_or(false);
    legal.exchange = match (card_at(&l["exchange"]["six"]), card_at(&l["exchange"]["trump_card"])) {
        (Some(six), Some(trump_card)) => Some(Exchange { six, trump_card }),
        _ => None,
    };
    legal.to_beat = to_beat_from(&l["to_beat"]);
    legal.to_beat_after_exchange = to_beat_from(&l["to_beat_after_exchange"]);
    legal.must_cover_all = l["must_cover_all"].as_bool().unwrap_or(false);
    legal.can_cover = l["can_cover"].as_bool().unwrap_or(false);
    legal.can_take = l["can_take"].as_bool().unwrap_or(false);
    legal.addable = cards_from(&l["addable"]);
    legal.room = l["room"].as_u64().unwrap_or(0) as usize;
    Ok(legal)
}

/// The trump suit of a request's observation.
pub fn trump_from_request(req: &Value) -> Option<Suit> {
    req["observation"]["trump_suit"]
        .as_str()
        .and_then(|s| s.chars().next())
        .and_then(Suit::from_letter)
}

/// An answer line for request `id`.
pub fn answer(id: u64, m: &Move) -> Value {
    let mut obj = Map::new();
    obj.insert("type".into(), json!("answer"));
    obj.insert("id".into(), json!(id));
    obj.extend(move_json(m));
    Value::Object(obj)
}

/// A bot's hello line.
pub fn bot_hello(name: &str, version: &str) -> Value {
    json!({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version})
}
