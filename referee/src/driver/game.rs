//! One game of a match: the bots started (or restarted) for it, the deal, every decision asked
//! and judged ([`ask`]: request, timed answer, schema, id and rule checks), the events each seat
//! may see, the end (`game_over`, `game_end`) and the replay's lines.

use super::faults::{
    died_between_answers, explain_start_failure, io_fault, shown, stderr_lines,
    KILLED_ITS_SUPERVISOR,
};
use super::*;

struct GameRun<'a> {
    cfg: &'a MatchConfig,
    index: u32,
    log: ReplayLog,
    faults: Vec<Fault>,
    /// The open request's id and, for a schema refusal, the JSON pointer: for the `error` line.
    error_context: (Option<u64>, Option<String>),
    /// A bot the machine starved past the hard cap (see [`crate::clock::HARD_CAP`]): the seat
    /// and what happened. The game is voided, nobody loses, and the match plays it again.
    starved: Option<(Seat, String)>,
}

impl GameRun<'_> {
    /// Send events to the live bots that may see them, and log them.
    async fn broadcast(&mut self, seats: &mut [SeatState], events: &[Event]) {
        for e in events {
            let to = match e.to {
                Audience::All => None,
                Audience::Seat(s) => Some(s),
            };
            self.log.push(ReplayLine::Event {
                to,
                event: proto::EventSer(&e.kind),
            });
            let msg = proto::event(self.index, &e.kind);
            let kind = MessageKinds::event(&e.kind);
            for (seat, s) in seats.iter_mut().enumerate() {
                if !e.to.sees(seat) {
                    continue;
                }
                if let Some(live) = s.live.as_mut() {
                    let limit = Duration::from_millis(self.cfg.seats[seat].limits.move_ms.max(100));
                    live.kinds.unread.insert(kind);
                    if let Err(f) = live.proc.send_later(&msg, limit).await {
                        let limits = self.cfg.seats[seat].limits;
                        let f = io_fault(seat, f, "reading its input (events)", limits.move_ms, 0);
                        self.fault(seats, f).await;
                        return;
                    }
                }
            }
        }
    }

    async fn fault(&mut self, seats: &mut [SeatState], mut f: Fault) {
        let seat = f.seat;
        // A process that finished a game and died before saying anything in this one: if it
        // had read nothing of this game, it most likely exits on game_end; otherwise it died
        // reading this game's first messages (or deciding). Say which, rather than a bare crash.
        if let Some(live) = seats[seat].live.as_mut() {
            // Exited by itself with a status code (not killed by a signal: a CPU limit, a
            // segfault), in a game it said nothing in, after finishing one.
            let exited = f.kind == FaultKind::Crash
                && !live.proc.is_human()
                && live.proc.try_exit().is_some_and(|st| st.code().is_some());
            if exited && live.games_done > 0 && !live.answered {
                f.detail.push_str(&died_between_answers(
                    &live.proc,
                    live.end_offset,
                    self.index,
                ));
            }
        }
        self.log.push(ReplayLine::Fault(FaultRecord::from(&f)));
        if let Some(live) = seats[seat].live.as_mut() {
            if !matches!(f.kind, FaultKind::Crash | FaultKind::Closed) {
                let _ = live
                    .proc
                    .send(
                        &proto::error(
                            self.error_context.0,
                            f.kind,
                            f.rule.as_deref(),
                            self.error_context.1.as_deref(),
                            &f.detail,
                        ),
                        Duration::from_millis(100),
                    )
                    .await;
            }
        }
        self.faults.push(f);
    }
}

pub(super) async fn play_game(
    cfg: &MatchConfig,
    series: &mut Series,
    seats: &mut [SeatState],
    index: u32,
    deal: Option<(Setup, u64)>,
) -> std::io::Result<(GameRecord, Option<ReplayLog>)> {
    let started = Instant::now();
    let (setup, seed) = deal.unwrap_or_else(|| (series.next_setup(), series.next_seed()));
    let mut game = Game::new(setup, seed)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut run = GameRun {
        cfg,
        index,
        log: ReplayLog::default(),
        faults: Vec::new(),
        error_context: (None, None),
        starved: None,
    };
    let (started_now, start_stderr) = run.start_seats(seats).await;
    run.log
        .push(header(cfg, seats, &game, setup, seed, index, &started_now));
    for f in &run.faults {
        run.log.push(ReplayLine::Fault(f.into()));
    }
    for line in start_stderr {
        run.log.push(line);
    }
    let mut outcome = run.open(seats, &game, setup).await;
    let mut move_limit = None;
    if outcome.is_none() {
        let (o, limit) = run.play_moves(seats, &mut game).await?;
        outcome = Some(o);
        move_limit = limit;
    }
    let mut outcome = outcome.expect("an outcome, or the moves played to one");
    // A bot that dies reading this game's last events dies in this game.
    if run.faults.is_empty() && run.starved.is_none() {
        settle_tails(cfg, seats, &mut run).await;
        run.first_fault_loses(&mut outcome);
    }
    if run.faults.is_empty() {
        run.charge_killed_supervisors(seats).await;
        run.first_fault_loses(&mut outcome);
    }
    run.end(seats, outcome).await;
    Ok(run.record(
        series,
        &game,
        (setup, seed),
        outcome,
        move_limit,
        started.elapsed().as_millis() as u64,
    ))
}

/// The replay's first line: the game, the deck, every seat (`started_now`: sent its hello for
/// this game).
fn header(
    cfg: &MatchConfig,
    seats: &[SeatState],
    game: &Game,
    setup: Setup,
    seed: u64,
    index: u32,
    started_now: &[bool],
) -> HeaderLine {
    HeaderLine {
        kind: Default::default(),
        format: proto::replay::REPLAY_FORMAT,
        referee: Some(concat!("durak-referee ", env!("CARGO_PKG_VERSION")).to_string()),
        variant: cfg.variant.name().to_string(),
        players: seats.len(),
        series_seed: cfg.seed,
        game: index,
        seed,
        dealer: setup.dealer,
        first_game: setup.first_game,
        max_moves: Some(cfg.max_moves),
        games: Some(cfg.games),
        deck: game.deck().cards().iter().map(|c| c.to_string()).collect(),
        seats: seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatHeader {
                seat: i,
                name: s.info.name.clone(),
                command: s.info.command.clone(),
                bot_name: s.info.bot_name.clone(),
                bot_version: s.info.bot_version.clone(),
                limits: Some(cfg.seats[i].limits.into()),
                hello: Some(started_now[i]),
            })
            .collect(),
    }
}

impl GameRun<'_> {
    /// The first fault's seat loses.
    fn first_fault_loses(&self, outcome: &mut Outcome) {
        if let Some(f) = self.faults.first() {
            *outcome = Outcome {
                loser: Some(f.seat),
            };
        }
    }

    /// Start (or restart) every bot that is not running; a bot that cannot start loses. A game
    /// with a forfeit is not played: nobody else is started for it. Returns the seats whose
    /// process was started (and sent its hello) for this game, and the stderr of those that
    /// failed to start.
    async fn start_seats(
        &mut self,
        seats: &mut [SeatState],
    ) -> (Vec<bool>, Vec<ReplayLine<'static>>) {
        let cfg = self.cfg;
        let n = cfg.seats.len();
        let mut start_stderr = Vec::new();
        let mut started_now = vec![false; n];
        let forfeits = (0..n).any(|seat| cfg.forfeit.get(seat).copied().unwrap_or(false));
        #[allow(clippy::needless_range_loop)] // seat numbers index cfg.seats, cfg.forfeit and seats
        for seat in 0..n {
            if cfg.forfeit.get(seat).copied().unwrap_or(false) {
                self.faults.push(Fault {
                    seat,
                    kind: FaultKind::Forfeit,
                    detail: "disqualified earlier in the tournament; not started".into(),
                    rule: None,
                });
                continue;
            }
            if let Some(detail) = seats[seat].pending.take() {
                self.faults.push(Fault {
                    seat,
                    kind: FaultKind::Crash,
                    detail,
                    rule: None,
                });
                continue;
            }
            if seats[seat].live.is_none() && !forfeits {
                match start_bot(cfg, seat).await {
                    Ok((proc, hello)) => {
                        started_now[seat] = true;
                        seats[seat].info.bot_name = Some(hello.name);
                        seats[seat].info.bot_version = Some(hello.version);
                        seats[seat].live = Some(Live {
                            proc,
                            games_done: 0,
                            answered: false,
                            end_offset: 0,
                            kinds: Kinds::default(),
                        });
                    }
                    Err((mut f, proc)) => {
                        if let Some(mut p) = proc {
                            let dir = p.private_dir().map(|d| d.to_path_buf());
                            p.kill().await;
                            if f.kind == FaultKind::StartFailed {
                                explain_start_failure(&mut f, &p, dir);
                            }
                            start_stderr.extend(stderr_lines(seat, p.take_stderr().await));
                        }
                        self.faults.push(f);
                    }
                }
            }
        }
        // What the bots kept from the previous game wrote since its end is this game's start.
        for s in seats.iter_mut() {
            if let Some(live) = &mut s.live {
                live.proc.new_game_stderr();
            }
        }
        (started_now, start_stderr)
    }

    /// The game's opening: decided already when no seat could play (a draw) or one faulted
    /// starting; else every bot is sent `game_start` and the deal's events. Returns the
    /// outcome when the game ends there.
    async fn open(
        &mut self,
        seats: &mut [SeatState],
        game: &Game,
        setup: Setup,
    ) -> Option<Outcome> {
        let (cfg, n) = (self.cfg, seats.len());
        if proto::nobody_played(n, self.faults.iter().map(|f| f.seat)) {
            // No seat could play (each forfeited or failed to start): nobody wins, a draw, so
            // that bots that never play do not collect wins against each other.
            return Some(Outcome { loser: None });
        }
        if let Some(f) = self.faults.first() {
            return Some(Outcome {
                loser: Some(f.seat),
            });
        }
        for (seat, s) in seats.iter_mut().enumerate() {
            let msg = proto::game_start(
                self.index,
                cfg.variant,
                n,
                seat,
                setup.dealer,
                setup.first_game,
            );
            if let Some(live) = s.live.as_mut() {
                let limit = Duration::from_millis(cfg.seats[seat].limits.move_ms.max(100));
                live.kinds.unread.insert(MessageKinds::GAME_START);
                if let Err(f) = live.proc.send_later(&msg, limit).await {
                    let limits = cfg.seats[seat].limits;
                    let f = io_fault(seat, f, "reading game_start", limits.move_ms, 0);
                    self.fault(seats, f).await;
                    break;
                }
            }
        }
        if self.faults.is_empty() {
            let start = game.start_events();
            self.broadcast(seats, &start).await;
        }
        self.faults.first().map(|f| Outcome {
            loser: Some(f.seat),
        })
    }

    /// Every decision until the game ends: forced moves applied, the others asked and judged.
    /// Returns the outcome and, when the referee ended the game at its move limit, that limit.
    async fn play_moves(
        &mut self,
        seats: &mut [SeatState],
        game: &mut Game,
    ) -> std::io::Result<(Outcome, Option<u32>)> {
        let cfg = self.cfg;
        let mut bank: Vec<u64> = cfg.seats.iter().map(|s| s.limits.bank_ms).collect();
        let mut request_id: u64 = 0;
        let mut legal = Legal::empty();
        let mut events = Vec::new();
        loop {
            if !game.legal_into(&mut legal) {
                return Ok((game.outcome().expect("no decision: the game is over"), None));
            }
            if game.move_count() >= cfg.max_moves {
                return Ok((Outcome { loser: None }, Some(cfg.max_moves)));
            }
            let seat = legal.decision.seat;
            events.clear();
            // `durak fork`: the recorded move at this point of the game, if the opening reaches
            // it.
            let scripted = cfg.opening.get(game.move_count() as usize).copied();
            if let Some(mv) = scripted {
                game.check(seat, &mv).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!(
                            "the opening's move {} ({}) by seat {seat} is not legal: {e}",
                            game.move_count() + 1,
                            mv.name()
                        ),
                    )
                })?;
            }
            if let Some(mv) = legal.forced_move(cfg.variant) {
                game.apply_into(seat, &mv, &mut events)
                    .expect("R-1 forced moves are legal");
                self.log.push(ReplayLine::Move {
                    seat,
                    forced: true,
                    id: None,
                    elapsed_ms: None,
                    clock: Clock::default(),
                    mv: proto::MoveSer(&mv),
                });
            } else {
                request_id += 1;
                match ask(cfg, seats, self, game, &legal, seat, request_id, &mut bank).await {
                    Ok((answer, time)) => {
                        let mv = scripted.unwrap_or(answer);
                        game.apply_into(seat, &mv, &mut events).expect("checked");
                        self.log.push(ReplayLine::Move {
                            seat,
                            forced: false,
                            id: Some(request_id),
                            elapsed_ms: Some(ms(time.wall)),
                            clock: replay_clock(&time),
                            mv: proto::MoveSer(&mv),
                        });
                    }
                    Err(Some(f)) => {
                        self.fault(seats, f).await;
                    }
                    // Starved by the machine: the game stops here, nobody loses.
                    Err(None) => return Ok((Outcome { loser: None }, None)),
                }
            }
            if self.faults.is_empty() {
                self.broadcast(seats, &events).await;
            }
            if let Some(f) = self.faults.first() {
                return Ok((
                    Outcome {
                        loser: Some(f.seat),
                    },
                    None,
                ));
            }
        }
    }

    /// A bot that killed its supervisor after its last answer (nothing would clean up after it
    /// any more) is at fault in this game too, as it would have been at its next answer.
    async fn charge_killed_supervisors(&mut self, seats: &mut [SeatState]) {
        for seat in 0..seats.len() {
            let killed = seats[seat]
                .live
                .as_mut()
                .is_some_and(|l| l.proc.supervisor_was_killed());
            if killed {
                let f = Fault {
                    seat,
                    kind: FaultKind::Crash,
                    detail: KILLED_ITS_SUPERVISOR.into(),
                    rule: None,
                };
                self.fault(seats, f).await;
            }
        }
    }

    /// Game end: every live bot is told; faulting bots (and a starved one, still deciding) are
    /// killed and restarted next game; each one's stderr goes to the replay.
    async fn end(&mut self, seats: &mut [SeatState], outcome: Outcome) {
        // Game end: tell every live bot; faulting bots (and a starved one, still deciding) are
        // killed and restarted next game.
        let faulted: Vec<Seat> = (self.faults.iter().map(|f| f.seat))
            .chain(self.starved.as_ref().map(|s| s.0))
            .collect();
        for (seat, s) in seats.iter_mut().enumerate() {
            if let Some(live) = s.live.as_mut() {
                live.proc.mark_stderr(StderrAt::End).await;
                let end = proto::game_end(self.index, outcome, &self.faults);
                let ok = live
                    .proc
                    .send(&end, Duration::from_millis(200))
                    .await
                    .is_ok();
                let exited = live.proc.try_exit();
                if !ok || faulted.contains(&seat) || exited.is_some() {
                    let mut live = s.live.take().expect("live");
                    if !faulted.contains(&seat) && live.proc.supervisor_was_killed() {
                        // Killed after the check above, before game_end: the next game is charged.
                        s.pending = Some(format!(
                            "{KILLED_ITS_SUPERVISOR}, at the end of the previous game"
                        ));
                    }
                    if ok && exited.is_none() {
                        // Let a faulted bot read its error and game_end (and exit) before the kill.
                        let _ = tokio::time::timeout(Duration::from_millis(500), async {
                            while live.proc.try_exit().is_none() {
                                tokio::time::sleep(Duration::from_millis(5)).await;
                            }
                        })
                        .await;
                    }
                    live.proc.kill().await;
                    for line in stderr_lines(seat, live.proc.take_stderr().await) {
                        self.log.push(line);
                    }
                    if let (Some(st), false) = (exited, faulted.contains(&seat)) {
                        tracing::warn!(
                            seat,
                            "bot ended after game {}: {}",
                            self.index,
                            describe_exit(st)
                        );
                        // Already gone at its game_end: the next game is charged, as when the
                        // exit is seen only at that game's first request (a matter of timing, so
                        // the same fault either way, never a silent restart).
                        if s.pending.is_none() && !live.proc.is_human() {
                            s.pending = Some(format!(
                                "the bot {}{}",
                                describe_exit(st),
                                died_between_answers(
                                    &live.proc,
                                    live.proc.bytes_written(),
                                    self.index + 1,
                                )
                            ));
                        }
                    }
                } else {
                    live.games_done += 1;
                    live.answered = false;
                    live.end_offset = live.proc.bytes_written();
                    for line in stderr_lines(seat, live.proc.take_stderr().await) {
                        self.log.push(line);
                    }
                }
            }
        }
    }

    /// The game's result line, and what the match records of it (the replay's log too when
    /// replays are written). A voided game leaves the series as if it had not been played.
    fn record(
        mut self,
        series: &mut Series,
        game: &Game,
        (setup, seed): (Setup, u64),
        outcome: Outcome,
        move_limit: Option<u32>,
        duration_ms: u64,
    ) -> (GameRecord, Option<ReplayLog>) {
        let (cfg, index) = (self.cfg, self.index);
        let mut result = ResultRecord {
            loser: outcome.loser,
            draw: outcome.is_draw(),
            faults: self.faults.iter().map(FaultRecord::from).collect(),
            moves: game.move_count(),
            duration_ms: Some(duration_ms),
            move_limit,
            void: false,
            voided: Vec::new(),
        };
        let voided = self.starved.as_ref().map(|(_, detail)| detail.clone());
        if let Some(detail) = &voided {
            // Void: no loser, no draw (the match plays it again, up to MAX_VOIDED times).
            result.draw = false;
            result.void = true;
            result.voided = vec![detail.clone()];
        }
        self.log.push(ReplayLine::Result(result));
        // The replay is written by the caller (overlapping the next game).
        let replay = cfg
            .replay_dir
            .as_ref()
            .map(|dir| replay_path(dir, &cfg.replay_prefix, index, cfg.compress_replays));
        let log = replay.is_some().then(|| std::mem::take(&mut self.log));
        // A voided game is played again: the series goes on as if it had not been.
        if voided.is_none() {
            series.record(outcome);
        }
        let record = GameRecord {
            voided: voided.clone().into_iter().collect(),
            move_limit,
            game: index,
            seed,
            dealer: setup.dealer,
            loser: outcome.loser,
            draw: outcome.is_draw() && voided.is_none(),
            void: voided.is_some(),
            faults: self.faults,
            moves: game.move_count(),
            replay,
            duration_ms,
        };
        (record, log)
    }
}

/// At the end of a game, before `game_end`: every bot that was sent, since its last answer, a kind
/// of message its process never read before (the first `game_over` event, for one) gets this
/// game's last events now, and a moment (see [`SETTLE_MS`]) to read them and go quiet
/// (`BotProcess::settle_input`). One that dies meanwhile is charged in this game, the game it
/// died in: a bot that crashes on an event it did not expect does so as it reads it. Once a
/// process has read a kind, nobody waits for it again, so a match waits once per process, not
/// once per game. (A bot that exits after `game_end` is not this: it is charged in the next game.)
async fn settle_tails(cfg: &MatchConfig, seats: &mut [SeatState], run: &mut GameRun<'_>) {
    for seat in 0..seats.len() {
        let Some(live) = seats[seat].live.as_mut() else {
            continue;
        };
        let new = live.kinds.new_ones();
        if new.is_empty() {
            continue;
        }
        let limits = cfg.seats[seat].limits;
        let wait = Duration::from_millis(limits.move_ms.clamp(SETTLE_MS.0, SETTLE_MS.1));
        match live.proc.settle_input(wait).await {
            // Quiet, or still busy after the wait (thinking between games, a JIT compiler at
            // work): alive, and not waited for again for these kinds.
            Ok(_) => live.kinds.answered(),
            Err(f) => {
                let what = format!(
                    "while reading this game's last events, sent after its last answer, among \
                     them {} for the first time: read every kind of message, ignoring what you \
                     do not use",
                    Kinds::describe(new)
                );
                let f = io_fault(seat, f, &what, limits.move_ms, 0);
                run.fault(seats, f).await;
            }
        }
    }
}

/// Ask `seat` for a decision: request, timed answer, schema, id and rule checks.
#[allow(clippy::too_many_arguments)]
async fn ask(
    cfg: &MatchConfig,
    seats: &mut [SeatState],
    run: &mut GameRun<'_>,
    game: &Game,
    legal: &Legal,
    seat: Seat,
    id: u64,
    bank: &mut [u64],
) -> Result<(Move, DecisionTime), Option<Fault>> {
    let limits = cfg.seats[seat].limits;
    let obs = game.observation(seat);
    let req = proto::request(id, run.index, legal, &obs, limits.move_ms, bank[seat]);
    run.log.push(ReplayLine::Request {
        id,
        seat,
        decision: legal.decision.kind.name().into(),
        time: Some(proto::replay::RequestTime {
            move_ms: limits.move_ms,
            bank_ms: bank[seat],
        }),
        legal: proto::LegalSer(legal),
    });
    let Some(live) = seats[seat].live.as_mut() else {
        return Err(Some(Fault {
            seat,
            kind: FaultKind::Crash,
            detail: "the bot is not running".into(),
            rule: None,
        }));
    };
    let total = Duration::from_millis(limits.move_ms + bank[seat]);
    run.error_context = (Some(id), None);
    // What the bot writes on stderr from now on comes with this request.
    live.proc.mark_stderr(StderrAt::Request(id)).await;
    live.kinds.unread.insert(MessageKinds::REQUEST);
    // A bot that dies here may have died on a kind of message it never read before: say so,
    // unless it had taken in its request (then it may as well have died deciding it).
    let new = live.kinds.new_ones();
    // Not for the person at the human seat: they quit.
    let human = live.proc.is_human();
    let hint = move |mut f: Fault, proc: &BotProcess, request_end: Option<u64>| {
        let took_request = request_end.is_some_and(|end| proc.bytes_read().unwrap_or(end) >= end);
        if matches!(f.kind, FaultKind::Crash | FaultKind::Memory)
            && !new.is_empty()
            && !took_request
            && !human
        {
            f.detail.push_str(&format!(
                "; since its last answer it was sent {} for the first time (read every kind of \
                 message, ignoring what you do not use)",
                Kinds::describe(new)
            ));
        }
        f
    };
    if let Err(f) = live.proc.send(&req, total).await {
        let f = io_fault(seat, f, "reading its request", limits.move_ms, bank[seat]);
        return Err(Some(hint(f, &live.proc, None)));
    }
    let request_end = live.proc.bytes_written();
    // The clock starts when the request's last byte went into the pipe (the referee's own work
    // is not charged) and charges the bot only its own time (crate::clock).
    let (line, time) = match live.proc.answer(total).await {
        Ok(r) => r,
        Err(IoFault::Starved { wall, own }) => {
            let detail = format!(
                "request {id}: seat {seat} was kept waiting for a CPU by the machine: no answer \
                 after {} ms of wall time, of which only {} ms were its own (limit {} ms + {} \
                 ms bank; the game is voided past {}x the limit and played again)",
                wall.as_millis(),
                own.as_millis(),
                limits.move_ms,
                bank[seat],
                crate::clock::HARD_CAP
            );
            tracing::warn!(seat, "{detail}");
            run.starved = Some((seat, detail));
            return Err(None);
        }
        Err(f) => {
            let f = io_fault(seat, f, "answer", limits.move_ms, bank[seat]);
            return Err(Some(hint(f, &live.proc, Some(request_end))));
        }
    };
    live.answered = true;
    live.kinds.answered();
    let over = (time.own.as_millis() as u64).saturating_sub(limits.move_ms);
    bank[seat] = bank[seat].saturating_sub(over);
    match proto::judge_answer(&line, id, game, seat) {
        Ok(mv) => Ok((mv, time)),
        Err(r) => {
            run.log.push(ReplayLine::Answer {
                id,
                seat,
                elapsed_ms: Some(ms(time.wall)),
                line: shown(&line),
                refused: r.detail().into_owned(),
                clock: replay_clock(&time),
            });
            run.error_context.1 = r.pointer.clone();
            let mut f = r.fault(seat);
            f.detail = format!("request {id}: {}", f.detail);
            Err(Some(f))
        }
    }
}
