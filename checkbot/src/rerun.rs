//! `durak rerun REPLAY --step N BOT`: re-run one decision of a recorded game. BOT is started
//! fresh and fed exactly what the deciding seat read in that game up to step N (rebuilt from the
//! replay: `durak_replay::raw`), answering its earlier requests along the way; its answer to
//! step N's request is judged like the referee's and shown beside the recorded one. An author
//! fixes a decision and checks the fix without playing the match again.

use crate::describe;
use durak_protocol::{self as proto, FaultKind};
use durak_referee::{BotCommand, BotProcess};
use durak_replay::raw::{self, NoSuchSeat, RawLine, Stream};
use durak_replay::sim::Simulation;
use durak_rules::{Move, Seat};
use std::fmt::Write;
use std::time::Duration;

/// Why a decision could not be re-run: each message names the option or the step and what is
/// there instead.
#[derive(Debug, thiserror::Error)]
pub enum RerunError {
    #[error("--step {step}: this game has steps 1 to {steps}")]
    NoSuchStep { step: usize, steps: usize },
    /// The step is not a request (`what` it is), with the requests near it.
    #[error("--step {step}: step {step} is {what}; the requests near it are steps {near}")]
    NotARequest {
        step: usize,
        what: &'static str,
        near: String,
    },
    #[error(transparent)]
    Transcript(#[from] NoSuchSeat),
    #[error("step {step}: its request is not in seat {seat}'s lines")]
    RequestMissing { step: usize, seat: Seat },
    #[error("cannot start {spec:?}: {source}")]
    CannotStart {
        spec: String,
        source: std::io::Error,
    },
}

/// What the re-run gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Rerun {
    pub step: usize,
    pub seat: Seat,
    pub request_id: u64,
    /// The request in words, and as sent.
    pub summary: String,
    pub request: String,
    /// What the bot answered in the game: the line (for a refused one), the move in words, or
    /// why nothing came.
    pub recorded: String,
    /// The new answer line, its time, and the referee's verdict on it.
    pub answer: Option<String>,
    pub elapsed_ms: Option<f64>,
    pub verdict: String,
    /// The new answer is a legal move.
    pub legal: bool,
    /// The new answer is the recorded move (`None`: nothing to compare).
    pub same: Option<bool>,
    /// What was fed before the request, in words.
    pub fed: String,
    /// Earlier answers that differ from the recorded ones.
    pub earlier: Vec<String>,
    /// Notes (a process that had played earlier games, lines the replay cannot give exactly).
    pub notes: Vec<String>,
    /// The end of the bot's stderr.
    pub stderr: Option<String>,
}

/// The steps of `sim` that are requests (a bot's own decision), with their seat.
pub fn request_steps(sim: &Simulation) -> Vec<(usize, Seat)> {
    sim.steps
        .iter()
        .filter(|s| s.request.is_some() && !s.forced)
        .filter_map(|s| s.decision.map(|d| (s.number, d.seat)))
        .collect()
}

fn move_words(m: &Move, step: &durak_replay::Step) -> String {
    match &step.legal {
        Some(l) => describe::move_text(m, l),
        None => m.name().to_string(),
    }
}

/// Re-run step `n` (1-based) of `sim` with the bot `cmd`.
pub async fn rerun(sim: &Simulation, n: usize, cmd: &BotCommand) -> Result<Rerun, RerunError> {
    let (step, seat) = the_request(sim, n)?;
    let legal = step
        .legal
        .as_ref()
        .expect("a request has its legal choices");
    let req = step.request.as_ref().expect("a request step");
    let limits = seat_limits(sim, seat);
    let mut notes = Vec::new();
    let feed = feed_for(sim, n, seat, &limits, &mut notes)?;
    let recorded = recorded_answer(step, req.id);
    let mut proc = BotProcess::spawn(cmd, limits.max_line_bytes, 64 * 1024).map_err(|source| {
        RerunError::CannotStart {
            spec: cmd.spec.clone(),
            source,
        }
    })?;
    let mut fed = Fed::default();
    let result = fed.feed(&mut proc, &feed, sim, n, &limits).await;
    proc.kill().await;
    let (text, _) = proc.stderr_text();
    let stderr = Some(text.trim_end().to_string())
        .filter(|t| !t.is_empty())
        .map(|t| {
            let lines: Vec<&str> = t.lines().collect();
            lines[lines.len().saturating_sub(12)..].join("\n")
        });
    let mut out = Rerun {
        step: n,
        seat,
        request_id: req.id,
        summary: describe::request(&step.state.observation(seat), legal),
        request: feed.last().map(|l| l.text.clone()).unwrap_or_default(),
        recorded,
        answer: None,
        elapsed_ms: None,
        verdict: String::new(),
        legal: false,
        same: None,
        fed: fed.words(&feed, seat),
        earlier: fed.earlier,
        notes,
        stderr,
    };
    match result {
        Err(e) => out.verdict = e.to_string(),
        Ok((line, ms)) => {
            out.elapsed_ms = Some((ms * 1000.0).round() / 1000.0);
            out.verdict = match judge(&line, req.id, step, seat) {
                Ok(m) => {
                    out.legal = true;
                    out.same = step.mv.as_ref().map(|r| *r == m);
                    format!("legal: {}", move_words(&m, step))
                }
                Err((kind, msg)) => {
                    out.same = Some(step.refused.as_ref().is_some_and(|r| r.line == line));
                    format!("refused ({kind}): {msg}")
                }
            };
            out.answer = Some(line);
        }
    }
    Ok(out)
}

/// Step `n` and its seat, when it is a request (a bot's own decision); else why not, with the
/// requests near it.
fn the_request(sim: &Simulation, n: usize) -> Result<(&durak_replay::Step, Seat), RerunError> {
    let steps = request_steps(sim);
    let Some(step) = sim.steps.get(n.wrapping_sub(1)) else {
        return Err(RerunError::NoSuchStep {
            step: n,
            steps: sim.steps.len(),
        });
    };
    let Some(&(_, seat)) = steps.iter().find(|(s, _)| *s == n) else {
        let what = if step.end.is_some() {
            "the end of the game"
        } else if step.forced {
            "a forced move (R-1: the referee played the only legal answer, nobody was asked)"
        } else {
            "not a request"
        };
        let near: Vec<String> = steps
            .iter()
            .filter(|(s, _)| s.abs_diff(n) <= 6)
            .map(|(s, seat)| format!("{s} (seat {seat})"))
            .collect();
        return Err(RerunError::NotARequest {
            step: n,
            what,
            near: if near.is_empty() {
                "none".to_string()
            } else {
                near.join(", ")
            },
        });
    };
    Ok((step, seat))
}

/// The seat's limits, as recorded (the defaults for a replay without them).
fn seat_limits(sim: &Simulation, seat: Seat) -> proto::Limits {
    sim.header
        .seats
        .iter()
        .find(|s| s.seat == seat)
        .and_then(|s| s.limits.clone())
        .map(|l| proto::Limits {
            startup_ms: l.startup_ms,
            move_ms: l.move_ms,
            bank_ms: l.bank_ms,
            max_line_bytes: l.max_line_bytes as usize,
        })
        .unwrap_or_default()
}

/// What the bot is fed: the seat's stdin lines up to and including step `n`'s request, after a
/// hello of its own when the recorded process had played earlier games (with a note).
fn feed_for(
    sim: &Simulation,
    n: usize,
    seat: Seat,
    limits: &proto::Limits,
    notes: &mut Vec<String>,
) -> Result<Vec<RawLine>, RerunError> {
    let lines = raw::transcript(sim, seat)?;
    let h = &sim.header;
    let mut feed: Vec<RawLine> = lines
        .into_iter()
        .filter(|l| l.stream == Stream::Stdin && l.step.is_none_or(|s| s <= n))
        .collect();
    // Up to and including step n's request.
    let cut = feed
        .iter()
        .position(|l| l.step == Some(n) && l.text.starts_with("{\"type\":\"request\""))
        .ok_or(RerunError::RequestMissing { step: n, seat })?;
    feed.truncate(cut + 1);
    if !feed[0].text.starts_with("{\"type\":\"hello\"") {
        let hello_line = RawLine {
            stream: Stream::Stdin,
            text: serde_json::to_string(&proto::hello(
                h.variant,
                h.players,
                seat,
                h.games.unwrap_or(h.game + 1),
                limits,
            ))
            .expect("json"),
            step: None,
            exact: true,
        };
        feed.insert(0, hello_line);
        notes.push(format!(
            "in the match, seat {seat}'s process had played earlier games before game {}: this \
             one starts fresh at this game (a bot that learns across games may answer otherwise)",
            h.game
        ));
    }
    Ok(feed)
}

/// The recorded answer to request `id`, in words.
fn recorded_answer(step: &durak_replay::Step, id: u64) -> String {
    match (&step.refused, &step.mv) {
        (Some(r), _) => format!("{} (refused: {})", r.line, r.reason),
        (None, Some(m)) => format!(
            "{} ({})",
            serde_json::to_string(&proto::answer(id, m)).expect("json"),
            move_words(m, step)
        ),
        (None, None) => match step.faults.first() {
            Some(f) => format!("no answer ({}: {})", f.kind, f.detail),
            None => "no answer".into(),
        },
    }
}

/// Why the bot gave no answer to the step's request: the rerun's verdict.
#[derive(Debug, thiserror::Error)]
enum NoAnswer {
    /// Its input could not be written (`IoFault`, debug-printed).
    #[error("the bot stopped reading its input ({0})")]
    StoppedReading(String),
    /// No hello or no answer within the limit.
    #[error("the bot gave no {what} ({fault})")]
    Silent { what: &'static str, fault: String },
    #[error("the request of the step was never sent")]
    NeverSent,
}

/// What feeding the bot found before step `n`'s request.
#[derive(Default)]
struct Fed {
    /// Earlier answers that differ from the recorded ones.
    earlier: Vec<String>,
    requests: usize,
    events: usize,
}

impl Fed {
    /// Feed the bot `feed`, a line at a time, reading its hello and its answers: the answer to
    /// step `n`'s request and its time in ms, or why there is none.
    async fn feed(
        &mut self,
        proc: &mut BotProcess,
        feed: &[RawLine],
        sim: &Simulation,
        n: usize,
        limits: &proto::Limits,
    ) -> Result<(String, f64), NoAnswer> {
        for l in feed {
            let mut bytes = l.text.clone().into_bytes();
            bytes.push(b'\n');
            let is_request = l.text.starts_with("{\"type\":\"request\"");
            let is_hello = l.text.starts_with("{\"type\":\"hello\"");
            self.events += usize::from(l.text.starts_with("{\"type\":\"event\""));
            let limit = if is_hello {
                Duration::from_millis(limits.startup_ms.max(1000))
            } else {
                Duration::from_millis((limits.move_ms + limits.bank_ms).max(1000))
            };
            proc.send_raw(&bytes, limit)
                .await
                .map_err(|f| NoAnswer::StoppedReading(format!("{f:?}")))?;
            if !is_request && !is_hello {
                continue;
            }
            let (answer, time) = proc.answer(limit).await.map_err(|f| NoAnswer::Silent {
                what: if is_hello { "hello" } else { "answer" },
                fault: format!("{f:?}"),
            })?;
            if is_hello {
                continue;
            }
            let elapsed = time.wall.as_secs_f64() * 1000.0;
            if l.step == Some(n) {
                return Ok((String::from_utf8_lossy(&answer).into_owned(), elapsed));
            }
            self.requests += 1;
            // An earlier request: compare with what was recorded.
            let s = &sim.steps[l.step.expect("a request has a step") - 1];
            let now = proto::parse_line(&answer)
                .and_then(|v| proto::parse_answer(&v))
                .map(|(_, m)| m);
            if let (Ok(m), Some(rec)) = (&now, &s.mv) {
                if m != rec {
                    self.earlier.push(format!(
                        "step {}: now {}, recorded {}",
                        s.number,
                        move_words(m, s),
                        move_words(rec, s)
                    ));
                }
            } else if now.is_err() {
                self.earlier.push(format!(
                    "step {}: now {:?}, which the referee would refuse",
                    s.number,
                    String::from_utf8_lossy(&answer)
                ));
            }
        }
        Err(NoAnswer::NeverSent)
    }

    /// What was fed before the request, in words.
    fn words(&self, feed: &[RawLine], seat: Seat) -> String {
        let (events, requests) = (self.events, self.requests);
        format!(
            "{} line{}: {}{events} event{}, {requests} earlier request{} of seat {seat}",
            feed.len(),
            if feed.len() == 1 { "" } else { "s" },
            if feed[0].text.starts_with("{\"type\":\"hello\"") {
                "hello, game_start, "
            } else {
                ""
            },
            if events == 1 { "" } else { "s" },
            if requests == 1 { "" } else { "s" },
        )
    }
}

/// The referee's judgement of an answer line to request `id` at `step`.
fn judge(
    line: &str,
    id: u64,
    step: &durak_replay::Step,
    seat: Seat,
) -> Result<Move, (FaultKind, String)> {
    proto::judge_answer(line.as_bytes(), id, &step.state, seat)
        .map_err(|r| (r.kind, r.detail().into_owned()))
}

impl Rerun {
    /// The result for people (the bot's text escaped).
    pub fn to_text(&self, source: &str, command: &str) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "durak rerun: step {} of {source}, seat {} ({command})",
            self.step, self.seat
        );
        let _ = writeln!(o, "  fed: {}", self.fed);
        for n in &self.notes {
            let _ = writeln!(o, "  note: {n}");
        }
        if self.earlier.is_empty() {
            let _ = writeln!(o, "  its earlier answers in this game: as recorded");
        } else {
            let _ = writeln!(o, "  its earlier answers that differ from the game's:");
            for e in &self.earlier {
                let _ = writeln!(o, "    {e}");
            }
        }
        let _ = writeln!(o, "\nrequest {}: {}", self.request_id, self.summary);
        let _ = writeln!(o, "  {}", crate::report::elide(&self.request, 100, 220));
        let _ = writeln!(o, "\nrecorded answer: {}", self.recorded);
        match (&self.answer, self.elapsed_ms) {
            (Some(a), Some(ms)) => {
                let _ = writeln!(o, "new answer ({ms:.2} ms):  {a}");
            }
            _ => {
                let _ = writeln!(o, "new answer: none");
            }
        }
        let _ = writeln!(o, "  verdict: {}", self.verdict);
        match self.same {
            Some(true) => {
                let _ = writeln!(o, "  the same as the recorded answer");
            }
            Some(false) => {
                let _ = writeln!(o, "  DIFFERENT from the recorded answer");
            }
            None => {}
        }
        if let Some(e) = &self.stderr {
            let _ = writeln!(o, "\nthe bot's stderr ended with:");
            for l in e.lines() {
                let _ = writeln!(o, "  | {l}");
            }
        }
        durak_protocol::text::escape_controls_multiline(&o).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict of a bot that gave no answer reads as it did when it was a String.
    #[test]
    fn no_answer_says_why_in_the_verdicts_words() {
        assert_eq!(
            NoAnswer::StoppedReading("Closed".into()).to_string(),
            "the bot stopped reading its input (Closed)"
        );
        let silent = NoAnswer::Silent {
            what: "hello",
            fault: "Timeout".into(),
        };
        assert_eq!(silent.to_string(), "the bot gave no hello (Timeout)");
        assert_eq!(
            NoAnswer::NeverSent.to_string(),
            "the request of the step was never sent"
        );
    }

    /// A step that is no request says what it is and which requests are near, in the words
    /// `durak rerun` always printed.
    #[test]
    fn a_step_that_is_no_request_names_the_requests_near_it() {
        let e = RerunError::NotARequest {
            step: 7,
            what: "not a request",
            near: "5 (seat 0), 8 (seat 1)".into(),
        };
        assert_eq!(
            e.to_string(),
            "--step 7: step 7 is not a request; the requests near it are steps 5 (seat 0), 8 \
             (seat 1)"
        );
        let e = RerunError::NoSuchStep {
            step: 99,
            steps: 40,
        };
        assert_eq!(e.to_string(), "--step 99: this game has steps 1 to 40");
    }
}
