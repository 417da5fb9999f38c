//! The match driver: plays a series (C-10) between bot processes, enforcing every rule through
//! the engine, timing every decision, turning any misbehaviour into a named fault, and recording
//! a replay per game.

use crate::isolation::Context;
use crate::process::{describe_exit, BotCommand, BotProcess, IoFault, SpawnOptions};
use crate::replay::{replay_path, ReplayLog, REPLAY_FORMAT};
use crate::stderr::{StderrAt, StderrChunk};
use durak_protocol::{self as proto, Fault, FaultKind, Limits, Refusal};
use durak_rules::{Audience, Event, Game, Legal, Move, Outcome, Seat, Series, Setup, Variant};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
}

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
        }
    }
}

/// What happened in one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
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

/// A replay `event` line.
#[derive(Serialize)]
struct ReplayEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    to: Option<Seat>,
    event: proto::EventSer<'a>,
}

/// A replay `request` line.
#[derive(Serialize)]
struct ReplayRequest<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: u64,
    seat: Seat,
    decision: &'static str,
    time: ReplayTime,
    legal: proto::LegalSer<'a>,
}

#[derive(Serialize)]
struct ReplayTime {
    move_ms: u64,
    bank_ms: u64,
}

/// A replay `move` line.
#[derive(Serialize)]
struct ReplayMove<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seat: Seat,
    forced: bool,
    id: Option<u64>,
    elapsed_ms: Option<f64>,
    #[serde(rename = "move")]
    mv: proto::MoveSer<'a>,
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

/// The kinds of message a bot process was sent, as bits: each event kind
/// (`proto::EVENT_KINDS`), then [`GAME_START`] and [`REQUEST`].
#[derive(Clone, Copy, Debug, Default)]
struct Kinds {
    /// Kinds it read and lived on: an answer came after them.
    read: u32,
    /// Kinds sent since its last answer.
    unread: u32,
}

const GAME_START: u32 = 1 << 16;
const REQUEST: u32 = 1 << 17;

impl Kinds {
    fn event(e: &durak_rules::EventKind) -> u32 {
        1 << proto::event_kind_index(e)
    }

    /// It answered: it read everything sent before.
    fn answered(&mut self) {
        self.read |= self.unread;
        self.unread = 0;
    }

    /// Kinds sent since its last answer that it never read before.
    fn new_ones(&self) -> u32 {
        self.unread & !self.read
    }

    /// The kinds in `bits`, in words: "a game_over event".
    fn describe(bits: u32) -> String {
        let mut names: Vec<String> = (0..16)
            .filter(|i| bits & (1 << i) != 0)
            .map(|i| format!("{:?}", proto::EVENT_KINDS[i]))
            .collect();
        let events = match names.len() {
            0 => None,
            1 => Some(format!("a {} event", names.remove(0))),
            _ => Some(format!("events of kind {}", names.join(", "))),
        };
        events
            .into_iter()
            .chain((bits & GAME_START != 0).then(|| "a game_start".to_string()))
            .chain((bits & REQUEST != 0).then(|| "a request".to_string()))
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

/// The detail of the fault of a bot that killed its supervisor.
const KILLED_ITS_SUPERVISOR: &str =
    "the bot killed its supervisor (the process that cleans up after it) and went on";

fn io_fault(seat: Seat, f: IoFault, what: &str, limit_ms: u64, bank_ms: u64) -> Fault {
    let (kind, detail) = match f {
        IoFault::Timeout => (
            FaultKind::Timeout,
            format!("no {what} within {limit_ms} ms + {bank_ms} ms bank"),
        ),
        IoFault::Crash(how) => (FaultKind::Crash, format!("the bot {how} ({what})")),
        IoFault::Memory(how) => (FaultKind::Memory, format!("the bot {how} ({what})")),
        IoFault::Closed => (
            FaultKind::Closed,
            format!("the bot closed its stdout while alive ({what})"),
        ),
        IoFault::LineTooLong => (
            FaultKind::LineTooLong,
            format!("the bot sent a line longer than the limit ({what})"),
        ),
        IoFault::Quit => (
            FaultKind::Crash,
            "the person quit (q at the prompt): the seat forfeits the game".to_string(),
        ),
    };
    Fault {
        seat,
        kind,
        detail,
        rule: None,
    }
}

fn refusal_fault(seat: Seat, r: &Refusal) -> Fault {
    Fault {
        seat,
        kind: r.kind,
        detail: r.message.clone(),
        rule: r.rule.map(str::to_string),
    }
}

/// Short text of a raw line for logs.
fn shown(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(&line[..line.len().min(4096)]).into_owned();
    if line.len() > 4096 {
        format!("{s}... ({} bytes)", line.len())
    } else {
        s
    }
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
        Err(r) => return Err((refusal_fault(seat, &r), Some(proc))),
    };
    match proto::parse_bot_hello(&v) {
        Ok(h) => Ok((proc, h)),
        Err(r) => {
            let mut f = refusal_fault(seat, &r);
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
        let deal = planned.map(|p| {
            let setup = Setup {
                variant: cfg.variant,
                players: n,
                dealer: p.dealer.unwrap_or(dealer),
                first_game: p.first_game,
            };
            (setup, p.seed)
        });
        let (record, mut log) = play_game(&owned, &mut series, &mut seats, index, deal).await?;
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

struct GameRun<'a> {
    cfg: &'a MatchConfig,
    index: u32,
    log: ReplayLog,
    faults: Vec<Fault>,
    /// The open request's id and, for a schema refusal, the JSON pointer: for the `error` line.
    error_context: (Option<u64>, Option<String>),
}

impl GameRun<'_> {
    /// Send events to the live bots that may see them, and log them.
    async fn broadcast(&mut self, seats: &mut [SeatState], events: &[Event]) {
        for e in events {
            let to = match e.to {
                Audience::All => None,
                Audience::Seat(s) => Some(s),
            };
            self.log.push(ReplayEvent {
                kind: "event",
                to,
                event: proto::EventSer(&e.kind),
            });
            let msg = proto::event(self.index, &e.kind);
            let kind = Kinds::event(&e.kind);
            for (seat, s) in seats.iter_mut().enumerate() {
                if !e.to.sees(seat) {
                    continue;
                }
                if let Some(live) = s.live.as_mut() {
                    let limit = Duration::from_millis(self.cfg.seats[seat].limits.move_ms.max(100));
                    live.kinds.unread |= kind;
                    if let Err(f) = live.proc.send_later(&msg, limit).await {
                        let limits = self.cfg.seats[seat].limits;
                        let f = io_fault(seat, f, "reading its input (events)", limits.move_ms, 0);
                        self.fault(seats, f).await;
                        return;
                    }
                }
            }
        }
    }

    async fn fault(&mut self, seats: &mut [SeatState], mut f: Fault) {
        let seat = f.seat;
        // A process that finished a game and died before saying anything in this one: if it
        // had read nothing of this game, it most likely exits on game_end; otherwise it died
        // reading this game's first messages (or deciding). Say which, rather than a bare crash.
        if let Some(live) = seats[seat].live.as_mut() {
            // Exited by itself with a status code (not killed by a signal: a CPU limit, a
            // segfault), in a game it said nothing in, after finishing one.
            let exited = f.kind == FaultKind::Crash
                && !live.proc.is_human()
                && live.proc.try_exit().is_some_and(|st| st.code().is_some());
            if exited && live.games_done > 0 && !live.answered {
                f.detail.push_str(&died_between_answers(
                    &live.proc,
                    live.end_offset,
                    self.index,
                ));
            }
        }
        self.log.push(
            json!({"type": "fault", "seat": seat, "kind": f.kind, "detail": f.detail,
                             "rule": f.rule}),
        );
        if let Some(live) = seats[seat].live.as_mut() {
            if !matches!(f.kind, FaultKind::Crash | FaultKind::Closed) {
                let _ = live
                    .proc
                    .send(
                        &proto::error(
                            self.error_context.0,
                            f.kind,
                            f.rule.as_deref(),
                            self.error_context.1.as_deref(),
                            &f.detail,
                        ),
                        Duration::from_millis(100),
                    )
                    .await;
            }
        }
        self.faults.push(f);
    }
}

async fn play_game(
    cfg: &MatchConfig,
    series: &mut Series,
    seats: &mut [SeatState],
    index: u32,
    deal: Option<(Setup, u64)>,
) -> std::io::Result<(GameRecord, Option<ReplayLog>)> {
    let started = Instant::now();
    let n = cfg.seats.len();
    let (setup, seed) = deal.unwrap_or_else(|| (series.next_setup(), series.next_seed()));
    let mut game = Game::new(setup, seed)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut run = GameRun {
        cfg,
        index,
        log: ReplayLog::default(),
        faults: Vec::new(),
        error_context: (None, None),
    };

    // Start (or restart) every bot that is not running; a bot that cannot start loses. A game
    // with a forfeit is not played: nobody else is started for it.
    let mut start_stderr = Vec::new();
    // Seats whose process was started (and sent its hello) for this game.
    let mut started_now = vec![false; n];
    let forfeits = (0..n).any(|seat| cfg.forfeit.get(seat).copied().unwrap_or(false));
    #[allow(clippy::needless_range_loop)] // seat numbers index cfg.seats, cfg.forfeit and seats
    for seat in 0..n {
        if cfg.forfeit.get(seat).copied().unwrap_or(false) {
            run.faults.push(Fault {
                seat,
                kind: FaultKind::Forfeit,
                detail: "disqualified earlier in the tournament; not started".into(),
                rule: None,
            });
            continue;
        }
        if let Some(detail) = seats[seat].pending.take() {
            run.faults.push(Fault {
                seat,
                kind: FaultKind::Crash,
                detail,
                rule: None,
            });
            continue;
        }
        if seats[seat].live.is_none() && !forfeits {
            match start_bot(cfg, seat).await {
                Ok((proc, hello)) => {
                    started_now[seat] = true;
                    seats[seat].info.bot_name = Some(hello.name);
                    seats[seat].info.bot_version = Some(hello.version);
                    seats[seat].live = Some(Live {
                        proc,
                        games_done: 0,
                        answered: false,
                        end_offset: 0,
                        kinds: Kinds::default(),
                    });
                }
                Err((mut f, proc)) => {
                    if let Some(mut p) = proc {
                        let dir = p.private_dir().map(|d| d.to_path_buf());
                        p.kill().await;
                        if f.kind == FaultKind::StartFailed {
                            explain_start_failure(&mut f, &p, dir);
                        }
                        start_stderr.extend(stderr_lines(seat, p.take_stderr().await));
                    }
                    run.faults.push(f);
                }
            }
        }
    }
    // What the bots kept from the previous game wrote since its end is this game's start.
    for s in seats.iter_mut() {
        if let Some(live) = &mut s.live {
            live.proc.new_game_stderr();
        }
    }

    let header = json!({
        "type": "header",
        "format": REPLAY_FORMAT,
        "referee": concat!("durak-referee ", env!("CARGO_PKG_VERSION")),
        "variant": cfg.variant.name(),
        "players": n,
        "series_seed": cfg.seed,
        "game": index,
        "seed": seed,
        "dealer": setup.dealer,
        "first_game": setup.first_game,
        "max_moves": cfg.max_moves,
        "games": cfg.games,
        "deck": game.deck().cards().iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        "seats": seats.iter().enumerate().map(|(i, s)| json!({
            "seat": i, "name": s.info.name, "command": s.info.command,
            "bot_name": s.info.bot_name, "bot_version": s.info.bot_version,
            "limits": cfg.seats[i].limits, "hello": started_now[i],
        })).collect::<Vec<_>>(),
    });
    run.log.push(header);
    for f in run.faults.clone() {
        run.log
            .push(json!({"type": "fault", "seat": f.seat, "kind": f.kind,
                            "detail": f.detail, "rule": f.rule}));
    }
    for line in start_stderr {
        run.log.push(line);
    }

    let mut outcome: Option<Outcome> = None;
    if proto::nobody_played(n, run.faults.iter().map(|f| f.seat)) {
        // No seat could play (each forfeited or failed to start): nobody wins, a draw, so that
        // bots that never play do not collect wins against each other.
        outcome = Some(Outcome { loser: None });
    } else if let Some(f) = run.faults.first() {
        outcome = Some(Outcome {
            loser: Some(f.seat),
        });
    } else {
        for (seat, s) in seats.iter_mut().enumerate() {
            let msg =
                proto::game_start(index, cfg.variant, n, seat, setup.dealer, setup.first_game);
            if let Some(live) = s.live.as_mut() {
                let limit = Duration::from_millis(cfg.seats[seat].limits.move_ms.max(100));
                live.kinds.unread |= GAME_START;
                if let Err(f) = live.proc.send_later(&msg, limit).await {
                    let limits = cfg.seats[seat].limits;
                    let f = io_fault(seat, f, "reading game_start", limits.move_ms, 0);
                    run.fault(seats, f).await;
                    break;
                }
            }
        }
        if run.faults.is_empty() {
            let start = game.start_events();
            run.broadcast(seats, &start).await;
        }
        if let Some(f) = run.faults.first() {
            outcome = Some(Outcome {
                loser: Some(f.seat),
            });
        }
    }

    let mut bank: Vec<u64> = cfg.seats.iter().map(|s| s.limits.bank_ms).collect();
    let mut request_id: u64 = 0;
    let mut legal = Legal::empty();
    let mut events = Vec::new();
    let mut move_limit = None;
    while outcome.is_none() {
        if !game.legal_into(&mut legal) {
            outcome = game.outcome();
            break;
        }
        if game.move_count() >= cfg.max_moves {
            move_limit = Some(cfg.max_moves);
            outcome = Some(Outcome { loser: None });
            break;
        }
        let seat = legal.decision.seat;
        events.clear();
        if let Some(mv) = legal.forced_move(cfg.variant) {
            game.apply_into(seat, &mv, &mut events)
                .expect("R-1 forced moves are legal");
            run.log.push(ReplayMove {
                kind: "move",
                seat,
                forced: true,
                id: None,
                elapsed_ms: None,
                mv: proto::MoveSer(&mv),
            });
        } else {
            request_id += 1;
            match ask(
                cfg, seats, &mut run, &game, &legal, seat, request_id, &mut bank,
            )
            .await
            {
                Ok((mv, elapsed_ms)) => {
                    game.apply_into(seat, &mv, &mut events).expect("checked");
                    run.log.push(ReplayMove {
                        kind: "move",
                        seat,
                        forced: false,
                        id: Some(request_id),
                        elapsed_ms: Some(elapsed_ms),
                        mv: proto::MoveSer(&mv),
                    });
                }
                Err(f) => {
                    run.fault(seats, f).await;
                }
            }
        }
        if run.faults.is_empty() {
            run.broadcast(seats, &events).await;
        }
        if let Some(f) = run.faults.first() {
            outcome = Some(Outcome {
                loser: Some(f.seat),
            });
        }
    }
    let mut outcome = outcome.expect("the loop ends with an outcome");
    // A bot that dies reading this game's last events dies in this game.
    if run.faults.is_empty() {
        settle_tails(cfg, seats, &mut run).await;
        if let Some(f) = run.faults.first() {
            outcome = Outcome {
                loser: Some(f.seat),
            };
        }
    }
    // A bot that killed its supervisor after its last answer (nothing would clean up after it
    // any more) is at fault in this game too, as it would have been at its next answer.
    if run.faults.is_empty() {
        for seat in 0..n {
            let killed = seats[seat]
                .live
                .as_mut()
                .is_some_and(|l| l.proc.supervisor_was_killed());
            if killed {
                let f = Fault {
                    seat,
                    kind: FaultKind::Crash,
                    detail: KILLED_ITS_SUPERVISOR.into(),
                    rule: None,
                };
                run.fault(seats, f).await;
            }
        }
        if let Some(f) = run.faults.first() {
            outcome = Outcome {
                loser: Some(f.seat),
            };
        }
    }

    // Game end: tell every live bot; faulting bots are killed and restarted next game.
    let faulted: Vec<Seat> = run.faults.iter().map(|f| f.seat).collect();
    for (seat, s) in seats.iter_mut().enumerate() {
        if let Some(live) = s.live.as_mut() {
            live.proc.mark_stderr(StderrAt::End).await;
            let end = proto::game_end(index, outcome, &run.faults);
            let ok = live
                .proc
                .send(&end, Duration::from_millis(200))
                .await
                .is_ok();
            let exited = live.proc.try_exit();
            if !ok || faulted.contains(&seat) || exited.is_some() {
                let mut live = s.live.take().expect("live");
                if !faulted.contains(&seat) && live.proc.supervisor_was_killed() {
                    // Killed after the check above, before game_end: the next game is charged.
                    s.pending = Some(format!(
                        "{KILLED_ITS_SUPERVISOR}, at the end of the previous game"
                    ));
                }
                if ok && exited.is_none() {
                    // Let a faulted bot read its error and game_end (and exit) before the kill.
                    let _ = tokio::time::timeout(Duration::from_millis(500), async {
                        while live.proc.try_exit().is_none() {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                    })
                    .await;
                }
                live.proc.kill().await;
                for line in stderr_lines(seat, live.proc.take_stderr().await) {
                    run.log.push(line);
                }
                if let (Some(st), false) = (exited, faulted.contains(&seat)) {
                    tracing::warn!(seat, "bot ended after game {index}: {}", describe_exit(st));
                    // Already gone at its game_end: the next game is charged, as when the
                    // exit is seen only at that game's first request (a matter of timing, so
                    // the same fault either way, never a silent restart).
                    if s.pending.is_none() && !live.proc.is_human() {
                        s.pending = Some(format!(
                            "the bot {}{}",
                            describe_exit(st),
                            died_between_answers(&live.proc, live.proc.bytes_written(), index + 1)
                        ));
                    }
                }
            } else {
                live.games_done += 1;
                live.answered = false;
                live.end_offset = live.proc.bytes_written();
                for line in stderr_lines(seat, live.proc.take_stderr().await) {
                    run.log.push(line);
                }
            }
        }
    }
    let duration_ms = started.elapsed().as_millis() as u64;
    let faults_json: Vec<Value> = run
        .faults
        .iter()
        .map(|f| json!({"seat": f.seat, "kind": f.kind, "detail": f.detail, "rule": f.rule}))
        .collect();
    let mut result = json!({"type": "result", "loser": outcome.loser, "draw": outcome.is_draw(),
                            "faults": faults_json, "moves": game.move_count(),
                            "duration_ms": duration_ms});
    if let Some(limit) = move_limit {
        result["move_limit"] = json!(limit);
    }
    run.log.push(result);
    // The replay is written by the caller (overlapping the next game).
    let replay = cfg
        .replay_dir
        .as_ref()
        .map(|dir| replay_path(dir, &cfg.replay_prefix, index, cfg.compress_replays));
    let log = replay.is_some().then(|| std::mem::take(&mut run.log));
    series.record(outcome);
    let record = GameRecord {
        move_limit,
        game: index,
        seed,
        dealer: setup.dealer,
        loser: outcome.loser,
        draw: outcome.is_draw(),
        faults: run.faults,
        moves: game.move_count(),
        replay,
        duration_ms,
    };
    Ok((record, log))
}

/// At the end of a game, before `game_end`: every bot that was sent, since its last answer, a kind
/// of message its process never read before (the first `game_over` event, for one) gets this
/// game's last events now, and a moment (see [`SETTLE_MS`]) to read them and go quiet
/// (`BotProcess::settle_input`). One that dies meanwhile is charged in this game, the game it
/// died in: a bot that crashes on an event it did not expect does so as it reads it. Once a
/// process has read a kind, nobody waits for it again, so a match waits once per process, not
/// once per game. (A bot that exits after `game_end` is not this: it is charged in the next game.)
async fn settle_tails(cfg: &MatchConfig, seats: &mut [SeatState], run: &mut GameRun<'_>) {
    for seat in 0..seats.len() {
        let Some(live) = seats[seat].live.as_mut() else {
            continue;
        };
        let new = live.kinds.new_ones();
        if new == 0 {
            continue;
        }
        let limits = cfg.seats[seat].limits;
        let wait = Duration::from_millis(limits.move_ms.clamp(SETTLE_MS.0, SETTLE_MS.1));
        match live.proc.settle_input(wait).await {
            // Quiet, or still busy after the wait (thinking between games, a JIT compiler at
            // work): alive, and not waited for again for these kinds.
            Ok(_) => live.kinds.answered(),
            Err(f) => {
                let what = format!(
                    "while reading this game's last events, sent after its last answer, among \
                     them {} for the first time: read every kind of message, ignoring what you \
                     do not use",
                    Kinds::describe(new)
                );
                let f = io_fault(seat, f, &what, limits.move_ms, 0);
                run.fault(seats, f).await;
            }
        }
    }
}

/// A bot that ended before its hello: add the first line of its stderr (a missing class or
/// module says it all) and, when it ran in a private directory, that it did not run in the
/// caller's (`dir`), where a relative path that is not a file argument points nowhere.
fn explain_start_failure(f: &mut Fault, proc: &BotProcess, dir: Option<PathBuf>) {
    let (text, _) = proc.stderr_text();
    if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
        let cut: String = first.chars().take(200).collect();
        f.detail.push_str(&format!("; its stderr began: {cut}"));
    }
    if let Some(dir) = dir {
        f.detail.push_str(&format!(
            "; it ran in a private directory ({}), not in yours: arguments that name your files \
             or folders (bot.py, -cp out) are made absolute, other relative paths point nowhere \
             (give them as absolute paths, or set the bot's working directory)",
            dir.display()
        ));
    }
}

/// What to add to the crash of a process that finished a game and exited before its first
/// answer in game `index`: it ended after game_end when it had read nothing past the previous
/// game's (`end_offset` bytes of its stdin); else it died reading this game's messages.
fn died_between_answers(proc: &BotProcess, end_offset: u64, index: u32) -> String {
    let read = proc.bytes_read().unwrap_or(proc.bytes_written());
    if read <= end_offset {
        return ", before its first answer in this game: it ended after the previous game's \
                game_end. Keep reading stdin after game_end (the next game_start follows) and \
                exit after match_end"
            .into();
    }
    let last = proc.last_line_read().unwrap_or_default();
    // It took in a request last: it may have died on the request, not on an event.
    let asked = last.starts_with(r#"{"type":"request""#);
    format!(
        ", before its first answer in this game: it exited while reading events of game \
         {index}{}, after the last line it read: {last} (its stderr, in this game's replay, says \
         where it failed)",
        if asked {
            " (or deciding its request)"
        } else {
            ""
        }
    )
}

/// The replay's `stderr` lines of one seat in one game: one per point of the game it wrote at
/// (`at`: `"start"`, the request id, `"end"`; `sent`: the lines of the game it had been sent),
/// with the bytes dropped there beyond the game's cap.
fn stderr_lines(seat: Seat, chunks: Vec<StderrChunk>) -> impl Iterator<Item = Value> {
    chunks.into_iter().map(move |c| {
        json!({"type": "stderr", "seat": seat, "at": c.at, "sent": c.sent,
               "text": c.text_lossy(), "dropped": c.dropped})
    })
}

/// Ask `seat` for a decision: request, timed answer, schema, id and rule checks.
#[allow(clippy::too_many_arguments)]
async fn ask(
    cfg: &MatchConfig,
    seats: &mut [SeatState],
    run: &mut GameRun<'_>,
    game: &Game,
    legal: &Legal,
    seat: Seat,
    id: u64,
    bank: &mut [u64],
) -> Result<(Move, f64), Fault> {
    let limits = cfg.seats[seat].limits;
    let obs = game.observation(seat);
    let req = proto::request(id, run.index, legal, &obs, limits.move_ms, bank[seat]);
    run.log.push(ReplayRequest {
        kind: "request",
        id,
        seat,
        decision: legal.decision.kind.name(),
        time: ReplayTime {
            move_ms: limits.move_ms,
            bank_ms: bank[seat],
        },
        legal: proto::LegalSer(legal),
    });
    let Some(live) = seats[seat].live.as_mut() else {
        return Err(Fault {
            seat,
            kind: FaultKind::Crash,
            detail: "the bot is not running".into(),
            rule: None,
        });
    };
    let total = Duration::from_millis(limits.move_ms + bank[seat]);
    run.error_context = (Some(id), None);
    // What the bot writes on stderr from now on comes with this request.
    live.proc.mark_stderr(StderrAt::Request(id)).await;
    live.kinds.unread |= REQUEST;
    // A bot that dies here may have died on a kind of message it never read before: say so,
    // unless it had taken in its request (then it may as well have died deciding it).
    let new = live.kinds.new_ones();
    // Not for the person at the human seat: they quit.
    let human = live.proc.is_human();
    let hint = move |mut f: Fault, proc: &BotProcess, request_end: Option<u64>| {
        let took_request = request_end.is_some_and(|end| proc.bytes_read().unwrap_or(end) >= end);
        if matches!(f.kind, FaultKind::Crash | FaultKind::Memory)
            && new != 0
            && !took_request
            && !human
        {
            f.detail.push_str(&format!(
                "; since its last answer it was sent {} for the first time (read every kind of \
                 message, ignoring what you do not use)",
                Kinds::describe(new)
            ));
        }
        f
    };
    if let Err(f) = live.proc.send(&req, total).await {
        let f = io_fault(seat, f, "reading its request", limits.move_ms, bank[seat]);
        return Err(hint(f, &live.proc, None));
    }
    let request_end = live.proc.bytes_written();
    // The clock starts once the request is written: the referee's own work is not charged.
    let sent = Instant::now();
    let (line, arrived) = match live.proc.recv(total).await {
        Ok(r) => r,
        Err(f) => {
            let f = io_fault(seat, f, "answer", limits.move_ms, bank[seat]);
            return Err(hint(f, &live.proc, Some(request_end)));
        }
    };
    live.answered = true;
    live.kinds.answered();
    let elapsed = arrived.saturating_duration_since(sent);
    let elapsed_ms = elapsed.as_secs_f64() * 1000.0;
    let over = (elapsed.as_millis() as u64).saturating_sub(limits.move_ms);
    bank[seat] = bank[seat].saturating_sub(over);
    let refused = |run: &mut GameRun<'_>, r: Refusal| {
        run.log.push(
            json!({"type": "answer", "id": id, "seat": seat, "elapsed_ms": elapsed_ms,
                            "line": shown(&line), "refused": r.message}),
        );
        run.error_context.1 = r.pointer.clone();
        let mut f = refusal_fault(seat, &r);
        f.detail = format!("request {id}: {}", f.detail);
        f
    };
    let v = proto::parse_line(&line).map_err(|r| refused(run, r))?;
    let (answer_id, mv) = proto::parse_answer(&v).map_err(|r| refused(run, r))?;
    proto::check_answer_id(answer_id, id).map_err(|r| refused(run, r))?;
    if let Err(e) = game.check(seat, &mv) {
        return Err(refused(
            run,
            Refusal {
                kind: FaultKind::Illegal,
                rule: Some(e.rule),
                pointer: None,
                message: e.to_string(),
            },
        ));
    }
    Ok((mv, (elapsed_ms * 1000.0).round() / 1000.0))
}
