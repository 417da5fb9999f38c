//! Reading a replay file into typed lines, with errors that name the file and the line.
//!
//! Only the shape of each line is checked here (JSON, a known `type`, the fields that type
//! needs). Whether the lines tell a game the rules allow is [`crate::sim`]'s job.

use crate::error::{ErrorKind, ReplayError};
use durak_protocol::replay::{HeaderLine, LINE_TYPES};
use durak_rules::{Card, Seat, Variant};
use serde_json::Value;
use std::path::Path;

mod fast;

/// The lines' types, shared with the referee that writes them (`durak_protocol::replay`).
pub use durak_protocol::replay::{
    Clock, FaultRecord, Record, RequestTime, ResultRecord, SeatHeader, SeatLimits, StderrAt,
};

/// The replay format version this crate reads (the referee's `REPLAY_FORMAT`).
pub const FORMAT: u64 = durak_protocol::replay::REPLAY_FORMAT;

/// The first line of a replay: everything fixed before the deal.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub format: u64,
    /// The referee that wrote the replay, e.g. `durak-referee 0.1.0`.
    pub referee: Option<String>,
    pub variant: Variant,
    pub players: usize,
    pub series_seed: u64,
    /// The game's index in its match, from 0.
    pub game: u32,
    /// The deck seed.
    pub seed: u64,
    pub dealer: Seat,
    pub first_game: bool,
    /// The moves after which the referee ends a game as a draw (absent in older replays).
    pub max_moves: Option<u32>,
    /// The games of the match (absent in older replays).
    pub games: Option<u32>,
    /// The deck in deal order, as logged (not checked to be a permutation here).
    pub deck: Vec<Card>,
    pub seats: Vec<SeatHeader>,
}

impl Header {
    /// The label of a seat (its name), or `seat N` when the header does not list it.
    pub fn seat_label(&self, seat: Seat) -> String {
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .map(SeatHeader::label)
            .unwrap_or_else(|| format!("seat {seat}"))
    }

    /// A seat as the texts name it: `seat 1 (python3 bot.py)`, with the bot's own name when it
    /// differs (`seat 1 (python3 bot.py, named flaky)`: the label's parentheses are not nested
    /// in these), or `seat 1` when the header does not list it.
    pub fn seat_name(&self, seat: Seat) -> String {
        match self.seats.iter().find(|s| s.seat == seat) {
            Some(s) => match s.own_name() {
                Some(b) => format!("seat {seat} ({}, named {b})", s.name),
                None => format!("seat {seat} ({})", s.name),
            },
            None => format!("seat {seat}"),
        }
    }
}

impl Header {
    /// The header as its line is written (`durak_protocol::replay::HeaderLine`).
    pub fn to_line(&self) -> HeaderLine {
        HeaderLine {
            kind: Default::default(),
            format: self.format,
            referee: self.referee.clone(),
            variant: self.variant.name().to_string(),
            players: self.players,
            series_seed: self.series_seed,
            game: self.game,
            seed: self.seed,
            dealer: self.dealer,
            first_game: self.first_game,
            max_moves: self.max_moves,
            games: self.games,
            deck: self.deck.iter().map(Card::to_string).collect(),
            seats: self.seats.clone(),
        }
    }
}

impl Replay {
    /// The replay's lines as the referee writes them (each without its newline): what was read,
    /// written again.
    pub fn to_lines(&self) -> Vec<String> {
        let mut out = vec![serde_json::to_string(&self.header.to_line()).expect("json")];
        out.extend(
            self.lines
                .iter()
                .map(|l| serde_json::to_string(&l.record).expect("json")),
        );
        out
    }
}

/// A line after the header, with its 1-based line number.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub number: usize,
    pub record: Record,
}

/// A replay file as read: its header and every following line.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// Where it was read from (for messages).
    pub source: String,
    pub header: Header,
    pub lines: Vec<Line>,
}

/// Read a replay file. Errors name the file and the line: a file that does not exist, not a
/// replay, a newer format version, a line cut off at the end of the file, an invalid line.
pub fn read_replay(path: &Path) -> Result<Replay, ReplayError> {
    let source = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        let message = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => format!("cannot read: {e}"),
        };
        ReplayError::new(ErrorKind::Io, &source, None, message)
    })?;
    let bytes = decompress(bytes, &source)?;
    if path.is_dir() {
        return Err(ReplayError::new(
            ErrorKind::Io,
            &source,
            None,
            "is a directory, not a replay file",
        ));
    }
    parse_replay(&bytes, &source)
}

/// The first four bytes of a zstd frame: a replay written compressed (`.jsonl.zst`, what
/// tournaments write by default) is told apart from a plain one by them, whatever its name.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The replay's lines: `bytes` decompressed when they are a zstd frame, else as they are.
fn decompress(bytes: Vec<u8>, source: &str) -> Result<Vec<u8>, ReplayError> {
    if !bytes.starts_with(&ZSTD_MAGIC) {
        return Ok(bytes);
    }
    zstd::stream::decode_all(&bytes[..]).map_err(|e| {
        ReplayError::new(
            ErrorKind::NotReplay,
            source,
            None,
            format!("a zstd-compressed file that cannot be decompressed ({e}): cut off or damaged"),
        )
    })
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}

/// Parse the bytes of a replay; `source` names it in errors.
pub fn parse_replay(bytes: &[u8], source: &str) -> Result<Replay, ReplayError> {
    let err = |kind, line, message: String| ReplayError::new(kind, source, line, message);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(err(
            ErrorKind::NotReplay,
            None,
            "the file is empty: not a durak replay".into(),
        ));
    }
    let ends_with_newline = bytes.last() == Some(&b'\n');
    let mut raw_lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if ends_with_newline {
        raw_lines.pop();
    }
    let last = raw_lines.len();
    let mut header: Option<Header> = None;
    let mut lines = Vec::new();
    for (i, raw) in raw_lines.iter().enumerate() {
        let number = i + 1;
        let first = header.is_none();
        let at = |(kind, message)| err(kind, Some(number), message);
        let text = line_text(raw, first).map_err(at)?;
        if text.trim().is_empty() {
            if first {
                return Err(at((
                    ErrorKind::NotReplay,
                    "not a durak replay: the first line is empty; a replay starts with its header \
                     line"
                        .into(),
                )));
            }
            continue;
        }
        let cut = number == last && !ends_with_newline;
        // A body line read straight into its record: no JSON value in between (a server
        // verifying workers' games spent most of its time building them). Anything it refuses
        // (a header, an unknown type, bad JSON) takes the value's path, which names what is
        // wrong; both accept the same lines as the same records.
        if !first {
            if let Some(record) =
                fast::record(text).or_else(|| serde_json::from_str::<Record>(text).ok())
            {
                lines.push(Line { number, record });
                continue;
            }
        }
        let value = line_json(text, cut, first).map_err(at)?;
        let ty = value
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_string);
        if first {
            header_first(ty.as_deref(), &value).map_err(at)?;
            header = Some(parse_header(&value, source, number)?);
        } else {
            let record = body_record(ty.as_deref(), value).map_err(at)?;
            lines.push(Line { number, record });
        }
    }
    let header = header.expect("a non-empty file has a first line");
    Ok(Replay {
        source: source.to_string(),
        header,
        lines,
    })
}

/// What a line of a replay can be refused for, before the file and line are named.
type LineRefusal = (ErrorKind, String);

/// A line's text (its `\r` dropped); `first`: the file's first line, where a byte that is not
/// text says the file is not a replay at all.
fn line_text(raw: &[u8], first: bool) -> Result<&str, LineRefusal> {
    match std::str::from_utf8(raw) {
        Ok(t) => Ok(t.trim_end_matches('\r')),
        Err(e) if first => Err((
            ErrorKind::NotReplay,
            format!(
                "not a durak replay: the first line is not text (bad byte at offset {})",
                e.valid_up_to()
            ),
        )),
        Err(e) => Err((
            ErrorKind::InvalidLine,
            format!(
                "the line is not UTF-8 text (bad byte at offset {})",
                e.valid_up_to()
            ),
        )),
    }
}

/// A line's JSON; `cut`: the file's last line without its newline (a truncated replay when it
/// does not parse); `first`: the file's first line.
fn line_json(text: &str, cut: bool, first: bool) -> Result<Value, LineRefusal> {
    serde_json::from_str(text).map_err(|e| match e {
        e if cut && (e.is_eof() || !first) => (
            ErrorKind::TruncatedLine,
            format!(
                "the file ends in the middle of this line (truncated replay?): {}; the line \
                 begins {:?}",
                syntax(&e),
                shorten(text, 60)
            ),
        ),
        e if first => (
            ErrorKind::NotReplay,
            format!(
                "not a durak replay: the first line is not JSON ({}); it begins {:?}",
                syntax(&e),
                shorten(text, 60)
            ),
        ),
        e => (
            ErrorKind::InvalidLine,
            format!(
                "the line is not valid JSON ({}); it begins {:?}",
                syntax(&e),
                shorten(text, 60)
            ),
        ),
    })
}

/// The first line must be the header (of type `ty`).
fn header_first(ty: Option<&str>, value: &Value) -> Result<(), LineRefusal> {
    if ty == Some("header") {
        return Ok(());
    }
    let what = match ty {
        Some(t) => format!("a line of type {t:?}"),
        None if value.is_object() => "a JSON object without a \"type\"".into(),
        None => format!("a JSON {}", json_kind(value)),
    };
    Err((
        ErrorKind::NotReplay,
        format!(
            "not a durak replay: the first line must be the header \
             ({{\"type\":\"header\",\"format\":{FORMAT},...}}); it is {what}"
        ),
    ))
}

/// A line after the header: one of the known types (not a second header), read as its record.
fn body_record(ty: Option<&str>, value: Value) -> Result<Record, LineRefusal> {
    match ty {
        Some("header") => {
            return Err((
                ErrorKind::InvalidLine,
                "a second header: a replay holds one game with one header".into(),
            ))
        }
        Some(t) if LINE_TYPES.contains(&t) => {}
        Some(t) => {
            return Err((
                ErrorKind::InvalidLine,
                format!(
                    "unknown line type {t:?} (the types are {})",
                    LINE_TYPES.join(", ")
                ),
            ))
        }
        None => return Err((ErrorKind::InvalidLine, "the line has no \"type\"".into())),
    }
    serde_json::from_value(value).map_err(|e| {
        (
            ErrorKind::InvalidLine,
            format!("invalid {} line: {e}", ty.unwrap_or_default()),
        )
    })
}

/// A JSON syntax error without serde's "at line 1 column N" (the line is ours to name).
fn syntax(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(head) => format!("{head} at column {}", e.column()),
        None => text,
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn parse_header(value: &Value, source: &str, number: usize) -> Result<Header, ReplayError> {
    let bad = |kind, message: String| ReplayError::new(kind, source, Some(number), message);
    match value.get("format").and_then(Value::as_u64) {
        Some(f) if f > FORMAT => {
            return Err(bad(
                ErrorKind::NewerFormat,
                format!(
                    "this replay is in format {f}, newer than this durak reads (format {FORMAT}): \
                     use a newer durak to read it"
                ),
            ))
        }
        Some(f) if f < 1 => {
            return Err(bad(
                ErrorKind::NotReplay,
                format!("not a durak replay: format {f} does not exist (the first is 1)"),
            ))
        }
        Some(_) => {}
        None => {
            return Err(bad(
                ErrorKind::NotReplay,
                "not a durak replay: the header has no \"format\" version number".into(),
            ))
        }
    }
    let raw: HeaderLine = serde_json::from_value(value.clone())
        .map_err(|e| bad(ErrorKind::InvalidLine, format!("invalid header: {e}")))?;
    let variant: Variant = raw
        .variant
        .parse()
        .map_err(|e| bad(ErrorKind::InvalidLine, format!("invalid header: {e}")))?;
    variant
        .check_players(raw.players)
        .map_err(|e| bad(ErrorKind::InvalidLine, format!("invalid header: {e}")))?;
    if raw.dealer >= raw.players {
        return Err(bad(
            ErrorKind::InvalidLine,
            format!(
                "invalid header: the dealer is seat {}, but the seats are 0 to {}",
                raw.dealer,
                raw.players - 1
            ),
        ));
    }
    if raw.seats.len() != raw.players {
        return Err(bad(
            ErrorKind::InvalidLine,
            format!(
                "invalid header: {} players but {} seats listed",
                raw.players,
                raw.seats.len()
            ),
        ));
    }
    if raw.deck.len() != 36 {
        return Err(bad(
            ErrorKind::InvalidLine,
            format!(
                "invalid header: the deck has {} cards, a deck has 36 (C-1)",
                raw.deck.len()
            ),
        ));
    }
    let deck = raw
        .deck
        .iter()
        .enumerate()
        .map(|(i, c)| {
            c.parse::<Card>().map_err(|e| {
                bad(
                    ErrorKind::InvalidLine,
                    format!("invalid header: deck card {i} ({c:?}): {e}"),
                )
            })
        })
        .collect::<Result<Vec<Card>, ReplayError>>()?;
    Ok(Header {
        format: raw.format,
        referee: raw.referee,
        variant,
        players: raw.players,
        series_seed: raw.series_seed,
        game: raw.game,
        seed: raw.seed,
        dealer: raw.dealer,
        first_game: raw.first_game,
        max_moves: raw.max_moves,
        games: raw.games,
        deck,
        seats: raw.seats,
    })
}
