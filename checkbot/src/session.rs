//! The scripted part of the suite: one bot process per group of positions (same variant and
//! table size), spoken to exactly as the referee would: hello, then per position a game
//! (`game_start`, the events its seat saw, the request of the scripted decision, then the rest of
//! the game against in-process greedy players, `game_end`), and `match_end` at the end.

use crate::deliver::deliver;
pub use crate::deliver::{io_problem, stderr_tail};
use crate::describe;
use crate::positions::{Position, BOT};
use crate::report::{fix_for, Check, Exchange, Problem, Status};
use durak_protocol::{self as proto, Fault, FaultKind, Limits, MessageKinds, Refusal};
use durak_referee::{BotCommand, BotProcess, IoFault};
use durak_rules::random::greedy_move;
use durak_rules::{Event, Game, Legal, Move, Outcome, Variant};
use std::time::Duration;

/// Bytes of the bot's stderr kept.
const STDERR_CAP: usize = 64 * 1024;

/// What the scripted part learned, beyond the per-position checks.
#[derive(Default)]
pub struct Findings {
    /// The first hello: name, version, milliseconds.
    pub hello: Option<(String, String, f64)>,
    /// The first start-up failure.
    pub start_problem: Option<Problem>,
    /// Every successful hello's time in ms.
    pub hello_times: Vec<f64>,
    /// (decision, ms) of every answer that arrived.
    pub times: Vec<(String, f64)>,
    /// Positions where an answer echoed the wrong id.
    pub wrong_ids: Vec<String>,
    /// Answers that echoed their request's id.
    pub ids_echoed: usize,
    /// Times a process that had finished a game went on to answer in the next one.
    pub games_continued: usize,
    /// "the bot exited after game_end of ..." notes.
    pub exited_between_games: Vec<String>,
    /// Matches (groups) after whose match_end the bot did not exit within 2 s.
    pub no_exit_after_match_end: Vec<String>,
    /// Matches after whose match_end the bot exited.
    pub exits_after_match_end: usize,
    /// Answers that timed out. After the first, later positions get no time bank, so that a
    /// bot that never answers is checked in seconds, not minutes.
    pub timeouts: usize,
    /// "prostoy, 2 players, game 1: the first "game_over" event" for each death while reading a
    /// message (see [`crate::deliver`]).
    pub died_reading: Vec<String>,
    /// The first of those deaths, with the end of the bot's stderr.
    pub first_death: Option<Problem>,
    /// The end of stderr of the first bot that ended between two games.
    pub between_stderr: Option<String>,
    /// The kinds of message (bits, [`crate::deliver`]) some process read and lived on.
    pub kinds_read: MessageKinds,
}

/// The first request id of a bot process, and the step between ids. The protocol lets the
/// referee choose ids (docs/PROTOCOL.md: "a number chosen by the referee"); these are not 1, 2,
/// 3, ..., so that a bot that counts its answers instead of copying the id fails here, and not
/// only in full games.
pub const FIRST_ID: u64 = 3;
pub const ID_STEP: u64 = 2;

pub struct Session<'a> {
    pub cmd: &'a BotCommand,
    pub limits: Limits,
    pub findings: Findings,
    /// The kinds of message the running process has read (bits, [`crate::deliver`]).
    pub read: MessageKinds,
    /// What the running process plays: "prostoy, 2 players".
    pub label: String,
}

fn refusal_problem(r: &Refusal, decision: &str) -> Problem {
    Problem {
        fault: r.kind.into(),
        rule: r.rule.map(str::to_string),
        pointer: r.pointer.clone(),
        message: r.message.clone(),
        fix: fix_for(r.kind.into(), r.rule, r.pointer.as_deref(), decision),
        stderr: None,
    }
}

/// How a game with the bot ended.
enum End {
    /// Played to the end; the bot is still running.
    Over(Outcome),
    /// The bot faulted: its process must go.
    Fault(FaultKind),
}

impl<'a> Session<'a> {
    pub fn new(cmd: &'a BotCommand, limits: Limits) -> Session<'a> {
        Session {
            cmd,
            limits,
            findings: Findings::default(),
            read: MessageKinds::EMPTY,
            label: String::new(),
        }
    }

    /// Start the bot and do the handshake. On success returns the process.
    pub async fn start(
        &mut self,
        variant: Variant,
        players: usize,
        games: u32,
    ) -> Result<BotProcess, Problem> {
        let limits = self.limits;
        self.read = MessageKinds::EMPTY;
        // The CPU limit of a bot process scales with the games of its match, as the referee's.
        let spawn = durak_referee::SpawnOptions {
            max_line: limits.max_line_bytes,
            stderr_cap: STDERR_CAP,
            context: durak_referee::isolation::Context {
                games,
                hidden: Vec::new(),
            },
        };
        let mut proc = BotProcess::spawn_with(self.cmd, &spawn).map_err(|e| Problem {
            fault: FaultKind::StartFailed.into(),
            rule: None,
            pointer: None,
            message: format!(
                "cannot start {:?}: {e}{}",
                self.cmd.spec,
                self.cmd
                    .cwd
                    .as_ref()
                    .map(|d| format!(" (in {})", d.display()))
                    .unwrap_or_default()
            ),
            fix: fix_for(FaultKind::StartFailed.into(), None, None, ""),
            stderr: None,
        })?;
        let startup = Duration::from_millis(limits.startup_ms);
        let hello = proto::hello(variant, players, BOT, games, &limits);
        let fail = |mut p: Problem, proc: &BotProcess| {
            p.stderr = stderr_tail(proc);
            p
        };
        // Ending before the hello is a failure to start, as the referee judges it
        // (a tournament disqualifies such a bot at once).
        let before_hello = |mut p: Problem, f: &IoFault| {
            if matches!(f, IoFault::Crash(_) | IoFault::Closed) {
                p.fault = FaultKind::StartFailed.into();
                p.message = format!("it ended before its hello: {}", p.message);
                p.fix = fix_for(FaultKind::StartFailed.into(), None, None, "");
            }
            p
        };
        if let Err(f) = proc.send(&hello, startup).await {
            let mut p = before_hello(io_problem(&f, "sent it hello", &limits, 0), &f);
            proc.kill().await;
            p = fail(p, &proc);
            return Err(p);
        }
        let line = match proc.answer(startup).await {
            Ok((line, time)) => (line, time.wall.as_secs_f64() * 1000.0),
            Err(f) => {
                let mut p = before_hello(io_problem(&f, "waited for its hello", &limits, 0), &f);
                if f == IoFault::Timeout {
                    p.message = format!(
                        "no hello within the start-up limit of {} ms",
                        limits.startup_ms
                    );
                    p.fix = "read the referee's hello line, then print your own hello at once \
                             and flush stdout: {\"type\": \"hello\", \"protocol\": 1, \"name\": \
                             \"my-bot\", \"version\": \"1.0\"}. Do slow set-up after it."
                        .into();
                }
                proc.kill().await;
                return Err(fail(p, &proc));
            }
        };
        let (line, ms) = line;
        let parsed = proto::parse_line(&line).and_then(|v| proto::parse_bot_hello(&v));
        match parsed {
            Ok(h) => {
                if self.findings.hello.is_none() {
                    self.findings.hello = Some((h.name, h.version, ms));
                }
                self.findings.hello_times.push(ms);
                Ok(proc)
            }
            Err(r) => {
                let mut p = refusal_problem(&r, "hello");
                p.message = format!(
                    "bad hello: {} (the line was {})",
                    p.message,
                    crate::report::truncate(&String::from_utf8_lossy(&line), 200)
                );
                if r.pointer.as_deref() != Some("/protocol") {
                    p.fix = "answer the referee's hello with exactly {\"type\": \"hello\", \
                             \"protocol\": 1, \"name\": \"my-bot\", \"version\": \"1.0\"} on one \
                             line (name: 1 to 64 characters, version: 1 to 32; no other fields)."
                        .into();
                }
                let _ = proc
                    .send(
                        &proto::error(None, r.kind, None, r.pointer.as_deref(), &r.message),
                        Duration::from_millis(200),
                    )
                    .await;
                proc.kill().await;
                Err(fail(p, &proc))
            }
        }
    }

    /// Play a group of positions (same variant and table size) as one match; one check each.
    pub async fn run_group(&mut self, positions: &[&Position]) -> Vec<Check> {
        let variant = positions[0].variant;
        let players = positions[0].players();
        let games = positions.len() as u32;
        let group = format!("{}, {players} players", variant.name());
        self.label = group.clone();
        let mut proc: Option<BotProcess> = None;
        let mut next_id: u64 = FIRST_ID;
        let mut losses = vec![0u32; players];
        let mut draws = 0;
        let mut checks = Vec::new();
        // Games the running process has finished (a crash before its first answer in the next
        // game, having read nothing of it, means it ended after game_end), and the bytes of its
        // stdin up to the last game_end.
        let mut finished = 0u32;
        let mut end_offset = 0u64;
        for (index, pos) in positions.iter().enumerate() {
            let index = index as u32;
            let mut check = Check::new(pos.id, pos.title, pos.rules, pos.purpose);
            if let Some(p) = proc.as_mut() {
                if let Some(status) = p.try_exit() {
                    self.findings.exited_between_games.push(format!(
                        "{group}: after game_end of game {}, the bot {} before the next \
                         game_start",
                        index - 1,
                        durak_referee::process::describe_exit(status)
                    ));
                    let mut p = proc.take().expect("live");
                    p.kill().await;
                    if self.findings.between_stderr.is_none() {
                        self.findings.between_stderr = stderr_tail(&p);
                    }
                }
            }
            if proc.is_none() {
                finished = 0;
                match self.start(variant, players, games).await {
                    Ok(p) => proc = Some(p),
                    Err(problem) if self.findings.hello.is_none() => {
                        // It never started: the hello check says why; the rest is skipped.
                        self.findings.start_problem = Some(problem);
                        for p in &positions[index as usize..] {
                            let mut c = Check::new(p.id, p.title, p.rules, p.purpose);
                            c.status = Status::Skip;
                            c.summary =
                                Some("not checked: the bot did not start (see hello)".into());
                            checks.push(c);
                        }
                        return checks;
                    }
                    Err(problem) => {
                        check.status = Status::Fail;
                        check.problem = Some(problem);
                        checks.push(check);
                        losses[BOT] += 1;
                        continue;
                    }
                }
            }
            let live = proc.as_mut().expect("live");
            match self
                .play_position(live, pos, index, &mut next_id, &mut check)
                .await
            {
                End::Over(outcome) => {
                    if finished > 0 {
                        self.findings.games_continued += 1;
                    }
                    finished += 1;
                    end_offset = live.bytes_written();
                    match outcome.loser {
                        Some(s) => losses[s] += 1,
                        None => draws += 1,
                    }
                }
                End::Fault(kind) => {
                    losses[BOT] += 1;
                    let answered = check.exchanges.iter().any(|x| x.answer.is_some());
                    if finished > 0 && answered {
                        // It lived on after game_end and answered in this game.
                        self.findings.games_continued += 1;
                    }
                    // Died before answering in this game after finishing one: it ended after
                    // game_end if it had read nothing of this game, else it died reading it.
                    let between = finished > 0
                        && !answered
                        && matches!(kind, FaultKind::Crash | FaultKind::Closed);
                    let read_on = live.bytes_read().unwrap_or(live.bytes_written()) > end_offset;
                    let last_line = live.last_line_read();
                    if between && !read_on {
                        self.ended_after_game_end(&group, index, &mut check);
                    } else if between {
                        died_reading_game(index, last_line, &mut check);
                    }
                    let mut p = proc.take().expect("live");
                    // Let the bot read its error and game_end, then stop it (as the referee).
                    if !matches!(kind, FaultKind::Crash | FaultKind::Closed) {
                        let _ = tokio::time::timeout(Duration::from_millis(300), async {
                            while p.try_exit().is_none() {
                                tokio::time::sleep(Duration::from_millis(5)).await;
                            }
                        })
                        .await;
                    }
                    p.kill().await;
                    if between && !read_on && self.findings.between_stderr.is_none() {
                        // Under the lifecycle check, which fails first.
                        self.findings.between_stderr = stderr_tail(&p);
                    }
                    // The end of stderr explains a crash, a hang or garbage on stdout (not a
                    // rule broken: that is the bot's logic, and stderr is its own log).
                    let explains = !matches!(kind, FaultKind::Illegal | FaultKind::Schema);
                    if let Some(x) = check
                        .exchanges
                        .iter_mut()
                        .rev()
                        .find(|x| x.problem.is_some())
                    {
                        if let (Some(pr), true) = (x.problem.as_mut(), explains) {
                            pr.stderr = pr.stderr.take().or_else(|| stderr_tail(&p));
                        }
                    }
                }
            }
            checks.push(check);
        }
        if let Some(mut p) = proc.take() {
            let end = proto::match_end(games, &losses, draws);
            let sent = p.send(&end, Duration::from_millis(500)).await.is_ok();
            // 2 s: a runtime on a busy machine takes a while to exit.
            let exited = sent
                && tokio::time::timeout(Duration::from_millis(2000), async {
                    while p.try_exit().is_none() {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                })
                .await
                .is_ok();
            if exited {
                self.findings.exits_after_match_end += 1;
            } else {
                self.findings.no_exit_after_match_end.push(group.clone());
            }
            p.kill().await;
        }
        checks
    }

    /// The bot died before answering anything in game `index`, after finishing the previous
    /// game: it ended after game_end. Say so, instead of a bare crash.
    fn ended_after_game_end(&mut self, group: &str, index: u32, check: &mut Check) {
        if let Some(p) = last_problem(check) {
            self.findings.exited_between_games.push(format!(
                "{group}: after game_end of game {}, {}",
                index - 1,
                p.message
            ));
            p.message = format!(
                "the bot ended after the previous game's game_end, before this game's first \
                 request ({})",
                p.message
            );
            p.fix = "keep reading stdin after game_end: the next game_start follows. Exit only \
                     after match_end (or when stdin closes)."
                .into();
        }
    }
}

/// The problem a check ended on: its last exchange's, else its own.
fn last_problem(check: &mut Check) -> Option<&mut Problem> {
    check
        .exchanges
        .iter_mut()
        .rev()
        .find_map(|x| x.problem.as_mut())
        .or(check.problem.as_mut())
}

/// The bot died before its first answer in game `index`, after reading some of that game's
/// messages (so it did not just exit after the previous game_end): say so, with the last line it
/// read.
fn died_reading_game(index: u32, last: Option<String>, check: &mut Check) {
    let Some(p) = last_problem(check) else {
        return;
    };
    let last = last.unwrap_or_default();
    let asked = last.starts_with(r#"{"type":"request""#);
    p.message = format!(
        "{}: it exited while reading events of game {index}{}, after the last line it read: \
         {last}",
        p.message,
        if asked {
            " (or deciding its request)"
        } else {
            ""
        }
    );
    p.fix = "read every message of a game and ignore what you do not use (docs/PROTOCOL.md, \
             \"event\"); look up a field only after checking it is there. The bot's stderr \
             (below) says where it failed."
        .into();
}

impl Session<'_> {
    /// Send the events `BOT` may see (see [`crate::deliver`]). `Err` with the problem if the bot
    /// stopped reading or died reading them.
    pub async fn send_events(
        &mut self,
        proc: &mut BotProcess,
        index: u32,
        events: &[Event],
    ) -> Result<(), Problem> {
        for e in events.iter().filter(|e| e.to.sees(BOT)) {
            let kind = MessageKinds::event(&e.kind);
            self.deliver(proc, index, &proto::event(index, &e.kind), kind)
                .await?;
        }
        Ok(())
    }

    /// [`deliver`] one message of game `index`; a death while reading it is noted.
    pub async fn deliver(
        &mut self,
        proc: &mut BotProcess,
        index: u32,
        msg: &impl serde::Serialize,
        kind: MessageKinds,
    ) -> Result<(), Problem> {
        let r = deliver(proc, &mut self.read, msg, kind, &self.limits).await;
        self.findings.kinds_read.insert(self.read);
        if let (Err(p), false, Some(_)) = (&r, self.read.contains(kind), proc.try_exit()) {
            if self.findings.first_death.is_none() {
                self.findings.first_death = Some(p.clone());
            }
            self.findings.died_reading.push(format!(
                "{}, game {index}: the first {}",
                self.label,
                kind.name()
            ));
        }
        r
    }

    async fn play_position(
        &mut self,
        proc: &mut BotProcess,
        pos: &Position,
        index: u32,
        next_id: &mut u64,
        check: &mut Check,
    ) -> End {
        let variant = pos.variant;
        let (mut game, start) = pos.play_script();
        let limits = self.limits;
        let fail_without_exchange = |check: &mut Check, p: Problem| {
            check.status = Status::Fail;
            // Every problem here is the bot's (its process, or its answer).
            let kind = p.fault.fault().unwrap_or(FaultKind::Crash);
            check.problem = Some(p);
            End::Fault(kind)
        };
        let gs = proto::game_start(
            index,
            variant,
            pos.players(),
            BOT,
            pos.dealer,
            pos.first_game,
        );
        if let Err(p) = self
            .deliver(proc, index, &gs, MessageKinds::GAME_START)
            .await
        {
            return fail_without_exchange(check, p);
        }
        if let Err(p) = self.send_events(proc, index, &start).await {
            return fail_without_exchange(check, p);
        }
        let mut bank = if self.findings.timeouts > 0 {
            0
        } else {
            limits.bank_ms
        };
        let mut asked = 0usize;
        let mut events = Vec::new();
        while let Some(legal) = game.legal() {
            let seat = legal.decision.seat;
            let forced = legal.forced_move(variant);
            let mv = if seat != BOT {
                forced.unwrap_or_else(|| greedy_move(&legal, game.trump()))
            } else if let (Some(m), true) = (forced, asked > 0) {
                m
            } else {
                let id = *next_id;
                *next_id += ID_STEP;
                let label = if asked == 0 {
                    "the scripted decision".to_string()
                } else {
                    format!(
                        "request {id} ({}), later in the same game (the scripted decision was \
                         answered legally; the game went on against greedy players)",
                        legal.decision.kind.name()
                    )
                };
                asked += 1;
                let (x, mv) = self
                    .ask(proc, &game, &legal, index, id, &mut bank, label)
                    .await;
                let first = asked == 1;
                match mv {
                    Some(mv) => {
                        if first {
                            check.exchanges.push(x);
                        }
                        mv
                    }
                    None => {
                        let p = x.problem.clone().expect("a refused answer has a problem");
                        if p.pointer.as_deref() == Some("/id") {
                            self.findings.wrong_ids.push(pos.id.to_string());
                        }
                        check.exchanges.push(x);
                        check.status = Status::Fail;
                        let kind = p.fault.fault().unwrap_or(FaultKind::Crash);
                        if kind == FaultKind::Timeout {
                            self.findings.timeouts += 1;
                        }
                        if !matches!(kind, FaultKind::Crash | FaultKind::Closed) {
                            let text = match &p.rule {
                                Some(r) => format!("{r}: {}", p.message),
                                None => p.message.clone(),
                            };
                            let _ = proc
                                .send(
                                    &proto::error(
                                        Some(id),
                                        kind,
                                        p.rule.as_deref(),
                                        p.pointer.as_deref(),
                                        &text,
                                    ),
                                    Duration::from_millis(100),
                                )
                                .await;
                            let fault = Fault {
                                seat: BOT,
                                kind,
                                detail: text.clone(),
                                rule: p.rule.clone(),
                            };
                            let end = Outcome { loser: Some(BOT) };
                            let _ = proc
                                .send(
                                    &proto::game_end(index, end, &[fault]),
                                    Duration::from_millis(200),
                                )
                                .await;
                        }
                        return End::Fault(kind);
                    }
                }
            };
            events.clear();
            game.apply_into(seat, &mv, &mut events)
                .expect("every move played here is legal");
            if let Err(p) = self.send_events(proc, index, &events).await {
                return fail_without_exchange(check, p);
            }
        }
        let outcome = game.outcome().expect("the game is over");
        let result = match outcome.loser {
            Some(BOT) => "you were the durak".to_string(),
            Some(s) => format!("seat {s} was the durak"),
            None => "a draw".to_string(),
        };
        check.details.push(format!(
            "then the game went on to its end against greedy players: {} more request{}, all \
             answered legally; {result}",
            asked - 1,
            if asked == 2 { "" } else { "s" }
        ));
        let end = proto::game_end(index, outcome, &[]);
        if let Err(p) = self
            .deliver(proc, index, &end, MessageKinds::GAME_END)
            .await
        {
            return fail_without_exchange(check, p);
        }
        End::Over(outcome)
    }

    /// Send one request and judge the answer: schema, id, rules. Returns the exchange and the
    /// move when it is legal.
    #[allow(clippy::too_many_arguments)]
    pub async fn ask(
        &mut self,
        proc: &mut BotProcess,
        game: &Game,
        legal: &Legal,
        index: u32,
        id: u64,
        bank: &mut u64,
        label: String,
    ) -> (Exchange, Option<Move>) {
        let limits = self.limits;
        let obs = game.observation(BOT);
        let req = proto::request(id, index, legal, &obs, limits.move_ms, *bank);
        let line = serde_json::to_string(&req).expect("json");
        let decision = legal.decision.kind.name();
        let mut x = Exchange {
            label,
            id,
            decision: decision.into(),
            summary: describe::request(&obs, legal),
            request: line.clone(),
            answer: None,
            elapsed_ms: None,
            verdict: String::new(),
            problem: None,
        };
        let total = Duration::from_millis(limits.move_ms + *bank);
        let fail = |x: &mut Exchange, p: Problem| {
            x.verdict = format!("{}: {}", p.fault, p.message);
            x.problem = Some(p);
        };
        let mut raw = line.into_bytes();
        raw.push(b'\n');
        if let Err(f) = proc.send_raw(&raw, total).await {
            let mut p = io_problem(&f, "sent it a request", &limits, *bank);
            p.stderr = stderr_tail(proc);
            fail(&mut x, p);
            return (x, None);
        }
        // The referee's clock (durak_referee::clock): from the request's last byte written,
        // charging the bot only its own time.
        let (bytes, time) = match proc.answer(total).await {
            Ok(r) => r,
            Err(f) => {
                let mut p = io_problem(&f, "waited for its answer", &limits, *bank);
                p.stderr = stderr_tail(proc);
                fail(&mut x, p);
                return (x, None);
            }
        };
        let ms = time.wall.as_secs_f64() * 1000.0;
        *bank = bank.saturating_sub((time.own.as_millis() as u64).saturating_sub(limits.move_ms));
        x.elapsed_ms = Some((ms * 1000.0).round() / 1000.0);
        x.answer = Some(String::from_utf8_lossy(&bytes).into_owned());
        self.findings.times.push((decision.to_string(), ms));
        match proto::judge_answer(&bytes, id, game, BOT) {
            Ok(mv) => {
                self.findings.ids_echoed += 1;
                x.verdict = describe::move_text(&mv, legal);
                (x, Some(mv))
            }
            Err(r) => {
                if r.echoed_the_id() {
                    self.findings.ids_echoed += 1;
                }
                fail(&mut x, refusal_problem(&r, decision));
                (x, None)
            }
        }
    }
}
