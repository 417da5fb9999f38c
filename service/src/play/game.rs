//! One game's match: the referee with the person's seat (the relay) and the bot's, the seat's
//! lines read as they come (each move kept in the game's row), and the game's end in words, on
//! its page and in its row.

use super::{rows, seen, PlayError, PlayGame, PlayRow, Unverified};
use crate::ladder::{executor, Ladder};
use crate::store;
use durak_protocol as proto;
use durak_referee::{play_match, BotCommand, MatchConfig, PlannedGame, SeatSpec};
use durak_rules::Variant;
use std::path::{Path, PathBuf};

/// The match: the person's seat (the relay) and the bot's, one game dealt from the row's seed
/// as a later game of a series with seat 1 dealing (so seat 0 attacks first: K-2, P-2), its
/// replay in `dir`.
pub(super) fn match_config(
    ladder: &Ladder,
    v: &store::Version,
    row: &PlayRow,
    variant: Variant,
    dir: &Path,
    socket: &Path,
) -> Result<MatchConfig, PlayError> {
    let exe = match std::env::var_os("DURAK_EXE") {
        Some(p) => PathBuf::from(p),
        None => std::env::current_exe().map_err(PlayError::NoExecutable)?,
    };
    let mut human = BotCommand::parse("person").map_err(|e| PlayError::Seat(e.to_string()))?;
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
    seats.insert(row.seat.min(1), person);
    let mut cfg = MatchConfig::new(variant, seats, 1, row.seed);
    cfg.plan = Some(vec![PlannedGame {
        index: 0,
        seed: row.seed,
        dealer: Some(1),
        first_game: false,
    }]);
    cfg.replay_dir = Some(dir.to_path_buf());
    cfg.replay_prefix = format!("{}-", row.id);
    Ok(cfg)
}

/// The game's end, on its page and in its row.
pub(super) fn end(
    game: &PlayGame,
    db: &crate::db::Db,
    state: &str,
    words: String,
    replay: Option<(String, Result<(), Unverified>)>,
) {
    let mut seen = game.seen.lock().unwrap();
    seen.open = None;
    let verified = replay.as_ref().map(|(_, v)| match v {
        Ok(()) => "ok".to_string(),
        Err(e) => e.to_string(),
    });
    if let Err(e) = rows::finish(
        db,
        game.id as i64,
        state,
        &words,
        replay.as_ref().map(|(n, _)| n.as_str()),
        verified.as_deref(),
    ) {
        eprintln!("durak serve: play game {}: {e}", game.id);
    }
    if let Some((name, v)) = replay {
        seen.replay = Some(name);
        seen.verified = Some(v);
    }
    seen.end = Some(words);
}

/// Play the game: the referee, and the person's seat's lines through the socket (each move
/// kept in the game's row as it is seen).
pub(super) async fn run(
    game: &PlayGame,
    db: &crate::db::Db,
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
                        let (got, moves) = {
                            let mut seen = game.seen.lock().unwrap();
                            let got = seen.on_line(&l);
                            let moves = got.moved.then(|| seen::moves_json(&seen.moves));
                            (got, moves)
                        };
                        if let Some(m) = moves {
                            if let Err(e) = rows::save_moves(db, game.id as i64, &m) {
                                eprintln!("durak serve: play game {}: {e}", game.id);
                            }
                        }
                        if let Some(reply) = got.reply {
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
    let record = match result {
        Ok(mut m) if !m.games.is_empty() => m.games.remove(0),
        Ok(_) => {
            return end(
                game,
                db,
                "void",
                "Void: the game was not played.".into(),
                None,
            )
        }
        Err(e) => {
            let words = format!("Void: the game could not be played ({e}). It counts for nobody.");
            return end(game, db, "void", words, None);
        }
    };
    let replay = record.replay.as_ref().and_then(|path| {
        let name = path.strip_prefix(dir).ok()?.display().to_string();
        Some((name, verify(path)))
    });
    end(game, db, "over", end_words(game, &record), replay);
}

/// The result in words, with the faults (the bot's detail kept from a person who is not its
/// author: it may quote its stderr).
fn end_words(game: &PlayGame, record: &durak_referee::GameRecord) -> String {
    let mut end = match (record.draw, record.loser) {
        (true, _) => "A draw.".to_string(),
        (_, Some(s)) if s == game.seat => "You lost (you are the durak).".to_string(),
        (_, Some(_)) => "You won: the bot is the durak.".to_string(),
        _ => "The game ended.".to_string(),
    };
    for f in &record.faults {
        let who = if f.seat == game.seat {
            "you"
        } else {
            "the bot"
        };
        let detail = match f.seat != game.seat && !game.own_bot() {
            true => crate::private::public_detail(&f.detail),
            false => f.detail.clone(),
        };
        end.push_str(&format!(
            " Fault of {who}: {} ({}).",
            f.kind.name(),
            proto::text::escape_controls(&detail)
        ));
    }
    end
}

/// `durak replay --verify`'s check of a replay.
pub fn verify(path: &Path) -> Result<(), Unverified> {
    let replay =
        durak_replay::read_replay(path).map_err(|e| Unverified::Unreadable(e.to_string()))?;
    let sim = durak_replay::simulate(&replay);
    match sim.verified() {
        true => Ok(()),
        false => Err(Unverified::Differs(durak_replay::text::verdict(&sim))),
    }
}
