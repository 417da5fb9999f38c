//! What the person's seat has been sent ([`Seen`]): the page's position, log and open decision,
//! read from the seat's own protocol lines only (I-1/I-2), and the game's moves so far, read
//! from the public move events, which the server keeps (`rows.rs`) so that a game goes on after
//! a restart ([`Seen::opening`]: the moves given again, the person's own answered at once).

use durak_protocol as proto;
use durak_rules::{Legal, Move};
use serde_json::Value;

/// What the person's seat has been sent so far, as the page shows it.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// The person's seat.
    pub seat: usize,
    /// The last request's observation (the seat's own view of the game).
    pub observation: Option<Value>,
    /// The open decision: its request id and legal choices (`None` while the bot plays).
    pub open: Option<(u64, Legal)>,
    /// The events the seat was sent, in words, oldest first.
    pub log: Vec<String>,
    /// The last refusal of a move, with its rule id.
    pub refusal: Option<String>,
    /// The game's end, in words (`None` while it goes on).
    pub end: Option<String>,
    /// The replay's file name under `DATA/play/`, once written.
    pub replay: Option<String>,
    /// Whether the replay verified (`durak replay --verify`'s check), once the game ended.
    pub verified: Option<Result<(), super::Unverified>>,
    /// Every move of the game so far (both seats', forced ones too), from the move events.
    pub moves: Vec<Move>,
    /// The moves of a game resumed after a restart: the referee plays them again (its
    /// `MatchConfig::opening`), and the person's requests among them are answered with them.
    pub opening: Vec<Move>,
    /// An `exchanged` event seen, whose move's own event comes next.
    exchange: bool,
}

/// What one line of the referee asks of the seat.
#[derive(Debug, Default, PartialEq)]
pub struct OnLine {
    /// The reply owed at once (the hello; an answer of the opening).
    pub reply: Option<String>,
    /// A move was seen: the moves so far changed.
    pub moved: bool,
}

impl Seen {
    pub fn new(seat: usize, opening: Vec<Move>) -> Seen {
        Seen {
            seat,
            opening,
            ..Seen::default()
        }
    }

    /// One line the referee sent the person's seat.
    pub fn on_line(&mut self, line: &str) -> OnLine {
        let mut out = OnLine::default();
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            return out;
        };
        match msg["type"].as_str() {
            Some("hello") => {
                out.reply = Some(proto::bot_hello("person", env!("CARGO_PKG_VERSION")).to_string())
            }
            Some("event") => {
                self.log.push(event_words(&msg["event"]));
                out.moved = self.on_event(&msg["event"]);
            }
            Some("error") => {
                self.refusal = Some(
                    proto::text::escape_controls(msg["message"].as_str().unwrap_or(""))
                        .into_owned(),
                )
            }
            Some("request") => {
                let Ok(legal) = proto::legal_from_request(&msg) else {
                    return out;
                };
                let id = msg["id"].as_u64().unwrap_or(0);
                self.observation = Some(msg["observation"].clone());
                // A resumed game's move, played again: answered at once.
                if let Some(mv) = self.opening.get(self.moves.len()) {
                    out.reply = serde_json::to_string(&proto::answer(id, mv)).ok();
                    return out;
                }
                self.open = Some((id, legal));
            }
            _ => {}
        }
        out
    }

    /// A move's own event: the move, added to [`Seen::moves`].
    fn on_event(&mut self, e: &Value) -> bool {
        let kind = e["kind"].as_str().unwrap_or("");
        if kind == "exchanged" {
            self.exchange = true;
            return false;
        }
        let action = match kind {
            "attacked" => "attack",
            "defended" => "defend",
            "takes" => "take",
            "added" => "add",
            "passed" => "pass",
            _ => return false,
        };
        let mut answer = serde_json::json!({"type": "answer", "id": 1, "action": action});
        if !e["cards"].is_null() && action != "take" && action != "pass" {
            answer["cards"] = e["cards"].clone();
        }
        if action == "defend" {
            answer["pairs"] = e["pairs"].clone();
        }
        if std::mem::take(&mut self.exchange) {
            answer["exchange"] = Value::Bool(true);
        }
        match proto::parse_answer(&answer) {
            Ok((_, mv)) => {
                self.moves.push(mv);
                true
            }
            Err(_) => false,
        }
    }
}

/// Moves as kept in the database: the protocol's answers (id 0).
pub fn moves_json(moves: &[Move]) -> String {
    let list: Vec<Value> = moves
        .iter()
        .map(|m| serde_json::to_value(proto::answer(0, m)).expect("json"))
        .collect();
    Value::from(list).to_string()
}

/// [`moves_json`] read back.
pub fn moves_from_json(text: &str) -> Result<Vec<Move>, super::PlayError> {
    let list: Vec<Value> = serde_json::from_str(text)?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            proto::parse_answer(v)
                .map(|(_, m)| m)
                .map_err(|e| super::PlayError::BadMove {
                    n: i + 1,
                    detail: e.detail().to_string(),
                })
        })
        .collect()
}

/// An event as a line of the page's log: its kind and fields, cards as people read them.
pub fn event_words(e: &Value) -> String {
    let kind = e["kind"].as_str().unwrap_or("?");
    let mut out = kind.replace('_', " ");
    if let Some(map) = e.as_object() {
        for (k, v) in map {
            if k == "kind" {
                continue;
            }
            out.push_str(&format!(" · {k}: {}", value_words(v)));
        }
    }
    out
}

fn value_words(v: &Value) -> String {
    match v {
        Value::String(s) if s.len() == 2 && s.parse::<durak_rules::Card>().is_ok() => {
            durak_replay::moves::card(s.parse().unwrap())
        }
        Value::String(s) => proto::text::escape_controls(s).into_owned(),
        Value::Array(a) => a.iter().map(value_words).collect::<Vec<_>>().join(" "),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(e: Value) -> String {
        serde_json::json!({"type": "event", "game": 0, "event": e}).to_string()
    }

    /// The moves read from the events are the game's: an exchange joins its move, the rest of
    /// the events are no move; they go to the database and back unchanged.
    #[test]
    fn the_moves_are_read_from_the_move_events_and_kept() {
        let mut s = Seen::new(0, Vec::new());
        let lines = [
            event(serde_json::json!({"kind": "dealt_hand", "seat": 0, "cards": ["6C", "7C"]})),
            event(
                serde_json::json!({"kind": "exchanged", "seat": 0, "six": "6H", "trump_card": "AH"}),
            ),
            event(serde_json::json!({"kind": "attacked", "seat": 0, "cards": ["7C"]})),
            event(serde_json::json!({"kind": "defended", "seat": 1, "pairs": [["7C", "9C"]]})),
            event(serde_json::json!({"kind": "takes", "seat": 1})),
            event(serde_json::json!({"kind": "added", "seat": 0, "cards": ["7D"]})),
            event(serde_json::json!({"kind": "passed", "seat": 0})),
        ];
        let moved: Vec<bool> = lines.iter().map(|l| s.on_line(l).moved).collect();
        assert_eq!(moved, [false, false, true, true, true, true, true]);
        let json = moves_json(&s.moves);
        assert!(json.contains("\"exchange\":true"), "{json}");
        assert_eq!(moves_from_json(&json).unwrap(), s.moves);
        assert_eq!(s.log.len(), 7);
        let e = moves_from_json("[{\"type\":\"answer\",\"id\":0,\"action\":\"fly\"}]").unwrap_err();
        assert!(
            matches!(e, super::super::PlayError::BadMove { n: 1, .. }),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("move 1:"), "{e}");
    }
}
