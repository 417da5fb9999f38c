//! A game posted by a remote worker, checked before it is recorded: its replay must verify (as
//! `durak replay --verify` does: `durak_replay::simulate` deals the game again from the seed
//! and replays every logged answer with the rules engine), and it must be *this job's game*:
//! the ladder's variant, the job's table size, the job's seed for that deal, the job's seats
//! in one of their rotations (the version id at each seat) with the dealer that makes it that
//! rotation's game (`Job::planned_at`), the ladder's time limits at
//! every seat and move limit, a complete game; and the result the worker posted beside it must
//! be the replay's. A replay that does not verify is refused with 422, one that verifies but
//! is another game with 409; either way the message names what differs.
//!
//! What this cannot see: how the bots were run. A worker could run another program in a
//! bot's seat, or write a fault (a timeout, a crash) that did not happen: the replay would
//! still verify. docs/SERVICE.md says so.

use super::jobs::Job;
use super::recorder::GameIn;
use crate::config::LadderConfig;
use durak_protocol::replay::ResultRecord;
use durak_protocol::{Fault, FaultKind};
use durak_referee::driver::DEFAULT_MAX_MOVES;
use durak_referee::GameRecord;
use durak_replay::read::Record;
use durak_replay::{Header, Replay};
use serde::Deserialize;

/// Why a posted game is refused: the HTTP status (409, 422) and what differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

fn unprocessable(message: String) -> Refusal {
    Refusal {
        status: 422,
        message,
    }
}

/// The result a worker posts beside a replay (checked against the replay's own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct PostedResult {
    pub loser: Option<usize>,
    pub draw: bool,
    pub moves: u32,
}

/// The most a posted replay may unpack to (a game's replay is tens of KB; a zstd frame that
/// unpacks to more is refused as it is read, not allocated).
pub const MAX_REPLAY_BYTES: u64 = 64 << 20;

/// Check game `game` of `job` as posted (`replay`: the replay file's bytes, plain or zstd)
/// and make it a game to record, played by `played_by`, its replay compressed (as posted, or
/// compressed here when it came plain or packed larger than its lines).
pub fn check_game(
    cfg: &LadderConfig,
    job: &Job,
    game: u32,
    replay: Vec<u8>,
    posted: Option<&PostedResult>,
    played_by: &str,
) -> Result<GameIn, Refusal> {
    let what = format!("job {} game {game}", job.id);
    if game as usize >= job.games() {
        return Err(unprocessable(format!(
            "{what}: job {} has games 0 to {}",
            job.id,
            job.games().saturating_sub(1)
        )));
    }
    let (rotation, deal) = job.split(game);
    let (bytes, parsed) = read_verified(&what, &replay)?;
    let h = &parsed.header;
    let (seating, dealer) = seated_as(job, rotation, deal, h);
    let mut differs = header_differs(cfg, job, deal, (&seating, dealer), h, &bytes);
    let Some(result) = result_of(&parsed) else {
        return Err(unprocessable(format!(
            "{what}: the replay has no result line: the game is not complete"
        )));
    };
    if let Some(m) = result.move_limit.filter(|&m| m != DEFAULT_MAX_MOVES) {
        differs.push(format!(
            "the move limit it ended at: {DEFAULT_MAX_MOVES} in the job, {m} in the replay"
        ));
    }
    if !differs.is_empty() {
        return Err(Refusal {
            status: 409,
            message: format!(
                "{what}: the replay verifies but is not this job's game: {}",
                differs.join("; ")
            ),
        });
    }
    check_posted(&what, posted, &result)?;
    let faults = faults_of(&what, &result)?;
    let stored = stored_replay(&what, replay, &bytes)?;
    Ok(GameIn {
        job: job.id,
        game,
        rotation,
        deal,
        seats: seating,
        record: GameRecord {
            voided: result.voided.clone(),
            void: result.void,
            move_limit: result.move_limit,
            game: deal as u32,
            seed: h.seed,
            dealer: h.dealer,
            loser: result.loser,
            draw: result.draw,
            faults,
            moves: result.moves,
            replay: None,
            duration_ms: result.duration_ms.unwrap_or(0),
        },
        replay: stored,
        played_by: played_by.to_string(),
    })
}

/// The posted bytes unpacked and read as a replay that verifies (422 otherwise).
fn read_verified(what: &str, replay: &[u8]) -> Result<(Vec<u8>, Replay), Refusal> {
    let bytes =
        durak_referee::replay::decode_replay_bytes_limited(replay.to_vec(), MAX_REPLAY_BYTES)
            .map_err(|e| {
                unprocessable(format!("{what}: the replay cannot be decompressed: {e}"))
            })?;
    let parsed = durak_replay::parse_replay(&bytes, what)
        .map_err(|e| unprocessable(format!("{what}: not a replay the server can read: {e}")))?;
    let sim = durak_replay::simulate(&parsed);
    if let Some(d) = &sim.divergence {
        return Err(unprocessable(format!(
            "{what}: the replay does not verify (as `durak replay --verify` checks it): {d}"
        )));
    }
    Ok((bytes, parsed))
}

/// The game it claims to be, at the seating it was played at: the rotation's own, or the
/// table's that played the job's every rotation over the same processes (`Job::planned_at`:
/// the same game with the dealer moved round the table). The seating and the dealer.
fn seated_as(job: &Job, rotation: usize, deal: usize, h: &Header) -> (Vec<i64>, usize) {
    let seated: Vec<i64> = (0..h.seats.len())
        .map(|s| {
            let x = h.seats.iter().find(|x| x.seat == s);
            x.and_then(|x| x.name.parse().ok()).unwrap_or(-1)
        })
        .collect();
    let at = job.rotation_seated(&seated).unwrap_or(rotation);
    let dealer = job
        .planned_at(rotation, deal, at)
        .dealer
        .expect("a job's games have their dealer");
    (job.seating(at), dealer)
}

/// What in the replay's header is not the job's game: "FIELD: X in the job, Y in the replay".
fn header_differs(
    cfg: &LadderConfig,
    job: &Job,
    deal: usize,
    (seating, dealer): (&[i64], usize),
    h: &Header,
    bytes: &[u8],
) -> Vec<String> {
    let mut differs: Vec<String> = Vec::new();
    let mut field = |name: &str, job_has: String, replay_has: String| {
        if job_has != replay_has {
            differs.push(format!(
                "{name}: {job_has} in the job, {replay_has} in the replay"
            ));
        }
    };
    let d = job.deals[deal];
    field(
        "variant",
        cfg.variant.name().to_string(),
        h.variant.name().to_string(),
    );
    field("players", seating.len().to_string(), h.players.to_string());
    field("seed", d.seed.to_string(), h.seed.to_string());
    field("dealer", dealer.to_string(), h.dealer.to_string());
    field(
        "game (the deal's index)",
        deal.to_string(),
        h.game.to_string(),
    );
    field("first_game", "true".into(), h.first_game.to_string());
    for (s, v) in seating.iter().enumerate() {
        let seat = h.seats.iter().find(|x| x.seat == s);
        field(
            &format!("seat {s}"),
            format!("version {v}"),
            seat.map_or("nobody".into(), |x| format!("version {}", x.name)),
        );
        let l = seat.and_then(|x| x.limits.clone()).unwrap_or_default();
        let want = &cfg.limits;
        field(
            &format!("seat {s}'s time limits"),
            format!(
                "startup {} ms, move {} ms, bank {} ms, lines of {} bytes",
                want.startup_ms, want.move_ms, want.bank_ms, want.max_line_bytes
            ),
            format!(
                "startup {} ms, move {} ms, bank {} ms, lines of {} bytes",
                l.startup_ms, l.move_ms, l.bank_ms, l.max_line_bytes
            ),
        );
    }
    if h.seats.len() != seating.len() {
        field(
            "seats",
            seating.len().to_string(),
            h.seats.len().to_string(),
        );
    }
    let max_moves = first_line_field(bytes, "max_moves");
    field(
        "max_moves",
        DEFAULT_MAX_MOVES.to_string(),
        max_moves.map_or("none".into(), |m| m.to_string()),
    );
    differs
}

/// The replay's result line (the last), if it has one.
fn result_of(parsed: &Replay) -> Option<ResultRecord> {
    parsed.lines.iter().rev().find_map(|l| match &l.record {
        Record::Result(r) => Some(r.clone()),
        _ => None,
    })
}

/// The result the worker posted beside the replay, if any, must be the replay's (422).
fn check_posted(
    what: &str,
    posted: Option<&PostedResult>,
    result: &ResultRecord,
) -> Result<(), Refusal> {
    let Some(p) = posted else { return Ok(()) };
    let mine = PostedResult {
        loser: result.loser,
        draw: result.draw,
        moves: result.moves,
    };
    if *p != mine {
        return Err(unprocessable(format!(
            "{what}: the result posted ({}) is not the replay's ({})",
            words(p),
            words(&mine)
        )));
    }
    Ok(())
}

/// The result's faults, each of a kind this server knows (422 otherwise).
fn faults_of(what: &str, result: &ResultRecord) -> Result<Vec<Fault>, Refusal> {
    let mut faults = Vec::new();
    for f in &result.faults {
        let kind: FaultKind = serde_json::from_value(serde_json::Value::String(f.kind.clone()))
            .map_err(|_| {
                unprocessable(format!(
                    "{what}: the replay's result has a fault of kind {:?}, which this server \
                     does not know",
                    f.kind
                ))
            })?;
        faults.push(Fault {
            seat: f.seat,
            kind,
            detail: f.detail.clone(),
            rule: f.rule.clone(),
        });
    }
    Ok(faults)
}

/// The replay as it is kept: as posted when it came compressed no larger than its lines, else
/// compressed here (503 when that fails).
fn stored_replay(what: &str, replay: Vec<u8>, bytes: &[u8]) -> Result<Vec<u8>, Refusal> {
    let packed = replay.starts_with(&durak_referee::replay::ZSTD_MAGIC);
    if packed && replay.len() <= bytes.len() {
        return Ok(replay);
    }
    durak_referee::replay::compress_replay(bytes).map_err(|e| Refusal {
        status: 503,
        message: format!("{what}: the server could not compress the replay ({e})"),
    })
}

fn words(r: &PostedResult) -> String {
    let who = match (r.loser, r.draw) {
        (_, true) => "a draw".to_string(),
        (Some(l), false) => format!("seat {l} lost"),
        (None, false) => "no loser".to_string(),
    };
    format!("{who}, {} moves", r.moves)
}

/// A number field of the replay's first line (the header), if it has it.
fn first_line_field(bytes: &[u8], name: &str) -> Option<u64> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    let v: serde_json::Value = serde_json::from_slice(first).ok()?;
    v.get(name)?.as_u64()
}
