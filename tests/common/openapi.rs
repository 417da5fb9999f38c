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

/// The property names a schema of `doc` describes, through `$ref`s, `allOf` and `oneOf` (those
/// of any alternative).
pub fn properties(doc: &Value, schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        out.extend(properties(doc, &doc["components"]["schemas"][name]));
    }
    let parts = [&schema["allOf"], &schema["oneOf"]];
    for part in parts.into_iter().filter_map(Value::as_array).flatten() {
        out.extend(properties(doc, part));
    }
    if let Some(p) = schema["properties"].as_object() {
        out.extend(p.keys().cloned());
    }
    out
}

/// Check a real answer against the schema `doc` gives `method template` for `status`: it
/// validates, and names no field the schema does not (nor any of its alternatives). Returns
/// the answer's JSON.
pub fn check(
    doc: &Value,
    method: &str,
    template: &str,
    answer: &durak_service::client::Answer,
    status: u16,
) -> Value {
    let at = format!("{} {template}", method.to_uppercase());
    assert_eq!(answer.status, status, "{at}: {}", answer.json);
    let schema = &doc["paths"][template][method]["responses"][status.to_string()]["content"]
        ["application/json"]["schema"];
    assert!(
        schema.is_object(),
        "{at}: the document gives no schema for {status}"
    );
    assert_ne!(
        schema["$ref"], "#/components/schemas/Object",
        "{at} has its own schema"
    );
    let errors = schema_errors(doc, schema, &answer.json);
    assert!(errors.is_empty(), "{at}: {errors:?}\n{}", answer.json);
    let described = properties(doc, schema);
    for key in answer.json.as_object().expect("a JSON object").keys() {
        assert!(described.contains(key), "{at}: {key} is not in its schema");
    }
    answer.json.clone()
}
