//! Golden values: the decks of a few seeds and a series' first dealer and game seeds, pasted
//! from one run. They pin the shuffle (C-5, I-3) and the series derivation (C-10) across
//! machines, builds and dependency updates: a change here changes every replay and tournament.

use durak_rules::*;

const DECKS: [(u64, &str); 4] = [
    (
        0,
        "QD JC JD 7H TC 9D QC 7C AS TS TH 6D 6C 8C 6H AD KS QS JH KC 9C TD KH 6S QH AH 7S 7D 9H 8H AC 8S JS KD 8D 9S",
    ),
    (
        1,
        "AS AD QC 6D 9S KH 6C JH TC TS TD 8D QS KD 6H QD JD QH 6S TH 7D 9C AC KC 7S 9H AH 7C 7H KS JC 8C JS 9D 8H 8S",
    ),
    (
        42,
        "8H 9D TC KS 6H KH AH AC QD 6S KC 8C TD AS 9C AD 8S 7C JC QC JS 9H JH JD 7D QS KD 7H QH 6C 7S TH TS 9S 6D 8D",
    ),
    (
        u64::MAX,
        "9C AD 7C JD TD QS 7H TS QD 8C TC KS 6C 8S QC KC JC AS 9D 7S AC 8H TH JS 7D QH KH JH 6H 8D 9S 6D 9H KD AH 6S",
    ),
];

#[test]
fn c5_golden_decks() {
    for (seed, text) in DECKS {
        assert_eq!(Deck::shuffled(seed).to_string(), text, "seed {seed}");
    }
}

#[test]
fn c5_golden_deal_of_seed_42() {
    // Podkidnoy, two players, seat 0 deals: seat 1 gets cards 0, 2, 4, ..., seat 0 cards
    // 1, 3, 5, ...; card 12 (TD) is the trump card: diamonds.
    let g = Game::new(Setup::new(Variant::Podkidnoy, 2), 42).unwrap();
    assert_eq!(g.hand(1).to_string(), "TC KC QD 6H 8H AH");
    assert_eq!(g.hand(0).to_string(), "8C AC 9D KH 6S KS");
    assert_eq!(g.trump_card().to_string(), "TD");
    // K-2, first game: the lowest trump in a hand is 9D, seat 0's.
    assert_eq!(g.decision().unwrap().seat, 0);
    assert_eq!(g.stock_len(), 24);
}

#[test]
fn c10_golden_series() {
    // Series seed 2024: the first dealer and the seeds of the first three games. Game seeds
    // depend on the series seed and the game's index only.
    let mut s = Series::new(Variant::Prostoy, 3, 2024).unwrap();
    assert_eq!(s.dealer(), 1);
    assert_eq!(s.next_seed(), 0xfdfd_b611_1b67_8d58);
    s.record(Outcome { loser: Some(2) });
    assert_eq!(s.dealer(), 2);
    assert_eq!(s.next_seed(), 0xd3cf_6b65_1d75_0736);
    s.record(Outcome { loser: None });
    assert_eq!(s.dealer(), 2);
    assert_eq!(s.next_seed(), 0x9ada_4ba7_4b26_693e);
    let p = Series::new(Variant::Podkidnoy, 4, 2024).unwrap();
    assert_eq!(p.dealer(), 2);
    assert_eq!(p.next_seed(), 0xfdfd_b611_1b67_8d58);
    let firsts: Vec<Seat> = (0..8)
        .map(|seed| Series::new(Variant::Podkidnoy, 6, seed).unwrap().dealer())
        .collect();
    assert_eq!(firsts, FIRST_DEALERS_6);
}

const FIRST_DEALERS_6: [Seat; 8] = [1, 0, 3, 3, 4, 1, 5, 0];
