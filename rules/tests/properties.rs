//! Property tests over many random games of each variant and player count (proptest).
//!
//! Every game is played with `random_move` and/or `greedy_move` from a `SmallRng` seeded from
//! the proptest input, and checked after every move:
//!
//! * the 36 cards are each in exactly one place (`card_locations`);
//! * every seat's observation equals what that seat reconstructs from the events it was sent
//!   (`common::View`): its own hand exactly, public facts, nothing else (I-1, I-2, I-3); the
//!   cards publicly known to be in a hand are in that hand;
//!   private events go only to their owner;
//! * the decision belongs to an active seat; additions are asked only of the defender's two
//!   neighbours (K-5); the table never holds more attack cards than the limit (K-3, P-5);
//!   drawing follows P-7 / P-9 / K-12;
//! * every move the choosers produce from `legal()` is accepted by `check` and `apply`;
//! * `Legal::allows` (judging from what the request carries) agrees with `check` on every move
//!   tried, legal or not, with the same rule id and words (the random ones and every one the
//!   brute force enumerates);
//! * random illegal moves (random card sets, pairs, kinds and seats) are refused with a rule id
//!   like `K-6` and a message, identically by `check` and `apply`, and leave the game unchanged;
//!   whatever `check` accepts, `apply` accepts;
//! * `forced_move()` is `Some` exactly when the decision has one legal answer, cross-checked by
//!   enumerating every move when hands are small;
//! * every game ends within a bounded number of moves (see `PATIENCE`) with exactly one loser,
//!   the only active seat, or a draw (C-9);
//! * determinism: replaying the same seed and moves gives the same events and final state.
//!
//! Size: `DURAK_PROPTEST_GAMES` (default 1000) games per variant and player count for the main
//! properties, e.g. `DURAK_PROPTEST_GAMES=20000 cargo test --release -p durak-rules --test
//! properties` for a long run.

mod common;
use common::*;
use durak_rules::random::{greedy_move, random_move, SmallRng};
use durak_rules::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Games per proptest case.
const GAMES_PER_CASE: u32 = 4;
/// Durak has no rule that ends a game that goes round in circles: with a fixed policy (e.g.
/// `greedy_move` for every seat) cards can pass from hand to hand forever, every defender taking
/// (seen: three-player prostoy, two clubs circulating among hands that cannot beat them). So
/// after `PATIENCE` moves every seat plays uniformly random moves, and the game must then end
/// within `MAX_MOVES`: no endless sequence of forced moves exists (an attacker with one card
/// plays it and exits), and random choices do not cycle forever.
const PATIENCE: usize = 300;
const MAX_MOVES: usize = 5_000;

fn games_per_config() -> u32 {
    std::env::var("DURAK_PROPTEST_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

/// Cases for a property over `configs` (variant, player count) pairs, scaled by `fraction`.
fn config(configs: u32, fraction: f64) -> Config {
    let games = (games_per_config() as f64 * fraction).ceil() as u32 * configs;
    Config {
        cases: games.div_ceil(GAMES_PER_CASE).max(1),
        failure_persistence: None,
        ..Config::default()
    }
}

fn is_rule_id(s: &str) -> bool {
    let Some((family, num)) = s.split_once('-') else {
        return false;
    };
    ["C", "P", "K", "I", "R"].contains(&family)
        && !num.is_empty()
        && num.chars().all(|c| c.is_ascii_digit())
}

/// How a game's moves are chosen.
#[derive(Clone, Copy, Debug)]
enum Policy {
    Random,
    Greedy,
    /// Greedy with probability 1/2 per move.
    Mixed,
}

fn choose(g: &Game, l: &Legal, rng: &mut SmallRng, policy: Policy) -> Move {
    let greedy = match policy {
        Policy::Random => false,
        Policy::Greedy => true,
        Policy::Mixed => rng.coin(),
    };
    if greedy {
        greedy_move(l, g.trump())
    } else {
        random_move(l, rng)
    }
}

// ----- brute force (R-1) ------------------------------------------------------------------------

/// Every distinct legal answer to the current decision, up to `cap`, by trying every move built
/// from the hand and the trump card; `None` when the hand is too big to enumerate.
fn legal_answers(g: &Game, cap: usize) -> Option<Vec<Move>> {
    let d = g.decision()?;
    let hand = g.hand(d.seat);
    let mut pool = hand;
    if g.variant() == Variant::Prostoy && g.stock_len() > 0 {
        pool.insert(g.trump_card()); // an exchange (P-4) may bring the trump card into the hand
    }
    let pool: Vec<Card> = pool.iter().collect();
    let mut found: Vec<Move> = Vec::new();
    let legal = g.legal().expect("not over");
    let try_move = |m: Move, found: &mut Vec<Move>| {
        agrees(g, &legal, d.seat, &m);
        if found.len() < cap && g.check(d.seat, &m).is_ok() && !found.contains(&m) {
            found.push(m);
        }
    };
    try_move(Move::Take, &mut found);
    try_move(Move::Pass, &mut found);
    match d.kind {
        DecisionKind::Attack | DecisionKind::Add => {
            // Every subset of the hand (and the trump card, for P-4), of the decision's kind;
            // other kinds are refused by kind (the fuzzing checks that).
            if pool.len() > 8 {
                return None;
            }
            for mask in 1u32..(1 << pool.len()) {
                if mask.count_ones() > 6 {
                    continue;
                }
                let cards: CardSet = (0..pool.len())
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| pool[i])
                    .collect();
                if d.kind == DecisionKind::Attack {
                    for exchange in [false, true] {
                        try_move(Move::Attack { cards, exchange }, &mut found);
                    }
                } else {
                    try_move(Move::Add { cards }, &mut found);
                }
                if found.len() >= cap {
                    break;
                }
            }
        }
        DecisionKind::Defend => {
            let unbeaten: Vec<Card> = g
                .table()
                .into_iter()
                .filter(|(_, d)| d.is_none())
                .map(|(a, _)| a)
                .collect();
            // Each unbeaten card gets no card or one card of the pool (distinct cards only:
            // a card used twice is refused, which the fuzzing covers).
            let choices = pool.len() + 1;
            let total = (choices as u64).checked_pow(unbeaten.len() as u32)?;
            if total > 10_000 {
                return None;
            }
            for code in 0..total {
                let mut x = code;
                let mut pairs = Pairs::EMPTY;
                let mut used = 0u32;
                let mut distinct = true;
                for &a in &unbeaten {
                    let pick = (x % choices as u64) as usize;
                    x /= choices as u64;
                    if pick > 0 {
                        distinct &= used >> pick & 1 == 0;
                        used |= 1 << pick;
                        pairs.push(a, pool[pick - 1]);
                    }
                }
                if !distinct {
                    continue;
                }
                for exchange in [false, true] {
                    try_move(Move::Defend { pairs, exchange }, &mut found);
                }
                if found.len() >= cap {
                    break;
                }
            }
        }
    }
    Some(found)
}

// ----- random moves, legal or not ---------------------------------------------------------------

fn random_cards(rng: &mut SmallRng, hand: CardSet) -> CardSet {
    let mut out = CardSet::EMPTY;
    let from_hand = rng.below(4) != 0;
    for _ in 0..rng.below(7) {
        let pool = if from_hand && !hand.is_empty() {
            hand
        } else {
            CardSet::ALL
        };
        if let Some(c) = rng.pick(pool) {
            out.insert(c);
        }
    }
    out
}

/// Any move by any seat: mostly nonsense, sometimes legal.
fn random_any_move(g: &Game, rng: &mut SmallRng) -> (Seat, Move) {
    let d = g.decision().expect("not over");
    let seat = if rng.below(4) == 0 {
        rng.below(g.players() + 1) // sometimes a seat that does not exist
    } else {
        d.seat
    };
    let hand = if seat < g.players() {
        g.hand(seat)
    } else {
        CardSet::EMPTY
    };
    let exchange = rng.below(5) == 0;
    let m = match rng.below(6) {
        0 => Move::Attack {
            cards: random_cards(rng, hand),
            exchange,
        },
        1 | 2 => {
            let table: Vec<Card> = g.table().into_iter().map(|(a, _)| a).collect();
            let mut pairs = Pairs::EMPTY;
            for _ in 0..rng.below(5) {
                let a = if !table.is_empty() && rng.below(5) != 0 {
                    table[rng.below(table.len())]
                } else {
                    rng.pick(CardSet::ALL).unwrap()
                };
                let d = if !hand.is_empty() && rng.below(5) != 0 {
                    rng.pick(hand).unwrap()
                } else {
                    rng.pick(CardSet::ALL).unwrap()
                };
                pairs.push(a, d);
            }
            Move::Defend { pairs, exchange }
        }
        3 => Move::Add {
            cards: random_cards(rng, hand),
        },
        4 => Move::Take,
        _ => Move::Pass,
    };
    (seat, m)
}

// ----- the per-move checks ----------------------------------------------------------------------

fn check_cards(g: &Game) {
    let locs = g.card_locations();
    assert_eq!(locs.len(), 36, "36 card places");
    let all: CardSet = locs.iter().map(|(c, _, _)| *c).collect();
    assert_eq!(all, CardSet::ALL, "each card exactly once");
}

fn check_observations(g: &Game, views: &[View]) {
    let n = g.players();
    for v in views {
        let o = g.observation(v.seat);
        v.assert_matches(&o);
        assert_eq!(o.hand, g.hand(v.seat));
        assert_eq!(o.decision, g.decision());
        for s in 0..n {
            assert!(
                o.known[s].is_subset(g.hand(s)),
                "known cards are in the hand"
            );
        }
    }
}

fn check_decision(g: &Game) {
    let Some(d) = g.decision() else { return };
    assert!(g.is_active(d.seat), "R-2: an active seat decides");
    let attacks = g.table().len();
    match g.variant() {
        Variant::Podkidnoy => {
            assert!(attacks <= g.limit(), "K-3: {attacks} > {}", g.limit());
            assert!(g.limit() <= 6 && g.limit() >= 1);
            if d.kind == DecisionKind::Add {
                let other = g.next_active(g.defender());
                assert!(
                    d.seat == g.attacker() || d.seat == other,
                    "K-5: seat {} asked to add",
                    d.seat
                );
            }
        }
        Variant::Prostoy => {
            assert!(attacks <= 5);
            assert_ne!(d.kind, DecisionKind::Add, "P-7");
        }
    }
}

fn check_events(g: &Game, before: &Game, m: &Move, ev: &[Event]) {
    let n = g.players();
    for e in ev {
        match e.kind {
            EventKind::DealtHand { seat, .. } | EventKind::DrewCards { seat, .. } => {
                assert_eq!(e.to, Audience::Seat(seat), "I-2")
            }
            _ => assert_eq!(e.to, Audience::All, "I-1: {e:?}"),
        }
    }
    let drawers: Vec<Seat> = draws(ev).into_iter().map(|(s, _)| s).collect();
    match (g.variant(), m) {
        (Variant::Prostoy, Move::Attack { .. }) => {
            // P-7: the attacker draws at once, nobody else.
            let a = before.attacker();
            assert!(drawers.iter().all(|&s| s == a));
            let k = match m {
                Move::Attack { cards, .. } => cards.len(),
                _ => unreachable!(),
            };
            let left = before.hand(a).len() - k;
            let drawn = 5usize.saturating_sub(left).min(before.stock_len());
            assert_eq!(g.hand(a).len(), left + drawn, "P-7: up to 5 at once");
            assert_eq!(
                g.decision().map(|d| (d.seat, d.kind)),
                Some((before.defender(), DecisionKind::Defend))
            );
        }
        (Variant::Prostoy, Move::Defend { .. }) => {
            // P-9: only the defender draws, after the resolution.
            assert!(drawers.iter().all(|&s| s == before.defender()));
        }
        (Variant::Podkidnoy, _) if !drawers.is_empty() => {
            // K-12: initial attacker, the others clockwise, the defender last.
            let (a, d) = (before.attacker(), before.defender());
            let mut order: Vec<Seat> = (0..n).map(|i| (a + i) % n).filter(|&s| s != d).collect();
            order.push(d);
            let mut it = order.iter();
            for s in &drawers {
                assert!(it.any(|x| x == s), "K-12 order: {drawers:?} vs {order:?}");
            }
        }
        _ => {}
    }
    if g.is_over() {
        assert!(matches!(
            ev.last().unwrap().kind,
            EventKind::GameOver { .. }
        ));
    }
}

/// Forced moves against brute force.
fn check_forced(g: &Game) {
    let forced = g.forced_move();
    if let Some(m) = forced {
        let d = g.decision().unwrap();
        assert!(g.check(d.seat, &m).is_ok(), "a forced move is legal: {m:?}");
    }
    if let Some(answers) = legal_answers(g, 2) {
        assert!(!answers.is_empty(), "every decision has an answer");
        if answers.len() == 1 {
            assert_eq!(forced, Some(answers[0]), "one answer: it is forced");
        } else {
            assert_eq!(forced, None, "a real choice: {answers:?}");
        }
    }
}

/// A cheap fingerprint of a game's whole state (the full `snapshot` is costly in debug builds).
fn fingerprint(g: &Game) -> impl PartialEq + std::fmt::Debug {
    let n = g.players();
    (
        (0..n)
            .map(|s| (g.hand(s), g.is_active(s)))
            .collect::<Vec<_>>(),
        g.stock_cards().to_vec(),
        g.table(),
        (g.discard(), g.trump_card(), g.decision(), g.outcome()),
        (g.attacker(), g.defender(), g.limit(), g.move_count()),
        g.observation(0).known,
    )
}

/// `Legal::allows` (what a player can judge from the request alone, as the terminal's human seat
/// does) agrees with the referee's `Game::check` on `m` by the deciding seat: rule and words.
fn agrees(g: &Game, legal: &Legal, seat: Seat, m: &Move) {
    let referee = g.check(seat, m);
    let player = legal.allows(m);
    assert_eq!(
        player, referee,
        "{m:?} by seat {seat}: Legal::allows and Game::check differ (the rule and the words are \
         the same wherever a move is judged); legal {legal:?}"
    );
    if let Err(e) = player {
        assert!(is_rule_id(e.rule), "rule id {:?}", e.rule);
    }
}

fn fuzz_illegal(g: &Game, rng: &mut SmallRng, tries: usize) {
    let mut g = g.clone();
    for _ in 0..tries {
        let (seat, m) = random_any_move(&g, rng);
        if seat == g.decision().expect("not over").seat {
            agrees(&g, &g.legal().expect("not over"), seat, &m);
        }
        match g.check(seat, &m) {
            Err(e) => {
                assert!(is_rule_id(e.rule), "rule id {:?}", e.rule);
                assert!(e.message.len() > 10, "a helpful message: {e}");
                if rng.below(8) == 0 {
                    let before = snapshot(&g);
                    assert_eq!(g.apply(seat, &m).unwrap_err(), e);
                    assert_eq!(snapshot(&g), before, "a refused move changes nothing");
                } else {
                    let before = fingerprint(&g);
                    assert_eq!(g.apply(seat, &m).unwrap_err(), e);
                    assert!(fingerprint(&g) == before, "a refused move changes nothing");
                }
            }
            Ok(()) => {
                let mut h = g.clone();
                h.apply(seat, &m)
                    .expect("what check accepts, apply accepts");
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Checks {
    views: bool,
    brute_force: bool,
    fuzz: usize,
    replay: bool,
}

const ALL_CHECKS: Checks = Checks {
    views: true,
    brute_force: true,
    fuzz: 3,
    replay: true,
};

/// Play one game, checking everything after every move; returns the number of moves.
fn run_game(setup: Setup, seed: u64, policy: Policy, checks: Checks) -> usize {
    let mut g = Game::new(setup, seed).expect("valid setup");
    let mut rng = SmallRng::new(seed ^ 0xA5A5_5A5A_0F0F_F0F0);
    let mut fuzz_rng = SmallRng::new(seed.rotate_left(17));
    let mut vs = if checks.views { views(&g) } else { vec![] };
    let mut moves: Vec<(Seat, Move)> = Vec::new();
    let mut events: Vec<Event> = g.start_events();
    loop {
        check_cards(&g);
        check_decision(&g);
        if checks.views {
            check_observations(&g, &vs);
        }
        let Some(l) = g.legal() else { break };
        assert!(moves.len() < MAX_MOVES, "the game ends");
        if checks.brute_force {
            check_forced(&g);
        }
        if checks.fuzz > 0 {
            fuzz_illegal(&g, &mut fuzz_rng, checks.fuzz);
        }
        let seat = l.decision.seat;
        let policy = if moves.len() < PATIENCE {
            policy
        } else {
            Policy::Random
        };
        let m = choose(&g, &l, &mut rng, policy);
        if let Err(e) = g.check(seat, &m) {
            panic!("{policy:?} chose {m:?} from legal() but check refused: {e}\n{l:?}");
        }
        let before = g.clone();
        let ev = g.apply(seat, &m).expect("checked");
        check_events(&g, &before, &m, &ev);
        if checks.views {
            feed(&mut vs, &ev);
        }
        events.extend_from_slice(&ev);
        moves.push((seat, m));
    }
    // C-9: one loser, the only active seat, or a draw.
    let outcome = g.outcome().expect("over");
    let active: Vec<Seat> = (0..setup.players).filter(|&s| g.is_active(s)).collect();
    match outcome.loser {
        Some(l) => assert_eq!(active, vec![l]),
        None => assert!(active.is_empty()),
    }
    let overs = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::GameOver { .. }))
        .count();
    assert_eq!(overs, 1);
    if checks.replay {
        // Determinism: same seed, same moves, same events and state.
        let mut h = Game::new(setup, seed).unwrap();
        let mut again = h.start_events();
        for (s, m) in &moves {
            again.extend(h.apply(*s, m).expect("replay"));
        }
        assert_eq!(again, events);
        assert_eq!(snapshot(&h), snapshot(&g));
    }
    moves.len()
}

fn setup_from(variant: Variant, players: usize, dealer: usize, first_game: bool) -> Setup {
    Setup {
        variant,
        players,
        dealer: dealer % players,
        first_game,
    }
}

fn policy_from(p: u8) -> Policy {
    match p % 4 {
        0 | 1 => Policy::Random,
        2 => Policy::Greedy,
        _ => Policy::Mixed,
    }
}

/// The checks of the `k`-th game of a case: all of them on every game but the brute-force
/// enumeration (every fourth game) and the replay (every fourth game).
fn checks_for(k: u64) -> Checks {
    Checks {
        views: true,
        brute_force: k == 0,
        fuzz: 1,
        replay: k == 1,
    }
}

fn run_case(
    variant: Variant,
    players: usize,
    dealer: usize,
    first_game: bool,
    seed: u64,
    policy: u8,
) {
    for k in 0..GAMES_PER_CASE as u64 {
        let setup = setup_from(variant, players, dealer + k as usize, first_game ^ (k >= 2));
        let policy = policy_from(policy.wrapping_add(k as u8));
        run_game(setup, seed.wrapping_add(k), policy, checks_for(k));
    }
}

proptest! {
    #![proptest_config(config(3, 1.0))]
    #[test]
    fn prostoy_random_games_keep_every_invariant(
        seed in any::<u64>(),
        players in 2usize..=4,
        dealer in 0usize..6,
        first_game in any::<bool>(),
        policy in any::<u8>(),
    ) {
        run_case(Variant::Prostoy, players, dealer, first_game, seed, policy);
    }
}

proptest! {
    #![proptest_config(config(2, 1.0))]
    #[test]
    fn podkidnoy_2_3_players_random_games_keep_every_invariant(
        seed in any::<u64>(),
        players in 2usize..=3,
        dealer in 0usize..6,
        first_game in any::<bool>(),
        policy in any::<u8>(),
    ) {
        run_case(Variant::Podkidnoy, players, dealer, first_game, seed, policy);
    }
}

proptest! {
    #![proptest_config(config(3, 1.0))]
    #[test]
    fn podkidnoy_4_to_6_players_random_games_keep_every_invariant(
        seed in any::<u64>(),
        players in 4usize..=6,
        dealer in 0usize..6,
        first_game in any::<bool>(),
        policy in any::<u8>(),
    ) {
        run_case(Variant::Podkidnoy, players, dealer, first_game, seed, policy);
    }
}

proptest! {
    // Fewer games, but many illegal moves tried at every step.
    #![proptest_config(config(8, 0.15))]
    #[test]
    fn illegal_moves_are_refused_with_a_rule_and_change_nothing(
        seed in any::<u64>(),
        which in 0usize..8,
        policy in any::<u8>(),
    ) {
        let (variant, players) = if which < 3 {
            (Variant::Prostoy, 2 + which)
        } else {
            (Variant::Podkidnoy, which - 1)
        };
        let checks = Checks { views: false, brute_force: false, fuzz: 8, replay: false };
        for k in 0..GAMES_PER_CASE as u64 {
            let setup = setup_from(variant, players, seed as usize + k as usize, k % 2 == 0);
            run_game(setup, seed.wrapping_add(k), policy_from(policy.wrapping_add(k as u8)), checks);
        }
    }
}

/// A fixed sweep so every configuration is covered on every run, whatever proptest draws.
#[test]
fn fixed_seed_sweep_all_checks() {
    for v in Variant::ALL {
        for n in v.players() {
            for seed in 0..8u64 {
                for policy in [Policy::Random, Policy::Greedy, Policy::Mixed] {
                    run_game(
                        setup_from(v, n, seed as usize, seed % 3 == 0),
                        seed,
                        policy,
                        ALL_CHECKS,
                    );
                }
            }
        }
    }
}

#[test]
fn rule_ids_look_like_rule_ids() {
    for ok in ["C-1", "P-12", "K-15", "I-3", "R-2"] {
        assert!(is_rule_id(ok));
    }
    for bad in ["", "K", "K-", "X-1", "K-1a", "k-1", "K1"] {
        assert!(!is_rule_id(bad), "{bad}");
    }
}
