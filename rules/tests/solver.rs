//! The endgame solver (`durak_rules::solve`) against a plain minimax.
//!
//! Positions: random games (random and greedy moves, every variant, two players or the last two
//! of three or four) played until the stock is empty, two players remain and few cards are left in
//! the hands and on the table. There the solver's value of the position and of every one of its
//! choices must equal a plain minimax over *every* legal move, found by brute force (every subset
//! of the hand tried with `Game::check`, every assignment of hand cards to unbeaten attack cards):
//! no transposition table, no pruning, no merging of equivalent moves, so it shares nothing with
//! the solver but the engine.
//!
//! Size: `DURAK_PROPTEST_GAMES` (default 1000) cases per property.

use durak_rules::random::{greedy_move, random_move, SmallRng};
use durak_rules::solve::{Solver, Unsolved, Value};
use durak_rules::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// At most this many cards in both hands and on the table where the minimax is run.
const SMALL: usize = 7;

fn cases() -> u32 {
    std::env::var("DURAK_PROPTEST_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

fn endgame_cards(g: &Game) -> usize {
    (0..g.players()).map(|s| g.hand(s).len()).sum::<usize>() + g.table_cards().len()
}

/// Play `seed`'s game until a small endgame with a decision; `None` if the game ends first.
fn small_endgame(variant: Variant, players: usize, seed: u64, small: usize) -> Option<Game> {
    let setup = Setup {
        variant,
        players,
        dealer: (seed % players as u64) as usize,
        first_game: seed & 1 == 0,
    };
    let mut g = Game::new(setup, seed).unwrap();
    let mut rng = SmallRng::new(seed ^ 0x5EED);
    for _ in 0..3_000 {
        let legal = g.legal()?;
        if g.endgame_seats().is_some() && endgame_cards(&g) <= small {
            return Some(g);
        }
        let mv = if rng.below(3) == 0 {
            greedy_move(&legal, g.trump())
        } else {
            random_move(&legal, &mut rng)
        };
        g.apply(legal.decision.seat, &mv).unwrap();
    }
    None
}

/// Every legal move of the decision, by trying every move built from the mover's hand.
fn all_moves(g: &Game) -> Vec<Move> {
    let d = g.decision().unwrap();
    let hand: Vec<Card> = g.hand(d.seat).iter().collect();
    let mut out = Vec::new();
    let mut try_move = |m: Move| {
        if g.check(d.seat, &m).is_ok() && !out.contains(&m) {
            out.push(m);
        }
    };
    try_move(Move::Take);
    try_move(Move::Pass);
    for mask in 1u32..(1 << hand.len()) {
        let cards: CardSet = (0..hand.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| hand[i])
            .collect();
        try_move(Move::Attack {
            cards,
            exchange: false,
        });
        try_move(Move::Add { cards });
    }
    let unbeaten: Vec<Card> = g
        .table()
        .into_iter()
        .filter(|(_, d)| d.is_none())
        .map(|(a, _)| a)
        .collect();
    let choices = hand.len() as u64 + 1;
    for code in 0..choices.pow(unbeaten.len() as u32) {
        let mut x = code;
        let mut pairs = Pairs::EMPTY;
        for &a in &unbeaten {
            let pick = (x % choices) as usize;
            x /= choices;
            if pick > 0 {
                pairs.push(a, hand[pick - 1]);
            }
        }
        try_move(Move::Defend {
            pairs,
            exchange: false,
        });
    }
    out
}

/// The value of `g` for `seat` by plain minimax over every legal move.
fn minimax(g: &Game, seat: Seat) -> Value {
    if let Some(o) = g.outcome() {
        return match o.loser {
            None => Value::Draw,
            Some(l) if l == seat => Value::Loss,
            Some(_) => Value::Win,
        };
    }
    let mover = g.decision().unwrap().seat;
    let values = all_moves(g).into_iter().map(|m| {
        let mut child = g.clone();
        child.apply(mover, &m).unwrap();
        minimax(&child, seat)
    });
    if mover == seat {
        values.max().unwrap()
    } else {
        values.min().unwrap()
    }
}

fn check_position(g: &Game) {
    let mover = g.decision().unwrap().seat;
    let (p, q) = g.endgame_seats().unwrap();
    let mut solver = Solver::new(u64::MAX);
    let expected = minimax(g, mover);
    assert_eq!(solver.value(g), Ok(expected), "value of {g:?}");
    assert_eq!(solver.value_for(g, mover), Ok(expected));
    let other = if mover == p { q } else { p };
    assert_eq!(solver.value_for(g, other), Ok(expected.flip()));
    // Each choice: its value is the minimax value of the position it leads to, the best of them
    // is the position's value, and together they are every legal move (up to equivalence).
    let choices = solver.choices(g).unwrap();
    let all = all_moves(g);
    assert!(!choices.is_empty() && choices.len() <= all.len());
    for c in &choices {
        assert!(all.contains(&c.mv), "{:?} is a legal move", c.mv);
        let mut child = g.clone();
        child.apply(mover, &c.mv).unwrap();
        assert_eq!(
            c.value,
            minimax(&child, mover),
            "choice {:?} of {g:?}",
            c.mv
        );
    }
    assert_eq!(choices.iter().map(|c| c.value).max(), Some(expected));
    // Every legal move's value is that of some choice (no legal move left out): a fresh solver
    // values every move's child the same as minimax.
    let mut fresh = Solver::new(u64::MAX);
    for m in all {
        let mut child = g.clone();
        child.apply(mover, &m).unwrap();
        assert_eq!(fresh.value_for(&child, mover), Ok(minimax(&child, mover)));
    }
}

fn config() -> Config {
    Config {
        cases: cases() / 5,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn solver_agrees_with_minimax_on_small_endgames(
        seed in any::<u64>(),
        podkidnoy in any::<bool>(),
        players in prop_oneof![4 => Just(2usize), 1 => Just(3usize), 1 => Just(4usize)],
    ) {
        let variant = if podkidnoy { Variant::Podkidnoy } else { Variant::Prostoy };
        if let Some(g) = small_endgame(variant, players, seed, SMALL) {
            check_position(&g);
        }
    }
}

/// Over a fixed sweep every value occurs (so the property above is not vacuous) and most games
/// reach a small endgame.
#[test]
fn fixed_sweep_meets_every_value_in_both_variants() {
    for variant in Variant::ALL {
        let mut seen = [0usize; 3];
        let mut found = 0;
        for seed in 0..200 {
            let Some(g) = small_endgame(variant, 2, seed, SMALL) else {
                continue;
            };
            found += 1;
            check_position(&g);
            let v = Solver::default().value(&g).unwrap();
            seen[(v as i8 + 1) as usize] += 1;
        }
        assert!(
            found >= 100,
            "{variant}: {found} small endgames of 200 games"
        );
        assert!(
            seen.iter().all(|&n| n > 0),
            "{variant}: values seen {seen:?}"
        );
    }
}

/// Whole endgames (every card left, not only small ones): most are solved within the default
/// budget, and a budget too small says so instead of guessing.
#[test]
fn a_budget_too_small_says_not_solved() {
    let (mut solved, mut over) = (0, 0);
    for seed in 0..40 {
        let Some(g) = small_endgame(Variant::Podkidnoy, 2, seed, 36) else {
            continue;
        };
        let full = match Solver::default().value(&g) {
            Ok(v) => v,
            Err(Unsolved::OverBudget { nodes }) => {
                assert_eq!(nodes, durak_rules::solve::DEFAULT_BUDGET + 1);
                continue;
            }
            Err(e) => panic!("seed {seed}: {e}"),
        };
        solved += 1;
        match Solver::new(3).value(&g) {
            Ok(v) => assert_eq!(v, full),
            Err(Unsolved::OverBudget { nodes }) => {
                assert_eq!(nodes, 4);
                over += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        solved >= 30,
        "{solved} of 40 endgames solved within the default budget"
    );
    assert!(over > 10, "{over} positions over a budget of 3");
}

#[test]
fn positions_that_are_not_endgames_are_refused() {
    let g = Game::new(Setup::new(Variant::Prostoy, 2), 7).unwrap();
    assert_eq!(Solver::default().value(&g), Err(Unsolved::NotEndgame));
    assert_eq!(
        Solver::default().choices(&g).unwrap_err(),
        Unsolved::NotEndgame
    );
    // Three players with an empty stock: not yet two.
    let mut found = false;
    for seed in 0..50 {
        let setup = Setup::new(Variant::Podkidnoy, 3);
        let mut g = Game::new(setup, seed).unwrap();
        let mut rng = SmallRng::new(seed);
        while let Some(l) = g.legal() {
            if g.stock_len() == 0 && (0..3).all(|s| g.is_active(s)) {
                assert_eq!(g.endgame_seats(), None);
                assert_eq!(Solver::default().value(&g), Err(Unsolved::NotEndgame));
                found = true;
                break;
            }
            g.apply(l.decision.seat, &random_move(&l, &mut rng))
                .unwrap();
        }
    }
    assert!(found);
    // A finished game has no player to move, but each seat has its result.
    let mut g = small_endgame(Variant::Prostoy, 2, 1, 36).unwrap();
    while let Some(l) = g.legal() {
        g.apply(l.decision.seat, &greedy_move(&l, g.trump()))
            .unwrap();
    }
    let loser = g.outcome().unwrap().loser;
    assert_eq!(Solver::default().value(&g), Err(Unsolved::Over));
    for s in 0..2 {
        let want = match loser {
            None => Value::Draw,
            Some(l) if l == s => Value::Loss,
            Some(_) => Value::Win,
        };
        assert_eq!(Solver::default().value_for(&g, s), Ok(want));
    }
}
