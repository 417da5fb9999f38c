//! JSON Schema validation of protocol messages, with error messages a bot author can act on.
//!
//! The schema files live in `schemas/` at the workspace root and are embedded into the binary
//! with `include_str!`, so nothing is read from disk at run time. Shared definitions (card, seat,
//! pair, ...) are in `schemas/common.json`, which is registered as an in-memory resource; no
//! reference is ever fetched from the network.
//!
//! ```
//! use durak_protocol::schema::{validate, Schema};
//! let answer = serde_json::json!({"type": "answer", "id": 3, "action": "add", "cards": ["10H"]});
//! let err = validate(Schema::Answer, &answer).unwrap_err();
//! assert_eq!(err.pointer, "/cards/0");
//! assert!(err.message.contains("is not a card"));
//! ```

use std::fmt::Write as _;
use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::types::JsonType;
use jsonschema::{Draft, Registry, ValidationError, Validator};
use serde_json::Value;

/// The base URI shared by every schema's `$id`.
const BASE_URI: &str = "https://durak-referee.local/schemas/";
/// The pattern of a card in `common.json`.
const CARD_PATTERN: &str = "^[6789TJQKA][CDHS]$";
const COMMON_FILE: &str = "common.json";
const COMMON_TEXT: &str = include_str!("../../schemas/common.json");

/// One message schema of protocol v1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schema {
    /// referee -> bot `hello`.
    Hello,
    /// referee -> bot `game_start`.
    GameStart,
    /// referee -> bot `event` (one of the event kinds).
    Event,
    /// referee -> bot `request` (observation and legal choices).
    Request,
    /// referee -> bot `error`.
    Error,
    /// referee -> bot `game_end`.
    GameEnd,
    /// referee -> bot `match_end`.
    MatchEnd,
    /// bot -> referee `hello`.
    BotHello,
    /// bot -> referee `answer`.
    Answer,
}

impl Schema {
    /// Every schema, in a fixed order.
    pub const ALL: [Schema; 9] = [
        Schema::Hello,
        Schema::GameStart,
        Schema::Event,
        Schema::Request,
        Schema::Error,
        Schema::GameEnd,
        Schema::MatchEnd,
        Schema::BotHello,
        Schema::Answer,
    ];

    /// The schema's file name in `schemas/`, e.g. `"request.json"`.
    pub fn file_name(self) -> &'static str {
        match self {
            Schema::Hello => "hello.json",
            Schema::GameStart => "game_start.json",
            Schema::Event => "event.json",
            Schema::Request => "request.json",
            Schema::Error => "error.json",
            Schema::GameEnd => "game_end.json",
            Schema::MatchEnd => "match_end.json",
            Schema::BotHello => "bot_hello.json",
            Schema::Answer => "answer.json",
        }
    }

    /// The schema's JSON text, as embedded in the binary.
    pub fn text(self) -> &'static str {
        match self {
            Schema::Hello => include_str!("../../schemas/hello.json"),
            Schema::GameStart => include_str!("../../schemas/game_start.json"),
            Schema::Event => include_str!("../../schemas/event.json"),
            Schema::Request => include_str!("../../schemas/request.json"),
            Schema::Error => include_str!("../../schemas/error.json"),
            Schema::GameEnd => include_str!("../../schemas/game_end.json"),
            Schema::MatchEnd => include_str!("../../schemas/match_end.json"),
            Schema::BotHello => include_str!("../../schemas/bot_hello.json"),
            Schema::Answer => include_str!("../../schemas/answer.json"),
        }
    }

    fn index(self) -> usize {
        match self {
            Schema::Hello => 0,
            Schema::GameStart => 1,
            Schema::Event => 2,
            Schema::Request => 3,
            Schema::Error => 4,
            Schema::GameEnd => 5,
            Schema::MatchEnd => 6,
            Schema::BotHello => 7,
            Schema::Answer => 8,
        }
    }
}

/// Why a message does not match its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaViolation {
    /// JSON pointer into the validated message (`""` for the message itself), e.g. `/cards/0`.
    pub pointer: String,
    /// A self-contained sentence for the bot author. It starts with the pointer when the
    /// pointer is not empty, e.g. `/cards/0: "10H" is not a card: write rank then suit, like TS
    /// or 6C (...)`, or `missing field "id"`.
    pub message: String,
}

impl std::fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaViolation {}

/// Validates `value` against `schema`. On failure, reports the single most useful problem.
///
/// Validators are compiled on first use and reused afterwards.
pub fn validate(schema: Schema, value: &Value) -> Result<(), SchemaViolation> {
    let validator = validator(schema);
    if validator.is_valid(value) {
        return Ok(());
    }
    let errors: Vec<ValidationError<'_>> = validator.iter_errors(value).collect();
    Err(explain_list(&errors).unwrap_or_else(|| violation("", "the message is not valid".into())))
}

fn validator(schema: Schema) -> &'static Validator {
    static VALIDATORS: [OnceLock<Validator>; 9] = [const { OnceLock::new() }; 9];
    VALIDATORS[schema.index()].get_or_init(|| compile(schema))
}

fn compile(schema: Schema) -> Validator {
    // The embedded schemas are part of the program: failing to compile them is a bug.
    let common = parsed(COMMON_FILE).clone();
    let registry = Registry::new()
        .add(format!("{BASE_URI}{COMMON_FILE}"), common)
        .and_then(|builder| builder.prepare())
        .unwrap_or_else(|e| panic!("schemas/{COMMON_FILE} cannot be registered: {e}"));
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_registry(&registry)
        .build(parsed(schema.file_name()))
        .unwrap_or_else(|e| panic!("schemas/{} does not compile: {e}", schema.file_name()))
}

/// The parsed schema document with this file name (a message schema or `common.json`).
fn parsed(file: &str) -> &'static Value {
    static PARSED: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    let all = PARSED.get_or_init(|| {
        let mut all: Vec<(&'static str, Value)> = Schema::ALL
            .iter()
            .map(|s| (s.file_name(), s.text()))
            .chain([(COMMON_FILE, COMMON_TEXT)])
            .map(|(name, text)| {
                let value = serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("schemas/{name} is not valid JSON: {e}"));
                (name, value)
            })
            .collect();
        all.shrink_to_fit();
        all
    });
    all.iter()
        .find(|(name, _)| *name == file)
        .map(|(_, value)| value)
        .unwrap_or_else(|| panic!("unknown schema file {file}"))
}

fn violation(pointer: &str, message: String) -> SchemaViolation {
    let message = if pointer.is_empty() {
        message
    } else {
        format!("{pointer}: {message}")
    };
    SchemaViolation {
        pointer: pointer.to_owned(),
        message,
    }
}

fn is_composite(kind: &ValidationErrorKind) -> bool {
    matches!(
        kind,
        ValidationErrorKind::OneOfNotValid { .. } | ValidationErrorKind::AnyOf { .. }
    )
}

/// Picks the most useful error of a list: a plain one first (it says exactly what is wrong),
/// else the first `oneOf`/`anyOf` failure, explained through its best branch.
fn explain_list(errors: &[ValidationError<'_>]) -> Option<SchemaViolation> {
    let chosen = errors
        .iter()
        .find(|e| !is_composite(e.kind()))
        .or_else(|| errors.first())?;
    Some(explain(chosen))
}

fn explain(error: &ValidationError<'_>) -> SchemaViolation {
    let pointer = error.instance_path().as_str();
    let branches = match error.kind() {
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            context
        }
        _ => return violation(pointer, leaf_message(error)),
    };
    // A branch whose discriminator ("action", "kind", "decision") is a `const` that does not
    // match is not the branch the sender meant.
    let rejects = |branch: &Vec<ValidationError<'static>>| {
        branch.iter().any(|e| {
            matches!(e.kind(), ValidationErrorKind::Constant { .. })
                && is_direct_child(e.instance_path().as_str(), pointer)
        })
    };
    let candidates: Vec<&Vec<ValidationError<'static>>> = branches
        .iter()
        .filter(|b| !b.is_empty() && !rejects(b))
        .collect();
    if candidates.is_empty() {
        return explain_discriminator(branches, pointer)
            .unwrap_or_else(|| violation(pointer, leaf_message(error)));
    }
    // Prefer a branch that accepts the value's JSON type, then the one with the fewest errors.
    let wrong_type = |branch: &Vec<ValidationError<'static>>| {
        branch.iter().any(|e| {
            matches!(e.kind(), ValidationErrorKind::Type { .. })
                && e.instance_path().as_str() == pointer
        })
    };
    let best = candidates
        .iter()
        .min_by_key(|b| (wrong_type(b), b.len()))
        .expect("candidates is not empty");
    explain_list(best).unwrap_or_else(|| violation(pointer, leaf_message(error)))
}

/// Every branch was rejected by its discriminator: say which values are allowed.
fn explain_discriminator(
    branches: &[Vec<ValidationError<'static>>],
    pointer: &str,
) -> Option<SchemaViolation> {
    let mut field = None;
    let mut got = None;
    let mut allowed = Vec::new();
    for error in branches.iter().flatten() {
        if let ValidationErrorKind::Constant { expected_value } = error.kind() {
            let path = error.instance_path().as_str();
            if is_direct_child(path, pointer) {
                field.get_or_insert_with(|| path.to_owned());
                got.get_or_insert_with(|| error.instance().to_string());
                allowed.push(expected_value.to_string());
            }
        }
    }
    let field = field?;
    Some(violation(
        &field,
        format!(
            "{} is not allowed here: use one of {}",
            got.unwrap_or_default(),
            allowed.join(", ")
        ),
    ))
}

fn is_direct_child(path: &str, parent: &str) -> bool {
    path.strip_prefix(parent)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.contains('/'))
}

/// Where in which schema file the failing keyword is: (file name, JSON pointer in that file).
fn keyword_location(error: &ValidationError<'_>) -> Option<(String, String)> {
    let uri = error.absolute_keyword_location()?.as_str().to_owned();
    let (document, fragment) = uri.split_once('#')?;
    let file = document.rsplit('/').next()?.to_owned();
    Some((file, percent_decode(fragment)))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(byte) = u8::from_str_radix(hex, 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the failing keyword belongs to the `common.json` definition `name`.
fn in_definition(error: &ValidationError<'_>, name: &str) -> bool {
    keyword_location(error).is_some_and(|(file, fragment)| {
        file == COMMON_FILE && fragment.starts_with(&format!("/$defs/{name}/"))
    })
}

/// The property names allowed next to an `additionalProperties: false`, if they can be found.
fn allowed_properties(error: &ValidationError<'_>) -> Vec<String> {
    let Some((file, fragment)) = keyword_location(error) else {
        return Vec::new();
    };
    let Some(parent) = fragment.strip_suffix("/additionalProperties") else {
        return Vec::new();
    };
    let known = Schema::ALL
        .iter()
        .map(|s| s.file_name())
        .chain([COMMON_FILE])
        .any(|name| name == file);
    if !known {
        return Vec::new();
    }
    parsed(&file)
        .pointer(parent)
        .and_then(|node| node.get("properties"))
        .and_then(Value::as_object)
        .map(|props| props.keys().cloned().collect())
        .unwrap_or_default()
}

fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Null => "null",
        JsonType::Boolean => "true or false",
        JsonType::Integer => "a whole number",
        JsonType::Number => "a number",
        JsonType::String => "a string",
        JsonType::Array => "an array",
        JsonType::Object => "an object",
    }
}

fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "a whole number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short rendering of a value for messages (long values are cut).
fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    }
}

fn leaf_message(error: &ValidationError<'_>) -> String {
    let instance: &Value = error.instance();
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            format!("missing field \"{name}\"")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let mut message = if unexpected.len() == 1 {
                format!("unknown field \"{}\"", unexpected[0])
            } else {
                format!("unknown fields {}", quoted_list(unexpected))
            };
            let allowed = allowed_properties(error);
            if !allowed.is_empty() {
                let _ = write!(message, "; allowed fields: {}", quoted_list(&allowed));
            }
            message
        }
        ValidationErrorKind::Pattern { pattern } if pattern == CARD_PATTERN => format!(
            "{} is not a card: write rank then suit, like TS or 6C \
             (ranks 6 7 8 9 T J Q K A, T is the ten; suits C D H S)",
            show(instance)
        ),
        ValidationErrorKind::Pattern { pattern } => {
            format!("{} does not match the pattern {pattern}", show(instance))
        }
        ValidationErrorKind::Type { .. } if in_definition(error, "card") => format!(
            "{} is not a card: a card is a string, rank then suit, like \"TS\" or \"6C\"",
            show(instance)
        ),
        ValidationErrorKind::Type { kind } => {
            let expected: Vec<&str> = match kind {
                TypeKind::Single(t) => vec![type_name(*t)],
                TypeKind::Multiple(set) => [
                    JsonType::Object,
                    JsonType::Array,
                    JsonType::String,
                    JsonType::Integer,
                    JsonType::Number,
                    JsonType::Boolean,
                    JsonType::Null,
                ]
                .into_iter()
                .filter(|t| set.contains(*t))
                .map(type_name)
                .collect(),
            };
            format!(
                "expected {}, got {} ({})",
                expected.join(" or "),
                value_kind(instance),
                show(instance)
            )
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {expected_value}, got {}", show(instance))
        }
        ValidationErrorKind::Enum { options } => {
            let allowed = options
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_else(|| options.to_string());
            format!(
                "{} is not allowed here: use one of {allowed}",
                show(instance)
            )
        }
        ValidationErrorKind::UniqueItems => {
            let items = instance.as_array().map(Vec::as_slice).unwrap_or_default();
            let duplicate = items
                .iter()
                .enumerate()
                .find(|(i, item)| items[..*i].contains(item))
                .map(|(_, item)| item);
            match duplicate {
                Some(Value::String(card)) => {
                    format!("the card \"{card}\" appears twice: each card may be used only once")
                }
                Some(item) => format!("{} appears twice: each item must be different", show(item)),
                None => "items must all be different".to_owned(),
            }
        }
        ValidationErrorKind::MinItems { .. } | ValidationErrorKind::MaxItems { .. }
            if in_definition(error, "pair") =>
        {
            "a pair is exactly two cards: [attack card, defence card], like [\"7C\", \"KC\"]"
                .to_owned()
        }
        ValidationErrorKind::MinItems { limit } => {
            let n = instance.as_array().map_or(0, Vec::len) as u64;
            format!(
                "has {}, at least {} needed",
                crate::text::counted(n, "item", "items"),
                limit
            )
        }
        ValidationErrorKind::MaxItems { limit } => {
            let n = instance.as_array().map_or(0, Vec::len) as u64;
            format!(
                "has {}, at most {} allowed",
                crate::text::counted(n, "item", "items"),
                limit
            )
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "{} is too short: at least {} needed",
            show(instance),
            crate::text::counted(*limit, "character", "characters")
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "is {} long, at most {} allowed",
            crate::text::counted(
                instance.as_str().map_or(0, |s| s.chars().count()) as u64,
                "character",
                "characters"
            ),
            crate::text::counted(*limit, "character", "characters")
        ),
        ValidationErrorKind::Minimum { limit } => {
            format!("must be at least {limit}, got {}", show(instance))
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("must be at most {limit}, got {}", show(instance))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be more than {limit}, got {}", show(instance))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be less than {limit}, got {}", show(instance))
        }
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fails(schema: Schema, value: Value) -> SchemaViolation {
        match validate(schema, &value) {
            Ok(()) => panic!("{value} should not be a valid {schema:?}"),
            Err(e) => e,
        }
    }

    fn passes(schema: Schema, value: Value) {
        if let Err(e) = validate(schema, &value) {
            panic!("{value} should be a valid {schema:?}: {}", e.message);
        }
    }

    fn observation() -> Value {
        json!({"seat":0,"variant":"podkidnoy","players":2,"dealer":1,
               "hand":["6C","9H"],"hand_counts":[6,5],"known":[[],["QS"]],"active":[true,true],
               "trump_suit":"S","trump_card":"QS","trump_card_in_stock":true,"stock":23,
               "discard":["7C","8C"],
               "table":[{"attack":"8H","defence":"9H"},{"attack":"9S","defence":null}],
               "attacker":0,"defender":1,"limit":3,"taking":false})
    }

    #[test]
    fn every_schema_compiles_and_names_itself() {
        for schema in Schema::ALL {
            let _ = validator(schema);
            let doc = parsed(schema.file_name());
            assert_eq!(
                doc["$id"],
                json!(format!("{BASE_URI}{}", schema.file_name())),
                "{schema:?}"
            );
            assert!(doc["title"].is_string() && doc["description"].is_string());
        }
        let mut names: Vec<_> = Schema::ALL.iter().map(|s| s.file_name()).collect();
        names.dedup();
        assert_eq!(names.len(), 9);
    }

    #[test]
    fn referee_messages_pass() {
        passes(
            Schema::Hello,
            json!({"type":"hello","protocol":1,"variant":"podkidnoy","players":2,"seat":0,
                   "games":10,"limits":{"startup_ms":10000,"move_ms":1000,"bank_ms":10000,
                   "max_line_bytes":1048576}}),
        );
        passes(
            Schema::GameStart,
            json!({"type":"game_start","game":0,"variant":"podkidnoy","players":2,"seat":0,
                   "dealer":1,"hand_size":6,"first_game":true}),
        );
        let events = [
            json!({"kind":"dealt","dealer":1,"trump_card":"QS","hand_size":6,"stock":24}),
            json!({"kind":"dealt_hand","seat":0,"cards":["6C","9H","JD","KH","7S","8D"]}),
            json!({"kind":"first_attacker","seat":0,"shown_trump":"7S"}),
            json!({"kind":"first_attacker","seat":0,"shown_trump":null}),
            json!({"kind":"turn_started","attacker":0,"defender":1,"limit":6}),
            json!({"kind":"turn_started","attacker":0,"defender":1,"limit":null}),
            json!({"kind":"exchanged","seat":1,"six":"6S","trump_card":"QS"}),
            json!({"kind":"attacked","seat":0,"cards":["8H"]}),
            json!({"kind":"defended","seat":1,"pairs":[["8H","9H"]]}),
            json!({"kind":"defended","seat":1,"pairs":[]}),
            json!({"kind":"takes","seat":1}),
            json!({"kind":"added","seat":0,"cards":["9S"]}),
            json!({"kind":"passed","seat":0}),
            json!({"kind":"picked_up","seat":1,"cards":["8H","9H","9S"]}),
            json!({"kind":"discarded","cards":["8H","9H"]}),
            json!({"kind":"drew","seat":0,"count":2,"trump_card":null}),
            json!({"kind":"drew","seat":1,"count":1,"trump_card":"QS"}),
            json!({"kind":"drew_cards","seat":0,"cards":["AC","TD"]}),
            json!({"kind":"exited","seat":0}),
            json!({"kind":"game_over","loser":1}),
            json!({"kind":"game_over","loser":null}),
        ];
        for event in events {
            passes(
                Schema::Event,
                json!({"type":"event","game":0,"event":event,"future_field":1}),
            );
        }
        passes(
            Schema::Request,
            json!({"type":"request","id":17,"game":0,"decision":"defend",
                   "time":{"move_ms":1000,"bank_ms":8750},"observation":observation(),
                   "legal":{"to_beat":[{"attack":"9S","beaters":["QS"]}],
                            "to_beat_after_exchange":[],"exchange":null,
                            "must_cover_all":true,"can_cover":true,"can_take":true}}),
        );
        passes(
            Schema::Request,
            json!({"type":"request","id":18,"game":0,"decision":"attack",
                   "time":{"move_ms":1000,"bank_ms":8750},"observation":observation(),
                   "legal":{"hand":["6C","9H"],"sizes":[1,3],"same_rank":false,
                            "exchange":{"six":"6S","trump_card":"QS"}}}),
        );
        passes(
            Schema::Request,
            json!({"type":"request","id":19,"game":0,"decision":"add",
                   "time":{"move_ms":1000,"bank_ms":8750},"observation":observation(),
                   "legal":{"addable":["9H"],"room":1,"after_take":false}}),
        );
        passes(
            Schema::Error,
            json!({"type":"error","id":17,"fault":"illegal","rule":"K-6","pointer":null,
                   "message":"K-6: 9H cannot be added"}),
        );
        passes(
            Schema::Error,
            json!({"type":"error","id":null,"fault":"schema","rule":null,"pointer":"/cards/0",
                   "message":"x"}),
        );
        passes(
            Schema::GameEnd,
            json!({"type":"game_end","game":0,"loser":1,"draw":false,
                   "faults":[{"seat":1,"kind":"timeout","detail":"no answer"}]}),
        );
        passes(
            Schema::GameEnd,
            json!({"type":"game_end","game":3,"loser":null,"draw":true,"faults":[]}),
        );
        passes(
            Schema::MatchEnd,
            json!({"type":"match_end","games":10,"losses":[4,6],"draws":0}),
        );
    }

    #[test]
    fn bot_messages_pass() {
        passes(
            Schema::BotHello,
            json!({"type":"hello","protocol":1,"name":"my-bot","version":"1.0"}),
        );
        for answer in [
            json!({"type":"answer","id":17,"action":"attack","cards":["7C","7D","QH"],"exchange":false}),
            json!({"type":"answer","id":17,"action":"attack","cards":["TS"]}),
            json!({"type":"answer","id":17,"action":"defend","pairs":[["7C","KC"],["7D","8D"]],"exchange":true}),
            json!({"type":"answer","id":17,"action":"defend","pairs":[]}),
            json!({"type":"answer","id":17,"action":"take"}),
            json!({"type":"answer","id":0,"action":"add","cards":["9S"]}),
            json!({"type":"answer","id":17,"action":"pass"}),
        ] {
            passes(Schema::Answer, answer);
        }
    }

    #[test]
    fn missing_id() {
        let e = fails(Schema::Answer, json!({"type":"answer","action":"pass"}));
        assert_eq!(e.pointer, "");
        assert_eq!(e.message, "missing field \"id\"");
    }

    #[test]
    fn card_written_with_ten() {
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"attack","cards":["10H"]}),
        );
        assert_eq!(e.pointer, "/cards/0");
        assert!(
            e.message.starts_with(
                "/cards/0: \"10H\" is not a card: write rank then suit, like TS or 6C"
            ),
            "{}",
            e.message
        );
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"defend","pairs":[["7C","kc"]]}),
        );
        assert_eq!(e.pointer, "/pairs/0/1");
        assert!(e.message.contains("\"kc\" is not a card"), "{}", e.message);
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"add","cards":[7]}),
        );
        assert_eq!(e.pointer, "/cards/0");
        assert!(e.message.contains("7 is not a card"), "{}", e.message);
    }

    #[test]
    fn duplicate_cards() {
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"add","cards":["9S","9D","9S"]}),
        );
        assert_eq!(e.pointer, "/cards");
        assert!(e.message.contains("\"9S\" appears twice"), "{}", e.message);
    }

    #[test]
    fn unknown_field() {
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"attack","cards":["7C"],"comment":"hi"}),
        );
        assert_eq!(e.pointer, "");
        // The allowed fields come in schema order (or sorted, without serde_json's
        // preserve_order feature).
        let allowed = e
            .message
            .strip_prefix("unknown field \"comment\"; allowed fields: ")
            .unwrap_or_else(|| panic!("{}", e.message));
        let mut allowed: Vec<&str> = allowed.split(", ").collect();
        allowed.sort_unstable();
        assert_eq!(
            allowed,
            [
                "\"action\"",
                "\"cards\"",
                "\"exchange\"",
                "\"id\"",
                "\"type\""
            ]
        );
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"take","pairs":[]}),
        );
        assert!(
            e.message.starts_with("unknown field \"pairs\""),
            "{}",
            e.message
        );
        let e = fails(
            Schema::BotHello,
            json!({"type":"hello","protocol":1,"name":"b","version":"1","author":"me"}),
        );
        assert!(
            e.message.starts_with("unknown field \"author\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn wrong_action() {
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"fold"}),
        );
        assert_eq!(e.pointer, "/action");
        assert!(
            e.message.contains("\"fold\" is not allowed here")
                && e.message
                    .contains("\"attack\", \"defend\", \"take\", \"add\", \"pass\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn branch_is_picked_by_action() {
        // An add without cards: the add branch's error, not a generic oneOf message.
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"add"}),
        );
        assert_eq!(
            (e.pointer.as_str(), e.message.as_str()),
            ("", "missing field \"cards\"")
        );
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"attack","cards":[]}),
        );
        assert_eq!(e.pointer, "/cards");
        assert!(e.message.contains("at least 1"), "{}", e.message);
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":1,"action":"defend","pairs":[["7C","KC","8C"]]}),
        );
        assert_eq!(e.pointer, "/pairs/0");
        assert!(
            e.message.contains("a pair is exactly two cards"),
            "{}",
            e.message
        );
    }

    #[test]
    fn other_mistakes() {
        let e = fails(
            Schema::Answer,
            json!({"type":"answer","id":"17","action":"pass"}),
        );
        assert_eq!(e.pointer, "/id");
        assert!(
            e.message.contains("expected a whole number, got a string"),
            "{}",
            e.message
        );
        let e = fails(
            Schema::Answer,
            json!({"type":"anwser","id":1,"action":"pass"}),
        );
        assert_eq!(e.pointer, "/type");
        assert_eq!(e.message, "/type: must be \"answer\", got \"anwser\"");
        let e = fails(Schema::Answer, json!(["answer"]));
        assert_eq!(e.pointer, "");
        let e = fails(
            Schema::BotHello,
            json!({"type":"hello","protocol":1,"name":"","version":"1"}),
        );
        assert_eq!(e.pointer, "/name");
        let e = fails(
            Schema::Event,
            json!({"type":"event","game":0,"event":{"kind":"attacked","seat":0,"cards":["1H"]}}),
        );
        assert_eq!(e.pointer, "/event/cards/0");
        let e = fails(
            Schema::Event,
            json!({"type":"event","game":0,"event":{"kind":"first_attacker","seat":0,"shown_trump":"6X"}}),
        );
        assert_eq!(e.pointer, "/event/shown_trump");
        assert!(e.message.contains("is not a card"), "{}", e.message);
        let e = fails(
            Schema::Request,
            json!({"type":"request","id":19,"game":0,"decision":"add",
                   "time":{"move_ms":1000,"bank_ms":8750},"observation":observation(),
                   "legal":{"addable":["9H"],"after_take":false}}),
        );
        assert_eq!(
            (e.pointer.as_str(), e.message.as_str()),
            ("/legal", "/legal: missing field \"room\"")
        );
    }
}
