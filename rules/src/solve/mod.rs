//! Exact values of endgames: once the stock is empty and two players remain (a two-player game,
//! or the last two of a larger table), every card's place is known to both (the discard was seen,
//! C-7 and I-1; the rest is in the two hands), so the rest of the game is a game of perfect
//! information. [`Solver`] gives its value — win, draw or loss — for the player to move or for a
//! seat, and the value of each legal choice, in both variants.
//!
//! Pure and deterministic: no I/O, no clock. The budget is a number of positions searched, never
//! a time: a position that needs more says [`Unsolved::OverBudget`], never a guess.
//!
//! The search is alpha-beta over the values -1, 0, +1 with a transposition table keyed by the
//! position (`Game::endgame_key`: both hands, the table, the limit, the take, whose decision), each
//! entry a lower and an upper bound and the best choice found. Moves come from the rules engine
//! itself (`Game::apply_into` checks every one), so the solver cannot drift from the rules.
//!
//! **No cycles.** Durak has no rule that ends a game going round in circles (the referee's move
//! limit does, as a draw), but two players cannot go round in circles once the stock is empty:
//! a card leaves a hand only to the table, and from the table goes to the discard (for good) or to
//! the defender's hand. With two players a take never changes the attacker (P-11, K-11: the next
//! active player after the defender is the attacker again), so until a card is discarded cards
//! only move from the attacker's hand to the defender's, and the attacker's hand shrinks at every
//! turn. So every turn either discards a card or shrinks the attacker's hand, each decision inside
//! a turn adds a card to the table or ends the turn, and no position repeats: the positions form a
//! finite acyclic graph, and every value is that of the game played to its end. (With three or
//! more players a taker is skipped and cards can pass round the table forever, which is why the
//! solver starts only at two.) The values ignore the referee's `max_moves` draw, far above any
//! endgame's length.

mod moves;

use crate::game::Game;
use crate::types::{Event, Legal, Move, Seat};
use std::collections::HashMap;
use std::fmt;

/// The value of a position for one player, with perfect play by both from here (C-9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// The player ends as the durak.
    Loss = -1,
    /// Both hands run out together (C-9: nobody loses).
    Draw = 0,
    /// The other player ends as the durak.
    Win = 1,
}

impl Value {
    fn from_i8(v: i8) -> Value {
        match v {
            i8::MIN..=-1 => Value::Loss,
            0 => Value::Draw,
            _ => Value::Win,
        }
    }

    /// The value for the other of the two players (the game is zero-sum: one durak or a draw).
    pub fn flip(self) -> Value {
        Value::from_i8(-(self as i8))
    }

    pub fn name(self) -> &'static str {
        match self {
            Value::Loss => "loss",
            Value::Draw => "draw",
            Value::Win => "win",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a position has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsolved {
    /// The stock still has cards or more than two players remain: hidden cards, not solvable
    /// exactly.
    NotEndgame,
    /// The game is over: there is no player to move (its result is [`Game::outcome`]).
    Over,
    /// The search needed more than its budget of positions; `nodes` were searched.
    OverBudget { nodes: u64 },
}

impl fmt::Display for Unsolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsolved::NotEndgame => {
                f.write_str("not an endgame: cards in the stock or more than two players")
            }
            Unsolved::Over => f.write_str("the game is over"),
            Unsolved::OverBudget { nodes } => {
                write!(
                    f,
                    "not solved within the budget ({nodes} positions searched)"
                )
            }
        }
    }
}

impl std::error::Error for Unsolved {}

/// One legal choice and its value for the player who makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// One move of the class of moves that lead to the same position (see `moves.rs`).
    pub mv: Move,
    pub value: Value,
}

/// The default budget: positions searched per question before giving up.
pub const DEFAULT_BUDGET: u64 = 2_000_000;

#[derive(Clone, Copy)]
struct Entry {
    lo: i8,
    hi: i8,
    /// The index of the best choice found, tried first next time.
    best: u8,
}

/// An endgame solver. Keeps what it learned between questions (a game's positions share most of
/// their continuations), so ask it about one game's positions in order.
pub struct Solver {
    budget: u64,
    searched: u64,
    total: u64,
    table: HashMap<[u64; 4], Entry, foldhash::fast::FixedState>,
    events: Vec<Event>,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new(DEFAULT_BUDGET)
    }
}

struct Abort;

impl Solver {
    /// A solver that searches at most `budget` positions per question.
    pub fn new(budget: u64) -> Solver {
        Solver {
            budget,
            searched: 0,
            total: 0,
            table: HashMap::default(),
            events: Vec::with_capacity(32),
        }
    }

    /// Positions searched over every question so far.
    pub fn nodes(&self) -> u64 {
        self.total
    }

    /// Forget every position learned (the memory they took is kept for reuse).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The value of `game` for the player to move.
    pub fn value(&mut self, game: &Game) -> Result<Value, Unsolved> {
        if game.is_over() {
            return Err(Unsolved::Over);
        }
        game.endgame_seats().ok_or(Unsolved::NotEndgame)?;
        self.searched = 0;
        let v = self.null_windows(game);
        self.total += self.searched;
        match v {
            Ok(v) => Ok(Value::from_i8(v)),
            Err(Abort) => Err(Unsolved::OverBudget {
                nodes: self.searched,
            }),
        }
    }

    /// The value of `game` for `seat`: its result once over (C-9), else as [`Solver::value`].
    pub fn value_for(&mut self, game: &Game, seat: Seat) -> Result<Value, Unsolved> {
        if let Some(o) = game.outcome() {
            return Ok(outcome_for(o.loser, seat));
        }
        let mover = game.decision().expect("not over").seat;
        let v = self.value(game)?;
        Ok(if mover == seat { v } else { v.flip() })
    }

    /// Every distinct legal choice of the player to move, each with its value for that player,
    /// in the order the rules engine's hand gives them.
    pub fn choices(&mut self, game: &Game) -> Result<Vec<Choice>, Unsolved> {
        if game.is_over() {
            return Err(Unsolved::Over);
        }
        game.endgame_seats().ok_or(Unsolved::NotEndgame)?;
        let mut legal = Legal::empty();
        game.legal_into(&mut legal);
        let me = legal.decision.seat;
        let mut list = Vec::new();
        moves::choices(game, &legal, &mut list);
        let mut out = Vec::with_capacity(list.len());
        for mv in list {
            let child = self.child(game, me, &mv);
            let value = self.value_for(&child, me)?;
            out.push(Choice { mv, value });
        }
        Ok(out)
    }

    /// The exact value by two null-window searches (MTD style): is it a win (a search of the
    /// window (0, 1)), and if not, is it at least a draw (-1, 0)? A narrow window cuts far more
    /// than the full one, and the table keeps the bounds each search proved.
    fn null_windows(&mut self, game: &Game) -> Result<i8, Abort> {
        if self.search(game, 0, 1)? >= 1 {
            return Ok(1);
        }
        Ok(if self.search(game, -1, 0)? >= 0 {
            0
        } else {
            -1
        })
    }

    fn child(&mut self, game: &Game, seat: Seat, mv: &Move) -> Game {
        let mut child = game.clone();
        self.events.clear();
        child
            .apply_into(seat, mv, &mut self.events)
            .expect("the solver's moves are legal");
        child
    }

    /// Negamax with alpha-beta: the value for the player to move, exact inside `(alpha, beta)`,
    /// else a bound on the side it fell.
    fn search(&mut self, game: &Game, mut alpha: i8, mut beta: i8) -> Result<i8, Abort> {
        self.searched += 1;
        if self.searched > self.budget {
            return Err(Abort);
        }
        let key = game.endgame_key();
        let mut first = 0usize;
        if let Some(e) = self.table.get(&key) {
            if e.lo == e.hi || e.lo >= beta {
                return Ok(e.lo);
            }
            if e.hi <= alpha {
                return Ok(e.hi);
            }
            alpha = alpha.max(e.lo);
            beta = beta.min(e.hi);
            first = e.best as usize;
        }
        let mut legal = Legal::empty();
        game.legal_into(&mut legal);
        let me = legal.decision.seat;
        let mut list = Vec::new();
        moves::choices(game, &legal, &mut list);
        moves::order(game.trump(), &mut list);
        if first < list.len() {
            list.swap(0, first);
        }
        let (a0, b0) = (alpha, beta);
        let mut best = -2i8;
        let mut best_at = 0usize;
        for (i, mv) in list.iter().enumerate() {
            let child = self.child(game, me, mv);
            let v = match child.outcome() {
                Some(o) => outcome_for(o.loser, me) as i8,
                None => {
                    let next = child.decision().expect("not over").seat;
                    if next == me {
                        self.search(&child, alpha, beta)?
                    } else {
                        -self.search(&child, -beta, -alpha)?
                    }
                }
            };
            if v > best {
                best = v;
                best_at = i;
            }
            alpha = alpha.max(v);
            if alpha >= beta || best == 1 {
                break;
            }
        }
        // `best_at` indexes the list after the swap: record it in the unswapped order.
        let best_index = match best_at {
            0 => first,
            i if i == first => 0,
            i => i,
        };
        let e = self.table.entry(key).or_insert(Entry {
            lo: -1,
            hi: 1,
            best: 0,
        });
        if best <= a0 {
            e.hi = e.hi.min(best);
        } else if best >= b0 {
            e.lo = e.lo.max(best);
        } else {
            e.lo = best;
            e.hi = best;
        }
        e.best = best_index.min(u8::MAX as usize) as u8;
        Ok(best)
    }
}

fn outcome_for(loser: Option<Seat>, seat: Seat) -> Value {
    match loser {
        None => Value::Draw,
        Some(l) if l == seat => Value::Loss,
        Some(_) => Value::Win,
    }
}
