//! "Play my bot" (issue 25): a person takes a seat against a bot of the ladder in the browser,
//! unrated and never recorded in the ladder's tables.
//!
//! The game is an ordinary referee match of one game (`durak_referee::play_match`): the bot's
//! seat is the ladder's (`executor::seat_spec`: the same sandbox and limits), and the person's
//! seat is one more protocol client, `durak web-seat SOCKET` ([`relay`]), which copies its
//! stdin and stdout to a Unix socket this module listens on. So the referee judges the person
//! exactly as a bot (and writes the same replay), and the person sees only what the seat's
//! lines hold ([`Seen`]: the requests' observations and the events sent to that seat, I-1/I-2),
//! never the bot's hand or the stock's order. The person's decision has [`HUMAN_MOVE_MS`]; past
//! it the referee ends the game as the person's timeout. The pages (`http/play_pages.rs`) show
//! [`Seen`] and post moves through [`PlayGame::answer`], which checks them with
//! `Legal::allows` first (`durak_replay::moves`): a refusal names its rule and costs nothing.
//!
//! Games live in memory (one in progress per author and the last [`KEEP_FINISHED`] finished,
//! [`Plays::start`]); a game in progress ends when the server stops (its bot dies with it). A
//! finished game's replay is under `DATA/play/`, verified with `durak_replay::simulate` when the
//! game ends, and removed when its game is forgotten.

use crate::domain::VersionState;
use crate::ladder::{executor, Ladder};
use crate::store;
use durak_protocol as proto;
use durak_referee::{play_match, BotCommand, MatchConfig, SeatSpec};
use durak_rules::{Legal, Move};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The person's time for one decision (and their whole bank) unless `[play] move_s` says
/// otherwise: then the game ends as their timeout.
pub const HUMAN_MOVE_MS: u64 = 10 * 60 * 1000;

/// `[play]`, as written.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaySection {
    pub move_s: Option<u64>,
    pub max_games: Option<usize>,
}

/// `[play] max_games` unless set: games with people in progress on the server at once (each is a
/// bot process and a thread).
pub const MAX_GAMES: usize = 8;

/// `[play]` resolved: the person's time per decision in milliseconds (1 s to an hour), and the
/// games in progress at once (at least 1).
pub fn resolve(s: &PlaySection) -> Result<(u64, usize), String> {
    let max_games = s.max_games.unwrap_or(MAX_GAMES);
    if max_games == 0 {
        return Err(format!(
            "[play] max_games = 0: at least one game\n  fix: set max_games = {MAX_GAMES}"
        ));
    }
    Ok((move_ms(s)?, max_games))
}

fn move_ms(s: &PlaySection) -> Result<u64, String> {
    match s.move_s {
        None => Ok(HUMAN_MOVE_MS),
        Some(n @ 1..=3600) => Ok(n * 1000),
        Some(n) => Err(format!(
            "[play] move_s = {n}: a person's time per decision is 1 to 3600 seconds\n  fix: set \
             move_s = {}",
            HUMAN_MOVE_MS / 1000
        )),
    }
}

/// The finished games of an author kept (their pages and replays), newest first: older ones
/// are forgotten when the author starts a game, their replays removed from `DATA/play/`.
pub const KEEP_FINISHED: usize = 3;

/// The person's seat in every game (seat 0; who attacks first follows the deal).
pub const HUMAN_SEAT: usize = 0;

/// What the person's seat has been sent so far, as the page shows it.
#[derive(Clone, Debug, Default)]
pub struct Seen {
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
    pub verified: Option<Result<(), String>>,
}

/// One game of a person against a bot.
pub struct PlayGame {
    pub id: u64,
    pub account: i64,
    pub bot: String,
    pub version: i64,
    /// The bot's author: they alone (of the players) see its stderr (`http/private.rs`).
    pub bot_account: i64,
    pub seen: Mutex<Seen>,
    /// Lines for the person's seat (answers), to the relay.
    to_seat: tokio::sync::mpsc::UnboundedSender<String>,
}

/// A refusal: the HTTP status and what to do.
#[derive(Debug, PartialEq)]
pub struct Refused {
    pub status: u16,
    pub message: String,
}

fn refused(status: u16, message: impl Into<String>) -> Refused {
    Refused {
        status,
        message: message.into(),
    }
}

/// The games of this run.
#[derive(Default)]
pub struct Plays {
    games: Mutex<HashMap<u64, Arc<PlayGame>>>,
    next: AtomicU64,
}

impl Plays {
    pub fn get(&self, id: u64) -> Option<Arc<PlayGame>> {
        self.games.lock().unwrap().get(&id).cloned()
    }

    /// Start a game of `account` against bot `bot`'s version in the ladder: its id.
    pub fn start(
        self: &Arc<Self>,
        ladder: &Arc<Ladder>,
        account: i64,
        bot: &str,
    ) -> Result<Result<u64, Refused>, String> {
        let mut games = self.games.lock().unwrap();
        if let Some(g) = games
            .values()
            .find(|g| g.account == account && g.seen.lock().unwrap().end.is_none())
        {
            return Ok(Err(refused(
                409,
                format!(
                    "you have a game in progress (/play/{}): one at a time\n  fix: finish it \
                     (or let its clock run out) first",
                    g.id
                ),
            )));
        }
        let playing = games
            .values()
            .filter(|g| g.seen.lock().unwrap().end.is_none())
            .count();
        if playing >= ladder.cfg.play_max_games {
            return Ok(Err(refused(
                503,
                format!(
                    "the server plays {playing} games with people now, its most ([play] \
                     max_games)\n  fix: try again in a few minutes"
                ),
            )));
        }
        let mut done: Vec<u64> = games
            .values()
            .filter(|g| g.account == account)
            .map(|g| g.id)
            .collect();
        done.sort_unstable();
        for id in done.iter().rev().skip(KEEP_FINISHED) {
            let replay = games
                .remove(id)
                .and_then(|g| g.seen.lock().unwrap().replay.clone());
            if let Some(name) = replay {
                let _ = std::fs::remove_file(ladder.paths.root.join("play").join(name));
            }
        }
        let Some(v) = store::versions_of_bot(&ladder.db, bot)?
            .into_iter()
            .find(|v| v.state == VersionState::Active)
        else {
            return Ok(Err(refused(
                404,
                format!(
                    "bot = {bot:?}: no such bot in the ladder\n  fix: name a bot on the \
                     leaderboard"
                ),
            )));
        };
        let dir = ladder.paths.root.join("play");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let first = crate::db::now_ms() as u64;
        let _ = self
            .next
            .compare_exchange(0, first, Ordering::SeqCst, Ordering::SeqCst);
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let socket = dir.join(format!("{id}.sock"));
        let _ = std::fs::remove_file(&socket);
        let cfg = match_config(ladder, &v, &dir, &socket, id)?;
        let listener = std::os::unix::net::UnixListener::bind(&socket)
            .map_err(|e| format!("{}: {e}", socket.display()))?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let game = Arc::new(PlayGame {
            id,
            account,
            bot: v.bot.clone(),
            version: v.n,
            bot_account: v.account,
            seen: Mutex::new(Seen::default()),
            to_seat: tx,
        });
        games.insert(id, game.clone());
        std::thread::Builder::new()
            .name(format!("play-{id}"))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match rt {
                    Ok(rt) => rt.block_on(run(&game, cfg, listener, rx, &dir)),
                    Err(e) => game.seen.lock().unwrap().end = Some(format!("no runtime: {e}")),
                }
                let _ = std::fs::remove_file(&socket);
            })
            .map_err(|e| e.to_string())?;
        Ok(Ok(id))
    }
}

/// The match: the person's seat (the relay) and the bot's, one game, its replay in `dir`.
fn match_config(
    ladder: &Ladder,
    v: &store::Version,
    dir: &Path,
    socket: &Path,
    id: u64,
) -> Result<MatchConfig, String> {
    let exe = match std::env::var_os("DURAK_EXE") {
        Some(p) => PathBuf::from(p),
        None => {
            std::env::current_exe().map_err(|e| format!("cannot find the durak executable: {e}"))?
        }
    };
    let mut human = BotCommand::parse("person")?;
    human.spec = "web-seat".into();
    human.program = exe;
    human.args = vec!["web-seat".into(), socket.display().to_string()];
    let limits = proto::Limits {
        move_ms: ladder.cfg.play_move_ms,
        bank_ms: ladder.cfg.play_move_ms,
        ..ladder.cfg.ladder.limits
    };
    let person = SeatSpec {
        name: "you".into(),
        command: human,
        limits,
    };
    let mut bot = executor::seat_spec(ladder, v)?;
    bot.name = format!("{} v{}", v.bot, v.n);
    let mut seats = vec![bot];
    seats.insert(HUMAN_SEAT, person);
    let seed = id ^ ladder.seed;
    let mut cfg = MatchConfig::new(ladder.cfg.ladder.variant, seats, 1, seed);
    cfg.replay_dir = Some(dir.to_path_buf());
    cfg.replay_prefix = format!("{id}-");
    Ok(cfg)
}

/// Play the game: the referee, and the person's seat's lines through the socket.
async fn run(
    game: &PlayGame,
    cfg: MatchConfig,
    listener: std::os::unix::net::UnixListener,
    mut answers: tokio::sync::mpsc::UnboundedReceiver<String>,
    dir: &Path,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let seat = async {
        let Ok(listener) = tokio::net::UnixListener::from_std(listener) else {
            return;
        };
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let (r, mut w) = stream.into_split();
        let mut lines = BufReader::new(r).lines();
        loop {
            tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(l)) => {
                        let reply = game.seen.lock().unwrap().on_line(&l);
                        if let Some(reply) = reply {
                            if w.write_all(format!("{reply}\n").as_bytes()).await.is_err() {
                                return;
                            }
                        }
                    }
                    _ => return,
                },
                Some(a) = answers.recv() => {
                    if w.write_all(format!("{a}\n").as_bytes()).await.is_err() {
                        return;
                    }
                }
            }
        }
    };
    let seat = async {
        seat.await;
        std::future::pending::<()>().await
    };
    let result = tokio::select! {
        r = play_match(&cfg, |_| {}) => r,
        _ = seat => unreachable!("the seat's side never ends first"),
    };
    let mut seen = game.seen.lock().unwrap();
    seen.open = None;
    let record = match result {
        Ok(mut m) if !m.games.is_empty() => m.games.remove(0),
        Ok(_) => {
            seen.end = Some("the game was not played".into());
            return;
        }
        Err(e) => {
            seen.end = Some(format!("the game could not be played: {e}"));
            return;
        }
    };
    let mut end = match (record.draw, record.loser) {
        (true, _) => "A draw.".to_string(),
        (_, Some(s)) if s == HUMAN_SEAT => "You lost (you are the durak).".to_string(),
        (_, Some(_)) => "You won: the bot is the durak.".to_string(),
        _ => "The game ended.".to_string(),
    };
    for f in &record.faults {
        let who = if f.seat == HUMAN_SEAT {
            "you"
        } else {
            "the bot"
        };
        // What a bot wrote on stderr is its author's (a fault's detail may quote it).
        let detail = match f.seat != HUMAN_SEAT && !game.own_bot() {
            true => crate::http::private::public_detail(&f.detail),
            false => f.detail.clone(),
        };
        end.push_str(&format!(
            " Fault of {who}: {} ({}).",
            f.kind.name(),
            proto::text::escape_controls(&detail)
        ));
    }
    seen.end = Some(end);
    if let Some(path) = record.replay {
        seen.verified = Some(verify(&path));
        seen.replay = path.strip_prefix(dir).ok().map(|p| p.display().to_string());
    }
}

/// `durak replay --verify`'s check of a replay.
pub fn verify(path: &Path) -> Result<(), String> {
    let replay = durak_replay::read_replay(path).map_err(|e| e.to_string())?;
    let sim = durak_replay::simulate(&replay);
    match sim.verified() {
        true => Ok(()),
        false => Err(durak_replay::text::verdict(&sim)),
    }
}

impl Seen {
    /// One line the referee sent the person's seat: what the page shows from it, and the reply
    /// the seat owes at once (the hello).
    fn on_line(&mut self, line: &str) -> Option<String> {
        let msg: Value = serde_json::from_str(line).ok()?;
        match msg["type"].as_str()? {
            "hello" => {
                return Some(proto::bot_hello("person", env!("CARGO_PKG_VERSION")).to_string())
            }
            "event" => self.log.push(event_words(&msg["event"])),
            "error" => {
                self.refusal = Some(
                    proto::text::escape_controls(msg["message"].as_str().unwrap_or(""))
                        .into_owned(),
                )
            }
            "request" => {
                if let Ok(legal) = proto::legal_from_request(&msg) {
                    self.open = Some((msg["id"].as_u64().unwrap_or(0), legal));
                    self.observation = Some(msg["observation"].clone());
                }
            }
            _ => {}
        }
        None
    }
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

/// How a move the page posted is given: a choice's number (1-based) or typed in card codes.
pub enum Posted<'a> {
    Choice(usize),
    Typed(&'a str),
}

impl PlayGame {
    /// Whether the person plays their own bot (then they see its stderr).
    pub fn own_bot(&self) -> bool {
        self.account == self.bot_account
    }

    /// The seats whose stderr the person may see in the replay (`http/private.rs`).
    pub fn visible_seats(&self) -> Vec<bool> {
        (0..2).map(|s| s == HUMAN_SEAT || self.own_bot()).collect()
    }

    /// The person's move at the open decision: checked against its legal choices first (a
    /// refusal names its rule and the decision stays open), then sent to the referee.
    pub fn answer(&self, posted: Posted) -> Result<(), Refused> {
        let mut seen = self.seen.lock().unwrap();
        let Some((id, legal)) = seen.open.clone() else {
            return Err(refused(
                409,
                match seen.end {
                    Some(_) => "the game is over",
                    None => "not your turn: the bot is deciding",
                },
            ));
        };
        let list = durak_replay::moves::choices(&legal);
        let mv: Move = match posted {
            Posted::Choice(n) if (1..=list.len()).contains(&n) => list[n - 1].1,
            Posted::Choice(n) => {
                return Err(refused(400, format!("no choice {n}: 1 to {}", list.len())))
            }
            Posted::Typed(text) => {
                match durak_replay::moves::parse_move(text, legal.decision.kind) {
                    Ok(m) => m,
                    Err(e) => {
                        let why = format!("{e} (see the help under the choices)");
                        seen.refusal = Some(why.clone());
                        return Err(refused(400, why));
                    }
                }
            }
        };
        if let Err(e) = legal.allows(&mv) {
            let why = format!("✗ {}: {}", e.rule, e.message);
            seen.refusal = Some(why.clone());
            return Err(refused(422, why));
        }
        let line = serde_json::to_string(&proto::answer(id, &mv))
            .map_err(|e| refused(500, e.to_string()))?;
        self.to_seat
            .send(line)
            .map_err(|_| refused(409, "the game is over"))?;
        seen.open = None;
        seen.refusal = None;
        Ok(())
    }
}

/// `durak web-seat SOCKET`: the person's seat as the referee starts it, copying its stdin to
/// the socket and the socket to its stdout until either ends.
pub fn relay(socket: &Path) -> Result<(), String> {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    let stream = UnixStream::connect(socket).map_err(|e| format!("{}: {e}", socket.display()))?;
    let mut up = stream.try_clone().map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut up);
        let _ = up.shutdown(std::net::Shutdown::Write);
    });
    let mut down = stream;
    let mut out = std::io::stdout().lock();
    let mut buf = [0u8; 8192];
    loop {
        match down.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(n) => {
                if out.write_all(&buf[..n]).and_then(|_| out.flush()).is_err() {
                    return Ok(());
                }
            }
        }
    }
}

/// How long the pages wait between reloads while the bot decides.
pub const RELOAD: Duration = Duration::from_secs(1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_persons_clock_is_a_second_to_an_hour() {
        assert_eq!(
            resolve(&PlaySection::default()),
            Ok((HUMAN_MOVE_MS, MAX_GAMES))
        );
        let five = PlaySection {
            move_s: Some(5),
            max_games: Some(2),
        };
        assert_eq!(resolve(&five), Ok((5000, 2)));
        let none = PlaySection {
            move_s: None,
            max_games: Some(0),
        };
        let e = resolve(&none).unwrap_err();
        assert!(
            e.contains("[play] max_games = 0") && e.contains("fix: set max_games = 8"),
            "{e}"
        );
        for bad in [0, 3601] {
            let e = resolve(&PlaySection {
                move_s: Some(bad),
                max_games: None,
            })
            .unwrap_err();
            assert!(
                e.contains(&format!("[play] move_s = {bad}"))
                    && e.contains("fix: set move_s = 600"),
                "{e}"
            );
        }
    }
}
