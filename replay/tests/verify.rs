//! Verification: real replays of both variants (including games ended by faults) verify; a
//! tampered or truncated replay is reported at its first differing step and line.

mod common;

use common::*;
use durak_replay::{parse_replay, ErrorKind, Simulation};
use serde_json::{json, Value};

fn set_line(lines: &mut [String], number: usize, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&lines[number - 1]).unwrap();
    f(&mut v);
    lines[number - 1] = v.to_string();
}

/// The step a line belongs to in a clean simulation: the last step starting at or before it.
fn owning_step(clean: &Simulation, line: usize) -> usize {
    clean
        .steps
        .iter()
        .filter(|s| s.line <= line)
        .map(|s| s.number)
        .max()
        .unwrap()
}

/// The step whose "since the previous step" events an event line belongs to.
fn step_after(clean: &Simulation, line: usize) -> usize {
    clean.steps.iter().find(|s| s.line > line).unwrap().number
}

fn other_card(card: &str) -> &'static str {
    if card == "6C" {
        "7C"
    } else {
        "6C"
    }
}

#[test]
fn every_fixture_verifies() {
    for f in FIXTURES {
        let s = sim(f);
        assert!(s.verified(), "{f}: {}", s.divergence.unwrap());
    }
}

#[test]
fn steps_and_results_of_real_games() {
    let s = sim("podkidnoy-2p.jsonl");
    assert_eq!((s.steps.len(), s.moves()), (67, 66));
    let end = s.end();
    assert_eq!((end.loser, end.draw, end.moves), (Some(0), false, 66));
    assert!(s.steps.last().unwrap().decision.is_none());
    assert!(
        s.steps.iter().any(|st| st.forced),
        "podkidnoy has forced passes"
    );

    let s = sim("prostoy-3p-draw.jsonl");
    assert_eq!((s.end().loser, s.end().draw), (None, true));

    // A game ended by a fault at a decision: that decision is the last step, with the fault.
    for (f, seat, kind) in [
        ("fault-malformed.jsonl", 1, "malformed"),
        ("fault-timeout.jsonl", 0, "timeout"),
        ("fault-crash-prostoy.jsonl", 1, "crash"),
        ("fault-illegal-prostoy.jsonl", 2, "illegal"),
    ] {
        let s = sim(f);
        let last = s.steps.last().unwrap();
        assert_eq!(last.decision.map(|d| d.seat), Some(seat), "{f}");
        assert!(last.mv.is_none(), "{f}: the faulted decision has no move");
        assert_eq!(last.faults.len(), 1, "{f}");
        assert_eq!(last.faults[0].kind, kind, "{f}");
        assert_eq!(s.end().loser, Some(seat), "{f}");
        assert!(!s.end().draw);
    }
    let s = sim("fault-illegal-prostoy.jsonl");
    let refused = s.steps.last().unwrap().refused.as_ref().unwrap();
    assert!(refused.reason.starts_with("P-5"), "{}", refused.reason);

    // A bot that never started: one step, the game did not start.
    let s = sim("fault-start.jsonl");
    assert_eq!(s.steps.len(), 1);
    assert!(!s.end().started);
    assert!(s.steps[0].before.is_empty());
    assert_eq!(s.end().faults[0].kind, "crash");
}

#[test]
fn a_changed_card_in_an_event() {
    let clean_lines = fixture_lines("podkidnoy-2p.jsonl");
    let clean = sim_of_lines(&clean_lines);
    // The third attack of the game.
    let attacks: Vec<usize> = clean_lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"kind\":\"attacked\""))
        .map(|(i, _)| i + 1)
        .collect();
    let n = attacks[2];
    let mut lines = clean_lines.clone();
    set_line(&mut lines, n, |v| {
        let c = v["event"]["cards"][0].as_str().unwrap().to_string();
        v["event"]["cards"][0] = json!(other_card(&c));
    });
    let s = sim_of_lines(&lines);
    let d = s.divergence.clone().expect("a changed card is found");
    assert_eq!(d.line, n);
    assert_eq!(d.step, Some(step_after(&clean, n)));
    assert!(d.message.contains("differs from the engine's"), "{d}");
    assert!(d
        .to_string()
        .starts_with(&format!("step {}, line {n}: ", d.step.unwrap())));
    // The viewer still shows the game (the engine's truth) and marks the step.
    assert_eq!(s.steps.len(), clean.steps.len());
    assert!(s.steps[d.step.unwrap() - 1].note.is_some());

    // A private event: a card of a dealt hand.
    let mut lines = clean_lines.clone();
    let n = find_line(&clean_lines, |v| v["event"]["kind"] == "dealt_hand");
    set_line(&mut lines, n, |v| {
        let c = v["event"]["cards"][0].as_str().unwrap().to_string();
        v["event"]["cards"][0] = json!(other_card(&c));
    });
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (Some(1), n));

    // An event sent to the wrong audience.
    let mut lines = clean_lines.clone();
    set_line(&mut lines, n, |v| v["to"] = Value::Null);
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (Some(1), n));
    assert!(d.message.contains("(public)"), "{d}");
}

#[test]
fn a_changed_move() {
    let clean_lines = fixture_lines("prostoy-4p.jsonl");
    let clean = sim_of_lines(&clean_lines);
    // A chosen attack changed to a card nobody may play: illegal, found at the move line.
    let moves: Vec<usize> = clean_lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"type\":\"move\"") && l.contains("\"action\":\"attack\""))
        .map(|(i, _)| i + 1)
        .collect();
    let n = moves[3];
    let mut lines = clean_lines.clone();
    let hand_of_other = {
        // A card certainly not in the attacker's hand: the trump card lying under the stock.
        let deck: Value = serde_json::from_str(&clean_lines[0]).unwrap();
        let players = deck["players"].as_u64().unwrap() as usize;
        deck["deck"][players * 5].as_str().unwrap().to_string()
    };
    set_line(&mut lines, n, |v| {
        v["move"]["cards"] = json!([hand_of_other]);
    });
    let s = sim_of_lines(&lines);
    let d = s.divergence.clone().unwrap();
    assert_eq!((d.step, d.line), (Some(owning_step(&clean, n)), n));
    assert!(d.message.contains("is illegal"), "{d}");
    // The engine cannot follow: the steps stop at the tampered move.
    assert_eq!(s.steps.len(), owning_step(&clean, n) + 1);

    // A podkidnoy defence changed to a take (legal too): the move line reads fine, the next
    // logged event is not what the engine now says.
    let clean_lines = fixture_lines("podkidnoy-2p.jsonl");
    let clean = sim_of_lines(&clean_lines);
    let n = find_line(&clean_lines, |v| {
        v["type"] == "move" && v["move"]["action"] == "defend" && v["forced"] == false
    });
    let mut lines = clean_lines.clone();
    set_line(&mut lines, n, |v| v["move"] = json!({"action": "take"}));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, n + 1);
    assert_eq!(d.step, Some(owning_step(&clean, n) + 1));

    // A chosen move marked as forced.
    let mut lines = clean_lines.clone();
    set_line(&mut lines, n, |v| {
        v["forced"] = json!(true);
        v["id"] = Value::Null;
    });
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (Some(owning_step(&clean, n)), n));
    assert!(d.message.contains("forced"), "{d}");

    // A move by the wrong seat.
    let mut lines = clean_lines.clone();
    set_line(&mut lines, n, |v| {
        let seat = v["seat"].as_u64().unwrap();
        v["seat"] = json!(1 - seat);
    });
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, n);
    assert!(d.message.contains("decision"), "{d}");

    // The legal choices of a request changed.
    let r = find_line(&clean_lines, |v| v["type"] == "request");
    let mut lines = clean_lines.clone();
    set_line(&mut lines, r, |v| v["legal"]["same_rank"] = json!(false));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (Some(1), r));
}

#[test]
fn truncated_replays() {
    let clean_lines = fixture_lines("podkidnoy-2p.jsonl");
    let clean = sim_of_lines(&clean_lines);
    // Without the result line.
    let lines = clean_lines[..clean_lines.len() - 1].to_vec();
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, lines.len());
    assert!(d.message.contains("without its result line"), "{d}");
    // Cut in the middle of the game, after a request: the open request is named.
    let r = clean_lines
        .iter()
        .rposition(|l| l.contains("\"type\":\"request\""))
        .unwrap()
        + 1;
    let lines = clean_lines[..r].to_vec();
    let s = sim_of_lines(&lines);
    let d = s.divergence.clone().unwrap();
    assert_eq!(d.line, r);
    assert_eq!(d.step, Some(owning_step(&clean, r)));
    assert!(
        d.message.contains("truncated") && d.message.contains("has no answer"),
        "{d}"
    );
    assert!(!s.end().logged);
    // Every step up to there is still shown.
    assert_eq!(s.steps.len(), owning_step(&clean, r));

    // Cut in the middle of a line: bad input naming the line.
    let text = fixture_text("podkidnoy-2p.jsonl");
    let cut = &text.as_bytes()[..text.len() / 2];
    let line = cut.iter().filter(|&&b| b == b'\n').count() + 1;
    let e = parse_replay(cut, "cut.jsonl").unwrap_err();
    assert_eq!(e.kind, ErrorKind::TruncatedLine);
    assert_eq!(e.line, Some(line));
    assert!(
        e.to_string().starts_with(&format!("cut.jsonl:{line}: ")),
        "{e}"
    );
}

#[test]
fn removed_or_added_lines() {
    let clean_lines = fixture_lines("prostoy-3p-exchange.jsonl");
    let clean = sim_of_lines(&clean_lines);
    // An event line removed: the next line is not what the engine expects.
    let n = find_line(&clean_lines, |v| v["event"]["kind"] == "exchanged");
    let mut lines = clean_lines.clone();
    lines.remove(n - 1);
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, n);
    assert_eq!(d.step, Some(step_after(&clean, n)));
    // A line after the result.
    let mut lines = clean_lines.clone();
    lines.push(r#"{"type":"stderr","seat":0,"text":"late","dropped":0}"#.into());
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, lines.len());
    assert!(d.message.contains("after the result"), "{d}");
}

#[test]
fn a_changed_result_or_header() {
    let clean_lines = fixture_lines("podkidnoy-2p.jsonl");
    let last = clean_lines.len();
    let mut lines = clean_lines.clone();
    set_line(&mut lines, last, |v| v["loser"] = json!(1));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (Some(67), last));
    assert!(d.message.contains("the engine says seat 0 loses"), "{d}");
    let mut lines = clean_lines.clone();
    set_line(&mut lines, last, |v| v["moves"] = json!(65));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert!(d.message.contains("65 moves"), "{d}");

    // Two cards of the deck swapped: the deck is not the seed's.
    let mut lines = clean_lines.clone();
    set_line(&mut lines, 1, |v| {
        let deck = v["deck"].as_array_mut().unwrap();
        deck.swap(3, 30);
    });
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (None, 1));
    assert!(d.message.contains("card 3"), "{d}");
    assert!(d.to_string().starts_with("line 1 (header): "), "{d}");
    // A card changed: not a deck any more.
    let mut lines = clean_lines.clone();
    set_line(&mut lines, 1, |v| {
        let c = v["deck"][0].as_str().unwrap().to_string();
        v["deck"][1] = json!(c);
    });
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert!(d.message.contains("appears twice"), "{d}");
    // The seed changed.
    let mut lines = clean_lines.clone();
    set_line(&mut lines, 1, |v| v["seed"] = json!(12345));
    assert_eq!(sim_of_lines(&lines).divergence.unwrap().line, 1);
}

#[test]
fn tampered_faults() {
    let clean_lines = fixture_lines("fault-malformed.jsonl");
    let clean = sim_of_lines(&clean_lines);
    let steps = clean.steps.len();
    // A refused answer replaced by a legal one: the refusal cannot be right.
    let n = find_line(&clean_lines, |v| v["type"] == "answer");
    let mut lines = clean_lines.clone();
    set_line(&mut lines, n, |v| {
        let id = v["id"].as_u64().unwrap();
        v["line"] = json!(format!(r#"{{"type":"answer","id":{id},"action":"take"}}"#));
    });
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!((d.step, d.line), (Some(steps), n));
    assert!(d.message.contains("is a legal move"), "{d}");
    // The result blames another seat.
    let last = clean_lines.len();
    let mut lines = clean_lines.clone();
    set_line(&mut lines, last, |v| v["loser"] = json!(0));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert!(d.message.contains("seat 1 faulted first"), "{d}");
    // The fault line removed: the result's faults do not match any more.
    let f = find_line(&clean_lines, |v| v["type"] == "fault");
    let mut lines = clean_lines.clone();
    lines.remove(f - 1);
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert!(d.message.contains("fault"), "{d}");
    // A move after the fault.
    let mut lines = clean_lines.clone();
    lines.insert(
        f,
        r#"{"type":"move","seat":1,"forced":false,"id":11,"elapsed_ms":1.0,"move":{"action":"take"}}"#
            .into(),
    );
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, f + 1);
    assert!(d.message.contains("after seat 1's fault"), "{d}");
}

/// Each stderr line is kept at the step it belongs to: `"start"` at step 1, a request at that
/// request's step, `"end"` and an older replay's line (no `at`) at the last step.
#[test]
fn stderr_lines_are_kept_at_their_steps() {
    let s = sim("hostile-text.jsonl");
    let at_step = |id: u64| {
        s.steps
            .iter()
            .find(|st| st.request.as_ref().is_some_and(|r| r.id == id))
            .unwrap()
    };
    assert!(s.steps[0].stderr[0].text.starts_with("starting "));
    assert_eq!(
        s.steps[0].stderr[0].at,
        Some(durak_replay::read::StderrAt::Start)
    );
    // The bot counts its own requests: its second is request 3 of the game.
    for (id, nth) in [(1, 1), (3, 2), (4, 3), (7, 4)] {
        let step = at_step(id);
        let t: Vec<_> = step
            .stderr
            .iter()
            .filter(|t| t.at == Some(durak_replay::read::StderrAt::Request(id)))
            .collect();
        assert_eq!(t.len(), 1, "request {id}: {:?}", step.stderr);
        assert_eq!((t[0].seat, step.decision.unwrap().seat), (1, 1));
        assert!(
            t[0].text.ends_with(&format!("about request {nth}\n")),
            "{:?}",
            t[0]
        );
    }
    let total: usize = s.steps.iter().map(|st| st.stderr.len()).sum();
    assert_eq!(total, 5);

    // An older replay's stderr (no `at`: the process's whole stderr) and "end" are at the end.
    let mut lines = fixture_lines("podkidnoy-2p.jsonl");
    let n = find_line(&lines, |v| v["type"] == "stderr" && v["seat"] == 0);
    set_line(&mut lines, n, |v| v["text"] = json!("old words"));
    let m = find_line(&lines, |v| v["type"] == "stderr" && v["seat"] == 1);
    set_line(&mut lines, m, |v| {
        v["text"] = json!("last words");
        v["at"] = json!("end");
    });
    let old = sim_of_lines(&lines);
    assert!(old.verified(), "{:?}", old.divergence);
    let last = old.steps.last().unwrap();
    let texts: Vec<(&str, Option<durak_replay::read::StderrAt>)> = last
        .stderr
        .iter()
        .map(|t| (t.text.as_str(), t.at))
        .collect();
    assert_eq!(
        texts,
        [
            ("old words", None),
            ("last words", Some(durak_replay::read::StderrAt::End))
        ]
    );
    assert!(old.steps[..old.steps.len() - 1]
        .iter()
        .all(|st| st.stderr.is_empty()));
}

/// A stderr line at a request must name one of that seat's requests, logged before it.
#[test]
fn a_stderr_line_at_a_request_that_is_not_the_seats() {
    let clean = fixture_lines("hostile-text.jsonl");
    let n = find_line(&clean, |v| v["type"] == "stderr" && v["at"] == 3);
    // Request 2 asked seat 0, not seat 1.
    let mut lines = clean.clone();
    set_line(&mut lines, n, |v| v["at"] = json!(2));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, n);
    assert!(
        d.message
            .contains("the stderr line of seat 1 is at request 2, but request 2 asked seat 0"),
        "{d}"
    );
    // No request 99.
    let mut lines = clean.clone();
    set_line(&mut lines, n, |v| v["at"] = json!(99));
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert!(d.message.contains("no request 99 comes before it"), "{d}");
    // Before its request's line.
    let mut lines = clean.clone();
    let line = lines.remove(n - 1);
    let r = find_line(&lines, |v| v["type"] == "request" && v["id"] == 3);
    lines.insert(r - 1, line);
    let d = sim_of_lines(&lines).divergence.unwrap();
    assert_eq!(d.line, r);
    assert!(d.message.contains("no request 3 comes before it"), "{d}");
    // Where is not one of "start", "end", an id: the line is invalid.
    for bad in [json!("middle"), json!(0), json!(-2), json!(1.5)] {
        let mut lines = clean.clone();
        set_line(&mut lines, n, |v| v["at"] = bad.clone());
        let mut text = lines.join("\n");
        text.push('\n');
        let e = parse_replay(text.as_bytes(), "bad.jsonl").unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidLine, "{bad}: {e}");
        assert!(
            e.to_string().starts_with(&format!(
                "bad.jsonl:{n}: invalid stderr line: \"at\" is \"start\", \"end\" or a request id"
            )),
            "{e}"
        );
    }
}

/// A logged move is decoded with the checks of a bot's answer, and refused as one would be.
#[test]
fn a_logged_move_that_cannot_be_read_is_refused_as_an_answer() {
    use durak_protocol::FaultKind;
    use durak_replay::sim::decode_move;
    let r = decode_move(&serde_json::json!(["attack"])).unwrap_err();
    assert_eq!(
        (r.kind, r.pointer.as_deref()),
        (FaultKind::Schema, Some(""))
    );
    assert!(r.to_string().contains("not a JSON object"), "{r}");
    let r = decode_move(&serde_json::json!({"action": "attack", "cards": ["ZZ"]})).unwrap_err();
    assert_eq!(r.kind, FaultKind::Schema, "{r}");
    let m = decode_move(&serde_json::json!({"action": "take"})).unwrap();
    assert_eq!(m, durak_rules::Move::Take);
}
