//! The human seat's moves, whatever the screen: the numbered choices (always legal, each move
//! once), typed moves in the protocol's card codes, and what a typed line means ([`read_input`]),
//! checked against the request's `legal` object ([`Legal::allows`]) before anything is sent.

use durak_rules::{Card, CardParseError, CardSet, DecisionKind, Legal, Move, Pairs};

/// A card as people read it and as the protocol writes it: `10♦ (TD)`.
pub fn card(c: Card) -> String {
    let code = c.to_string();
    format!("{} ({code})", pretty(&code))
}

/// `TD` as `10♦`.
pub fn pretty(code: &str) -> String {
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
pub fn suit(letter: &str) -> &str {
    match letter {
        "C" => "♣",
        "D" => "♦",
        "H" => "♥",
        "S" => "♠",
        other => other,
    }
}

/// What the person decides, in words.
pub fn verb(legal: &Legal) -> &'static str {
    match legal.decision.kind {
        DecisionKind::Attack => "attack",
        DecisionKind::Defend => "defend",
        DecisionKind::Add if legal.decision.after_take => "add (the defender takes)",
        DecisionKind::Add => "add or pass",
    }
}

/// The numbered choices: always legal, each move once, a few of the many (more are typed).
pub fn choices(legal: &Legal) -> Vec<(String, Move)> {
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
    // One attack card and one beater: "beat everything" and "beat only" are the same move.
    let mut seen: Vec<Move> = Vec::new();
    out.retain(|(_, m)| {
        let new = !seen.contains(m);
        seen.push(*m);
        new
    });
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

pub const HELP: &str = "\
Type the number of a choice, or a move in the protocol's card codes (rank 6789TJQKA, suit CDHS):
  attack or add:  7C 7D QH        (the cards; prefix 'x' for the trump-six exchange: x 7C)
  defend:         7C>KC 8D>9D     (attack card > the card that beats it; nothing = beat nothing)
  take | pass     as the words say
  q               leave the game (the seat forfeits it)";

/// What a line typed at a decision means.
#[derive(Debug, PartialEq)]
pub enum Input {
    /// A legal move: send it.
    Play(Move),
    /// `q`: the person leaves the game.
    Quit,
    /// `?` or `help`.
    Help,
    /// Nothing to send: why, to show before asking again (a refused move names its rule).
    Retry(String),
}

/// Read one typed line against the numbered `list` and the request's `legal`.
pub fn read_input(line: &str, list: &[(String, Move)], legal: &Legal) -> Input {
    let line = line.trim();
    match line {
        "q" => return Input::Quit,
        "?" | "help" => return Input::Help,
        "" => return Input::Retry("type a choice's number or a move (? for help)".into()),
        _ => {}
    }
    let given = match line.parse::<usize>() {
        Ok(n) => Given::Choice(n),
        Err(_) => Given::Typed(line),
    };
    match pick(given, list, legal) {
        Ok(mv) => Input::Play(mv),
        Err(NotSent::Unreadable(e)) => Input::Retry(format!("{e} (? for help)")),
        Err(e @ NotSent::Illegal(_)) => Input::Retry(format!("{e} — try again")),
        Err(e) => Input::Retry(e.to_string()),
    }
}

/// How a person gives a move: a choice's number (from 1) or typed in card codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Given<'a> {
    Choice(usize),
    Typed(&'a str),
}

/// Why a move a person gave is not sent: the decision stays open.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotSent {
    #[error("no choice {n}: 1 to {of}")]
    NoChoice { n: usize, of: usize },
    /// The typed move does not read (the message says how to write it).
    #[error(transparent)]
    Unreadable(#[from] MoveError),
    /// The rules refuse it: the rule and the words the referee's fault would have
    /// ([`Legal::allows`], the referee's [`durak_rules::DecisionView::check`]).
    #[error("✗ {0}")]
    Illegal(durak_rules::Illegal),
}

/// The move a person gave, judged before it is sent as the referee will judge it: the terminal's
/// human seat and the service's "Play my bot" both go through here.
pub fn pick(given: Given, list: &[(String, Move)], legal: &Legal) -> Result<Move, NotSent> {
    let mv = match given {
        Given::Choice(n) if (1..=list.len()).contains(&n) => list[n - 1].1,
        Given::Choice(n) => return Err(NotSent::NoChoice { n, of: list.len() }),
        Given::Typed(text) => parse_move(text, legal.decision.kind)?,
    };
    legal.allows(&mv).map_err(NotSent::Illegal)?;
    Ok(mv)
}

/// Why a typed move does not read ([`parse_move`]); the message says how to write it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("{word:?}: a defence pair is ATTACK>CARD, like 7C>KC")]
    NotAPair { word: String },
    #[error("{text:?}: {source}")]
    Card {
        text: String,
        source: CardParseError,
    },
    #[error("at most six pairs")]
    TooManyPairs,
    #[error(transparent)]
    Cards(#[from] CardParseError),
}

/// A typed move (see [`HELP`]).
pub fn parse_move(text: &str, kind: DecisionKind) -> Result<Move, MoveError> {
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
            let (a, d) = w.split_once('>').ok_or_else(|| MoveError::NotAPair {
                word: w.to_string(),
            })?;
            let card = |text: &str| {
                text.parse::<Card>().map_err(|source| MoveError::Card {
                    text: text.to_string(),
                    source,
                })
            };
            if !pairs.push(card(a)?, card(d)?) {
                return Err(MoveError::TooManyPairs);
            }
        }
        return Ok(Move::Defend { pairs, exchange });
    }
    let cards = CardSet::parse_list(&words.join(" "))?;
    Ok(match kind {
        DecisionKind::Attack => Move::Attack { cards, exchange },
        _ => Move::Add { cards },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use durak_rules::{Game, Setup, Variant};

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
        assert_eq!(
            parse_move("7C-KC", DecisionKind::Defend)
                .unwrap_err()
                .to_string(),
            "\"7C-KC\": a defence pair is ATTACK>CARD, like 7C>KC"
        );
        assert!(matches!(
            parse_move("ZZ>KC", DecisionKind::Defend),
            Err(MoveError::Card { ref text, .. }) if text == "ZZ"
        ));
        assert!(matches!(
            parse_move("ZZ", DecisionKind::Add),
            Err(MoveError::Cards(_))
        ));
    }

    #[test]
    fn cards_show_both_forms() {
        assert_eq!(card("TD".parse().unwrap()), "10♦ (TD)");
        assert_eq!(pretty("QS"), "Q♠");
    }

    /// Prostoy, one attack card with one beater: "beat everything" and "beat only" were listed
    /// both, the same move twice.
    #[test]
    fn each_choice_is_a_different_move() {
        let mut checked = 0;
        for seed in 0..200 {
            let setup = Setup {
                variant: Variant::Prostoy,
                players: 2,
                dealer: 0,
                first_game: true,
            };
            let mut game = Game::new(setup, seed).unwrap();
            // Play the first attack with the lowest card; then the defender decides.
            let legal = game.legal().unwrap();
            let c = legal.hand.iter().next().unwrap();
            let seat = legal.decision.seat;
            let attack = Move::Attack {
                cards: CardSet::single(c),
                exchange: false,
            };
            if game.apply(seat, &attack).is_err() {
                continue;
            }
            let Some(legal) = game.legal() else { continue };
            if legal.decision.kind != DecisionKind::Defend {
                continue;
            }
            let list = choices(&legal);
            for (i, (ti, mi)) in list.iter().enumerate() {
                for (tj, mj) in &list[i + 1..] {
                    assert_ne!(mi, mj, "seed {seed}: {ti:?} and {tj:?} are one move");
                }
            }
            let one_beater = legal.to_beat.len() == 1 && legal.to_beat[0].beaters.len() == 1;
            if one_beater {
                checked += 1;
                assert_eq!(
                    list.iter()
                        .filter(
                            |(t, _)| t.starts_with("beat everything") || t.starts_with("beat only")
                        )
                        .count(),
                    1,
                    "seed {seed}: {list:?}"
                );
            }
        }
        assert!(checked > 0, "no deal with one attack card and one beater");
    }

    #[test]
    fn a_refused_move_names_its_rule_and_q_quits() {
        let setup = Setup {
            variant: Variant::Podkidnoy,
            players: 2,
            dealer: 0,
            first_game: true,
        };
        let game = Game::new(setup, 5).unwrap();
        let legal = game.legal().unwrap();
        let list = choices(&legal);
        assert_eq!(read_input(" q ", &list, &legal), Input::Quit);
        assert_eq!(read_input("?", &list, &legal), Input::Help);
        assert!(matches!(read_input("1", &list, &legal), Input::Play(_)));
        let Input::Retry(why) = read_input("99", &list, &legal) else {
            panic!("no choice 99")
        };
        assert!(why.starts_with("no choice 99"), "{why}");
        // A card not in the hand.
        assert_eq!(legal.decision.kind, DecisionKind::Attack);
        let c = (0..36)
            .filter_map(Card::from_index)
            .find(|c| !legal.hand.contains(*c))
            .unwrap();
        let Input::Retry(why) = read_input(&c.to_string(), &list, &legal) else {
            panic!("{c} is not in the hand")
        };
        assert!(why.starts_with("✗ "), "{why}");
    }

    /// The human seat holds the request line only; a move it refuses at the prompt is refused
    /// with the rule id and the words of the referee's `Game::check` (the fault it would cost).
    #[test]
    fn the_prompt_refuses_a_move_in_the_referees_words() {
        let game = Game::new(Setup::new(Variant::Podkidnoy, 3), 11).unwrap();
        let legal = game.legal().unwrap();
        let seat = legal.decision.seat;
        let obs = game.observation(seat);
        let req = durak_protocol::request(1, 0, &legal, &obs, 1000, 1000);
        let line = serde_json::to_value(&req).unwrap();
        let read = durak_protocol::legal_from_request(&line).unwrap();
        let list = choices(&read);
        let hand: Vec<Card> = legal.hand.iter().collect();
        let other_rank = hand.iter().find(|c| c.rank() != hand[0].rank()).unwrap();
        let not_held = (0..36)
            .filter_map(Card::from_index)
            .find(|c| !legal.hand.contains(*c))
            .unwrap();
        let typed = [
            format!("{} {other_rank}", hand[0]),
            not_held.to_string(),
            "pass".to_string(),
            "take".to_string(),
        ];
        for text in &typed {
            let mv = parse_move(text, legal.decision.kind).unwrap();
            let referee = game.check(seat, &mv).unwrap_err();
            assert_eq!(
                read_input(text, &list, &read),
                Input::Retry(format!(
                    "✗ {}: {} — try again",
                    referee.rule, referee.message
                )),
                "{text:?}"
            );
        }
    }
}
