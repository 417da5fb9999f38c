//! The compact data of one game's page: what `viewer.js` turns back into the [`StepView`] of
//! every step, for the full view and each seat's view.
//!
//! A page used to embed every precomputed view (100–190 KB a game). This holds instead the state
//! at the first step and, for each step, what happened since the previous one in a few letters
//! (the engine's events, the decision, the legal choices, the answer, its time), plus the few
//! texts no fold can give (faults, refused answers, stderr, notes) — a few KB a game. The script
//! replays the events on the first step's state (cards move between hands, the table, the stock
//! and the discard: bookkeeping, no rule), writes the words, and filters what a seat may not see.
//! `tests/viewer_data.rs` checks that its views equal [`step_view`]'s, field by field, on every
//! fixture and on fresh games of every variant and table size.
//!
//! Every text a bot wrote is taken from [`StepView::escaped`]; seat names are escaped too.
//!
//! ## Encoding (version [`DATA_VERSION`])
//!
//! Cards are their protocol codes (`TD`), lists of cards the codes run together (`TD6S`).
//! A step is one string of fields separated by `;`, trailing empty ones left out: the replay
//! line less the previous step's, the events (separated by spaces), the decision, the legal
//! choices, the move, the request (`+`: the next id with the same limits; else
//! `id,move_ms,bank_ms`, or `id` when it announced no limits), the time (ms, rounded as the
//! views write it: `12.3`). A step that has more is an array: that string, then an object of
//! what few steps have (`rf` a refused answer, `f` faults, `n` a note, `se` stderr). A stderr text is `[seat, text]` when it came
//! after the step's own request, else `[seat, text, at]` with `at` `"s"` (before the first
//! request), `"e"` (after the game), a request id, or `""` (an older replay: the whole stderr).
//! The publicly known cards (I-1) are not stored: the first step's are in the state, and the
//! script follows them through the events (cards picked up, shown, the trump card drawn or
//! exchanged, cards played).
//!
//! Events are strings: a letter, then fields; `@S` in front marks an event only seat `S` saw.
//! The events a step's answer caused first (the exchange, then the attack, defence, take, add
//! or pass: what the move says) are left out of the next step's events, which the script puts
//! back from the move; a step whose events do not start so (never from the engine) starts with
//! `!` and holds them all.
//!
//! | event | string |
//! | --- | --- |
//! | dealt | `D` dealer, hand size, trump card, stock (`D06KS24`) |
//! | dealt_hand | `H` seat, cards |
//! | first_attacker | `F` seat, the trump shown (`F17S`, `F1`) |
//! | turn_started | `T` attacker, defender, limit (`T106`, `T10`) |
//! | exchanged | `X` seat, six, trump card |
//! | attacked / added | `A` / `+` seat, cards |
//! | defended | `B` seat, pairs (attack then defence: `B0JC8S`) |
//! | takes / passed / exited | `K` / `P` / `O` seat |
//! | picked_up | `U` seat, cards |
//! | discarded | `C` cards |
//! | drew | `W` seat, count, the trump card if it was the last (`W16`, `W12KS`) |
//! | drew_cards | `w` seat, cards |
//! | drew, then the drawer's drew_cards | `Y` seat, cards, `^` and the trump card if it was the last (`Y1ACKS^KS`) |
//! | game_over | `G` loser or `-` |
//!
//! A decision is seat, `a`/`d`/`+` (attack, defend, add), then `t` after a take and `f` when
//! forced (R-1). A move: `a` attack, `d` defend, `+` add, `t` take, `p` pass, then `x` for the
//! trump-six exchange, then its cards (defend: pairs). Legal choices: `a|SIZES|r|XCH` (attack:
//! the sizes as digits, `r` for one rank, the exchange as six then trump card), `d|XCH|A1B1B2,A2`
//! (defend: each attack card then the cards that beat it), `+|ROOM|CARDS` (add).
//!
//! The endgame's values (issue 26, `durak analyze`), when the page was made with them, are `eg`:
//! one string per decision of the solved part, the step (0-based), then the value for the seat
//! deciding before its move and after it, each `w`, `d`, `l` (win, draw, loss) or `?` (not solved
//! within the budget), then, for a blunder (the value after below the value before), `|` and up to
//! [`BEST_SHOWN`] of its best choices as moves (`14wl|a6S|a7S`). The script takes the seat from
//! the step's decision.

use crate::analyze::{Analysis, Decision};
use crate::read::StderrAt;
use crate::sim::{Simulation, StderrText};
use crate::view::{result_text, sorted_hand, FaultView, RefusedView, StderrView, StepView};
use durak_protocol::text::escape_controls;
use durak_rules::{Audience, Card, CardSet, DecisionKind, Event, EventKind, Legal, Move, Seat};
use serde::Serialize;
use serde_json::Value;

/// The version of the encoding; `viewer.js` refuses data of another.
pub const DATA_VERSION: u32 = 4;

/// The state at the first step (after its events), which later steps' events change.
#[derive(Clone, Debug, Serialize)]
pub struct InitState {
    /// Each seat's hand, sorted for display (trumps last).
    pub hands: Vec<String>,
    /// The stock in drawing order.
    pub stock: String,
    pub trump_card: String,
    pub trump_suit: String,
    pub trump_in_stock: bool,
    pub discard: String,
    /// Attack card then defence card, if any.
    pub table: Vec<String>,
    pub attacker: Seat,
    pub defender: Seat,
    pub limit: Option<usize>,
    pub taking: bool,
    pub active: Vec<bool>,
    /// The cards publicly known to be in each hand (I-1), sorted as hands are.
    pub known: Vec<String>,
}

/// One step in a few letters; absent fields are "none" or "as before". Serialized as the string
/// `line;events;decision;legal;move;request;time`, trailing empties left out, or, when `rest`
/// holds something, `[that string, rest]` (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct StepData {
    /// The replay line the step starts at, less the previous step's.
    pub l: usize,
    /// The events since the previous step, separated by spaces.
    pub e: String,
    pub d: Option<String>,
    pub g: Option<String>,
    pub m: Option<String>,
    /// The request: `+` for the id after the previous request's with the same limits, else
    /// `id,move_ms,bank_ms` (or `id` when it announced no limits).
    pub q: Option<String>,
    /// The answer's time in ms, rounded as the views write it.
    pub t: Option<String>,
    pub rest: Rest,
}

/// What few steps have.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rest {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rf: Option<RefusedView>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub f: Vec<FaultView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub se: Vec<Value>,
    /// The decision clock beyond the wall time, when the referee read it (docs/PROTOCOL.md,
    /// "Time limits"): ", 204 ms its own, CPU 200 ms, waited for a CPU 408 ms".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
}

impl StepData {
    /// The step's fields as one string (see the module documentation).
    pub fn fields(&self) -> String {
        let none = String::new();
        let mut v = vec![
            self.l.to_string(),
            self.e.clone(),
            self.d.clone().unwrap_or_default(),
            self.g.clone().unwrap_or_default(),
            self.m.clone().unwrap_or_default(),
            self.q.clone().unwrap_or_default(),
            self.t.clone().unwrap_or_default(),
        ];
        while v.len() > 1 && v.last() == Some(&none) {
            v.pop();
        }
        v.join(";")
    }
}

impl Serialize for StepData {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        if self.rest == Rest::default() {
            self.fields().serialize(ser)
        } else {
            (self.fields(), &self.rest).serialize(ser)
        }
    }
}

/// Everything a game's page shows (the header, seeds and verdict are in the page's HTML).
#[derive(Clone, Debug, Serialize)]
pub struct GameData {
    pub v: u32,
    pub variant: &'static str,
    pub players: usize,
    /// Seat labels, escaped.
    pub names: Vec<String>,
    /// The seats as the texts name them (`Header::seat_name`), escaped.
    pub seat_names: Vec<String>,
    pub result: String,
    pub loser: Option<Seat>,
    /// False when the game never started (a fault before the deal).
    pub started: bool,
    pub init: InitState,
    pub steps: Vec<StepData>,
    /// The endgame's values ([`endgame_codes`]); absent when the page was made without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub eg: Vec<String>,
}

/// The best choices a blunder's entry lists (of the `best` of [`Decision`]).
pub const BEST_SHOWN: usize = 3;

fn value_letter(v: &Result<durak_rules::solve::Value, durak_rules::solve::Unsolved>) -> char {
    use durak_rules::solve::Value;
    match v {
        Ok(Value::Win) => 'w',
        Ok(Value::Draw) => 'd',
        Ok(Value::Loss) => 'l',
        Err(_) => '?',
    }
}

/// The endgame's values as the page holds them (`eg`, see the module documentation).
pub fn endgame_codes(a: &Analysis) -> Vec<String> {
    a.decisions.iter().map(endgame_code).collect()
}

fn endgame_code(d: &Decision) -> String {
    let mut s = format!(
        "{}{}{}",
        d.step.saturating_sub(1),
        value_letter(&d.value),
        value_letter(&d.value_after)
    );
    if d.blunder() {
        for m in d.best.iter().take(BEST_SHOWN) {
            s.push('|');
            s.push_str(&move_code(m));
        }
    }
    s
}

fn cards(s: impl IntoIterator<Item = Card>) -> String {
    s.into_iter().map(|c| c.to_string()).collect()
}

fn set(s: CardSet) -> String {
    cards(s.iter())
}

fn seat_prefix(to: Audience) -> String {
    match to {
        Audience::All => String::new(),
        Audience::Seat(s) => format!("@{s}"),
    }
}

/// One event as its string (see the module's table).
pub fn event_code(e: &EventKind) -> String {
    match *e {
        EventKind::Dealt {
            dealer,
            trump_card,
            hand_size,
            stock,
        } => format!("D{dealer}{hand_size}{trump_card}{stock}"),
        EventKind::DealtHand { seat, cards } => format!("H{seat}{}", set(cards)),
        EventKind::FirstAttacker { seat, shown_trump } => format!(
            "F{seat}{}",
            shown_trump.map(|c| c.to_string()).unwrap_or_default()
        ),
        EventKind::TurnStarted {
            attacker,
            defender,
            limit,
        } => format!(
            "T{attacker}{defender}{}",
            limit.map(|l| l.to_string()).unwrap_or_default()
        ),
        EventKind::Exchanged {
            seat,
            six,
            trump_card,
        } => format!("X{seat}{six}{trump_card}"),
        EventKind::Attacked { seat, cards } => format!("A{seat}{}", set(cards)),
        EventKind::Defended { seat, pairs } => format!(
            "B{seat}{}",
            pairs
                .iter()
                .map(|(a, d)| format!("{a}{d}"))
                .collect::<String>()
        ),
        EventKind::Takes { seat } => format!("K{seat}"),
        EventKind::Added { seat, cards } => format!("+{seat}{}", set(cards)),
        EventKind::Passed { seat } => format!("P{seat}"),
        EventKind::PickedUp { seat, cards } => format!("U{seat}{}", set(cards)),
        EventKind::Discarded { cards } => format!("C{}", set(cards)),
        EventKind::Drew {
            seat,
            count,
            trump_card,
        } => format!(
            "W{seat}{count}{}",
            trump_card.map(|c| c.to_string()).unwrap_or_default()
        ),
        EventKind::DrewCards { seat, cards } => format!("w{seat}{}", set(cards)),
        EventKind::Exited { seat } => format!("O{seat}"),
        EventKind::GameOver { loser } => {
            format!("G{}", loser.map(|l| l.to_string()).unwrap_or("-".into()))
        }
    }
}

/// The events a move makes first, as their strings: the exchange, then the move's own event.
fn move_events(seat: Seat, mv: &Move, legal: Option<&Legal>) -> Vec<String> {
    let mut out = Vec::new();
    let exchange = match *mv {
        Move::Attack { exchange, .. } | Move::Defend { exchange, .. } => exchange,
        _ => false,
    };
    if exchange {
        match legal.and_then(|l| l.exchange) {
            Some(x) => out.push(format!("X{seat}{}{}", x.six, x.trump_card)),
            None => out.push("?".into()), // matches no event: the step keeps them all
        }
    }
    out.push(match *mv {
        Move::Attack { cards, .. } => format!("A{seat}{}", set(cards)),
        Move::Defend { pairs, .. } => format!(
            "B{seat}{}",
            pairs
                .iter()
                .map(|(a, d)| format!("{a}{d}"))
                .collect::<String>()
        ),
        Move::Take => format!("K{seat}"),
        Move::Add { cards } => format!("+{seat}{}", set(cards)),
        Move::Pass => format!("P{seat}"),
    });
    out
}

/// A step's events less those the previous step's move made (`made`), or all of them after a
/// `!` when they do not start with those.
fn events_after(events: &[Event], made: Option<Vec<String>>) -> String {
    let codes = events_codes(events);
    match made {
        None => codes.join(" "),
        Some(m) if codes.starts_with(&m) => codes[m.len()..].join(" "),
        Some(_) => format!("!{}", codes.join(" ")),
    }
}

/// A step's events as strings; a public `drew` followed by the drawer's own `drew_cards`
/// (always so from the engine) is one `Y` event: seat, cards, then `^` and the trump card when
/// the last card drawn was it.
fn events_codes(events: &[Event]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let e = &events[i];
        if let (
            Audience::All,
            EventKind::Drew {
                seat,
                count,
                trump_card,
            },
        ) = (e.to, &e.kind)
        {
            if let Some(Event {
                to: Audience::Seat(s2),
                kind: EventKind::DrewCards { seat: s3, cards },
            }) = events.get(i + 1)
            {
                if s2 == s3 && s3 == seat && cards.len() == *count {
                    out.push(format!(
                        "Y{seat}{}{}",
                        set(*cards),
                        trump_card.map(|t| format!("^{t}")).unwrap_or_default()
                    ));
                    i += 2;
                    continue;
                }
            }
        }
        out.push(format!("{}{}", seat_prefix(e.to), event_code(&e.kind)));
        i += 1;
    }
    out
}

fn kind_letter(k: DecisionKind) -> char {
    match k {
        DecisionKind::Attack => 'a',
        DecisionKind::Defend => 'd',
        DecisionKind::Add => '+',
    }
}

fn exchange_code(l: &Legal) -> String {
    l.exchange
        .map(|x| format!("{}{}", x.six, x.trump_card))
        .unwrap_or_default()
}

/// The legal choices as a string (see the module's documentation).
pub fn legal_code(l: &Legal) -> String {
    match l.decision.kind {
        DecisionKind::Attack => format!(
            "a|{}|{}|{}",
            l.attack_size_list()
                .iter()
                .map(|k| k.to_string())
                .collect::<String>(),
            if l.same_rank { "r" } else { "" },
            exchange_code(l)
        ),
        DecisionKind::Defend => format!(
            "d|{}|{}",
            exchange_code(l),
            l.to_beat
                .iter()
                .map(|t| format!("{}{}", t.attack, set(t.beaters)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        DecisionKind::Add => format!("+|{}|{}", l.room, set(l.addable)),
    }
}

/// A move as a string (see the module's documentation).
pub fn move_code(m: &Move) -> String {
    let x = |e: bool| if e { "x" } else { "" };
    match *m {
        Move::Attack { cards, exchange } => format!("a{}{}", x(exchange), set(cards)),
        Move::Defend { pairs, exchange } => format!(
            "d{}{}",
            x(exchange),
            pairs
                .iter()
                .map(|(a, d)| format!("{a}{d}"))
                .collect::<String>()
        ),
        Move::Take => "t".into(),
        Move::Add { cards } => format!("+{}", set(cards)),
        Move::Pass => "p".into(),
    }
}

/// The time as the views write it, without the unit and the zeros that end a decimal
/// (`viewer.js` writes them back: no decimals from 100 ms, else 1, or 3 below 1 ms).
fn time_text(ms: f64) -> String {
    let s = crate::view::fmt_ms(ms);
    let s = s.trim_end_matches(" ms");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// A stderr text: `[seat, text]` when it came after the step's own request, else with where it
/// came (see the module documentation).
fn stderr_value(t: &StderrText, v: &StderrView, request: Option<u64>) -> Value {
    let at = match t.at {
        Some(StderrAt::Request(id)) if Some(id) == request => None,
        Some(StderrAt::Request(id)) => Some(Value::from(id)),
        Some(StderrAt::Start) => Some(Value::from("s")),
        Some(StderrAt::End) => Some(Value::from("e")),
        None => Some(Value::from("")),
    };
    let mut a = vec![Value::from(v.seat), Value::from(v.text.as_str())];
    a.extend(at);
    Value::from(a)
}

fn init_state(sim: &Simulation) -> InitState {
    let step = &sim.steps[0];
    let g = &step.state;
    let o = g.observation(0);
    let n = sim.header.players;
    InitState {
        hands: (0..n)
            .map(|s| cards(sorted_hand(g.hand(s), g.trump())))
            .collect(),
        stock: cards(g.stock_cards().iter().copied()),
        trump_card: o.trump_card.to_string(),
        trump_suit: g.trump().letter().to_string(),
        trump_in_stock: o.trump_card_in_stock,
        discard: set(o.discard),
        table: o
            .table
            .iter()
            .map(|(a, d)| format!("{a}{}", d.map(|c| c.to_string()).unwrap_or_default()))
            .collect(),
        attacker: o.attacker,
        defender: o.defender,
        limit: o.limit,
        taking: o.taking,
        active: (0..n).map(|s| g.is_active(s)).collect(),
        known: o
            .known
            .iter()
            .map(|k| cards(sorted_hand(*k, g.trump())))
            .collect(),
    }
}

/// The compact data of a game's page, from the full view of every step (escaped).
pub fn game_data(sim: &Simulation, views: &[StepView]) -> GameData {
    let h = &sim.header;
    let end = sim.end();
    let mut last_request: Option<(u64, Option<(u64, u64)>)> = None;
    let mut last_line = 0;
    let mut made: Option<Vec<String>> = None;
    let steps = sim
        .steps
        .iter()
        .zip(views)
        .map(|(step, v)| {
            // The texts the view shows (not empty), each beside its line of the replay.
            let texts = step
                .stderr
                .iter()
                .filter(|t| !t.text.is_empty() || t.dropped > 0);
            let se = texts
                .zip(&v.stderr)
                .map(|(t, sv)| stderr_value(t, sv, step.request.as_ref().map(|r| r.id)))
                .collect();
            let l = step.line - last_line.min(step.line);
            let e = events_after(&step.before, made.take());
            made = match (step.decision, &step.mv) {
                (Some(d), Some(mv)) => Some(move_events(d.seat, mv, step.legal.as_ref())),
                _ => None,
            };
            last_line = step.line;
            StepData {
                l,
                e,
                d: step.decision.map(|d| {
                    format!(
                        "{}{}{}{}",
                        d.seat,
                        kind_letter(d.kind),
                        if d.after_take { "t" } else { "" },
                        if step.forced { "f" } else { "" }
                    )
                }),
                g: step.legal.as_ref().map(legal_code),
                m: step.mv.as_ref().map(move_code),
                q: step.request.as_ref().map(|r| {
                    let limits = r.time.map(|t| (t.move_ms, t.bank_ms));
                    let same = last_request.is_some_and(|(id, l)| id + 1 == r.id && l == limits);
                    last_request = Some((r.id, limits));
                    match limits {
                        _ if same => "+".to_string(),
                        Some((m, b)) => format!("{},{m},{b}", r.id),
                        None => r.id.to_string(),
                    }
                }),
                t: v.elapsed_ms.map(time_text),
                rest: Rest {
                    rf: v.refused.clone(),
                    f: v.faults.clone(),
                    n: v.note.clone(),
                    se,
                    c: step.accounting.as_ref().map(crate::view::accounting_text),
                },
            }
        })
        .collect();
    GameData {
        v: DATA_VERSION,
        variant: h.variant.name(),
        players: h.players,
        names: (0..h.players)
            .map(|s| escape_controls(&h.seat_label(s)).into_owned())
            .collect(),
        seat_names: (0..h.players)
            .map(|s| escape_controls(&h.seat_name(s)).into_owned())
            .collect(),
        result: escape_controls(&result_text(h, end)).into_owned(),
        loser: end.loser,
        started: end.started,
        init: init_state(sim),
        steps,
        eg: Vec::new(),
    }
}
