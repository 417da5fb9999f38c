//! Every JSON example in docs/PROTOCOL.md is labeled with its schema and valid under it.
//!
//! A JSON example is a ```json fenced block immediately preceded by a line
//! `<!-- schema: NAME -->`, NAME being a schema file stem (`request`, `bot_hello`, ...).

use durak_protocol::schema::{validate, Schema};
use std::collections::HashMap;

struct Example {
    line: usize,
    label: Option<String>,
    text: String,
}

/// The ```json blocks of a Markdown text, with the schema label of each (if any).
fn json_blocks(markdown: &str) -> Vec<Example> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let fence_line = i;
        let is_json = info.trim().eq_ignore_ascii_case("json");
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && lines[i].trim_start() != "```" {
            body.push(lines[i]);
            i += 1;
        }
        i += 1; // the closing fence
        if !is_json {
            continue;
        }
        let label = fence_line
            .checked_sub(1)
            .and_then(|prev| lines[prev].trim().strip_prefix("<!-- schema:"))
            .and_then(|rest| rest.strip_suffix("-->"))
            .map(|name| name.trim().to_owned());
        examples.push(Example {
            line: fence_line + 1,
            label,
            text: body.join("\n"),
        });
    }
    examples
}

fn schema_named(stem: &str) -> Option<Schema> {
    Schema::ALL
        .into_iter()
        .find(|s| s.file_name().strip_suffix(".json") == Some(stem))
}

#[test]
fn protocol_md_examples_are_labeled_and_valid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/PROTOCOL.md");
    let markdown = std::fs::read_to_string(path).expect("docs/PROTOCOL.md is readable");
    let examples = json_blocks(&markdown);
    let mut problems = Vec::new();
    let mut counts: HashMap<Schema, usize> = HashMap::new();
    for ex in &examples {
        let Some(label) = &ex.label else {
            problems.push(format!(
                "line {}: ```json block without a `<!-- schema: NAME -->` line before it",
                ex.line
            ));
            continue;
        };
        let Some(schema) = schema_named(label) else {
            problems.push(format!("line {}: unknown schema {label:?}", ex.line));
            continue;
        };
        let value: serde_json::Value = match serde_json::from_str(&ex.text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("line {}: not one JSON value: {e}", ex.line));
                continue;
            }
        };
        if !value.is_object() {
            problems.push(format!("line {}: not a JSON object", ex.line));
            continue;
        }
        if let Err(e) = validate(schema, &value) {
            problems.push(format!("line {} ({label}): {}", ex.line, e.message));
            continue;
        }
        *counts.entry(schema).or_default() += 1;
    }
    for schema in Schema::ALL {
        if !counts.contains_key(&schema) {
            problems.push(format!(
                "no valid example for schema {} in docs/PROTOCOL.md",
                schema.file_name()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn block_scanner_sees_labels_and_unlabeled_blocks() {
    let md = "text\n<!-- schema: answer -->\n```json\n{\"a\": 1}\n```\n\n```json\n{}\n```\n```python\nx\n```\n";
    let blocks = json_blocks(md);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].label.as_deref(), Some("answer"));
    assert_eq!(blocks[0].text, "{\"a\": 1}");
    assert_eq!(blocks[1].label, None);
    assert_eq!(schema_named("bot_hello"), Some(Schema::BotHello));
    assert_eq!(schema_named("common"), None);
}
