//! The match driver: plays a series (C-10) between bot processes, enforcing every rule through
//! the engine, timing every decision, turning any misbehaviour into a named fault, and recording
//! a replay per game.

use crate::clock::DecisionTime;
use crate::isolation::Context;
use crate::process::{describe_exit, BotCommand, BotProcess, IoFault, SpawnOptions};
use crate::replay::{replay_path, ReplayLog};
use crate::stderr::StderrAt;
use durak_protocol::replay::{Clock, FaultRecord, HeaderLine, Record, ResultRecord, SeatHeader};
use durak_protocol::{self as proto, Fault, FaultKind, Limits, MessageKinds};
use durak_rules::{Audience, Event, Game, Legal, Move, Outcome, Seat, Series, Setup, Variant};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod faults;
mod game;
use faults::io_fault;
use game::play_game;

/// One seat of a match.
#[derive(Clone, Debug)]
pub struct SeatSpec {
    /// The name shown in results (defaults to the command).
    pub name: String,
    pub command: BotCommand,
    pub limits: Limits,
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub variant: Variant,
    pub seats: Vec<SeatSpec>,
    pub games: u32,
    /// The series seed (C-10): first dealer and every deck derive from it.
    pub seed: u64,
    pub replay_dir: Option<PathBuf>,
    /// Replay file names: `{prefix}{game:04}.jsonl` (`.jsonl.zst` with `compress_replays`).
    pub replay_prefix: String,
    /// Write replays compressed with zstd (`.jsonl.zst`; see [`crate::replay`]).
    pub compress_replays: bool,
    /// Bytes of stderr kept per bot per game (the rest is counted as dropped in the replay).
    pub stderr_cap: usize,
    /// Seats that forfeit every game without being started (a disqualified bot).
    pub forfeit: Vec<bool>,
    /// Play these games instead of games `0..games` of the series (used by tournaments:
    /// duplicate deals, and resuming a table part-way). `games` stays the match's announced size.
    pub plan: Option<Vec<PlannedGame>>,
    /// A game still going after this many moves (chosen and forced) ends as a draw, recorded
    /// as `move_limit` in the replay's result and the record. No rule ends a game that goes
    /// round in circles (deterministic bots can), so the referee must.
    pub max_moves: u32,
    /// Paths no bot of the match may see in strict mode, besides the replay directory and the
    /// directory around it: for a tournament, its configuration file, its directory and every
    /// bot's files (a bot's own stay visible to it).
    pub hidden: Vec<PathBuf>,
    /// The first moves of every game, played as given (`durak fork`: a recorded game's moves up
    /// to a step, then live play). The bots are asked as usual at these decisions (each reads
    /// the lines it read in the recorded game, and its answer is timed and judged), but the
    /// given move is applied; a given move the engine refuses ends the match with an error.
    pub opening: Vec<Move>,
}

/// How many times a game is voided (a bot starved by the machine) and played again, at most: a
/// machine that starves bots that often is not fit to judge, and the match must end.
pub const MAX_VOIDED: usize = 3;

/// The default [`MatchConfig::max_moves`]: far above any real game (random play averages under
/// 100 moves in 2-player podkidnoy, a few hundred at six players).
pub const DEFAULT_MAX_MOVES: u32 = 2000;

/// One game of a planned match: its stable index (sent in `game_start`, used in the replay name),
/// its deck seed, its dealer and whether it is the first game of a series (K-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedGame {
    pub index: u32,
    /// The deck seed (`Game::new(setup, seed)`).
    pub seed: u64,
    /// The dealer; `None`: as the series says (C-10: the previous game's loser deals, the dealer
    /// stays after a draw).
    pub dealer: Option<Seat>,
    pub first_game: bool,
}

impl MatchConfig {
    pub fn new(variant: Variant, seats: Vec<SeatSpec>, games: u32, seed: u64) -> MatchConfig {
        let n = seats.len();
        MatchConfig {
            variant,
            seats,
            games,
            seed,
            replay_dir: None,
            replay_prefix: "game-".into(),
            compress_replays: false,
            stderr_cap: 64 * 1024,
            forfeit: vec![false; n],
            plan: None,
            max_moves: DEFAULT_MAX_MOVES,
            hidden: Vec::new(),
            opening: Vec::new(),
        }
    }
}

/// What happened in one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Why attempts at this game were voided and the game played again (a bot starved by the
    /// machine past [`crate::clock::HARD_CAP`] times its limit), oldest first. After
    /// [`MAX_VOIDED`] of them the game is not played again: it is [`GameRecord::void`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<String>,
    /// The game was given up after [`MAX_VOIDED`] voided attempts: it counts for nobody (no
    /// loser, no draw), and `voided` says why. Its replay is the last attempt's, which stops
    /// at the starved request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub void: bool,
    /// Set when the game was ended as a draw by [`MatchConfig::max_moves`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_limit: Option<u32>,
    pub game: u32,
    /// The deck seed.
    pub seed: u64,
    pub dealer: Seat,
    pub loser: Option<Seat>,
    pub draw: bool,
    pub faults: Vec<Fault>,
    pub moves: u32,
    pub replay: Option<PathBuf>,
    pub duration_ms: u64,
}

/// A seat as it played: its command and what the bot said in its hello.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeatInfo {
    pub name: String,
    pub command: String,
    pub bot_name: Option<String>,
    pub bot_version: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    pub variant: String,
    pub seed: u64,
    pub seats: Vec<SeatInfo>,
    pub games: Vec<GameRecord>,
}

/// A replay line as the driver writes it: the engine's event, legal choices and move
/// serialized straight from engine values (`proto::replay::Record`, the type every reader
/// reads it with).
type ReplayLine<'a> = Record<proto::EventSer<'a>, proto::LegalSer<'a>, proto::MoveSer<'a>>;

/// A decision's clock in a replay line beside `elapsed_ms` (the wall time; see
/// [`crate::clock`]), in milliseconds rounded to the microsecond: `own_ms` the time charged,
/// `cpu_ms` and `wait_ms` the CPU time and run-queue wait of the bot's tasks, when they were read
/// (a decision past `clock::FIRST_SAMPLE`).
fn replay_clock(t: &DecisionTime) -> Clock {
    Clock {
        // Only when it differs from the wall time (an accounted decision).
        own_ms: t.cpu.map(|_| ms(t.own)),
        cpu_ms: t.cpu.map(ms),
        wait_ms: t.wait.map(ms),
    }
}

/// Milliseconds rounded to the microsecond.
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1000.0
}

struct Live {
    proc: BotProcess,
    /// Games this process has finished (it read their game_end).
    games_done: u32,
    /// It sent a line in the current game.
    answered: bool,
    /// Bytes written to its stdin up to the end of the previous game's `game_end`.
    end_offset: u64,
    kinds: Kinds,
}

/// The kinds of message a bot process was sent (`proto::MessageKinds`).
#[derive(Clone, Copy, Debug, Default)]
struct Kinds {
    /// Kinds it read and lived on: an answer came after them.
    read: MessageKinds,
    /// Kinds sent since its last answer.
    unread: MessageKinds,
}

impl Kinds {
    /// It answered: it read everything sent before.
    fn answered(&mut self) {
        self.read.insert(self.unread);
        self.unread = MessageKinds::EMPTY;
    }

    /// Kinds sent since its last answer that it never read before.
    fn new_ones(&self) -> MessageKinds {
        self.unread.minus(self.read)
    }

    /// The kinds in `kinds`, in words: "a game_over event".
    fn describe(kinds: MessageKinds) -> String {
        let mut names: Vec<String> = kinds.events().map(|e| format!("{e:?}")).collect();
        let events = match names.len() {
            0 => None,
            1 => Some(format!("a {} event", names.remove(0))),
            _ => Some(format!("events of kind {}", names.join(", "))),
        };
        events
            .into_iter()
            .chain(
                kinds
                    .contains(MessageKinds::GAME_START)
                    .then(|| "a game_start".to_string()),
            )
            .chain(
                kinds
                    .contains(MessageKinds::REQUEST)
                    .then(|| "a request".to_string()),
            )
            .collect::<Vec<_>>()
            .join(" and ")
    }
}

/// How long the referee waits, at the end of a game, for a bot to read this game's last events
/// when they hold a kind of message its process never read before (see [`settle_tails`]).
const SETTLE_MS: (u64, u64) = (50, 2000);

struct SeatState {
    live: Option<Live>,
    info: SeatInfo,
    /// A fault found only after its game was over (a supervisor killed after the referee's
    /// check at the game's end): charged in the next game.
    pending: Option<String>,
}

/// Start a bot and do the handshake.
async fn start_bot(
    cfg: &MatchConfig,
    seat: Seat,
) -> Result<(BotProcess, proto::BotHello), (Fault, Option<BotProcess>)> {
    let spec = &cfg.seats[seat];
    let (variant, players, games) = (cfg.variant, cfg.seats.len(), cfg.games);
    let replay_dir = cfg.replay_dir.as_deref();
    let limits = spec.limits;
    // The bot must not see where replays go (nor the directory around them: a tournament's).
    let hidden = replay_dir
        .into_iter()
        .flat_map(|d| [Some(d.to_path_buf()), d.parent().map(|p| p.to_path_buf())])
        .flatten()
        .filter(|p| !p.as_os_str().is_empty())
        .chain(cfg.hidden.iter().cloned())
        .collect();
    let opts = SpawnOptions {
        max_line: limits.max_line_bytes,
        stderr_cap: cfg.stderr_cap,
        context: Context { games, hidden },
    };
    let mut proc = match BotProcess::spawn_with(&spec.command, &opts) {
        Ok(p) => p,
        Err(e) => {
            return Err((
                Fault {
                    seat,
                    kind: FaultKind::StartFailed,
                    detail: format!("cannot start {:?}: {e}", spec.command.spec),
                    rule: None,
                },
                None,
            ))
        }
    };
    let startup = Duration::from_millis(limits.startup_ms);
    let hello = proto::hello(variant, players, seat, games, &limits);
    // A bot that ends (or closes its output) before its hello did not start: `start_failed`,
    // which disqualifies it from a tournament at once (it would fail the same way every game).
    let before_hello = |f: Fault| match f.kind {
        FaultKind::Crash | FaultKind::Closed => Fault {
            kind: FaultKind::StartFailed,
            detail: format!("it ended before its hello: {}", f.detail),
            ..f
        },
        _ => f,
    };
    if let Err(f) = proc.send(&hello, startup).await {
        let f = before_hello(io_fault(seat, f, "hello", limits.startup_ms, 0));
        return Err((f, Some(proc)));
    }
    let line = match proc.recv(startup).await {
        Ok((line, _)) => line,
        Err(f) => {
            let f = before_hello(io_fault(seat, f, "hello at start-up", limits.startup_ms, 0));
            return Err((f, Some(proc)));
        }
    };
    let v = match proto::parse_line(&line) {
        Ok(v) => v,
        Err(r) => return Err((r.fault(seat), Some(proc))),
    };
    match proto::parse_bot_hello(&v) {
        Ok(h) => Ok((proc, h)),
        Err(r) => {
            let mut f = r.fault(seat);
            f.detail = format!("bad hello: {}", f.detail);
            if r.pointer.as_deref() == Some("/protocol") {
                f.kind = FaultKind::StartFailed;
            }
            let _ = proc
                .send(
                    &proto::error(None, f.kind, None, r.pointer.as_deref(), &f.detail),
                    Duration::from_millis(200),
                )
                .await;
            Err((f, Some(proc)))
        }
    }
}

/// Play a whole match. `on_game` is called after each game (its replay is on disk by then).
pub async fn play_match(
    cfg: &MatchConfig,
    on_game: impl FnMut(&GameRecord),
) -> std::io::Result<MatchResult> {
    play_match_with(cfg, |_, _| Vec::new(), on_game).await
}

/// [`play_match`] for tournaments, in two steps per game:
///
/// - `on_end` as soon as a game ends, with its replay (when [`MatchConfig::replay_dir`] is set)
///   not yet written. It returns the seats to disqualify, which from the next game on forfeit
///   without being started (their running process is stopped). It may take the replay to write
///   it itself (to `GameRecord::replay`); then `on_saved` is called at once.
/// - `on_saved` once the game's replay is on disk (fsynced), in game order.
///
/// Writing and fsyncing a replay overlaps the next game: a table never waits for the disk
/// between games, only at its end (and if the disk falls a whole game behind).
pub async fn play_match_with(
    cfg: &MatchConfig,
    on_end: impl FnMut(&GameRecord, &mut Option<ReplayLog>) -> Vec<Seat>,
    mut on_saved: impl FnMut(&GameRecord),
) -> std::io::Result<MatchResult> {
    let plan: Vec<Option<PlannedGame>> = match &cfg.plan {
        Some(p) => p.iter().copied().map(Some).collect(),
        None => (0..cfg.games).map(|_| None).collect(),
    };
    let mut games = Vec::new();
    let seats = play_planned(cfg, plan, on_end, |record| {
        on_saved(&record);
        games.push(record);
    })
    .await?;
    Ok(MatchResult {
        variant: cfg.variant.name().to_string(),
        seed: cfg.seed,
        seats,
        games,
    })
}

/// [`play_match_with`] over games given one at a time (`None`: the series' next game), instead
/// of [`MatchConfig::plan`], keeping nothing per game: a tournament's table computes its games
/// on demand and may stop early (the iterator ends), and a match of a million games takes no
/// more memory than one of ten. Each game's record goes to `on_saved` once its replay is on
/// disk; the seats are returned at the end.
pub async fn play_planned(
    cfg: &MatchConfig,
    plan: impl IntoIterator<Item = Option<PlannedGame>>,
    mut on_end: impl FnMut(&GameRecord, &mut Option<ReplayLog>) -> Vec<Seat>,
    mut on_saved: impl FnMut(GameRecord),
) -> std::io::Result<Vec<SeatInfo>> {
    // The seats' forfeit flags change as seats are disqualified during the match.
    let mut owned = cfg.clone();
    owned.forfeit.resize(cfg.seats.len(), false);
    let n = cfg.seats.len();
    let mut series = Series::new(cfg.variant, n, cfg.seed)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut seats: Vec<SeatState> = cfg
        .seats
        .iter()
        .map(|s| SeatState {
            pending: None,
            live: None,
            info: SeatInfo {
                name: s.name.clone(),
                command: s.command.spec.clone(),
                bot_name: None,
                bot_version: None,
            },
        })
        .collect();
    // The previous game, its replay being written.
    let mut pending: Option<(PendingWrite, GameRecord)> = None;
    let mut dealer = series.dealer();
    for (i, planned) in plan.into_iter().enumerate() {
        let index = planned.map_or(i as u32, |p| p.index);
        let deal = match planned {
            Some(p) => {
                let setup = Setup {
                    variant: cfg.variant,
                    players: n,
                    dealer: p.dealer.unwrap_or(dealer),
                    first_game: p.first_game,
                };
                (setup, p.seed)
            }
            None => (series.next_setup(), series.next_seed()),
        };
        // A game voided (a bot starved by the machine) is played again with the same deal.
        let mut voided = Vec::new();
        let (record, mut log) = loop {
            let (mut record, log) =
                play_game(&owned, &mut series, &mut seats, index, Some(deal)).await?;
            if record.voided.is_empty() {
                record.voided = voided;
                break (record, log);
            }
            voided.append(&mut record.voided);
            if voided.len() >= MAX_VOIDED {
                // Given up: the game is void, it counts for nobody (the series goes on as if
                // it had not been played).
                record.voided = voided;
                break (record, log);
            }
        };
        if !record.voided.is_empty() {
            if let Some(log) = log.as_mut() {
                log.note_voided(&record.voided);
            }
        }
        dealer = record.loser.unwrap_or(record.dealer);
        for seat in on_end(&record, &mut log) {
            if seat < n && !owned.forfeit[seat] {
                owned.forfeit[seat] = true;
                if let Some(mut live) = seats[seat].live.take() {
                    live.proc.kill().await;
                }
            }
        }
        // Writing and fsyncing blocks: off the async worker, while the next game is played.
        let write = log
            .zip(record.replay.clone())
            .map(|(log, path)| tokio::task::spawn_blocking(move || log.write_atomic(&path)));
        let previous = pending.replace((write, record));
        settle(previous, &mut on_saved).await?;
    }
    settle(pending, &mut on_saved).await?;
    let losses = series.losses().to_vec();
    for (i, s) in seats.iter_mut().enumerate() {
        if let Some(mut live) = s.live.take() {
            let _ = live
                .proc
                .send(
                    &proto::match_end(cfg.games, &losses, series.draws()),
                    Duration::from_millis(200),
                )
                .await;
            // Give a well-behaved bot a moment to exit on its own, then kill the group; the
            // human seat, a move's time (the person looks at the last game's end first).
            let grace = match live.proc.is_human() {
                true => Duration::from_millis(cfg.seats[i].limits.move_ms.max(100)),
                false => Duration::from_millis(100),
            };
            let _ = tokio::time::timeout(grace, async {
                while live.proc.try_exit().is_none() {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
            .await;
            live.proc.kill().await;
        }
    }
    Ok(seats.into_iter().map(|s| s.info).collect())
}

/// A replay being written (`None`: the match keeps no replays).
type PendingWrite = Option<tokio::task::JoinHandle<std::io::Result<()>>>;

/// Wait for a game's replay to be on disk, then hand the game on.
async fn settle(
    game: Option<(PendingWrite, GameRecord)>,
    on_saved: &mut impl FnMut(GameRecord),
) -> std::io::Result<()> {
    let Some((write, record)) = game else {
        return Ok(());
    };
    if let Some(h) = write {
        h.await.map_err(std::io::Error::other)??;
    }
    on_saved(record);
    Ok(())
}
