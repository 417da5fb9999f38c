//! The analysis for people (a table of the endgame's decisions, blunders marked, then a summary)
//! and as JSON (`durak analyze --json`; the fields are listed in docs/COMMANDS.md).

use super::{Analysis, Decision};
use crate::view::move_text;
use durak_protocol::messages::move_json;
use durak_protocol::text::escape_controls;
use durak_rules::solve::{Unsolved, Value};
use serde_json::{json, Value as Json};
use std::fmt::Write;

fn value_word(v: &Result<Value, Unsolved>) -> &'static str {
    match v {
        Ok(v) => v.name(),
        Err(Unsolved::OverBudget { .. }) => "?",
        Err(_) => "-",
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The analysis as text, for a terminal or a file.
pub fn to_text(a: &Analysis) -> String {
    let mut out = String::new();
    let name = |s: usize| escape_controls(&a.seats[s].name);
    let result = match (a.draw, a.loser) {
        (true, _) => "a draw".to_string(),
        (false, Some(l)) => format!("{} is the durak", escape_controls(&a.seats[l].seat_name)),
        (false, None) => "no result".to_string(),
    };
    let _ = writeln!(out, "{}: {result}", escape_controls(&a.source));
    if !a.verified {
        let _ = writeln!(
            out,
            "warning: the replay differs from the re-simulation (durak replay --verify); \
             analysed as far as the rules engine can follow it"
        );
    }
    let Some(from) = a.endgame_from else {
        let _ = writeln!(
            out,
            "no endgame: the game ended before the stock was empty with two players left, so \
             no position had every card known"
        );
        return out;
    };
    let _ = writeln!(
        out,
        "endgame from step {from}: stock empty, two players, every card known; values are for \
         the player deciding, with perfect play from there\n"
    );
    let _ = writeln!(
        out,
        "{:>6}  {:<16} {:>5} → {:<5}  move",
        "step", "seat", "value", "after"
    );
    for d in &a.decisions {
        let _ = writeln!(out, "{}", row(a, d));
    }
    let _ = writeln!(out);
    let blunders = a.blunders().count();
    let valued: usize = a.seats.iter().map(|s| s.decisions).sum();
    let unsolved: usize = a.seats.iter().map(|s| s.unsolved).sum();
    let thrown = a.seats.iter().filter(|s| s.threw_won_game).count();
    let _ = write!(
        out,
        "Summary: {} valued, {}, {}",
        plural(valued, "decision", "decisions"),
        plural(blunders, "blunder", "blunders"),
        plural(thrown, "game thrown away", "games thrown away"),
    );
    if thrown > 0 {
        let _ = write!(out, " from a won position");
    }
    if unsolved > 0 {
        let _ = write!(out, ", {unsolved} over the solver's budget");
    }
    let _ = writeln!(out);
    for s in &a.seats {
        if s.decisions + s.unsolved == 0 && s.endgame_value.is_none() {
            continue;
        }
        let _ = write!(
            out,
            "  seat {} {}: {} at the endgame's start, {}, {}",
            s.seat,
            name(s.seat),
            s.endgame_value.map_or("?", Value::name),
            plural(s.decisions, "decision", "decisions"),
            plural(s.blunders, "blunder", "blunders"),
        );
        if let Some(b) = s.first_blunder {
            let _ = write!(out, " (first at step {b})");
        }
        if s.threw_won_game {
            let _ = write!(out, ", threw away a won game");
        }
        let _ = writeln!(out);
    }
    if let Some(b) = a.blunders().next() {
        let _ = writeln!(
            out,
            "\nSee it: durak replay {} --step {}; try a fix on it: durak rerun {} --step {} BOT",
            escape_controls(&a.source),
            b.step,
            escape_controls(&a.source),
            b.step
        );
    }
    out
}

fn row(a: &Analysis, d: &Decision) -> String {
    let seat = format!("{} {}", d.seat, escape_controls(&a.seats[d.seat].name));
    let seat: String = seat.chars().take(16).collect();
    let mv = match &d.mv {
        Some(m) => move_text(m, None),
        None => "(fault)".to_string(),
    };
    let mut line = format!(
        "{:>6}  {:<16} {:>5} → {:<5}  ",
        d.step,
        seat,
        value_word(&d.value),
        value_word(&d.value_after)
    );
    if d.blunder() {
        line.push_str("BLUNDER ");
    }
    line.push_str(&mv);
    if d.forced {
        line.push_str(" (forced)");
    }
    if d.blunder() && !d.best.is_empty() {
        let best: Vec<String> = d.best.iter().take(3).map(|m| move_text(m, None)).collect();
        let more = d.best.len().saturating_sub(3);
        let _ = write!(line, "; best: {}", best.join(" | "));
        if more > 0 {
            let _ = write!(line, " (+{more} more)");
        }
    }
    if let Err(Unsolved::OverBudget { nodes }) = d.value {
        let _ = write!(line, " (not solved: {nodes} positions)");
    }
    line
}

fn value_json(v: &Result<Value, Unsolved>) -> Json {
    match v {
        Ok(v) => json!(v.name()),
        Err(_) => Json::Null,
    }
}

/// The analysis as one JSON document.
pub fn to_json(a: &Analysis) -> Json {
    let decisions: Vec<Json> = a
        .decisions
        .iter()
        .map(|d| {
            json!({
                "step": d.step,
                "seat": d.seat,
                "forced": d.forced,
                "move": d.mv.as_ref().map(move_json),
                "value": value_json(&d.value),
                "value_after": value_json(&d.value_after),
                "unsolved": d.value.err().or(d.value_after.err()).map(|e| e.to_string()),
                "best": d.best.iter().map(move_json).collect::<Vec<_>>(),
                "choices": d.choices,
                "blunder": d.blunder(),
            })
        })
        .collect();
    let seats: Vec<Json> = a
        .seats
        .iter()
        .map(|s| {
            json!({
                "seat": s.seat,
                "name": s.name,
                "endgame_value": s.endgame_value.map(Value::name),
                "decisions_valued": s.decisions,
                "blunders": s.blunders,
                "first_blunder": s.first_blunder,
                "unsolved": s.unsolved,
                "threw_won_game": s.threw_won_game,
            })
        })
        .collect();
    json!({
        "replay": a.source,
        "verified": a.verified,
        "result": { "loser": a.loser, "draw": a.draw },
        "endgame_from": a.endgame_from,
        "decisions": decisions,
        "summary": {
            "decisions_valued": a.seats.iter().map(|s| s.decisions).sum::<usize>(),
            "blunders": a.blunders().count(),
            "unsolved": a.seats.iter().map(|s| s.unsolved).sum::<usize>(),
            "games_thrown_away": a.seats.iter().filter(|s| s.threw_won_game).count(),
            "seats": seats,
        },
        "solver_positions": a.nodes,
    })
}
