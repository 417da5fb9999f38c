//! One seat's side of a game, line by line, rebuilt from a replay: every line the referee wrote
//! to that bot's stdin, byte for byte (re-simulated with the engine and serialized with the
//! same `durak_protocol` functions the referee's driver uses), what the bot sent back, and what
//! it wrote on stderr, at the point it came. `durak replay --seat S --raw` prints it, and `durak
//! rerun` feeds the stdin lines to a bot to re-run one decision.
//!
//! What the bot *sent* is known exactly only for refused answers (the replay keeps their line);
//! an accepted answer is rebuilt from the move the referee read, in the protocol's own form
//! ([`RawLine::exact`] is false), and so is the bot's hello (from its name and version).

use crate::model::{Simulation, StderrText, Step};
use crate::read::{SeatLimits, StderrAt};
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

/// How [`lines_of`] writes a line: as it went through the pipe, or in a few words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Json,
    /// "request 13", "a \"game_over\" event", "game_end": to say where stderr came.
    Summary,
}

/// A transcript was asked of a seat the game does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("there is no seat {seat}: the seats of this game are 0 to {}", players - 1)]
pub struct NoSuchSeat {
    pub seat: Seat,
    pub players: usize,
}

/// The transcript of `seat`: what its bot read, sent and wrote during this game, in order. A
/// stderr text is placed after the last line the bot had been sent when it arrived (replays with
/// `sent`; before the bot's answer to that line, when it is a request), or, in older replays, at
/// the point its `at` names.
pub fn transcript(sim: &Simulation, seat: Seat) -> Result<Vec<RawLine>, NoSuchSeat> {
    let lines = lines_of(sim, seat, Form::Json)?;
    let mut texts: Vec<&StderrText> = sim
        .steps
        .iter()
        .flat_map(|s| &s.stderr)
        .filter(|t| t.seat == seat && t.sent.is_some() && !t.text.is_empty())
        .collect();
    if texts.is_empty() {
        return Ok(lines);
    }
    texts.sort_by_key(|t| (t.sent, t.line));
    let mut texts = texts.into_iter().peekable();
    let mut out = Vec::with_capacity(lines.len() + texts.len());
    let mut count = 0;
    let mut step = None;
    let mut take = |out: &mut Vec<RawLine>, count: u64, step: Option<usize>| {
        while let Some(t) = texts.next_if(|t| t.sent.unwrap_or(0) <= count) {
            out.push(RawLine {
                stream: Stream::Stderr,
                text: t.text.clone(),
                step,
                exact: true,
            });
        }
    };
    for l in lines {
        let game_line = l.stream == Stream::Stdin && l.step.is_some();
        if game_line && count == 0 {
            take(&mut out, 0, l.step);
        }
        if game_line {
            count += 1;
            step = l.step;
        }
        out.push(l);
        if game_line {
            take(&mut out, count, step);
        }
    }
    take(
        &mut out,
        u64::MAX,
        step.or(sim.steps.last().map(|s| s.number)),
    );
    Ok(out)
}

/// The lines `seat`'s bot was sent in this game (not its hello), each in a few words, with its
/// step: where a stderr text with `sent` N belongs (after the Nth).
pub(crate) fn game_lines(sim: &Simulation, seat: Seat) -> Vec<RawLine> {
    lines_of(sim, seat, Form::Summary)
        .unwrap_or_default()
        .into_iter()
        .filter(|l| l.stream == Stream::Stdin && l.step.is_some())
        .collect()
}

/// What `seat`'s bot read and sent during this game, in order, and (`Form::Json`) the stderr of
/// older replays, without `sent`, where its `at` puts it.
fn lines_of(sim: &Simulation, seat: Seat, form: Form) -> Result<Vec<RawLine>, NoSuchSeat> {
    let json = form == Form::Json;
    let h = &sim.header;
    if seat >= h.players {
        return Err(NoSuchSeat {
            seat,
            players: h.players,
        });
    }
    let end = sim.end();
    let mine: Vec<_> = end.faults.iter().filter(|f| f.seat == seat).collect();
    let not_started = mine
        .iter()
        .any(|f| matches!(f.kind.as_str(), "forfeit" | "start_failed"));
    let mut w = Writer {
        sim,
        seat,
        form,
        out: Vec::new(),
    };
    // The hello, when the process was started for this game (older replays: the first game).
    w.hello(!mine.iter().any(|f| f.kind == "forfeit"));
    if not_started {
        // It never played: a forfeit, or a start that failed (its stderr says why).
        if json {
            push_stderr(&mut w.out, sim, seat, |_| true);
        }
        return Ok(w.out);
    }
    if end.started {
        let start = || {
            line(&proto::game_start(
                h.game,
                h.variant,
                h.players,
                seat,
                h.dealer,
                h.first_game,
            ))
        };
        w.stdin(pick(form, start, || "game_start".into()), Some(1));
    }
    if json {
        push_stderr_at(&mut w.out, sim, seat, StderrAt::Start, Some(1));
    }
    // The open request id when a fault came (the referee's `error` line names it).
    let mut last_request: Option<u64> = None;
    let mut gone = false;
    for step in &sim.steps {
        w.events(step);
        if let Some(r) = &step.request {
            last_request = Some(r.id);
        }
        w.request(step);
        gone |= w.faults(step, last_request);
    }
    if !gone {
        w.game_end();
    }
    let mut out = w.out;
    let last = sim.steps.last().map(|s| s.number);
    if json {
        push_stderr(&mut out, sim, seat, |at| {
            matches!(at, None | Some(StderrAt::End))
        });
    }
    if let Some(l) = out.last_mut().filter(|l| l.stream == Stream::Stderr) {
        l.step = l.step.or(last);
    }
    Ok(out)
}

/// One seat's lines being written, in the form asked.
struct Writer<'a> {
    sim: &'a Simulation,
    seat: Seat,
    form: Form,
    out: Vec<RawLine>,
}

impl Writer<'_> {
    /// A line the bot read, at `step`.
    fn stdin(&mut self, text: String, step: Option<usize>) {
        self.out.push(RawLine {
            stream: Stream::Stdin,
            text,
            step,
            exact: true,
        });
    }

    /// The hello and the bot's own, when its process was started for this game and it was not
    /// a forfeit (`played`).
    fn hello(&mut self, played: bool) {
        let (sim, seat, form) = (self.sim, self.seat, self.form);
        let h = &sim.header;
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
        let hello = head.and_then(|s| s.hello).unwrap_or(h.game == 0);
        if !(hello && played) {
            return;
        }
        let games = h.games.unwrap_or(h.game + 1);
        self.stdin(
            pick(
                form,
                || line(&proto::hello(h.variant, h.players, seat, games, &limits)),
                || "hello".into(),
            ),
            None,
        );
        if let Some(s) = head.filter(|s| s.bot_name.is_some()) {
            self.out.push(RawLine {
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

    /// The events before `step` that the seat sees.
    fn events(&mut self, step: &Step) {
        let (h, seat, form) = (&self.sim.header, self.seat, self.form);
        for e in step.before.iter().filter(|e| e.to.sees(seat)) {
            let what = || {
                let kind = proto::EVENT_KINDS[proto::event_kind_index(&e.kind)];
                format!("a {kind:?} event")
            };
            self.stdin(
                pick(form, || line(&proto::event(h.game, &e.kind)), what),
                Some(step.number),
            );
        }
    }

    /// The seat's own request at `step` (not a forced move), its answer or refused line, and
    /// the stderr written while it decided.
    fn request(&mut self, step: &Step) {
        let (sim, h, seat, form) = (self.sim, &self.sim.header, self.seat, self.form);
        let json = form == Form::Json;
        let out = &mut self.out;
        if let (Some(d), Some(legal), Some(r)) = (step.decision, &step.legal, &step.request) {
            if d.seat == seat && !step.forced {
                let request = || {
                    let obs = step.state.observation(seat);
                    let time = r.time.unwrap_or_default();
                    line(&proto::request(
                        r.id,
                        h.game,
                        legal,
                        &obs,
                        time.move_ms,
                        time.bank_ms,
                    ))
                };
                let what = || format!("request {}", r.id);
                out.push(RawLine {
                    stream: Stream::Stdin,
                    text: pick(form, request, what),
                    step: Some(step.number),
                    exact: true,
                });
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
                        text: pick(form, || line(&proto::answer(r.id, mv)), String::new),
                        step: Some(step.number),
                        exact: false,
                    });
                }
                if json {
                    push_stderr_at(out, sim, seat, StderrAt::Request(r.id), Some(step.number));
                }
            }
        }
    }

    /// The seat's faults at `step`: the referee's error line for each (none once the bot is
    /// gone: a crash, a closed stdout, memory). True when the bot is gone.
    fn faults(&mut self, step: &Step, last_request: Option<u64>) -> bool {
        let (seat, form) = (self.seat, self.form);
        let mut gone = false;
        for f in step.faults.iter().filter(|f| f.seat == seat) {
            match f.kind.as_str() {
                // Nobody is listening: no error line (and no game_end is read).
                "crash" | "closed" | "memory" => gone = true,
                kind => {
                    let kind = FaultKind::from_recorded(kind);
                    let pointer = step
                        .refused
                        .as_ref()
                        .and_then(|r| refusal_of(step, seat, &r.line))
                        .and_then(|r| r.pointer);
                    let error = || {
                        line(&proto::error(
                            last_request,
                            kind,
                            f.rule.as_deref(),
                            pointer.as_deref(),
                            &f.detail,
                        ))
                    };
                    self.stdin(
                        pick(form, error, || "its error line".into()),
                        Some(step.number),
                    );
                }
            }
        }
        gone
    }

    /// `game_end`, as the referee sends it.
    fn game_end(&mut self) {
        let (sim, form) = (self.sim, self.form);
        let (h, end) = (&sim.header, sim.end());
        let faults: Vec<Fault> = end
            .faults
            .iter()
            .map(|f| Fault {
                seat: f.seat,
                kind: FaultKind::from_recorded(&f.kind),
                detail: f.detail.clone(),
                rule: f.rule.clone(),
            })
            .collect();
        let outcome = Outcome { loser: end.loser };
        self.stdin(
            pick(
                form,
                || line(&proto::game_end(h.game, outcome, &faults)),
                || "game_end".into(),
            ),
            sim.steps.last().map(|s| s.number),
        );
    }
}

/// A line as `form` says: the JSON (built only then) or the few words.
fn pick(form: Form, json: impl FnOnce() -> String, summary: impl FnOnce() -> String) -> String {
    match form {
        Form::Json => json(),
        Form::Summary => summary(),
    }
}

/// The refusal of a refused answer line, as the referee judged it (for its JSON pointer).
fn refusal_of(step: &Step, seat: Seat, line: &str) -> Option<Refusal> {
    let r = step.request.as_ref()?;
    proto::judge_answer(line.as_bytes(), r.id, &step.state, seat).err()
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
        if s.seat == seat && s.sent.is_none() && s.at == Some(at) && !s.text.is_empty() {
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
        if s.seat == seat && s.sent.is_none() && keep(s.at) && !s.text.is_empty() {
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
