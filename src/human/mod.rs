//! `durak human`: a person plays a seat (`durak play human BOT`).
//!
//! The seat is an ordinary protocol client on stdin/stdout, like every bot: the referee treats
//! it the same (and checks its moves the same). It talks to the person on the referee's own
//! stdin and stdout, which `durak play` hands it as descriptors 3 and 4
//! (`durak_referee::process::HUMAN_KEYS_FD`, `HUMAN_SCREEN_FD`): on a terminal in the replay
//! viewer's layout ([`tui`]), else (or with `--plain`) as plain lines ([`plain`]), which is how
//! tests and scripts drive it. Either way it shows what the seat's observation shows, never more
//! (I-1, I-2), lists numbered choices, reads typed moves, and checks a move against the
//! request's `legal` object before it is sent (`durak_replay::moves::read_input`), so a typo is refused at
//! the prompt with its rule instead of costing the game. `q` exits with
//! `durak_referee::process::HUMAN_QUIT`, which the referee records as "the person quit".

mod plain;
mod tui;

use durak_protocol as proto;
use durak_referee::process::{HUMAN_KEYS_FD, HUMAN_QUIT, HUMAN_SCREEN_FD};
use durak_rules::{Legal, Move};
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, Write};
use std::os::fd::FromRawFd;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct HumanArgs {
    /// Plain lines, never the full-screen view (also when the screen is not a terminal).
    #[arg(long)]
    plain: bool,
    /// The seats' names in seat order, as `durak play` gives them (repeatable).
    #[arg(long = "name", value_name = "NAME")]
    names: Vec<String>,
}

/// The start of the match, from `hello`.
pub struct Hello {
    pub seat: usize,
    pub players: usize,
    pub variant: String,
    pub games: u64,
    pub names: Vec<String>,
}

/// Where the person plays: the full screen or plain lines.
pub trait Front {
    fn hello(&mut self, h: &Hello) -> Result<(), HumanError>;
    fn game_start(&mut self, game: u64, seat: usize);
    fn event(&mut self, e: &Value);
    /// The referee refused an answer (cannot happen to a move checked here; said anyway).
    fn refused(&mut self, message: &str);
    /// The game ended (`game_end`); `last`: the match's last game.
    fn game_end(&mut self, msg: &Value, last: bool) -> Result<(), HumanError>;
    /// A decision: the move, or `None` when the person quits.
    fn decide(&mut self, observation: &Value, legal: &Legal) -> Result<Option<Move>, HumanError>;
    /// Nothing arrived for a while (the full screen follows a resized window).
    fn idle(&mut self) -> Result<(), HumanError> {
        Ok(())
    }
    fn match_end(&mut self);
}

/// A descriptor `durak play` passed, if it is open.
fn passed_fd(fd: i32) -> Option<File> {
    // SAFETY: fcntl(F_GETFD) only asks whether the descriptor is open.
    let open = unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1;
    // SAFETY: the descriptor is open and ours alone (durak play made it for this process).
    open.then(|| unsafe { File::from_raw_fd(fd) })
}

fn is_tty(f: &File) -> bool {
    std::io::IsTerminal::is_terminal(f)
}

/// Why the human seat stopped before `match_end`: its exit status is 2 (the referee records any
/// status but `HUMAN_QUIT` as the seat's crash).
#[derive(Debug, thiserror::Error)]
pub enum HumanError {
    /// Started by hand with no terminal to play in.
    #[error("the human seat needs a terminal (/dev/tty: {0}): run `durak play human BOT` in one")]
    NoTerminal(std::io::Error),
    /// The terminal could not be set up (raw mode, the alternate screen).
    #[error("the terminal: {0}")]
    Terminal(std::io::Error),
    /// Reading the keys, drawing, or writing to the referee failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// An answer could not be written as JSON.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The referee's request could not be decoded.
    #[error("{0}")]
    Request(#[from] proto::DecodeError),
}

/// Run the human seat until match_end or EOF.
pub fn run(args: HumanArgs) -> crate::CmdResult {
    Ok(seat(args)?)
}

fn seat(args: HumanArgs) -> Result<ExitCode, HumanError> {
    let (keys, screen) = match (passed_fd(HUMAN_KEYS_FD), passed_fd(HUMAN_SCREEN_FD)) {
        (Some(k), Some(s)) => (k, s),
        _ => {
            // Started by hand: the terminal, if there is one.
            let tty = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
                .map_err(HumanError::NoTerminal)?;
            (tty.try_clone()?, tty)
        }
    };
    let full_screen = !args.plain && is_tty(&keys) && is_tty(&screen);
    let mut front: Box<dyn Front> = if full_screen {
        Box::new(tui::Tui::new(screen))
    } else {
        Box::new(plain::Plain::new(keys, screen))
    };
    let names = args.names;
    // The referee's lines, read apart so that the screen can follow the window meanwhile.
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut out = std::io::stdout().lock();
    let mut games = 1u64;
    loop {
        let line = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => {
                front.idle()?;
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match msg["type"].as_str() {
            Some("hello") => {
                let seat = msg["seat"].as_u64().unwrap_or(0) as usize;
                let players = msg["players"].as_u64().unwrap_or(2) as usize;
                games = msg["games"].as_u64().unwrap_or(1);
                let mut seat_names: Vec<String> = (0..players)
                    .map(|s| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}")))
                    .collect();
                seat_names[seat.min(players - 1)] = "you".into();
                front.hello(&Hello {
                    seat,
                    players,
                    variant: msg["variant"].as_str().unwrap_or("?").to_string(),
                    games,
                    names: seat_names,
                })?;
                reply(
                    &mut out,
                    &proto::bot_hello("human", env!("CARGO_PKG_VERSION")),
                )?;
            }
            Some("game_start") => front.game_start(
                msg["game"].as_u64().unwrap_or(0),
                msg["seat"].as_u64().unwrap_or(0) as usize,
            ),
            Some("event") => front.event(&msg["event"]),
            Some("error") => front.refused(msg["message"].as_str().unwrap_or("")),
            Some("game_end") => {
                let last = msg["game"].as_u64().unwrap_or(0) + 1 >= games;
                front.game_end(&msg, last)?;
            }
            Some("match_end") => {
                front.match_end();
                return Ok(ExitCode::SUCCESS);
            }
            Some("request") => {
                let legal = proto::legal_from_request(&msg)?;
                let id = msg["id"].as_u64().unwrap_or(0);
                let Some(mv) = front.decide(&msg["observation"], &legal)? else {
                    drop(front);
                    return Ok(ExitCode::from(HUMAN_QUIT as u8));
                };
                reply(&mut out, &proto::answer(id, &mv))?;
            }
            _ => {}
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn reply(out: &mut impl Write, v: &impl serde::Serialize) -> Result<(), HumanError> {
    serde_json::to_writer(&mut *out, v)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// The faults of a `game_end`, in words ("seat 1 crash: ...").
fn fault_words(msg: &Value) -> Vec<String> {
    msg["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "seat {} {}: {}",
                f["seat"],
                f["kind"].as_str().unwrap_or("?"),
                durak_protocol::text::escape_controls(f["detail"].as_str().unwrap_or(""))
            )
        })
        .collect()
}
