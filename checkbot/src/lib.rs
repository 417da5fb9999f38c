//! # durak-checkbot
//!
//! The conformance suite behind `durak check-bot` and `durak submit` (issue 7). It runs a real
//! bot process through the real protocol and judges every answer with the rules engine:
//!
//! 1. **Protocol basics**: the hello (name, version, protocol 1, within the start-up limit),
//!    answers that echo the request id, a bot that keeps running after `game_end` and exits
//!    after `match_end`.
//! 2. **Scripted positions** ([`positions`]): explicit deals and a few scripted moves that reach
//!    every kind of decision (prostoy attack with and without the trump-six exchange, partial
//!    defence; podkidnoy opening attack, cover-or-take, add after a defence and after a take,
//!    with 2 and 3 players). The bot gets the events its seat would have seen, then the request;
//!    the answer is validated (schema, id, `Game::check`), and the game is played on to its end.
//! 3. **Full games** against the built-in bots in each variant, through the referee itself.
//! 4. **The long match** ([`long`]): many games in one process (`--long N`, 100 by default),
//!    with the bot's peak memory and its answer times: what kills a bot dozens of games in.
//! 5. **Answer times**: median, p95 and max per kind of decision, with warnings near the limit.
//!
//! The result is a [`Report`]: text for people ([`Report::to_text`]), JSON for machines.

pub mod build;
pub mod deliver;
pub mod describe;
pub mod fork;
pub mod games;
pub mod long;
pub mod manifest;
pub mod positions;
pub mod report;
pub mod rerun;
pub mod session;

pub use report::{Cause, Check, Exchange, Problem, Report, Section, Status, TimingRow};

use durak_protocol::{FaultKind, Limits};
use durak_referee::BotCommand;
use durak_rules::Variant;
use std::path::PathBuf;

/// What to check, and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub variants: Vec<Variant>,
    /// Games per table in the full-games part (0: no full games).
    pub games: u32,
    /// The bot's limits (move, bank, start-up, line length).
    pub limits: Limits,
    /// The seed of the full games (the scripted part is fixed).
    pub seed: u64,
    /// Keep the full games' replays here (default: a temporary directory, removed).
    pub replay_dir: Option<PathBuf>,
    /// Games of the long match, all in one process (0: none).
    pub long: u32,
}

/// The default [`Options::long`]: enough games for what kills a bot dozens of games in (a
/// runtime at its memory limit, a leak), in a few seconds for a fast bot.
pub const DEFAULT_LONG: u32 = 100;

impl Default for Options {
    fn default() -> Options {
        Options {
            variants: vec![Variant::Prostoy, Variant::Podkidnoy],
            games: 3,
            limits: Limits::default(),
            seed: 1,
            replay_dir: None,
            long: DEFAULT_LONG,
        }
    }
}

/// Run the whole suite against the bot started by `cmd` (its `cwd` is the working directory).
pub async fn check_bot(cmd: &BotCommand, opts: &Options) -> Report {
    let mut report = Report {
        command: cmd.spec.clone(),
        cwd: cmd.cwd.as_ref().map(|d| d.display().to_string()),
        bot_name: None,
        bot_version: None,
        variants: opts.variants.iter().map(|v| v.name().to_string()).collect(),
        limits: opts.limits,
        passed: false,
        sections: Vec::new(),
        timing: Vec::new(),
        warnings: Vec::new(),
        replay_dir: opts.replay_dir.as_ref().map(|d| d.display().to_string()),
        long: None,
    };
    let mut basics = Section {
        title: "Protocol basics".into(),
        checks: Vec::new(),
    };
    // A command that cannot run at all: say so plainly, before anything else.
    if let Err(e) = cmd.check_exists() {
        let mut c = Check::new(
            "start",
            "the bot starts",
            "",
            "The command runs a program that exists.",
        );
        c.status = Status::Fail;
        c.problem = Some(Problem {
            fault: FaultKind::StartFailed.into(),
            rule: None,
            pointer: None,
            message: e.to_string(),
            fix: "give the command as you would type it in a shell, in the bot's working \
                  directory: a program on PATH (python3, node) or a path to an executable, then \
                  its arguments. Quote it as one argument: durak check-bot \"python3 my_bot.py\"."
                .into(),
            stderr: None,
        });
        basics.checks.push(c);
        report.sections.push(basics);
        return report;
    }

    let mut session = session::Session::new(cmd, opts.limits);
    // The scripted positions, grouped by (variant, players): one match per group.
    let mut groups: Vec<Vec<&positions::Position>> = Vec::new();
    for p in positions::positions(&opts.variants) {
        match groups.last_mut() {
            Some(g) if g[0].variant == p.variant && g[0].players() == p.players() => g.push(p),
            _ => groups.push(vec![p]),
        }
    }
    let mut scripted: Vec<Section> = Vec::new();
    for g in &groups {
        let title = format!(
            "Scripted positions: {}, {} players (you are seat 0)",
            g[0].variant.name(),
            g[0].players()
        );
        if session.findings.hello.is_none() && session.findings.start_problem.is_some() {
            // The bot never started: the other positions would say the same.
            let checks = g
                .iter()
                .map(|p| {
                    let mut c = Check::new(p.id, p.title, p.rules, p.purpose);
                    c.status = Status::Skip;
                    c.summary = Some("not checked: the bot did not start (see hello)".into());
                    c
                })
                .collect();
            scripted.push(Section { title, checks });
            continue;
        }
        let checks = session.run_group(g).await;
        scripted.push(Section { title, checks });
    }
    let f = &session.findings;

    // Protocol basics, from what the scripted part saw.
    let mut hello = Check::new(
        "hello",
        "hello",
        "",
        "The bot answers the referee's hello with its own: protocol 1, a name and a version, \
         within the start-up limit.",
    );
    match (&f.hello, &f.start_problem) {
        (Some((name, version, ms)), _) => {
            report.bot_name = Some(name.clone());
            report.bot_version = Some(version.clone());
            hello.summary = Some(format!(
                "{name:?} version {version:?}, protocol 1, in {} (limit {} ms)",
                if *ms < 10.0 {
                    format!("{ms:.1} ms")
                } else {
                    format!("{ms:.0} ms")
                },
                opts.limits.startup_ms
            ));
        }
        (None, Some(p)) => {
            hello.status = Status::Fail;
            hello.problem = Some(p.clone());
        }
        (None, None) => {
            hello.status = Status::Skip;
        }
    }
    let started = f.hello.is_some();
    basics.checks.push(hello);
    let mut ids = Check::new(
        "ids",
        "answers echo the request id",
        "",
        "Each answer carries the id of the request it answers.",
    );
    if !f.wrong_ids.is_empty() {
        ids.status = Status::Fail;
        ids.details.push(format!(
            "a wrong id in: {} (see below)",
            f.wrong_ids.join(", ")
        ));
    } else if !started {
        ids.status = Status::Skip;
        ids.summary = Some("not checked: the bot did not start".into());
    } else if f.ids_echoed == 0 {
        ids.status = Status::Skip;
        ids.summary = Some("not seen: no answer of the bot could be read (see below)".into());
    }
    basics.checks.push(ids);
    let mut between = Check::new(
        "game-end",
        "keeps running after game_end",
        "",
        "A bot process lives for a whole match: after game_end comes the next game_start.",
    );
    if !f.exited_between_games.is_empty() {
        between.status = Status::Fail;
        between
            .details
            .extend(f.exited_between_games.iter().cloned());
        between.problem = Some(Problem {
            fault: FaultKind::Crash.into(),
            rule: None,
            pointer: None,
            message: "the bot ended between two games of a match".into(),
            fix: "keep reading stdin after game_end; exit only after match_end (or when stdin \
                  closes)."
                .into(),
            stderr: f.between_stderr.clone(),
        });
    } else if !started {
        between.status = Status::Skip;
        between.summary = Some("not checked: the bot did not start".into());
    } else if f.games_continued == 0 {
        between.status = Status::Skip;
        between.summary =
            Some("not seen: the bot never finished a game and played the next (see below)".into());
    }
    basics.checks.push(between);
    let mut reads = Check::new(
        "reads",
        "reads every kind of message",
        "",
        "The bot reads every message it is sent, also those that need no answer (game_start, \
         every kind of event, game_end), and lives on, ignoring what it does not use.",
    );
    if let Some(p) = &f.first_death {
        reads.status = Status::Fail;
        let n = f.died_reading.len();
        let more = if n > 3 {
            format!("; and {} more time{}", n - 3, if n == 4 { "" } else { "s" })
        } else {
            String::new()
        };
        reads.details.push(format!(
            "it ended reading: {}{more} (see below)",
            f.died_reading[..n.min(3)].join("; ")
        ));
        reads.problem = Some(p.clone());
    } else if !started {
        reads.status = Status::Skip;
        reads.summary = Some("not checked: the bot did not start".into());
    } else {
        reads.summary = Some(format!(
            "read and lived on: {}",
            deliver::describe(f.kinds_read)
        ));
    }
    basics.checks.push(reads);
    let mut end = Check::new(
        "match-end",
        "exits after match_end",
        "",
        "After match_end the bot should exit by itself (it is killed shortly after anyway).",
    );
    if !f.no_exit_after_match_end.is_empty() {
        end.status = Status::Warn;
        end.details.push(format!(
            "still running 2 s after match_end ({}); the referee kills it, but exit when you \
             read match_end",
            f.no_exit_after_match_end.join("; ")
        ));
    } else if f.exits_after_match_end == 0 {
        end.status = Status::Skip;
        end.summary = Some(if started {
            "not seen: every scripted match ended with a fault".into()
        } else {
            "not checked: the bot did not start".into()
        });
    }
    basics.checks.push(end);
    if f.timeouts > 0 {
        report.warnings.push(
            "after the first timeout, the remaining scripted positions gave the bot no time \
             bank (only the limit per decision), to keep the check short"
                .into(),
        );
    }
    let mut times = f.times.clone();
    let hello_times = f.hello_times.clone();
    report.sections.push(basics);
    report.sections.extend(scripted);

    // Full games.
    if opts.games > 0 {
        let mut section = Section {
            title: format!(
                "Full games against the built-in bots ({} per table)",
                opts.games
            ),
            checks: Vec::new(),
        };
        if !started || f.timeouts > 0 {
            let mut c = Check::new("games", "full games", "", "");
            c.status = Status::Skip;
            c.summary = Some(if started {
                "skipped: the bot timed out in the scripted positions; fix that first (every \
                 timeout in a full game would wait for the whole time limit)"
                    .into()
            } else {
                "skipped: the bot did not start (see hello)".into()
            });
            section.checks.push(c);
        } else {
            let tmp;
            let dir = match &opts.replay_dir {
                Some(d) => d.clone(),
                None => {
                    tmp = tempfile::tempdir();
                    match &tmp {
                        Ok(t) => t.path().to_path_buf(),
                        Err(e) => {
                            report
                                .warnings
                                .push(format!("no temporary directory for replays: {e}"));
                            std::env::temp_dir().join("durak-check-bot")
                        }
                    }
                }
            };
            let full = games::play(
                cmd,
                opts.limits,
                &opts.variants,
                opts.games,
                opts.seed,
                &dir,
                opts.replay_dir.is_some(),
            )
            .await;
            times.extend(full.times);
            report.warnings.extend(full.warnings);
            section.checks = full.checks;
            if opts.replay_dir.is_none() && section.checks.iter().any(|c| c.status == Status::Fail)
            {
                report.warnings.push(
                    "to step through the failed games, run again with --replay-dir DIR and open \
                     a replay with durak replay DIR/.../game-NNNN.jsonl"
                        .into(),
                );
            }
        }
        report.sections.push(section);
    }

    // The long match, in one process: podkidnoy when both variants are checked.
    if opts.long > 0 {
        let variant = if opts.variants.contains(&Variant::Podkidnoy) {
            Variant::Podkidnoy
        } else {
            opts.variants[0]
        };
        let mut section = Section {
            title: format!(
                "Long match: {} games of {} in one process, against a greedy player",
                opts.long,
                variant.name()
            ),
            checks: Vec::new(),
        };
        if !started || session.findings.timeouts > 0 {
            let mut c = Check::new(
                "long",
                &format!("{} games in one process", opts.long),
                "",
                "",
            );
            c.status = Status::Skip;
            c.summary = Some(if started {
                "skipped: the bot timed out in the scripted positions; fix that first".into()
            } else {
                "skipped: the bot did not start (see hello)".into()
            });
            section.checks.push(c);
        } else {
            let l = long::play(&mut session, variant, opts.long, opts.seed).await;
            section.checks.push(l.check);
            report.warnings.extend(l.warnings);
            report.long = Some(l.report);
        }
        report.sections.push(section);
    }

    // Answer times.
    if !hello_times.is_empty() {
        report.timing.push(timing_row("hello", hello_times.clone()));
    }
    for kind in ["attack", "defend", "add"] {
        let v: Vec<f64> = times
            .iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, t)| *t)
            .collect();
        if !v.is_empty() {
            report.timing.push(timing_row(kind, v));
        }
    }
    let move_ms = opts.limits.move_ms as f64;
    for row in &report.timing {
        let (limit, what) = if row.decision == "hello" {
            (opts.limits.startup_ms as f64, "start-up limit")
        } else {
            (move_ms, "limit per decision")
        };
        if row.max_ms > limit / 2.0 {
            report.warnings.push(format!(
                "the slowest {} answer took {:.0} ms, more than half the {:.0} ms {what}: on a \
                 busier machine it could time out",
                row.decision, row.max_ms, limit
            ));
        }
    }
    let over = times.iter().filter(|(_, t)| *t > move_ms).count();
    if over > 0 {
        report.warnings.push(format!(
            "{over} answer{} took longer than {move_ms:.0} ms and used the time bank",
            if over == 1 { "" } else { "s" }
        ));
    }
    report.passed = report.count(Status::Fail) == 0;
    report
}

/// Median, p95 and max of some times.
pub fn timing_row(decision: &str, mut v: Vec<f64>) -> TimingRow {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| {
        let i = ((v.len() as f64 - 1.0) * q).round() as usize;
        (v[i.min(v.len() - 1)] * 100.0).round() / 100.0
    };
    TimingRow {
        decision: decision.into(),
        answers: v.len(),
        median_ms: at(0.5),
        p95_ms: at(0.95),
        max_ms: at(1.0),
    }
}
