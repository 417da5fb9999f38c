//! The served OpenAPI document's schemas against real answers (`tests/serve.rs`).

use serde_json::{json, Value};
use std::collections::BTreeSet;

/// How `value` fails `schema` (a schema of the OpenAPI document `doc`, whose `$ref`s point
/// into its components).
pub fn schema_errors(doc: &Value, schema: &Value, value: &Value) -> Vec<String> {
    let mut root = schema.clone();
    root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    root["components"] = doc["components"].clone();
    let v = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|e| panic!("the schema compiles: {e}\n{root}"));
    v.iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path().as_str()))
        .collect()
}

/// The property names a schema of `doc` describes, through `$ref`s and `allOf`.
pub fn properties(doc: &Value, schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        out.extend(properties(doc, &doc["components"]["schemas"][name]));
    }
    for part in schema["allOf"].as_array().into_iter().flatten() {
        out.extend(properties(doc, part));
    }
    if let Some(p) = schema["properties"].as_object() {
        out.extend(p.keys().cloned());
    }
    out
}
