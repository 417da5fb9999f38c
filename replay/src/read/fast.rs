//! A body line read straight into its [`Record`] when it starts as the referee writes it,
//! `{"type":"NAME",...`: the line is deserialized once into the type's own fields, with no
//! buffering in between. `Record`'s derived reader, internally tagged (`type`) with a flattened
//! [`Clock`], buffers each line whole first and then reads the buffer again; that was over a
//! quarter of a server's CPU while it verified the games of two workers (issue 23).
//!
//! `None` (the caller takes the derived reader, which names what is wrong) for anything else:
//! another first key, an unknown type, a line these fields refuse. What this accepts, the
//! derived reader accepts as the same record (tested below on every type).

use super::{Clock, FaultRecord, Record, RequestTime, ResultRecord, StderrAt};
use durak_rules::Seat;
use serde::Deserialize;
use serde_json::Value;

/// The line's record, or `None` to take the derived reader.
pub(super) fn record(text: &str) -> Option<Record> {
    let rest = text.strip_prefix(r#"{"type":""#)?;
    let name = &rest[..rest.find('"')?];
    Some(match name {
        "event" => serde_json::from_str::<Event>(text).ok()?.into(),
        "request" => serde_json::from_str::<Request>(text).ok()?.into(),
        "move" => serde_json::from_str::<Move>(text).ok()?.into(),
        "answer" => serde_json::from_str::<Answer>(text).ok()?.into(),
        "fault" => Record::Fault(serde_json::from_str::<FaultRecord>(text).ok()?),
        "stderr" => serde_json::from_str::<Stderr>(text).ok()?.into(),
        "result" => Record::Result(serde_json::from_str::<ResultRecord>(text).ok()?),
        _ => return None,
    })
}

#[derive(Deserialize)]
struct Event {
    to: Option<Seat>,
    event: Value,
}

impl From<Event> for Record {
    fn from(e: Event) -> Record {
        Record::Event {
            to: e.to,
            event: e.event,
        }
    }
}

#[derive(Deserialize)]
struct Request {
    id: u64,
    seat: Seat,
    decision: String,
    #[serde(default)]
    time: Option<RequestTime>,
    legal: Value,
}

impl From<Request> for Record {
    fn from(r: Request) -> Record {
        Record::Request {
            id: r.id,
            seat: r.seat,
            decision: r.decision.into(),
            time: r.time,
            legal: r.legal,
        }
    }
}

#[derive(Deserialize)]
struct Move {
    seat: Seat,
    forced: bool,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    elapsed_ms: Option<f64>,
    #[serde(default)]
    own_ms: Option<f64>,
    #[serde(default)]
    cpu_ms: Option<f64>,
    #[serde(default)]
    wait_ms: Option<f64>,
    #[serde(rename = "move")]
    mv: Value,
}

impl From<Move> for Record {
    fn from(m: Move) -> Record {
        Record::Move {
            seat: m.seat,
            forced: m.forced,
            id: m.id,
            elapsed_ms: m.elapsed_ms,
            clock: Clock {
                own_ms: m.own_ms,
                cpu_ms: m.cpu_ms,
                wait_ms: m.wait_ms,
            },
            mv: m.mv,
        }
    }
}

#[derive(Deserialize)]
struct Answer {
    id: u64,
    seat: Seat,
    #[serde(default)]
    elapsed_ms: Option<f64>,
    line: String,
    refused: String,
    #[serde(default)]
    own_ms: Option<f64>,
    #[serde(default)]
    cpu_ms: Option<f64>,
    #[serde(default)]
    wait_ms: Option<f64>,
}

impl From<Answer> for Record {
    fn from(a: Answer) -> Record {
        Record::Answer {
            id: a.id,
            seat: a.seat,
            elapsed_ms: a.elapsed_ms,
            line: a.line,
            refused: a.refused,
            clock: Clock {
                own_ms: a.own_ms,
                cpu_ms: a.cpu_ms,
                wait_ms: a.wait_ms,
            },
        }
    }
}

#[derive(Deserialize)]
struct Stderr {
    seat: Seat,
    #[serde(default)]
    at: Option<StderrAt>,
    #[serde(default)]
    sent: Option<u64>,
    #[serde(default)]
    text: String,
    #[serde(default)]
    dropped: u64,
}

impl From<Stderr> for Record {
    fn from(s: Stderr) -> Record {
        Record::Stderr {
            seat: s.seat,
            at: s.at,
            sent: s.sent,
            text: s.text,
            dropped: s.dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of every type, as the referee writes them and as older replays have them.
    const LINES: &[&str] = &[
        r#"{"type":"event","to":null,"event":{"kind":"deal","cards":["6H","7S"]}}"#,
        r#"{"type":"event","to":1,"event":{"kind":"hand","cards":[]}}"#,
        r#"{"type":"request","id":3,"seat":0,"decision":"attack","time":{"move_ms":2000,"bank_ms":0},"legal":[{"attack":"6H"}]}"#,
        r#"{"type":"request","id":4,"seat":1,"decision":"defend","legal":["take"]}"#,
        r#"{"type":"move","seat":0,"forced":false,"id":3,"elapsed_ms":1.5,"own_ms":1.25,"cpu_ms":1.0,"wait_ms":0.25,"move":{"attack":"6H"}}"#,
        r#"{"type":"move","seat":1,"forced":true,"id":null,"elapsed_ms":null,"move":"take"}"#,
        r#"{"type":"move","seat":1,"forced":false,"id":5,"move":"take"}"#,
        r#"{"type":"answer","id":6,"seat":0,"elapsed_ms":2.0,"line":"{\"move\":1}","refused":"K-8: not legal","cpu_ms":1.5}"#,
        r#"{"type":"fault","seat":0,"kind":"timeout","detail":"no answer","rule":null}"#,
        r#"{"type":"stderr","seat":1,"at":"start","sent":2,"text":"hi\n","dropped":0}"#,
        r#"{"type":"stderr","seat":1,"at":7,"text":"x"}"#,
        r#"{"type":"stderr","seat":0,"text":"old"}"#,
        r#"{"type":"result","loser":1,"draw":false,"faults":[],"moves":40,"duration_ms":12}"#,
        r#"{"type":"result","loser":null,"draw":true,"moves":1000,"move_limit":1000,"void":true,"voided":["starved"]}"#,
    ];

    #[test]
    fn every_type_is_read_as_the_derived_reader_reads_it() {
        for line in LINES {
            let derived: Record = serde_json::from_str(line).unwrap();
            assert_eq!(record(line), Some(derived), "{line}");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_derived_reader() {
        for line in [
            // Another first key, spaces, an unknown type, a header.
            r#"{"seat":0,"type":"fault","kind":"timeout","detail":"x","rule":null}"#,
            r#"{ "type":"fault","seat":0,"kind":"timeout","detail":"x","rule":null}"#,
            r#"{"type":"chat","seat":0}"#,
            r#"{"type":"header","format":1}"#,
            // Fields missing or of the wrong kind, bad JSON, a cut line.
            r#"{"type":"move","seat":0,"move":"take"}"#,
            r#"{"type":"request","id":"3","seat":0,"decision":"attack","legal":[]}"#,
            r#"{"type":"stderr","seat":0,"at":0}"#,
            r#"{"type":"event","to":null,"event":{"#,
            r#"{"type":"#,
        ] {
            assert_eq!(record(line), None, "{line}");
        }
    }
}
