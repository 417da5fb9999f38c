//! The scripted positions: explicit deals and a few scripted moves that bring the bot's
//! seat to one kind of decision. The bot always sits in seat 0; the other seats' moves (and, in
//! the two-player add positions, the bot's own opening attack) are scripted, and the bot is told
//! about them only through the events its seat would have seen — exactly as the referee
//! announces a forced move.

use durak_rules::{
    Card, CardSet, DecisionKind, Deck, Event, Game, Move, Pairs, Seat, Setup, Variant,
};

/// The bot's seat in every scripted position.
pub const BOT: Seat = 0;

/// One scripted position.
#[derive(Clone, Copy, Debug)]
pub struct Position {
    /// A stable id (used in `--json` and in tests).
    pub id: &'static str,
    /// What decision it reaches, in a few words.
    pub title: &'static str,
    /// The rules the decision is about.
    pub rules: &'static str,
    /// What is being checked, for the report.
    pub purpose: &'static str,
    pub variant: Variant,
    pub dealer: Seat,
    pub first_game: bool,
    /// `hands[s]`: seat `s`'s dealt hand (5 cards prostoy, 6 podkidnoy).
    pub hands: &'static [&'static str],
    /// The trump card (card `n*H` of the deck).
    pub trump: &'static str,
    /// The moves played before the bot's decision: `"1: attack 7C 7D QH"`.
    pub script: &'static [&'static str],
    /// The decision the bot is asked.
    pub kind: DecisionKind,
}

impl Position {
    pub fn players(&self) -> usize {
        self.hands.len()
    }

    /// The dealt game, before the script.
    pub fn deal(&self) -> Game {
        let setup = Setup {
            variant: self.variant,
            players: self.players(),
            dealer: self.dealer,
            first_game: self.first_game,
        };
        Game::with_deck(
            setup,
            deck_for(self.variant, self.dealer, self.hands, self.trump),
        )
        .expect("a scripted position deals")
    }

    /// The game at the bot's decision, and every event of the script (start events included).
    pub fn play_script(&self) -> (Game, Vec<Event>) {
        let mut g = self.deal();
        let mut events = g.start_events();
        for line in self.script {
            let (seat, text) = line.split_once(':').expect("`seat: move`");
            let seat: Seat = seat.trim().parse().expect("a seat number");
            let m = parse_move(text);
            let ev = g
                .apply(seat, &m)
                .unwrap_or_else(|e| panic!("position {}: {line:?} refused: {e}", self.id));
            events.extend(ev);
        }
        (g, events)
    }
}

const P: Variant = Variant::Prostoy;
const K: Variant = Variant::Podkidnoy;

/// Every scripted position, in the order they are played (grouped by variant and table size:
/// each group is one match with one bot process).
pub const POSITIONS: &[Position] = &[
    // ----- prostoy, 2 players ---------------------------------------------------------------
    Position {
        id: "prostoy-attack",
        title: "attack (no exchange)",
        rules: "P-5, P-6",
        purpose: "The first attack of a game. Legal: 1 card, 3 cards with a pair, or 5 cards \
                  with two pairs, at most as many as the defender holds. Never 2 or 4.",
        variant: P,
        dealer: 1,
        first_game: true,
        hands: &["7C 7D 9H 9D KC", "8C 8H TD JH AC"],
        trump: "QS",
        script: &[],
        kind: DecisionKind::Attack,
    },
    Position {
        id: "prostoy-exchange-attack",
        title: "attack with the trump-six exchange open",
        rules: "P-4, P-5",
        purpose: "You hold the six of trumps while the trump card is under the stock: you may \
                  swap them as part of this attack (\"exchange\": true), or not. After a swap \
                  the attack cards come from the new hand.",
        variant: P,
        dealer: 1,
        first_game: true,
        hands: &["6S 7C 7D 9H QH", "8C 8H TD JH AC"],
        trump: "QS",
        script: &[],
        kind: DecisionKind::Attack,
    },
    Position {
        id: "prostoy-partial-defence",
        title: "partial defence (one attack card cannot be beaten)",
        rules: "P-8, C-4",
        purpose: "Beat any subset of the attack cards, each with a different card that beats \
                  it; QH cannot be beaten at all. \"pairs\": [] is legal too. There is no \
                  \"take\" in prostoy.",
        variant: P,
        dealer: 0,
        first_game: true,
        hands: &["KC 8D 6C TH 9C", "7C 7D QH 9S JD"],
        trump: "QS",
        script: &["1: attack 7C 7D QH"],
        kind: DecisionKind::Defend,
    },
    Position {
        id: "prostoy-exchange-defence",
        title: "defence with the trump-six exchange open",
        rules: "P-4, P-8",
        purpose: "A defence where you may swap the six of trumps first. With \"exchange\": \
                  true, take attack cards and beaters from legal.to_beat_after_exchange.",
        variant: P,
        dealer: 0,
        first_game: true,
        hands: &["6C 6S 8D TH KC", "7C 7D QH 9S JD"],
        trump: "QS",
        script: &["1: attack 7C 7D QH"],
        kind: DecisionKind::Defend,
    },
    // ----- prostoy, 3 players ---------------------------------------------------------------
    Position {
        id: "prostoy-attack-3p",
        title: "attack at a table of 3",
        rules: "P-3, P-5",
        purpose: "Three players: you attack seat 1 (the next player); seat 2 watches. Three \
                  eights count as one pair, so 1 or 3 cards are legal, 5 are not.",
        variant: P,
        dealer: 2,
        first_game: true,
        hands: &["8C 8D 8H JS AD", "9C 9H QC QS 7D", "6C 6H 7S KS AC"],
        trump: "TD",
        script: &[],
        kind: DecisionKind::Attack,
    },
    // ----- podkidnoy, 2 players -------------------------------------------------------------
    Position {
        id: "podkidnoy-attack",
        title: "opening attack",
        rules: "K-2, K-4",
        purpose: "The first game of a series: you hold the lowest trump (7S, shown to everyone) \
                  so you attack first. Legal: one card, or several cards of one rank, at most \
                  max(legal.sizes).",
        variant: K,
        dealer: 1,
        first_game: true,
        hands: &["6C 6D 8H JD KH 7S", "9C TC 8D JC AH 9S"],
        trump: "QS",
        script: &[],
        kind: DecisionKind::Attack,
    },
    Position {
        id: "podkidnoy-cover",
        title: "cover or take (covering needs a careful choice)",
        rules: "K-7, C-4",
        purpose: "Cover every attack card, each with a different card, or take. Covering is \
                  possible only as 8D/9D + 8H/7C: giving 8D its first listed beater, the trump \
                  7C, leaves 8H uncovered. Either a full cover or \"take\" is accepted.",
        variant: K,
        dealer: 0,
        first_game: false,
        hands: &["7C 9D 6D 6H 6S 7S", "8H 8D 9S TS JS QS"],
        trump: "KC",
        script: &["1: attack 8H 8D"],
        kind: DecisionKind::Defend,
    },
    Position {
        id: "podkidnoy-add",
        title: "add after a defence",
        rules: "K-5, K-6, K-8",
        purpose: "You attacked with 8C and the defender beat it with TC: you may add cards of a \
                  rank on the table (8 or T), at most legal.room of them, or pass.",
        variant: K,
        dealer: 1,
        first_game: false,
        hands: &["8C 8D TH 7D JH 9C", "TC 9D QD KD 6H 7H"],
        trump: "QS",
        script: &["0: attack 8C", "1: defend 8C/TC"],
        kind: DecisionKind::Add,
    },
    Position {
        id: "podkidnoy-add-after-take",
        title: "add after a take",
        rules: "K-9, K-3",
        purpose: "You attacked with 8C 8D and the defender takes: you may still add cards of a \
                  rank on the table (8H here) within the limit, once, or pass.",
        variant: K,
        dealer: 1,
        first_game: false,
        hands: &["8C 8D 8H 7D JH 9C", "TC 9D QD KD 6H 7H"],
        trump: "QS",
        script: &["0: attack 8C 8D", "1: take"],
        kind: DecisionKind::Add,
    },
    // ----- podkidnoy, 3 players -------------------------------------------------------------
    Position {
        id: "podkidnoy-defend-3p",
        title: "cover or take at a table of 3",
        rules: "K-3, K-7",
        purpose: "Seat 2 attacks you with 7H 7D; seat 1 may add later. Cover both with \
                  different cards, or take.",
        variant: K,
        dealer: 1,
        first_game: false,
        hands: &[
            "9H 8D KS 6C 6H AC",
            "8S 9S TS JS 8H TD",
            "7H 7D 9C TC JC QC",
        ],
        trump: "KC",
        script: &["2: attack 7H 7D"],
        kind: DecisionKind::Defend,
    },
    Position {
        id: "podkidnoy-add-3p",
        title: "the other neighbour adds (table of 3)",
        rules: "K-5, K-6, K-8",
        purpose: "Seat 1 attacked seat 2 with 9C, seat 2 beat it with JC and seat 1 passed: \
                  now you, the defender's other neighbour, may add a nine or a jack, or pass.",
        variant: K,
        dealer: 0,
        first_game: false,
        hands: &[
            "9D JH 6C 7C 8C TH",
            "9C 7S 8S TS QS 6H",
            "JC 6D 7D 8D AD KH",
        ],
        trump: "AS",
        script: &["1: attack 9C", "2: defend 9C/JC", "1: pass"],
        kind: DecisionKind::Add,
    },
    Position {
        id: "podkidnoy-add-after-take-3p",
        title: "the other neighbour adds after a take (table of 3)",
        rules: "K-9, K-5",
        purpose: "Seat 1 attacked seat 2 with 9C, seat 2 takes, seat 1 passed: you may add a \
                  nine (9D) once, or pass; then the round closes.",
        variant: K,
        dealer: 0,
        first_game: false,
        hands: &[
            "9D JH 6C 7C 8C TH",
            "9C 7S 8S TS QS 6H",
            "JC 6D 7D 8D AD KH",
        ],
        trump: "AS",
        script: &["1: attack 9C", "2: take", "1: pass"],
        kind: DecisionKind::Add,
    },
];

/// The positions of the given variants.
pub fn positions(variants: &[Variant]) -> Vec<&'static Position> {
    POSITIONS
        .iter()
        .filter(|p| variants.contains(&p.variant))
        .collect()
}

fn card(s: &str) -> Card {
    s.parse()
        .unwrap_or_else(|e| panic!("bad card in a position: {e}"))
}

fn cards(s: &str) -> Vec<Card> {
    s.split_whitespace().map(card).collect()
}

/// The deck that deals `hands` with `trump` as the trump card: card `i < n*H` goes to seat
/// `(dealer + 1 + i) mod n`, card `n*H` is the trump card, and the stock is every other card in
/// index order. (Not for six-player podkidnoy, which has no stock.)
pub fn deck_for(variant: Variant, dealer: Seat, hands: &[&str], trump: &str) -> Deck {
    let n = hands.len();
    let h = variant.hand_size();
    assert!(n * h < 36, "scripted positions have a stock");
    let mut order: Vec<Option<Card>> = vec![None; 36];
    for (s, hand) in hands.iter().enumerate() {
        let list = cards(hand);
        assert_eq!(list.len(), h, "seat {s} is dealt {h} cards");
        let offset = (s + n - (dealer + 1) % n) % n;
        for (k, c) in list.into_iter().enumerate() {
            order[k * n + offset] = Some(c);
        }
    }
    order[n * h] = Some(card(trump));
    let named: CardSet = order.iter().flatten().copied().collect();
    let mut rest = CardSet::ALL.minus(named).iter();
    let deck: Vec<Card> = order
        .into_iter()
        .map(|c| c.or_else(|| rest.next()).expect("36 cards"))
        .collect();
    Deck::from_cards(&deck).expect("a scripted deck has every card once")
}

/// A move in a tiny text language: `attack 7C 7D`, `exchange attack 6S`, `defend 7C/KC 7D/8D`,
/// `take`, `add 9S`, `pass`.
pub fn parse_move(text: &str) -> Move {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    let exchange = words.first() == Some(&"exchange");
    if exchange {
        words.remove(0);
    }
    let list = |w: &[&str]| -> CardSet { w.iter().map(|c| card(c)).collect() };
    match words[0] {
        "attack" => Move::Attack {
            cards: list(&words[1..]),
            exchange,
        },
        "defend" => {
            let pairs: Vec<(Card, Card)> = words[1..]
                .iter()
                .map(|p| {
                    let (a, d) = p.split_once('/').expect("attack/defence");
                    (card(a), card(d))
                })
                .collect();
            Move::Defend {
                pairs: Pairs::from_slice(&pairs).expect("at most six pairs"),
                exchange,
            }
        }
        "take" => Move::Take,
        "add" => Move::Add {
            cards: list(&words[1..]),
        },
        "pass" => Move::Pass,
        other => panic!("unknown move word {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position deals the intended hands and reaches the intended decision for the bot,
    /// as a real choice (not an R-1 forced move).
    #[test]
    fn every_position_reaches_its_decision() {
        for p in POSITIONS {
            let g = p.deal();
            for (s, hand) in p.hands.iter().enumerate() {
                assert_eq!(
                    g.hand(s),
                    CardSet::parse_list(hand).unwrap(),
                    "{}: seat {s}",
                    p.id
                );
            }
            let (g, _) = p.play_script();
            let legal = g.legal().expect("not over");
            assert_eq!(legal.decision.seat, BOT, "{}", p.id);
            assert_eq!(legal.decision.kind, p.kind, "{}", p.id);
            assert!(
                legal.forced_move(p.variant).is_none(),
                "{}: a real choice",
                p.id
            );
        }
    }

    fn find(id: &str) -> &'static Position {
        POSITIONS.iter().find(|p| p.id == id).unwrap()
    }

    #[test]
    fn the_positions_have_the_promised_features() {
        let legal = |id: &str| find(id).play_script().0.legal().unwrap();
        let l = legal("prostoy-attack");
        assert_eq!(l.attack_size_list(), vec![1, 3, 5]);
        assert!(l.exchange.is_none());
        let l = legal("prostoy-exchange-attack");
        assert!(l.exchange.is_some());
        assert_eq!(l.attack_size_list(), vec![1, 3, 5]);
        let l = legal("prostoy-partial-defence");
        assert!(l.exchange.is_none());
        assert!(l.to_beat.iter().any(|t| t.beaters.is_empty()));
        assert!(l.to_beat.iter().any(|t| !t.beaters.is_empty()));
        assert!(legal("prostoy-exchange-defence").exchange.is_some());
        assert_eq!(legal("prostoy-attack-3p").attack_size_list(), vec![1, 3]);
        let (g, ev) = find("podkidnoy-attack").play_script();
        assert_eq!(g.legal().unwrap().attack_size_list(), vec![1, 2]);
        assert!(ev.iter().any(|e| matches!(
            e.kind,
            durak_rules::EventKind::FirstAttacker {
                seat: 0,
                shown_trump: Some(_)
            }
        )));
        let l = legal("podkidnoy-cover");
        assert!(l.can_cover && l.can_take);
        // The trap: the first listed beater of the first card is the second card's only one.
        assert_eq!(l.to_beat[1].beaters.len(), 1);
        assert_eq!(l.to_beat[0].beaters.len(), 2);
        assert_eq!(l.to_beat[0].beaters.first(), l.to_beat[1].beaters.first());
        let l = legal("podkidnoy-add");
        assert!(!l.decision.after_take && !l.addable.is_empty());
        let l = legal("podkidnoy-add-after-take");
        assert!(l.decision.after_take && !l.addable.is_empty());
        assert!(legal("podkidnoy-defend-3p").can_cover);
        let (g, _) = find("podkidnoy-add-3p").play_script();
        assert_eq!(g.attacker(), 1);
        assert!(!g.legal().unwrap().decision.after_take);
        let l = legal("podkidnoy-add-after-take-3p");
        assert!(l.decision.after_take && !l.addable.is_empty());
    }
}
