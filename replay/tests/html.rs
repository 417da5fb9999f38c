//! The HTML page (without a browser: `tests/replay_html.rs` at the root loads it in Chromium) and
//! the tournament index of pages.

mod common;

use common::*;
use durak_replay::html::{delta, html_page, merge, write_html_pages};
use durak_replay::view::step_view;
use serde_json::Value;
use std::path::PathBuf;

fn embedded_data(page: &str) -> Value {
    let start = page
        .find(r#"<script type="application/json" id="replay-data">"#)
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
        for needle in [
            "http://", "https://", " src=", "url(", "@import", "<link", "<iframe",
        ] {
            assert!(!page.contains(needle), "{f}: the page contains {needle:?}");
        }
        assert!(page.contains("Content-Security-Policy"));
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert_eq!(
            page.matches("<script").count(),
            2,
            "the data and the inline script"
        );
    }
}

#[test]
fn every_view_of_every_step_is_embedded() {
    for f in FIXTURES {
        let s = sim(f);
        let data = embedded_data(&html_page(&s));
        let steps = data["steps"].as_array().unwrap();
        assert_eq!(steps.len(), s.steps.len(), "{f}");
        let seat_views = data["seat_views"].as_array().unwrap();
        assert_eq!(seat_views.len(), s.header.players);
        for (i, full) in steps.iter().enumerate() {
            // As every viewer shows them: escaped.
            let view = |v: Option<usize>| step_view(&s, i, v).escaped();
            assert_eq!(*full, serde_json::to_value(view(None)).unwrap());
            for (seat, deltas) in seat_views.iter().enumerate() {
                let want = serde_json::to_value(view(Some(seat))).unwrap();
                assert_eq!(merge(full, &deltas[i]), want, "{f} step {i} seat {seat}");
            }
        }
        assert_eq!(
            data["seed"],
            Value::String(s.header.seed.to_string()),
            "seeds as text"
        );
    }
}

#[test]
fn delta_and_merge() {
    let cases = [
        (
            r#"{"a":1,"b":[1,2],"c":{"x":1,"y":2}}"#,
            r#"{"a":1,"b":[1,3],"c":{"x":1,"y":5}}"#,
        ),
        (
            r#"{"s":[{"h":["6C"],"n":1},{"h":["7C"],"n":2}]}"#,
            r#"{"s":[{"h":null,"n":1},{"h":["7C"],"n":2}]}"#,
        ),
        (r#"{"e":[{"t":"a"},{"t":"b"}]}"#, r#"{"e":[{"t":"a"}]}"#),
        (r#"{"a":1,"gone":2}"#, r#"{"a":1}"#),
        (r#"{"a":null}"#, r#"{"a":{"b":1},"new":[1]}"#),
    ];
    for (base, view) in cases {
        let base: Value = serde_json::from_str(base).unwrap();
        let view: Value = serde_json::from_str(view).unwrap();
        let d = delta(&base, &view).unwrap();
        let back = merge(&base, &d);
        // A key the view lacks comes back as null, which the page treats as absent.
        let strip = |v: &Value| -> Value {
            let mut v = v.clone();
            if let Value::Object(m) = &mut v {
                m.retain(|_, x| !x.is_null());
            }
            v
        };
        assert_eq!(strip(&back), strip(&view), "{base} -> {view} via {d}");
    }
    assert_eq!(delta(&Value::from(1), &Value::from(1)), None);
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
    let data = embedded_data(&page);
    assert_eq!(
        data["seats"][0]["name"],
        "</script><script>alert(1)</script> & 'x' (builtin:greedy)"
    );
}

#[test]
fn index_of_pages() {
    let dir = tempfile::tempdir().unwrap();
    // Two replays with the same file name in different folders, and one that does not exist.
    let a = dir.path().join("table-1");
    let b = dir.path().join("table-2");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::copy(
        fixture_path("podkidnoy-2p.jsonl"),
        a.join("game-0000.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture_path("fault-malformed.jsonl"),
        b.join("game-0000.jsonl"),
    )
    .unwrap();
    let replays: Vec<PathBuf> = vec![
        a.join("game-0000.jsonl"),
        b.join("game-0000.jsonl"),
        fixture_path("prostoy-3p-draw.jsonl"),
        dir.path().join("missing.jsonl"),
    ];
    let out = dir.path().join("html");
    let standings = "<table id=\"standings\"><tr><td>builtin:greedy</td><td>3</td></tr></table>";
    let index = write_html_pages(&replays, &out, Some(standings)).unwrap();
    assert_eq!(index, out.join("index.html"));
    let html = std::fs::read_to_string(&index).unwrap();
    assert!(
        html.contains(standings),
        "the standings fragment is inserted as is"
    );
    for page in [
        "game-0000.html",
        "table-2-game-0000.html",
        "prostoy-3p-draw.html",
    ] {
        assert!(out.join(page).is_file(), "{page}");
        assert!(html.contains(&format!("href=\"{page}\"")), "{page}");
        let text = std::fs::read_to_string(out.join(page)).unwrap();
        assert!(text.contains("href=\"index.html\""), "{page} links back");
    }
    assert!(html.contains("missing.jsonl: cannot read"), "{html}");
    assert!(html.contains("4 games: 3 verified, 1 not verified or unreadable."));
    assert!(html.contains("seat 1 malformed"));
    assert!(html.contains("a draw"));
    assert_eq!(html.matches("<tr class=\"fault\">").count(), 1);
    // Without standings.
    let index = write_html_pages(&replays[2..3], &dir.path().join("two"), None).unwrap();
    let html = std::fs::read_to_string(index).unwrap();
    assert!(!html.contains("Standings"));
    assert!(html.contains("1 games: 1 verified."));
}
