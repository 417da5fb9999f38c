//! Text a bot wrote (its hello name and version, its stderr, a refused answer line, the fault
//! detail quoting it) cannot drive the terminal of whoever views the replay: plain text, the
//! terminal UI and the HTML page show its control characters and bidi overrides as visible
//! escapes. The fixture `hostile-text.jsonl` is a real game of such a bot (replay/tests/data/README.md).

#[path = "../../replay/tests/common/mod.rs"]
mod common;

use common::*;
use durak_replay::html::html_page;
use durak_replay::text::{render_step, summary, verdict};
use durak_replay::view::all_views;
use durak_tui::{draw, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

const NAME: &str = r"evil\e]0;pwned\x07\u{202e}man";
const STDERR: &str = r"thinking \e]0;pwned\x07 \e[2J\r\u{202e} about request 1";
const LINE: &str = r"\e[2J\e]0;pwned\x07{oops\r\u{202e}";

#[test]
fn the_fixture_holds_the_raw_sequences() {
    let text = fixture_text("hostile-text.jsonl");
    let s = sim("hostile-text.jsonl");
    assert!(s.verified(), "{:?}", s.divergence);
    let label = s.header.seat_label(1);
    assert!(label.contains("\u{1b}]0;pwned\u{7}\u{202e}"), "{label:?}");
    for raw in [r"\u001b]0;pwned\u0007", r"\u001b[2J\r", "\u{202e}"] {
        assert!(text.contains(raw), "{raw}");
    }
}

#[test]
fn plain_text_shows_escapes_in_every_view() {
    let s = sim("hostile-text.jsonl");
    for viewer in [None, Some(0), Some(1)] {
        let all: String = all_views(&s, viewer).iter().map(render_step).collect();
        assert!(inert(&all), "{viewer:?}: {all:?}");
        assert!(all.contains(NAME), "{viewer:?}");
        if viewer != Some(0) {
            // What only the bot and the full view see: its stderr and its refused line.
            assert!(
                all.contains(&format!(
                    "stderr of seat 1 (after request 1):\n  | {STDERR}\n"
                )),
                "{viewer:?}\n{all}"
            );
            assert!(all.contains(&format!("refused answer: {LINE}\n")), "{all}");
        } else {
            assert!(
                !all.contains("thinking"),
                "seat 0 does not see seat 1's stderr"
            );
        }
        // The fault's detail quotes the line in Rust's own escapes.
        assert!(all.contains(r#"The line began: "\u{1b}[2J"#), "{all}");
    }
    for line in [summary(&s), verdict(&s)] {
        assert!(inert(&line) && !line.contains('\n'), "{line:?}");
    }
}

fn screen(app: &App, sim: &durak_replay::Simulation) -> String {
    let mut terminal = Terminal::new(TestBackend::new(160, 50)).unwrap();
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

/// What the terminal UI puts in the screen's cells (ratatui writes them to the terminal as
/// they are): escapes, never a raw sequence, at every step and in every view.
#[test]
fn the_terminal_ui_draws_escapes_only() {
    let s = sim("hostile-text.jsonl");
    let mut app = App::new(s.steps.len(), s.header.players);
    let mut seen = String::new();
    for viewer in [None, Some(0), Some(1)] {
        app.viewer = viewer;
        for step in 0..s.steps.len() {
            app.step = step;
            let shown = screen(&app, &s);
            assert!(inert(&shown), "step {}, {viewer:?}: {shown:?}", step + 1);
            seen.push_str(&shown);
        }
    }
    // Wide enough for the name in the hands panel, and the stderr and refused line below.
    assert!(seen.contains(NAME), "{seen}");
    assert!(seen.contains(r"\e]0;pwned\x07 \e[2J\r"), "{seen}");
    assert!(seen.contains(r"\e[2J\e]0;pwned\x07{oops"), "{seen}");
}

#[test]
fn the_page_shows_escapes_too() {
    let page = html_page(&sim("hostile-text.jsonl"));
    // JSON would carry a raw ESC as \u001b, which the page would then put in the document.
    for raw in ["\u{1b}", "\\u001b", "\u{7}", "\\u0007", "\u{202e}", "\r"] {
        assert!(!page.contains(raw), "the page holds {raw:?}");
    }
    // The escapes' backslashes are JSON-escaped in the embedded data.
    assert!(page.contains(r"evil\\e]0;pwned\\x07\\u{202e}man"));
}
