//! The endgame solver over the endgames of built-in games: each game (seat 0 the greedy bot,
//! seat 1 the random bot, as `builtin:greedy` and `builtin:random` choose, two players, both
//! variants) is played until the stock is empty, and its first endgame position is solved with the
//! default budget. Prints the distribution of solve times (median, p99, max) and how many were
//! solved, then criterion times a fixed sample.
//!
//! Run: `cargo bench -p durak-rules --bench endgames` (`DURAK_ENDGAMES=N` games per variant,
//! default 10000).

use criterion::{criterion_group, criterion_main, Criterion};
use durak_rules::random::{greedy_move, random_move, SmallRng};
use durak_rules::solve::Solver;
use durak_rules::{Game, Setup, Variant};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The first endgame position of game `seed`, if it has one.
fn first_endgame(variant: Variant, seed: u64) -> Option<Game> {
    let setup = Setup {
        variant,
        players: 2,
        dealer: (seed % 2) as usize,
        first_game: true,
    };
    let mut g = Game::new(setup, seed).expect("valid setup");
    let mut rng = SmallRng::new(seed);
    loop {
        let legal = g.legal()?;
        if g.endgame_seats().is_some() {
            return Some(g);
        }
        let mv = if legal.decision.seat == 0 {
            greedy_move(&legal, g.trump())
        } else {
            random_move(&legal, &mut rng)
        };
        g.apply(legal.decision.seat, &mv).expect("legal");
    }
}

fn positions(variant: Variant, games: u64) -> Vec<Game> {
    (0..games)
        .filter_map(|s| first_endgame(variant, s))
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn distribution(variant: Variant, list: &[Game]) {
    let mut times = Vec::with_capacity(list.len());
    let mut unsolved = 0;
    let mut nodes = 0;
    for g in list {
        let mut solver = Solver::default();
        let t = Instant::now();
        let v = solver.value(g);
        times.push(t.elapsed());
        nodes += solver.nodes();
        unsolved += v.is_err() as usize;
    }
    times.sort();
    println!(
        "endgames/{variant}: {} positions, {} solved, {unsolved} over the budget; solve time \
         median {:?}, p99 {:?}, max {:?}; {} positions searched in all",
        list.len(),
        list.len() - unsolved,
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.last().copied().unwrap_or_default(),
        nodes
    );
}

fn bench(c: &mut Criterion) {
    let games: u64 = std::env::var("DURAK_ENDGAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    for variant in Variant::ALL {
        let list = positions(variant, games);
        distribution(variant, &list);
        let sample: Vec<Game> = list.into_iter().take(100).collect();
        let mut g = c.benchmark_group("endgames");
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(5));
        g.bench_function(format!("{variant}/first-100"), |b| {
            b.iter(|| {
                for p in &sample {
                    black_box(Solver::default().value(p).ok());
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
