//! The SPRT by simulation: seeded, deterministic game outcomes from known probabilities (no bot
//! processes), fed to the pure math (`stats::sprt`) and to the tracker that reads result lines.
//!
//! The model of a duplicate deal at two seats: the deal has a luck `u ~ N(0, τ²)` (in logit
//! units) for whoever holds seat 0; the challenger, `Δ` Elo above its opponent, wins at seat 0
//! with probability `logistic(Δ/ELO + u)` and at seat 1 with `logistic(Δ/ELO − u)`, each game a
//! draw with probability 4 % first. At `Δ = 0` the expected score is exactly ½ (the luck is
//! symmetric), so the false-positive rate of `H0: 0` is measured exactly.

use durak_protocol::Limits;
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::ResultLine;
use durak_tournaments::sprt::SprtTracker;
use durak_tournaments::stats::sprt::{expected_score, paired_values, Hypothesis, SprtParams};
use durak_tournaments::stats::ELO_PER_NAT;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

struct Sim {
    rng: ChaCha20Rng,
    elo: f64,
    luck: f64,
}

impl Sim {
    fn new(seed: u64, elo: f64, luck: f64) -> Sim {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Sim {
            rng: ChaCha20Rng::from_seed(key),
            elo,
            luck,
        }
    }

    fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        // Box–Muller.
        let (a, b) = (self.uniform().max(1e-300), self.uniform());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    }

    /// The challenger's scores (1, ½, 0) in one deal's two games: seat 0, then seat 1.
    fn deal(&mut self) -> [f64; 2] {
        let u = self.luck * self.normal();
        let d = self.elo / ELO_PER_NAT;
        [d + u, d - u].map(|x| {
            if self.uniform() < 0.04 {
                0.5
            } else if self.uniform() < 1.0 / (1.0 + (-x).exp()) {
                1.0
            } else {
                0.0
            }
        })
    }
}

/// Outcome of one sequential test: the decision (if any before `cap` deals) and the games.
struct Run {
    decision: Option<Hypothesis>,
    games: u64,
}

/// Play deals until the test (paired: over deals; unpaired: over games) decides.
fn run(p: &SprtParams, sim: &mut Sim, paired: bool, cap: u64) -> Run {
    let deal_values = [0.0, 0.25, 0.5, 0.75, 1.0];
    let game_values = [0.0, 0.5, 1.0];
    let mut deals = [0u64; 5];
    let mut games = [0u64; 3];
    for n in 1..=cap {
        let [a, b] = sim.deal();
        deals[((a + b) * 2.0) as usize] += 1;
        games[(a * 2.0) as usize] += 1;
        games[(b * 2.0) as usize] += 1;
        let llr = if paired {
            p.llr(&deal_values, &deals, 2)
        } else {
            p.llr(&game_values, &games, 2)
        };
        if let Some(h) = p.decide(llr) {
            return Run {
                decision: Some(h),
                games: 2 * n,
            };
        }
    }
    Run {
        decision: None,
        games: 2 * cap,
    }
}

fn params() -> SprtParams {
    SprtParams::new(0.0, 20.0, 0.05, 0.05).unwrap()
}

#[test]
fn a_strong_bot_against_a_weak_one_is_accepted_as_better() {
    for seed in 0..20 {
        for paired in [true, false] {
            let r = run(&params(), &mut Sim::new(seed, 200.0, 1.0), paired, 20_000);
            assert_eq!(r.decision, Some(Hypothesis::H1), "seed {seed}");
            assert!(r.games < 400, "{} games", r.games);
        }
    }
}

#[test]
fn equal_bots_are_accepted_as_not_better() {
    let mut h0 = 0;
    for seed in 0..40 {
        let r = run(
            &params(),
            &mut Sim::new(1000 + seed, 0.0, 1.0),
            true,
            50_000,
        );
        assert!(r.decision.is_some(), "seed {seed} undecided");
        h0 += (r.decision == Some(Hypothesis::H0)) as u32;
    }
    assert!(h0 >= 36, "{h0} of 40 accepted H0");
}

/// Over many seeded runs with equal bots (H0 true), the test accepts H1 about α of the time:
/// Wald's bounds keep it at or a little below α (the LLR overshoots the bound it crosses).
/// With H1 exactly true (no luck, and a win probability that makes the expected score, draws
/// included, `expected_score(elo1)`), it accepts H0 about β of the time.
#[test]
fn the_false_positive_rate_stays_near_alpha() {
    let p = params();
    let runs = 400;
    for (paired, seed0) in [(true, 10_000), (false, 20_000)] {
        let fp = (0..runs)
            .filter(|i| {
                let r = run(&p, &mut Sim::new(seed0 + i, 0.0, 1.0), paired, 50_000);
                r.decision == Some(Hypothesis::H1)
            })
            .count();
        let rate = fp as f64 / runs as f64;
        eprintln!("paired {paired}: H1 accepted in {fp} of {runs} runs with H0 true");
        // Binomial sd at α = 0.05 over 400 runs: 0.011.
        assert!(
            (0.015..=0.075).contains(&rate),
            "paired {paired}: false-positive rate {rate}"
        );
    }
    // 0.02 + 0.96·w = s1 (a draw 4 % of the time, half a point).
    let w = (expected_score(p.elo1, 2) - 0.02) / 0.96;
    let elo = ELO_PER_NAT * (w / (1.0 - w)).ln();
    for (paired, seed0) in [(true, 30_000), (false, 40_000)] {
        let fneg = (0..runs)
            .filter(|i| {
                let r = run(&p, &mut Sim::new(seed0 + i, elo, 0.0), paired, 50_000);
                r.decision == Some(Hypothesis::H0)
            })
            .count();
        let rate = fneg as f64 / runs as f64;
        eprintln!("paired {paired}: H0 accepted in {fneg} of {runs} runs with H1 true");
        assert!(
            (0.015..=0.075).contains(&rate),
            "paired {paired}: false-negative rate {rate}"
        );
    }
}

/// With luck in the deals, the paired test needs fewer games than the unpaired one on the same
/// kind of games (the benchmark `examples/sprt_games.rs` quotes by how much).
#[test]
fn pairing_saves_games_when_the_deal_matters() {
    let p = params();
    let mean = |paired: bool| -> f64 {
        (0..100)
            .map(|i| run(&p, &mut Sim::new(50_000 + i, 10.0, 1.5), paired, 50_000).games as f64)
            .sum::<f64>()
            / 100.0
    };
    let (paired, unpaired) = (mean(true), mean(false));
    eprintln!("mean games to a decision: paired {paired}, unpaired {unpaired}");
    assert!(
        paired < 0.8 * unpaired,
        "paired {paired} unpaired {unpaired}"
    );
}

fn gauntlet(k: usize) -> Tournament {
    Tournament {
        variant: Variant::Podkidnoy,
        format: Format::Gauntlet,
        table_size: k,
        games: 1000,
        seed: 1,
        challenger: Some("new".into()),
        concurrency: None,
        max_consecutive_faults: 3,
        sprt: None,
        bots: ["old", "new", "other"]
            .iter()
            .map(|n| Bot {
                name: n.to_string(),
                command: "builtin:random".into(),
                cwd: "/".into(),
                own_cwd: true,
                limits: Limits::default(),
            })
            .collect(),
    }
}

fn game(id: u64, deal: u32, seats: [&str; 2], loser: Option<usize>) -> ResultLine {
    ResultLine {
        id,
        table: 0,
        game: deal,
        deal: Some(deal),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        seed: 1,
        dealer: 0,
        loser,
        durak: loser.map(|s| seats[s].to_string()),
        draw: loser.is_none(),
        faults: vec![],
        moves: 10,
        replay: None,
        duration_ms: 1,
        disqualified: vec![],
        voided: Vec::new(),
        void: false,
        move_limit: None,
    }
}

/// The tracker pairs the rotations of a deal whatever order they come in, and its LLR is the
/// math's on the deals' histogram.
#[test]
fn the_tracker_pairs_rotations_in_any_order() {
    let t = gauntlet(2);
    let p = params();
    let mut tracker = SprtTracker::new(&t, p).unwrap();
    // Deal d against "old": rotation 0 (new at seat 0) and rotation 1; new wins both, splits,
    // or loses both in a cycle; the second rotations come first, in reverse.
    let mut lines = Vec::new();
    let mut expected = [0u64; 5];
    for d in 0..60u32 {
        let (r0, r1) = match d % 3 {
            0 => (Some(1), Some(0)), // the other is the durak twice: 2 points
            1 => (Some(1), Some(1)), // won at seat 0, lost at seat 1: split
            _ => (Some(0), Some(1)), // the durak twice: 0
        };
        expected[[4, 2, 0][d as usize % 3]] += 1;
        lines.push(game(2 * d as u64, d, ["new", "old"], r0));
        lines.push(game(2 * d as u64 + 1, d, ["old", "new"], r1));
    }
    let (first, second): (Vec<_>, Vec<_>) = lines.iter().partition(|l| l.id % 2 == 0);
    for l in second.iter().rev().chain(first.iter()) {
        tracker.add(l);
    }
    // A line without the challenger is ignored.
    tracker.add(&game(999, 0, ["old", "other"], Some(0)));
    let s = tracker.status();
    assert!(s.paired);
    assert_eq!((s.deals, s.games), (60, 120));
    assert!((s.score - 0.5).abs() < 1e-12);
    let values = [0.0, 0.25, 0.5, 0.75, 1.0];
    assert!((s.llr - p.llr(&values, &expected, 2)).abs() < 1e-12);
    let games = [60, 0, 60]; // the durak 60 times, no draw, 60 times another
    assert!((s.llr_unpaired - p.llr(&[0.0, 0.5, 1.0], &games, 2)).abs() < 1e-12);
    let (lo, hi) = p.bounds();
    assert_eq!((s.lower, s.upper), (lo, hi));
    let line = s.to_string();
    assert!(
        line.starts_with("SPRT H0 0 Elo vs H1 20 Elo (α 0.05, β 0.05): LLR ")
            && line.contains("[-2.94, +2.94]")
            && line.contains("60 deals, 120 games · score 50.0%"),
        "{line}"
    );
}

/// Fed a strong challenger, the tracker decides for H1 and says so.
#[test]
fn the_tracker_decides_and_says_so() {
    let t = gauntlet(2);
    let mut tracker = SprtTracker::new(&t, params()).unwrap();
    let mut sim = Sim::new(7, 300.0, 1.0);
    let mut d = 0u32;
    while tracker.status().decision.is_none() {
        let [a, b] = sim.deal();
        let loser = |score: f64, me: usize| match score {
            1.0 => Some(1 - me),
            0.0 => Some(me),
            _ => None,
        };
        tracker.add(&game(2 * d as u64, d, ["new", "old"], loser(a, 0)));
        tracker.add(&game(2 * d as u64 + 1, d, ["old", "new"], loser(b, 1)));
        d += 1;
        assert!(d < 1000);
    }
    let s = tracker.status();
    assert_eq!(s.decision, Some(Hypothesis::H1));
    assert!(s.llr >= s.upper);
    assert!(s
        .to_string()
        .contains("H1 accepted: the challenger is better"));
}

/// Three seats: a deal is its three rotations; the scores per deal are ninths.
#[test]
fn three_seat_deals_score_in_ninths() {
    let t = gauntlet(3);
    let mut tracker = SprtTracker::new(&t, params()).unwrap();
    let bots = ["new", "old", "other"];
    // Deal 0: new is the durak once, a draw once, another durak once: 0 + 2/3 + 1 of 3.
    for (r, loser) in [(0, Some(0)), (1, None), (2, Some(0))] {
        let seats: Vec<String> = (0..3).map(|s| bots[(s + r) % 3].to_string()).collect();
        let mut l = game(r as u64, 0, ["x", "y"], None);
        l.seats = seats.clone();
        l.loser = loser;
        l.durak = loser.map(|s| seats[s].clone());
        l.draw = loser.is_none();
        tracker.add(&l);
    }
    let s = tracker.status();
    assert_eq!((s.deals, s.games), (1, 3));
    // new sat at seat 0, 2, 1: durak in rotation 0 (seat 0), a draw, and in rotation 2 the
    // durak is seat 0 = "other".
    assert!((s.score - (0.0 + 2.0 / 3.0 + 1.0) / 3.0).abs() < 1e-12);
    assert_eq!(paired_values(3).len(), 9);
    // Not a gauntlet: refused with the fix.
    let mut dup = gauntlet(2);
    dup.format = Format::Duplicate;
    assert!(SprtTracker::new(&dup, params())
        .unwrap_err()
        .to_string()
        .contains("--format gauntlet"));
}

/// Identical bots: every deal split (the deal decides both games). The verdict's Elo interval
/// contains 0 with a width (the raw spread of the deals, zero here, used to give
/// `Elo +0.0 [+0.0, +0.0]`), and it is the pairs table's paired interval for the same games,
/// at every count of deals; with several outcomes too.
#[test]
fn the_verdicts_interval_is_the_pairs_paired_one() {
    let mut t = gauntlet(2);
    t.sprt = Some(params());
    for mixed in [false, true] {
        let mut lines = Vec::new();
        for d in 0..50u32 {
            // Split: new loses at seat 0, wins at seat 1; mixed: every fifth deal won both.
            let r0 = if mixed && d % 5 == 0 {
                Some(1)
            } else {
                Some(0)
            };
            lines.push(game(2 * d as u64, d, ["new", "old"], r0));
            lines.push(game(2 * d as u64 + 1, d, ["old", "new"], Some(0)));
            if mixed && d % 7 == 3 {
                lines.last_mut().unwrap().loser = None;
                lines.last_mut().unwrap().durak = None;
                lines.last_mut().unwrap().draw = true;
            }
        }
        let mut tracker = SprtTracker::new(&t, params()).unwrap();
        for l in &lines {
            tracker.add(l);
        }
        let s = tracker.status();
        let [lo, hi] = s.elo_ci95.map(Option::unwrap);
        let elo = s.elo.unwrap();
        assert!(lo < elo && elo < hi && hi - lo > 10.0, "{mixed}: {s}");
        if !mixed {
            assert!(lo < 0.0 && hi > 0.0 && elo.abs() < 1e-9, "{s}");
            assert!(!s.to_string().contains("[+0.0, +0.0]"), "{s}");
        }
        let standings = durak_tournaments::standings::Standings::compute(&t, &lines);
        let pair = &standings.pairs[0];
        assert_eq!((pair.bot.as_str(), pair.opponent.as_str()), ("new", "old"));
        let paired = pair.paired.as_ref().unwrap().elo_ci95.map(Option::unwrap);
        assert!(
            (paired[0] - lo).abs() < 1e-9 && (paired[1] - hi).abs() < 1e-9,
            "{mixed}: {paired:?} {lo} {hi}"
        );
        assert!((pair.elo.unwrap() - elo).abs() < 1e-9);
        assert_eq!(standings.sprt.as_ref().unwrap(), &s);
    }
}

/// A void game (given up after 3 voided attempts, docs/TOURNAMENTS.md "Time: only a bot's
/// own") counts for nobody: not a loss or a draw in the games, and its deal is left out of the
/// paired figures; the standings' SPRT (which skips void lines) says the same.
#[test]
fn a_void_game_counts_for_nobody_and_its_deal_is_left_out() {
    let mut t = gauntlet(2);
    t.sprt = Some(params());
    let mut lines = Vec::new();
    for d in 0..10u32 {
        // new wins both rotations of every deal.
        lines.push(game(2 * d as u64, d, ["new", "old"], Some(1)));
        lines.push(game(2 * d as u64 + 1, d, ["old", "new"], Some(0)));
    }
    // Deal 3's second game was given up: no loser, not a draw, void.
    let void = &mut lines[7];
    (void.loser, void.durak, void.draw, void.void) = (None, None, false, true);
    void.voided = vec!["starved".into(); 3];
    let mut tracker = SprtTracker::new(&t, params()).unwrap();
    for l in &lines {
        tracker.add(l);
    }
    let s = tracker.status();
    assert_eq!((s.deals, s.games), (9, 19), "{s}");
    assert_eq!(s.score, 1.0, "the void game is no draw: {s}");
    let standings = durak_tournaments::standings::Standings::compute(&t, &lines);
    assert_eq!(standings.sprt.as_ref().unwrap(), &s);
}
