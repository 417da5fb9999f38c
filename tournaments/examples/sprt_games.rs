//! How many games the SPRT needs over paired duplicate deals, against the same test on the
//! same games taken one by one (unpaired).
//!
//! ```sh
//! cargo run --release -p durak-tournaments --example sprt_games [RUNS]
//! ```
//!
//! The test: `H0: 0 Elo` against `H1: 20 Elo`, `α = β = 0.05` (`stats::sprt`). Each scenario is
//! run `RUNS` times (default 2000), seeded, and both tests read the same stream of deals: the
//! paired one decides after whole deals, the unpaired one after single games.
//!
//! - **Simulated** deals (the model of `tests/sprt.rs`): the deal gives whoever holds seat 0 a
//!   luck `u ~ N(0, τ²)` in logit units; the challenger wins at seat 0 with probability
//!   `logistic(x + u)`, at seat 1 with `logistic(x − u)`, 4 % of games drawn, where `x` is
//!   chosen so that its expected score is that of `Δ` Elo (`expected_score(Δ, 2)`): `Δ` is its
//!   true strength, whatever the luck. `τ = 0` is a game without luck of the deal; a deal one
//!   standard deviation lucky wins 73 % of its games for seat 0 at `τ = 1` (88 % at `τ = 2`).
//!   The real deals below narrow a pair's interval about as much as `τ = 1` does.
//! - **Real** deals, resampled (with replacement) from a real `durak tournament --format
//!   duplicate` (`tests/data/four_bots_duplicate.csv`, 300 deals per pair): builtin:greedy
//!   against the Python heuristic sample bot (observed +26 Elo), the Python heuristic bot
//!   against the same algorithm in JavaScript (identical play: every deal split), greedy against
//!   builtin:random (+460 Elo).

use durak_tournaments::stats::sprt::{expected_score, Hypothesis, SprtParams};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use std::collections::BTreeMap;

struct Rand(ChaCha20Rng);

impl Rand {
    fn new(seed: u64) -> Rand {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Rand(ChaCha20Rng::from_seed(key))
    }
    fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let (a, b) = (self.uniform().max(1e-300), self.uniform());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.uniform() * n as f64) as usize
    }
}

/// A source of deals: the challenger's two scores (1, ½, 0).
enum Source<'a> {
    /// `logit`: `x` in the module docs.
    Model {
        logit: f64,
        luck: f64,
    },
    Resample(&'a [[f64; 2]]),
}

/// `E[logistic(x + τZ)]`, `Z` standard normal (a fine quadrature).
fn mean_win(x: f64, luck: f64) -> f64 {
    let steps = 4000;
    let (mut sum, mut weight) = (0.0, 0.0);
    for i in 0..=steps {
        let z = -8.0 + 16.0 * i as f64 / steps as f64;
        let w = (-z * z / 2.0).exp();
        sum += w / (1.0 + (-(x + luck * z)).exp());
        weight += w;
    }
    sum / weight
}

/// The `x` whose expected score, with luck `τ` and 4 % draws, is that of `elo`.
fn calibrate(elo: f64, luck: f64) -> f64 {
    let target = (expected_score(elo, 2) - 0.02) / 0.96;
    let (mut lo, mut hi) = (-10.0, 10.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mean_win(mid, luck) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl Source<'_> {
    fn deal(&self, r: &mut Rand) -> [f64; 2] {
        match self {
            Source::Model { logit, luck } => {
                let u = luck * r.normal();
                [logit + u, logit - u].map(|x| {
                    if r.uniform() < 0.04 {
                        0.5
                    } else if r.uniform() < 1.0 / (1.0 + (-x).exp()) {
                        1.0
                    } else {
                        0.0
                    }
                })
            }
            Source::Resample(deals) => deals[r.below(deals.len())],
        }
    }
}

struct Outcome {
    games: u64,
    decision: Option<Hypothesis>,
}

/// Both tests on one stream of deals.
fn run(p: &SprtParams, source: &Source, seed: u64, cap: u64) -> [Outcome; 2] {
    let mut r = Rand::new(seed);
    let (deal_values, game_values) = ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.5, 1.0]);
    let (mut deals, mut games) = ([0u64; 5], [0u64; 3]);
    let mut done: [Option<Outcome>; 2] = [None, None];
    let mut n = 0;
    while done.iter().any(Option::is_none) && n < cap {
        n += 1;
        let [a, b] = source.deal(&mut r);
        if done[0].is_none() {
            deals[((a + b) * 2.0) as usize] += 1;
            if let Some(h) = p.decide(p.llr(&deal_values, &deals, 2)) {
                done[0] = Some(Outcome {
                    games: 2 * n,
                    decision: Some(h),
                });
            }
        }
        for (i, x) in [a, b].into_iter().enumerate() {
            if done[1].is_none() {
                games[(x * 2.0) as usize] += 1;
                if let Some(h) = p.decide(p.llr(&game_values, &games, 2)) {
                    done[1] = Some(Outcome {
                        games: 2 * n - 1 + i as u64,
                        decision: Some(h),
                    });
                }
            }
        }
    }
    done.map(|d| {
        d.unwrap_or(Outcome {
            games: 2 * cap,
            decision: None,
        })
    })
}

/// The real deals of `a` against `b`: `a`'s scores at seat 0 and seat 1 of each deal.
fn real_deals(a: &str, b: &str) -> Vec<[f64; 2]> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/four_bots_duplicate.csv"
    );
    let text = std::fs::read_to_string(path).expect("the real results");
    let mut by_deal: BTreeMap<u32, [f64; 2]> = BTreeMap::new();
    for row in text.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let seats: Vec<&str> = f[3].split('|').collect();
        let Some(me) = seats.iter().position(|s| *s == a) else {
            continue;
        };
        if !seats.contains(&b) {
            continue;
        }
        let score = match f[4] {
            "draw" | "void" => 0.5,
            s if s.parse::<usize>().unwrap() == me => 0.0,
            _ => 1.0,
        };
        by_deal.entry(f[2].parse().unwrap()).or_default()[me] = score;
    }
    by_deal.into_values().collect()
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn main() {
    let runs: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("RUNS: a number"))
        .unwrap_or(2000);
    let p = SprtParams::new(0.0, 20.0, 0.05, 0.05).unwrap();
    let gh = real_deals("greedy", "heuristic.py");
    let pj = real_deals("heuristic.py", "heuristic.js");
    let gr = real_deals("greedy", "random");
    let mut scenarios: Vec<(String, Source)> = Vec::new();
    for elo in [0.0, 20.0] {
        for luck in [0.0, 1.0, 2.0] {
            scenarios.push((
                format!("model Δ={elo} τ={luck}"),
                Source::Model {
                    logit: calibrate(elo, luck),
                    luck,
                },
            ));
        }
    }
    scenarios.push(("real greedy vs heuristic.py".into(), Source::Resample(&gh)));
    scenarios.push(("real heuristic.py vs .js".into(), Source::Resample(&pj)));
    scenarios.push(("real greedy vs random".into(), Source::Resample(&gr)));
    println!(
        "SPRT H0 {} Elo vs H1 {} Elo, α {} β {}, {runs} seeded runs per scenario",
        p.elo0, p.elo1, p.alpha, p.beta
    );
    println!(
        "| scenario | paired: mean games | median | H1 accepted | unpaired: mean games | median \
         | H1 accepted | paired/unpaired games |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, source) in &scenarios {
        let mut games = [Vec::new(), Vec::new()];
        let mut h1 = [0u64; 2];
        for seed in 0..runs {
            for (i, o) in run(&p, source, seed, 200_000).into_iter().enumerate() {
                games[i].push(o.games);
                h1[i] += (o.decision == Some(Hypothesis::H1)) as u64;
            }
        }
        let mean = |v: &Vec<u64>| v.iter().sum::<u64>() as f64 / v.len() as f64;
        let (mp, mu) = (mean(&games[0]), mean(&games[1]));
        println!(
            "| {name} | {mp:.0} | {} | {:.1}% | {mu:.0} | {} | {:.1}% | {:.2} |",
            median(games[0].clone()),
            100.0 * h1[0] as f64 / runs as f64,
            median(games[1].clone()),
            100.0 * h1[1] as f64 / runs as f64,
            mp / mu
        );
    }
}
