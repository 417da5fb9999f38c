//! Bad input: each error names the file and the line.

mod common;

use common::*;
use durak_replay::{parse_replay, read_replay, ErrorKind, ReplayError};
use std::path::Path;

fn parse(text: &str) -> ReplayError {
    parse_replay(text.as_bytes(), "bad.jsonl").unwrap_err()
}

fn header() -> String {
    fixture_lines("podkidnoy-2p.jsonl")[0].clone()
}

#[test]
fn a_file_that_does_not_exist() {
    let e = read_replay(Path::new("/nonexistent/game-0000.jsonl")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(e.to_string(), "/nonexistent/game-0000.jsonl: no such file");
    let dir = tempfile::tempdir().unwrap();
    let e = read_replay(dir.path()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Io);
}

#[test]
fn not_a_replay() {
    for (text, want) in [
        ("", "bad.jsonl: the file is empty: not a durak replay"),
        ("\n\n", "bad.jsonl: the file is empty: not a durak replay"),
        (
            "hello world\n",
            "bad.jsonl:1: not a durak replay: the first line is not JSON",
        ),
        (
            "[1, 2, 3]\n",
            "bad.jsonl:1: not a durak replay: the first line must be the header",
        ),
        (
            "{\"type\":\"hello\",\"protocol\":1}\n",
            "bad.jsonl:1: not a durak replay: the first line must be the header ({\"type\":\"header\",\"format\":1,...}); it is a line of type \"hello\"",
        ),
        (
            "{\"type\":\"header\",\"variant\":\"podkidnoy\"}\n",
            "bad.jsonl:1: not a durak replay: the header has no \"format\"",
        ),
    ] {
        let e = parse(text);
        assert_eq!(e.kind, ErrorKind::NotReplay, "{text:?}: {e}");
        assert!(e.to_string().starts_with(want), "{text:?}: {e}");
    }
    // Binary data.
    let e = parse_replay(&[0x89, b'P', b'N', b'G', 0xff, 0, b'\n'], "x.png").unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotReplay);
    assert!(
        e.to_string().starts_with("x.png:1: not a durak replay"),
        "{e}"
    );
    // A results file of `durak play --json` is JSON, but not a replay.
    let e = parse("{\"variant\":\"podkidnoy\",\"seed\":5,\"games\":[]}\n");
    assert!(
        e.to_string().contains("a JSON object without a \"type\""),
        "{e}"
    );
}

#[test]
fn a_newer_format_version() {
    let h = header().replace("\"format\":1", "\"format\":2");
    let e = parse(&format!("{h}\n"));
    assert_eq!(e.kind, ErrorKind::NewerFormat);
    assert_eq!(
        e.to_string(),
        "bad.jsonl:1: this replay is in format 2, newer than this durak reads (format 1): use a \
         newer durak to read it"
    );
}

#[test]
fn invalid_lines() {
    let lines = fixture_lines("podkidnoy-2p.jsonl");
    let mut bad = lines.clone();
    bad[9] = "{\"type\":\"event\",\"to\":null,\"event\"".into();
    let e = parse(&(bad.join("\n") + "\n"));
    assert_eq!(e.kind, ErrorKind::InvalidLine);
    assert!(
        e.to_string()
            .starts_with("bad.jsonl:10: the line is not valid JSON"),
        "{e}"
    );

    let mut bad = lines.clone();
    bad[4] = "{\"type\":\"chat\",\"text\":\"hi\"}".into();
    let e = parse(&(bad.join("\n") + "\n"));
    assert!(
        e.to_string()
            .starts_with("bad.jsonl:5: unknown line type \"chat\""),
        "{e}"
    );

    let mut bad = lines.clone();
    bad[6] = "{\"type\":\"move\",\"seat\":1}".into();
    let e = parse(&(bad.join("\n") + "\n"));
    assert!(
        e.to_string()
            .starts_with("bad.jsonl:7: invalid move line: missing field"),
        "{e}"
    );

    let mut bad = lines.clone();
    bad[3] = lines[0].clone();
    let e = parse(&(bad.join("\n") + "\n"));
    assert!(
        e.to_string().starts_with("bad.jsonl:4: a second header"),
        "{e}"
    );

    let mut bad = lines.clone();
    bad[2] = "{\"to\":null}".into();
    let e = parse(&(bad.join("\n") + "\n"));
    assert!(
        e.to_string()
            .starts_with("bad.jsonl:3: the line has no \"type\""),
        "{e}"
    );

    for (from, to, want) in [
        (
            "\"variant\":\"podkidnoy\"",
            "\"variant\":\"perevodnoy\"",
            "unknown variant",
        ),
        ("\"players\":2", "\"players\":7", "K-1"),
        ("\"deck\":[\"QH\"", "\"deck\":[\"1H\"", "deck card 0"),
        ("\"dealer\":0", "\"dealer\":5", "the dealer is seat 5"),
    ] {
        let h = header();
        assert!(h.contains(from), "{from}");
        let e = parse(&format!("{}\n", h.replace(from, to)));
        assert_eq!(e.kind, ErrorKind::InvalidLine, "{to}: {e}");
        assert!(
            e.to_string().starts_with("bad.jsonl:1: invalid header: "),
            "{e}"
        );
        assert!(e.to_string().contains(want), "{to}: {e}");
    }
}

#[test]
fn a_last_line_without_newline_is_fine_when_whole() {
    let text = fixture_text("fault-start.jsonl");
    let r = parse_replay(text.trim_end().as_bytes(), "x").unwrap();
    assert_eq!(r.lines.len(), 4);
    // Cut inside the last line.
    let cut = &text.trim_end()[..text.trim_end().len() - 5];
    let e = parse_replay(cut.as_bytes(), "x").unwrap_err();
    assert_eq!((e.kind, e.line), (ErrorKind::TruncatedLine, Some(5)));
    assert!(e.message.contains("truncated"), "{e}");
}
