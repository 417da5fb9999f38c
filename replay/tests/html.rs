//! The HTML page (without a browser: `tests/replay_html.rs` at the root loads it in Chromium).

mod common;

use common::*;
use durak_replay::html::data::DATA_VERSION;
use durak_replay::html::layout::{ASSETS, SITE_CSS, VIEWER_CSS, VIEWER_JS};
use durak_replay::html::{game_page, html_page, write_html_page, GameContext};
use serde_json::Value;

fn embedded_data(page: &str) -> Value {
    let start = page
        .find(r#"<script id="replay-data" type="application/json">"#)
        .expect("the data element");
    let rest = &page[start..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</script>").unwrap();
    serde_json::from_str(&rest[open..close]).expect("the embedded data is JSON")
}

#[test]
fn the_page_is_self_contained() {
    for f in FIXTURES {
        let page = html_page(&sim(f));
        for needle in ["http://", "https://", "url(", "@import", "<iframe", "//"] {
            let outside_data = page.replace(
                &page[page.find("id=\"replay-data\"").unwrap()..page.rfind("</script>").unwrap()],
                "",
            );
            assert!(
                !outside_data.contains(needle),
                "{f}: the page contains {needle:?}"
            );
        }
        assert!(page.contains("Content-Security-Policy"));
        assert!(
            page.contains("script-src 'self'"),
            "no inline script may run"
        );
        assert!(page.starts_with("<!DOCTYPE html>"));
        // No request for /favicon.ico (a 404 from a server).
        assert!(page.contains(r#"<link rel="icon" href="data:,">"#));
        // The data (not run), then the viewer beside the page; its styles beside it too.
        assert_eq!(page.matches("<script").count(), 2);
        assert!(page.contains(&format!("<script src=\"{}\">", VIEWER_JS.file_name())));
        assert!(page.contains(&format!("href=\"{}\"", VIEWER_CSS.file_name())));
        assert!(page.contains(&format!("href=\"{}\"", SITE_CSS.file_name())));
    }
}

#[test]
fn the_data_holds_every_step() {
    // What it decodes to is checked against the views in tests/viewer_data.rs (with node).
    for f in FIXTURES {
        let s = sim(f);
        let data = embedded_data(&html_page(&s));
        assert_eq!(data["v"], DATA_VERSION);
        assert_eq!(
            data["steps"].as_array().unwrap().len(),
            s.steps.len(),
            "{f}"
        );
        assert_eq!(data["names"].as_array().unwrap().len(), s.header.players);
    }
}

/// Issue 13: at most 15 KB of HTML and data per game on disk (the viewer is one copy per
/// folder). The fixtures hold the largest games of the suite: six seats, four, faults, stderr,
/// and a long four-seat game between real processes (287 moves, their timings, stderr), which
/// was 25 KB when every step carried its publicly known cards, stderr's time in words and
/// its fields as a JSON array.
#[test]
fn a_page_is_at_most_15_kb() {
    for f in FIXTURES {
        let page = html_page(&sim(f));
        assert!(page.len() <= 15 * 1024, "{f}: {} bytes", page.len());
    }
    // The viewer's files are larger than one page: sharing them is what keeps pages small.
    assert!(VIEWER_JS.text.len() > 15 * 1024);
}

#[test]
fn the_viewer_files_are_written_beside_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sub/game.html");
    write_html_page(&sim("podkidnoy-2p.jsonl"), &out).unwrap();
    for a in ASSETS {
        let written = std::fs::read_to_string(dir.path().join("sub").join(a.file_name())).unwrap();
        assert_eq!(written, a.text);
    }
    // A file name changes with the content, so a page keeps the viewer it was written with.
    assert_ne!(VIEWER_JS.file_name(), VIEWER_CSS.file_name());
    assert!(VIEWER_JS.file_name().starts_with("viewer-"));
}

#[test]
fn names_are_escaped() {
    let mut lines = fixture_lines("fault-start.jsonl");
    lines[0] = lines[0].replace(
        r#""name":"builtin:greedy""#,
        r#""name":"</script><script>alert(1)</script> & 'x'""#,
    );
    let page = html_page(&sim_of_lines(&lines));
    assert!(
        !page.contains("<script>alert"),
        "a name closed the script element"
    );
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(
        page.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; 'x'"),
        "the title and the header show the name as text"
    );
    let data = embedded_data(&page);
    assert_eq!(
        data["names"][0],
        "</script><script>alert(1)</script> & 'x' (builtin:greedy)"
    );
}

/// The title and the header say which game once (the audit of issue 13 read "table 7, game 1
/// (id 43, deal 1), game 1" and "game 1 of its series" beside the tournament's place).
#[test]
fn the_title_names_the_game_once() {
    let s = sim("podkidnoy-2p.jsonl");
    let title = |page: &str| -> String {
        let a = page.find("<title>").unwrap() + "<title>".len();
        page[a..a + page[a..].find("</title>").unwrap()].to_string()
    };
    let ctx = GameContext {
        place: Some("table 7, game 1 (id 43, deal 1)".into()),
        ..GameContext::default()
    };
    let page = game_page(&s, &ctx);
    let t = title(&page);
    assert_eq!(t.matches("game").count(), 1, "{t}");
    assert!(
        t.ends_with("podkidnoy table 7, game 1 (id 43, deal 1) · Durak replay"),
        "{t}"
    );
    assert!(!page.contains("of its series"), "the place says it");
    let alone = html_page(&s);
    let t = title(&alone);
    assert!(t.ends_with("podkidnoy game 0 · Durak replay"), "{t}");
    assert!(alone.contains("game 0 of its series"));
}

#[test]
fn a_decision_the_machine_kept_waiting_carries_its_own_time_to_the_page() {
    // As in the text views (tests/views.rs): own, CPU and wait time beside the wall time, in
    // the step's rest (few steps have it), which viewer.js appends to "answered in".
    let mut lines = fixture_lines("podkidnoy-2p.jsonl");
    let first = lines
        .iter()
        .position(|l| l.contains(r#""type":"move""#) && l.contains(r#""forced":false"#))
        .unwrap();
    let mut v: Value = serde_json::from_str(&lines[first]).unwrap();
    v["elapsed_ms"] = serde_json::json!(612.4);
    v["own_ms"] = serde_json::json!(204.2);
    v["cpu_ms"] = serde_json::json!(200.0);
    v["wait_ms"] = serde_json::json!(408.2);
    lines[first] = v.to_string();
    let data = embedded_data(&html_page(&sim_of_lines(&lines)));
    let steps = data["steps"].as_array().unwrap();
    let with: Vec<&Value> = steps.iter().filter(|s| s[1]["c"].is_string()).collect();
    assert_eq!(with.len(), 1, "{steps:?}");
    assert_eq!(
        with[0][1]["c"],
        ", 204 ms its own, CPU 200 ms, waited for a CPU 408 ms"
    );
    assert!(VIEWER_JS.text.contains("(step.c || \"\")"));
    // A replay without the accounting has none of it.
    let plain = embedded_data(&html_page(&sim("podkidnoy-2p.jsonl")));
    assert!(!plain.to_string().contains("its own"));
}
