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
//! Events are strings: a letter, then fields; `@S` in front marks an event only seat `S` saw:
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
//! | game_over | `G` loser or `-` |
//!
//! A decision is seat, `a`/`d`/`+` (attack, defend, add), then `t` after a take and `f` when
//! forced (R-1). A move: `a` attack, `d` defend, `+` add, `t` take, `p` pass, then `x` for the
//! trump-six exchange, then its cards (defend: pairs). Legal choices: `a|SIZES|r|XCH` (attack:
//! the sizes as digits, `r` for one rank, the exchange as six then trump card), `d|XCH|A1B1B2,A2`
//! (defend: each attack card then the cards that beat it), `+|ROOM|CARDS` (add).

use crate::sim::{Simulation, Step};
use crate::view::{result_text, sorted_hand, FaultView, RefusedView, StderrView, StepView};
use durak_protocol::text::escape_controls;
use durak_rules::{Card, CardSet, DecisionKind, EventKind, Legal, Move, Seat};
use serde::Serialize;

/// The version of the encoding; `viewer.js` refuses data of another.
pub const DATA_VERSION: u32 = 1;

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
}

/// One step in a few letters; absent fields are "none" or "as before".
#[derive(Clone, Debug, Default, Serialize)]
pub struct StepData {
    /// The replay line the step starts at.
    pub l: usize,
    /// The events since the previous step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub e: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub g: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<String>,
    /// The request: id, then its move and bank limits in ms when it announced them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q: Option<Vec<u64>>,
    /// The answer's time in ms, as the views write it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<String>,
    /// The publicly known cards of every seat (I-1), when they changed since the previous step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rf: Option<RefusedView>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub f: Vec<FaultView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub se: Vec<StderrView>,
}

/// Everything a game's page shows.
#[derive(Clone, Debug, Serialize)]
pub struct GameData {
    pub v: u32,
    pub source: String,
    pub variant: &'static str,
    pub players: usize,
    pub game: u32,
    /// Seeds as text: JavaScript numbers cannot hold every u64.
    pub seed: String,
    pub series_seed: String,
    pub dealer: Seat,
    /// Seat labels, escaped.
    pub names: Vec<String>,
    pub verified: bool,
    pub verdict: String,
    pub differs_at: Option<usize>,
    pub result: String,
    pub loser: Option<Seat>,
    /// False when the game never started (a fault before the deal).
    pub started: bool,
    pub init: InitState,
    pub steps: Vec<StepData>,
}

fn cards(s: impl IntoIterator<Item = Card>) -> String {
    s.into_iter().map(|c| c.to_string()).collect()
}

fn set(s: CardSet) -> String {
    cards(s.iter())
}

fn seat_prefix(to: durak_rules::Audience) -> String {
    match to {
        durak_rules::Audience::All => String::new(),
        durak_rules::Audience::Seat(s) => format!("@{s}"),
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

/// The time as the views write it, without the unit.
fn time_text(ms: f64) -> String {
    let s = crate::view::fmt_ms(ms);
    s.trim_end_matches(" ms").to_string()
}

fn known_of(step: &Step) -> Vec<String> {
    let g = &step.state;
    let o = g.observation(0);
    o.known
        .iter()
        .map(|k| cards(sorted_hand(*k, g.trump())))
        .collect()
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
    }
}

/// The compact data of a game's page, from the full view of every step (escaped).
pub fn game_data(sim: &Simulation, views: &[StepView]) -> GameData {
    let h = &sim.header;
    let end = sim.end();
    let mut known_before: Option<Vec<String>> = None;
    let steps = sim
        .steps
        .iter()
        .zip(views)
        .map(|(step, v)| {
            let known = known_of(step);
            let k = match &known_before {
                Some(prev) if *prev == known => None,
                None if known.iter().all(String::is_empty) => None,
                _ => Some(known.clone()),
            };
            known_before = Some(known);
            StepData {
                l: step.line,
                e: step
                    .before
                    .iter()
                    .map(|e| format!("{}{}", seat_prefix(e.to), event_code(&e.kind)))
                    .collect(),
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
                    let mut q = vec![r.id];
                    if let Some(t) = r.time {
                        q.extend([t.move_ms, t.bank_ms]);
                    }
                    q
                }),
                t: v.elapsed_ms.map(time_text),
                k,
                rf: v.refused.clone(),
                f: v.faults.clone(),
                n: v.note.clone(),
                se: v.stderr.clone(),
            }
        })
        .collect();
    GameData {
        v: DATA_VERSION,
        source: escape_controls(&sim.source).into_owned(),
        variant: h.variant.name(),
        players: h.players,
        game: h.game,
        seed: h.seed.to_string(),
        series_seed: h.series_seed.to_string(),
        dealer: h.dealer,
        names: (0..h.players)
            .map(|s| escape_controls(&h.seat_label(s)).into_owned())
            .collect(),
        verified: sim.verified(),
        verdict: crate::text::verdict(sim),
        differs_at: sim.divergence.as_ref().and_then(|d| d.step),
        result: escape_controls(&result_text(h, end)).into_owned(),
        loser: end.loser,
        started: end.started,
        init: init_state(sim),
        steps,
    }
}
