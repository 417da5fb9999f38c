//! Full games against the built-in bots, played by the real referee (`play_match`). Faults,
//! the failing request and answer, the bot's stderr and every answer time are read back from
//! the replays.

use crate::report::{fix_for, Cause, Check, Exchange, Problem, Status};
use durak_protocol::replay::Record;
use durak_protocol::{FaultKind, Limits};
use durak_referee::{play_match, BotCommand, MatchConfig, SeatSpec};
use durak_rules::Variant;
use std::path::{Path, PathBuf};

/// The tables played per variant: the opponents (built-in bots) after the bot in seat 0.
const TABLES: [(&str, &[&str]); 3] = [
    ("random", &["random"]),
    ("greedy", &["greedy"]),
    ("3p", &["random", "greedy"]),
];

/// What the full games gave: one check per table, the bot's answer times, notes.
pub struct FullGames {
    pub checks: Vec<Check>,
    pub times: Vec<(String, f64)>,
    pub warnings: Vec<String>,
}

fn builtin(name: &str) -> Result<SeatSpec, durak_referee::CommandError> {
    Ok(SeatSpec {
        name: format!("builtin:{name}"),
        command: BotCommand::parse(&format!("builtin:{name}"))?,
        limits: Limits {
            move_ms: 10_000,
            ..Limits::default()
        },
    })
}

/// Play `games` games at each table of each variant. Replays go to `dir`.
pub async fn play(
    cmd: &BotCommand,
    limits: Limits,
    variants: &[Variant],
    games: u32,
    seed: u64,
    dir: &Path,
    keep: bool,
) -> FullGames {
    let mut out = FullGames {
        checks: Vec::new(),
        times: Vec::new(),
        warnings: Vec::new(),
    };
    for (vi, &variant) in variants.iter().enumerate() {
        for (ti, (tag, opponents)) in TABLES.iter().enumerate() {
            let title = if opponents.len() == 1 {
                format!("{}: against builtin:{}", variant.name(), opponents[0])
            } else {
                format!(
                    "{}: 3 players, with {}",
                    variant.name(),
                    opponents
                        .iter()
                        .map(|o| format!("builtin:{o}"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            };
            let id = format!("games-{}-{tag}", variant.name());
            let mut check = Check::new(
                &id,
                &title,
                "",
                "Whole games through the real referee: every request of every game is \
                 answered in time, on protocol, and legally.",
            );
            let mut seats = vec![SeatSpec {
                name: "your bot".into(),
                command: cmd.clone(),
                limits,
            }];
            for o in opponents.iter() {
                match builtin(o) {
                    Ok(s) => seats.push(s),
                    Err(e) => {
                        check.status = Status::Skip;
                        check
                            .details
                            .push(format!("cannot start the built-in bots: {e}"));
                    }
                }
            }
            if check.status == Status::Skip {
                out.checks.push(check);
                continue;
            }
            let table_seed = seed
                .wrapping_mul(1000)
                .wrapping_add((vi * TABLES.len() + ti) as u64);
            let mut cfg = MatchConfig::new(variant, seats, games, table_seed);
            let table_dir = dir.join(format!("{}-{tag}", variant.name()));
            cfg.replay_dir = Some(table_dir.clone());
            let result = match play_match(&cfg, |_| {}).await {
                Ok(r) => r,
                Err(e) => {
                    check.status = Status::Fail;
                    check.problem = Some(Problem {
                        fault: Cause::Referee,
                        rule: None,
                        pointer: None,
                        message: format!("the match could not be played: {e}"),
                        fix: "check that the replay directory is writable".into(),
                        stderr: None,
                    });
                    out.checks.push(check);
                    continue;
                }
            };
            let mut lost = 0;
            let mut faulted = 0;
            let mut first_fault: Option<(u32, PathBuf)> = None;
            for g in &result.games {
                if g.loser == Some(0) {
                    lost += 1;
                }
                if let Some(path) = &g.replay {
                    out.times.extend(answer_times(path));
                }
                for f in &g.faults {
                    if f.seat == 0 {
                        faulted += 1;
                        if first_fault.is_none() {
                            first_fault = g.replay.clone().map(|p| (g.game, p));
                        }
                        check.details.push(format!(
                            "game {}: {}{}",
                            g.game,
                            f.kind,
                            f.rule
                                .as_ref()
                                .map(|r| format!(", rule {r}"))
                                .unwrap_or_default(),
                        ));
                    } else {
                        out.warnings.push(format!(
                            "{title}, game {}: the built-in bot in seat {} faulted ({}: {}); \
                             this is a referee problem, please report it",
                            g.game, f.seat, f.kind, f.detail
                        ));
                    }
                }
            }
            let n = result.games.len();
            let games_text = format!("{n} game{}", if n == 1 { "" } else { "s" });
            if faulted == 0 {
                check.summary = Some(format!(
                    "{games_text}, no faults; you were the durak in {lost}"
                ));
            } else {
                check.status = Status::Fail;
                let faults: Vec<String> = std::mem::take(&mut check.details);
                check.summary = Some(format!(
                    "{games_text}, {faulted} lost by a fault ({})",
                    faults.join("; ")
                ));
                if let Some((game, path)) = first_fault {
                    if let Some(x) = fault_exchange(&path, game, keep) {
                        check.exchanges.push(x);
                    }
                }
            }
            out.checks.push(check);
        }
    }
    out
}

/// A replay's lines after the header, typed as the referee writes them (a line that does not
/// read is left out: the replay is the referee's own, just written).
fn lines(path: &Path) -> Vec<Record> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Seat 0's answer times in one replay: (decision, ms) of every answer it chose.
pub fn answer_times(path: &Path) -> Vec<(String, f64)> {
    let mut decision_of = std::collections::HashMap::new();
    let mut out = Vec::new();
    for l in lines(path) {
        match l {
            Record::Request {
                id,
                seat: 0,
                decision,
                ..
            } => {
                decision_of.insert(id, decision.into_owned());
            }
            // A refused answer still took time.
            Record::Move {
                seat: 0,
                forced: false,
                id: Some(id),
                elapsed_ms: Some(ms),
                ..
            }
            | Record::Answer {
                id,
                seat: 0,
                elapsed_ms: Some(ms),
                ..
            } => {
                if let Some(d) = decision_of.get(&id) {
                    out.push((d.clone(), ms));
                }
            }
            _ => {}
        }
    }
    out
}

/// The failing request of a faulted game, from its replay: the last request to seat 0, the
/// refused answer to it (if one came), the fault, and the bot's stderr.
fn fault_exchange(path: &Path, game: u32, keep: bool) -> Option<Exchange> {
    let all = lines(path);
    let fault = all.iter().find_map(|l| match l {
        Record::Fault(f) if f.seat == 0 => Some(f),
        _ => None,
    })?;
    let kind = FaultKind::from_recorded(&fault.kind);
    let rule = fault.rule.clone();
    let request = all.iter().rev().find_map(|l| match l {
        Record::Request {
            id,
            seat: 0,
            decision,
            legal,
            ..
        } => Some((l, *id, decision.to_string(), legal)),
        _ => None,
    });
    // The end of stderr explains a crash, a hang or garbage on stdout, not a broken rule.
    let explains = !matches!(kind, FaultKind::Illegal | FaultKind::Schema);
    // The game's stderr comes in pieces, one per point of the game it arrived at: joined.
    let stderr = Some(
        all.iter()
            .filter(|_| explains)
            .filter_map(|l| match l {
                Record::Stderr { seat: 0, text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<String>(),
    )
    .map(|t| t.trim_end().to_string())
    .filter(|t| !t.is_empty())
    .map(|t| {
        let lines: Vec<&str> = t.lines().collect();
        lines[lines.len().saturating_sub(12)..].join("\n")
    });
    let id = request.as_ref().map_or(0, |r| r.1);
    let decision = request.as_ref().map(|r| r.2.clone()).unwrap_or_default();
    let answer = all.iter().find_map(|l| match l {
        Record::Answer {
            id: a,
            seat: 0,
            elapsed_ms,
            line,
            refused,
            ..
        } if *a == id => Some((line, refused, *elapsed_ms)),
        _ => None,
    });
    let pointer = answer
        .and_then(|a| a.1.strip_prefix("/id:"))
        .map(|_| "/id".to_string());
    // The referee's detail reads "request 6: K-7: ..."; the request and the rule are shown apart.
    let mut message = fault.detail.clone();
    if let Some(rest) = message
        .strip_prefix(&format!("request {id}: "))
        .map(str::to_string)
    {
        message = rest;
    }
    if let Some(rest) = rule
        .as_ref()
        .and_then(|r| message.strip_prefix(&format!("{r}: ")))
        .map(str::to_string)
    {
        message = rest;
    }
    let p = Problem {
        fix: fix_for(kind.into(), rule.as_deref(), pointer.as_deref(), &decision),
        fault: kind.into(),
        rule,
        pointer,
        message: message.clone(),
        stderr,
    };
    let started = kind == FaultKind::StartFailed;
    Some(Exchange {
        label: if keep {
            format!(
                "the first fault, in game {game} (replay: {})",
                path.display()
            )
        } else {
            format!("the first fault, in game {game}")
        },
        id,
        decision: decision.clone(),
        summary: match &request {
            Some((_, _, _, legal)) if !started => {
                format!("request {id} ({decision}); its legal choices were {legal}")
            }
            _ => "the referee's hello".into(),
        },
        request: request
            .filter(|_| !started)
            .map(|r| serde_json::to_string(r.0).expect("json"))
            .unwrap_or_default(),
        answer: answer.map(|a| a.0.clone()),
        elapsed_ms: answer.and_then(|a| a.2),
        verdict: format!("{kind}: {message}"),
        problem: Some(p),
    })
}
