//! Judging a bot's answer, in one place: every reader of an answer line (the referee,
//! `durak check-bot`, `durak rerun`, `durak replay --raw` and the replay's re-simulation) takes
//! the same steps in the same order, so a line is accepted or refused, and for the same reason,
//! wherever it is judged:
//!
//! 1. the line is UTF-8 JSON (else fault `malformed`);
//! 2. it is an answer of the right shape, `type` included (the schema, `schemas/answer.json`;
//!    fault `schema` with the JSON pointer). A well-formed answer is read by a typed parser
//!    that takes only what the schema takes (`answer.rs`), without the schema's validator; any
//!    other line goes through steps 1 and 2 as written, which word its refusal;
//! 3. it echoes the open request's id (fault `schema` at `/id`);
//! 4. the rules allow its move ([`Game::check`]; fault `illegal` with the rule id);
//! 5. a refusal becomes the seat's [`Fault`] ([`Refusal::fault`]).

use crate::answer::typed_answer;
use crate::messages::{check_answer_id, parse_answer, parse_line, Fault, FaultKind, Refusal};
use durak_rules::{Game, Illegal, Move, Seat};
use std::borrow::Cow;

/// Judge `line`, `seat`'s answer to its open request `id` in `game` (steps 1 to 4): its move,
/// or why it is refused.
pub fn judge_answer(line: &[u8], id: u64, game: &Game, seat: Seat) -> Result<Move, Refusal> {
    let (answer_id, mv) = match typed_answer(line) {
        Some(answer) => answer,
        None => parse_answer(&parse_line(line)?)?,
    };
    check_answer_id(answer_id, id)?;
    game.check(seat, &mv).map_err(Refusal::illegal)?;
    Ok(mv)
}

impl Refusal {
    /// A move the rules refuse (fault `illegal`, with the rule it breaks).
    pub fn illegal(e: Illegal) -> Refusal {
        Refusal {
            kind: FaultKind::Illegal,
            rule: Some(e.rule),
            pointer: None,
            message: e.message,
        }
    }

    /// Whether the answer got past the id check (steps 1 to 3): only the rules refused it.
    pub fn echoed_the_id(&self) -> bool {
        self.kind == FaultKind::Illegal
    }

    /// The refusal as a fault's detail and a replay's `refused`: an illegal move's rule first
    /// (`P-5: ...`, as [`Illegal`] writes it), any other refusal's message as it is.
    pub fn detail(&self) -> Cow<'_, str> {
        match (self.kind, self.rule) {
            (FaultKind::Illegal, Some(rule)) => Cow::Owned(format!("{rule}: {}", self.message)),
            _ => Cow::Borrowed(&self.message),
        }
    }

    /// Step 5: the refusal as `seat`'s fault.
    pub fn fault(&self, seat: Seat) -> Fault {
        Fault {
            seat,
            kind: self.kind,
            detail: self.detail().into_owned(),
            rule: self.rule.map(str::to_string),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use durak_rules::{Setup, Variant};

    fn game() -> (Game, Seat) {
        let g = Game::new(Setup::new(Variant::Podkidnoy, 2), 7).unwrap();
        let seat = g.legal().unwrap().decision.seat;
        (g, seat)
    }

    /// Each step refuses what it should, with its fault kind, in order: a line that fails
    /// several steps is refused by the first.
    #[test]
    fn each_step_refuses_in_order() {
        let (g, seat) = game();
        let judge = |line: &str| judge_answer(line.as_bytes(), 1, &g, seat);
        let r = judge("{not json").unwrap_err();
        assert_eq!((r.kind, r.echoed_the_id()), (FaultKind::Malformed, false));
        let r = judge(r#"{"type":"hello","id":9}"#).unwrap_err();
        assert_eq!(r.kind, FaultKind::Schema, "the kind of message: {r}");
        let r = judge(r#"{"type":"answer","id":2,"action":"take"}"#).unwrap_err();
        assert_eq!(
            (r.kind, r.pointer.as_deref()),
            (FaultKind::Schema, Some("/id"))
        );
        // Take is never legal for the first attacker: the rules refuse it, the id was right.
        let r = judge(r#"{"type":"answer","id":1,"action":"take"}"#).unwrap_err();
        assert_eq!(r.kind, FaultKind::Illegal);
        assert!(r.echoed_the_id());
        let rule = r.rule.unwrap();
        assert_eq!(r.detail(), format!("{rule}: {}", r.message));
        let f = r.fault(seat);
        assert_eq!(
            (f.seat, f.kind, f.rule.as_deref(), f.detail.as_str()),
            (seat, FaultKind::Illegal, Some(rule), &*r.detail())
        );
        // A schema refusal's detail is its message.
        let r = judge(r#"{"type":"answer","id":1}"#).unwrap_err();
        assert_eq!(r.detail(), r.message);
    }

    #[test]
    fn a_legal_answer_is_its_move() {
        let (g, seat) = game();
        let legal = g.legal().unwrap();
        let card = legal.hand.iter().next().unwrap();
        let line = format!(r#"{{"type":"answer","id":1,"action":"attack","cards":["{card}"]}}"#);
        let mv = judge_answer(line.as_bytes(), 1, &g, seat).unwrap();
        assert!(g.check(seat, &mv).is_ok());
    }

    /// Moves to try at a decision, most of them illegal: every card alone as an attack (with
    /// and without the exchange), an addition and a defence of each card on the table; the whole
    /// hand; take, pass and the empty defence.
    fn tries(legal: &durak_rules::Legal) -> Vec<Move> {
        use durak_rules::{Card, CardSet, Pairs};
        let mut out = vec![
            Move::Take,
            Move::Pass,
            Move::Defend {
                pairs: Pairs::EMPTY,
                exchange: false,
            },
            Move::Attack {
                cards: legal.hand,
                exchange: false,
            },
            Move::Add { cards: legal.hand },
        ];
        for c in (0..36).filter_map(Card::from_index) {
            out.push(Move::Add {
                cards: CardSet::single(c),
            });
            for exchange in [false, true] {
                out.push(Move::Attack {
                    cards: CardSet::single(c),
                    exchange,
                });
                for &(a, _) in &legal.view.table {
                    let mut pairs = Pairs::EMPTY;
                    pairs.push(a, c);
                    out.push(Move::Defend { pairs, exchange });
                }
            }
        }
        out
    }

    /// A person's seat holds only the request line (`legal_from_request`; a Rust bot,
    /// `read_for_bot`): every move tried there, legal or not, is judged as the referee's
    /// `Game::check` judges it, with the same rule id and the same words, in games of every
    /// variant and table size.
    #[test]
    fn a_request_line_judges_a_move_as_the_referee_does() {
        use durak_rules::random::{random_move, SmallRng};
        use durak_rules::{Setup, Variant};
        let (mut tried, mut refused) = (0, 0);
        for variant in [Variant::Prostoy, Variant::Podkidnoy] {
            for players in variant.players() {
                for seed in 0..3 {
                    let mut g = Game::new(Setup::new(variant, players), seed).unwrap();
                    let mut rng = SmallRng::new(seed);
                    while let Some(legal) = g.legal() {
                        let seat = legal.decision.seat;
                        let obs = g.observation(seat);
                        let req = crate::messages::request(7, 0, &legal, &obs, 1000, 1000);
                        let line = serde_json::to_string(&req).unwrap();
                        let read = crate::legal_from_request(&serde_json::from_str(&line).unwrap())
                            .unwrap();
                        assert_eq!(read.view, legal.view, "{line}");
                        let Ok(crate::bot::ForBot::Request { legal: bot, .. }) =
                            crate::bot::read_for_bot(&line)
                        else {
                            panic!("a request: {line}")
                        };
                        assert_eq!(bot.view, legal.view, "{line}");
                        for m in tries(&legal) {
                            let referee = g.check(seat, &m);
                            assert_eq!(read.allows(&m), referee, "{m:?} at {line}");
                            tried += 1;
                            refused += usize::from(referee.is_err());
                        }
                        let mv = random_move(&legal, &mut rng);
                        g.apply(seat, &mv).unwrap();
                    }
                }
            }
        }
        assert!(refused > 10_000 && tried > refused, "{refused} of {tried}");
    }
}
