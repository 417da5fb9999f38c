//! One seat's side of a game, line by line, rebuilt from a replay: every line the referee wrote
//! to that bot's stdin, byte for byte (re-simulated with the engine and serialized with the
//! same `durak_protocol` functions the referee's driver uses), what the bot sent back, and what
//! it wrote on stderr, at the point it came. `durak replay --seat S --raw` prints it, and `durak
//! rerun` feeds the stdin lines to a bot to re-run one decision.
//!
//! What the bot *sent* is known exactly only for refused answers (the replay keeps their line);
//! an accepted answer is rebuilt from the move the referee read, in the protocol's own form
//! ([`RawLine::exact`] is false), and so is the bot's hello (from its name and version).

use crate::read::{SeatLimits, StderrAt};
use crate::sim::{Simulation, Step};
use durak_protocol::{self as proto, Fault, FaultKind, Limits, Refusal};
use durak_rules::{Outcome, Seat};

/// Which stream of the bot a line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Written by the referee to the bot.
    Stdin,
    /// Sent by the bot (its hello and its answers).
    Stdout,
    /// Written by the bot on stderr (free text, maybe several lines).
    Stderr,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdin => "stdin",
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// One line of the transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct RawLine {
    pub stream: Stream,
    /// The line, without its newline (stderr: the text as it came, maybe several lines).
    pub text: String,
    /// The step it belongs to (1-based); `None` before the first (the hello).
    pub step: Option<usize>,
    /// Whether `text` is what went through the pipe, byte for byte. False for what the bot sent
    /// and the replay does not keep (an accepted answer, the hello): rebuilt from what the
    /// referee read, in the protocol's form.
    pub exact: bool,
}

/// The transcript of `seat`: what its bot read, sent and wrote during this game, in order.
pub fn transcript(sim: &Simulation, seat: Seat) -> Result<Vec<RawLine>, String> {
    let h = &sim.header;
    if seat >= h.players {
        return Err(format!(
            "there is no seat {seat}: the seats of this game are 0 to {}",
            h.players - 1
        ));
    }
    let head = h.seats.iter().find(|s| s.seat == seat);
    let limits = head
        .and_then(|s| s.limits.clone())
        .map(|l: SeatLimits| Limits {
            startup_ms: l.startup_ms,
            move_ms: l.move_ms,
            bank_ms: l.bank_ms,
            max_line_bytes: l.max_line_bytes as usize,
        })
        .unwrap_or_default();
    let end = sim.end();
    let mine: Vec<_> = end.faults.iter().filter(|f| f.seat == seat).collect();
    let not_started = mine
        .iter()
        .any(|f| matches!(f.kind.as_str(), "forfeit" | "start_failed"));
    let mut out = Vec::new();
    let stdin = |text: String, step: Option<usize>| RawLine {
        stream: Stream::Stdin,
        text,
        step,
        exact: true,
    };

    // The hello, when the process was started for this game (older replays: the first game).
    let hello = head.and_then(|s| s.hello).unwrap_or(h.game == 0);
    if hello && !mine.iter().any(|f| f.kind == "forfeit") {
        let games = h.games.unwrap_or(h.game + 1);
        out.push(stdin(
            line(&proto::hello(h.variant, h.players, seat, games, &limits)),
            None,
        ));
        if let Some(s) = head.filter(|s| s.bot_name.is_some()) {
            out.push(RawLine {
                stream: Stream::Stdout,
                text: line(&proto::bot_hello(
                    s.bot_name.as_deref().unwrap_or_default(),
                    s.bot_version.as_deref().unwrap_or_default(),
                )),
                step: None,
                exact: false,
            });
        }
    }
    if not_started {
        // It never played: a forfeit, or a start that failed (its stderr says why).
        push_stderr(&mut out, sim, seat, |_| true);
        return Ok(out);
    }
    if end.started {
        out.push(stdin(
            line(&proto::game_start(
                h.game,
                h.variant,
                h.players,
                seat,
                h.dealer,
                h.first_game,
            )),
            Some(1),
        ));
    }
    push_stderr_at(&mut out, sim, seat, StderrAt::Start, Some(1));
    // The open request id when a fault came (the referee's `error` line names it).
    let mut last_request: Option<u64> = None;
    let mut gone = false;
    for step in &sim.steps {
        for e in step.before.iter().filter(|e| e.to.sees(seat)) {
            out.push(stdin(
                line(&proto::event(h.game, &e.kind)),
                Some(step.number),
            ));
        }
        if let Some(r) = &step.request {
            last_request = Some(r.id);
        }
        if let (Some(d), Some(legal), Some(r)) = (step.decision, &step.legal, &step.request) {
            if d.seat == seat && !step.forced {
                let obs = step.state.observation(seat);
                let time = r.time.unwrap_or_default();
                out.push(stdin(
                    line(&proto::request(
                        r.id,
                        h.game,
                        legal,
                        &obs,
                        time.move_ms,
                        time.bank_ms,
                    )),
                    Some(step.number),
                ));
                if let Some(refused) = &step.refused {
                    out.push(RawLine {
                        stream: Stream::Stdout,
                        text: refused.line.clone(),
                        step: Some(step.number),
                        exact: !refused.line.ends_with(" bytes)"),
                    });
                } else if let Some(mv) = &step.mv {
                    out.push(RawLine {
                        stream: Stream::Stdout,
                        text: line(&proto::answer(r.id, mv)),
                        step: Some(step.number),
                        exact: false,
                    });
                }
                push_stderr_at(
                    &mut out,
                    sim,
                    seat,
                    StderrAt::Request(r.id),
                    Some(step.number),
                );
            }
        }
        for f in step.faults.iter().filter(|f| f.seat == seat) {
            match f.kind.as_str() {
                // Nobody is listening: no error line (and no game_end is read).
                "crash" | "closed" | "memory" => gone = true,
                kind => {
                    let kind = fault_kind(kind);
                    let pointer = step
                        .refused
                        .as_ref()
                        .and_then(|r| refusal_of(step, seat, &r.line))
                        .and_then(|r| r.pointer);
                    out.push(stdin(
                        line(&proto::error(
                            last_request,
                            kind,
                            f.rule.as_deref(),
                            pointer.as_deref(),
                            &f.detail,
                        )),
                        Some(step.number),
                    ));
                }
            }
        }
    }
    if !gone {
        let faults: Vec<Fault> = end
            .faults
            .iter()
            .map(|f| Fault {
                seat: f.seat,
                kind: fault_kind(&f.kind),
                detail: f.detail.clone(),
                rule: f.rule.clone(),
            })
            .collect();
        let outcome = Outcome { loser: end.loser };
        out.push(stdin(
            line(&proto::game_end(h.game, outcome, &faults)),
            sim.steps.last().map(|s| s.number),
        ));
    }
    let last = sim.steps.last().map(|s| s.number);
    push_stderr(&mut out, sim, seat, |at| {
        matches!(at, None | Some(StderrAt::End))
    });
    if let Some(l) = out.last_mut().filter(|l| l.stream == Stream::Stderr) {
        l.step = l.step.or(last);
    }
    Ok(out)
}

/// The refusal of a refused answer line, as the referee judged it (for its JSON pointer).
fn refusal_of(step: &Step, seat: Seat, line: &str) -> Option<Refusal> {
    let r = step.request.as_ref()?;
    let v = match proto::parse_line(line.as_bytes()) {
        Ok(v) => v,
        Err(r) => return Some(r),
    };
    let (id, mv) = match proto::parse_answer(&v) {
        Ok(a) => a,
        Err(r) => return Some(r),
    };
    if let Err(e) = proto::check_answer_id(id, r.id) {
        return Some(e);
    }
    step.state.check(seat, &mv).err().map(|e| Refusal {
        kind: FaultKind::Illegal,
        rule: Some(e.rule),
        pointer: None,
        message: e.to_string(),
    })
}

fn fault_kind(name: &str) -> FaultKind {
    FaultKind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .unwrap_or(FaultKind::Crash)
}

/// The seat's stderr pieces that arrived at `at`.
fn push_stderr_at(
    out: &mut Vec<RawLine>,
    sim: &Simulation,
    seat: Seat,
    at: StderrAt,
    step: Option<usize>,
) {
    for s in sim.steps.iter().flat_map(|s| &s.stderr) {
        if s.seat == seat && s.at == Some(at) && !s.text.is_empty() {
            out.push(RawLine {
                stream: Stream::Stderr,
                text: s.text.clone(),
                step,
                exact: true,
            });
        }
    }
}

/// The seat's stderr pieces whose `at` passes `keep`.
fn push_stderr(
    out: &mut Vec<RawLine>,
    sim: &Simulation,
    seat: Seat,
    keep: impl Fn(Option<StderrAt>) -> bool,
) {
    for s in sim.steps.iter().flat_map(|s| &s.stderr) {
        if s.seat == seat && keep(s.at) && !s.text.is_empty() {
            out.push(RawLine {
                stream: Stream::Stderr,
                text: s.text.clone(),
                step: None,
                exact: true,
            });
        }
    }
}

/// The transcript as text: one line per line, `stdin  {...}`, `stdout {...}` (`stdout~` for a
/// line rebuilt from what the referee read), `stderr | ...`.
pub fn to_text(lines: &[RawLine]) -> String {
    let mut o = String::new();
    for l in lines {
        match l.stream {
            Stream::Stderr => {
                for t in l.text.trim_end_matches('\n').split('\n') {
                    o.push_str("stderr | ");
                    o.push_str(&durak_protocol::text::escape_controls(t));
                    o.push('\n');
                }
            }
            s => {
                o.push_str(match (s, l.exact) {
                    (Stream::Stdin, _) => "stdin   ",
                    (_, true) => "stdout  ",
                    (_, false) => "stdout~ ",
                });
                o.push_str(&durak_protocol::text::escape_controls(&l.text));
                o.push('\n');
            }
        }
    }
    o
}

/// A protocol message as one line, as the referee writes it.
fn line(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("a protocol message serializes")
}
