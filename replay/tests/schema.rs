//! `schemas/replay.json` (one replay line) accepts every line of real replays, and refuses lines
//! of the wrong shape. The validator is compiled here, like `protocol/src/schema.rs` does: the
//! schemas it references (`common.json`, `event.json`, `request.json`) are in-memory resources.

mod common;

use common::*;
use jsonschema::{Draft, Registry, Validator};
use serde_json::{json, Value};

const BASE: &str = "https://durak-referee.local/schemas/";

fn schema(file: &str) -> Value {
    let path = format!("{}/../schemas/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn validator() -> Validator {
    let registry = Registry::new()
        .extend(
            ["common.json", "event.json", "request.json"]
                .map(|f| (format!("{BASE}{f}"), schema(f))),
        )
        .and_then(|b| b.prepare())
        .expect("the referenced schemas register");
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_registry(&registry)
        .build(&schema("replay.json"))
        .expect("schemas/replay.json compiles")
}

#[test]
fn every_line_of_real_replays_is_valid() {
    let v = validator();
    let mut types = std::collections::BTreeSet::new();
    for f in FIXTURES {
        for (i, line) in fixture_lines(f).iter().enumerate() {
            let value: Value = serde_json::from_str(line).unwrap();
            types.insert(value["type"].as_str().unwrap().to_string());
            let errors: Vec<String> = v
                .iter_errors(&value)
                .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
                .collect();
            assert!(errors.is_empty(), "{f}:{}: {errors:?}\n{line}", i + 1);
        }
    }
    let all = [
        "answer", "event", "fault", "header", "move", "request", "result", "stderr",
    ];
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        all,
        "the fixtures hold every line type"
    );
}

#[test]
fn lines_of_the_wrong_shape_are_refused() {
    let v = validator();
    let header: Value = serde_json::from_str(&fixture_lines("podkidnoy-2p.jsonl")[0]).unwrap();
    let mut short_deck = header.clone();
    short_deck["deck"].as_array_mut().unwrap().pop();
    let mut twice = header.clone();
    twice["deck"][1] = twice["deck"][0].clone();
    let mut variant = header.clone();
    variant["variant"] = json!("perevodnoy");
    for bad in [
        json!({"type": "chat"}),
        json!({"seat": 0}),
        short_deck,
        twice,
        variant,
        json!({"type":"event","to":7,"event":{"kind":"passed","seat":0}}),
        json!({"type":"event","to":null,"event":{"kind":"attacked","seat":0,"cards":["1H"]}}),
        json!({"type":"move","seat":0,"forced":false,"id":1,"elapsed_ms":0.5,"move":{"action":"fold"}}),
        json!({"type":"move","seat":0,"forced":false,"id":1,"elapsed_ms":0.5,"move":{"action":"take","cards":["6C"]}}),
        json!({"type":"move","seat":0,"forced":true,"move":{"action":"pass"}}),
        json!({"type":"request","id":1,"seat":0,"decision":"add","legal":{"addable":["9H"]}}),
        json!({"type":"fault","seat":0,"kind":"sulking","detail":"x"}),
        json!({"type":"result","loser":0,"draw":false,"moves":3}),
        json!({"type":"stderr","seat":0}),
        json!({"type":"stderr","seat":0,"at":"middle","text":"x"}),
        json!({"type":"stderr","seat":0,"at":0,"text":"x"}),
        json!({"type":"stderr","seat":0,"at":1.5,"text":"x"}),
    ] {
        assert!(!v.is_valid(&bad), "accepted: {bad}");
    }
}
