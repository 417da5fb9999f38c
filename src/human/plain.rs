//! The human seat in plain lines: a transcript of the game (events, the position at each
//! decision, numbered choices, a `> ` prompt), read and typed line by line. What a script or
//! a test drives (`durak play --plain human BOT`), and what a screen that is not a terminal gets.

use super::{fault_words, Front, Hello, HumanError};
use durak_protocol::text::escape_controls;
use durak_replay::moves::{choices, pretty, read_input, suit, verb, Input, HELP};
use durak_rules::{Legal, Move};
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};

pub struct Plain {
    keys: BufReader<File>,
    screen: File,
    seat: usize,
    /// Keys that are not a terminal (a pipe, a script): nothing echoes what was typed, so the
    /// transcript does, and the referee's next line starts on a line of its own.
    echo: bool,
}

impl Plain {
    pub fn new(keys: File, screen: File) -> Plain {
        Plain {
            echo: !super::is_tty(&keys),
            keys: BufReader::new(keys),
            screen,
            seat: 0,
        }
    }

    /// Whole lines in one write: the referee prints its own lines to the same screen.
    fn say(&mut self, text: &str) {
        let _ = self.screen.write_all(format!("{text}\n").as_bytes());
    }
}

impl Front for Plain {
    fn hello(&mut self, h: &Hello) -> Result<(), HumanError> {
        self.seat = h.seat;
        self.say(&format!(
            "You are seat {} of {} at {} durak, {} game(s). Type ? at a prompt for help.",
            h.seat, h.players, h.variant, h.games
        ));
        Ok(())
    }

    fn game_start(&mut self, game: u64, seat: usize) {
        self.seat = seat;
        self.say(&format!("\n=== game {game} — you are seat {seat} ==="));
    }

    fn event(&mut self, e: &Value) {
        if let Some(t) = describe_event(e, self.seat) {
            self.say(&format!("  · {t}"));
        }
    }

    fn refused(&mut self, message: &str) {
        self.say(&format!(
            "  ✗ the referee refused your move: {}",
            escape_controls(message)
        ));
    }

    fn game_end(&mut self, msg: &Value, _last: bool) -> Result<(), HumanError> {
        let who = match msg["loser"].as_u64() {
            Some(l) if l as usize == self.seat => "you are the durak".to_string(),
            Some(l) => format!("seat {l} is the durak"),
            None => "a draw".to_string(),
        };
        let faults = fault_words(msg);
        let faults = if faults.is_empty() {
            String::new()
        } else {
            format!(" ({})", faults.join("; "))
        };
        self.say(&format!("=== game {} over: {who}{faults} ===", msg["game"]));
        Ok(())
    }

    fn decide(&mut self, o: &Value, legal: &Legal) -> Result<Option<Move>, HumanError> {
        let list = choices(legal);
        let mut text = format!("\n{}\n", position(o, legal));
        for (i, (t, _)) in list.iter().enumerate() {
            text += &format!("  {:>2}) {t}\n", i + 1);
        }
        let _ = self.screen.write_all(text.as_bytes());
        loop {
            let _ = self.screen.write_all(b"> ");
            let mut line = String::new();
            if self.keys.read_line(&mut line)? == 0 {
                self.say("\n(end of input) You left the game.");
                return Ok(None);
            }
            if self.echo {
                self.say(&escape_controls(line.trim_end()));
            }
            match read_input(&line, &list, legal) {
                Input::Play(m) => return Ok(Some(m)),
                Input::Quit => {
                    self.say("You left the game.");
                    return Ok(None);
                }
                Input::Help => self.say(HELP),
                Input::Retry(why) => self.say(&format!("  {why}")),
            }
        }
    }

    fn match_end(&mut self) {
        self.say("Match over.");
    }
}

fn codes(v: &Value) -> String {
    let list: Vec<String> = v
        .as_array()
        .map(|a| a.iter().filter_map(|c| c.as_str()).map(pretty).collect())
        .unwrap_or_default();
    if list.is_empty() {
        "—".to_string()
    } else {
        list.join(" ")
    }
}

fn who(v: &Value, me: usize) -> String {
    match v.as_u64() {
        Some(s) if s as usize == me => "you".to_string(),
        Some(s) => format!("seat {s}"),
        None => "?".to_string(),
    }
}

/// `attack` for you, `attacks` for another seat.
fn conj(seat: &Value, me: usize, base: &str) -> String {
    if seat.as_u64() == Some(me as u64) {
        base.to_string()
    } else {
        format!("{base}s")
    }
}

/// One line for an event, from the seat's point of view (only what it was sent).
pub fn describe_event(e: &Value, me: usize) -> Option<String> {
    let w = who(&e["seat"], me);
    Some(match e["kind"].as_str()? {
        "dealt" => format!(
            "dealt {} cards each; trump card {}",
            e["hand_size"],
            pretty(e["trump_card"].as_str().unwrap_or("?"))
        ),
        "dealt_hand" => format!("your hand: {}", codes(&e["cards"])),
        "first_attacker" => format!("{w} {} first", conj(&e["seat"], me, "attack")),
        "turn_started" => format!(
            "{} {} {}",
            who(&e["attacker"], me),
            conj(&e["attacker"], me, "attack"),
            who(&e["defender"], me)
        ),
        "exchanged" => format!(
            "{w} exchanged {} for the trump card {}",
            pretty(e["six"].as_str().unwrap_or("?")),
            pretty(e["trump_card"].as_str().unwrap_or("?"))
        ),
        "attacked" => format!("{w} attacked with {}", codes(&e["cards"])),
        "defended" => {
            let pairs: Vec<String> = e["pairs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|p| {
                            let (x, y) = match p {
                                Value::Array(v) if v.len() == 2 => (&v[0], &v[1]),
                                _ => (&p["attack"], &p["defence"]),
                            };
                            format!(
                                "{} with {}",
                                pretty(x.as_str().unwrap_or("?")),
                                pretty(y.as_str().unwrap_or("?"))
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            if pairs.is_empty() {
                format!("{w} beat nothing")
            } else {
                format!("{w} beat {}", pairs.join(", "))
            }
        }
        "takes" => format!("{w} {}", conj(&e["seat"], me, "take")),
        "added" => format!("{w} added {}", codes(&e["cards"])),
        "passed" => format!("{w} passed"),
        "picked_up" => format!("{w} picked up {}", codes(&e["cards"])),
        "discarded" => format!("discarded {}", codes(&e["cards"])),
        "drew" => format!("{w} drew {}", e["count"]),
        "drew_cards" => format!("you drew {}", codes(&e["cards"])),
        "exited" => format!("{w} went out"),
        "game_over" => return None,
        other => other.to_string(),
    })
}

fn position(o: &Value, legal: &Legal) -> String {
    let me = o["seat"].as_u64().unwrap_or(0) as usize;
    let mut s = String::from("\n");
    s += &format!(
        "trump {} ({} in stock{}) · discard {}\n",
        suit(o["trump_suit"].as_str().unwrap_or("?")),
        o["stock"],
        if o["trump_card_in_stock"].as_bool() == Some(true) {
            format!(
                ", the last is {}",
                pretty(o["trump_card"].as_str().unwrap_or("?"))
            )
        } else {
            String::new()
        },
        o["discard"].as_array().map_or(0, |d| d.len())
    );
    let counts = o["hand_counts"].as_array().cloned().unwrap_or_default();
    let active = o["active"].as_array().cloned().unwrap_or_default();
    let mut seats = Vec::new();
    for (i, n) in counts.iter().enumerate() {
        let mut t = format!("{}: {n} cards", who(&Value::from(i), me));
        if active.get(i).and_then(Value::as_bool) == Some(false) {
            t += " (out)";
        }
        if i == o["attacker"].as_u64().unwrap_or(99) as usize {
            t += " ATTACKER";
        }
        if i == o["defender"].as_u64().unwrap_or(99) as usize {
            t += " DEFENDER";
        }
        let known = codes(&o["known"][i]);
        if i != me && known != "—" {
            t += &format!(" (known: {known})");
        }
        seats.push(t);
    }
    s += &format!("seats  {}\n", seats.join(" · "));
    let table: Vec<String> = o["table"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|p| {
                    let a = pretty(p["attack"].as_str().unwrap_or("?"));
                    match p["defence"].as_str() {
                        Some(d) => format!("{a}/{}", pretty(d)),
                        None => a,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    s += &format!(
        "table  {}{}\n",
        if table.is_empty() {
            "—".to_string()
        } else {
            table.join("  ")
        },
        match o["limit"].as_u64() {
            Some(l) => format!("   (limit {l})"),
            None => String::new(),
        }
    );
    s += &format!("hand   {}\n", codes(&o["hand"]));
    s += &format!("You {}.", verb(legal));
    s
}
