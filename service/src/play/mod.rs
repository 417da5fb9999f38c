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
//! [`Seen`] and post moves through [`PlayGame::answer`], which checks them first as the referee
//! will (`durak_replay::moves::pick`, the terminal's human seat's check): a refusal names its rule
//! in the referee's words and costs nothing.
//!
//! The person chooses their seat (0 attacks first: the game is dealt as a later game of a
//! series, dealer seat 1, so K-2 and P-2 both give the attack to seat 0; or at random) and,
//! where `[play] variants` allows more than the ladder's, the variant. Every game is a row of
//! `play_games` (`rows.rs`) from its start, with its moves as they are made (read from the
//! seat's move events, `seen.rs`): a server that stops and starts again resumes the game, the
//! bot started again and fed the game so far as `durak fork` does (`MatchConfig::opening`: the
//! bot asked at its decisions, the recorded move played), the person's own moves answered at
//! once; a game that cannot go on ends `void` with the reason. A finished game keeps its row
//! and its replay under `DATA/play/` (verified with `durak_replay::simulate`), the newest
//! [`KEEP_FINISHED`] per author: older ones are removed when the author starts a game.

mod error;
mod game;
mod rows;
mod seen;

pub use error::{PlayError, Unverified};
pub use rows::PlayRow;
pub use seen::{event_words, Seen};

use crate::config::ConfigError;
use crate::domain::VersionState;
use crate::ladder::Ladder;
use crate::store;
use durak_protocol as proto;
use durak_rules::{Move, Variant};
pub use game::verify;
use game::{end, match_config, run};
use std::collections::HashMap;
use std::path::Path;
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
    /// Variants a person may choose besides the ladder's (its bots are checked in both).
    pub variants: Option<Vec<String>>,
}

/// `[play] max_games` unless set: games with people in progress on the server at once (each is a
/// bot process and a thread).
pub const MAX_GAMES: usize = 8;

/// `[play]` resolved: the person's time per decision in milliseconds (1 s to an hour), the
/// games in progress at once (at least 1), and the variants a person may choose (the ladder's
/// first).
pub fn resolve(
    s: &PlaySection,
    ladder: Variant,
) -> Result<(u64, usize, Vec<Variant>), ConfigError> {
    let max_games = s.max_games.unwrap_or(MAX_GAMES);
    if max_games == 0 {
        return Err(ConfigError::key(
            "[play] max_games",
            format!("[play] max_games = 0: at least one game\n  fix: set max_games = {MAX_GAMES}"),
        ));
    }
    let mut variants = vec![ladder];
    for v in s.variants.iter().flatten() {
        let parsed: Variant = v.parse().map_err(|e| {
            let m = format!(
                "[play] variants: {v:?}: {e}\n  fix: list \"podkidnoy\" and/or \"prostoy\" \
                 (the ladder's, {}, is always allowed)",
                ladder.name()
            );
            ConfigError::key("[play] variants", m)
        })?;
        if !variants.contains(&parsed) {
            variants.push(parsed);
        }
    }
    Ok((move_ms(s)?, max_games, variants))
}

fn move_ms(s: &PlaySection) -> Result<u64, ConfigError> {
    match s.move_s {
        None => Ok(HUMAN_MOVE_MS),
        Some(n @ 1..=3600) => Ok(n * 1000),
        Some(n) => Err(ConfigError::key(
            "[play] move_s",
            format!(
                "[play] move_s = {n}: a person's time per decision is 1 to 3600 seconds\n  fix: \
                 set move_s = {}",
                HUMAN_MOVE_MS / 1000
            ),
        )),
    }
}

/// The finished games of an author kept (their pages and replays), newest first: older ones
/// are forgotten when the author starts a game, their rows and replays removed.
pub const KEEP_FINISHED: usize = 3;

/// The seat a person asks for: 0 (attacks first), 1, or at random.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeatChoice {
    Seat(usize),
    Random,
}

impl SeatChoice {
    /// `0`, `1` or `random` (absent: seat 0).
    pub fn parse(text: Option<&str>) -> Result<SeatChoice, NotASeat> {
        match text.unwrap_or("0") {
            "0" => Ok(SeatChoice::Seat(0)),
            "1" => Ok(SeatChoice::Seat(1)),
            "random" => Ok(SeatChoice::Random),
            other => Err(NotASeat(other.to_string())),
        }
    }
}

/// A seat asked for that is none: the request's fault, [`NotASeat::status`] 400.
#[derive(Debug, PartialEq, thiserror::Error)]
#[error(
    "seat = {0:?}: not a seat\n  fix: seat = \"0\" (you attack first), \"1\" (the bot does) or \
     \"random\""
)]
pub struct NotASeat(pub String);

impl NotASeat {
    pub fn status(&self) -> u16 {
        400
    }
}

/// What a person asks for when they start a game.
#[derive(Clone, Debug)]
pub struct Wanted {
    pub bot: String,
    pub seat: SeatChoice,
    /// `None`: the ladder's.
    pub variant: Option<String>,
}

/// One game of a person against a bot.
pub struct PlayGame {
    pub id: u64,
    pub account: i64,
    pub bot: String,
    pub version: i64,
    /// The bot's author: they alone (of the players) see its stderr (`private.rs`).
    pub bot_account: i64,
    /// The person's seat.
    pub seat: usize,
    pub variant: Variant,
    pub seen: Mutex<Seen>,
    /// Lines for the person's seat (answers), to the relay (`None`: a finished game read back
    /// from its row).
    to_seat: Option<tokio::sync::mpsc::UnboundedSender<String>>,
}

impl PlayGame {
    /// The game of `row` against version `v`: `seen` so far, `to_seat` the way to the person's
    /// seat while it is played in this run (`None`: read back from its row).
    fn new(
        row: &PlayRow,
        v: &store::Version,
        variant: Variant,
        seen: Seen,
        to_seat: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    ) -> PlayGame {
        PlayGame {
            id: row.id as u64,
            account: row.account,
            bot: v.bot.clone(),
            version: v.n,
            bot_account: v.account,
            seat: row.seat,
            variant,
            seen: Mutex::new(seen),
            to_seat,
        }
    }
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

/// The games of this server: those in progress (their threads) and those read back.
pub struct Plays {
    ladder: Arc<Ladder>,
    games: Mutex<HashMap<u64, Arc<PlayGame>>>,
}

impl Plays {
    pub fn new(ladder: Arc<Ladder>) -> Plays {
        Plays {
            ladder,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// Game `id`: in progress in this run, or read back from its row (finished, or void).
    pub fn get(&self, id: u64) -> Option<Arc<PlayGame>> {
        if let Some(g) = self.games.lock().unwrap().get(&id).cloned() {
            return Some(g);
        }
        let row = rows::get(&self.ladder.db, id as i64).ok().flatten()?;
        let v = store::version(&self.ladder.db, row.version)
            .ok()
            .flatten()?;
        let mut seen = Seen::new(row.seat, Vec::new());
        seen.end = Some(row.result.clone().unwrap_or_else(|| {
            "The game was cut short when the server stopped; it goes on when it starts again."
                .into()
        }));
        seen.replay = row.replay.clone();
        seen.verified = row.verified.as_ref().map(|v| match v.as_str() {
            "ok" => Ok(()),
            e => Err(Unverified::Kept(e.to_string())),
        });
        let variant = row
            .variant
            .parse()
            .unwrap_or(self.ladder.cfg.ladder.variant);
        Some(Arc::new(PlayGame::new(&row, &v, variant, seen, None)))
    }

    /// Start a game of `account` against bot `w.bot`'s version in the ladder: its id.
    pub fn start(
        self: &Arc<Self>,
        account: i64,
        w: &Wanted,
    ) -> Result<Result<u64, Refused>, PlayError> {
        let ladder = &self.ladder;
        let mut games = self.games.lock().unwrap();
        if let Some(id) = rows::playing_of(&ladder.db, account)? {
            return Ok(Err(refused(
                409,
                format!(
                    "you have a game in progress (/play/{id}): one at a time\n  fix: finish it \
                     (or let its clock run out) first"
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
        let allowed = &ladder.cfg.play_variants;
        let variant = match &w.variant {
            None => allowed[0],
            Some(text) => match text.parse::<Variant>() {
                Ok(v) if allowed.contains(&v) => v,
                _ => {
                    let names: Vec<&str> = allowed.iter().map(|v| v.name()).collect();
                    return Ok(Err(refused(
                        400,
                        format!(
                            "variant = {text:?}: this server plays {} with people\n  fix: \
                             variant = {:?} ([play] variants lists the others)",
                            names.join(" or "),
                            names[0]
                        ),
                    )));
                }
            },
        };
        let Some(v) = store::versions_of_bot(&ladder.db, &w.bot)?
            .into_iter()
            .find(|v| v.state == VersionState::Active)
        else {
            return Ok(Err(refused(
                404,
                format!(
                    "bot = {:?}: no such bot in the ladder\n  fix: name a bot on the \
                     leaderboard",
                    w.bot
                ),
            )));
        };
        let dir = ladder.paths.root.join("play");
        for name in rows::forget_old(&ladder.db, account, KEEP_FINISHED)? {
            let _ = std::fs::remove_file(dir.join(name));
        }
        games.retain(|_, g| g.account != account || g.seen.lock().unwrap().end.is_none());
        forget_finished(&mut games, FINISHED_IN_MEMORY);
        let mut bits = [0u8; 8];
        getrandom::fill(&mut bits).map_err(|e| PlayError::NoSeed(e.to_string()))?;
        let seed = u64::from_le_bytes(bits) >> 1;
        let seat = match w.seat {
            SeatChoice::Seat(s) => s,
            SeatChoice::Random => (seed >> 17) as usize & 1,
        };
        let id = rows::insert(&ladder.db, account, v.id, seat, variant.name(), seed)?;
        let row = rows::get(&ladder.db, id)?.ok_or(PlayError::RowGone)?;
        let game = self.launch(&row, &v, Vec::new())?;
        games.insert(game.id, game);
        Ok(Ok(id as u64))
    }

    /// After a restart: every game still `playing` goes on from its moves, or ends void with
    /// the reason it cannot.
    pub fn resume(self: &Arc<Self>) -> Result<(), crate::db::DbError> {
        let db = &self.ladder.db;
        for row in rows::playing(db)? {
            let goes_on = seen::moves_from_json(&row.moves).and_then(|moves| {
                let v = store::version(db, row.version)?
                    .filter(|v| v.state == VersionState::Active)
                    .ok_or(PlayError::NotInTheLadder)?;
                self.launch(&row, &v, moves)
            });
            match goes_on {
                Ok(g) => {
                    self.games.lock().unwrap().insert(g.id, g);
                }
                Err(why) => rows::finish(
                    db,
                    row.id,
                    "void",
                    &format!(
                        "Void: the server restarted and the game could not go on ({why}). \
                         It counts for nobody."
                    ),
                    None,
                    None,
                )?,
            }
        }
        Ok(())
    }

    /// Play the game of `row` against version `v`: its thread started, `opening` (the moves
    /// made before a restart) played first.
    fn launch(
        self: &Arc<Self>,
        row: &PlayRow,
        v: &store::Version,
        opening: Vec<Move>,
    ) -> Result<Arc<PlayGame>, PlayError> {
        let ladder = &self.ladder;
        let dir = ladder.paths.root.join("play");
        std::fs::create_dir_all(&dir).map_err(PlayError::io(&dir))?;
        let id = row.id as u64;
        let variant: Variant = row
            .variant
            .parse()
            .map_err(|e: <Variant as std::str::FromStr>::Err| PlayError::Seat(e.to_string()))?;
        let socket = dir.join(format!("{id}.sock"));
        let _ = std::fs::remove_file(&socket);
        let mut cfg = match_config(ladder, v, row, variant, &dir, &socket)?;
        cfg.opening = opening.clone();
        let listener =
            std::os::unix::net::UnixListener::bind(&socket).map_err(PlayError::io(&socket))?;
        listener
            .set_nonblocking(true)
            .map_err(PlayError::io(&socket))?;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let seen = Seen::new(row.seat, opening);
        let game = Arc::new(PlayGame::new(row, v, variant, seen, Some(tx)));
        let (g, db) = (game.clone(), ladder.db.clone());
        std::thread::Builder::new()
            .name(format!("play-{id}"))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match rt {
                    Ok(rt) => rt.block_on(run(&g, &db, cfg, listener, rx, &dir)),
                    Err(e) => end(&g, &db, "void", format!("no runtime: {e}"), None),
                }
                let _ = std::fs::remove_file(&socket);
            })
            .map_err(PlayError::Thread)?;
        Ok(game)
    }
}

/// Finished games kept in memory at most (with their log in words, which their row does not
/// hold): beyond, the oldest are read back from their rows (result, replay) when asked for.
pub const FINISHED_IN_MEMORY: usize = 64;

fn forget_finished(games: &mut HashMap<u64, Arc<PlayGame>>, keep: usize) {
    let mut done: Vec<u64> = games
        .iter()
        .filter(|(_, g)| g.seen.lock().unwrap().end.is_some())
        .map(|(id, _)| *id)
        .collect();
    done.sort_unstable();
    let over = done.len().saturating_sub(keep);
    for id in &done[..over] {
        games.remove(id);
    }
}

/// How a move the page posted is given: a choice's number (1-based) or typed in card codes.
pub use durak_replay::moves::Given as Posted;
use durak_replay::moves::NotSent;

impl PlayGame {
    /// Whether the person plays their own bot (then they see its stderr).
    pub fn own_bot(&self) -> bool {
        self.account == self.bot_account
    }

    /// The seats whose stderr the person may see in the replay (`private.rs`).
    pub fn visible_seats(&self) -> Vec<bool> {
        (0..2).map(|s| s == self.seat || self.own_bot()).collect()
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
        let mv = match durak_replay::moves::pick(posted, &list, &legal) {
            Ok(mv) => mv,
            Err(e @ NotSent::NoChoice { .. }) => return Err(refused(400, e.to_string())),
            Err(e) => {
                let (status, why) = match e {
                    NotSent::Illegal(_) => (422, e.to_string()),
                    _ => (400, format!("{e} (see the help under the choices)")),
                };
                seen.refusal = Some(why.clone());
                return Err(refused(status, why));
            }
        };
        let line = serde_json::to_string(&proto::answer(id, &mv))
            .map_err(|e| refused(500, e.to_string()))?;
        self.to_seat
            .as_ref()
            .and_then(|t| t.send(line).ok())
            .ok_or_else(|| refused(409, "the game is over"))?;
        seen.open = None;
        seen.refusal = None;
        Ok(())
    }
}

/// `durak web-seat SOCKET`: the person's seat as the referee starts it, copying its stdin to
/// the socket and the socket to its stdout until either ends.
pub fn relay(socket: &Path) -> Result<(), PlayError> {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    let stream = UnixStream::connect(socket).map_err(PlayError::io(socket))?;
    let mut up = stream.try_clone().map_err(PlayError::io(socket))?;
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

    const P: Variant = Variant::Podkidnoy;

    #[test]
    fn the_persons_clock_is_a_second_to_an_hour() {
        assert_eq!(
            resolve(&PlaySection::default(), P).unwrap(),
            (HUMAN_MOVE_MS, MAX_GAMES, vec![P])
        );
        let five = PlaySection {
            move_s: Some(5),
            max_games: Some(2),
            variants: None,
        };
        assert_eq!(resolve(&five, P).unwrap(), (5000, 2, vec![P]));
        let none = PlaySection {
            max_games: Some(0),
            ..PlaySection::default()
        };
        let e = resolve(&none, P).unwrap_err().to_string();
        assert!(
            e.contains("[play] max_games = 0") && e.contains("fix: set max_games = 8"),
            "{e}"
        );
        for bad in [0, 3601] {
            let e = resolve(
                &PlaySection {
                    move_s: Some(bad),
                    ..PlaySection::default()
                },
                P,
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains(&format!("[play] move_s = {bad}"))
                    && e.contains("fix: set move_s = 600"),
                "{e}"
            );
        }
    }

    /// `[play] variants`: the ladder's first, then the others listed; a name that is no variant
    /// is refused with the fix. A seat is 0, 1 or random.
    #[test]
    fn the_variants_and_seats_a_person_may_choose() {
        let both = PlaySection {
            variants: Some(vec!["prostoy".into(), "podkidnoy".into()]),
            ..PlaySection::default()
        };
        assert_eq!(resolve(&both, P).unwrap().2, vec![P, Variant::Prostoy]);
        let bad = PlaySection {
            variants: Some(vec!["poker".into()]),
            ..PlaySection::default()
        };
        let e = resolve(&bad, P).unwrap_err();
        assert_eq!(e.key_name(), Some("[play] variants"));
        let e = e.to_string();
        assert!(
            e.contains("[play] variants: \"poker\"") && e.contains("fix:"),
            "{e}"
        );
        assert_eq!(SeatChoice::parse(None), Ok(SeatChoice::Seat(0)));
        assert_eq!(SeatChoice::parse(Some("1")), Ok(SeatChoice::Seat(1)));
        assert_eq!(SeatChoice::parse(Some("random")), Ok(SeatChoice::Random));
        let e = SeatChoice::parse(Some("2")).unwrap_err();
        assert_eq!(e.status(), 400);
        let e = e.to_string();
        assert!(e.contains("seat = \"2\"") && e.contains("fix:"), "{e}");
    }

    /// Finished games beyond the cap leave memory (the oldest first; their rows stay), games in
    /// progress never do.
    #[test]
    fn memory_keeps_the_newest_finished_games_and_every_game_in_progress() {
        let mut games = HashMap::new();
        for id in 0..(FINISHED_IN_MEMORY as u64 + 8) {
            let mut seen = Seen::new(0, Vec::new());
            if id % 4 != 1 {
                seen.end = Some("A draw.".into());
            }
            let g = PlayGame {
                id,
                account: 1,
                bot: "b".into(),
                version: 1,
                bot_account: 2,
                seat: 0,
                variant: P,
                seen: Mutex::new(seen),
                to_seat: None,
            };
            games.insert(id, Arc::new(g));
        }
        let playing = games.keys().filter(|id| *id % 4 == 1).count();
        forget_finished(&mut games, 10);
        assert_eq!(games.len(), 10 + playing);
        assert!(games.contains_key(&1), "a game in progress stays");
        assert!(!games.contains_key(&0), "the oldest finished goes");
        assert!(games.contains_key(&(FINISHED_IN_MEMORY as u64 + 7)));
    }

    /// The page's move is judged as the referee will judge it: one the rules refuse gets the
    /// rule id and the words of the referee's `Game::check` (422), nothing goes to the seat and
    /// the decision stays open; a legal choice goes.
    #[test]
    fn a_posted_move_is_refused_in_the_referees_words() {
        use durak_rules::{Card, CardSet, Game, Setup};
        let game = Game::new(Setup::new(P, 2), 11).unwrap();
        let legal = game.legal().unwrap();
        let seat = legal.decision.seat;
        let obs = game.observation(seat);
        let line = serde_json::to_string(&proto::request(3, 0, &legal, &obs, 1000, 1000)).unwrap();
        let mut seen = Seen::new(seat, Vec::new());
        seen.on_line(&line);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let g = PlayGame {
            id: 1,
            account: 1,
            bot: "b".into(),
            version: 1,
            bot_account: 2,
            seat,
            variant: P,
            seen: Mutex::new(seen),
            to_seat: Some(tx),
        };
        let not_held = (0..36)
            .filter_map(Card::from_index)
            .find(|c| !legal.hand.contains(*c))
            .unwrap();
        let attack = Move::Attack {
            cards: CardSet::single(not_held),
            exchange: false,
        };
        for (text, mv) in [(not_held.to_string(), attack), ("take".into(), Move::Take)] {
            let referee = game.check(seat, &mv).unwrap_err();
            let want = format!("✗ {}: {}", referee.rule, referee.message);
            assert_eq!(g.answer(Posted::Typed(&text)), Err(refused(422, &want)));
            assert_eq!(g.seen.lock().unwrap().refusal, Some(want));
            assert!(rx.try_recv().is_err(), "{text}: nothing sent");
        }
        g.answer(Posted::Choice(1)).unwrap();
        assert!(rx
            .try_recv()
            .unwrap()
            .starts_with(r#"{"type":"answer","id":3,"#));
    }
}
