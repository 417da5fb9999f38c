//! Reading a replay file into typed lines, with errors that name the file and the line.
//!
//! Only the shape of each line is checked here (JSON, a known `type`, the fields that type
//! needs). Whether the lines tell a game the rules allow is [`crate::sim`]'s job.

use crate::error::{ErrorKind, ReplayError};
use durak_rules::{Card, Seat, Variant};
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// The replay format version this crate reads (the referee's `REPLAY_FORMAT`).
pub const FORMAT: u64 = 1;

/// The limits a seat played under (as in the referee's hello).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct SeatLimits {
    #[serde(default)]
    pub startup_ms: u64,
    #[serde(default)]
    pub move_ms: u64,
    #[serde(default)]
    pub bank_ms: u64,
    #[serde(default)]
    pub max_line_bytes: u64,
}

/// One seat of the header.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SeatHeader {
    pub seat: Seat,
    pub name: String,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub bot_name: Option<String>,
    #[serde(default)]
    pub bot_version: Option<String>,
    #[serde(default)]
    pub limits: Option<SeatLimits>,
    /// The seat's process was started for this game (it got the referee's hello first); absent
    /// in older replays.
    #[serde(default)]
    pub hello: Option<bool>,
}

impl SeatHeader {
    /// How the seat is shown: its name, and the bot's own name when it differs.
    pub fn label(&self) -> String {
        match self.own_name() {
            Some(b) => format!("{} ({b})", self.name),
            None => self.name.clone(),
        }
    }

    /// The bot's own name (from its hello) when it says something the seat's name does not.
    fn own_name(&self) -> Option<&str> {
        self.bot_name
            .as_deref()
            .filter(|b| *b != self.name && !b.is_empty())
    }
}

#[derive(Deserialize)]
struct RawHeader {
    format: u64,
    #[serde(default)]
    referee: Option<String>,
    variant: String,
    players: usize,
    series_seed: u64,
    game: u32,
    seed: u64,
    dealer: Seat,
    first_game: bool,
    #[serde(default)]
    games: Option<u32>,
    deck: Vec<String>,
    seats: Vec<SeatHeader>,
}

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

/// A time limit announced with a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct RequestTime {
    pub move_ms: u64,
    pub bank_ms: u64,
}

/// A fault as logged (a `fault` line or an entry of the result's `faults`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct FaultRecord {
    pub seat: Seat,
    pub kind: String,
    pub detail: String,
    #[serde(default)]
    pub rule: Option<String>,
}

/// The last line of a replay.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ResultRecord {
    pub loser: Option<Seat>,
    pub draw: bool,
    #[serde(default)]
    pub faults: Vec<FaultRecord>,
    pub moves: u32,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The referee ended the game as a draw at this many moves (its `max_moves`).
    #[serde(default)]
    pub move_limit: Option<u32>,
    /// Why attempts at this game were voided (a bot starved by the machine), oldest first.
    #[serde(default)]
    pub voided: Vec<String>,
    /// The game was given up, voided each time: it counts for nobody, and stops at the starved
    /// seat's open request.
    #[serde(default)]
    pub void: bool,
}

/// Where in the game a `stderr` line's text arrived (its `at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StderrAt {
    /// `"start"`: before the seat's first request (start-up, hello, between games).
    Start,
    /// A request id: after the referee sent that request to the seat, until its next one.
    Request(u64),
    /// `"end"`: after `game_end` was sent.
    End,
}

impl<'de> Deserialize<'de> for StderrAt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match &v {
            Value::String(s) if s == "start" => Ok(StderrAt::Start),
            Value::String(s) if s == "end" => Ok(StderrAt::End),
            Value::Number(n) if n.as_u64().is_some_and(|n| n >= 1) => {
                Ok(StderrAt::Request(n.as_u64().expect("checked")))
            }
            _ => Err(serde::de::Error::custom(format!(
                "\"at\" is \"start\", \"end\" or a request id (1, 2, ...), not {v}"
            ))),
        }
    }
}

/// One line after the header.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// An event of the game; `to` is `None` for a public event, else the one seat that saw it.
    Event { to: Option<Seat>, event: Value },
    /// The referee asked `seat` for a decision.
    Request {
        id: u64,
        seat: Seat,
        decision: String,
        #[serde(default)]
        time: Option<RequestTime>,
        legal: Value,
    },
    /// A move applied: chosen by the bot, or `forced` (R-1, played by the referee).
    Move {
        seat: Seat,
        forced: bool,
        #[serde(default)]
        id: Option<u64>,
        #[serde(default)]
        elapsed_ms: Option<f64>,
        /// The time charged and the accounting behind it (docs/PROTOCOL.md, "Time limits"),
        /// when the referee read it; absent in older replays.
        #[serde(default)]
        own_ms: Option<f64>,
        #[serde(default)]
        cpu_ms: Option<f64>,
        #[serde(default)]
        wait_ms: Option<f64>,
        #[serde(rename = "move")]
        mv: Value,
    },
    /// A refused answer: the raw line and why it was refused.
    Answer {
        id: u64,
        seat: Seat,
        #[serde(default)]
        elapsed_ms: Option<f64>,
        line: String,
        refused: String,
    },
    /// A fault: the seat loses the game.
    Fault(FaultRecord),
    /// What a bot wrote on stderr during the game (capped per game), and where in the game it
    /// arrived (`at`; absent in older replays, which hold a process's whole stderr at the end).
    Stderr {
        seat: Seat,
        #[serde(default)]
        at: Option<StderrAt>,
        #[serde(default)]
        text: String,
        /// Bytes that arrived there beyond the game's cap, left out.
        #[serde(default)]
        dropped: u64,
        /// Lines of this game the referee had written to the seat when the text arrived
        /// (absent in older replays: they are placed by `at`).
        #[serde(default)]
        sent: Option<u64>,
    },
    /// How the game ended.
    Result(ResultRecord),
}

impl Record {
    /// The line's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Record::Event { .. } => "event",
            Record::Request { .. } => "request",
            Record::Move { .. } => "move",
            Record::Answer { .. } => "answer",
            Record::Fault(_) => "fault",
            Record::Stderr { .. } => "stderr",
            Record::Result(_) => "result",
        }
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

const LINE_TYPES: [&str; 8] = [
    "header", "event", "request", "move", "answer", "fault", "stderr", "result",
];

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
        let cut = number == last && !ends_with_newline;
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t.trim_end_matches('\r'),
            Err(e) if header.is_none() => {
                return Err(err(
                    ErrorKind::NotReplay,
                    Some(number),
                    format!(
                        "not a durak replay: the first line is not text (bad byte at offset {})",
                        e.valid_up_to()
                    ),
                ))
            }
            Err(e) => {
                return Err(err(
                    ErrorKind::InvalidLine,
                    Some(number),
                    format!(
                        "the line is not UTF-8 text (bad byte at offset {})",
                        e.valid_up_to()
                    ),
                ))
            }
        };
        if text.trim().is_empty() {
            if header.is_none() {
                return Err(err(
                    ErrorKind::NotReplay,
                    Some(number),
                    "not a durak replay: the first line is empty; a replay starts with its header line"
                        .into(),
                ));
            }
            continue;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) if cut && (e.is_eof() || header.is_some()) => {
                return Err(err(
                    ErrorKind::TruncatedLine,
                    Some(number),
                    format!(
                        "the file ends in the middle of this line (truncated replay?): {}; \
                         the line begins {:?}",
                        syntax(&e),
                        shorten(text, 60)
                    ),
                ))
            }
            Err(e) if header.is_none() => {
                return Err(err(
                    ErrorKind::NotReplay,
                    Some(number),
                    format!(
                        "not a durak replay: the first line is not JSON ({}); it begins {:?}",
                        syntax(&e),
                        shorten(text, 60)
                    ),
                ))
            }
            Err(e) => {
                return Err(err(
                    ErrorKind::InvalidLine,
                    Some(number),
                    format!(
                        "the line is not valid JSON ({}); it begins {:?}",
                        syntax(&e),
                        shorten(text, 60)
                    ),
                ))
            }
        };
        let ty_owned = value
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_string);
        let ty = ty_owned.as_deref();
        match &header {
            None => {
                if ty != Some("header") {
                    let what = match ty {
                        Some(t) => format!("a line of type {t:?}"),
                        None if value.is_object() => "a JSON object without a \"type\"".into(),
                        None => format!("a JSON {}", json_kind(&value)),
                    };
                    return Err(err(
                        ErrorKind::NotReplay,
                        Some(number),
                        format!(
                            "not a durak replay: the first line must be the header \
                             ({{\"type\":\"header\",\"format\":{FORMAT},...}}); it is {what}"
                        ),
                    ));
                }
                header = Some(parse_header(&value, source, number)?);
            }
            Some(_) => {
                match ty {
                    Some("header") => {
                        return Err(err(
                            ErrorKind::InvalidLine,
                            Some(number),
                            "a second header: a replay holds one game with one header".into(),
                        ))
                    }
                    Some(t) if LINE_TYPES.contains(&t) => {}
                    Some(t) => {
                        return Err(err(
                            ErrorKind::InvalidLine,
                            Some(number),
                            format!(
                                "unknown line type {t:?} (the types are {})",
                                LINE_TYPES.join(", ")
                            ),
                        ))
                    }
                    None => {
                        return Err(err(
                            ErrorKind::InvalidLine,
                            Some(number),
                            "the line has no \"type\"".into(),
                        ))
                    }
                }
                let record: Record = serde_json::from_value(value).map_err(|e| {
                    err(
                        ErrorKind::InvalidLine,
                        Some(number),
                        format!("invalid {} line: {e}", ty.unwrap_or_default()),
                    )
                })?;
                lines.push(Line { number, record });
            }
        }
    }
    let header = header.expect("a non-empty file has a first line");
    Ok(Replay {
        source: source.to_string(),
        header,
        lines,
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
    let raw: RawHeader = serde_json::from_value(value.clone())
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
        games: raw.games,
        deck,
        seats: raw.seats,
    })
}
