use durak_rules::random::{random_move, SmallRng};
use durak_rules::*;

#[test]
fn random_games_end() {
    for v in Variant::ALL {
        for n in v.players() {
            for seed in 0..300u64 {
                let mut g = Game::new(
                    Setup {
                        variant: v,
                        players: n,
                        dealer: (seed as usize) % n,
                        first_game: seed % 2 == 0,
                    },
                    seed,
                )
                .unwrap();
                let mut rng = SmallRng::new(seed);
                let mut ev = Vec::new();
                let mut steps = 0;
                while !g.is_over() {
                    if !g.play_forced(&mut ev) {
                        let l = g.legal().unwrap();
                        let m = random_move(&l, &mut rng);
                        let seat = l.decision.seat;
                        if let Err(e) = g.apply_into(seat, &m, &mut ev) {
                            panic!("{v} n={n} seed={seed}: {m:?} refused: {e}\n{l:?}");
                        }
                    }
                    steps += 1;
                    assert!(steps < 10_000);
                    assert_eq!(g.card_locations().len(), 36);
                }
            }
        }
    }
}
