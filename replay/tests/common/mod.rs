//! Helpers shared by the replay crate's tests: the fixture replays in `tests/data/`.
#![allow(dead_code)]

use durak_replay::{parse_replay, simulate, Simulation};
use std::path::PathBuf;

/// Every fixture replay: real games written by `durak play` (see tests/data/README.md).
pub const FIXTURES: [&str; 12] = [
    "podkidnoy-2p.jsonl",
    "podkidnoy-6p.jsonl",
    "prostoy-3p-exchange.jsonl",
    "prostoy-3p-draw.jsonl",
    "prostoy-4p.jsonl",
    "fault-malformed.jsonl",
    "fault-timeout.jsonl",
    "fault-crash-prostoy.jsonl",
    "fault-illegal-prostoy.jsonl",
    "fault-start.jsonl",
    "hostile-text.jsonl",
    "podkidnoy-4p-processes.jsonl",
];

/// Whether `s` holds nothing a terminal acts on but newlines: no other C0 control, DEL, C1
/// control or bidirectional override or isolate.
pub fn inert(s: &str) -> bool {
    s.chars().all(|c| {
        !(c != '\n' && (c < ' ' || ('\u{7f}'..='\u{9f}').contains(&c)))
            && !('\u{202a}'..='\u{202e}').contains(&c)
            && !('\u{2066}'..='\u{2069}').contains(&c)
    })
}

pub fn fixture_path(name: &str) -> PathBuf {
    // Through the replay crate's folder: the terminal UI's tests (`tui/tests/`) read them too.
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../replay/tests/data")
        .join(name)
}

pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

pub fn fixture_lines(name: &str) -> Vec<String> {
    fixture_text(name).lines().map(str::to_string).collect()
}

/// Simulate replay text (lines joined with newlines, a final newline added).
pub fn sim_of_lines(lines: &[String]) -> Simulation {
    let mut text = lines.join("\n");
    text.push('\n');
    let replay = parse_replay(text.as_bytes(), "test.jsonl").unwrap();
    simulate(&replay)
}

pub fn sim(name: &str) -> Simulation {
    sim_of_lines(&fixture_lines(name))
}

/// The 1-based number of the first line matching `pred`.
pub fn find_line(lines: &[String], pred: impl Fn(&serde_json::Value) -> bool) -> usize {
    lines
        .iter()
        .position(|l| pred(&serde_json::from_str(l).unwrap()))
        .expect("a matching line")
        + 1
}
