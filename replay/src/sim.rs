//! Re-simulation and verification: the game is dealt again from the header with the rules
//! engine, every logged move is applied again, and every logged line is checked against what the
//! engine says must happen. The same walk yields the steps the viewers show.
//!
//! A *step* is one decision, numbered from 1: the state when it was asked (after the events that
//! followed the previous step), who had to decide, the legal choices, what the bot answered (or
//! the R-1 move the referee played) and how long it took, and any fault. The last step is the end
//! of the game; when a fault ended the game at a decision, that decision is the last step.

use crate::read::{FaultRecord, Header, Line, Record, Replay, RequestTime, ResultRecord, StderrAt};
use durak_protocol::{event_json, legal_json, parse_answer, FaultKind, Refusal};
use durak_rules::{Audience, Deck, Event, Game, Legal, Move, Seat, Setup, Variant};
use serde_json::{Map, Value};
use std::collections::VecDeque;

pub use crate::model::{
    Accounting, Divergence, End, Refused, RequestInfo, Simulation, StderrText, Step,
};

/// Decode a logged move (`{action, cards|pairs, exchange}`) into an engine move, with the same
/// checks as a bot's answer; refused as an answer would be (a [`Refusal`] of kind `schema`).
pub fn decode_move(mv: &Value) -> Result<Move, Refusal> {
    let Value::Object(fields) = mv else {
        return Err(Refusal {
            kind: FaultKind::Schema,
            rule: None,
            pointer: Some(String::new()),
            message: format!("the move {mv} is not a JSON object"),
        });
    };
    let mut answer = Map::new();
    answer.insert("type".into(), Value::from("answer"));
    answer.insert("id".into(), Value::from(0));
    for (k, v) in fields {
        if k != "type" && k != "id" {
            answer.insert(k.clone(), v.clone());
        }
    }
    parse_answer(&Value::Object(answer)).map(|(_, m)| m)
}

/// Whether a raw answer line would have been accepted for request `id` of this game.
fn would_accept(game: &Game, seat: Seat, id: u64, line: &str) -> bool {
    durak_protocol::judge_answer(line.as_bytes(), id, game, seat).is_ok()
}

fn audience_json(to: Audience) -> Option<Seat> {
    match to {
        Audience::All => None,
        Audience::Seat(s) => Some(s),
    }
}

fn show_event(to: Option<Seat>, event: &Value) -> String {
    match to {
        None => format!("{event} (public)"),
        Some(s) => format!("{event} (to seat {s})"),
    }
}

struct Walk<'a> {
    replay: &'a Replay,
    variant: Variant,
    game: Game,
    pending: VecDeque<Event>,
    before: Vec<Event>,
    steps: Vec<Step>,
    open: Option<Step>,
    divergence: Option<Divergence>,
    faults: Vec<FaultRecord>,
    stderr: Vec<StderrText>,
    result: Option<(usize, ResultRecord)>,
    next_request: u64,
    events_logged: usize,
    /// The engine cannot follow the replay any further (an unreadable or illegal move).
    stopped: bool,
}

impl Walk<'_> {
    fn step_number(&self) -> usize {
        self.steps.len() + 1
    }

    fn diverge(&mut self, line: usize, message: impl Into<String>) {
        if self.divergence.is_none() {
            self.divergence = Some(Divergence {
                step: Some(self.step_number()),
                line,
                message: message.into(),
            });
        }
    }

    fn new_step(&mut self, line: usize, legal: Option<Legal>) -> Step {
        Step {
            number: self.step_number(),
            line,
            state: self.game.clone(),
            before: std::mem::take(&mut self.before),
            decision: legal.as_ref().map(|l| l.decision),
            legal,
            forced: false,
            request: None,
            mv: None,
            elapsed_ms: None,
            accounting: None,
            refused: None,
            faults: Vec::new(),
            end: None,
            note: None,
            stderr: Vec::new(),
        }
    }

    /// Every event of the previous move must be logged before the next decision.
    fn expect_no_pending(&mut self, line: usize, what: &str) {
        if let Some(e) = self.pending.front() {
            let next = show_event(audience_json(e.to), &event_json(&e.kind));
            self.diverge(
                line,
                format!("the engine's next event is {next}, but the replay has {what} here"),
            );
            self.pending.clear();
        }
    }

    fn seat_ok(&mut self, line: usize, seat: Seat, what: &str) -> bool {
        if seat >= self.replay.header.players {
            let n = self.replay.header.players;
            self.diverge(
                line,
                format!("{what} names seat {seat}, but the seats are 0 to {}", n - 1),
            );
            false
        } else {
            true
        }
    }

    fn line(&mut self, line: &Line) {
        let number = line.number;
        if self.result.is_some() {
            self.diverge(
                number,
                format!(
                    "a {} line after the result line: the result is the last line",
                    line.record.type_name()
                ),
            );
            return;
        }
        let after_fault = !self.faults.is_empty();
        let game_line = matches!(
            line.record,
            Record::Event { .. } | Record::Request { .. } | Record::Move { .. }
        );
        if game_line && after_fault {
            let f = &self.faults[0];
            let message = format!(
                "a {} line after seat {}'s fault: a game ends at its first fault",
                line.record.type_name(),
                f.seat
            );
            self.diverge(number, message);
            return;
        }
        if game_line && self.stopped {
            return;
        }
        match &line.record {
            Record::Event { to, event } => self.event(number, *to, event),
            Record::Request {
                id,
                seat,
                decision,
                time,
                legal,
            } => self.request(number, *id, *seat, decision, *time, legal),
            Record::Move {
                seat,
                forced,
                id,
                elapsed_ms,
                clock,
                mv,
            } => {
                let accounting = clock.own_ms.map(|own_ms| Accounting {
                    own_ms,
                    cpu_ms: clock.cpu_ms,
                    wait_ms: clock.wait_ms,
                });
                self.apply(number, *seat, *forced, *id, (*elapsed_ms, accounting), mv)
            }
            Record::Answer {
                id,
                seat,
                elapsed_ms,
                line: raw,
                refused,
                ..
            } => self.answer(number, *id, *seat, *elapsed_ms, raw, refused),
            Record::Fault(f) => {
                if self.seat_ok(number, f.seat, "the fault") {
                    if let Some(open) = self.open.as_mut() {
                        open.faults.push(f.clone());
                    }
                    self.faults.push(f.clone());
                }
            }
            Record::Stderr {
                seat,
                at,
                text,
                dropped,
                sent,
            } => self.stderr_line(number, *seat, (*at, *sent), text, *dropped),
            Record::Result(r) => self.result = Some((number, r.clone())),
        }
    }

    /// A stderr line: at a request, that request must be logged before it and be the seat's.
    fn stderr_line(
        &mut self,
        number: usize,
        seat: Seat,
        (at, sent): (Option<StderrAt>, Option<u64>),
        text: &str,
        dropped: u64,
    ) {
        if !self.seat_ok(number, seat, "the stderr line") {
            return;
        }
        if let Some(StderrAt::Request(id)) = at {
            let asked = self
                .steps
                .iter()
                .chain(&self.open)
                .find(|s| s.request.as_ref().is_some_and(|r| r.id == id))
                .and_then(|s| s.decision.map(|d| d.seat));
            match asked {
                None => self.diverge(
                    number,
                    format!(
                        "the stderr line of seat {seat} is at request {id}, but no request {id} \
                         comes before it"
                    ),
                ),
                Some(other) if other != seat => self.diverge(
                    number,
                    format!(
                        "the stderr line of seat {seat} is at request {id}, but request {id} \
                         asked seat {other}"
                    ),
                ),
                Some(_) => {}
            }
        }
        self.stderr.push(StderrText {
            seat,
            at,
            text: text.to_string(),
            dropped,
            sent,
            after: None,
            line: number,
        });
    }

    fn event(&mut self, number: usize, to: Option<Seat>, event: &Value) {
        if let Some(open) = &self.open {
            let id = open.request.as_ref().map_or(0, |r| r.id);
            self.diverge(
                number,
                format!(
                    "an event while request {id} is open: {}; the answer (a move line) comes first",
                    show_event(to, event)
                ),
            );
            return;
        }
        match self.pending.pop_front() {
            None => self.diverge(
                number,
                format!(
                    "the engine produces no further event here, but the replay has {}",
                    show_event(to, event)
                ),
            ),
            Some(expected) => {
                let want_to = audience_json(expected.to);
                let want = event_json(&expected.kind);
                if want_to != to || want != *event {
                    self.diverge(
                        number,
                        format!(
                            "the logged event {} differs from the engine's {}",
                            show_event(to, event),
                            show_event(want_to, &want)
                        ),
                    );
                }
                self.events_logged += 1;
            }
        }
    }

    fn request(
        &mut self,
        number: usize,
        id: u64,
        seat: Seat,
        decision: &str,
        time: Option<RequestTime>,
        legal: &Value,
    ) {
        if let Some(open) = &self.open {
            let open_id = open.request.as_ref().map_or(0, |r| r.id);
            self.diverge(
                number,
                format!("request {id} while request {open_id} is still open (it got no move)"),
            );
            return;
        }
        self.expect_no_pending(number, &format!("request {id}"));
        let Some(l) = self.game.legal() else {
            self.diverge(number, format!("request {id} after the game is over"));
            self.stopped = true;
            return;
        };
        let d = l.decision;
        if seat != d.seat || decision != d.kind.name() {
            self.diverge(
                number,
                format!(
                    "request {id} asks seat {seat} to {decision}, but the engine says seat {} is to {}",
                    d.seat,
                    d.kind.name()
                ),
            );
        } else if let Some(mv) = l.forced_move(self.variant) {
            self.diverge(
                number,
                format!(
                    "request {id}: the decision has one legal answer ({}), which the referee plays \
                     itself (R-1), yet the bot was asked",
                    mv.name()
                ),
            );
        } else if *legal != legal_json(&l) {
            self.diverge(
                number,
                format!(
                    "request {id}: the logged legal choices {legal} differ from the engine's {}",
                    legal_json(&l)
                ),
            );
        }
        if id != self.next_request {
            self.diverge(
                number,
                format!(
                    "request {id}: request ids count from 1 in a game, this should be {}",
                    self.next_request
                ),
            );
        }
        self.next_request = id + 1;
        let mut step = self.new_step(number, Some(l));
        step.request = Some(RequestInfo { id, time });
        self.open = Some(step);
    }

    fn apply(
        &mut self,
        number: usize,
        seat: Seat,
        forced: bool,
        id: Option<u64>,
        (elapsed_ms, accounting): (Option<f64>, Option<Accounting>),
        mv: &Value,
    ) {
        if self.open.is_none() {
            self.expect_no_pending(number, "a move");
        }
        let Some(l) = self.game.legal() else {
            self.diverge(
                number,
                format!("a move by seat {seat} after the game is over"),
            );
            self.stopped = true;
            return;
        };
        let mut step = match self.open.take() {
            Some(step) => step,
            None => self.new_step(number, Some(l.clone())),
        };
        let decoded = match decode_move(mv) {
            Ok(m) => m,
            Err(e) => {
                self.diverge(number, format!("the move {mv} cannot be read: {e}"));
                self.stopped = true;
                self.steps.push(step);
                return;
            }
        };
        step.mv = Some(decoded);
        step.forced = forced;
        step.elapsed_ms = elapsed_ms;
        step.accounting = accounting;
        let d = l.decision;
        let request_id = step.request.as_ref().map(|r| r.id);
        if seat != d.seat {
            self.diverge(
                number,
                format!(
                    "seat {seat} moves, but the engine says it is seat {}'s decision ({})",
                    d.seat,
                    d.kind.name()
                ),
            );
        }
        let forced_move = l.forced_move(self.variant);
        if forced {
            if let Some(r) = request_id {
                self.diverge(
                    number,
                    format!("a forced move (R-1) while request {r} is open"),
                );
            } else if forced_move != Some(decoded) {
                let why = match forced_move {
                    Some(m) => format!(
                        "the only legal answer is {}",
                        durak_protocol::move_json(&m)
                            .get("action")
                            .and_then(Value::as_str)
                            .unwrap_or("another move")
                    ),
                    None => "the decision has a real choice, so the bot must be asked".into(),
                };
                self.diverge(
                    number,
                    format!("the move {mv} is marked forced (R-1), but {why}"),
                );
            }
        } else if request_id.is_none() {
            self.diverge(
                number,
                format!(
                    "a chosen move (request {}) without its request line",
                    id.map_or("?".into(), |i| i.to_string())
                ),
            );
        } else if id != request_id {
            self.diverge(
                number,
                format!(
                    "the move answers request {}, but the open request is {}",
                    id.map_or("null".into(), |i| i.to_string()),
                    request_id.unwrap_or_default()
                ),
            );
        }
        match self.game.apply(d.seat, &decoded) {
            Ok(events) => {
                self.steps.push(step);
                self.before = events.clone();
                self.pending = events.into();
            }
            Err(illegal) => {
                self.diverge(
                    number,
                    format!("the logged move {mv} is illegal: {illegal}"),
                );
                step.mv = None;
                self.stopped = true;
                self.steps.push(step);
            }
        }
    }

    fn answer(
        &mut self,
        number: usize,
        id: u64,
        seat: Seat,
        elapsed_ms: Option<f64>,
        raw: &str,
        refused: &str,
    ) {
        let Some(open) = self.open.as_ref() else {
            self.diverge(
                number,
                format!("a refused answer to request {id}, but no request is open"),
            );
            return;
        };
        let open_id = open.request.as_ref().map_or(0, |r| r.id);
        let open_seat = open.decision.map_or(0, |d| d.seat);
        if id != open_id || seat != open_seat {
            self.diverge(
                number,
                format!(
                    "a refused answer of seat {seat} to request {id}, but the open request is \
                     {open_id} to seat {open_seat}"
                ),
            );
        } else if would_accept(&self.game, seat, id, raw) {
            self.diverge(
                number,
                format!(
                    "the answer {raw} is a legal move for request {id}, yet the replay says it was \
                     refused ({refused})"
                ),
            );
        }
        if let Some(open) = self.open.as_mut() {
            open.refused = Some(Refused {
                line: raw.to_string(),
                reason: refused.to_string(),
                elapsed_ms,
            });
        }
    }

    fn finish(mut self) -> Simulation {
        let last_line = self.replay.lines.last().map_or(1, |l| l.number);
        let started = self.events_logged > 0 || !self.steps.is_empty() || self.open.is_some();
        let result = self.result.clone();
        match &result {
            None => {
                let mut message = format!(
                    "the replay ends at line {last_line} without its result line (truncated?)"
                );
                if let Some(open) = &self.open {
                    if open.faults.is_empty() && open.mv.is_none() {
                        let id = open.request.as_ref().map_or(0, |r| r.id);
                        message.push_str(&format!("; request {id} has no answer"));
                    }
                }
                self.diverge(last_line, message);
            }
            Some((number, r)) => self.check_result(*number, r),
        }
        let end = match result {
            Some((_, r)) => End {
                loser: r.loser,
                draw: r.draw,
                faults: r.faults,
                moves: r.moves,
                duration_ms: r.duration_ms,
                logged: true,
                started,
            },
            None => {
                let outcome = self.game.outcome();
                let everyone_faulted = self.everyone_faulted();
                End {
                    loser: self
                        .faults
                        .first()
                        .map(|f| f.seat)
                        .filter(|_| !everyone_faulted)
                        .or(outcome.and_then(|o| o.loser)),
                    draw: everyone_faulted
                        || (self.faults.is_empty() && outcome.is_some_and(|o| o.is_draw())),
                    faults: self.faults.clone(),
                    moves: self.game.move_count(),
                    duration_ms: None,
                    logged: false,
                    started,
                }
            }
        };
        let end_line = self.result.as_ref().map_or(last_line, |(n, _)| *n);
        let mut last = match self.open.take() {
            Some(step) => step,
            None => {
                let mut step = self.new_step(end_line, None);
                if !started {
                    step.before.clear();
                }
                step
            }
        };
        if last.decision.is_none() {
            last.faults = end.faults.clone();
        }
        last.end = Some(end);
        self.steps.push(last);
        // Each stderr text at its step: older replays' by `at` now, the others' by `sent` once
        // the steps are known (the lines each seat was sent are rebuilt from them).
        let last = self.steps.len() - 1;
        let mut placed = Vec::new();
        for t in std::mem::take(&mut self.stderr) {
            let at = match t.at {
                _ if t.sent.is_some() => {
                    placed.push(t);
                    continue;
                }
                Some(StderrAt::Start) => 0,
                Some(StderrAt::Request(id)) => self
                    .steps
                    .iter()
                    .position(|s| s.request.as_ref().is_some_and(|r| r.id == id))
                    .unwrap_or(last),
                Some(StderrAt::End) | None => last,
            };
            self.steps[at].stderr.push(t);
        }
        let mut sim = Simulation {
            source: self.replay.source.clone(),
            header: self.replay.header.clone(),
            steps: self.steps,
            divergence: self.divergence,
        };
        place_stderr(&mut sim, placed);
        if let Some(d) = &sim.divergence {
            if let Some(step) = d.step.and_then(|s| sim.steps.get_mut(s - 1)) {
                step.note = Some(d.message.clone());
            }
        }
        sim
    }

    /// Every seat faulted (each forfeited or failed to start: nobody could play): a draw.
    fn everyone_faulted(&self) -> bool {
        durak_protocol::nobody_played(
            self.replay.header.players,
            self.faults.iter().map(|f| f.seat),
        )
    }

    fn check_result(&mut self, number: usize, r: &ResultRecord) {
        if r.faults != self.faults {
            let listed: Vec<String> = r
                .faults
                .iter()
                .map(|f| format!("seat {} {}", f.seat, f.kind))
                .collect();
            let logged: Vec<String> = self
                .faults
                .iter()
                .map(|f| format!("seat {} {}", f.seat, f.kind))
                .collect();
            self.diverge(
                number,
                format!(
                    "the result lists the faults [{}], but the fault lines are [{}]",
                    listed.join(", "),
                    logged.join(", ")
                ),
            );
        }
        let everyone_faulted = self.everyone_faulted();
        if r.void {
            // Given up after voided attempts (a seat starved by the machine, its request left
            // open): it counts for nobody, with its reasons.
            if r.loser.is_some() || r.draw || r.voided.is_empty() {
                self.diverge(
                    number,
                    format!(
                        "the result says the game is void but {}{}",
                        result_words(r.loser, r.draw),
                        if r.voided.is_empty() {
                            ", and gives no reason (voided)"
                        } else {
                            ""
                        }
                    ),
                );
            } else if !self.faults.is_empty() {
                self.diverge(
                    number,
                    "the result says the game is void, but a seat faulted: it loses".to_string(),
                );
            }
        } else if everyone_faulted {
            // Nobody could play (each seat forfeited or failed to start): a draw.
            if r.loser.is_some() || !r.draw {
                self.diverge(
                    number,
                    format!(
                        "the result says {}, but every seat faulted before play, which is a draw",
                        result_words(r.loser, r.draw)
                    ),
                );
            }
        } else if let Some(first) = self.faults.first().cloned() {
            if r.loser != Some(first.seat) || r.draw {
                self.diverge(
                    number,
                    format!(
                        "the result says {}, but seat {} faulted first and so loses",
                        result_words(r.loser, r.draw),
                        first.seat
                    ),
                );
            }
        } else if !self.stopped {
            if let Some(open) = &self.open {
                let id = open.request.as_ref().map_or(0, |r| r.id);
                self.diverge(
                    number,
                    format!("request {id} got neither a move nor a fault before the result"),
                );
                return;
            }
            self.expect_no_pending(number, "the result");
            match self.game.outcome() {
                None if r.move_limit.is_some()
                    && r.move_limit == Some(self.game.move_count())
                    && r.draw
                    && r.loser.is_none() => {}
                None => {
                    let d = self
                        .game
                        .decision()
                        .expect("a game not over has a decision");
                    self.diverge(
                        number,
                        format!(
                            "the result says {}, but the game goes on: seat {} is to {}",
                            result_words(r.loser, r.draw),
                            d.seat,
                            d.kind.name()
                        ),
                    );
                }
                Some(o) => {
                    if o.loser != r.loser || o.is_draw() != r.draw {
                        self.diverge(
                            number,
                            format!(
                                "the result says {}, but the engine says {}",
                                result_words(r.loser, r.draw),
                                result_words(o.loser, o.is_draw())
                            ),
                        );
                    }
                }
            }
        }
        if !self.stopped && r.moves != self.game.move_count() {
            self.diverge(
                number,
                format!(
                    "the result counts {} moves, the re-simulation {}",
                    r.moves,
                    self.game.move_count()
                ),
            );
        }
    }
}

fn result_words(loser: Option<Seat>, draw: bool) -> String {
    match (loser, draw) {
        (Some(l), false) => format!("seat {l} loses"),
        (None, true) => "a draw".into(),
        (Some(l), true) => format!("a draw with seat {l} losing"),
        (None, false) => "no loser and no draw".into(),
    }
}

/// Check the header: the deck is a deck, and the one the game's seed shuffles (C-5). The seed
/// itself is not checked against the series seed: tournaments deal planned games (duplicate
/// deals) whose seeds and dealers do not follow the series.
fn check_header(h: &Header) -> (Deck, Option<Divergence>) {
    let div = |message: String| {
        Some(Divergence {
            step: None,
            line: 1,
            message,
        })
    };
    let seeded = Deck::shuffled(h.seed);
    match Deck::from_cards(&h.deck) {
        Err(e) => (seeded, div(format!("the deck is not a deck: {e}"))),
        Ok(deck) if deck != seeded => {
            let i = (0..36)
                .find(|&i| deck.cards()[i] != seeded.cards()[i])
                .unwrap_or(0);
            let problem = div(format!(
                "the deck is not the one seed {} shuffles: card {i} is {}, the seed gives {}",
                h.seed,
                deck.cards()[i],
                seeded.cards()[i]
            ));
            (deck, problem)
        }
        Ok(deck) => (deck, None),
    }
}

/// Put each stderr text with `sent` at the step of the last line its seat had been sent then
/// (step 1 before any), saying which line that was; a `sent` beyond the lines the seat was sent
/// is a divergence.
fn place_stderr(sim: &mut Simulation, texts: Vec<StderrText>) {
    let mut sent_to: Vec<Option<Vec<crate::raw::RawLine>>> = vec![None; sim.header.players];
    let mut moves = Vec::new();
    for mut t in texts {
        let n = t.sent.unwrap_or(0) as usize;
        let lines = sent_to[t.seat].get_or_insert_with(|| crate::raw::game_lines(sim, t.seat));
        let step = match n.checked_sub(1).map(|i| lines.get(i)) {
            None => 0,
            Some(Some(l)) => {
                t.after = Some(l.text.clone());
                l.step.map_or(0, |s| s - 1)
            }
            Some(None) => {
                if sim.divergence.is_none() {
                    sim.divergence = Some(Divergence {
                        step: Some(sim.steps.len()),
                        line: t.line,
                        message: format!(
                            "the stderr line of seat {} came after line {n} of the game it was \
                             sent, but it was sent {} lines in this game",
                            t.seat,
                            lines.len()
                        ),
                    });
                }
                sim.steps.len() - 1
            }
        };
        moves.push((step, t));
    }
    for (step, t) in moves {
        sim.steps[step].stderr.push(t);
    }
}

/// Re-simulate a replay with the rules engine: every step, and the first place (if any) where
/// the replay differs from what the engine says.
pub fn simulate(replay: &Replay) -> Simulation {
    let h = &replay.header;
    let (deck, header_problem) = check_header(h);
    let setup = Setup {
        variant: h.variant,
        players: h.players,
        dealer: h.dealer,
        first_game: h.first_game,
    };
    let game = Game::with_deck(setup, deck).expect("the header's setup was checked when read");
    let start = game.start_events();
    let mut walk = Walk {
        replay,
        variant: h.variant,
        game,
        pending: start.clone().into(),
        before: start,
        steps: Vec::new(),
        open: None,
        divergence: header_problem,
        faults: Vec::new(),
        stderr: Vec::new(),
        result: None,
        next_request: 1,
        events_logged: 0,
        stopped: false,
    };
    for line in &replay.lines {
        walk.line(line);
    }
    walk.finish()
}
