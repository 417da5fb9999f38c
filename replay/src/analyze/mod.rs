//! Where a game was lost: the exact value of every decision of its endgame (`durak analyze`).
//!
//! The replay is re-simulated ([`crate::simulate`]); from the first decision where the stock is
//! empty and two players remain (every card's place known to both: `durak_rules::solve`), each
//! decision is valued for the player who made it: its value before (`value`), after the recorded
//! move (`value_after`), the best choices, and a *blunder* when the move lowered the value. The
//! summary counts, per seat, the decisions valued, the blunders, and whether the seat threw the
//! game away (held a won position at one of its decisions and did not win).
//!
//! Deterministic: the same replay and budget give the same analysis (the solver counts positions,
//! not time, and is asked about the steps in order).

mod render;

pub use render::{to_json, to_text};

use crate::sim::{Simulation, Step};
use durak_rules::solve::{Solver, Unsolved, Value, DEFAULT_BUDGET};
use durak_rules::{Game, Move, Seat};

/// The analysis of one game.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The replay's name, as the simulation has it.
    pub source: String,
    /// Whether the replay verified (an analysis of a replay that did not is of the part the
    /// engine could follow).
    pub verified: bool,
    /// The first step (1-based) of the solved part: the first decision with an empty stock and
    /// two players left; `None` when the game never got there.
    pub endgame_from: Option<usize>,
    /// Every decision from `endgame_from` on, in order.
    pub decisions: Vec<Decision>,
    /// The game's result: the durak, `None` for a draw (or no result).
    pub loser: Option<Seat>,
    pub draw: bool,
    /// One entry per seat.
    pub seats: Vec<SeatSummary>,
    /// Positions the solver searched for this analysis.
    pub nodes: u64,
}

/// One decision of the solved part.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The step (1-based, as `durak replay` numbers them).
    pub step: usize,
    pub seat: Seat,
    /// the referee played the only answer; never a blunder.
    pub forced: bool,
    /// The recorded move (`None`: the seat faulted instead).
    pub mv: Option<Move>,
    /// The value for `seat` before the move (`Err`: not solved within the budget).
    pub value: Result<Value, Unsolved>,
    /// The value for `seat` after the recorded move (its result if the game ended, a loss after
    /// a fault).
    pub value_after: Result<Value, Unsolved>,
    /// The choices that keep `value` (empty for forced moves and unsolved positions).
    pub best: Vec<Move>,
    /// The number of distinct choices the seat had.
    pub choices: usize,
}

impl Decision {
    /// The move lowered the seat's value (both values known).
    pub fn blunder(&self) -> bool {
        matches!((self.value, self.value_after), (Ok(b), Ok(a)) if a < b)
    }

    /// A decision both values of which are known.
    pub fn valued(&self) -> bool {
        self.value.is_ok() && self.value_after.is_ok()
    }
}

/// What the analysis says of one seat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatSummary {
    pub seat: Seat,
    /// Its label (`python3 bot.py (flaky)`, `Header::seat_label`).
    pub name: String,
    /// The seat as texts name it: `seat 1 (python3 bot.py, named flaky)` (`Header::seat_name`:
    /// no parentheses in parentheses).
    pub seat_name: String,
    /// The seat's own decisions (not forced) valued exactly.
    pub decisions: usize,
    /// Those that lowered its value.
    pub blunders: usize,
    /// The first of them (its step).
    pub first_blunder: Option<usize>,
    /// Decisions of the seat (not forced) the solver could not value within the budget.
    pub unsolved: usize,
    /// The seat held a won position at one of its decisions and did not win.
    pub threw_won_game: bool,
    /// The value at the seat's first decision of the solved part.
    pub endgame_value: Option<Value>,
}

impl Analysis {
    /// Every blunder, in order.
    pub fn blunders(&self) -> impl Iterator<Item = &Decision> {
        self.decisions.iter().filter(|d| d.blunder())
    }

    /// The decision at `step`, if it is in the solved part.
    pub fn at(&self, step: usize) -> Option<&Decision> {
        self.decisions.iter().find(|d| d.step == step)
    }

    /// The first blunder after step `step` (1-based), wrapping to the first one.
    pub fn next_blunder(&self, step: usize) -> Option<usize> {
        let mut all = self.blunders().map(|d| d.step);
        let first = all.next()?;
        if first > step {
            return Some(first);
        }
        all.find(|&s| s > step).or(Some(first))
    }
}

/// Endgame accuracy over many games (a bot's in a tournament report, a version's on the judge
/// service): how many of its solved decisions kept its value, from each game's [`SeatSummary`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accuracy {
    /// Games in which at least one of the seat's decisions was valued.
    pub games: u64,
    /// Its own decisions (not forced) valued exactly.
    pub decisions: u64,
    /// Those that lowered its value.
    pub blunders: u64,
    /// Games with at least one blunder.
    pub games_with_blunders: u64,
    /// Games it threw away from a won position.
    pub thrown: u64,
}

impl Accuracy {
    /// Count one game's seat.
    pub fn add(&mut self, s: &SeatSummary) {
        if s.decisions == 0 {
            return;
        }
        self.games += 1;
        self.decisions += s.decisions as u64;
        self.blunders += s.blunders as u64;
        self.games_with_blunders += u64::from(s.blunders > 0);
        self.thrown += u64::from(s.threw_won_game);
    }

    /// Count another tally's games.
    pub fn merge(&mut self, o: &Accuracy) {
        self.games += o.games;
        self.decisions += o.decisions;
        self.blunders += o.blunders;
        self.games_with_blunders += o.games_with_blunders;
        self.thrown += o.thrown;
    }

    /// The share of the valued decisions that kept the value (0 to 1); `None` without any.
    pub fn share(&self) -> Option<f64> {
        (self.decisions > 0)
            .then(|| (self.decisions - self.blunders) as f64 / self.decisions as f64)
    }

    /// `97.2 % of 431 solved decisions kept the value (12 blunders in 9 games)`, or `None`.
    pub fn text(&self) -> Option<String> {
        let share = self.share()?;
        let s = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        Some(format!(
            "{:.1} % of {} kept the value ({} in {})",
            share * 100.0,
            s(self.decisions, "solved decision", "solved decisions"),
            s(self.blunders, "blunder", "blunders"),
            s(self.games_with_blunders, "game", "games"),
        ))
    }
}

/// Analyse a simulated game with the solver's default budget per position.
pub fn analyze(sim: &Simulation) -> Analysis {
    analyze_with(sim, &mut Solver::new(DEFAULT_BUDGET))
}

/// Analyse a simulated game with a fresh solver of `budget` positions per decision (the
/// tournament report's and the judge service's, which value many games).
pub fn analyze_within(sim: &Simulation, budget: u64) -> Analysis {
    analyze_with(sim, &mut Solver::new(budget))
}

/// Analyse a simulated game with a given solver (its budget, and what it already learned).
pub fn analyze_with(sim: &Simulation, solver: &mut Solver) -> Analysis {
    let before = solver.nodes();
    let players = sim.header.players;
    let end = sim.end();
    let mut decisions = Vec::new();
    for step in &sim.steps {
        let Some(d) = step.decision else { continue };
        if step.state.endgame_seats().is_none() {
            continue;
        }
        decisions.push(value_step(solver, step, d.seat));
    }
    let loser = end.loser;
    let draw = end.draw;
    let mut seats: Vec<SeatSummary> = (0..players)
        .map(|seat| SeatSummary {
            seat,
            name: sim.header.seat_label(seat),
            seat_name: sim.header.seat_name(seat),
            ..SeatSummary::default()
        })
        .collect();
    for d in &decisions {
        let s = &mut seats[d.seat];
        if s.endgame_value.is_none() {
            s.endgame_value = d.value.ok();
        }
        if d.forced {
            continue;
        }
        if d.valued() {
            s.decisions += 1;
        } else {
            s.unsolved += 1;
        }
        if d.blunder() {
            s.blunders += 1;
            s.first_blunder.get_or_insert(d.step);
        }
        let won = end.started && !draw && loser.is_some_and(|l| l != d.seat);
        if d.value == Ok(Value::Win) && !won {
            s.threw_won_game = true;
        }
    }
    Analysis {
        source: sim.source.clone(),
        verified: sim.verified(),
        endgame_from: decisions.first().map(|d| d.step),
        decisions,
        loser,
        draw,
        seats,
        nodes: solver.nodes() - before,
    }
}

fn value_step(solver: &mut Solver, step: &Step, seat: Seat) -> Decision {
    let game = &step.state;
    let mut d = Decision {
        step: step.number,
        seat,
        forced: step.forced,
        mv: step.mv,
        value: Err(Unsolved::NotEndgame),
        value_after: Err(Unsolved::NotEndgame),
        best: Vec::new(),
        choices: 0,
    };
    if step.forced {
        d.value = solver.value_for(game, seat);
        d.choices = 1;
    } else {
        match solver.choices(game) {
            Ok(choices) => {
                let v = choices.iter().map(|c| c.value).max().expect("a choice");
                d.value = Ok(v);
                d.choices = choices.len();
                d.best = choices
                    .iter()
                    .filter(|c| c.value == v)
                    .map(|c| c.mv)
                    .collect();
            }
            Err(e) => d.value = Err(e),
        }
    }
    d.value_after = match step.mv {
        // A fault (a refused, late or missing answer) loses the game for the seat.
        None if step.refused.is_some() || !step.faults.is_empty() => Ok(Value::Loss),
        None => Err(Unsolved::Over),
        Some(mv) => after(solver, game, seat, &mv),
    };
    d
}

fn after(solver: &mut Solver, game: &Game, seat: Seat, mv: &Move) -> Result<Value, Unsolved> {
    let mut child = game.clone();
    match child.apply(seat, mv) {
        Ok(_) => solver.value_for(&child, seat),
        // The simulation applied it; a move it refused ends the game with a fault.
        Err(_) => Ok(Value::Loss),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(step: usize, value: Value, after: Value) -> Decision {
        Decision {
            step,
            seat: step % 2,
            forced: false,
            mv: Some(Move::Pass),
            value: Ok(value),
            value_after: Ok(after),
            best: vec![Move::Pass],
            choices: 2,
        }
    }

    #[test]
    fn next_blunder_goes_forward_and_wraps() {
        let a = Analysis {
            source: "g".into(),
            verified: true,
            endgame_from: Some(3),
            decisions: vec![
                decision(3, Value::Win, Value::Win),
                decision(4, Value::Win, Value::Loss),
                decision(5, Value::Draw, Value::Draw),
                decision(6, Value::Draw, Value::Loss),
            ],
            loser: Some(0),
            draw: false,
            seats: vec![],
            nodes: 0,
        };
        assert_eq!(a.blunders().map(|d| d.step).collect::<Vec<_>>(), [4, 6]);
        assert_eq!(a.next_blunder(1), Some(4));
        assert_eq!(a.next_blunder(4), Some(6));
        assert_eq!(a.next_blunder(6), Some(4));
        assert!(a.at(5).is_some_and(|d| !d.blunder() && d.valued()));
        let none = Analysis {
            decisions: vec![decision(3, Value::Loss, Value::Loss)],
            ..a
        };
        assert_eq!(none.next_blunder(0), None);
    }

    #[test]
    fn accuracy_counts_the_valued_decisions_and_blunders() {
        let mut acc = Accuracy::default();
        assert_eq!(acc.share(), None);
        assert_eq!(acc.text(), None);
        let seat = |decisions, blunders, threw| SeatSummary {
            decisions,
            blunders,
            threw_won_game: threw,
            ..SeatSummary::default()
        };
        acc.add(&seat(0, 0, false)); // no endgame decision: not a game of the tally
        acc.add(&seat(6, 0, false));
        acc.add(&seat(4, 2, true));
        assert_eq!(
            acc,
            Accuracy {
                games: 2,
                decisions: 10,
                blunders: 2,
                games_with_blunders: 1,
                thrown: 1
            }
        );
        assert_eq!(acc.share(), Some(0.8));
        assert_eq!(
            acc.text().unwrap(),
            "80.0 % of 10 solved decisions kept the value (2 blunders in 1 game)"
        );
        let mut two = acc;
        two.merge(&acc);
        assert_eq!((two.games, two.decisions, two.blunders), (4, 20, 4));
        assert_eq!(two.share(), Some(0.8));
    }

    #[test]
    fn an_unsolved_value_is_never_a_blunder() {
        let mut d = decision(3, Value::Win, Value::Loss);
        assert!(d.blunder());
        d.value = Err(Unsolved::OverBudget { nodes: 10 });
        assert!(!d.blunder() && !d.valued());
    }
}
