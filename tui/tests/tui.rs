//! The terminal viewer drawn on ratatui's test backend: what the screen shows after keys.

#[path = "../../replay/tests/common/mod.rs"]
mod common;

use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use durak_replay::view::{pretty_card, step_view};
use durak_replay::Simulation;
use durak_tui::{draw, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn screen(app: &App, sim: &Simulation) -> String {
    screen_of(app, sim, 120, 40)
}

fn screen_of(app: &App, sim: &Simulation, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| draw(f, app, sim)).unwrap();
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

fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
}

#[test]
fn stepping_and_views_on_screen() {
    let s = sim("podkidnoy-2p.jsonl");
    let mut app = App::new(s.steps.len(), s.header.players);
    let first = screen(&app, &s);
    assert!(first.contains("Step 1/67"), "{first}");
    assert!(first.contains("seat 1 (builtin:greedy) to attack"));
    assert!(first.contains("✓ verified"));
    assert!(first.contains("answer  attack with J♣"));
    assert!(
        first.contains("9♣ 7♦ 8♦ J♦ 10♥ 8♠"),
        "the full view shows seat 0's hand"
    );

    press(&mut app, KeyCode::Right);
    let second = screen(&app, &s);
    assert!(second.contains("Step 2/67"));
    assert!(second.contains("J♣←unbeaten"), "{second}");
    assert_ne!(first, second);

    press(&mut app, KeyCode::Char('v'));
    press(&mut app, KeyCode::Char('v'));
    let seat1 = screen(&app, &s);
    assert!(seat1.contains("seat 1's view"));
    assert!(
        !seat1.contains("9♣ 7♦ 8♦ J♦ 10♥ 8♠"),
        "seat 1 does not see seat 0's hand"
    );
    assert!(seat1.contains("6 hidden"), "{seat1}");

    press(&mut app, KeyCode::End);
    let end = screen(&app, &s);
    assert!(end.contains("Step 67/67"));
    assert!(
        end.contains("seat 0 (builtin:random) is the durak"),
        "{end}"
    );

    press(&mut app, KeyCode::Char('1'));
    assert!(screen(&app, &s).contains("jump to step: 1_"));
    press(&mut app, KeyCode::Char('?'));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('?'));
    assert!(
        screen(&app, &s).contains("next / previous view"),
        "the help"
    );
}

#[test]
fn faults_and_differences_on_screen() {
    let s = sim("fault-timeout.jsonl");
    let mut app = App::new(s.steps.len(), s.header.players);
    press(&mut app, KeyCode::End);
    let text = screen(&app, &s);
    assert!(text.contains("FAULT"), "{text}");
    assert!(text.contains("did not answer"), "{text}");

    let mut lines = fixture_lines("podkidnoy-2p.jsonl");
    let last = lines.len() - 1;
    lines[last] = lines[last].replace("\"loser\":0", "\"loser\":1");
    let s = sim_of_lines(&lines);
    let mut app = App::new(s.steps.len(), s.header.players);
    let text = screen(&app, &s);
    assert!(text.contains("✗ differs at step 67"), "{text}");
    press(&mut app, KeyCode::End);
    assert!(screen(&app, &s).contains("REPLAY DIFFERS HERE"));
}

#[test]
fn tiny_terminals_do_not_panic() {
    let s = sim("podkidnoy-6p.jsonl");
    let mut app = App::new(s.steps.len(), s.header.players);
    app.help = true;
    for (w, h) in [(1, 1), (10, 5), (40, 12), (80, 24)] {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal.draw(|f| draw(f, &app, &s)).unwrap();
    }
}

/// The rows of the screen between the Seats box's top border and its bottom one.
fn seats_box(screen: &str) -> String {
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows
        .iter()
        .position(|r| r.starts_with("┌ Seats"))
        .expect("a Seats box");
    let bottom = top + rows[top..].iter().position(|r| r.starts_with("└")).unwrap();
    rows[top + 1..bottom].join("\n")
}

/// Issue 13: at 80×24 (and taller), with up to six seats, every hand is shown in full at every
/// step (it wraps rather than being cut), and so is the rest of the seats' state.
#[test]
fn every_hand_in_full_at_80x24() {
    for f in FIXTURES {
        let s = sim(f);
        let mut app = App::for_game(&s);
        for (w, h) in [(80, 24), (100, 30), (160, 45)] {
            for step in 0..s.steps.len() {
                app.step = step;
                let screen = screen_of(&app, &s, w, h);
                let block = seats_box(&screen);
                let v = step_view(&s, step, None).escaped();
                for seat in &v.seats {
                    // The seat's row, then its cards in order (maybe over several rows).
                    let start = block
                        .find(&format!("{} ", seat.seat))
                        .unwrap_or_else(|| panic!("{f} step {step} {w}x{h}: seat {}", seat.seat));
                    let mut rest = &block[start..];
                    for c in seat.hand.as_ref().unwrap() {
                        let c = pretty_card(c.parse().unwrap());
                        let at = rest.find(&c).unwrap_or_else(|| {
                            panic!("{f} step {step} {w}x{h}: seat {} {c}:\n{screen}", seat.seat)
                        });
                        rest = &rest[at + c.len()..];
                    }
                }
            }
        }
    }
}

/// The table's line (trump, stock, discard, who attacks whom, the limit, a take) wraps between
/// its parts at 80 columns instead of losing its end.
#[test]
fn the_table_line_is_never_cut_at_80x24() {
    for f in FIXTURES {
        let s = sim(f);
        let mut app = App::for_game(&s);
        for step in 0..s.steps.len() {
            app.step = step;
            let screen = screen_of(&app, &s, 80, 24);
            let v = step_view(&s, step, None).escaped();
            let mut parts = vec![format!("· discard {}", v.discard.len())];
            if v.result.is_none() {
                parts.push(format!("· seat {} attacks seat {}", v.attacker, v.defender));
                if let Some(l) = v.limit {
                    parts.push(format!("· at most {l}"));
                }
                if v.taking {
                    parts.push("· the defender takes".into());
                }
            }
            for p in parts {
                assert!(screen.contains(&p), "{f} step {step}: {p:?}:\n{screen}");
            }
        }
    }
}

#[test]
fn the_help_fits_at_80x24() {
    let s = sim("podkidnoy-6p.jsonl");
    let mut app = App::for_game(&s);
    press(&mut app, KeyCode::Char('?'));
    let screen = screen_of(&app, &s, 80, 24);
    for d in [
        "next step",
        "jump to a step",
        "play / pause",
        "next / previous fault",
        "next / previous round",
        "next / previous view: full, seat 0, ...",
        "the full view (all hands)",
        "quit",
    ] {
        assert!(screen.contains(d), "{d}:\n{screen}");
    }
}

/// `p` plays (a step per tick, off at the end; a key that moves stops it), `f` / `F` jump to the
/// next / previous fault, `r` / `R` to the next / previous round.
#[test]
fn autoplay_and_jumps() {
    let s = sim("fault-malformed.jsonl");
    let mut app = App::for_game(&s);
    assert_eq!(app.faults, vec![s.steps.len() - 1]);
    press(&mut app, KeyCode::Char('p'));
    assert!(app.playing);
    app.tick();
    app.tick();
    assert_eq!(app.step, 2);
    assert!(screen_of(&app, &s, 80, 24).contains("▶ playing"));
    press(&mut app, KeyCode::Char('+'));
    assert!(app.playing, "the speed keys leave it playing");
    assert_eq!(app.delay().as_millis(), 500);
    press(&mut app, KeyCode::Right);
    assert!(!app.playing, "a step key stops it");
    assert_eq!(app.step, 3);
    press(&mut app, KeyCode::Char('p'));
    for _ in 0..100 {
        app.tick();
    }
    assert_eq!(app.step, s.steps.len() - 1);
    assert!(!app.playing, "off at the end");
    press(&mut app, KeyCode::Char('p'));
    assert_eq!(app.step, 0, "play at the end starts over");
    press(&mut app, KeyCode::Char('p'));

    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.step, s.steps.len() - 1, "the fault");
    assert!(screen_of(&app, &s, 80, 24).contains("FAULT"));
    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.step, s.steps.len() - 1, "no fault after it");
    press(&mut app, KeyCode::Char('R'));
    let r = app.step;
    assert!(r < s.steps.len() - 1 && app.rounds.contains(&r));
    assert!(
        screen_of(&app, &s, 80, 24).contains("new round: seat"),
        "a round starts here"
    );
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Char('r'));
    assert_eq!(app.step, app.rounds[0]);
    press(&mut app, KeyCode::Char('F'));
    assert_eq!(app.step, app.rounds[0], "no fault before");
}

/// At 120 columns and more the decision panel is a column of its own, beside the seats; below,
/// it is under them and takes only the rows the seats and table leave.
#[test]
fn the_layout_follows_the_window() {
    let s = sim("podkidnoy-6p.jsonl");
    let mut app = App::for_game(&s);
    app.step = 20;
    let wide = screen_of(&app, &s, 160, 45);
    let first = wide.lines().nth(1).unwrap();
    assert!(
        first.starts_with("┌ Seats") && first.contains("┌ Decision"),
        "{wide}"
    );
    let narrow = screen_of(&app, &s, 80, 24);
    let rows: Vec<&str> = narrow.lines().collect();
    let at = |p: &str| rows.iter().position(|r| r.starts_with(p)).unwrap();
    // Six seats (one row each here), the table, the decision: one under the other, and the
    // decision to the last row but the keys.
    assert_eq!(at("┌ Table"), 1 + 6 + 2, "{narrow}");
    assert!(at("┌ Decision") <= 14, "{narrow}");
    assert!(rows[22].starts_with("└"), "{narrow}");
}

/// The row of `screen` holding `needle`, if any.
fn row_of(screen: &str, needle: &str) -> Option<usize> {
    screen.lines().position(|l| l.contains(needle))
}

/// The number in "↓ N more line(s)" / "↑ N line(s) above".
fn count_in(screen: &str, marker: &str) -> Option<usize> {
    let line = screen.lines().find(|l| l.contains(marker))?;
    let at = line.find(marker)? + marker.len();
    line[at..].split_whitespace().next()?.parse().ok()
}

/// Issue 13 (audit): at 80×24 a decision panel that does not fit says how many rows it hides,
/// with no empty row below that note, and `j` scrolls down to its last row (`k` back up): the
/// rows counted are the rows scrolled.
#[test]
fn the_decision_panel_scrolls_at_80x24() {
    let mut overflowing = 0;
    for f in FIXTURES {
        let s = sim(f);
        let mut app = App::for_game(&s);
        for step in 0..s.steps.len() {
            app.step = step;
            app.scroll = 0;
            let top = screen_of(&app, &s, 80, 24);
            let Some(hidden) = count_in(&top, "↓ ") else {
                continue;
            };
            overflowing += 1;
            // The note is the panel's last row: the border comes next.
            let r = row_of(&top, "more line").unwrap();
            let next = top.lines().nth(r + 1).unwrap();
            assert!(next.starts_with('└'), "{f} step {}:\n{top}", step + 1);
            // Scroll to the end: as many rows as the note said, then no more.
            let mut presses = 0;
            loop {
                let before = app.scroll;
                press(&mut app, KeyCode::Char('j'));
                screen_of(&app, &s, 80, 24);
                if app.scroll == before {
                    break;
                }
                presses += 1;
                assert!(presses <= 200);
            }
            assert_eq!(presses, hidden, "{f} step {}:\n{top}", step + 1);
            let bottom = screen_of(&app, &s, 80, 24);
            assert!(!bottom.contains("more line"), "{bottom}");
            assert_eq!(count_in(&bottom, "↑ "), Some(hidden), "{bottom}");
            press(&mut app, KeyCode::Char('k'));
            assert_eq!(app.scroll, hidden - 1);
            // Another step starts at the top again.
            press(
                &mut app,
                if step == 0 {
                    KeyCode::Right
                } else {
                    KeyCode::Left
                },
            );
            assert_eq!(app.scroll, 0);
            app.step = step;
        }
    }
    assert!(
        overflowing > 0,
        "some step of the fixtures overflows at 80×24"
    );
}

/// The answer and the legal choices also in the protocol's form (`TD`, the answer's JSON line),
/// beside the words, for a bot author.
#[test]
fn protocol_forms_beside_the_words() {
    let s = sim("podkidnoy-2p.jsonl");
    let app = App::new(s.steps.len(), s.header.players);
    let screen = screen_of(&app, &s, 200, 50);
    let v = step_view(&s, 0, None);
    let codes = v.legal_codes.clone().unwrap();
    assert!(codes.starts_with("hand "), "{codes}");
    assert!(screen.contains(&codes), "{screen}");
    let line = v.answer_line.clone().unwrap();
    assert!(
        line.starts_with(r#"{"type":"answer","id":1,"action":"attack","cards":["#),
        "{line}"
    );
    assert!(screen.contains(&line), "{screen}");
    let text = durak_replay::text::render_step(&v);
    assert!(text.contains(&codes) && text.contains(&line), "{text}");
}

/// A seat's name is cut only for want of room on its line (the audit of issue 13 found names
/// cut at 18 columns in a 130-column terminal).
#[test]
fn names_use_the_room_they_have() {
    let s = sim("podkidnoy-4p-processes.jsonl");
    let app = App::for_game(&s);
    let wide = screen_of(&app, &s, 130, 40);
    assert!(
        wide.contains("0 python3 sample-bots/python/random_…"),
        "{wide}"
    );
    let narrow = screen_of(&app, &s, 80, 24);
    assert!(narrow.contains("0 python3 sample-bots/python/"), "{narrow}");
}

/// Issue 26: with the game's analysis, each step of the endgame shows its value in the header
/// line, and `b` / `B` jump to the next / previous blunder.
#[test]
fn endgame_values_and_the_blunder_key() {
    let mut tried = 0;
    for name in [
        "podkidnoy-2p.jsonl",
        "prostoy-3p-draw.jsonl",
        "prostoy-4p.jsonl",
    ] {
        let s = sim(name);
        let a = durak_replay::analyze::analyze(&s);
        let mut app = App::for_game(&s).with_analysis(&a);
        assert_eq!(app.values.len(), s.steps.len());
        let first = screen(&app, &s);
        assert!(!first.contains("endgame:"), "step 1 is not in the endgame");
        let Some(d) = a.decisions.first() else {
            continue;
        };
        tried += 1;
        app.jump_to(d.step);
        let t = screen(&app, &s);
        assert!(t.contains(&format!("endgame: seat {}", d.seat)), "{t}");
        let blunders: Vec<usize> = a.blunders().map(|d| d.step).collect();
        app.first();
        press(&mut app, KeyCode::Char('b'));
        match blunders.first() {
            Some(&b) => {
                assert_eq!(app.step + 1, b);
                assert!(screen(&app, &s).contains("BLUNDER"));
                press(&mut app, KeyCode::Char('b'));
                assert_eq!(app.step + 1, *blunders.get(1).unwrap_or(&b));
                press(&mut app, KeyCode::Char('B'));
                assert_eq!(app.step + 1, b);
            }
            None => assert_eq!(app.step, 0, "no blunder: b stays"),
        }
    }
    assert!(tried > 0, "a fixture reaches the endgame");
}

/// `b` on a game with marked blunders goes to each in turn and stays at the last.
#[test]
fn the_blunder_key_walks_the_marks() {
    let s = sim("podkidnoy-2p.jsonl");
    let mut app = App::for_game(&s);
    app.blunders = vec![4, 9];
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.step, 4);
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.step, 9);
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.step, 9);
    press(&mut app, KeyCode::Char('B'));
    assert_eq!(app.step, 4);
}
