//! Plays N random games of a variant and player count and prints games/s (a quick profiling aid;
//! the benchmark of record is `cargo bench -p durak-rules --bench games`).
//! Usage: cargo run --release -p durak-rules --example playout -- podkidnoy 2 100000
use durak_rules::random::{random_move, SmallRng};
use durak_rules::{Game, Setup, Variant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant: Variant = args
        .get(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(Variant::Podkidnoy);
    let players: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(2);
    let games: u64 = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(100_000);
    let start = std::time::Instant::now();
    let mut moves = 0u64;
    let mut events = Vec::with_capacity(64);
    let mut legal_buf = durak_rules::Legal::empty();
    for seed in 0..games {
        let setup = Setup {
            variant,
            players,
            dealer: (seed % players as u64) as usize,
            first_game: true,
        };
        let mut g = Game::new(setup, seed).unwrap();
        let mut rng = SmallRng::new(seed);
        while !g.is_over() {
            events.clear();
            let l = &mut legal_buf;
            if !g.legal_into(l) {
                break;
            }
            if !g.play_forced_with(l, &mut events) {
                let m = random_move(l, &mut rng);
                g.apply_into(l.decision.seat, &m, &mut events).unwrap();
            }
            moves += 1;
        }
    }
    let s = start.elapsed().as_secs_f64();
    println!("{variant} {players}p: {games} games, {moves} moves in {s:.3}s: {:.0} games/s, {:.0} moves/s", games as f64 / s, moves as f64 / s);
}
