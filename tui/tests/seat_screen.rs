//! The human seat's screen (`durak play human BOT`) drawn on ratatui's test backend: a real
//! position from the engine, as the seat's request carries it, shows the seat's own hand, the
//! numbered choices and what is typed, and nothing of the other seats' cards but their count
//! and what is publicly known.

use durak_protocol::observation_json;
use durak_replay::view::pretty_card;
use durak_rules::{Game, Setup, Variant};
use durak_tui::seat::{draw_seat, Phase, SeatScreen};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;

fn screen_of(s: &SeatScreen, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| draw_seat(f, s)).unwrap();
    let buf = terminal.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// A fresh 3-seat game, seen by its first decider.
fn position() -> (Game, usize, SeatScreen) {
    let setup = Setup {
        variant: Variant::Podkidnoy,
        players: 3,
        dealer: 0,
        first_game: true,
    };
    let game = Game::new(setup, 7).unwrap();
    let me = game.decision().unwrap().seat;
    let mut s = SeatScreen::new(me, 3, "podkidnoy", 2);
    s.start_game(0, me);
    s.observe(&observation_json(&game.observation(me)));
    (game, me, s)
}

#[test]
fn the_seat_sees_its_hand_and_the_choices_and_not_the_others_cards() {
    let (game, me, mut s) = position();
    let hand: Vec<_> = game.hand(me).iter().collect();
    let choices: Vec<String> = hand
        .iter()
        .map(|&c| format!("attack with {}", pretty_card(c)))
        .collect();
    s.decide("attack", choices);
    s.input = "7C 7".into();
    for (w, h) in [(80, 24), (100, 30), (140, 40)] {
        let text = screen_of(&s, w, h);
        assert!(text.contains(&format!("you are seat {me}")), "{text}");
        assert!(text.contains("Your move: attack"), "{text}");
        for &c in &hand {
            assert!(
                text.contains(&pretty_card(c)),
                "{w}x{h}: {c} of the hand\n{text}"
            );
        }
        assert!(text.contains(" 1) attack with"), "{text}");
        assert!(
            text.contains(&format!("{:>2}) attack with", hand.len())),
            "every choice is numbered\n{text}"
        );
        assert!(text.contains("> 7C 7_"), "what is typed shows\n{text}");
        // The other seats: their count as hidden cards, never a card of their hands (I-1).
        assert!(text.contains("6 hidden"), "{text}");
        let trump = game.trump_card();
        for other in (0..3).filter(|&o| o != me) {
            for c in game.hand(other).iter().filter(|&c| c != trump) {
                assert!(
                    !text.contains(&pretty_card(c)),
                    "{w}x{h}: seat {other}'s {c} is shown to seat {me}\n{text}"
                );
            }
        }
    }
}

#[test]
fn events_keep_the_picture_current_between_requests() {
    let (game, me, mut s) = position();
    let card = game.hand(me).iter().next().unwrap();
    s.decide("attack", vec!["attack".into()]);
    s.answered();
    s.apply_event(&json!({"kind": "attacked", "seat": me, "cards": [card.to_string()]}));
    let v = s.view.as_ref().unwrap();
    assert_eq!(v.seats[me].count, 5);
    assert!(!v.seats[me]
        .hand
        .as_ref()
        .unwrap()
        .contains(&card.to_string()));
    assert_eq!(v.table.len(), 1);
    let text = screen_of(&s, 100, 30);
    assert!(
        text.contains("unbeaten"),
        "the attack is on the table\n{text}"
    );
    assert!(text.contains("Waiting"), "{text}");
    s.game_over(Some(me), &["seat 1 faulted".into()], false);
    assert!(matches!(s.phase, Phase::Over { last: false, .. }));
    let text = screen_of(&s, 100, 30);
    assert!(text.contains("game 0 over: you are the durak"), "{text}");
    assert!(text.contains("any key: the next game"), "{text}");
}
