//! The long match: many games in ONE bot process, as a tournament table plays them, to catch
//! what only a long match shows: a runtime that dies dozens of games in (a JVM at its memory
//! limit, a leak of memory, threads or files, a CPU limit), answers that slow down. It reports
//! the bot's peak memory (its cgroup's peak, when the machine has one) and its answer times.
//!
//! The games are dealt as a series (C-10) against an in-process greedy player, spoken to like
//! the scripted positions ([`crate::session`]): events queued with the next request, the first
//! message of each kind given a moment to be read ([`crate::deliver`]).

use crate::positions::BOT;
pub use crate::report::LongReport;
use crate::report::{Check, Problem, Status, TimingRow};
use crate::session::{Session, FIRST_ID, ID_STEP};
use durak_protocol as proto;
use durak_referee::BotProcess;
use durak_rules::random::greedy_move;
use durak_rules::{Game, Outcome, Series, Variant};
use std::time::Duration;

/// The check and the report of the long match, with warnings.
pub struct LongMatch {
    pub check: Check,
    pub report: LongReport,
    pub warnings: Vec<String>,
}

/// A size in MiB, for people.
pub fn mib(bytes: u64) -> String {
    let m = bytes as f64 / (1024.0 * 1024.0);
    if m < 10.0 {
        format!("{m:.1} MiB")
    } else {
        format!("{m:.0} MiB")
    }
}

/// Why no peak memory can be read for `proc`.
fn memory_unknown() -> String {
    match durak_referee::isolation::cgroup::support() {
        Err(why) => format!(
            "no memory cgroup for bots on this machine ({why}); the referee has one when it \
             runs as root or in a delegated cgroup v2 subtree"
        ),
        Ok(_) => "the kernel did not say (no peak in the bot's memory cgroup)".into(),
    }
}

/// Play `games` games of `variant` (2 players, the bot in seat 0) in one process.
pub async fn play(session: &mut Session<'_>, variant: Variant, games: u32, seed: u64) -> LongMatch {
    let mut check = Check::new(
        "long",
        &format!("{games} games in one process"),
        "",
        "A bot process lives for a whole match: it plays game after game without dying, \
         slowing down or growing out of its memory.",
    );
    let memory_limit = session.cmd.isolation.limits.memory;
    let mut report = LongReport {
        variant: variant.name().into(),
        games,
        played: 0,
        peak_memory_bytes: None,
        peak_after_first_game_bytes: None,
        memory_limit_bytes: memory_limit,
        memory_unknown: None,
        timing: Vec::new(),
    };
    let mut warnings = Vec::new();
    let times_before = session.findings.times.len();
    session.label = format!("the long match ({}, 2 players)", variant.name());
    let mut proc = match session.start(variant, 2, games).await {
        Ok(p) => p,
        Err(p) => {
            check.status = Status::Fail;
            check.summary = Some("the bot did not start".into());
            check.problem = Some(p);
            return LongMatch {
                check,
                report,
                warnings,
            };
        }
    };
    let mut m = Match {
        series: Series::new(variant, 2, seed).expect("2 players play either variant"),
        next_id: FIRST_ID,
        variant,
    };
    let mut failed: Option<u32> = None;
    for index in 0..games {
        failed = m
            .play_game(session, &mut proc, index, &mut check, &mut report)
            .await;
        if failed.is_some() {
            break;
        }
    }
    report.peak_memory_bytes = proc.peak_memory();
    if failed.is_none() {
        m.end(&mut proc, games).await;
    }
    proc.kill().await;
    explain_end(&mut check, &proc);
    if report.peak_memory_bytes.is_none() {
        report.memory_unknown = Some(memory_unknown());
    }
    let overall = answer_times(session, times_before, &mut report);
    summarize(
        &mut check,
        &report,
        failed,
        overall,
        memory_limit,
        &mut warnings,
    );
    LongMatch {
        check,
        report,
        warnings,
    }
}

/// The match being played: its series, the next request id.
struct Match {
    series: Series,
    next_id: u64,
    variant: Variant,
}

impl Match {
    /// Game `index` of the match, to its end against a greedy player. Returns the game the bot
    /// failed in, if it did (the next one when it quit after this one's `game_end`).
    async fn play_game(
        &mut self,
        session: &mut Session<'_>,
        proc: &mut BotProcess,
        index: u32,
        check: &mut Check,
        report: &mut LongReport,
    ) -> Option<u32> {
        let (variant, limits) = (self.variant, session.limits);
        let series = &mut self.series;
        let setup = series.next_setup();
        let mut game = Game::new(setup, series.next_seed()).expect("a valid setup");
        let gs = proto::game_start(index, variant, 2, BOT, setup.dealer, setup.first_game);
        let start = game.start_events();
        let sent = match session
            .deliver(proc, index, &gs, proto::MessageKinds::GAME_START)
            .await
        {
            Ok(()) => session.send_events(proc, index, &start).await,
            Err(p) => Err(p),
        };
        if let Err(p) = sent {
            check.problem = Some(p);
            return Some(index);
        }
        let mut bank = limits.bank_ms;
        let mut events = Vec::new();
        while let Some(legal) = game.legal() {
            let seat = legal.decision.seat;
            let mv = match legal.forced_move(variant) {
                Some(m) => m,
                None if seat != BOT => greedy_move(&legal, game.trump()),
                None => {
                    let id = self.next_id;
                    self.next_id += ID_STEP;
                    let label = format!(
                        "game {index}, request {id} ({})",
                        legal.decision.kind.name()
                    );
                    let (x, mv) = session
                        .ask(proc, &game, &legal, index, id, &mut bank, label)
                        .await;
                    match mv {
                        Some(m) => m,
                        None => {
                            if x.problem.as_ref().and_then(|p| p.fault.fault())
                                == Some(proto::FaultKind::Timeout)
                            {
                                session.findings.timeouts += 1;
                            }
                            check.exchanges.push(x);
                            return Some(index);
                        }
                    }
                }
            };
            events.clear();
            game.apply_into(seat, &mv, &mut events)
                .expect("every move played here is legal");
            if let Err(p) = session.send_events(proc, index, &events).await {
                check.problem = Some(p);
                return Some(index);
            }
        }
        let outcome = game.outcome().unwrap_or(Outcome { loser: None });
        let end = proto::game_end(index, outcome, &[]);
        if let Err(p) = session
            .deliver(proc, index, &end, proto::MessageKinds::GAME_END)
            .await
        {
            check.problem = Some(p);
            return Some(index);
        }
        series.record(outcome);
        report.played += 1;
        if index == 0 {
            report.peak_after_first_game_bytes = proc.peak_memory();
        }
        // A bot that quits after game_end is found here, before the next game.
        if let Some(status) = proc.try_exit() {
            check.problem = Some(Problem {
                fault: proto::FaultKind::Crash.into(),
                rule: None,
                pointer: None,
                message: format!(
                    "after game_end of game {index}, the bot {} before the next game_start",
                    durak_referee::process::describe_exit(status)
                ),
                fix: "keep reading stdin after game_end: the next game_start follows. Exit only \
                      after match_end (or when stdin closes)."
                    .into(),
                stderr: None,
            });
            return Some(index + 1);
        }
        None
    }

    /// A match played to its end: `match_end`, and a moment for the bot to exit by itself.
    async fn end(&self, proc: &mut BotProcess, games: u32) {
        let end = proto::match_end(games, self.series.losses(), self.series.draws());
        let _ = proc.send(&end, Duration::from_millis(500)).await;
        let _ = tokio::time::timeout(Duration::from_millis(1000), async {
            while proc.try_exit().is_none() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
    }
}

/// The end of stderr, read to its end now that the bot is gone, explains its end (the last
/// problem's, unless an illegal or malformed answer, which stderr does not explain).
fn explain_end(check: &mut Check, proc: &BotProcess) {
    let explains = |p: &Problem| {
        !matches!(
            p.fault.fault(),
            Some(proto::FaultKind::Illegal | proto::FaultKind::Schema)
        )
    };
    let problem = check
        .exchanges
        .iter_mut()
        .filter_map(|x| x.problem.as_mut())
        .chain(check.problem.as_mut())
        .next_back();
    if let Some(p) = problem.filter(|p| explains(p)) {
        p.stderr = p
            .stderr
            .take()
            .or_else(|| crate::session::stderr_tail(proc));
    }
}

/// The long match's answer times (those since `times_before`), by kind into the report;
/// returns them all together.
fn answer_times(
    session: &mut Session<'_>,
    times_before: usize,
    report: &mut LongReport,
) -> Option<TimingRow> {
    let times: Vec<(String, f64)> = session.findings.times.drain(times_before..).collect();
    for kind in ["attack", "defend", "add"] {
        let v: Vec<f64> = times
            .iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, t)| *t)
            .collect();
        if !v.is_empty() {
            report.timing.push(crate::timing_row(kind, v));
        }
    }
    let all: Vec<f64> = times.iter().map(|(_, t)| *t).collect();
    (!all.is_empty()).then(|| crate::timing_row("all", all))
}

/// The check's text (games played, answer times, peak memory) and the warnings it gives.
fn summarize(
    check: &mut Check,
    report: &LongReport,
    failed: Option<u32>,
    overall: Option<TimingRow>,
    memory_limit: Option<u64>,
    warnings: &mut Vec<String>,
) {
    let played = report.played;
    check.summary = Some(match failed {
        None => format!("{played} games of {}, no faults", report.variant),
        Some(g) => {
            check.status = Status::Fail;
            format!(
                "the bot failed in game {g} of the match (after {played} game{} played to the \
                 end in the same process){}",
                if played == 1 { "" } else { "s" },
                if played > 0 {
                    ": what only a long match shows (a leak of memory, threads or files, a \
                     runtime at its limit)"
                } else {
                    ""
                }
            )
        }
    });
    if let Some(t) = &overall {
        check.details.push(format!(
            "answer times: median {}, p95 {}, max {} ({} answers)",
            ms(t.median_ms),
            ms(t.p95_ms),
            ms(t.max_ms),
            t.answers
        ));
    }
    let limit_text = memory_limit.map_or_else(
        || "no memory limit".to_string(),
        |l| format!("its limit is {}", mib(l)),
    );
    match (report.peak_memory_bytes, &report.memory_unknown) {
        (Some(peak), _) => {
            let first = report
                .peak_after_first_game_bytes
                .map(|f| format!("; {} after the first game", mib(f)))
                .unwrap_or_default();
            check.details.push(format!(
                "peak memory: {} (all its processes together){first}; {limit_text}",
                mib(peak)
            ));
            if let Some(l) = memory_limit {
                if peak > l / 2 {
                    warnings.push(format!(
                        "in the long match the bot's memory peaked at {}, more than half its \
                         limit of {}: a longer match, or a bigger table, could reach it (a JVM: \
                         set -Xmx well below the limit)",
                        mib(peak),
                        mib(l)
                    ));
                }
            }
            if let Some(f) = report.peak_after_first_game_bytes {
                if played > 10 && peak > f + f / 2 && peak - f > 64 * 1024 * 1024 {
                    warnings.push(format!(
                        "the bot's memory grew from {} after the first game to {} after {played} \
                         games: if it keeps growing, a tournament's longer match kills it",
                        mib(f),
                        mib(peak)
                    ));
                }
            }
        }
        (None, Some(why)) => check.details.push(format!("peak memory: not known: {why}")),
        (None, None) => {}
    }
}

fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.0} ms")
    }
}
