//! Steps as plain text, for pipes, logs and tests (`durak replay --step N`, `--all`).

use crate::sim::Simulation;
use crate::view::{pretty_card, StepView};
use durak_protocol::text::escape_controls;
use durak_rules::Card;
use std::fmt::Write as _;

fn pretty(code: &str) -> String {
    code.parse::<Card>()
        .map(pretty_card)
        .unwrap_or_else(|_| code.to_string())
}

fn pretty_list(codes: &[String]) -> String {
    if codes.is_empty() {
        "none".into()
    } else {
        codes
            .iter()
            .map(|c| pretty(c))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One line about the whole replay: variant, players, seeds, dealer.
pub fn summary(sim: &Simulation) -> String {
    let h = &sim.header;
    let line = format!(
        "{}: {} with {} players, game {} of series {} (deck seed {}), dealer seat {}, {} steps",
        sim.source,
        h.variant.name(),
        h.players,
        h.game,
        h.series_seed,
        h.seed,
        h.dealer,
        sim.steps.len()
    );
    escape_controls(&line).into_owned()
}

/// A step as plain text (several lines, ending with a newline), with the bots' text escaped
/// ([`StepView::escaped`]).
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub fn render_step(v: &StepView) -> String {
    let v = &v.escaped();
    let mut out = String::new();
    let view = match v.viewer {
        None => "full view".to_string(),
        Some(s) => format!("seat {s}'s view"),
    };
    let _ = writeln!(
        out,
        "== step {} of {} (line {}, {view}) ==",
        v.step, v.steps, v.line
    );
    let _ = writeln!(out, "{}", v.title);
    if !v.events.is_empty() {
        let _ = writeln!(out, "since the previous step:");
        for e in &v.events {
            let private = e
                .private_to
                .map(|s| format!("  [only seat {s} sees this]"))
                .unwrap_or_default();
            let _ = writeln!(out, "  - {}{private}", e.text);
        }
    }
    let table = if v.table.is_empty() {
        "empty".to_string()
    } else {
        v.table
            .iter()
            .map(|p| match &p.defence {
                Some(d) => format!("{} beaten by {}", pretty(&p.attack), pretty(d)),
                None => format!("{} unbeaten", pretty(&p.attack)),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let limit = v.limit.map(|l| format!(" (limit {l})")).unwrap_or_default();
    let taking = if v.taking {
        " — the defender takes"
    } else {
        ""
    };
    // At the end nobody attacks any more.
    let attack = if v.result.is_some() {
        String::new()
    } else {
        format!("; seat {} attacks seat {}", v.attacker, v.defender)
    };
    let _ = writeln!(out, "table: {table}{limit}{taking}{attack}");
    let trump = if v.trump_card_in_stock {
        format!("{} (under the stock)", pretty(&v.trump_card))
    } else {
        format!("{} (drawn)", pretty(&v.trump_card))
    };
    let _ = writeln!(out, "trump: {trump}; stock: {} cards", v.stock);
    if let Some(stock) = &v.stock_cards {
        if !stock.is_empty() {
            let _ = writeln!(out, "stock, next card first: {}", pretty_list(stock));
        }
    }
    let _ = writeln!(
        out,
        "discard: {} cards{}",
        v.discard.len(),
        if v.discard.is_empty() {
            String::new()
        } else {
            format!(": {}", pretty_list(&v.discard))
        }
    );
    let _ = writeln!(out, "hands:");
    for s in &v.seats {
        let mut tags = s.tags();
        if s.faulted {
            tags.push("FAULT");
        }
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", tags.join(", "))
        };
        let n = |k: usize| format!("{k} card{}", if k == 1 { "" } else { "s" });
        let hidden = s.count.saturating_sub(s.known.len());
        let cards = match &s.hand {
            Some(h) => format!("{} ({})", pretty_list(h), n(s.count)),
            None if s.known.is_empty() => format!("{} hidden card{}", s.count, plural(s.count)),
            None if hidden == 0 => {
                format!(
                    "{} ({}, all publicly known)",
                    pretty_list(&s.known),
                    n(s.count)
                )
            }
            None => format!(
                "{hidden} hidden card{} and {}, publicly known",
                plural(hidden),
                pretty_list(&s.known)
            ),
        };
        let _ = writeln!(out, "  seat {} {}{tags}: {cards}", s.seat, s.name);
    }
    if let Some(l) = &v.legal {
        let _ = writeln!(out, "legal: {l}");
    }
    if let Some(c) = &v.legal_codes {
        let _ = writeln!(out, "  in protocol codes: {c}");
    }
    if let Some(a) = &v.answer {
        let _ = writeln!(out, "answer: {a}");
    }
    if let Some(a) = &v.answer_line {
        let _ = writeln!(out, "  as the bot's line: {a}");
    }
    if let Some(t) = &v.timing {
        let _ = writeln!(out, "time: {t}");
    }
    if let Some(r) = &v.refused {
        match &r.line {
            Some(line) => {
                let _ = writeln!(out, "refused answer: {line}");
            }
            None => {
                let _ = writeln!(out, "refused answer (its line is private to the bot)");
            }
        }
        let _ = writeln!(out, "  why: {}", r.reason);
    }
    for f in &v.faults {
        let _ = writeln!(out, "FAULT: {}", f.text);
    }
    if let Some(r) = &v.result {
        let _ = writeln!(out, "result: {r}");
    }
    for e in &v.stderr {
        let when = if e.when.is_empty() {
            String::new()
        } else {
            format!(" ({})", e.when)
        };
        let _ = writeln!(out, "stderr of seat {}{when}:", e.seat);
        for l in e.text.lines() {
            let _ = writeln!(out, "  | {l}");
        }
    }
    if let Some(n) = &v.note {
        let _ = writeln!(out, "REPLAY DIFFERS HERE: {n}");
    }
    out
}

/// The verification report: one line, `verified: ...` or `FAILED: ...` (escaped: the
/// divergence may quote the replay's text).
pub fn verdict(sim: &Simulation) -> String {
    let line = match &sim.divergence {
        None => {
            let end = sim.end();
            format!(
                "verified: {} — {} steps, {}",
                sim.source,
                sim.steps.len(),
                crate::view::result_text(&sim.header, end)
            )
        }
        Some(d) => format!(
            "FAILED: {} differs from the re-simulation at {d}",
            sim.source
        ),
    };
    escape_controls(&line).into_owned()
}
