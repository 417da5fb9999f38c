//! Complete games with random legal moves, every move checked (`Game::apply_into` checks before it
//! applies). Reports games per second and moves per second per variant and player count.
//!
//! Run: `cargo bench -p durak-rules --bench games`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use durak_rules::random::{random_move, SmallRng};
use durak_rules::{Game, Setup, Variant};
use std::hint::black_box;
use std::time::Duration;

const BATCH: u64 = 64;

/// Play games `seeds`, returning the number of moves (chosen and forced).
fn play_batch(variant: Variant, players: usize, seeds: std::ops::Range<u64>) -> u64 {
    let mut moves = 0;
    let mut events = Vec::with_capacity(64);
    let mut legal_buf = durak_rules::Legal::empty();
    for seed in seeds {
        let setup = Setup {
            variant,
            players,
            dealer: (seed % players as u64) as usize,
            first_game: true,
        };
        let mut game = Game::new(setup, seed).expect("valid setup");
        let mut rng = SmallRng::new(seed);
        while !game.is_over() {
            events.clear();
            let legal = &mut legal_buf;
            game.legal_into(legal);
            if !game.play_forced_with(legal, &mut events) {
                let mv = random_move(legal, &mut rng);
                game.apply_into(legal.decision.seat, &mv, &mut events)
                    .expect("a random legal move is accepted");
            }
            moves += 1;
        }
        black_box(game.outcome());
    }
    moves
}

fn bench(c: &mut Criterion) {
    for variant in Variant::ALL {
        for players in variant.players() {
            let id = format!("{variant}/{players}p");
            let moves = play_batch(variant, players, 0..BATCH);
            let mut g = c.benchmark_group("games");
            g.throughput(Throughput::Elements(BATCH));
            g.measurement_time(Duration::from_secs(2));
            g.warm_up_time(Duration::from_millis(500));
            g.bench_function(BenchmarkId::from_parameter(&id), |b| {
                b.iter(|| play_batch(variant, players, 0..BATCH))
            });
            g.finish();
            let mut g = c.benchmark_group("moves");
            g.throughput(Throughput::Elements(moves));
            g.measurement_time(Duration::from_secs(2));
            g.warm_up_time(Duration::from_millis(500));
            g.bench_function(BenchmarkId::from_parameter(&id), |b| {
                b.iter(|| play_batch(variant, players, 0..BATCH))
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
