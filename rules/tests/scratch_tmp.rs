mod common;
use durak_rules::*;
#[test]
fn print_golden() {
    for s in [0u64, 1, 42, u64::MAX] {
        println!("{s}: {}", Deck::shuffled(s));
    }
    for (v, n) in [(Variant::Prostoy, 3usize), (Variant::Podkidnoy, 4)] {
        let mut se = Series::new(v, n, 2024).unwrap();
        println!("{v} {n} dealer {} seed {:#x}", se.dealer(), se.next_seed());
        se.record(Outcome { loser: Some(2) });
        println!(" dealer {} seed {:#x} first {}", se.dealer(), se.next_seed(), se.next_setup().first_game);
        se.record(Outcome { loser: None });
        println!(" dealer {} seed {:#x}", se.dealer(), se.next_seed());
    }
}
