//! The protocol basics of a check-bot report (hello, ids, game_end, every kind of message,
//! match_end), judged from what the scripted part saw ([`crate::session::Findings`]).

use crate::deliver;
use crate::report::{Check, Problem, Section, Status};
use crate::session::Findings;
use durak_protocol::{FaultKind, Limits};

/// The check of a command that cannot run at all (`e`: why), said plainly before anything else.
pub fn cannot_start(e: String) -> Check {
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
        message: e,
        fix: "give the command as you would type it in a shell, in the bot's working \
              directory: a program on PATH (python3, node) or a path to an executable, then \
              its arguments. Quote it as one argument: durak check-bot \"python3 my_bot.py\"."
            .into(),
        stderr: None,
    });
    c
}

/// The basics' checks, appended to `basics`. Returns the bot's name and version from its hello.
pub fn judge(f: &Findings, limits: &Limits, basics: &mut Section) -> Option<(String, String)> {
    let (hello, named) = hello(f, limits);
    basics.checks.push(hello);
    let started = f.hello.is_some();
    basics.checks.push(ids(f, started));
    basics.checks.push(between_games(f, started));
    basics.checks.push(reads(f, started));
    basics.checks.push(match_end(f, started));
    named
}

fn hello(f: &Findings, limits: &Limits) -> (Check, Option<(String, String)>) {
    let mut named = None;
    let mut hello = Check::new(
        "hello",
        "hello",
        "",
        "The bot answers the referee's hello with its own: protocol 1, a name and a version, \
         within the start-up limit.",
    );
    match (&f.hello, &f.start_problem) {
        (Some((name, version, ms)), _) => {
            named = Some((name.clone(), version.clone()));
            hello.summary = Some(format!(
                "{name:?} version {version:?}, protocol 1, in {} (limit {} ms)",
                if *ms < 10.0 {
                    format!("{ms:.1} ms")
                } else {
                    format!("{ms:.0} ms")
                },
                limits.startup_ms
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
    (hello, named)
}

fn ids(f: &Findings, started: bool) -> Check {
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
    ids
}

fn between_games(f: &Findings, started: bool) -> Check {
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
    between
}

fn reads(f: &Findings, started: bool) -> Check {
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
    reads
}

fn match_end(f: &Findings, started: bool) -> Check {
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
    end
}
