//! Prostoy Durak, rules P-1..P-12 (RULES.md, seed `000_656751bf695d1718.txt`).
//!
//! Most positions are dealt from explicit decks (R-3, `common::deck_for`) and reached by playing
//! explicit moves. The central one is `worked_example_line`: a two-player game that empties the
//! stock in four turns and reaches the position of the seed's worked example (P-12).

mod common;
use common::*;
use durak_rules::random::{random_move, SmallRng};
use durak_rules::*;

const P: Variant = Variant::Prostoy;

fn setup(players: usize, dealer: Seat) -> Setup {
    Setup {
        variant: P,
        players,
        dealer,
        first_game: true,
    }
}

/// Two players, seat 1 deals, so seat 0 attacks first (P-2). Spades are trumps (trump card 9S).
/// Seat 0 is dealt the even deck positions, seat 1 the odd ones.
///
/// | turn | moves | stock after |
/// | --- | --- | --- |
/// | T1 | 0 attacks `6H 6D 8H 8C 9D` (two pairs + 1), draws 5; 1 beats all five, draws 5 | 16 |
/// | T2 | 1 attacks `AC AD QD JC JS`, draws 5; 0 beats all five, draws 5 | 6 |
/// | T3 | 0 attacks `6C`, draws 1 (`8D`); 1 beats none and takes it (6 cards, draws nothing) | 5 |
/// | T4 | 0 attacks `9C 9H 7H 7S 8D`, draws the last 5 (`7C 7D QH QS`, then the trump card `9S`); 1 beats four, takes `8D` | 0 |
///
/// After T4 the stock is empty, seat 0 holds `7C 7D QH QS 9S` and attacks again (seat 1 took),
/// and seat 1 holds exactly `KC 8D 6C`: the position of the worked example (P-12).
fn worked_example_deck() -> Game {
    game(
        P,
        1,
        true,
        &["6H 6D 8H 8C 9D", "TH TD JH TC JD"],
        "9S",
        "6S TS KD KS AS  AC AD QD JC JS  QC KH AH 8S KC  6C 9C 9H 7H 7S  8D  7C 7D QH QS",
    )
}

const T1: [&str; 2] = [
    "0: attack 6H 6D 8H 8C 9D",
    "1: defend 6H/TH 6D/TD 8H/JH 8C/TC 9D/JD",
];
const T2: [&str; 2] = [
    "1: attack AC AD QD JC JS",
    "0: defend AC/6S AD/TS QD/KD JC/AS JS/KS",
];
const T3: [&str; 2] = ["0: attack 6C", "1: defend"];
const T4: [&str; 2] = [
    "0: attack 9C 9H 7H 7S 8D",
    "1: defend 9C/QC 9H/KH 7H/AH 7S/8S",
];

fn worked_example_line() -> Game {
    let mut g = worked_example_deck();
    play(&mut g, &T1);
    play(&mut g, &T2);
    play(&mut g, &T3);
    play(&mut g, &T4);
    assert_eq!(g.stock_len(), 0);
    assert_eq!(g.hand(0), cs("7C 7D QH QS 9S"));
    assert_eq!(g.hand(1), cs("KC 8D 6C"));
    assert_eq!(g.decision().unwrap().seat, 0);
    g
}

// ----- P-1 --------------------------------------------------------------------------------------

#[test]
fn p1_two_to_four_players_hand_of_five() {
    for n in 2..=4 {
        let g = Game::new(setup(n, 0), 7).unwrap();
        for s in 0..n {
            assert_eq!(g.hand(s).len(), 5, "P-1: hand size 5");
        }
        assert_eq!(
            g.stock_len(),
            36 - 5 * n,
            "the rest, with the trump card, is the stock"
        );
    }
}

#[test]
fn p1_other_player_counts_refused_before_the_deal() {
    for n in [0, 1, 5, 6, 7] {
        let e = Game::new(setup(n, 0), 1).unwrap_err();
        assert_eq!(e.rule, "P-1", "{n} players");
        assert!(e.message.contains("2 to 4"), "{e}");
        assert!(e.message.contains(&format!("not {n}")), "{e}");
        let e = Game::with_deck(setup(n, 0), Deck::shuffled(1)).unwrap_err();
        assert_eq!(e.rule, "P-1");
        let e = Series::new(P, n, 1).unwrap_err();
        assert_eq!(e.rule, "P-1");
        assert_eq!(P.check_players(n).unwrap_err().rule, "P-1");
    }
}

// ----- P-2 --------------------------------------------------------------------------------------

#[test]
fn p2_left_of_dealer_attacks_first_in_every_game() {
    for n in 2..=4 {
        for dealer in 0..n {
            for first_game in [true, false] {
                for seed in 0..5 {
                    let s = Setup {
                        first_game,
                        ..setup(n, dealer)
                    };
                    let g = Game::new(s, seed).unwrap();
                    let d = g.decision().unwrap();
                    assert_eq!(d.seat, (dealer + 1) % n);
                    assert_eq!(d.kind, DecisionKind::Attack);
                    // No lowest trump is shown in prostoy (that is K-2).
                    assert!(g.start_events().iter().any(|e| e.kind
                        == EventKind::FirstAttacker {
                            seat: (dealer + 1) % n,
                            shown_trump: None
                        }));
                }
            }
        }
    }
}

// ----- P-3 --------------------------------------------------------------------------------------

#[test]
fn p3_defender_is_next_active_after_attacker() {
    // Four players, seat 3 deals: seat 0 attacks seat 1.
    let mut g = Game::new(setup(4, 3), 11).unwrap();
    assert_eq!((g.attacker(), g.defender()), (0, 1));
    // Seat 1 takes a single card: the next attacker is seat 2 (P-11), who attacks seat 3.
    let a = g.hand(0).first().unwrap();
    g.apply(
        0,
        &Move::Attack {
            cards: CardSet::single(a),
            exchange: false,
        },
    )
    .unwrap();
    g.apply(1, &mv("defend")).unwrap();
    assert_eq!((g.attacker(), g.defender()), (2, 3));
    // And seat 3, when it attacks, attacks seat 0 (clockwise wraps, C-2).
    let a = g.hand(2).first().unwrap();
    g.apply(
        2,
        &Move::Attack {
            cards: CardSet::single(a),
            exchange: false,
        },
    )
    .unwrap();
    g.apply(3, &mv("defend")).unwrap();
    assert_eq!((g.attacker(), g.defender()), (0, 1));
}

// ----- P-4 --------------------------------------------------------------------------------------

/// Two players, seat 1 deals, clubs are trumps (trump card `AC`); seat 0 holds the six of trumps.
fn exchange_game() -> Game {
    game(P, 1, true, &["6C 7D 7H 9S TS", "8D 9D JH QH KS"], "AC", "")
}

#[test]
fn p4_exchange_before_an_attack() {
    let mut g = exchange_game();
    let l = g.legal().unwrap();
    assert_eq!(
        l.exchange,
        Some(Exchange {
            six: c("6C"),
            trump_card: c("AC")
        })
    );
    // Attacking with the trump card just taken in exchange, in the same answer.
    let ev = play(&mut g, &["0: exchange attack AC"]);
    assert_eq!(
        ev[0].kind,
        EventKind::Exchanged {
            seat: 0,
            six: c("6C"),
            trump_card: c("AC")
        }
    );
    assert_eq!(ev[0].to, Audience::All, "the exchange is public (I-1)");
    assert_eq!(
        g.trump_card(),
        c("6C"),
        "the six lies face up in the trump card's place"
    );
    assert_eq!(g.trump(), Suit::Clubs, "trumps stay clubs");
    assert_eq!(
        *g.stock_cards().last().unwrap(),
        c("6C"),
        "the six is now drawn last"
    );
    assert!(!g.hand(0).contains(c("6C")));
    assert_eq!(g.hand(0).len(), 5, "drew up to 5 after attacking (P-7)");
    for s in 0..2 {
        let o = g.observation(s);
        assert_eq!(o.trump_card, c("6C"));
        assert!(o.trump_card_in_stock);
    }
}

#[test]
fn p4_exchange_before_a_defence() {
    // Seat 0 attacks 7S; seat 1 holds the six of trumps (spades, trump card QS).
    let mut g = game(P, 1, true, &["7S 7D 8H 9H TC", "6S 8D JH QC KD"], "QS", "");
    play(&mut g, &["0: attack 7S"]);
    let l = g.legal().unwrap();
    assert_eq!(
        l.exchange,
        Some(Exchange {
            six: c("6S"),
            trump_card: c("QS")
        })
    );
    assert!(l.to_beat[0].beaters.is_empty(), "6S does not beat 7S");
    assert_eq!(l.to_beat_after_exchange[0].beaters, cs("QS"));
    // Exchange and beat 7S with the queen just taken, in one answer.
    let ev = play(&mut g, &["1: exchange defend 7S/QS"]);
    assert!(matches!(ev[0].kind, EventKind::Exchanged { seat: 1, .. }));
    assert_eq!(g.discard(), cs("7S QS"));
    assert_eq!(g.observation(0).known[1], CardSet::EMPTY, "QS was played");
}

#[test]
fn p4_exchange_refused_when_not_holding_the_six() {
    let mut g = exchange_game();
    play(&mut g, &["0: attack 9S"]);
    assert_refused(&mut g, 1, "exchange defend", "P-4", &["do not hold", "6C"]);
}

#[test]
fn p4_exchange_refused_once_the_trump_card_is_drawn() {
    // Seat 1 holds the six of trumps all along; the stock is drawn out by others.
    // Four players, seat 3 deals, spades trumps (trump card AS), 15 stock cards + AS.
    // T1: 0 attacks 5 (two pairs + 1), draws 5 (11 left); 1 takes all (10 cards).
    // T2: 2 attacks 5 at 3, draws 5 (6 left); 3 takes all (10 cards).
    // T3: 0 attacks 5 at 1, draws 5 (1 left); 1 takes all; 1 never drew.
    // T4: 2 attacks 1 at 3, draws the trump card AS: stock empty. Seat 3 holds 6S.
    let mut g = game(
        P,
        3,
        true,
        &[
            "7C 7D 8C 8D 9C",
            "6S KH KD KC TH",
            "7H 7S 8H 8S 9D",
            "6H 6D 6C QH QD",
        ],
        "AS",
        "JC JD JH JS 9H  TC TD TS QC QS  9S AC AD AH KS",
    );
    play(
        &mut g,
        &[
            "0: attack 7C 7D 8C 8D 9C",
            "1: defend",
            "2: attack 7H 7S 8H 8S 9D",
            "3: defend",
            "0: attack JC JD JH JS 9H",
            "1: defend",
        ],
    );
    assert_eq!(g.stock_len(), 1, "only the trump card is left");
    // While the trump card lies there, seat 1 (holding 6S) may exchange, but it is not seat
    // 1's move now: the exchange is only part of one's own move (P-4 ruling).
    assert_eq!(g.decision().unwrap().seat, 2);
    assert_eq!(
        g.exchange_open(1),
        Some(Exchange {
            six: c("6S"),
            trump_card: c("AS")
        })
    );
    play(&mut g, &["2: attack TC"]);
    assert_eq!(g.stock_len(), 0);
    assert!(g.hand(2).contains(c("AS")), "seat 2 drew the trump card");
    // Seat 3 defends; seat 1 is not asked. Now give seat 1 a turn: seat 3 takes, seat 0 attacks
    // seat 1, who holds 6S but the trump card is gone.
    play(&mut g, &["3: defend", "0: attack 9S"]);
    assert_eq!(g.exchange_open(1), None);
    assert_refused(
        &mut g,
        1,
        "exchange defend",
        "P-4",
        &["already been drawn", "AS"],
    );
    assert!(g.legal().unwrap().exchange.is_none());
}

#[test]
fn p4_exchange_refused_when_the_trump_card_is_the_six() {
    let mut g = game(P, 1, true, &["7C 7D 8H 9H TC", "8D 9D JH QC KD"], "6S", "");
    assert!(g.legal().unwrap().exchange.is_none());
    assert_refused(&mut g, 0, "exchange attack 7C", "P-4", &["6S itself"]);
}

#[test]
fn p4_attack_with_the_six_after_exchanging_it_is_refused() {
    let mut g = exchange_game();
    assert_refused(
        &mut g,
        0,
        "exchange attack 6C",
        "P-5",
        &["6C", "after the exchange"],
    );
}

// ----- P-5 --------------------------------------------------------------------------------------

/// A first turn where seat 0 holds `hand` and seat 1 holds five cards (so P-6 allows 5).
fn attack_position(hand: &str) -> Game {
    let others = CardSet::ALL.minus(cs(hand));
    let mut rest = others.iter();
    let seat1: Vec<String> = (0..5).map(|_| rest.next().unwrap().to_string()).collect();
    let trump = rest.next().unwrap().to_string();
    game(P, 1, true, &[hand, &seat1.join(" ")], &trump, "")
}

#[test]
fn p5_single_card_is_always_legal() {
    let mut g = attack_position("6D 7H 9S JD AC");
    for card in cs("6D 7H 9S JD AC") {
        assert!(g
            .check(
                0,
                &Move::Attack {
                    cards: CardSet::single(card),
                    exchange: false
                }
            )
            .is_ok());
    }
    assert_eq!(g.legal().unwrap().attack_size_list(), vec![1]);
    assert_refused(
        &mut g,
        0,
        "attack 6D 7H 9S",
        "P-5",
        &["needs a pair", "6D 7H 9S"],
    );
}

#[test]
fn p5_three_cards_need_a_pair() {
    let mut g = attack_position("7C 7D QH 9S 6D");
    assert!(
        g.check(0, &mv("attack 7C 7D QH")).is_ok(),
        "pair + any card"
    );
    assert!(
        g.check(0, &mv("attack 7C 7D 9S")).is_ok(),
        "the third card may be a trump"
    );
    assert_refused(
        &mut g,
        0,
        "attack QH 9S 6D",
        "P-5",
        &["needs a pair", "QH", "9S", "6D"],
    );
    let g = attack_position("7C 7D 7H 9S 6D");
    assert!(
        g.check(0, &mv("attack 7C 7D 7H")).is_ok(),
        "three of a kind is legal"
    );
}

#[test]
fn p5_five_cards_need_two_separate_pairs() {
    let g = attack_position("7C 7D QH QS 6D");
    assert!(g.check(0, &mv("attack 7C 7D QH QS 6D")).is_ok());
    assert_eq!(g.legal().unwrap().attack_size_list(), vec![1, 3, 5]);
    let mut g2 = attack_position("7C 7D QH KS 6D");
    assert_refused(
        &mut g2,
        0,
        "attack 7C 7D QH KS 6D",
        "P-5",
        &["two separate pairs", "has 1"],
    );
    assert_eq!(g2.legal().unwrap().attack_size_list(), vec![1, 3]);
    // The fifth card may have a pair's rank: three sevens and two queens.
    let g3 = attack_position("7C 7D 7H QS QD");
    assert!(g3.check(0, &mv("attack 7C 7D 7H QS QD")).is_ok());
    // Three of a kind plus two odd cards is one pair only.
    let mut g4 = attack_position("7C 7D 7H QS KD");
    assert_refused(
        &mut g4,
        0,
        "attack 7C 7D 7H QS KD",
        "P-5",
        &["two separate pairs"],
    );
}

#[test]
fn p5_four_of_a_kind_plus_one_is_a_legal_five_card_attack() {
    let mut g = attack_position("9C 9D 9H 9S AD");
    assert!(g.check(0, &mv("attack 9C 9D 9H 9S AD")).is_ok());
    play(&mut g, &["0: attack 9C 9D 9H 9S AD"]);
    assert_eq!(g.table().len(), 5);
    // Four of a kind alone is four cards: refused.
    let mut g = attack_position("9C 9D 9H 9S AD");
    assert_refused(
        &mut g,
        0,
        "attack 9C 9D 9H 9S",
        "P-5",
        &["1, 3 or 5", "not 4"],
    );
}

#[test]
fn p5_two_and_four_card_attacks_refused() {
    let mut g = attack_position("7C 7D QH QS 6D");
    assert_refused(
        &mut g,
        0,
        "attack 7C 7D",
        "P-5",
        &["1, 3 or 5", "not 2", "7C 7D"],
    );
    assert_refused(&mut g, 0, "attack 7C 7D QH QS", "P-5", &["not 4"]);
}

#[test]
fn p5_the_attacker_may_not_pass_nor_attack_with_nothing_or_foreign_cards() {
    let mut g = attack_position("7C 7D QH QS 6D");
    assert_refused(&mut g, 0, "pass", "P-5", &["may not pass"]);
    assert_refused(&mut g, 0, "attack", "P-5", &["at least one card"]);
    assert_refused(&mut g, 0, "attack AS", "P-5", &["AS", "not in your hand"]);
}

// ----- P-6 --------------------------------------------------------------------------------------

#[test]
fn p6_attack_never_larger_than_the_defenders_hand() {
    // The worked example position: the defender holds 3 cards (KC 8D 6C); seat 0 holds two
    // pairs (7C 7D, QH QS) and 9S, a legal five-card group, but only 1 or 3 cards are allowed.
    let mut g = worked_example_line();
    assert_eq!(g.legal().unwrap().attack_size_list(), vec![1, 3]);
    assert_refused(
        &mut g,
        0,
        "attack 7C 7D QH QS 9S",
        "P-6",
        &["5 attack cards", "seat 1", "only 3"],
    );
}

#[test]
fn p6_against_four_only_one_or_three() {
    // From the worked example position, seat 0 attacks 9S, which seat 1 cannot beat: seat 1
    // takes it and holds 4 cards; seat 0 (7C 7D QH QS) attacks again.
    let mut g = worked_example_line();
    play(&mut g, &["0: attack 9S", "1: defend"]);
    assert_eq!(g.hand(1).len(), 4);
    assert_eq!(g.legal().unwrap().attack_size_list(), vec![1, 3]);
    assert!(g.check(0, &mv("attack 7C 7D QH")).is_ok());
    assert_refused(&mut g, 0, "attack 7C 7D QH QS", "P-5", &["not 4"]);
    assert_refused(&mut g, 0, "attack 7C 7D", "P-5", &["not 2"]);
}

/// Positions with a small defender's hand arise once the stock is empty; random games from
/// fixed seeds find them. At every prostoy attack whose defender holds `def` cards, a legal
/// group larger than `def` is refused with P-6 and `legal()` offers only sizes up to `def`.
#[test]
fn p6_small_defender_hands_in_played_games() {
    let mut found = [0usize; 6];
    for seed in 0..400u64 {
        let n = 2 + (seed % 3) as usize;
        let mut g = Game::new(setup(n, seed as usize % n), seed).unwrap();
        let mut rng = SmallRng::new(seed);
        while let Some(l) = g.legal() {
            let d = l.decision;
            if d.kind == DecisionKind::Attack {
                let def = g.hand(g.defender()).len();
                let sizes = l.attack_size_list();
                assert!(
                    sizes.iter().all(|&k| k <= def),
                    "P-6: {sizes:?} against {def}"
                );
                match def {
                    4 => assert!(!sizes.contains(&5)),
                    2 | 1 => assert_eq!(sizes, vec![1]),
                    _ => {}
                }
                // A legal group of each size, if the hand has one.
                let hand = l.hand;
                let pairs: Vec<CardSet> = Rank::ALL
                    .iter()
                    .map(|&r| hand.of_rank(r).iter().take(2).collect::<CardSet>())
                    .filter(|p| p.len() == 2)
                    .collect();
                let group = |k: usize| -> Option<CardSet> {
                    let need = k / 2;
                    if pairs.len() < need {
                        return None;
                    }
                    let mut cards = CardSet::EMPTY;
                    for p in &pairs[..need] {
                        cards = cards.union(*p);
                    }
                    cards.insert(hand.minus(cards).first()?);
                    Some(cards)
                };
                for k in [3, 5] {
                    if let Some(cards) = group(k) {
                        let m = Move::Attack {
                            cards,
                            exchange: false,
                        };
                        let r = g.check(d.seat, &m);
                        if k > def {
                            let e = r.expect_err("P-6");
                            assert_eq!(e.rule, "P-6", "{e}");
                            assert!(e.message.contains(&format!("only {def}")), "{e}");
                            found[def] += 1;
                        } else {
                            assert!(r.is_ok(), "{m:?} against {def}: {r:?}");
                        }
                    }
                }
            }
            let m = g.forced_move().unwrap_or_else(|| random_move(&l, &mut rng));
            g.apply(d.seat, &m).unwrap();
        }
    }
    assert!(
        found[4] > 0,
        "a five-card group against 4 was tried: {found:?}"
    );
    assert!(
        found[2] > 0,
        "a three-card group against 2 was tried: {found:?}"
    );
}

// ----- P-7 --------------------------------------------------------------------------------------

#[test]
fn p7_attacker_draws_right_after_attacking_before_the_defence() {
    let mut g = worked_example_deck();
    let ev = play(&mut g, &[T1[0]]);
    assert_eq!(
        kinds(&ev),
        vec![
            EventKind::Attacked {
                seat: 0,
                cards: cs("6H 6D 8H 8C 9D")
            },
            EventKind::Drew {
                seat: 0,
                count: 5,
                trump_card: None
            },
            EventKind::DrewCards {
                seat: 0,
                cards: cs("6S TS KD KS AS")
            },
        ]
    );
    assert_eq!(ev[2].to, Audience::Seat(0), "drawn cards are private (I-2)");
    // The defence has not happened yet, and the attacker already holds 5.
    assert_eq!(
        g.decision().unwrap(),
        Decision {
            seat: 1,
            kind: DecisionKind::Defend,
            after_take: false
        }
    );
    assert_eq!(g.hand(0), cs("6S TS KD KS AS"));
    assert_eq!(g.stock_len(), 21);
}

#[test]
fn p7_nothing_is_added_to_a_prostoy_attack() {
    let mut g = worked_example_deck();
    play(&mut g, &[T1[0]]);
    // Neither the attacker (not their turn) nor anybody adds, takes or passes.
    assert_refused(&mut g, 0, "add 6S", "R-2", &["seat 1's turn"]);
    assert_refused(&mut g, 1, "add TH", "P-7", &["nothing is ever added"]);
    assert_refused(&mut g, 1, "pass", "P-7", &["nothing is ever added"]);
    assert_refused(&mut g, 1, "take", "P-8", &["no 'take'"]);
}

// ----- P-8 --------------------------------------------------------------------------------------

#[test]
fn p8_partial_defence_all_some_or_none() {
    // All: T1 beats all five. None: T3. Some: T4 beats four of five.
    let mut g = worked_example_deck();
    play(&mut g, &T1);
    assert_eq!(g.hand(1).len(), 5, "beat all, then drew up to 5");
    play(&mut g, &T2);
    play(&mut g, &T3);
    assert_eq!(g.hand(1).len(), 6, "beat none: took the card");
    play(&mut g, &T4);
    assert_eq!(g.hand(1), cs("KC 8D 6C"), "beat four, took one");
}

#[test]
fn p8_each_chosen_card_beaten_once_by_a_different_card() {
    let mut g = worked_example_line();
    play(&mut g, &["0: attack 7C 7D QH"]);
    assert_refused(
        &mut g,
        1,
        "defend 7C/KC 7D/KC",
        "P-8",
        &["KC is used twice"],
    );
    assert_refused(
        &mut g,
        1,
        "defend 7C/KC 7C/8D",
        "P-8",
        &["7C is beaten twice"],
    );
    assert_refused(
        &mut g,
        1,
        "defend 7C/AS",
        "P-8",
        &["AS is not in your hand", "KC"],
    );
    assert_refused(
        &mut g,
        1,
        "defend 9H/KC",
        "P-8",
        &["9H is not an attack card"],
    );
    assert_refused(&mut g, 1, "defend QH/KC", "C-4", &["KC does not beat QH"]);
    assert_refused(&mut g, 1, "defend 7D/6C", "C-4", &["6C does not beat 7D"]);
    // Defence cards need not form a group: any subset is fine.
    for d in [
        "defend",
        "defend 7C/KC",
        "defend 7D/8D",
        "defend 7C/KC 7D/8D",
        "defend 7D/8D 7C/KC",
    ] {
        assert!(g.check(1, &mv(d)).is_ok(), "{d}");
    }
}

// ----- P-9 --------------------------------------------------------------------------------------

#[test]
fn p9_beaten_pairs_discarded_unbeaten_taken_then_defender_draws() {
    let mut g = worked_example_deck();
    play(&mut g, &[T1[0]]);
    let ev = play(&mut g, &[T1[1]]);
    let k = kinds(&ev);
    assert!(matches!(k[0], EventKind::Defended { seat: 1, .. }));
    assert_eq!(
        k[1],
        EventKind::Discarded {
            cards: cs("6H 6D 8H 8C 9D TH TD JH TC JD")
        }
    );
    assert_eq!(
        k[2],
        EventKind::Drew {
            seat: 1,
            count: 5,
            trump_card: None
        }
    );
    assert_eq!(
        k[3],
        EventKind::DrewCards {
            seat: 1,
            cards: cs("AC AD QD JC JS")
        }
    );
    assert_eq!(g.discard().len(), 10);
    // A defender who takes and holds 5 or more draws nothing (C-6): T3.
    play(&mut g, &T2);
    let ev = play(&mut g, &T3);
    assert!(
        draws(&ev) == vec![(0, 1)],
        "only the attacker drew: {:?}",
        draws(&ev)
    );
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("6C")
    }));
}

// ----- P-10 -------------------------------------------------------------------------------------

/// In played games (fixed seeds), exits happen only after a resolution, only with an empty
/// stock, only to the attacker or the defender of that turn, and both may exit at once.
#[test]
fn p10_exits_after_resolution_attacker_and_defender_may_both_exit() {
    let mut both = 0;
    for seed in 0..600u64 {
        let n = 2 + (seed % 3) as usize;
        let mut g = Game::new(setup(n, 0), seed).unwrap();
        let mut rng = SmallRng::new(seed ^ 0x55);
        while let Some(l) = g.legal() {
            let (a, d) = (g.attacker(), g.defender());
            let m = random_move(&l, &mut rng);
            let ev = g.apply(l.decision.seat, &m).unwrap();
            let exits: Vec<Seat> = ev
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Exited { seat } => Some(seat),
                    _ => None,
                })
                .collect();
            if exits.is_empty() {
                continue;
            }
            assert_eq!(
                l.decision.kind,
                DecisionKind::Defend,
                "exits follow a resolution"
            );
            assert_eq!(g.stock_len(), 0, "C-8");
            for &s in &exits {
                assert!(s == a || s == d, "only the turn's players exit");
                assert!(g.hand(s).is_empty());
                assert!(!g.is_active(s));
            }
            if exits.len() == 2 {
                both += 1;
            }
        }
    }
    assert!(
        both > 0,
        "some turn saw attacker and defender exit together"
    );
}

// ----- P-11 -------------------------------------------------------------------------------------

#[test]
fn p11_defender_who_beats_everything_attacks_next() {
    let mut g = worked_example_deck();
    let ev = play(&mut g, &T1);
    assert!(kinds(&ev).contains(&EventKind::TurnStarted {
        attacker: 1,
        defender: 0,
        limit: None
    }));
}

#[test]
fn p11_defender_who_takes_loses_the_next_attack() {
    // Two players: seat 1 takes in T3, so seat 0 attacks again.
    let mut g = worked_example_deck();
    play(&mut g, &T1);
    play(&mut g, &T2);
    let ev = play(&mut g, &T3);
    assert!(kinds(&ev).contains(&EventKind::TurnStarted {
        attacker: 0,
        defender: 1,
        limit: None
    }));
    // Three players: the next active player after the defender attacks.
    let mut g = Game::new(setup(3, 2), 5).unwrap();
    let a = g.hand(0).first().unwrap();
    g.apply(
        0,
        &Move::Attack {
            cards: CardSet::single(a),
            exchange: false,
        },
    )
    .unwrap();
    g.apply(1, &mv("defend")).unwrap();
    assert_eq!((g.attacker(), g.defender()), (2, 0));
}

#[test]
fn p11_defender_who_beats_some_but_not_all_loses_the_next_attack() {
    let mut g = worked_example_line();
    let ev = play(&mut g, &["0: attack 7C 7D QH", "1: defend 7C/KC"]);
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("7D QH")
    }));
    assert_eq!(g.decision().unwrap().seat, 0);
}

/// A defender who beats everything but exits (empty hand, empty stock) does not attack: the
/// next active player after them does. Found in played games from fixed seeds.
#[test]
fn p11_successful_defender_who_exits_passes_the_attack_on() {
    let mut found = 0;
    for seed in 0..600u64 {
        let n = 3 + (seed % 2) as usize;
        let mut g = Game::new(setup(n, 0), seed).unwrap();
        let mut rng = SmallRng::new(seed);
        while let Some(l) = g.legal() {
            let d = g.defender();
            let m = random_move(&l, &mut rng);
            let ev = g.apply(l.decision.seat, &m).unwrap();
            let beat_all = l.decision.kind == DecisionKind::Defend
                && !ev
                    .iter()
                    .any(|e| matches!(e.kind, EventKind::PickedUp { .. }));
            if beat_all && !g.is_active(d) && !g.is_over() {
                assert_eq!(g.attacker(), g.next_active(d));
                found += 1;
            } else if beat_all && !g.is_over() {
                assert_eq!(g.attacker(), d);
            }
        }
    }
    assert!(found > 0);
}

// ----- P-12 -------------------------------------------------------------------------------------

#[test]
fn p12_worked_example_partial_defence() {
    // Stock empty, spades are trumps; seat 0 attacks seat 1, who holds KC 8D 6C.
    let mut g = worked_example_line();
    assert_eq!(g.trump(), Suit::Spades);
    assert_eq!(g.stock_len(), 0);
    let discard_before = g.discard();
    // The attack 7C 7D QH is a pair and one more: legal.
    assert!(g.check(0, &mv("attack 7C 7D QH")).is_ok());
    play(&mut g, &["0: attack 7C 7D QH"]);
    // Nothing to draw: the stock is empty.
    assert_eq!(g.hand(0), cs("QS 9S"));
    // The defender cannot beat QH (no heart above it, no trump).
    let l = g.legal().unwrap();
    let qh = l.to_beat.iter().find(|t| t.attack == c("QH")).unwrap();
    assert!(qh.beaters.is_empty());
    let ev = play(&mut g, &["1: defend 7C/KC 7D/8D"]);
    assert_eq!(g.discard().minus(discard_before), cs("7C KC 7D 8D"));
    assert!(kinds(&ev).contains(&EventKind::Discarded {
        cards: cs("7C KC 7D 8D")
    }));
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("QH")
    }));
    assert_eq!(g.hand(1), cs("QH 6C"), "takes QH, keeps 6C: 2 cards");
    // The defender does not attack next: seat 0 does (the next active player after seat 1).
    let d = g.decision().unwrap();
    assert_eq!((d.seat, d.kind), (0, DecisionKind::Attack));
    assert_eq!(g.defender(), 1);
    assert!(g.is_active(0) && g.is_active(1));
}

// ----- R-1 (prostoy) ----------------------------------------------------------------------------

/// Play the forced move with `play_forced` and check that it is announced exactly like the same
/// move chosen by the player (same events).
fn forced_is_announced_like_a_choice(g: &mut Game) -> Move {
    let m = g.forced_move().expect("a forced move");
    let seat = g.decision().unwrap().seat;
    let mut chosen = g.clone();
    let expect = chosen.apply(seat, &m).unwrap();
    let mut ev = Vec::new();
    assert!(g.play_forced(&mut ev));
    assert_eq!(ev, expect);
    assert_eq!(snapshot(g), snapshot(&chosen));
    m
}

#[test]
fn r1_prostoy_defender_who_can_beat_nothing_beats_none() {
    // After the worked example: seat 0 (QS 9S) attacks 9S; seat 1 (6C QH) holds no trump.
    let mut g = worked_example_line();
    play(&mut g, &["0: attack 7C 7D QH", "1: defend 7C/KC 7D/8D"]);
    assert_eq!(g.forced_move(), None, "an attacker with two cards chooses");
    play(&mut g, &["0: attack 9S"]);
    let m = forced_is_announced_like_a_choice(&mut g);
    assert_eq!(
        m,
        Move::Defend {
            pairs: Pairs::EMPTY,
            exchange: false
        }
    );
    assert_eq!(g.hand(1), cs("6C QH 9S"));
}

#[test]
fn r1_prostoy_attacker_holding_one_card_plays_it() {
    let mut g = worked_example_line();
    play(
        &mut g,
        &[
            "0: attack 7C 7D QH",
            "1: defend 7C/KC 7D/8D",
            "0: attack 9S",
            "1: defend",
        ],
    );
    assert_eq!(g.hand(0), cs("QS"));
    let m = forced_is_announced_like_a_choice(&mut g);
    assert_eq!(
        m,
        Move::Attack {
            cards: cs("QS"),
            exchange: false
        }
    );
}

#[test]
fn r1_prostoy_defender_who_can_beat_something_chooses() {
    let mut g = worked_example_line();
    play(&mut g, &["0: attack 7C"]);
    assert_eq!(g.forced_move(), None, "beat 7C with KC, or not");
}

#[test]
fn r1_an_open_exchange_makes_it_a_choice() {
    // Seat 1 cannot beat the trump 7S with 6S or its plain cards, but may exchange 6S for the
    // trump card QS first: two answers (P-4).
    let mut g = game(P, 1, true, &["7S 7D 8H 9H TC", "6S 8D JH QC KD"], "QS", "");
    play(&mut g, &["0: attack 7S"]);
    let l = g.legal().unwrap();
    assert!(l.to_beat.iter().all(|t| t.beaters.is_empty()));
    assert!(l.exchange.is_some());
    assert_eq!(g.forced_move(), None);
    // Without the exchange open (the same hands, the trump card is the six itself), nothing
    // beats 7S: forced.
    let mut g = game(P, 1, true, &["7S 7D 8H 9H TC", "AC 8D JH QC KD"], "6S", "");
    play(&mut g, &["0: attack 7S"]);
    assert_eq!(
        g.forced_move(),
        Some(Move::Defend {
            pairs: Pairs::EMPTY,
            exchange: false
        })
    );
}
