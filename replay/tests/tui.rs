//! The terminal viewer drawn on ratatui's test backend: what the screen shows after keys.

mod common;

use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use durak_replay::tui::{draw, App};
use durak_replay::Simulation;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn screen(app: &App, sim: &Simulation) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
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
    assert!(second.contains("J♣  ← unbeaten"), "{second}");
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
    assert!(text.contains("did not answer in time"), "{text}");

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
