//! Building referee messages and reading bot messages (protocol v1).

use crate::schema::{self, Schema};
use durak_rules::{
    Card, CardSet, DecisionKind, EventKind, Exchange, Legal, Move, Observation, Outcome, Pairs,
    Seat, Suit, ToBeat, Variant,
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
    /// The kernel killed the bot for using more than its memory limit (a memory cgroup).
    Memory,
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
    pub const ALL: [FaultKind; 10] = [
        FaultKind::Timeout,
        FaultKind::Crash,
        FaultKind::Memory,
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
            FaultKind::Memory => "memory",
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

/// A fault kind's name that this build does not know (a newer referee's, or not a fault).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFaultKind(pub String);

impl fmt::Display for UnknownFaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a fault kind (", self.0)?;
        let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
        write!(f, "one of {})", names.join(", "))
    }
}

impl std::error::Error for UnknownFaultKind {}

/// A fault kind from its name ([`FaultKind::name`], as results and replays write it).
impl std::str::FromStr for FaultKind {
    type Err = UnknownFaultKind;
    fn from_str(name: &str) -> Result<FaultKind, UnknownFaultKind> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| UnknownFaultKind(name.to_string()))
    }
}

impl FaultKind {
    /// A recorded fault's kind, for a reader that must have one: a name this build does not
    /// know (a newer referee's) is read as `crash`, the fault that says least (the process is
    /// gone). The one fallback; a reader that can say "unknown" parses instead.
    pub fn from_recorded(name: &str) -> FaultKind {
        name.parse().unwrap_or(FaultKind::Crash)
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
//
// Outbound messages are serialized straight from borrowed engine values (no intermediate
// `serde_json::Value` tree): that is most of the referee's per-decision cost otherwise. The
// `*_json` functions give the same JSON as a `Value`, for tests, docs and replays' readers.

use serde::ser::{SerializeMap, SerializeSeq, Serializer};

/// A card as its two-character text (C-1).
#[derive(Clone, Copy)]
pub struct CardSer(pub Card);

impl Serialize for CardSer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = [self.0.rank().letter() as u8, self.0.suit().letter() as u8];
        s.serialize_str(std::str::from_utf8(&b).expect("ascii"))
    }
}

/// A card set as a list of card strings.
#[derive(Clone, Copy)]
pub struct Cards(pub CardSet);

impl Serialize for Cards {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for c in self.0.iter() {
            seq.serialize_element(&CardSer(c))?;
        }
        seq.end()
    }
}

struct PairsSer<'a>(&'a Pairs);

impl Serialize for PairsSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (a, d) in self.0.iter() {
            seq.serialize_element(&[CardSer(a), CardSer(d)])?;
        }
        seq.end()
    }
}

/// An event as its JSON object (`kind` plus its fields).
pub struct EventSer<'a>(pub &'a EventKind);

impl Serialize for EventSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match *self.0 {
            EventKind::Dealt {
                dealer,
                trump_card,
                hand_size,
                stock,
            } => {
                m.serialize_entry("kind", "dealt")?;
                m.serialize_entry("dealer", &dealer)?;
                m.serialize_entry("trump_card", &CardSer(trump_card))?;
                m.serialize_entry("hand_size", &hand_size)?;
                m.serialize_entry("stock", &stock)?;
            }
            EventKind::DealtHand { seat, cards } => {
                m.serialize_entry("kind", "dealt_hand")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            EventKind::FirstAttacker { seat, shown_trump } => {
                m.serialize_entry("kind", "first_attacker")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("shown_trump", &shown_trump.map(CardSer))?;
            }
            EventKind::TurnStarted {
                attacker,
                defender,
                limit,
            } => {
                m.serialize_entry("kind", "turn_started")?;
                m.serialize_entry("attacker", &attacker)?;
                m.serialize_entry("defender", &defender)?;
                m.serialize_entry("limit", &limit)?;
            }
            EventKind::Exchanged {
                seat,
                six,
                trump_card,
            } => {
                m.serialize_entry("kind", "exchanged")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("six", &CardSer(six))?;
                m.serialize_entry("trump_card", &CardSer(trump_card))?;
            }
            EventKind::Attacked { seat, cards } => {
                m.serialize_entry("kind", "attacked")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            EventKind::Defended { seat, ref pairs } => {
                m.serialize_entry("kind", "defended")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("pairs", &PairsSer(pairs))?;
            }
            EventKind::Takes { seat } => {
                m.serialize_entry("kind", "takes")?;
                m.serialize_entry("seat", &seat)?;
            }
            EventKind::Added { seat, cards } => {
                m.serialize_entry("kind", "added")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            EventKind::Passed { seat } => {
                m.serialize_entry("kind", "passed")?;
                m.serialize_entry("seat", &seat)?;
            }
            EventKind::PickedUp { seat, cards } => {
                m.serialize_entry("kind", "picked_up")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            EventKind::Discarded { cards } => {
                m.serialize_entry("kind", "discarded")?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            EventKind::Drew {
                seat,
                count,
                trump_card,
            } => {
                m.serialize_entry("kind", "drew")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("count", &count)?;
                m.serialize_entry("trump_card", &trump_card.map(CardSer))?;
            }
            EventKind::DrewCards { seat, cards } => {
                m.serialize_entry("kind", "drew_cards")?;
                m.serialize_entry("seat", &seat)?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            EventKind::Exited { seat } => {
                m.serialize_entry("kind", "exited")?;
                m.serialize_entry("seat", &seat)?;
            }
            EventKind::GameOver { loser } => {
                m.serialize_entry("kind", "game_over")?;
                m.serialize_entry("loser", &loser)?;
            }
        }
        m.end()
    }
}

/// Every event `kind`, in the order of [`event_kind_index`].
pub const EVENT_KINDS: [&str; 16] = [
    "dealt",
    "dealt_hand",
    "first_attacker",
    "turn_started",
    "exchanged",
    "attacked",
    "defended",
    "takes",
    "added",
    "passed",
    "picked_up",
    "discarded",
    "drew",
    "drew_cards",
    "exited",
    "game_over",
];

/// The index of an event's `kind` in [`EVENT_KINDS`].
pub fn event_kind_index(e: &EventKind) -> usize {
    match e {
        EventKind::Dealt { .. } => 0,
        EventKind::DealtHand { .. } => 1,
        EventKind::FirstAttacker { .. } => 2,
        EventKind::TurnStarted { .. } => 3,
        EventKind::Exchanged { .. } => 4,
        EventKind::Attacked { .. } => 5,
        EventKind::Defended { .. } => 6,
        EventKind::Takes { .. } => 7,
        EventKind::Added { .. } => 8,
        EventKind::Passed { .. } => 9,
        EventKind::PickedUp { .. } => 10,
        EventKind::Discarded { .. } => 11,
        EventKind::Drew { .. } => 12,
        EventKind::DrewCards { .. } => 13,
        EventKind::Exited { .. } => 14,
        EventKind::GameOver { .. } => 15,
    }
}

/// An event's `kind`, as its JSON says.
pub fn event_kind_name(e: &EventKind) -> &'static str {
    EVENT_KINDS[event_kind_index(e)]
}

/// An event's JSON object (`kind` plus its fields).
pub fn event_json(e: &EventKind) -> Value {
    serde_json::to_value(EventSer(e)).expect("json")
}

struct SuitSer(Suit);

impl Serialize for SuitSer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = [self.0.letter() as u8];
        s.serialize_str(std::str::from_utf8(&b).expect("ascii"))
    }
}

struct TableSer<'a>(&'a [(Card, Option<Card>)]);

impl Serialize for TableSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for &(a, d) in self.0 {
            seq.serialize_element(&TableSlot(a, d))?;
        }
        seq.end()
    }
}

struct TableSlot(Card, Option<Card>);

impl Serialize for TableSlot {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("attack", &CardSer(self.0))?;
        m.serialize_entry("defence", &self.1.map(CardSer))?;
        m.end()
    }
}

struct KnownSer<'a>(&'a [CardSet]);

impl Serialize for KnownSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for k in self.0 {
            seq.serialize_element(&Cards(*k))?;
        }
        seq.end()
    }
}

/// A seat's observation (exactly the engine's [`Observation`], I-1 and I-2).
pub struct ObservationSer<'a>(pub &'a Observation);

impl Serialize for ObservationSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let mut m = s.serialize_map(Some(18))?;
        m.serialize_entry("seat", &o.seat)?;
        m.serialize_entry("variant", o.variant.name())?;
        m.serialize_entry("players", &o.players)?;
        m.serialize_entry("dealer", &o.dealer)?;
        m.serialize_entry("hand", &Cards(o.hand))?;
        m.serialize_entry("hand_counts", &o.hand_counts)?;
        m.serialize_entry("known", &KnownSer(&o.known))?;
        m.serialize_entry("active", &o.active)?;
        m.serialize_entry("trump_suit", &SuitSer(o.trump_suit))?;
        m.serialize_entry("trump_card", &CardSer(o.trump_card))?;
        m.serialize_entry("trump_card_in_stock", &o.trump_card_in_stock)?;
        m.serialize_entry("stock", &o.stock)?;
        m.serialize_entry("discard", &Cards(o.discard))?;
        m.serialize_entry("table", &TableSer(&o.table))?;
        m.serialize_entry("attacker", &o.attacker)?;
        m.serialize_entry("defender", &o.defender)?;
        m.serialize_entry("limit", &o.limit)?;
        m.serialize_entry("taking", &o.taking)?;
        m.end()
    }
}

/// A seat's observation as JSON.
pub fn observation_json(o: &Observation) -> Value {
    serde_json::to_value(ObservationSer(o)).expect("json")
}

struct ExchangeSer(Option<Exchange>);

impl Serialize for ExchangeSer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(x) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("six", &CardSer(x.six))?;
                m.serialize_entry("trump_card", &CardSer(x.trump_card))?;
                m.end()
            }
            None => s.serialize_none(),
        }
    }
}

struct ToBeatSer<'a>(&'a [ToBeat]);

impl Serialize for ToBeatSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for t in self.0 {
            seq.serialize_element(&ToBeatOne(t))?;
        }
        seq.end()
    }
}

struct ToBeatOne<'a>(&'a ToBeat);

impl Serialize for ToBeatOne<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("attack", &CardSer(self.0.attack))?;
        m.serialize_entry("beaters", &Cards(self.0.beaters))?;
        m.end()
    }
}

struct SizesSer(u8);

impl Serialize for SizesSer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for k in 1..8u8 {
            if self.0 >> k & 1 == 1 {
                seq.serialize_element(&k)?;
            }
        }
        seq.end()
    }
}

/// The compact legal choices, by decision kind.
pub struct LegalSer<'a>(pub &'a Legal);

impl Serialize for LegalSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let l = self.0;
        let mut m = s.serialize_map(None)?;
        match l.decision.kind {
            DecisionKind::Attack => {
                m.serialize_entry("hand", &Cards(l.hand))?;
                m.serialize_entry("sizes", &SizesSer(l.attack_sizes))?;
                m.serialize_entry("same_rank", &l.same_rank)?;
                m.serialize_entry("exchange", &ExchangeSer(l.exchange))?;
            }
            DecisionKind::Defend => {
                m.serialize_entry("to_beat", &ToBeatSer(&l.to_beat))?;
                m.serialize_entry(
                    "to_beat_after_exchange",
                    &ToBeatSer(&l.to_beat_after_exchange),
                )?;
                m.serialize_entry("exchange", &ExchangeSer(l.exchange))?;
                m.serialize_entry("must_cover_all", &l.must_cover_all)?;
                m.serialize_entry("can_cover", &l.can_cover)?;
                m.serialize_entry("can_take", &l.can_take)?;
            }
            DecisionKind::Add => {
                m.serialize_entry("addable", &Cards(l.addable))?;
                m.serialize_entry("room", &l.room)?;
                m.serialize_entry("after_take", &l.decision.after_take)?;
            }
        }
        m.end()
    }
}

/// The compact legal choices as JSON, by decision kind.
pub fn legal_json(l: &Legal) -> Value {
    serde_json::to_value(LegalSer(l)).expect("json")
}

/// A move as the `action` fields of an answer (without `type` and `id`).
pub struct MoveSer<'a>(pub &'a Move);

impl MoveSer<'_> {
    fn entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        match *self.0 {
            Move::Attack { cards, exchange } => {
                m.serialize_entry("action", "attack")?;
                m.serialize_entry("cards", &Cards(cards))?;
                m.serialize_entry("exchange", &exchange)?;
            }
            Move::Defend {
                ref pairs,
                exchange,
            } => {
                m.serialize_entry("action", "defend")?;
                m.serialize_entry("pairs", &PairsSer(pairs))?;
                m.serialize_entry("exchange", &exchange)?;
            }
            Move::Take => m.serialize_entry("action", "take")?,
            Move::Add { cards } => {
                m.serialize_entry("action", "add")?;
                m.serialize_entry("cards", &Cards(cards))?;
            }
            Move::Pass => m.serialize_entry("action", "pass")?,
        }
        Ok(())
    }
}

impl Serialize for MoveSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.entries(&mut m)?;
        m.end()
    }
}

/// A move as the `action` fields of an answer (without `type` and `id`).
pub fn move_json(m: &Move) -> Map<String, Value> {
    match serde_json::to_value(MoveSer(m)).expect("json") {
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

/// An `event` message (serializes without building a `Value`).
#[derive(Serialize)]
pub struct EventMsg<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    game: u32,
    event: EventSer<'a>,
}

pub fn event(game: u32, e: &EventKind) -> EventMsg<'_> {
    EventMsg {
        kind: "event",
        game,
        event: EventSer(e),
    }
}

#[derive(Serialize)]
struct TimeSer {
    move_ms: u64,
    bank_ms: u64,
}

/// A `request` message (serializes without building a `Value`).
#[derive(Serialize)]
pub struct RequestMsg<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: u64,
    game: u32,
    decision: &'static str,
    time: TimeSer,
    observation: ObservationSer<'a>,
    legal: LegalSer<'a>,
}

pub fn request<'a>(
    id: u64,
    game: u32,
    legal: &'a Legal,
    obs: &'a Observation,
    move_ms: u64,
    bank_ms: u64,
) -> RequestMsg<'a> {
    RequestMsg {
        kind: "request",
        id,
        game,
        decision: legal.decision.kind.name(),
        time: TimeSer { move_ms, bank_ms },
        observation: ObservationSer(obs),
        legal: LegalSer(legal),
    }
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

/// Whether nobody could play: every one of `players` seats faulted before play (each forfeited
/// or failed to start). Such a game is a draw, and says nothing of skill. The first faulting
/// seat is the durak otherwise (a game ends at its first fault once play has begun).
pub fn nobody_played(players: usize, faulted: impl IntoIterator<Item = Seat>) -> bool {
    let mut seen = vec![false; players];
    for s in faulted {
        if let Some(x) = seen.get_mut(s) {
            *x = true;
        }
    }
    players > 0 && seen.iter().all(|&x| x)
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

/// An answer must echo the id of the open request (fault `schema`, at `/id`).
pub fn check_answer_id(answer_id: u64, open: u64) -> Result<(), Refusal> {
    if answer_id == open {
        return Ok(());
    }
    Err(Refusal {
        kind: FaultKind::Schema,
        rule: None,
        pointer: Some("/id".into()),
        message: format!(
            "/id: the answer is for request {answer_id}, but the open request is {open} \
             (answer each request once, echoing its id)"
        ),
    })
}

/// The `id` of an answer, which must be a request id: a whole number from 0 to 2^64 - 1, written
/// without a fraction or an exponent, as the request wrote it. Anything else (`6.0`, `"6"`, `-1`,
/// `1e3`, `18446744073709551616`) is refused (fault `schema`, at `/id`), saying what came. A
/// missing id is left to the schema (`missing field "id"`).
fn answer_id(v: &Value) -> Result<Option<u64>, Refusal> {
    let Some(id) = v.get("id") else {
        return Ok(None);
    };
    if let Some(n) = id.as_u64() {
        return Ok(Some(n));
    }
    let what = match id {
        Value::Number(n) => match n.as_f64() {
            _ if n.is_i64() => "a negative number".to_string(),
            Some(f) if f < 0.0 => "a negative number".to_string(),
            // 2^64 and above: as_u64 fails on them, and they are read as floats.
            Some(f) if f.fract() == 0.0 && f >= u64::MAX as f64 => {
                "a number larger than any request id (the largest is 2^64 - 1)".to_string()
            }
            Some(f) if f.fract() == 0.0 => {
                "a number written with a fraction or an exponent".to_string()
            }
            _ => "a number with a fraction".to_string(),
        },
        Value::String(_) => "a string".to_string(),
        Value::Bool(_) => "a boolean".to_string(),
        Value::Null => "null".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    };
    let shown: String = id.to_string().chars().take(60).collect();
    Err(Refusal {
        kind: FaultKind::Schema,
        rule: None,
        pointer: Some("/id".into()),
        message: format!(
            "/id: got {shown}, {what}; a request id is a whole number (like 6), copied unchanged \
             from the \"id\" of the request being answered"
        ),
    })
}

/// Validate an answer and read its request id and move. Rule checks come after, in the engine.
pub fn parse_answer(v: &Value) -> Result<(u64, Move), Refusal> {
    let id = answer_id(v)?;
    check_schema(Schema::Answer, v)?;
    let id = id.expect("the schema requires an id");
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

/// Decode a request's decision and legal choices into the engine's [`Legal`], with the view its
/// move is judged by ([`Legal::allows`]: the referee's judgement, from the observation).
pub fn legal_from_request(req: &Value) -> Result<Legal, crate::DecodeError> {
    crate::bot::legal_from_value(req)
}

/// The trump suit of a request's observation.
pub fn trump_from_request(req: &Value) -> Option<Suit> {
    req["observation"]["trump_suit"]
        .as_str()
        .and_then(|s| s.chars().next())
        .and_then(Suit::from_letter)
}

/// An answer line for request `id`.
pub fn answer(id: u64, m: &Move) -> AnswerMsg<'_> {
    AnswerMsg { id, mv: MoveSer(m) }
}

/// An `answer` message (serializes without building a `Value`).
pub struct AnswerMsg<'a> {
    id: u64,
    mv: MoveSer<'a>,
}

impl Serialize for AnswerMsg<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", "answer")?;
        m.serialize_entry("id", &self.id)?;
        self.mv.entries(&mut m)?;
        m.end()
    }
}

/// A bot's hello line.
pub fn bot_hello(name: &str, version: &str) -> Value {
    json!({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fault kind is read back from its name (as results and replays write it, the same
    /// as serde's); an unknown name is an error naming the known ones, or `crash` for a reader
    /// that must have a kind.
    #[test]
    fn fault_kinds_from_their_names() {
        for k in FaultKind::ALL {
            assert_eq!(k.name().parse::<FaultKind>(), Ok(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
            assert_eq!(FaultKind::from_recorded(k.name()), k);
        }
        let e = "referee".parse::<FaultKind>().unwrap_err();
        assert_eq!(e, UnknownFaultKind("referee".into()));
        assert!(e.to_string().contains("one of timeout, crash,"), "{e}");
        assert_eq!(FaultKind::from_recorded("gremlins"), FaultKind::Crash);
    }

    #[test]
    fn event_kind_names_are_the_kinds_sent() {
        use durak_rules::{Game, Setup};
        // Every kind that random games produce, named as its JSON names it.
        let mut seen = [false; 16];
        for seed in 0..40u64 {
            for (variant, players) in [(Variant::Prostoy, 2), (Variant::Podkidnoy, 3)] {
                let setup = Setup {
                    variant,
                    players,
                    dealer: 0,
                    first_game: true,
                };
                let mut g = Game::new(setup, seed).unwrap();
                let mut rng = durak_rules::random::SmallRng::new(seed);
                let mut events = g.start_events();
                while let Some(l) = g.legal() {
                    for e in events.drain(..) {
                        let v = event_json(&e.kind);
                        assert_eq!(v["kind"], event_kind_name(&e.kind), "{v}");
                        seen[event_kind_index(&e.kind)] = true;
                    }
                    let m = durak_rules::random::random_move(&l, &mut rng);
                    g.apply_into(l.decision.seat, &m, &mut events).unwrap();
                }
                for e in events.drain(..) {
                    assert_eq!(event_json(&e.kind)["kind"], event_kind_name(&e.kind));
                    seen[event_kind_index(&e.kind)] = true;
                }
            }
        }
        let missing: Vec<_> = (0..16)
            .filter(|&i| !seen[i])
            .map(|i| EVENT_KINDS[i])
            .collect();
        assert!(missing.is_empty(), "never produced: {missing:?}");
    }

    #[test]
    fn nobody_played_only_when_every_seat_faulted() {
        assert!(nobody_played(2, [1, 0]));
        assert!(nobody_played(3, [0, 2, 1, 2]));
        assert!(!nobody_played(3, [0, 2]));
        assert!(!nobody_played(2, []));
        assert!(!nobody_played(2, [0, 0]));
    }

    /// An id that is not a whole number as the request wrote it is refused as what it is, not
    /// read as request 0.
    #[test]
    fn an_id_that_is_not_a_request_id_says_what_it_is() {
        let cases = [
            (
                "6.0",
                "got 6.0, a number written with a fraction or an exponent",
            ),
            (
                "1e3",
                "got 1000.0, a number written with a fraction or an exponent",
            ),
            ("6.5", "got 6.5, a number with a fraction"),
            ("\"6\"", "got \"6\", a string"),
            ("-1", "got -1, a negative number"),
            ("-1e30", "a negative number"),
            (
                "18446744073709551616",
                "a number larger than any request id (the largest is 2^64 - 1)",
            ),
            ("null", "got null, null"),
            ("true", "got true, a boolean"),
            ("[6]", "got [6], an array"),
        ];
        for (id, want) in cases {
            let line = format!(r#"{{"type":"answer","id":{id},"action":"take"}}"#);
            let v = parse_line(line.as_bytes()).unwrap();
            let r = parse_answer(&v).unwrap_err();
            assert_eq!(
                (r.kind, r.pointer.as_deref()),
                (FaultKind::Schema, Some("/id")),
                "{id}"
            );
            assert!(r.message.contains(want), "{id}: {}", r.message);
            assert!(
                r.message.contains("a request id is a whole number")
                    && r.message
                        .contains("copied unchanged from the \"id\" of the request"),
                "{id}: {}",
                r.message
            );
            assert!(!r.message.contains("request 0"), "{id}: {}", r.message);
        }
        // Whole numbers are ids, up to the largest.
        for id in ["0", "6", "18446744073709551615"] {
            let line = format!(r#"{{"type":"answer","id":{id},"action":"take"}}"#);
            let (got, mv) = parse_answer(&parse_line(line.as_bytes()).unwrap()).unwrap();
            assert_eq!((got.to_string(), mv), (id.to_string(), Move::Take));
        }
        // A missing id is the schema's to say.
        let v = parse_line(br#"{"type":"answer","action":"take"}"#).unwrap();
        let r = parse_answer(&v).unwrap_err();
        assert!(r.message.contains("missing field \"id\""), "{}", r.message);
    }

    #[test]
    fn an_answer_to_another_request_is_a_schema_fault_at_id() {
        assert!(check_answer_id(7, 7).is_ok());
        let r = check_answer_id(6, 7).unwrap_err();
        assert_eq!(
            (r.kind, r.pointer.as_deref()),
            (FaultKind::Schema, Some("/id"))
        );
        assert!(r.message.contains("request 6") && r.message.contains("open request is 7"));
    }
}
