//! Issue 26: a constructed deal where a known blunder is made, and `durak analyze`'s analysis
//! flags it. The deck is laid out by hand (not shuffled from a seed), both seats play the
//! greedy policy, and at the first endgame decision of the deal where the mover holds a win and
//! one of its choices loses, that losing choice is played: the analysis of the game's replay must
//! name that very step a blunder (win, then loss), with the move played outside its best choices.

use durak_protocol::{EventSer, LegalSer, MoveSer};
use durak_replay::analyze::analyze;
use durak_replay::{parse_replay, simulate, FORMAT};
use durak_rules::random::greedy_move;
use durak_rules::solve::{Solver, Value};
use durak_rules::{Audience, Card, CardSet, Deck, Event, Game, Move, Setup, Variant};
use serde_json::json;

fn event_lines(out: &mut Vec<String>, events: &[Event]) {
    for e in events {
        let to = match e.to {
            Audience::All => None,
            Audience::Seat(s) => Some(s),
        };
        out.push(json!({"type": "event", "to": to, "event": EventSer(&e.kind)}).to_string());
    }
}

/// Play the deal greedily, blundering once where a win can be thrown away; the replay's lines
/// and the blunder (its step, seat and move), if the deal had such a decision.
fn play(deck: Deck) -> (Vec<String>, Option<(usize, usize, Move)>) {
    let setup = Setup {
        variant: Variant::Podkidnoy,
        players: 2,
        dealer: 0,
        first_game: true,
    };
    let mut g = Game::with_deck(setup, deck).unwrap();
    let mut lines = vec![json!({
        "type": "header", "format": FORMAT, "variant": "podkidnoy", "players": 2,
        "series_seed": 0, "game": 0, "seed": 0, "dealer": 0, "first_game": true,
        "deck": deck.cards().iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        "seats": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b"}],
    })
    .to_string()];
    event_lines(&mut lines, &g.start_events());
    let mut solver = Solver::new(2_000_000);
    let (mut step, mut id, mut blunder) = (0, 0, None);
    while let Some(legal) = g.legal() {
        step += 1;
        let seat = legal.decision.seat;
        let forced = legal.forced_move(Variant::Podkidnoy);
        let mut mv = forced.unwrap_or_else(|| greedy_move(&legal, g.trump()));
        if forced.is_none() {
            id += 1;
            lines.push(
                json!({"type": "request", "id": id, "seat": seat,
                       "decision": legal.decision.kind.name(),
                       "time": {"move_ms": 1000, "bank_ms": 0}, "legal": LegalSer(&legal)})
                .to_string(),
            );
            if blunder.is_none() && g.endgame_seats().is_some() {
                if let Ok(choices) = solver.choices(&g) {
                    let best = choices.iter().map(|c| c.value).max().unwrap();
                    if let Some(bad) = choices.iter().find(|c| c.value == Value::Loss) {
                        if best == Value::Win {
                            mv = bad.mv;
                            blunder = Some((step, seat, mv));
                        }
                    }
                }
            }
        }
        lines.push(
            json!({"type": "move", "seat": seat, "forced": forced.is_some(),
                   "id": forced.is_none().then_some(id),
                   "elapsed_ms": forced.is_none().then_some(1.0), "move": MoveSer(&mv)})
            .to_string(),
        );
        let events = g.apply(seat, &mv).unwrap();
        event_lines(&mut lines, &events);
    }
    let loser = g.outcome().unwrap().loser;
    lines.push(
        json!({"type": "result", "loser": loser, "draw": loser.is_none(), "faults": [],
               "moves": g.move_count(), "duration_ms": 0})
        .to_string(),
    );
    (lines, blunder)
}

#[test]
fn analyze_flags_the_blunder_made_in_a_constructed_deal() {
    // Constructed decks: every card in index order, turned by k places.
    let cards: Vec<Card> = CardSet::ALL.iter().collect();
    let mut found = 0;
    for k in 0..36 {
        let mut order = cards.clone();
        order.rotate_left(k);
        let (lines, blunder) = play(Deck::from_cards(&order).unwrap());
        let Some((step, seat, mv)) = blunder else {
            continue;
        };
        let text = lines.join("\n") + "\n";
        let sim = simulate(&parse_replay(text.as_bytes(), "constructed.jsonl").unwrap());
        // Not a seeded deck: the header says so, the rest is followed.
        let div = sim.divergence.as_ref().expect("the deck is not a seed's");
        assert_eq!(div.line, 1, "{}", div.message);
        let a = analyze(&sim);
        let d = a
            .at(step)
            .expect("the blunder's step is in the solved part");
        assert_eq!((d.seat, d.mv), (seat, Some(mv)));
        assert_eq!(d.value, Ok(Value::Win));
        assert_eq!(d.value_after, Ok(Value::Loss));
        assert!(d.blunder() && !d.best.contains(&mv), "{d:?}");
        let s = &a.seats[seat];
        assert!(s.blunders >= 1 && s.first_blunder.is_some_and(|f| f <= step));
        // It held a win: thrown away unless the other seat blundered it back.
        let won = !a.draw && a.loser.is_some_and(|l| l != seat);
        assert_eq!(s.threw_won_game, !won);
        found += 1;
        if found == 3 {
            break;
        }
    }
    assert!(found > 0, "no constructed deal had a win to throw away");
}
