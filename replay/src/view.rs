//! What one step shows, for the full view or one seat's view: the data every viewer renders
//! (plain text, the terminal UI, the HTML page). A seat's view comes from the engine's
//! `Game::observation`, so it holds exactly what that seat could know at that moment (I-1, I-2).

use crate::read::{FaultRecord, Header, StderrAt};
use crate::sim::{Simulation, StderrText, Step};
use durak_protocol::text::{escape_controls, escape_controls_multiline};
use durak_protocol::FaultKind;
use durak_rules::{
    Audience, Card, CardSet, DecisionKind, EventKind, Legal, Move, Rank, Seat, Suit, Variant,
};
use serde::Serialize;
use std::borrow::Cow;

/// A card as people read it: `10♣`, `A♥`.
pub fn pretty_card(c: Card) -> String {
    let rank = match c.rank() {
        Rank::Ten => "10".to_string(),
        r => r.letter().to_string(),
    };
    format!("{rank}{}", suit_symbol(c.suit()))
}

pub fn suit_symbol(s: Suit) -> char {
    match s {
        Suit::Clubs => '♣',
        Suit::Diamonds => '♦',
        Suit::Hearts => '♥',
        Suit::Spades => '♠',
    }
}

/// Cards as people read them, separated by spaces; `none` for no card.
pub fn pretty_cards(s: impl IntoIterator<Item = Card>) -> String {
    let v: Vec<String> = s.into_iter().map(pretty_card).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

fn codes(s: impl IntoIterator<Item = Card>) -> Vec<String> {
    s.into_iter().map(|c| c.to_string()).collect()
}

/// A hand sorted for display: by suit, trumps last, then by rank.
pub fn sorted_hand(hand: CardSet, trump: Suit) -> Vec<Card> {
    let mut v: Vec<Card> = hand.iter().collect();
    v.sort_by_key(|c| (c.suit() == trump, c.suit() as u8, c.rank() as u8));
    v
}

/// Whose decision it was.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionView {
    pub seat: Seat,
    /// `attack`, `defend` or `add`.
    pub kind: String,
    /// Podkidnoy: the defender had declared that they take (K-9).
    pub after_take: bool,
    /// the referee played the only legal answer.
    pub forced: bool,
}

/// An answer the referee refused.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefusedView {
    /// The raw line; only in the full view and the answering seat's view.
    pub line: Option<String>,
    pub reason: String,
}

/// A fault in plain words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FaultView {
    pub seat: Seat,
    pub kind: String,
    pub rule: Option<String>,
    pub detail: String,
    /// One sentence: who, what, why.
    pub text: String,
    /// Who and what, without the details: "seat 1 loses by fault: did not answer in time".
    pub short: String,
}

/// What a bot wrote on stderr at this step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StderrView {
    pub seat: Seat,
    /// When it arrived, in words: "before its first request", "after request 7", "after the
    /// game"; empty for an older replay, which holds a process's whole stderr at the end.
    pub when: String,
    /// The text (as the bot wrote it: escape it before it goes to a terminal), and a last line
    /// saying how many bytes were dropped beyond the game's cap, if any.
    pub text: String,
}

/// An event in words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventView {
    pub text: String,
    /// Set for a private event: the one seat that saw it.
    pub private_to: Option<Seat>,
}

/// An attack card and the card that beat it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairView {
    pub attack: String,
    pub defence: Option<String>,
}

/// One seat at one step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatView {
    pub seat: Seat,
    pub name: String,
    /// The hand (card codes, sorted), or `None` when this view may not see it.
    pub hand: Option<Vec<String>>,
    pub count: usize,
    /// Cards publicly known to be in this hand (I-1).
    pub known: Vec<String>,
    pub active: bool,
    /// `attacker`, `defender`, or none.
    pub role: Option<String>,
    /// This seat had the decision.
    pub to_act: bool,
    /// This seat faulted (at this step or before the end).
    pub faulted: bool,
    /// The game is over and this seat lost.
    pub loser: bool,
}

impl SeatView {
    /// The seat's state in words, in the order the views print them: its role, `to act`,
    /// `out`, `durak`. A fault is left to each view to show as it sees fit.
    pub fn tags(&self) -> Vec<&str> {
        let mut tags = Vec::new();
        if let Some(r) = &self.role {
            tags.push(r.as_str());
        }
        if self.to_act {
            tags.push("to act");
        }
        if !self.active {
            tags.push("out");
        }
        if self.loser {
            tags.push("durak");
        }
        tags
    }
}

/// Everything one step shows in one view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepView {
    /// 1-based.
    pub step: usize,
    pub steps: usize,
    /// The replay line the step starts at.
    pub line: usize,
    /// `None`: the full view (every hand); else the seat whose view this is.
    pub viewer: Option<Seat>,
    /// One line: whose decision it was, or the end.
    pub title: String,
    pub decision: Option<DecisionView>,
    /// The legal choices in words (full view, or the deciding seat's view).
    pub legal: Option<String>,
    /// The legal choices as the protocol writes cards, for bot authors: "hand 6C 7D · sizes
    /// 1,2" (shown with `legal`).
    pub legal_codes: Option<String>,
    /// What was answered, in words (or the forced move).
    pub answer: Option<String>,
    /// The answer as the bot's line (docs/PROTOCOL.md), for a bot's answer to a request:
    /// `{"type":"answer","id":3,"action":"attack","cards":["TD"]}`.
    pub answer_line: Option<String>,
    /// How long the bot took, in milliseconds.
    pub elapsed_ms: Option<f64>,
    /// The time, in words: "answered in 0.47 ms (limit 1000 ms, bank 10000 ms)".
    pub timing: Option<String>,
    pub refused: Option<RefusedView>,
    pub faults: Vec<FaultView>,
    /// The events since the previous step that this view saw.
    pub events: Vec<EventView>,
    pub table: Vec<PairView>,
    pub seats: Vec<SeatView>,
    pub stock: usize,
    /// The stock in drawing order (full view only: hidden from every seat, I-3).
    pub stock_cards: Option<Vec<String>>,
    pub trump_card: String,
    pub trump_suit: String,
    /// False once the trump card has been drawn.
    pub trump_card_in_stock: bool,
    pub discard: Vec<String>,
    pub attacker: Seat,
    pub defender: Seat,
    /// Podkidnoy: the round's limit (K-3).
    pub limit: Option<usize>,
    /// Podkidnoy: the defender has declared that they take.
    pub taking: bool,
    /// The last step: how the game ended, in words.
    pub result: Option<String>,
    /// Where this replay differs from the re-simulation, at this step.
    pub note: Option<String>,
    /// What the bots wrote on stderr at this step (full view; a seat's view: its own only).
    pub stderr: Vec<StderrView>,
}

fn one_line(s: &mut String) {
    if let Cow::Owned(e) = escape_controls(s) {
        *s = e;
    }
}

impl StepView {
    /// The view with every text a bot could have written in it (names, refused lines, fault
    /// details, stderr, and anything else, to be safe) made inert for a terminal or a page: control
    /// characters and bidirectional overrides become visible escapes (`\e`, `\x07`, `\u{202e}`).
    /// stderr keeps its newlines and tabs; every other text is one line. What every viewer
    /// shows (text, terminal UI, HTML); the raw view is for programs.
    pub fn escaped(&self) -> StepView {
        let mut v = self.clone();
        one_line(&mut v.title);
        for t in [
            &mut v.legal,
            &mut v.answer,
            &mut v.timing,
            &mut v.result,
            &mut v.note,
        ]
        .into_iter()
        .flatten()
        {
            one_line(t);
        }
        if let Some(d) = v.decision.as_mut() {
            one_line(&mut d.kind);
        }
        if let Some(r) = v.refused.as_mut() {
            if let Some(l) = r.line.as_mut() {
                one_line(l);
            }
            one_line(&mut r.reason);
        }
        for f in &mut v.faults {
            for t in [&mut f.kind, &mut f.detail, &mut f.text, &mut f.short] {
                one_line(t);
            }
            if let Some(r) = f.rule.as_mut() {
                one_line(r);
            }
        }
        for e in &mut v.events {
            one_line(&mut e.text);
        }
        for s in &mut v.seats {
            one_line(&mut s.name);
            if let Some(r) = s.role.as_mut() {
                one_line(r);
            }
        }
        for e in &mut v.stderr {
            one_line(&mut e.when);
            if let Cow::Owned(t) = escape_controls_multiline(&e.text) {
                e.text = t;
            }
        }
        v
    }
}

fn seat_name(h: &Header, s: Seat) -> String {
    h.seat_name(s)
}

/// A fault kind, by its recorded name, in plain words; a name this build does not know (a newer
/// referee's) is "faulted", which claims nothing (not [`FaultKind::from_recorded`]'s `crash`:
/// words shown to people do not guess).
pub fn fault_words(kind: &str) -> &'static str {
    use FaultKind as K;
    match kind.parse::<FaultKind>() {
        Ok(K::Timeout) => "did not answer in time",
        Ok(K::Crash) => "crashed (its process ended)",
        Ok(K::Memory) => "used more memory than its limit",
        Ok(K::Closed) => "closed its output",
        Ok(K::Malformed) => "sent a line that is not JSON",
        Ok(K::Schema) => "sent a message of the wrong shape",
        Ok(K::Illegal) => "made an illegal move",
        Ok(K::LineTooLong) => "sent a line longer than the limit",
        Ok(K::StartFailed) => "could not be started",
        Ok(K::Forfeit) => "forfeited (disqualified earlier in the tournament)",
        Err(_) => "faulted",
    }
}

/// A fault as one sentence; `loses`: the fault cost this seat the game (the first fault does,
/// unless every seat faulted before play, which is a draw).
pub fn fault_text(h: &Header, f: &FaultRecord, loses: bool) -> String {
    let rule = f
        .rule
        .as_deref()
        .map(|r| format!(" (rule {r})"))
        .unwrap_or_default();
    format!(
        "{} {}: {}{rule}. {}",
        seat_name(h, f.seat),
        if loses { "loses by fault" } else { "faulted" },
        fault_words(&f.kind),
        f.detail
    )
}

fn fault_view(h: &Header, f: &FaultRecord, loser: Option<Seat>) -> FaultView {
    let loses = loser == Some(f.seat);
    FaultView {
        seat: f.seat,
        kind: f.kind.clone(),
        rule: f.rule.clone(),
        detail: f.detail.clone(),
        text: fault_text(h, f, loses),
        short: format!(
            "seat {} {}: {}",
            f.seat,
            if loses { "loses by fault" } else { "faulted" },
            fault_words(&f.kind)
        ),
    }
}

/// An event in words.
pub fn event_text(e: &EventKind, variant: Variant) -> String {
    match *e {
        EventKind::Dealt {
            dealer,
            trump_card,
            hand_size,
            stock,
        } => format!(
            "seat {dealer} deals {hand_size} cards each; the trump card is {}; {stock} cards \
             in the stock",
            pretty_card(trump_card)
        ),
        EventKind::DealtHand { seat, cards } => {
            format!("seat {seat} is dealt {}", pretty_cards(cards))
        }
        EventKind::FirstAttacker { seat, shown_trump } => match shown_trump {
            Some(c) => format!(
                "seat {seat} attacks first, showing the lowest trump {} (K-2)",
                pretty_card(c)
            ),
            None => format!("seat {seat} attacks first"),
        },
        EventKind::TurnStarted {
            attacker,
            defender,
            limit,
        } => match (variant, limit) {
            (Variant::Podkidnoy, Some(l)) => format!(
                "new round: seat {attacker} attacks seat {defender} (at most {l} attack cards)"
            ),
            _ => format!("new turn: seat {attacker} attacks seat {defender}"),
        },
        EventKind::Exchanged {
            seat,
            six,
            trump_card,
        } => format!(
            "seat {seat} exchanges {} for the trump card {} (P-4)",
            pretty_card(six),
            pretty_card(trump_card)
        ),
        EventKind::Attacked { seat, cards } => {
            format!("seat {seat} attacks with {}", pretty_cards(cards))
        }
        EventKind::Defended { seat, pairs } => {
            if pairs.is_empty() {
                format!("seat {seat} beats nothing")
            } else {
                let p: Vec<String> = pairs
                    .iter()
                    .map(|(a, d)| format!("{} with {}", pretty_card(a), pretty_card(d)))
                    .collect();
                format!("seat {seat} beats {}", p.join(", "))
            }
        }
        EventKind::Takes { seat } => format!("seat {seat} takes"),
        EventKind::Added { seat, cards } => {
            format!("seat {seat} adds {}", pretty_cards(cards))
        }
        EventKind::Passed { seat } => format!("seat {seat} passes"),
        EventKind::PickedUp { seat, cards } => {
            format!("seat {seat} picks up {}", pretty_cards(cards))
        }
        EventKind::Discarded { cards } => {
            format!("{} go to the discard", pretty_cards(cards))
        }
        EventKind::Drew {
            seat,
            count,
            trump_card,
        } => {
            let cards = if count == 1 { "card" } else { "cards" };
            match trump_card {
                Some(t) => format!(
                    "seat {seat} draws {count} {cards}, the last one the trump card {}",
                    pretty_card(t)
                ),
                None => format!("seat {seat} draws {count} {cards}"),
            }
        }
        EventKind::DrewCards { seat, cards } => {
            format!("seat {seat} draws {}", pretty_cards(cards))
        }
        EventKind::Exited { seat } => {
            format!("seat {seat} is out: no cards left and the stock is empty (C-8)")
        }
        EventKind::GameOver { loser } => match loser {
            Some(l) => format!("game over: seat {l} is the durak"),
            None => "game over: a draw".into(),
        },
    }
}

/// A move in words; `legal` gives the exchange's cards.
pub fn move_text(m: &Move, legal: Option<&Legal>) -> String {
    let exchange = |x: bool| {
        if !x {
            return String::new();
        }
        match legal.and_then(|l| l.exchange) {
            Some(e) => format!(
                "exchange {} for {}, then ",
                pretty_card(e.six),
                pretty_card(e.trump_card)
            ),
            None => "exchange the trump six, then ".into(),
        }
    };
    match *m {
        Move::Attack { cards, exchange: x } => {
            format!("{}attack with {}", exchange(x), pretty_cards(cards))
        }
        Move::Defend { pairs, exchange: x } => {
            if pairs.is_empty() {
                format!("{}beat nothing", exchange(x))
            } else {
                let p: Vec<String> = pairs
                    .iter()
                    .map(|(a, d)| format!("{} with {}", pretty_card(a), pretty_card(d)))
                    .collect();
                format!("{}beat {}", exchange(x), p.join(", "))
            }
        }
        Move::Take => "take".into(),
        Move::Add { cards } => format!("add {}", pretty_cards(cards)),
        Move::Pass => "pass".into(),
    }
}

fn or_list(v: &[usize]) -> String {
    match v {
        [] => "no".into(),
        [one] => one.to_string(),
        [init @ .., last] => format!(
            "{} or {last}",
            init.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The legal choices of a decision in words.
/// The legal choices with the protocol's card codes (the page writes the same: `viewer.js`).
pub fn legal_codes(l: &Legal) -> String {
    let list = |s: CardSet| {
        if s.is_empty() {
            "—".to_string()
        } else {
            s.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let exchange = l
        .exchange
        .map(|x| format!(" · exchange {}→{}", x.six, x.trump_card))
        .unwrap_or_default();
    match l.decision.kind {
        DecisionKind::Attack => format!(
            "hand {} · sizes {}{exchange}",
            l.hand
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            l.attack_size_list()
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        DecisionKind::Defend => format!(
            "{}{exchange}",
            l.to_beat
                .iter()
                .map(|t| format!("{}: {}", t.attack, list(t.beaters)))
                .collect::<Vec<_>>()
                .join(" · ")
        ),
        DecisionKind::Add => format!("addable {} · room {}", list(l.addable), l.room),
    }
}

/// A move as the line a bot sends for it (docs/PROTOCOL.md), keys in the protocol's order.
pub fn answer_line(m: &Move, id: u64) -> String {
    let cards = |s: CardSet| {
        s.iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(",")
    };
    let head = format!("{{\"type\":\"answer\",\"id\":{id},\"action\":");
    let x = |e: bool| if e { ",\"exchange\":true" } else { "" };
    match *m {
        Move::Attack { cards: c, exchange } => {
            format!("{head}\"attack\",\"cards\":[{}]{}}}", cards(c), x(exchange))
        }
        Move::Defend { pairs, exchange } => format!(
            "{head}\"defend\",\"pairs\":[{}]{}}}",
            pairs
                .iter()
                .map(|(a, d)| format!("[\"{a}\",\"{d}\"]"))
                .collect::<Vec<_>>()
                .join(","),
            x(exchange)
        ),
        Move::Take => format!("{head}\"take\"}}"),
        Move::Add { cards: c } => format!("{head}\"add\",\"cards\":[{}]}}", cards(c)),
        Move::Pass => format!("{head}\"pass\"}}"),
    }
}

pub fn legal_text(l: &Legal, variant: Variant) -> String {
    let exchange = l
        .exchange
        .map(|e| {
            format!(
                "; may first exchange {} for the trump card {} (P-4)",
                pretty_card(e.six),
                pretty_card(e.trump_card)
            )
        })
        .unwrap_or_default();
    match l.decision.kind {
        DecisionKind::Attack => {
            let rank = if l.same_rank { " of one rank" } else { "" };
            let sizes = l.attack_size_list();
            let cards = if sizes == [1] { "card" } else { "cards" };
            format!(
                "attack with {} {cards}{rank} from {}{exchange}",
                or_list(&sizes),
                pretty_cards(l.hand)
            )
        }
        DecisionKind::Defend => {
            let each: Vec<String> = l
                .to_beat
                .iter()
                .map(|t| {
                    if t.beaters.is_empty() {
                        format!("{} by nothing", pretty_card(t.attack))
                    } else {
                        format!("{} by {}", pretty_card(t.attack), pretty_cards(t.beaters))
                    }
                })
                .collect();
            match variant {
                Variant::Podkidnoy => {
                    format!("cover every card ({}) or take{exchange}", each.join("; "))
                }
                Variant::Prostoy => format!(
                    "beat any of the attack cards ({}), or none{exchange}",
                    each.join("; ")
                ),
            }
        }
        DecisionKind::Add => {
            let after = if l.decision.after_take {
                " (the defender takes)"
            } else {
                ""
            };
            // Never more than the cards that may be added: "add 9♠", not "add up to 3 of 9♠".
            match l.room.min(l.addable.len()) {
                0 => format!("pass{after}"),
                1 if l.addable.len() == 1 => {
                    format!("add {}, or pass{after}", pretty_cards(l.addable))
                }
                1 => format!("add one of {}, or pass{after}", pretty_cards(l.addable)),
                n => format!(
                    "add up to {n} of {}, or pass{after}",
                    pretty_cards(l.addable)
                ),
            }
        }
    }
}

/// How a game ended, in words.
pub fn result_text(h: &Header, end: &crate::sim::End) -> String {
    let mut s = match (end.loser, end.draw) {
        (_, true) if !end.faults.is_empty() => {
            "a draw: no seat could play (each forfeited or could not start)".to_string()
        }
        (_, true) => "a draw: every player is out (C-9)".to_string(),
        (Some(l), false) => {
            if end.faults.first().is_some_and(|f| f.seat == l) {
                format!("{} loses by fault", seat_name(h, l))
            } else {
                format!("{} is the durak", seat_name(h, l))
            }
        }
        (None, false) => "no result".into(),
    };
    s.push_str(&format!(
        " after {} {}",
        end.moves,
        if end.moves == 1 { "move" } else { "moves" }
    ));
    if let Some(ms) = end.duration_ms {
        s.push_str(&format!(" ({ms} ms)"));
    }
    if !end.logged {
        s.push_str(" — the replay has no result line (truncated?)");
    }
    s
}

fn sees(viewer: Option<Seat>, to: Audience) -> bool {
    match viewer {
        None => true,
        Some(v) => to.sees(v),
    }
}

/// A time in ms: no decimals from 100 ms, one from 1 ms, else three. The precision is chosen
/// on the rounded figure (99.96 is "100 ms", not "100.0 ms"), so a reader of the figure alone
/// (the web page's data) picks the same precision.
pub(crate) fn fmt_ms(ms: f64) -> String {
    let rounds_to = |digits: usize| format!("{ms:.digits$}").parse::<f64>().unwrap_or(ms);
    if rounds_to(1) >= 100.0 {
        format!("{ms:.0} ms")
    } else if rounds_to(3) >= 1.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

/// The view of step `index` (0-based) of a simulation, for every hand (`viewer` `None`) or for
/// one seat.
/// A decision's time charged, CPU time and CPU wait, as the views write them after its wall
/// time: ", 204 ms its own, CPU 200 ms, waited for a CPU 408 ms".
pub fn accounting_text(a: &crate::sim::Accounting) -> String {
    let of = |what: &str, v: Option<f64>| v.map(|ms| format!(", {what} {}", fmt_ms(ms)));
    format!(
        ", {} its own{}{}",
        fmt_ms(a.own_ms),
        of("CPU", a.cpu_ms).unwrap_or_default(),
        of("waited for a CPU", a.wait_ms).unwrap_or_default()
    )
}

pub fn step_view(sim: &Simulation, index: usize, viewer: Option<Seat>) -> StepView {
    let h = &sim.header;
    let step: &Step = &sim.steps[index];
    let g = &step.state;
    let variant = h.variant;
    let trump = g.trump();
    let public = g.observation(viewer.unwrap_or(0));
    let decider = step.decision.map(|d| d.seat);
    let may_see_private = |seat: Seat| viewer.is_none() || viewer == Some(seat);
    let end = step.end.as_ref();
    let seats = seat_views(sim, step, viewer);
    let events = step
        .before
        .iter()
        .filter(|e| sees(viewer, e.to))
        .map(|e| EventView {
            text: event_text(&e.kind, variant),
            private_to: match e.to {
                Audience::All => None,
                Audience::Seat(s) => Some(s),
            },
        })
        .collect();
    let decision = step.decision.map(|d| DecisionView {
        seat: d.seat,
        kind: d.kind.name().to_string(),
        after_take: d.after_take,
        forced: step.forced,
    });
    let title = step_title(h, step);
    let answer = answer_text(step);
    let elapsed_ms = step
        .elapsed_ms
        .or(step.refused.as_ref().and_then(|r| r.elapsed_ms));
    let timing = timing_text(step, elapsed_ms);
    let (legal, legal_codes) = match (&step.legal, decider) {
        (Some(l), Some(d)) if !step.forced && may_see_private(d) => {
            (Some(legal_text(l, variant)), Some(legal_codes(l)))
        }
        _ => (None, None),
    };
    let answer_line = match (&step.mv, &step.request) {
        (Some(m), Some(r)) if !step.forced => Some(answer_line(m, r.id)),
        _ => None,
    };
    let refused = step.refused.as_ref().map(|r| RefusedView {
        line: decider
            .filter(|&d| may_see_private(d))
            .map(|_| r.line.clone()),
        reason: r.reason.clone(),
    });
    StepView {
        step: step.number,
        steps: sim.steps.len(),
        line: step.line,
        viewer,
        title,
        decision,
        legal,
        legal_codes,
        answer,
        answer_line,
        elapsed_ms,
        timing,
        refused,
        faults: step
            .faults
            .iter()
            .map(|f| fault_view(h, f, sim.end().loser))
            .collect(),
        events,
        table: public
            .table
            .iter()
            .map(|(a, d)| PairView {
                attack: a.to_string(),
                defence: d.map(|c| c.to_string()),
            })
            .collect(),
        seats,
        stock: public.stock,
        stock_cards: viewer
            .is_none()
            .then(|| codes(g.stock_cards().iter().copied())),
        trump_card: public.trump_card.to_string(),
        trump_suit: trump.letter().to_string(),
        trump_card_in_stock: public.trump_card_in_stock,
        discard: codes(public.discard.iter()),
        attacker: public.attacker,
        defender: public.defender,
        limit: public.limit,
        taking: public.taking,
        result: end.map(|e| result_text(h, e)),
        note: step.note.clone(),
        stderr: step
            .stderr
            .iter()
            .filter(|t| may_see_private(t.seat) && (!t.text.is_empty() || t.dropped > 0))
            .map(stderr_view)
            .collect(),
    }
}

/// Each seat as `viewer` may see it at `step` (a hand only to its own seat, or to everyone
/// without a viewer).
fn seat_views(sim: &Simulation, step: &Step, viewer: Option<Seat>) -> Vec<SeatView> {
    let h = &sim.header;
    let g = &step.state;
    let (n, trump) = (h.players, g.trump());
    let public = g.observation(viewer.unwrap_or(0));
    let decider = step.decision.map(|d| d.seat);
    let may_see_private = |seat: Seat| viewer.is_none() || viewer == Some(seat);
    let end = step.end.as_ref();
    let faulted: Vec<Seat> = step.faults.iter().map(|f| f.seat).collect();
    (0..n)
        .map(|s| {
            let hand = g.hand(s);
            // At the end there is no attacker or defender any more: the durak is no defender.
            let role = if !g.is_active(s) || end.is_some() {
                None
            } else if s == public.attacker {
                Some("attacker".to_string())
            } else if s == public.defender {
                Some("defender".to_string())
            } else {
                None
            };
            SeatView {
                seat: s,
                name: h.seat_label(s),
                hand: may_see_private(s).then(|| codes(sorted_hand(hand, trump))),
                count: hand.len(),
                known: codes(sorted_hand(public.known[s], trump)),
                active: g.is_active(s),
                role,
                to_act: decider == Some(s),
                faulted: faulted.contains(&s),
                loser: end.is_some_and(|e| e.loser == Some(s)),
            }
        })
        .collect()
}

/// The step's title: who decides what, or the end.
fn step_title(h: &Header, step: &Step) -> String {
    match (step.decision, step.end.as_ref()) {
        (Some(d), _) => {
            let after = if d.after_take { " after the take" } else { "" };
            format!("{} to {}{after}", seat_name(h, d.seat), d.kind.name())
        }
        (None, Some(e)) if !e.started => "the game did not start".to_string(),
        (None, _) => "the end of the game".to_string(),
    }
}

/// The move played at the step, in words (a forced one says so).
fn answer_text(step: &Step) -> Option<String> {
    match (&step.mv, step.forced) {
        (Some(m), true) => Some(format!(
            "{} (forced: the only legal answer, played by the referee, R-1)",
            move_text(m, step.legal.as_ref())
        )),
        (Some(m), false) => Some(move_text(m, step.legal.as_ref())),
        (None, _) => None,
    }
}

/// How long the bot took to answer the step's request, against its limits.
fn timing_text(step: &Step, elapsed_ms: Option<f64>) -> Option<String> {
    step.request.as_ref().map(|r| {
        let limits = r
            .time
            .map(|t| format!(" (limit {} ms, bank {} ms)", t.move_ms, t.bank_ms))
            .unwrap_or_default();
        // The time charged, when it differs from the wall time (the machine kept the bot
        // waiting): docs/PROTOCOL.md, "Time limits".
        let own = step
            .accounting
            .map_or_else(String::new, |a| accounting_text(&a));
        match elapsed_ms {
            Some(ms) => format!(
                "answered in {}{own} to request {}{limits}",
                fmt_ms(ms),
                r.id
            ),
            None => format!("no answer to request {}{limits}", r.id),
        }
    })
}

fn stderr_view(t: &StderrText) -> StderrView {
    let when = match t.at {
        // Placed after the last line the bot had been sent when it wrote.
        _ if t.after.is_some() => format!("after it was sent {}", t.after.as_deref().unwrap_or("")),
        Some(StderrAt::Start) => "before its first request".to_string(),
        Some(StderrAt::Request(id)) => format!("after request {id}"),
        Some(StderrAt::End) => "after the game".to_string(),
        None => String::new(),
    };
    let mut text = t.text.clone();
    if t.dropped > 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "... ({} bytes dropped here: a game keeps the first bytes of each bot's stderr)",
            t.dropped
        ));
    }
    StderrView {
        seat: t.seat,
        when,
        text,
    }
}

/// Every step's view for one viewer.
pub fn all_views(sim: &Simulation, viewer: Option<Seat>) -> Vec<StepView> {
    (0..sim.steps.len())
        .map(|i| step_view(sim, i, viewer))
        .collect()
}
