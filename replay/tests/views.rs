//! What each step shows: the full view holds every hand; a seat's view holds exactly what the
//! engine's observation gives that seat (its own hand, counts, publicly known cards, its own
//! private events); the plain-text rendering says it in words.

mod common;

use common::*;
use durak_replay::text::render_step;
use durak_replay::view::{all_views, pretty_card, step_view};
use durak_rules::{Card, Move};

#[test]
fn a_seat_sees_its_own_hand_only() {
    for f in FIXTURES {
        let s = sim(f);
        let n = s.header.players;
        for i in 0..s.steps.len() {
            let full = step_view(&s, i, None);
            assert!(full.seats.iter().all(|x| x.hand.is_some()), "{f} step {i}");
            assert!(full.stock_cards.is_some());
            for seat in 0..n {
                let v = step_view(&s, i, Some(seat));
                assert_eq!(v.viewer, Some(seat));
                assert!(v.stock_cards.is_none(), "the stock order is hidden (I-3)");
                for other in &v.seats {
                    let f_other = &full.seats[other.seat];
                    assert_eq!(other.count, f_other.count);
                    if other.seat == seat {
                        assert_eq!(other.hand, f_other.hand);
                    } else {
                        assert_eq!(other.hand, None, "{f} step {i}: seat {seat} sees a hand");
                        let hand = f_other.hand.as_ref().unwrap();
                        assert!(other.known.iter().all(|c| hand.contains(c)));
                    }
                }
                // Private events of other seats are not shown.
                assert!(v
                    .events
                    .iter()
                    .all(|e| e.private_to.is_none_or(|p| p == seat)));
                // The same public state.
                assert_eq!(
                    (&v.table, v.stock, &v.discard, &v.trump_card),
                    (&full.table, full.stock, &full.discard, &full.trump_card)
                );
                let decider = v.decision.as_ref().map(|d| d.seat);
                if decider != Some(seat) {
                    assert_eq!(
                        v.legal, None,
                        "{f} step {i}: seat {seat} sees another's choices"
                    );
                }
            }
        }
    }
}

#[test]
fn the_deal_and_the_first_decision() {
    let s = sim("podkidnoy-2p.jsonl");
    let v = step_view(&s, 0, None);
    assert_eq!((v.step, v.steps), (1, 67));
    assert_eq!(v.title, "seat 1 (builtin:greedy) to attack");
    assert_eq!(v.events.len(), 5, "dealt, two hands, first attacker, round");
    assert_eq!(v.events[1].private_to, Some(0));
    assert!(
        v.events[3].text.contains("lowest trump 7♠ (K-2)"),
        "{:?}",
        v.events[3]
    );
    assert_eq!(v.stock, 24);
    assert_eq!(v.trump_card, "KS");
    assert!(v.trump_card_in_stock);
    assert_eq!(v.limit, Some(6));
    assert_eq!(v.answer.as_deref(), Some("attack with J♣"));
    assert!(v
        .timing
        .as_deref()
        .unwrap()
        .starts_with("answered in 0.345 ms to request 1"));
    // Seat 0 saw its own hand dealt, not seat 1's.
    let v0 = step_view(&s, 0, Some(0));
    assert_eq!(v0.events.len(), 4);
    assert!(v0.events[1].text.starts_with("seat 0 is dealt"));
    assert_eq!(v0.legal, None);
    let v1 = step_view(&s, 0, Some(1));
    assert!(v1
        .legal
        .as_deref()
        .unwrap()
        .starts_with("attack with 1 card of one rank"));
}

#[test]
fn forced_moves_exchanges_and_results_in_words() {
    let s = sim("podkidnoy-2p.jsonl");
    let forced = s.steps.iter().position(|st| st.forced).unwrap();
    let v = step_view(&s, forced, None);
    assert!(v.decision.as_ref().unwrap().forced);
    assert!(v
        .answer
        .as_deref()
        .unwrap()
        .contains("forced: the only legal answer"));
    assert_eq!(v.timing, None, "nobody was asked");
    assert_eq!(v.legal, None);
    let end = all_views(&s, None).pop().unwrap();
    assert_eq!(end.title, "the end of the game");
    assert_eq!(
        end.result.as_deref(),
        Some("seat 0 (builtin:random) is the durak after 66 moves (56 ms)")
    );
    assert!(end.seats[0].loser);

    let s = sim("prostoy-3p-exchange.jsonl");
    let i = s
        .steps
        .iter()
        .position(|st| {
            matches!(
                st.mv,
                Some(Move::Attack { exchange: true, .. } | Move::Defend { exchange: true, .. })
            )
        })
        .expect("the fixture has a P-4 exchange");
    let v = step_view(&s, i, None);
    assert!(
        v.answer.as_deref().unwrap().starts_with("exchange 6"),
        "{:?}",
        v.answer
    );
    let next = step_view(&s, i + 1, None);
    assert!(next
        .events
        .iter()
        .any(|e| e.text.contains("for the trump card") && e.text.contains("(P-4)")));
    assert!(next.trump_card.starts_with('6'), "the six lies face up now");

    let s = sim("prostoy-3p-draw.jsonl");
    let end = all_views(&s, Some(2)).pop().unwrap();
    assert!(
        end.result.as_deref().unwrap().starts_with("a draw"),
        "{:?}",
        end.result
    );
}

#[test]
fn faults_in_plain_words() {
    let s = sim("fault-illegal-prostoy.jsonl");
    let last = s.steps.len() - 1;
    let v = step_view(&s, last, None);
    assert_eq!(v.faults.len(), 1);
    let f = &v.faults[0];
    assert_eq!(
        (f.seat, f.kind.as_str(), f.rule.as_deref()),
        (2, "illegal", Some("P-5"))
    );
    assert!(
        f.text.starts_with("seat 2 (python3 late.py illegal 3, named late-illegal) loses by fault: made an illegal move (rule P-5). request 12: P-5:"),
        "{}",
        f.text
    );
    assert!(v.seats[2].faulted && v.seats[2].loser);
    assert!(v
        .refused
        .as_ref()
        .unwrap()
        .line
        .as_deref()
        .unwrap()
        .contains("\"6C\""));
    // The raw line is the bot's own: seat 0 sees the fault, not the line.
    let v0 = step_view(&s, last, Some(0));
    assert_eq!(v0.refused.as_ref().unwrap().line, None);
    assert_eq!(v0.faults, v.faults);
    let v2 = step_view(&s, last, Some(2));
    assert!(v2.refused.as_ref().unwrap().line.is_some());

    let s = sim("fault-timeout.jsonl");
    let v = all_views(&s, None).pop().unwrap();
    assert!(v.faults[0].text.contains("did not answer in time"));
    assert!(v
        .timing
        .as_deref()
        .unwrap()
        .starts_with("no answer to request 5"));

    let s = sim("fault-start.jsonl");
    let v = step_view(&s, 0, None);
    assert_eq!(v.title, "the game did not start");
    assert!(v.faults[0].text.contains("crashed"));
    assert!(v.events.is_empty());
}

/// A seat is named with its bot's own name beside the seat's, not nested in a second pair of
/// parentheses (it once read "seat 0 (flaky.py (flaky))"); the label keeps its parentheses.
#[test]
fn seat_names_are_not_nested() {
    let s = sim("fault-crash-prostoy.jsonl");
    let h = &s.header;
    assert_eq!(h.seat_label(1), "python3 late.py crash 3 (late-crash)");
    assert_eq!(
        h.seat_name(1),
        "seat 1 (python3 late.py crash 3, named late-crash)"
    );
    assert_eq!(
        h.seat_name(0),
        "seat 0 (builtin:greedy)",
        "the same name said once"
    );
    assert_eq!(h.seat_name(7), "seat 7", "a seat the header does not list");
    assert_eq!(h.seat_label(7), "seat 7");
    for f in FIXTURES {
        let s = sim(f);
        for v in all_views(&s, None) {
            let texts = std::iter::once(&v.title).chain(v.faults.iter().map(|f| &f.text));
            for t in texts {
                assert!(!t.contains("))") && !t.contains("(seat"), "{f}: {t}");
            }
        }
    }
}

#[test]
fn plain_text_of_a_step() {
    let s = sim("podkidnoy-2p.jsonl");
    let text = render_step(&step_view(&s, 1, None));
    let want = [
        "== step 2 of 67 (line 10, full view) ==",
        "seat 0 (builtin:random) to defend",
        "since the previous step:",
        "  - seat 1 attacks with J♣",
        "table: J♣ unbeaten (limit 6); seat 1 attacks seat 0",
        "trump: K♠ (under the stock); stock: 24 cards",
        "discard: 0 cards",
        "hands:",
        "  seat 0 builtin:random [defender, to act]: 9♣ 7♦ 8♦ J♦ 10♥ 8♠ (6 cards)",
        "  seat 1 builtin:greedy [attacker]: K♦ Q♥ 7♠ 10♠ A♠ (5 cards)",
        "legal: cover every card (J♣ by 8♠) or take",
        "answer: beat J♣ with 8♠",
    ];
    for w in want {
        assert!(text.lines().any(|l| l == w), "missing {w:?} in\n{text}");
    }
    let text = render_step(&step_view(&s, 1, Some(1)));
    assert!(text.contains("(line 10, seat 1's view)"));
    assert!(
        text.contains("  seat 0 builtin:random [defender, to act]: 6 hidden cards\n"),
        "{text}"
    );
    assert!(!text.contains("legal:"));
    assert!(!text.contains("stock, next card first"));
    // Hidden cards that are publicly known are named.
    let k = s
        .steps
        .iter()
        .position(|st| !st.state.observation(1).known[0].is_empty())
        .unwrap();
    let text = render_step(&step_view(&s, k, Some(1)));
    assert!(text.contains(" hidden cards and "), "{text}");
    assert!(text.contains(", publicly known\n"), "{text}");
    // Every card known, one card: said so (issue 13's audit: "(1 cards)", "4 hidden cards,
    // known to hold" all four).
    let mut v = step_view(&s, k, Some(1));
    let known = v.seats[0].known.clone();
    v.seats[0].count = known.len();
    let text = render_step(&v);
    let all = format!(
        ": {} ({} card{}, all publicly known)\n",
        known
            .iter()
            .map(|c| pretty_card(c.parse().unwrap()))
            .collect::<Vec<_>>()
            .join(" "),
        known.len(),
        if known.len() == 1 { "" } else { "s" }
    );
    assert!(text.contains(&all), "{all} in {text}");
    v.seats[1].hand = Some(vec!["TD".into()]);
    v.seats[1].count = 1;
    assert!(render_step(&v).contains(": 10♦ (1 card)\n"));
    // Every card shown exists.
    for v in all_views(&s, None) {
        for seat in &v.seats {
            for c in seat.hand.iter().flatten() {
                c.parse::<Card>().unwrap();
            }
        }
    }
}

/// Issue 13: at the last step nobody attacks or defends (the durak wears no defender badge),
/// and the plain text does not say who attacks whom.
#[test]
fn the_end_has_no_attacker_or_defender() {
    for f in FIXTURES {
        let s = sim(f);
        let last = s.steps.len() - 1;
        for viewer in std::iter::once(None).chain((0..s.header.players).map(Some)) {
            let v = step_view(&s, last, viewer);
            assert!(v.result.is_some(), "{f}");
            assert!(
                v.seats.iter().all(|seat| seat.role.is_none()),
                "{f}: {:?}",
                v.seats
            );
            let text = render_step(&v);
            let table = text.lines().find(|l| l.starts_with("table: ")).unwrap();
            assert!(!table.contains(" attacks seat "), "{f}: {table}");
        }
        // Before the end, the roles are there.
        if last > 0 {
            let v = step_view(&s, last - 1, None);
            assert!(v.seats.iter().any(|seat| seat.role.is_some()), "{f}");
        }
    }
}

/// Issue 13: "add up to 3 of 9♠" when one card can be added: the legal choices never offer more
/// cards than there are to add (K-6, K-3).
#[test]
fn add_offers_what_can_be_added() {
    let mut seen_one = false;
    for f in FIXTURES {
        let s = sim(f);
        for (i, step) in s.steps.iter().enumerate() {
            let Some(l) = step.legal.as_ref() else {
                continue;
            };
            if l.decision.kind != durak_rules::DecisionKind::Add || step.forced {
                continue;
            }
            let text = step_view(&s, i, None).legal.unwrap();
            let n = l.room.min(l.addable.len());
            if n == 1 && l.addable.len() == 1 {
                seen_one = true;
                assert!(
                    text.starts_with("add ") && !text.contains("up to"),
                    "{text}"
                );
            } else if n > 1 {
                assert!(text.contains(&format!("up to {n} of")), "{text}");
            }
        }
    }
    assert!(seen_one, "a fixture has an add of one card");
}

#[test]
fn a_decision_the_machine_kept_waiting_shows_its_own_time() {
    // The referee's clock (docs/PROTOCOL.md, "Time limits"): a replay with own_ms, cpu_ms and
    // wait_ms on its first move shows them beside the wall time; older replays still read.
    let mut lines = fixture_lines("podkidnoy-2p.jsonl");
    let first = lines
        .iter()
        .position(|l| l.contains(r#""type":"move""#) && l.contains(r#""forced":false"#))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&lines[first]).unwrap();
    v["elapsed_ms"] = serde_json::json!(612.4);
    v["own_ms"] = serde_json::json!(204.2);
    v["cpu_ms"] = serde_json::json!(200.0);
    v["wait_ms"] = serde_json::json!(408.2);
    lines[first] = v.to_string();
    let s = sim_of_lines(&lines);
    assert!(s.divergence.is_none(), "{:?}", s.divergence);
    let timing = step_view(&s, 0, None).timing.unwrap();
    assert!(
        timing.starts_with(
            "answered in 612 ms, 204 ms its own, CPU 200 ms, waited for a CPU 408 ms to \
             request 1"
        ),
        "{timing}"
    );
    assert!(render_step(&step_view(&s, 0, None)).contains("204 ms its own"));
}

/// Every fault kind has words of its own (memory had none: "faulted"); only a name this build
/// does not know is "faulted".
#[test]
fn every_fault_kind_has_its_own_words() {
    use durak_protocol::FaultKind;
    use durak_replay::view::fault_words;
    let words: std::collections::BTreeSet<&str> = FaultKind::ALL
        .iter()
        .map(|k| fault_words(k.name()))
        .collect();
    assert_eq!(words.len(), FaultKind::ALL.len(), "{words:?}");
    assert!(!words.contains("faulted"), "{words:?}");
    assert_eq!(fault_words("gremlins"), "faulted");
}
