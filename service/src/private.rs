//! Private logs: what a bot writes on stderr (authors print their reasoning there) is shown only
//! to its author and the organiser. Everyone else — no login, another author, a worker token —
//! is served the game without it: the replay's `stderr` lines of the seats they may not see
//! are left out, and the first line of stderr that the referee quotes in a fault ("its stderr
//! began: ...") is cut from the fault's detail. The filtering is done here, for each request,
//! from who asks; what is cached for everyone (the version views, `http/cache.rs`) holds fault
//! details cut for everyone ([`public_detail`]).

use crate::auth::Account;
use crate::store::{self, GameRow};
use serde_json::Value;
use std::collections::HashMap;

/// What the viewer and the API say of a seat whose log is left out.
pub const NOTE: &str = "this bot's log (stderr) is visible to its author only";

/// The header of `/api/games/J/G/replay` naming the seats whose stderr was left out
/// (`0,2`; empty: none).
pub const HIDDEN_HEADER: &str = "x-durak-stderr-hidden";

/// The words the referee puts before a bot's first line of stderr in a fault's detail
/// (`referee/src/driver/faults.rs`, `explain_start_failure`).
const STDERR_QUOTE: &str = "; its stderr began: ";
/// What follows the quote in that detail (kept: it names no bot text).
const AFTER_QUOTE: &str = "; it ran in a private directory";

/// A fault's detail without the bot's stderr that the referee quoted in it.
pub fn public_detail(detail: &str) -> String {
    let Some(i) = detail.find(STDERR_QUOTE) else {
        return detail.to_string();
    };
    let rest = &detail[i + STDERR_QUOTE.len()..];
    let tail = rest.find(AFTER_QUOTE).map(|j| &rest[j..]).unwrap_or("");
    format!("{}; its stderr: {NOTE}{tail}", &detail[..i])
}

/// The faults of a game row as everyone may read them.
pub fn public_row(mut g: GameRow) -> GameRow {
    for f in &mut g.faults {
        f.detail = public_detail(&f.detail);
    }
    g
}

/// Which seats of `row` the reader may read the stderr of: the organiser every seat, an author
/// the seats of their own versions, anyone else none.
pub fn visible_seats(
    db: &crate::db::Db,
    row: &GameRow,
    who: Option<&Account>,
) -> Result<Vec<bool>, crate::db::DbError> {
    let Some(who) = who else {
        return Ok(vec![false; row.seats.len()]);
    };
    if who.organiser {
        return Ok(vec![true; row.seats.len()]);
    }
    let mut owner: HashMap<i64, bool> = HashMap::new();
    let mut out = Vec::with_capacity(row.seats.len());
    for &v in &row.seats {
        let mine = match owner.get(&v) {
            Some(&m) => m,
            None => {
                let m = store::version(db, v)?.is_some_and(|ver| ver.account == who.id);
                owner.insert(v, m);
                m
            }
        };
        out.push(mine);
    }
    Ok(out)
}

/// The seats whose log is left out (for the viewer's note and the API's header).
pub fn hidden(visible: &[bool]) -> Vec<usize> {
    (0..visible.len()).filter(|&s| !visible[s]).collect()
}

/// The seats of `hidden` as the header's value: `0,2`.
pub fn header_value(hidden: &[usize]) -> String {
    hidden
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The replay's lines (JSON lines, plain) as the reader may see them: the `stderr` lines of the
/// seats not visible left out, and the fault details of those seats cut. Lines are kept as
/// they are, byte for byte, unless one of those changes them.
pub fn filter_replay(text: &[u8], visible: &[bool]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        match filter_line(line, visible) {
            Keep::Same => out.extend_from_slice(line),
            Keep::Changed(mut s) => {
                s.push('\n');
                out.extend_from_slice(s.as_bytes());
            }
            Keep::Drop => {}
        }
    }
    out
}

enum Keep {
    Same,
    Changed(String),
    Drop,
}

fn seat_hidden(v: &Value, visible: &[bool]) -> bool {
    v["seat"]
        .as_u64()
        .is_none_or(|s| !visible.get(s as usize).copied().unwrap_or(false))
}

/// Cut the stderr quoted in `fault`'s detail when its seat is hidden; whether it changed.
fn cut_fault(fault: &mut Value, visible: &[bool]) -> bool {
    if !seat_hidden(fault, visible) {
        return false;
    }
    let Some(d) = fault["detail"].as_str() else {
        return false;
    };
    let cut = public_detail(d);
    if cut == d {
        return false;
    }
    fault["detail"] = Value::String(cut);
    true
}

fn filter_line(line: &[u8], visible: &[bool]) -> Keep {
    // Only these lines can hold a bot's stderr; the others are kept without parsing them.
    let has = |w: &[u8]| line.windows(w.len()).any(|x| x == w);
    if !has(b"\"stderr\"") && !has(b"\"fault") {
        return Keep::Same;
    }
    let Ok(mut v) = serde_json::from_slice::<Value>(line) else {
        return Keep::Same;
    };
    let changed = match v["type"].as_str() {
        Some("stderr") if seat_hidden(&v, visible) => return Keep::Drop,
        Some("fault") => cut_fault(&mut v, visible),
        Some("result") => {
            let mut any = false;
            if let Some(fs) = v["faults"].as_array_mut() {
                for f in fs {
                    any |= cut_fault(f, visible);
                }
            }
            any
        }
        _ => false,
    };
    if changed {
        Keep::Changed(v.to_string())
    } else {
        Keep::Same
    }
}

/// A fixed tournament's `results.jsonl` as everyone may read it: the stderr the referee quoted
/// in a fault's detail cut from every line (the file is served to anyone, as its report is).
pub fn public_results(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        let quoted = memchr::memmem::find(line, STDERR_QUOTE.as_bytes()).is_some();
        match serde_json::from_slice::<Value>(line)
            .ok()
            .filter(|_| quoted)
        {
            Some(mut v) => {
                cut_quotes(&mut v);
                out.extend_from_slice(v.to_string().as_bytes());
                out.push(b'\n');
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// Every string of `v` that quotes a bot's stderr, cut as [`public_detail`] does.
fn cut_quotes(v: &mut Value) {
    match v {
        Value::String(s) if s.contains(STDERR_QUOTE) => *s = public_detail(s),
        Value::Array(a) => a.iter_mut().for_each(cut_quotes),
        Value::Object(o) => o.values_mut().for_each(cut_quotes),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tournaments_results_file_loses_the_quoted_stderr_and_nothing_else() {
        let quoted = r#"{"id":3,"faults":[{"seat":1,"kind":"crash","detail":"exited before its hello; its stderr began: SECRET plan; it ran in a private directory"}]}"#;
        let plain = r#"{"id":4,"faults":[]}"#;
        let text = format!("{quoted}\n{plain}\n");
        let out = String::from_utf8(super::public_results(text.as_bytes())).unwrap();
        assert!(!out.contains("SECRET"), "{out}");
        assert!(out.contains(super::NOTE) && out.contains("; it ran in a private directory"));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[1], plain,
            "a line without a quote is served as written"
        );
        let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(v["id"], 3);
    }

    use super::*;

    const REPLAY: &str = concat!(
        r#"{"type":"header","format":1}"#,
        "\n",
        r#"{"type":"stderr","seat":0,"at":"start","text":"seat 0 thinks"}"#,
        "\n",
        r#"{"type":"stderr","seat":1,"at":3,"text":"seat 1 thinks"}"#,
        "\n",
        r#"{"type":"fault","seat":1,"kind":"crash","detail":"exited before its hello; its stderr began: my secret; it ran in a private directory (/tmp/x), not in yours"}"#,
        "\n",
        r#"{"type":"result","loser":1,"draw":false,"moves":0,"faults":[{"seat":1,"kind":"crash","detail":"exited before its hello; its stderr began: my secret"}]}"#,
        "\n",
    );

    #[test]
    fn hidden_seats_lose_their_stderr_lines_and_quotes() {
        let out = String::from_utf8(filter_replay(REPLAY.as_bytes(), &[true, false])).unwrap();
        assert!(out.contains("seat 0 thinks"), "{out}");
        assert!(!out.contains("seat 1 thinks"), "{out}");
        assert!(!out.contains("my secret"), "{out}");
        assert_eq!(out.matches(NOTE).count(), 2, "{out}");
        assert!(out.contains("it ran in a private directory"), "{out}");
        assert_eq!(out.lines().count(), 4, "{out}");
        // Every line is still JSON.
        for l in out.lines() {
            serde_json::from_str::<Value>(l).unwrap();
        }
        let none = String::from_utf8(filter_replay(REPLAY.as_bytes(), &[false, false])).unwrap();
        assert!(!none.contains("thinks"), "{none}");
        let all = filter_replay(REPLAY.as_bytes(), &[true, true]);
        assert_eq!(
            all,
            REPLAY.as_bytes(),
            "nothing changed for who may see all"
        );
    }

    #[test]
    fn a_detail_without_a_quote_is_kept() {
        assert_eq!(public_detail("timed out"), "timed out");
        assert_eq!(
            public_detail("died; its stderr began: x y z"),
            format!("died; its stderr: {NOTE}")
        );
    }
}
