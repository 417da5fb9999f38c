//! `durak human`: a person plays a seat from the terminal (`durak play human BOT`).
//!
//! The seat is an ordinary protocol client on stdin/stdout, like every bot: the referee treats
//! it the same (and checks its moves the same). It talks to the person through the terminal
//! (`/dev/tty`), which `durak play` leaves it: it sees what the seat's observation shows, never
//! more (I-1, I-2), picks from numbered choices or types cards, and a move is checked against
//! the request's `legal` object before it is sent ([`Legal::allows`]), so a typo is refused
//! at the prompt with its rule instead of costing the game.

use durak_protocol as proto;
use durak_protocol::text::escape_controls;
use durak_rules::{Card, CardSet, DecisionKind, Legal, Move, Pairs};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};

/// Run the human seat until match_end or EOF.
pub fn run() -> crate::CmdResult {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|e| {
            format!(
                "the human seat needs a terminal (/dev/tty: {e}): run durak play human ... in one"
            )
        })?;
    let mut keys = BufReader::new(tty.try_clone().map_err(|e| e.to_string())?);
    let mut screen = tty;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut seat = 0usize;
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let say = |screen: &mut std::fs::File, text: String| {
            let _ = writeln!(screen, "{text}");
        };
        match msg["type"].as_str() {
            Some("hello") => {
                seat = msg["seat"].as_u64().unwrap_or(0) as usize;
                say(
                    &mut screen,
                    format!(
                        "You are seat {seat} of {} at {} durak, {} game(s). Type ? at a prompt for help.",
                        msg["players"], msg["variant"].as_str().unwrap_or("?"), msg["games"]
                    ),
                );
                reply(
                    &mut out,
                    &proto::bot_hello("human", env!("CARGO_PKG_VERSION")),
                )?;
            }
            Some("game_start") => {
                seat = msg["seat"].as_u64().unwrap_or(seat as u64) as usize;
                say(
                    &mut screen,
                    format!("\n=== game {} — you are seat {seat} ===", msg["game"]),
                );
            }
            Some("event") => {
                if let Some(t) = describe_event(&msg["event"], seat) {
                    say(&mut screen, format!("  · {t}"));
                }
            }
            Some("error") => say(
                &mut screen,
                format!(
                    "  ✗ the referee refused your move: {}",
                    escape_controls(msg["message"].as_str().unwrap_or(""))
                ),
            ),
            Some("game_end") => {
                let who = match msg["loser"].as_u64() {
                    Some(l) if l as usize == seat => "you are the durak".to_string(),
                    Some(l) => format!("seat {l} is the durak"),
                    None => "a draw".to_string(),
                };
                say(
                    &mut screen,
                    format!("=== game {} over: {who} ===", msg["game"]),
                );
            }
            Some("match_end") => {
                say(&mut screen, "Match over.".to_string());
                return Ok(std::process::ExitCode::SUCCESS);
            }
            Some("request") => {
                let legal = proto::legal_from_request(&msg)?;
                let id = msg["id"].as_u64().unwrap_or(0);
                show_position(&mut screen, &msg["observation"], &legal);
                let Some(mv) = ask(&mut screen, &mut keys, &legal)? else {
                    say(&mut screen, "You left the game.".to_string());
                    return Ok(std::process::ExitCode::from(1));
                };
                reply(&mut out, &proto::answer(id, &mv))?;
            }
            _ => {}
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

fn reply(out: &mut impl Write, v: &impl serde::Serialize) -> Result<(), String> {
    serde_json::to_writer(&mut *out, v).map_err(|e| e.to_string())?;
    out.write_all(b"\n").map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())
}

/// A card as people read it and as the protocol writes it: `10♦ (TD)`.
fn card(c: Card) -> String {
    let code = c.to_string();
    format!("{} ({code})", pretty(&code))
}

/// `TD` as `10♦`.
fn pretty(code: &str) -> String {
    let mut ch = code.chars();
    let (Some(r), Some(s)) = (ch.next(), ch.next()) else {
        return code.to_string();
    };
    let rank = if r == 'T' {
        "10".to_string()
    } else {
        r.to_string()
    };
    format!("{rank}{}", suit(&s.to_string()))
}

/// `S` as `♠`.
fn suit(letter: &str) -> &str {
    match letter {
        "C" => "♣",
        "D" => "♦",
        "H" => "♥",
        "S" => "♠",
        other => other,
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
fn verb(seat: &Value, me: usize, base: &str) -> String {
    if seat.as_u64() == Some(me as u64) {
        base.to_string()
    } else {
        format!("{base}s")
    }
}

/// One line for an event, from the seat's point of view (only what it was sent).
fn describe_event(e: &Value, me: usize) -> Option<String> {
    let w = who(&e["seat"], me);
    Some(match e["kind"].as_str()? {
        "dealt" => format!(
            "dealt {} cards each; trump card {}",
            e["hand_size"],
            pretty(e["trump_card"].as_str().unwrap_or("?"))
        ),
        "dealt_hand" => format!("your hand: {}", codes(&e["cards"])),
        "first_attacker" => format!("{w} {} first", verb(&e["seat"], me, "attack")),
        "turn_started" => format!(
            "{} {} {}",
            who(&e["attacker"], me),
            verb(&e["attacker"], me, "attack"),
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
        "takes" => format!("{w} {}", verb(&e["seat"], me, "take")),
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

fn show_position(screen: &mut impl Write, o: &Value, legal: &Legal) {
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
    let verb = match legal.decision.kind {
        DecisionKind::Attack => "attack",
        DecisionKind::Defend => "defend",
        DecisionKind::Add if legal.decision.after_take => "add (the defender takes)",
        DecisionKind::Add => "add or pass",
    };
    s += &format!("You {verb}.");
    let _ = writeln!(screen, "{s}");
}

/// The numbered choices: always legal, a few of the many (more are typed).
fn choices(legal: &Legal) -> Vec<(String, Move)> {
    let mut out = Vec::new();
    match legal.decision.kind {
        DecisionKind::Attack => {
            for c in legal.hand {
                out.push((
                    format!("attack with {}", card(c)),
                    Move::Attack {
                        cards: CardSet::single(c),
                        exchange: false,
                    },
                ));
            }
        }
        DecisionKind::Defend => {
            let full = cover(&legal.to_beat, 0, CardSet::EMPTY, Pairs::EMPTY);
            if let Some(pairs) = full {
                let text: Vec<String> = pairs.iter().map(|(a, d)| format!("{}>{}", a, d)).collect();
                out.push((
                    format!("beat everything: {}", text.join(" ")),
                    Move::Defend {
                        pairs,
                        exchange: false,
                    },
                ));
            }
            if legal.can_take {
                out.push(("take the cards".to_string(), Move::Take));
            } else {
                out.push((
                    "beat nothing (take what is on the table)".to_string(),
                    Move::Defend {
                        pairs: Pairs::EMPTY,
                        exchange: false,
                    },
                ));
                for t in &legal.to_beat {
                    for d in t.beaters {
                        let mut pairs = Pairs::EMPTY;
                        pairs.push(t.attack, d);
                        out.push((
                            format!("beat only {} with {}", card(t.attack), card(d)),
                            Move::Defend {
                                pairs,
                                exchange: false,
                            },
                        ));
                    }
                }
            }
        }
        DecisionKind::Add => {
            out.push(("pass".to_string(), Move::Pass));
            if legal.room > 0 {
                for c in legal.addable {
                    out.push((
                        format!("add {}", card(c)),
                        Move::Add {
                            cards: CardSet::single(c),
                        },
                    ));
                }
            }
        }
    }
    out.retain(|(_, m)| legal.allows(m).is_ok());
    out
}

/// A full cover of `list` from index `i`, each attack card with a different beater.
fn cover(list: &[durak_rules::ToBeat], i: usize, used: CardSet, pairs: Pairs) -> Option<Pairs> {
    let Some(t) = list.get(i) else {
        return (!list.is_empty()).then_some(pairs);
    };
    for d in t.beaters.minus(used) {
        let mut p = pairs;
        p.push(t.attack, d);
        let mut u = used;
        u.insert(d);
        if let Some(done) = cover(list, i + 1, u, p) {
            return Some(done);
        }
    }
    None
}

const HELP: &str = "\
Type the number of a choice, or a move in the protocol's card codes (rank 6789TJQKA, suit CDHS):
  attack or add:  7C 7D QH        (the cards; prefix 'x' for the trump-six exchange: x 7C)
  defend:         7C>KC 8D>9D     (attack card > the card that beats it; nothing = beat nothing)
  take | pass     as the words say
  q               leave the game (the seat forfeits it)";

/// Ask until a legal move is given; `None`: the person left (q or end of input).
fn ask(
    screen: &mut impl Write,
    keys: &mut impl BufRead,
    legal: &Legal,
) -> Result<Option<Move>, String> {
    let list = choices(legal);
    let mut menu = String::new();
    for (i, (text, _)) in list.iter().enumerate() {
        menu += &format!("  {:>2}) {text}\n", i + 1);
    }
    let _ = write!(screen, "{menu}");
    loop {
        let _ = write!(screen, "> ");
        let _ = screen.flush();
        let mut line = String::new();
        if keys.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Ok(None);
        }
        let line = line.trim();
        if line == "q" {
            return Ok(None);
        }
        if line == "?" || line == "help" {
            let _ = writeln!(screen, "{HELP}");
            continue;
        }
        let mv = match line.parse::<usize>() {
            Ok(n) if (1..=list.len()).contains(&n) => list[n - 1].1,
            Ok(n) => {
                let _ = writeln!(screen, "  no choice {n}: 1 to {}", list.len());
                continue;
            }
            Err(_) => match parse_move(line, legal.decision.kind) {
                Ok(m) => m,
                Err(e) => {
                    let _ = writeln!(screen, "  {e} (? for help)");
                    continue;
                }
            },
        };
        match legal.allows(&mv) {
            Ok(()) => return Ok(Some(mv)),
            Err(e) => {
                let _ = writeln!(screen, "  ✗ {}: {} — try again", e.rule, e.message);
            }
        }
    }
}

/// A typed move (see [`HELP`]).
fn parse_move(text: &str, kind: DecisionKind) -> Result<Move, String> {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    let exchange = words.first() == Some(&"x");
    if exchange {
        words.remove(0);
    }
    match (words.as_slice(), kind) {
        (["take"], _) => return Ok(Move::Take),
        (["pass"], _) => return Ok(Move::Pass),
        _ => {}
    }
    if kind == DecisionKind::Defend {
        let mut pairs = Pairs::EMPTY;
        for w in &words {
            let (a, d) = w
                .split_once('>')
                .ok_or_else(|| format!("{w:?}: a defence pair is ATTACK>CARD, like 7C>KC"))?;
            let a: Card = a.parse().map_err(|e| format!("{a:?}: {e}"))?;
            let d: Card = d.parse().map_err(|e| format!("{d:?}: {e}"))?;
            if !pairs.push(a, d) {
                return Err("at most six pairs".to_string());
            }
        }
        return Ok(Move::Defend { pairs, exchange });
    }
    let cards = CardSet::parse_list(&words.join(" ")).map_err(|e| e.to_string())?;
    Ok(match kind {
        DecisionKind::Attack => Move::Attack { cards, exchange },
        _ => Move::Add { cards },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_moves_parse_as_the_help_says() {
        assert_eq!(
            parse_move("x 7C 7D QH", DecisionKind::Attack).unwrap(),
            Move::Attack {
                cards: CardSet::parse_list("7C 7D QH").unwrap(),
                exchange: true
            }
        );
        let Move::Defend { pairs, exchange } =
            parse_move("7C>KC 8D>9D", DecisionKind::Defend).unwrap()
        else {
            panic!("a defence")
        };
        assert!(!exchange);
        assert_eq!(format!("{pairs:?}"), "[7C/KC 8D/9D]");
        assert_eq!(
            parse_move("take", DecisionKind::Defend).unwrap(),
            Move::Take
        );
        assert!(parse_move("7C-KC", DecisionKind::Defend).is_err());
        assert!(parse_move("ZZ", DecisionKind::Add).is_err());
    }

    #[test]
    fn cards_show_both_forms() {
        assert_eq!(card("TD".parse().unwrap()), "10♦ (TD)");
        assert_eq!(pretty("QS"), "Q♠");
    }
}
