//! Podkidnoy Durak with the seed's conventions, rules K-1..K-15 (RULES.md, seed
//! `001_0fb37fa045e9fe0f.txt`).
//!
//! Positions are dealt from explicit decks (R-3, `common::deck_for`). Six-player podkidnoy deals
//! all 36 cards (K-1), so its stock is empty from the first round: the worked example (K-15),
//! the exits and the neighbours after an exit are built on six-player deals.

mod common;
use common::*;
use durak_rules::random::{random_move, SmallRng};
use durak_rules::*;

const K: Variant = Variant::Podkidnoy;

fn setup(players: usize, dealer: Seat, first_game: bool) -> Setup {
    Setup {
        variant: K,
        players,
        dealer,
        first_game,
    }
}

fn decision(g: &Game) -> (Seat, DecisionKind, bool) {
    let d = g.decision().expect("game not over");
    (d.seat, d.kind, d.after_take)
}

const ATTACK: DecisionKind = DecisionKind::Attack;
const DEFEND: DecisionKind = DecisionKind::Defend;
const ADD: DecisionKind = DecisionKind::Add;

// ----- the worked example (K-15) ----------------------------------------------------------------

/// Six players, seat 5 deals, not the first game: seat 0 attacks first (K-2). Diamonds are
/// trumps: the trump card AD is the dealer's last card (K-1). No stock.
///
/// Round 1: seat 0 attacks 7C, seat 1 beats it with 8C; seat 0 passes; seat 2 (the other
/// neighbour) adds 7S 7H 8S; seat 1 beats them with TS TH QS; both pass. Defended: seat 1 keeps
/// 8H AC and attacks next; seat 2 keeps exactly 9H JD 6C and defends: the worked example.
fn worked_example_deal() -> Game {
    game(
        K,
        5,
        false,
        &[
            "7C TC JC QC KC 6S",
            "8C TS TH QS 8H AC",
            "7S 7H 8S 9H JD 6C",
            "9S JH 9C 8D QH KH",
            "6D 7D AH 9D TD 6H",
            "QD KD JS KS AS AD",
        ],
        "AD",
        "",
    )
}

const ROUND_1: [&str; 7] = [
    "0: attack 7C",
    "1: defend 7C/8C",
    "0: pass",
    "2: add 7S 7H 8S",
    "1: defend 7S/TS 7H/TH 8S/QS",
    "0: pass",
    "2: pass",
];

fn worked_example_start() -> Game {
    let mut g = worked_example_deal();
    let ev = play(&mut g, &ROUND_1);
    assert!(kinds(&ev).contains(&EventKind::TurnStarted {
        attacker: 1,
        defender: 2,
        limit: Some(3)
    }));
    assert_eq!(g.hand(1), cs("8H AC"));
    assert_eq!(g.hand(2), cs("9H JD 6C"));
    assert_eq!(g.stock_len(), 0);
    assert_eq!(g.trump(), Suit::Diamonds);
    g
}

/// Round 2 up to the moment JH has been added: 8H/9H, 9S/JD, JH unbeaten.
fn worked_example_to_jh() -> Game {
    let mut g = worked_example_start();
    assert_eq!(g.limit(), 3, "L = min(6, 3)");
    play(&mut g, &["1: attack 8H", "2: defend 8H/9H", "1: pass"]);
    // 9S may be added: a nine (9H, a defence card) is on the table (K-6).
    assert_eq!(decision(&g), (3, ADD, false));
    assert_refused(
        &mut g,
        3,
        "add JH",
        "K-6",
        &["JH cannot be added: no jack is on the table (ranks on the table: 8, 9)"],
    );
    play(&mut g, &["3: add 9S", "2: defend 9S/JD", "1: pass"]);
    // Now JH may be added: a jack (JD) is on the table. Defence cards do not count against L:
    // two attack cards are on the table, so there is room for one more.
    assert_eq!(g.legal().unwrap().room, 1);
    assert_refused(
        &mut g,
        3,
        "add JH 9C",
        "K-3",
        &["limit is 3", "2 are on the table"],
    );
    play(&mut g, &["3: add JH"]);
    g
}

#[test]
fn k15_worked_example_take_branch() {
    let mut g = worked_example_to_jh();
    // 6C does not beat JH: the only answer is to take.
    assert_refused(&mut g, 2, "defend JH/6C", "C-4", &["6C does not beat JH"]);
    assert_eq!(g.forced_move(), Some(Move::Take));
    let ev = play(&mut g, &["2: take"]);
    // The limit is reached: the round closes at once, nothing more can be added.
    let k = kinds(&ev);
    assert_eq!(k[0], EventKind::Takes { seat: 2 });
    assert_eq!(
        k[1],
        EventKind::PickedUp {
            seat: 2,
            cards: cs("8H 9H 9S JD JH")
        }
    );
    assert!(!k.iter().any(|e| matches!(e, EventKind::Added { .. })));
    assert_eq!(
        g.hand(2),
        cs("6C 8H 9H 9S JD JH"),
        "the five table cards and 6C: six"
    );
    // K-11: the next active player after the defender attacks.
    assert_eq!(decision(&g), (3, ATTACK, false));
    assert_eq!(g.defender(), 4);
    // A fourth attack card is illegal (L = 3), even after the take. Before the take it was
    // refused with K-3 (`add JH 9C` in `worked_example_to_jh`); with L reached, the take closes
    // the round at once (no K-9 asks: nobody has room), so nothing can be added afterwards.
    // `k3_limit_applies_after_a_take` shows the K-3 refusal "even after a take" on this deal.
    assert!(!k.iter().any(|e| matches!(e, EventKind::Passed { .. })));
    let e = refused(&mut g, 3, "add 9C");
    assert!(e.rule == "R-2" || e.rule == "K-5", "{e}");
}

#[test]
fn k15_worked_example_stop_branch() {
    let mut g = worked_example_start();
    play(
        &mut g,
        &[
            "1: attack 8H",
            "2: defend 8H/9H",
            "1: pass",
            "3: add 9S",
            "2: defend 9S/JD",
        ],
    );
    let discard_before = g.discard();
    // Had the adders stopped after the two defences:
    let ev = play(&mut g, &["1: pass", "3: pass"]);
    assert!(kinds(&ev).contains(&EventKind::Discarded {
        cards: cs("8H 9H 9S JD")
    }));
    assert_eq!(
        g.discard().minus(discard_before),
        cs("8H 9H 9S JD"),
        "four cards to discard"
    );
    assert_eq!(g.hand(2), cs("6C"), "the defender keeps only 6C");
    // ... and attacks next (K-10).
    assert_eq!(decision(&g), (2, ATTACK, false));
    assert_eq!(g.defender(), 3);
}

// ----- K-1 --------------------------------------------------------------------------------------

#[test]
fn k1_two_to_six_players_hand_of_six() {
    for n in 2..=5 {
        let g = Game::new(setup(n, 0, true), 3).unwrap();
        for s in 0..n {
            assert_eq!(g.hand(s).len(), 6);
        }
        assert_eq!(g.stock_len(), 36 - 6 * n);
        assert_eq!(g.trump_card(), g.deck().cards()[6 * n]);
    }
}

#[test]
fn k1_other_player_counts_refused_before_the_deal() {
    for n in [0, 1, 7, 8] {
        let e = Game::new(setup(n, 0, true), 1).unwrap_err();
        assert_eq!(e.rule, "K-1", "{n} players");
        assert!(
            e.message.contains("2 to 6") && e.message.contains(&format!("not {n}")),
            "{e}"
        );
        assert_eq!(Series::new(K, n, 1).unwrap_err().rule, "K-1");
    }
}

#[test]
fn k1_six_players_all_cards_dealt_trump_is_dealers_last_card() {
    for dealer in 0..6 {
        for seed in [0u64, 1, 2, 99] {
            let g = Game::new(setup(6, dealer, true), seed).unwrap();
            let last = g.deck().cards()[35];
            assert_eq!(g.trump_card(), last, "card 35 is the trump card");
            assert_eq!(g.trump(), last.suit());
            assert!(
                g.hand(dealer).contains(last),
                "and goes back into the dealer's hand"
            );
            assert_eq!(g.stock_len(), 0);
            for s in 0..6 {
                assert_eq!(g.hand(s).len(), 6);
                let o = g.observation(s);
                assert!(!o.trump_card_in_stock);
                assert_eq!(o.stock, 0);
                assert!(o.known[dealer].contains(last), "everyone saw it (I-1)");
            }
            let start = g.start_events();
            assert_eq!(
                start[0].kind,
                EventKind::Dealt {
                    dealer,
                    trump_card: last,
                    hand_size: 6,
                    stock: 0
                }
            );
        }
    }
}

// ----- K-2 --------------------------------------------------------------------------------------

/// Three players, seat 0 deals, diamonds trumps (trump card AD). Seat 2 holds 7D, seat 1 holds
/// 9D, nobody holds 6D (it is in the stock).
fn lowest_trump_deal(first_game: bool) -> Game {
    game(
        K,
        0,
        first_game,
        &[
            "6C 7C 8C 9C TC JC",
            "9D QC KC AC 6H 7H",
            "7D 8H 9H TH JH QH",
        ],
        "AD",
        "6D",
    )
}

#[test]
fn k2_lowest_trump_attacks_first_in_the_first_game_and_is_shown() {
    let mut g = lowest_trump_deal(true);
    assert_eq!(decision(&g), (2, ATTACK, false));
    assert_eq!(g.defender(), 0);
    assert!(g.start_events().iter().any(|e| e.to == Audience::All
        && e.kind
            == EventKind::FirstAttacker {
                seat: 2,
                shown_trump: Some(c("7D"))
            }));
    for s in 0..3 {
        assert!(
            g.observation(s).known[2].contains(c("7D")),
            "shown to all (I-1)"
        );
    }
    // They may attack with any card.
    play(&mut g, &["2: attack 8H"]);
    assert!(g.observation(1).known[2].contains(c("7D")));
}

#[test]
fn k2_later_games_left_of_dealer() {
    let g = lowest_trump_deal(false);
    assert_eq!(decision(&g), (1, ATTACK, false));
    assert!(g.start_events().iter().any(|e| e.kind
        == EventKind::FirstAttacker {
            seat: 1,
            shown_trump: None
        }));
}

#[test]
fn k2_nobody_holds_a_trump_left_of_dealer() {
    // Two players, seat 1 deals; every diamond is in the stock or is the trump card.
    let g = game(
        K,
        1,
        true,
        &["6C 7C 8C 9C TC JC", "6H 7H 8H 9H TH JH"],
        "AD",
        "6D 7D",
    );
    assert_eq!(decision(&g), (0, ATTACK, false));
    assert!(g.start_events().iter().any(|e| e.kind
        == EventKind::FirstAttacker {
            seat: 0,
            shown_trump: None
        }));
}

#[test]
fn k2_after_a_loss_and_after_a_draw_left_of_the_dealer() {
    let mut s = Series::new(K, 4, 77).unwrap();
    assert!(s.next_setup().first_game);
    s.record(Outcome { loser: Some(2) });
    let g = s.next_game();
    assert_eq!(g.setup().dealer, 2, "the loser deals (C-10)");
    assert!(!g.setup().first_game);
    assert_eq!(g.decision().unwrap().seat, 3);
    s.record(Outcome { loser: None });
    let g = s.next_game();
    assert_eq!(g.setup().dealer, 2, "after a draw the dealer stays");
    assert_eq!(
        g.decision().unwrap().seat,
        3,
        "K-2 ruling: left of the unchanged dealer"
    );
}

// ----- K-3 --------------------------------------------------------------------------------------

#[test]
fn k3_limit_is_min_of_six_and_defenders_cards_at_round_start() {
    // Two players, seat 1 deals: seat 0 attacks 6C; seat 1 takes (7 cards).
    let mut g = game(
        K,
        1,
        true,
        &["6C 6D 6H 6S 7C 7D", "8C 8D 8H 8S 9C 9D"],
        "AH",
        "",
    );
    assert_eq!(g.limit(), 6);
    let ev = play(&mut g, &["0: attack 6C", "1: take", "0: pass"]);
    assert_eq!(g.hand(1).len(), 7);
    assert!(kinds(&ev).contains(&EventKind::TurnStarted {
        attacker: 0,
        defender: 1,
        limit: Some(6)
    }));
    assert_eq!(g.limit(), 6, "seven cards, but never more than six");
    assert_eq!(g.observation(1).limit, Some(6));
}

#[test]
fn k3_limit_applies_after_a_take() {
    // The worked example deal; round 2: 8H/9H, 9S added, and the defender takes (though JD
    // would beat 9S), with two attack cards on the table (L = 3). The adders may still add
    // within L: one more card at most.
    let mut g = worked_example_start();
    play(
        &mut g,
        &[
            "1: attack 8H",
            "2: defend 8H/9H",
            "1: pass",
            "3: add 9S",
            "2: take",
            "1: pass",
        ],
    );
    assert_eq!(decision(&g), (3, ADD, true));
    assert_eq!(g.legal().unwrap().room, 1);
    assert_refused(
        &mut g,
        3,
        "add 9C 8D",
        "K-3",
        &[
            "2 cards cannot be added",
            "limit is 3",
            "2 are on the table",
            "even after a take",
        ],
    );
    let ev = play(&mut g, &["3: add 9C"]);
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 2,
        cards: cs("8H 9H 9S 9C")
    }));
    assert_eq!(g.hand(2), cs("JD 6C 8H 9H 9S 9C"));
}

/// Opening attacks larger than L are refused with K-3; found in played games from fixed seeds
/// (an attacker holding k cards of one rank against a defender with fewer than k cards).
#[test]
fn k3_opening_attack_within_the_limit() {
    let mut found = 0;
    for seed in 0..300u64 {
        let n = 2 + (seed % 5) as usize;
        let mut g = Game::new(setup(n, 0, true), seed).unwrap();
        let mut rng = SmallRng::new(seed);
        while let Some(l) = g.legal() {
            if l.decision.kind == ATTACK {
                let lim = g.limit();
                assert_eq!(lim, g.hand(g.defender()).len().min(6));
                assert!(l.attack_size_list().iter().all(|&k| k <= lim));
                for r in Rank::ALL {
                    let same = l.hand.of_rank(r);
                    if same.len() > lim {
                        let e = g
                            .check(
                                l.decision.seat,
                                &Move::Attack {
                                    cards: same,
                                    exchange: false,
                                },
                            )
                            .unwrap_err();
                        assert_eq!(e.rule, "K-3", "{e}");
                        assert!(e.message.contains(&format!("limit of {lim}")), "{e}");
                        found += 1;
                    }
                }
            }
            let m = random_move(&l, &mut rng);
            g.apply(l.decision.seat, &m).unwrap();
        }
    }
    assert!(found > 0);
}

// ----- K-4 --------------------------------------------------------------------------------------

#[test]
fn k4_opening_is_one_card_or_several_of_one_rank() {
    let mut g = Game::with_deck(
        setup(2, 1, false),
        deck_for(K, 1, &["6C 6D 6H 7C 7D 8S", "9C 9D 9H 9S TC TD"], "AH", ""),
    )
    .unwrap();
    for ok in [
        "attack 6C",
        "attack 8S",
        "attack 6C 6D",
        "attack 6C 6D 6H",
        "attack 7C 7D",
    ] {
        assert!(g.check(0, &mv(ok)).is_ok(), "{ok}");
    }
    assert_eq!(g.legal().unwrap().attack_size_list(), vec![1, 2, 3]);
    assert_refused(
        &mut g,
        0,
        "attack 6C 7C",
        "K-4",
        &["one card or several of one rank", "6C 7C"],
    );
    assert_refused(&mut g, 0, "pass", "K-4", &["may not pass"]);
    assert_refused(&mut g, 0, "attack", "K-4", &["at least one card"]);
    assert_refused(&mut g, 0, "attack 6S", "K-4", &["6S not in your hand"]);
    assert_refused(&mut g, 0, "take", "R-2", &["attack"]);
}

// ----- K-5 --------------------------------------------------------------------------------------

#[test]
fn k5_two_players_the_single_adder() {
    let mut g = game(
        K,
        1,
        false,
        &["6C 6D 7H 8S 9S TS", "7C 7D 9H JS QS KS"],
        "AH",
        "",
    );
    play(&mut g, &["0: attack 6C", "1: defend 6C/7C"]);
    assert_eq!(decision(&g), (0, ADD, false));
    play(&mut g, &["0: add 6D", "1: defend 6D/7D"]);
    assert_eq!(decision(&g), (0, ADD, false));
    // K-8: with two players the single adder passing once ends the round.
    let ev = play(&mut g, &["0: pass"]);
    assert!(kinds(&ev).contains(&EventKind::Discarded {
        cards: cs("6C 7C 6D 7D")
    }));
    assert_eq!(decision(&g), (1, ATTACK, false));
}

/// Three players, seat 2 deals, not the first game: seat 0 attacks seat 1, seat 2 is the other
/// neighbour. Clubs are trumps (trump card QC).
fn three_player_deal() -> Game {
    game(
        K,
        2,
        false,
        &[
            "7C 7D 7H 6S 6D QS",
            "9C 9D TH JS 8S KD",
            "9H 9S 7S AC AD AH",
        ],
        "QC",
        "",
    )
}

#[test]
fn k5_three_players_both_other_seats_add() {
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: defend 7C/9C"]);
    assert_eq!(decision(&g), (0, ADD, false));
    // The other neighbour adds only after the initial attacker passes.
    assert_refused(
        &mut g,
        2,
        "add 9H",
        "K-5",
        &["seat 0, the initial attacker, has priority"],
    );
    play(&mut g, &["0: pass"]);
    assert_eq!(decision(&g), (2, ADD, false));
    play(&mut g, &["2: add 9H"]);
    assert_eq!(decision(&g), (1, DEFEND, false));
}

/// Five players, seat 2 deals, not the first game: seat 3 attacks seat 4; the adders are seat 3
/// and seat 0; seats 1 and 2 are not neighbours of the defender. Spades are trumps (AS); the
/// stock is `TC TD AC AD AH`, then AS.
fn five_player_deal() -> Game {
    game(
        K,
        2,
        false,
        &[
            "9H 7H JC JD JH QC",
            "6S 7S 9S TS JS 9C",
            "QS KS 6H QD QH KH",
            "7C 7D 6C 6D 8C 8D",
            "8S 9D KC KD TH 8H",
        ],
        "AS",
        "TC TD AC AD AH",
    )
}

#[test]
fn k5_five_players_non_neighbours_never_add() {
    let mut g = five_player_deal();
    assert_eq!((g.attacker(), g.defender()), (3, 4));
    play(&mut g, &["3: attack 7C 7D", "4: defend 7C/8S 7D/9D"]);
    // Seat 1 holds 7S and 9S (ranks on the table), but is no neighbour of seat 4.
    for seat in [1, 2] {
        assert_refused(
            &mut g,
            seat,
            "add 9S",
            "K-5",
            &["not a neighbour", "seats 3 and 0"],
        );
    }
    assert_refused(&mut g, 4, "add 9H", "K-5", &["is the defender"]);
    play(&mut g, &["3: pass"]);
    assert_eq!(decision(&g), (0, ADD, false));
    assert_refused(&mut g, 1, "add 7S 9S", "K-5", &["not a neighbour"]);
    play(&mut g, &["0: add 9H 7H", "4: defend 9H/TH 7H/8H"]);
    assert_eq!(
        decision(&g),
        (3, ADD, false),
        "the initial attacker has priority again (K-8)"
    );
}

#[test]
fn k5_neighbours_after_an_exit() {
    // Six players, seat 5 deals, hearts trumps (AH). Round 1: seat 0 attacks with four sevens,
    // seat 1 beats them, seat 0 adds 9H TC (its last cards), seat 1 cannot beat 9H (a trump)
    // and takes all ten table cards. No stock: seat 0 exits (C-8).
    let mut g = game(
        K,
        5,
        false,
        &[
            "7C 7D 7H 7S 9H TC",
            "9C 9D TH TS 6C 6D",
            "8C JC QC KC AC 6S",
            "8D TD JD QD KD AD",
            "6H 8H JH 8S 9S JS",
            "QH KH QS KS AS AH",
        ],
        "AH",
        "",
    );
    let ev = play(
        &mut g,
        &[
            "0: attack 7C 7D 7H 7S",
            "1: defend 7C/9C 7D/9D 7H/TH 7S/TS",
            "0: add 9H TC",
        ],
    );
    assert!(
        ev.iter()
            .all(|e| !matches!(e.kind, EventKind::Exited { .. })),
        "exits wait for the round's end"
    );
    assert_eq!(g.forced_move(), Some(Move::Take));
    let ev = play(&mut g, &["1: take"]);
    assert!(kinds(&ev).contains(&EventKind::Exited { seat: 0 }));
    assert!(!g.is_active(0));
    assert_eq!(g.hand(1).len(), 12);
    // K-11: seat 2 attacks seat 3 (seat 4 is the other neighbour); seat 3 takes.
    assert_eq!((g.attacker(), g.defender()), (2, 3));
    play(&mut g, &["2: attack 6S", "3: take", "2: pass", "4: pass"]);
    // Seat 4 attacks seat 5. The other neighbour of seat 5 is seat 1: seat 0 has exited.
    assert_eq!((g.attacker(), g.defender()), (4, 5));
    play(&mut g, &["4: attack 8S", "5: defend 8S/QS", "4: pass"]);
    assert_eq!(decision(&g), (1, ADD, false));
    assert_refused(
        &mut g,
        0,
        "add 8C",
        "K-5",
        &["not a neighbour", "seats 4 and 1"],
    );
    play(&mut g, &["1: pass"]);
    assert_eq!(decision(&g), (5, ATTACK, false));
    // And seat 5's defender is seat 1 (C-3 skips seat 0).
    assert_eq!(g.defender(), 1);
}

// ----- K-6 --------------------------------------------------------------------------------------

#[test]
fn k6_only_ranks_on_the_table_may_be_added() {
    let mut g = worked_example_start();
    play(&mut g, &["1: attack 8H", "2: defend 8H/9H", "1: pass"]);
    // Queens were discarded in round 1 (QS): earlier rounds do not count.
    assert!(g.discard().contains(c("QS")));
    assert_refused(
        &mut g,
        3,
        "add QH",
        "K-6",
        &["QH cannot be added: no queen is on the table (ranks on the table: 8, 9)"],
    );
    assert_refused(&mut g, 3, "add 9S QH", "K-6", &["QH cannot be added"]);
    assert_refused(&mut g, 3, "add 9D", "K-6", &["9D not in your hand"]);
    assert_refused(&mut g, 3, "add", "K-6", &["at least one card", "pass"]);
    // Both the attack card's rank (8) and the defence card's rank (9), several at once.
    assert!(
        g.check(3, &mv("add 9S 9C 8D")).is_err(),
        "three exceed the limit"
    );
    for ok in ["add 8D", "add 9S", "add 9C 8D", "add 9S 9C"] {
        assert!(g.check(3, &mv(ok)).is_ok(), "{ok}");
    }
    assert_eq!(g.legal().unwrap().addable, cs("9S 9C 8D"));
}

#[test]
fn k6_nine_beaten_eight_allows_eights_and_nines() {
    // The seed's example: an eight beaten by a nine allows more eights and nines of any suit.
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: defend 7C/9C", "0: pass"]);
    assert_eq!(g.legal().unwrap().addable, cs("9H 9S 7S"));
}

// ----- K-7 --------------------------------------------------------------------------------------

#[test]
fn k7_cover_every_unbeaten_card_in_one_answer_or_take() {
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C 7D"]);
    assert_refused(&mut g, 1, "defend 7C/9C", "K-7", &["7D left uncovered"]);
    assert_refused(&mut g, 1, "defend", "K-7", &["7C 7D left uncovered"]);
    assert_refused(
        &mut g,
        1,
        "defend 7C/9C 7D/9C",
        "K-7",
        &["9C is used twice"],
    );
    assert_refused(
        &mut g,
        1,
        "defend 7C/9D 7D/9C",
        "C-4",
        &["9D does not beat 7C", "trump"],
    );
    assert_refused(
        &mut g,
        1,
        "defend 7C/AC 7D/9D",
        "K-7",
        &["AC is not in your hand"],
    );
    assert_refused(
        &mut g,
        1,
        "add 9C",
        "K-7",
        &["covers every unbeaten card or takes"],
    );
    assert_refused(
        &mut g,
        1,
        "pass",
        "K-7",
        &["covers every unbeaten card or takes"],
    );
    // Covering both at once is the legal cover.
    assert!(g.check(1, &mv("defend 7C/9C 7D/9D")).is_ok());
    // They may take even when they could beat everything.
    assert!(g.legal().unwrap().can_cover);
    assert!(g.check(1, &mv("take")).is_ok());
    assert_eq!(g.forced_move(), None);
}

// ----- K-8 --------------------------------------------------------------------------------------

#[test]
fn k8_order_of_additions() {
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: defend 7C/9C"]);
    assert_eq!(decision(&g), (0, ADD, false), "initial attacker first");
    play(&mut g, &["0: add 7D", "1: defend 7D/9D"]);
    assert_eq!(
        decision(&g),
        (0, ADD, false),
        "after an addition, the initial attacker again"
    );
    play(&mut g, &["0: pass"]);
    assert_eq!(decision(&g), (2, ADD, false), "then the other neighbour");
    play(&mut g, &["2: add 9H", "1: defend 9H/TH"]);
    assert_eq!(
        decision(&g),
        (0, ADD, false),
        "priority returns to the initial attacker"
    );
    play(&mut g, &["0: pass"]);
    let ev = play(&mut g, &["2: pass"]);
    // Each adder passed in turn: the round is defended.
    assert!(kinds(&ev).contains(&EventKind::Discarded {
        cards: cs("7C 9C 7D 9D 9H TH")
    }));
    assert_eq!(decision(&g), (1, ATTACK, false));
}

#[test]
fn k8_round_ends_when_the_limit_is_reached() {
    // L = 6: the sixth attack card beaten ends the round with no more asks (the K-10 deal).
    let mut g = k10_deal();
    let ev = play(&mut g, &K10_ROUND);
    let passes = ev
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Passed { .. }))
        .count();
    assert_eq!(
        passes, 2,
        "only the two explicit passes; the sixth cover ends the round"
    );
}

#[test]
fn k8_r1_no_adder_can_add_ends_the_round_through_forced_passes() {
    let mut g = worked_example_start();
    play(&mut g, &["1: attack 8H", "2: defend 8H/9H"]);
    // Seat 1 holds AC only: a forced pass, announced like a chosen pass.
    assert_eq!(g.forced_move(), Some(Move::Pass));
    let mut ev = Vec::new();
    assert!(g.play_forced(&mut ev));
    assert_eq!(ev[0].kind, EventKind::Passed { seat: 1 });
    assert_eq!(decision(&g), (3, ADD, false));
}

// ----- K-9 --------------------------------------------------------------------------------------

#[test]
fn k9_after_a_take_initial_attacker_once_then_other_neighbour_once() {
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: take"]);
    assert_eq!(decision(&g), (0, ADD, true));
    assert!(g.observation(2).taking);
    // The defender's decision is final.
    assert_refused(&mut g, 1, "defend 7C/9C", "R-2", &["seat 0's turn to add"]);
    play(&mut g, &["0: add 7D"]);
    // Not the defender again: the other neighbour, once, whatever the initial attacker did.
    assert_eq!(decision(&g), (2, ADD, true));
    let ev = play(&mut g, &["2: add 7S"]);
    // Then the round closes, though room remains and seat 0 still holds 7H.
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("7C 7D 7S")
    }));
    assert_eq!(
        decision(&g),
        (2, ATTACK, false),
        "K-11: next after the defender"
    );
    assert_refused(&mut g, 0, "add 7H", "K-5", &["is the defender"]);
}

#[test]
fn k9_after_a_take_passes() {
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: take", "0: pass"]);
    assert_eq!(decision(&g), (2, ADD, true));
    let ev = play(&mut g, &["2: pass"]);
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("7C")
    }));
    // Initial attacker passes, other neighbour adds: closes too.
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: take", "0: pass"]);
    let ev = play(&mut g, &["2: add 7S"]);
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("7C 7S")
    }));
}

#[test]
fn k9_two_players_one_ask() {
    let mut g = game(
        K,
        1,
        false,
        &["6C 6D 6H 7H 8S 9S", "7C 7D 9H JS QS KS"],
        "AH",
        "",
    );
    play(&mut g, &["0: attack 6C", "1: take"]);
    assert_eq!(decision(&g), (0, ADD, true));
    let ev = play(&mut g, &["0: add 6D"]);
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("6C 6D")
    }));
    assert_eq!(
        decision(&g),
        (0, ATTACK, false),
        "K-11 with two players: seat 0 again"
    );
}

// ----- K-10 -------------------------------------------------------------------------------------

/// Six players, seat 5 deals, spades trumps (AS). Seat 1 beats six attack cards with its six
/// cards and, with no stock, exits.
fn k10_deal() -> Game {
    game(
        K,
        5,
        false,
        &[
            "7C 7D JC 6C 8C 9C",
            "TC TD JH KH QC KD",
            "7H TH QD KC AC 6D",
            "8D 9D JD AD 6H 8H",
            "9H QH AH 6S 7S 8S",
            "9S TS JS QS KS AS",
        ],
        "AS",
        "",
    )
}

const K10_ROUND: [&str; 10] = [
    "0: attack 7C 7D",
    "1: defend 7C/TC 7D/TD",
    "0: pass",
    "2: add 7H TH",
    "1: defend 7H/JH TH/KH",
    "0: add JC",
    "1: defend JC/QC",
    "0: pass",
    "2: add QD",
    "1: defend QD/KD",
];

#[test]
fn k10_defended_round_discarded_defender_attacks_or_next_after_an_exit() {
    let mut g = k10_deal();
    let ev = play(&mut g, &K10_ROUND);
    assert!(kinds(&ev).contains(&EventKind::Discarded {
        cards: cs("7C TC 7D TD 7H JH TH KH JC QC QD KD")
    }));
    assert!(kinds(&ev).contains(&EventKind::Exited { seat: 1 }));
    // The defender exited: the next active player after them attacks.
    assert_eq!(decision(&g), (2, ATTACK, false));
    assert_eq!(g.defender(), 3);
}

// ----- K-11 -------------------------------------------------------------------------------------

#[test]
fn k11_taken_round_defender_takes_everything_and_loses_the_attack() {
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C", "1: defend 7C/9C", "0: add 7D"]);
    let ev = play(&mut g, &["1: take", "0: pass", "2: pass"]);
    // Attack and defence cards alike.
    assert!(kinds(&ev).contains(&EventKind::PickedUp {
        seat: 1,
        cards: cs("7C 9C 7D")
    }));
    assert!(cs("7C 9C 7D").is_subset(g.hand(1)));
    assert_eq!(decision(&g), (2, ATTACK, false));
    assert_eq!(g.defender(), 0);
}

// ----- K-12 -------------------------------------------------------------------------------------

#[test]
fn k12_draw_order_initial_attacker_others_clockwise_defender_last() {
    // Five players, seat 3 attacks seat 4, seat 0 adds. The stock (TC TD AC AD AH, then the
    // trump card AS) is too short for everybody, so the order decides who gets what.
    let mut g = five_player_deal();
    let ev = play(
        &mut g,
        &[
            "3: attack 7C 7D",
            "4: defend 7C/8S 7D/9D",
            "3: pass",
            "0: add 9H 7H",
            "4: defend 9H/TH 7H/8H",
            "3: pass",
            "0: pass",
        ],
    );
    assert_eq!(draws(&ev), vec![(3, 2), (0, 2), (4, 2)]);
    assert!(kinds(&ev).contains(&EventKind::DrewCards {
        seat: 3,
        cards: cs("TC TD")
    }));
    assert!(kinds(&ev).contains(&EventKind::DrewCards {
        seat: 0,
        cards: cs("AC AD")
    }));
    assert!(kinds(&ev).contains(&EventKind::DrewCards {
        seat: 4,
        cards: cs("AH AS")
    }));
    assert!(kinds(&ev).contains(&EventKind::Drew {
        seat: 4,
        count: 2,
        trump_card: Some(c("AS"))
    }));
    assert_eq!(g.hand(4).len(), 4, "the defender, last, is left short");
    assert_eq!(g.stock_len(), 0);
    assert_eq!(decision(&g), (4, ATTACK, false));
}

#[test]
fn k12_wrapping_clockwise_and_the_defender_left_without_cards_exits() {
    // Same deal; seat 4 beats six cards. Seat 3 needs 4, seat 0 needs 2: the stock runs out
    // before the defender, who has no cards after the drawing and exits (K-13, C-8).
    let mut g = five_player_deal();
    let ev = play(
        &mut g,
        &[
            "3: attack 7C 7D",
            "4: defend 7C/8S 7D/9D",
            "3: add 8C 8D",
            "4: defend 8C/KC 8D/KD",
            "3: pass",
            "0: add 9H 7H",
            "4: defend 9H/TH 7H/8H",
        ],
    );
    assert_eq!(draws(&ev), vec![(3, 4), (0, 2)]);
    let k = kinds(&ev);
    let last_draw = k
        .iter()
        .rposition(|e| matches!(e, EventKind::DrewCards { .. }))
        .unwrap();
    let exit = k
        .iter()
        .position(|e| *e == EventKind::Exited { seat: 4 })
        .unwrap();
    assert!(exit > last_draw, "exits after the drawing (K-13)");
    // K-10: the defender exited; the next active player after them (seat 0) attacks seat 1.
    assert_eq!(decision(&g), (0, ATTACK, false));
    assert_eq!(g.defender(), 1);
}

#[test]
fn k12_larger_hands_are_kept() {
    let mut g = three_player_deal();
    let ev = play(&mut g, &["0: attack 7C", "1: take", "0: pass", "2: pass"]);
    assert_eq!(
        draws(&ev),
        vec![(0, 1)],
        "the defender, with 7 cards, draws nothing"
    );
    assert_eq!(g.hand(1).len(), 7);
}

// ----- K-13 -------------------------------------------------------------------------------------

/// Three players, seat 2 deals, not the first game; spades trumps (trump card 8S).
///
/// * R1: seat 0 attacks with four sixes, seat 1 beats them, seat 2 adds 7C 9C, seat 1 beats them
///   (six attack cards: L reached). Seat 0 draws 4, seat 2 draws 2, seat 1 draws 6.
/// * R2: seat 1 attacks QC QD QH, seat 2 beats them; the stock runs out (seat 2 draws the 8S).
/// * R3: seat 2 attacks AC AD AH, seat 0 beats them with QS KS AS.
/// * R4: seat 0 (3 cards) attacks seat 1 (6 cards), seat 2 (3 cards) adds; seat 1 beats all six:
///   every hand is empty at once, and the game is a draw.
fn draw_deal() -> Game {
    game(
        K,
        2,
        false,
        &[
            "6C 6D 6H 6S 7D 7H",
            "8C 8D 9H 7S TC JC",
            "7C 9C KC KD KH AC",
        ],
        "8S",
        "QS KS AS TS  AD AH  QC QD QH TD 8H JS  9S JD JH  9D TH",
    )
}

#[test]
fn k13_three_way_draw() {
    let mut g = draw_deal();
    let ev = play(
        &mut g,
        &[
            "0: attack 6C 6D 6H 6S",
            "1: defend 6C/8C 6D/8D 6H/9H 6S/7S",
            "0: pass",
            "2: add 7C 9C",
            "1: defend 7C/TC 9C/JC",
        ],
    );
    assert_eq!(draws(&ev), vec![(0, 4), (2, 2), (1, 6)]);
    assert!(
        g.is_active(1),
        "an empty hand refills while the stock has cards (C-8)"
    );
    let ev = play(
        &mut g,
        &[
            "1: attack QC QD QH",
            "2: defend QC/KC QD/KD QH/KH",
            "1: pass",
            "0: pass",
        ],
    );
    assert_eq!(draws(&ev), vec![(1, 3), (2, 3)]);
    assert_eq!(g.stock_len(), 0);
    play(
        &mut g,
        &[
            "2: attack AC AD AH",
            "0: defend AC/QS AD/KS AH/AS",
            "2: pass",
            "1: pass",
        ],
    );
    assert_eq!(
        [g.hand(0).len(), g.hand(1).len(), g.hand(2).len()],
        [3, 6, 3]
    );
    assert_eq!(decision(&g), (0, ATTACK, false));
    let ev = play(
        &mut g,
        &[
            "0: attack 7D 7H",
            "1: defend 7D/TD 7H/8H",
            "0: add TS",
            "1: defend TS/JS",
            "0: pass",
            "2: add 8S",
            "1: defend 8S/9S",
            "0: pass",
            "2: add 9D TH",
            "1: defend 9D/JD TH/JH",
        ],
    );
    let k = kinds(&ev);
    let exits: Vec<_> = k
        .iter()
        .filter(|e| matches!(e, EventKind::Exited { .. }))
        .collect();
    assert_eq!(
        exits.len(),
        3,
        "attacker, defender and other neighbour all run out"
    );
    assert_eq!(*k.last().unwrap(), EventKind::GameOver { loser: None });
    assert_eq!(g.outcome(), Some(Outcome { loser: None }));
    assert!(g.is_over() && g.decision().is_none());
    assert_eq!(g.discard(), CardSet::ALL);
}

// ----- K-14 -------------------------------------------------------------------------------------

#[test]
fn k14_no_exchange_of_the_trump_six() {
    // Seat 0 holds 6C, the six of trumps (clubs, trump card QC), the trump card under the stock.
    let mut g = game(
        K,
        2,
        false,
        &[
            "6C 7D 7H 6S 6D QS",
            "9C 9D TH JS 8S KD",
            "9H 9S 7S AC AD AH",
        ],
        "QC",
        "",
    );
    assert!(g.stock_len() > 0);
    assert!(g.legal().unwrap().exchange.is_none());
    assert_eq!(g.exchange_open(0), None);
    assert_refused(
        &mut g,
        0,
        "exchange attack 7D",
        "K-14",
        &["no exchange of the trump six"],
    );
    play(&mut g, &["0: attack 7D"]);
    assert_refused(&mut g, 1, "exchange defend 7D/9D", "K-14", &["no exchange"]);
}

#[test]
fn k14_no_transfer() {
    // A defender answering with an attack or an addition (a transfer elsewhere) is refused: the
    // defender covers or takes.
    let mut g = three_player_deal();
    play(&mut g, &["0: attack 7C"]);
    for t in ["attack 8S", "add 8S"] {
        assert_refused(
            &mut g,
            1,
            t,
            "K-7",
            &[
                "covers every unbeaten card or takes",
                "not a defender's move",
            ],
        );
    }
}

// ----- R-1 (podkidnoy) --------------------------------------------------------------------------

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
fn r1_defender_who_cannot_cover_every_card_takes() {
    let mut g = worked_example_to_jh();
    let m = forced_is_announced_like_a_choice(&mut g);
    assert_eq!(m, Move::Take);
    assert_eq!(g.hand(2).len(), 6);
}

#[test]
fn r1_adder_with_no_legal_card_passes() {
    let mut g = worked_example_start();
    play(&mut g, &["1: attack 8H", "2: defend 8H/9H"]);
    // Seat 1 holds AC: no eight or nine.
    let m = forced_is_announced_like_a_choice(&mut g);
    assert_eq!(m, Move::Pass);
    // Seat 3 holds 9S 9C 8D: a choice.
    assert_eq!(decision(&g), (3, ADD, false));
    assert_eq!(g.forced_move(), None);
}

#[test]
fn r1_adder_with_no_room_is_not_asked() {
    // L reached: the round ends without asking anybody (K-8), the same as forced passes.
    let mut g = worked_example_to_jh();
    play(&mut g, &["2: take"]);
    assert_eq!(decision(&g), (3, ATTACK, false));
}

#[test]
fn r1_opening_attacker_holding_one_card_plays_it() {
    let mut g = worked_example_start();
    play(
        &mut g,
        &[
            "1: attack 8H",
            "2: defend 8H/9H",
            "1: pass",
            "3: add 9S",
            "2: defend 9S/JD",
            "1: pass",
            "3: pass",
        ],
    );
    assert_eq!(g.hand(2), cs("6C"));
    let m = forced_is_announced_like_a_choice(&mut g);
    assert_eq!(
        m,
        Move::Attack {
            cards: cs("6C"),
            exchange: false
        }
    );
    // Seat 3 may cover 6C or take: a choice.
    assert_eq!(g.forced_move(), None);
}
