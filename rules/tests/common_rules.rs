//! Common rules C-1..C-11, information rules I-1..I-3 and referee rulings R-2, R-3 (RULES.md).
//! R-1 (forced moves) is tested with each variant's positions in `prostoy.rs` and
//! `podkidnoy.rs`, and cross-checked by brute force in `properties.rs`.

mod common;
use common::*;
use durak_rules::random::{random_move, SmallRng};
use durak_rules::*;

const P: Variant = Variant::Prostoy;
const K: Variant = Variant::Podkidnoy;

fn setup(variant: Variant, players: usize, dealer: Seat, first_game: bool) -> Setup {
    Setup {
        variant,
        players,
        dealer,
        first_game,
    }
}

/// Every variant and player count, with a dealer and first-game flag varying with `i`.
fn setups(i: usize) -> Vec<Setup> {
    Variant::ALL
        .iter()
        .flat_map(|&v| v.players().map(move |n| setup(v, n, i % n, i & 1 == 0)))
        .collect()
}

/// Play a game with random moves (forced moves first), calling `each` before every move.
fn random_game(mut g: Game, seed: u64, mut each: impl FnMut(&Game, &[Event])) -> Game {
    let mut rng = SmallRng::new(seed);
    let mut ev = g.start_events();
    while let Some(l) = g.legal() {
        each(&g, &ev);
        let m = g.forced_move().unwrap_or_else(|| random_move(&l, &mut rng));
        ev = g.apply(l.decision.seat, &m).unwrap();
    }
    each(&g, &ev);
    g
}

// ----- C-1 --------------------------------------------------------------------------------------

#[test]
fn c1_deck_of_36_cards_rank_then_suit() {
    assert_eq!(CardSet::ALL.len(), 36);
    let text = CardSet::ALL.to_string();
    assert!(text.starts_with("6C 7C 8C 9C TC JC QC KC AC 6D"));
    assert!(text.ends_with("QS KS AS"));
    for card in CardSet::ALL {
        let s = card.to_string();
        assert_eq!(s.len(), 2);
        assert_eq!(s.parse::<Card>().unwrap(), card);
    }
    let ranks: String = Rank::ALL.iter().map(|r| r.letter()).collect();
    assert_eq!(ranks, "6789TJQKA", "low to high");
    assert!(Rank::Ten < Rank::Jack && Rank::Six < Rank::Seven && Rank::King < Rank::Ace);
    assert_eq!(c("TS"), Card::new(Rank::Ten, Suit::Spades));
    assert_eq!(c("6C"), Card::new(Rank::Six, Suit::Clubs));
    let suits: Vec<char> = Suit::ALL.iter().map(|s| s.letter()).collect();
    assert_eq!(suits, vec!['C', 'D', 'H', 'S']);
}

#[test]
fn c1_card_parsing_errors_say_what_is_wrong() {
    let err = |s: &str| s.parse::<Card>().unwrap_err().to_string();
    let e = err("10H");
    assert!(e.starts_with("C-1:") && e.contains("\"10H\""), "{e}");
    assert!(e.contains("the ten is written T"), "{e}");
    let e = err("H9");
    assert!(
        e.contains("'H' is not a rank") && e.contains("rank comes first"),
        "{e}"
    );
    let e = err("XX");
    assert!(
        e.contains("'X' is not a rank") && e.contains("6 7 8 9 T J Q K A"),
        "{e}"
    );
    let e = err("9Z");
    assert!(
        e.contains("'Z' is not a suit") && e.contains("C D H S"),
        "{e}"
    );
    let e = err("");
    assert!(e.contains("two characters"), "{e}");
    let e = err("9HH");
    assert!(e.contains("two characters"), "{e}");
    let e = CardSet::parse_list("7C 7D 7C").unwrap_err().to_string();
    assert!(e.contains("7C") && e.contains("twice"), "{e}");
    let e = CardSet::parse_list("7C, 10H").unwrap_err();
    assert_eq!(e.input, "10H");
    assert_eq!(CardSet::parse_list("7C, 7D QH").unwrap(), cs("7C 7D QH"));
}

#[test]
fn an_unknown_variant_is_refused_naming_the_variants() {
    assert_eq!("PodKidnoy".parse::<Variant>(), Ok(Variant::Podkidnoy));
    let e = "durak".parse::<Variant>().unwrap_err();
    assert_eq!(e, durak_rules::UnknownVariant("durak".into()));
    assert_eq!(
        e.to_string(),
        "unknown variant \"durak\": the variants are prostoy and podkidnoy"
    );
}

#[test]
fn c1_a_deck_is_36_distinct_cards() {
    let all: Vec<Card> = CardSet::ALL.iter().collect();
    assert!(Deck::from_cards(&all).is_ok());
    assert_eq!(
        Deck::from_cards(&all[..35]),
        Err(durak_rules::DeckError::Size(35))
    );
    let e = Deck::from_cards(&all[..35]).unwrap_err().to_string();
    assert!(e.starts_with("C-1") && e.contains("35"), "{e}");
    let mut twice = all.clone();
    twice[35] = twice[0];
    let e = Deck::from_cards(&twice).unwrap_err().to_string();
    assert!(
        e.starts_with("C-1") && e.contains("6C appears twice"),
        "{e}"
    );
}

// ----- C-2 --------------------------------------------------------------------------------------

#[test]
fn c2_seats_clockwise_left_is_next_seat() {
    for v in Variant::ALL {
        for n in v.players() {
            for dealer in 0..n {
                let g = Game::new(setup(v, n, dealer, false), 4).unwrap();
                // Left of the dealer (seat dealer+1) attacks first (P-2, K-2 later games).
                assert_eq!(g.decision().unwrap().seat, (dealer + 1) % n);
                for s in 0..n {
                    assert_eq!(g.next_active(s), (s + 1) % n);
                }
            }
        }
    }
    let e = Game::new(setup(P, 3, 3, true), 1).unwrap_err();
    assert_eq!(e.rule, "C-2");
    assert!(
        e.message.contains("seat 3") && e.message.contains("0 to 2"),
        "{e}"
    );
}

// ----- C-3 --------------------------------------------------------------------------------------

#[test]
fn c3_next_active_skips_exited_never_itself() {
    let mut checked = 0;
    for i in 0..60 {
        for s in setups(i) {
            let n = s.players;
            random_game(Game::new(s, i as u64).unwrap(), i as u64, |g, _| {
                for seat in 0..n {
                    let expect = (1..n)
                        .map(|k| (seat + k) % n)
                        .find(|&t| g.is_active(t))
                        .unwrap_or(seat);
                    assert_eq!(g.next_active(seat), expect);
                    if g.exits().len() + 1 < n {
                        assert_ne!(g.next_active(seat), seat);
                    }
                }
                if !g.is_over() {
                    assert_eq!(g.defender(), g.next_active(g.attacker()), "P-3, K-3");
                    assert!(g.is_active(g.attacker()) && g.is_active(g.defender()));
                    checked += 1;
                }
            });
        }
    }
    assert!(checked > 1000);
}

// ----- C-4 --------------------------------------------------------------------------------------

#[test]
fn c4_beating_exhaustive() {
    for trump in Suit::ALL {
        for a in CardSet::ALL {
            let mut by = CardSet::EMPTY;
            for d in CardSet::ALL {
                let expect = if d.suit() == a.suit() {
                    d.rank() > a.rank()
                } else {
                    d.suit() == trump
                };
                assert_eq!(d.beats(a, trump), expect, "{d} on {a}, trumps {trump:?}");
                if expect {
                    by.insert(d);
                }
            }
            assert_eq!(a.beaten_by(trump), by);
        }
    }
    // Examples from the seeds.
    assert!(c("KC").beats(c("7C"), Suit::Spades));
    assert!(!c("6C").beats(c("QH"), Suit::Spades));
    assert!(
        c("6S").beats(c("AH"), Suit::Spades),
        "any trump beats a plain card"
    );
    assert!(
        !c("6S").beats(c("7S"), Suit::Spades),
        "a trump only by a higher trump"
    );
    assert!(!c("AH").beats(c("6S"), Suit::Spades));
}

#[test]
fn c4_trump_may_beat_while_holding_the_suit() {
    // Prostoy, two players, spades trumps: seat 1 holds 9H and 6S and beats 7H with 6S.
    let mut g = game(P, 1, true, &["7H 8C 9C TC JC", "9H 6S QD KD AD"], "AS", "");
    play(&mut g, &["0: attack 7H"]);
    assert!(g.check(1, &mv("defend 7H/6S")).is_ok());
    assert!(g.check(1, &mv("defend 7H/9H")).is_ok());
    assert_refused(
        &mut g,
        1,
        "defend 7H/QD",
        "C-4",
        &[
            "QD does not beat 7H",
            "neither a higher hearts nor a trump (spades)",
        ],
    );
}

// ----- C-5, R-3 ---------------------------------------------------------------------------------

#[test]
fn c5_r3_deal_one_card_at_a_time_from_the_dealers_left() {
    for i in 0..4 {
        for s in setups(i) {
            let seed = 1000 + i as u64;
            let g = Game::new(s, seed).unwrap();
            let deck = Deck::shuffled(seed);
            assert_eq!(*g.deck(), deck, "shuffled from the game's seed");
            let (n, h) = (s.players, s.variant.hand_size());
            let cards = deck.cards();
            let dealt = (n * h).min(36);
            for seat in 0..n {
                let expect: CardSet = (0..dealt)
                    .filter(|i| (s.dealer + 1 + i) % n == seat)
                    .map(|i| cards[i])
                    .collect();
                assert_eq!(g.hand(seat), expect, "R-3: card i to seat dealer+1+i");
            }
            if n * h < 36 {
                assert_eq!(
                    g.trump_card(),
                    cards[n * h],
                    "the next card is the trump card"
                );
                let mut stock: Vec<Card> = cards[n * h + 1..].to_vec();
                stock.push(cards[n * h]);
                assert_eq!(g.stock_cards(), &stock[..], "stock from n*H+1, trump last");
            } else {
                assert_eq!(g.trump_card(), cards[35], "K-1");
                assert!(g.hand(s.dealer).contains(cards[35]));
                assert!(g.stock_cards().is_empty());
            }
            assert_eq!(g.trump(), g.trump_card().suit());
        }
    }
}

#[test]
fn c5_the_shuffle_is_a_deterministic_permutation() {
    for seed in [0u64, 1, 2, 42, 1 << 40, u64::MAX] {
        let d = Deck::shuffled(seed);
        assert_eq!(d, Deck::shuffled(seed));
        let set: CardSet = d.cards().iter().copied().collect();
        assert_eq!(set, CardSet::ALL);
    }
    assert_ne!(Deck::shuffled(0), Deck::shuffled(1));
}

// ----- C-6 --------------------------------------------------------------------------------------

#[test]
fn c6_draw_up_to_hand_size_larger_hands_kept() {
    // Prostoy, two players: seat 0 attacks with three cards and draws three (P-7); seat 1 takes
    // them all, holds 8 and draws nothing.
    let mut g = game(P, 1, true, &["7C 7D QH 9S 6D", "8C 8D 8H 9C 9D"], "AS", "");
    let ev = play(&mut g, &["0: attack 7C 7D QH", "1: defend"]);
    assert_eq!(draws(&ev), vec![(0, 3)]);
    assert_eq!(g.hand(0).len(), 5);
    assert_eq!(g.hand(1).len(), 8);
    // In every played game, a draw brings the hand exactly to H unless the stock runs out, and
    // nobody holding H or more draws.
    for i in 0..30 {
        for s in setups(i) {
            let h = s.variant.hand_size();
            let mut prev: Option<(Vec<usize>, usize)> = None;
            random_game(Game::new(s, i as u64).unwrap(), i as u64, |g, ev| {
                let now: Vec<usize> = (0..s.players).map(|x| g.hand(x).len()).collect();
                if let Some((mut counts, mut stock)) = prev.take() {
                    for e in ev {
                        match e.kind {
                            EventKind::Attacked { seat, cards }
                            | EventKind::Added { seat, cards } => counts[seat] -= cards.len(),
                            EventKind::Defended { seat, pairs } => counts[seat] -= pairs.len(),
                            EventKind::PickedUp { seat, cards } => counts[seat] += cards.len(),
                            EventKind::Drew { seat, count, .. } => {
                                assert!(counts[seat] < h, "C-6: only a short hand draws");
                                assert!(count > 0 && count <= stock);
                                counts[seat] += count;
                                stock -= count;
                                assert!(counts[seat] == h || stock == 0, "up to H");
                            }
                            _ => {}
                        }
                    }
                    assert_eq!(counts, now);
                    assert_eq!(stock, g.stock_len());
                }
                prev = Some((now, g.stock_len()));
            });
        }
    }
}

// ----- C-7 --------------------------------------------------------------------------------------

#[test]
fn c7_discard_is_permanent_and_public() {
    for i in 0..40 {
        for s in setups(i) {
            let mut discard = CardSet::EMPTY;
            random_game(Game::new(s, 7 + i as u64).unwrap(), i as u64, |g, _| {
                assert!(
                    discard.is_subset(g.discard()),
                    "discarded cards never return"
                );
                discard = g.discard();
                for seat in 0..s.players {
                    assert_eq!(g.observation(seat).discard, discard, "everyone saw them");
                }
            });
        }
    }
}

// ----- C-8 --------------------------------------------------------------------------------------

#[test]
fn c8_exits_only_once_the_stock_is_empty_and_exited_players_are_skipped() {
    let mut exits = 0;
    for i in 0..60 {
        for s in setups(i) {
            random_game(Game::new(s, 100 + i as u64).unwrap(), i as u64, |g, ev| {
                for e in ev {
                    if let EventKind::Exited { seat } = e.kind {
                        assert_eq!(g.stock_len(), 0);
                        assert!(g.hand(seat).is_empty());
                        assert!(!g.is_active(seat));
                        exits += 1;
                    }
                }
                if g.stock_len() > 0 {
                    assert!(g.exits().is_empty(), "no exit while the stock has cards");
                }
                if let Some(d) = g.decision() {
                    assert!(g.is_active(d.seat), "an exited player is never asked");
                }
                for &x in g.exits() {
                    assert!(g.hand(x).is_empty(), "and never gets cards again");
                }
            });
        }
    }
    assert!(exits > 100);
}

// ----- C-9 --------------------------------------------------------------------------------------

#[test]
fn c9_one_loser_or_a_draw() {
    let (mut losses, mut draws) = (0, 0);
    for i in 0..80 {
        for s in setups(i) {
            let g = random_game(Game::new(s, 300 + i as u64).unwrap(), i as u64, |_, _| {});
            let active: Vec<Seat> = (0..s.players).filter(|&x| g.is_active(x)).collect();
            match g.outcome().unwrap().loser {
                Some(l) => {
                    assert_eq!(active, vec![l], "the durak is the last active player");
                    assert!(!g.hand(l).is_empty());
                    losses += 1;
                }
                None => {
                    assert!(active.is_empty());
                    draws += 1;
                }
            }
            assert_eq!(g.exits().len() + active.len(), s.players);
            let e = g.check(0, &Move::Pass).unwrap_err();
            assert_eq!(e.rule, "C-9");
            assert!(e.message.contains("over"));
        }
    }
    assert!(losses > 0 && draws > 0, "{losses} losses, {draws} draws");
}

// ----- C-10 -------------------------------------------------------------------------------------

#[test]
fn c10_series_loser_deals_draw_keeps_dealer() {
    let mut s = Series::new(P, 3, 9).unwrap();
    let first = s.dealer();
    assert_eq!(s.next_setup().dealer, first);
    assert!(s.next_setup().first_game);
    let g = s.next_game();
    assert_eq!(*g.deck(), Deck::shuffled(s.next_seed()));
    s.record(Outcome {
        loser: Some((first + 1) % 3),
    });
    assert_eq!(s.dealer(), (first + 1) % 3, "the loser deals the next game");
    assert!(!s.next_setup().first_game);
    s.record(Outcome { loser: None });
    assert_eq!(s.dealer(), (first + 1) % 3, "after a draw the dealer stays");
    s.record(Outcome { loser: Some(first) });
    assert_eq!(s.dealer(), first);
    assert_eq!(s.games_played(), 3);
    assert_eq!(s.draws(), 1);
    let mut expect = [0; 3];
    expect[first] += 1;
    expect[(first + 1) % 3] += 1;
    assert_eq!(s.losses(), &expect[..]);
    // The first dealer is drawn from the series seed: every seat comes up for some seed.
    let mut seen = [false; 6];
    for seed in 0..200 {
        seen[Series::new(K, 6, seed).unwrap().dealer()] = true;
    }
    assert!(seen.iter().all(|&x| x));
    // Games of a series have distinct seeds.
    let mut s = Series::new(K, 2, 5).unwrap();
    let a = s.next_seed();
    s.record(Outcome { loser: Some(0) });
    assert_ne!(a, s.next_seed());
}

// ----- C-11 -------------------------------------------------------------------------------------

#[test]
fn c11_variant_and_options_fixed_for_the_whole_game() {
    for i in 0..10 {
        for s in setups(i) {
            random_game(Game::new(s, i as u64).unwrap(), i as u64, |g, _| {
                assert_eq!(*g.setup(), s);
                assert_eq!(g.variant(), s.variant);
                let o = g.observation(0);
                assert_eq!(
                    (o.variant, o.players, o.dealer),
                    (s.variant, s.players, s.dealer)
                );
                if let Some(d) = g.decision() {
                    // The other variant's moves stay refused all game long.
                    match (s.variant, d.kind) {
                        (Variant::Prostoy, DecisionKind::Defend) => {
                            assert_eq!(g.check(d.seat, &Move::Take).unwrap_err().rule, "P-8")
                        }
                        (Variant::Podkidnoy, DecisionKind::Attack) => {
                            let card = g.hand(d.seat).first().unwrap();
                            let m = Move::Attack {
                                cards: CardSet::single(card),
                                exchange: true,
                            };
                            assert_eq!(g.check(d.seat, &m).unwrap_err().rule, "K-14");
                        }
                        _ => {}
                    }
                }
            });
        }
    }
}

// ----- I-1 --------------------------------------------------------------------------------------

#[test]
fn i1_public_information_is_the_same_for_every_seat() {
    for i in 0..30 {
        for s in setups(i) {
            random_game(Game::new(s, 50 + i as u64).unwrap(), i as u64, |g, ev| {
                let obs: Vec<Observation> = (0..s.players).map(|x| g.observation(x)).collect();
                let o0 = &obs[0];
                for o in &obs[1..] {
                    assert_eq!(o.hand_counts, o0.hand_counts);
                    assert_eq!(o.known, o0.known);
                    assert_eq!(o.active, o0.active);
                    assert_eq!(o.trump_card, o0.trump_card);
                    assert_eq!(o.stock, o0.stock);
                    assert_eq!(o.discard, o0.discard);
                    assert_eq!(o.table, o0.table);
                    assert_eq!(
                        (o.attacker, o.defender, o.limit),
                        (o0.attacker, o0.defender, o0.limit)
                    );
                    assert_eq!(o.decision, o0.decision);
                    assert_eq!(o.outcome, o0.outcome);
                }
                for x in 0..s.players {
                    assert_eq!(o0.hand_counts[x], g.hand(x).len());
                }
                assert_eq!(o0.stock, g.stock_len());
                assert_eq!(o0.table, g.table());
                // Every event but the two private kinds is public.
                for e in ev {
                    let private = matches!(
                        e.kind,
                        EventKind::DealtHand { .. } | EventKind::DrewCards { .. }
                    );
                    assert_eq!(e.to == Audience::All, !private, "{e:?}");
                }
            });
        }
    }
}

#[test]
fn i1_taken_cards_are_known_to_all() {
    // Prostoy: seat 1 takes 7C 7D QH; everyone knows seat 1 holds them, until played.
    let mut g = game(P, 1, true, &["7C 7D QH 9S 6D", "8C 8D 8H 9C 9D"], "AS", "");
    play(&mut g, &["0: attack 7C 7D QH", "1: defend"]);
    for s in 0..2 {
        assert_eq!(g.observation(s).known[1], cs("7C 7D QH"));
    }
    play(&mut g, &["0: attack 9S", "1: defend"]);
    play(&mut g, &["0: attack 6D", "1: defend 6D/8D"]);
    play(&mut g, &["1: attack QH"]);
    assert_eq!(
        g.observation(0).known[1],
        cs("7C 7D 9S"),
        "6D was beaten, QH played"
    );
}

// ----- I-2 --------------------------------------------------------------------------------------

#[test]
fn i2_private_hand_and_draws_only_the_trump_card_is_known() {
    for i in 0..40 {
        for s in setups(i) {
            let n = s.players;
            random_game(Game::new(s, 70 + i as u64).unwrap(), i as u64, |g, ev| {
                for e in ev {
                    match e.kind {
                        EventKind::DealtHand { seat, .. } | EventKind::DrewCards { seat, .. } => {
                            assert_eq!(e.to, Audience::Seat(seat), "only the owner sees it");
                        }
                        EventKind::Drew {
                            seat,
                            trump_card: Some(t),
                            ..
                        } => {
                            // Everyone saw the trump card: everyone knows who drew it.
                            assert_eq!(t, g.trump_card());
                            assert!(g.hand(seat).contains(t));
                            for x in 0..n {
                                assert!(g.observation(x).known[seat].contains(t));
                            }
                        }
                        _ => {}
                    }
                }
                for seat in 0..n {
                    let o = g.observation(seat);
                    assert_eq!(o.hand, g.hand(seat), "own hand");
                    for other in 0..n {
                        assert!(
                            o.known[other].is_subset(g.hand(other)),
                            "known cards are held"
                        );
                    }
                }
            });
        }
    }
}

#[test]
fn i2_seat_reconstructs_its_view_from_its_own_events() {
    for i in 0..25 {
        for s in setups(i) {
            let g = Game::new(s, 90 + i as u64).unwrap();
            let mut vs = views(&g);
            let mut first = true;
            random_game(g, i as u64, |g, ev| {
                if !first {
                    feed(&mut vs, ev);
                }
                first = false;
                for v in &vs {
                    v.assert_matches(&g.observation(v.seat));
                }
            });
        }
    }
}

// ----- I-3 --------------------------------------------------------------------------------------

#[test]
fn i3_stock_order_hidden_from_all() {
    // Two decks with the same hands and trump card but the stock in another order give every
    // seat the same start events and the same observation, and the same legal choices.
    for i in 0..20 {
        for s in setups(i) {
            let (n, h) = (s.players, s.variant.hand_size());
            if n * h >= 35 {
                continue; // six-player podkidnoy has no stock
            }
            let deck = Deck::shuffled(i as u64);
            let mut cards = deck.cards().to_vec();
            cards[n * h + 1..].reverse();
            let other = Deck::from_cards(&cards).unwrap();
            assert_ne!(deck, other);
            let a = Game::with_deck(s, deck).unwrap();
            let b = Game::with_deck(s, other).unwrap();
            assert_ne!(a.stock_cards(), b.stock_cards());
            for seat in 0..n {
                assert_eq!(a.observation(seat), b.observation(seat));
                let sa: Vec<Event> = a
                    .start_events()
                    .into_iter()
                    .filter(|e| e.to.sees(seat))
                    .collect();
                let sb: Vec<Event> = b
                    .start_events()
                    .into_iter()
                    .filter(|e| e.to.sees(seat))
                    .collect();
                assert_eq!(sa, sb);
            }
            assert_eq!(a.legal(), b.legal());
        }
    }
}

// ----- R-2 --------------------------------------------------------------------------------------

#[test]
fn r2_one_decision_at_a_time_others_refused() {
    for i in 0..15 {
        for s in setups(i) {
            let mut g = Game::new(s, 200 + i as u64).unwrap();
            let mut rng = SmallRng::new(i as u64);
            while let Some(l) = g.legal() {
                let d = l.decision;
                let m = random_move(&l, &mut rng);
                for other in (0..s.players).filter(|&x| x != d.seat) {
                    let e = g.check(other, &m).unwrap_err();
                    if e.rule == "R-2" {
                        assert!(
                            e.message.contains(&format!(
                                "seat {}'s turn to {}",
                                d.seat,
                                d.kind.name()
                            )),
                            "{e}"
                        );
                    } else {
                        // Out-of-turn additions name who may add (K-5).
                        assert_eq!(e.rule, "K-5", "{e}");
                        assert!(matches!(m, Move::Add { .. }));
                    }
                }
                g.apply(d.seat, &m).unwrap();
            }
        }
    }
}

#[test]
fn r2_wrong_kind_of_move_names_the_decision() {
    let mut g = game(P, 1, true, &["7C 7D QH 9S 6D", "8C 8D 8H 9C 9D"], "AS", "");
    assert_refused(&mut g, 0, "defend", "R-2", &["asked to attack", "'defend'"]);
    let mut g = game(
        K,
        1,
        false,
        &["7C 7D QH 9S 6D 6C", "8C 8D 8H 9C 9D TD"],
        "AS",
        "",
    );
    assert_refused(&mut g, 0, "add 7C", "R-2", &["asked to attack", "'add'"]);
    play(&mut g, &["0: attack 7C", "1: defend 7C/8C"]);
    assert_refused(
        &mut g,
        0,
        "attack 7D",
        "K-8",
        &["add cards or pass", "'attack'"],
    );
    play(&mut g, &["0: add 7D", "1: take"]);
    assert_refused(&mut g, 0, "take", "K-9", &["add cards or pass", "'take'"]);
}
