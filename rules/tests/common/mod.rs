//! Helpers shared by the rules tests: card shorthands, a deck builder that lays out explicit
//! positions, a tiny move language for scripts, refusal checks, and a model of what one
//! seat can reconstruct from the events it was sent (I-1, I-2).
#![allow(dead_code)]

use durak_rules::*;

/// One card from its text form (C-1); panics on a typo in a test.
pub fn c(s: &str) -> Card {
    s.parse()
        .unwrap_or_else(|e| panic!("bad card in test: {e}"))
}

/// A card set from a space-separated list (C-1).
pub fn cs(s: &str) -> CardSet {
    CardSet::parse_list(s).unwrap_or_else(|e| panic!("bad card list in test: {e}"))
}

fn list(s: &str) -> Vec<Card> {
    s.split_whitespace().map(c).collect()
}

/// Build the deck that deals the given position.
///
/// * `hands[s]` is seat `s`'s hand (exactly H cards: prostoy 5, podkidnoy 6);
/// * `trump` is the trump card (card `n*H`); for six-player podkidnoy (K-1) it must be one of the
///   dealer's cards and becomes card 35, the dealer's last card;
/// * `stock` is the beginning of the stock in drawing order (without the trump card). Every card
///   not named anywhere is appended after it in index order (clubs 6..A, diamonds, hearts,
///   spades), so a test only names the stock cards whose order matters.
///
/// Card `i < n*H` goes to seat `(dealer + 1 + i) mod n`: seat `s` receives positions
/// `k*n + ((s - dealer - 1) mod n)` for `k = 0..H`.
pub fn deck_for(variant: Variant, dealer: Seat, hands: &[&str], trump: &str, stock: &str) -> Deck {
    let n = hands.len();
    let h = variant.hand_size();
    let trump = c(trump);
    let mut order: Vec<Option<Card>> = vec![None; 36];
    for (s, hand) in hands.iter().enumerate() {
        let mut cards = list(hand);
        assert_eq!(cards.len(), h, "seat {s} must be dealt {h} cards: {hand}");
        if n * h == 36 && s == dealer {
            // K-1: the dealer's last card (card 35) is the trump card.
            let at = cards
                .iter()
                .position(|&x| x == trump)
                .expect("six-player podkidnoy: the trump card is one of the dealer's cards");
            let t = cards.remove(at);
            cards.push(t);
        }
        let offset = (s + n - (dealer + 1) % n) % n;
        for (k, card) in cards.into_iter().enumerate() {
            order[k * n + offset] = Some(card);
        }
    }
    let mut rest: Vec<Card> = Vec::new();
    if n * h < 36 {
        order[n * h] = Some(trump);
        rest = list(stock);
    } else {
        assert!(stock.trim().is_empty(), "six-player podkidnoy has no stock");
    }
    let named: CardSet = order
        .iter()
        .flatten()
        .copied()
        .chain(rest.iter().copied())
        .collect();
    rest.extend(CardSet::ALL.minus(named).iter());
    let mut it = rest.into_iter();
    let cards: Vec<Card> = order
        .into_iter()
        .map(|x| x.or_else(|| it.next()).expect("36 cards"))
        .collect();
    Deck::from_cards(&cards).unwrap_or_else(|e| panic!("bad test deck: {e}"))
}

/// Deal the explicit position described by [`deck_for`].
pub fn game(
    variant: Variant,
    dealer: Seat,
    first_game: bool,
    hands: &[&str],
    trump: &str,
    stock: &str,
) -> Game {
    let setup = Setup {
        variant,
        players: hands.len(),
        dealer,
        first_game,
    };
    let g = Game::with_deck(setup, deck_for(variant, dealer, hands, trump, stock)).unwrap();
    for (s, hand) in hands.iter().enumerate() {
        assert_eq!(g.hand(s), cs(hand), "seat {s} is dealt the intended hand");
    }
    g
}

/// A move in a tiny text language:
/// `attack 7C 7D QH`, `exchange attack 6S` (P-4 then attack), `defend 7C/KC 7D/8D`, `defend`
/// (beat none), `exchange defend 7S/AS`, `take`, `add 9S`, `pass`.
pub fn mv(text: &str) -> Move {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    let exchange = words.first() == Some(&"exchange");
    if exchange {
        words.remove(0);
    }
    let rest = words[1..].join(" ");
    match words[0] {
        "attack" => Move::Attack {
            cards: cs(&rest),
            exchange,
        },
        "defend" => {
            let pairs: Vec<(Card, Card)> = words[1..]
                .iter()
                .map(|p| {
                    let (a, d) = p.split_once('/').expect("a pair is attack/defence");
                    (c(a), c(d))
                })
                .collect();
            Move::Defend {
                pairs: Pairs::from_slice(&pairs).expect("at most six pairs"),
                exchange,
            }
        }
        "take" => Move::Take,
        "add" => Move::Add { cards: cs(&rest) },
        "pass" => Move::Pass,
        other => panic!("unknown move word {other:?}"),
    }
}

/// Apply `seat: move` lines in order (each must be the current decision and legal); returns all
/// events. A line reads `"1: defend 7C/KC"`.
pub fn play(g: &mut Game, script: &[&str]) -> Vec<Event> {
    let mut out = Vec::new();
    for line in script {
        let (seat, text) = line.split_once(':').expect("`seat: move`");
        let seat: Seat = seat.trim().parse().expect("seat number");
        let m = mv(text);
        let d = g.decision().expect("game not over");
        assert_eq!(
            d.seat, seat,
            "script line {line:?}: it is seat {}'s decision",
            d.seat
        );
        match g.apply(seat, &m) {
            Ok(ev) => out.extend(ev),
            Err(e) => panic!("script line {line:?} refused: {e}"),
        }
    }
    out
}

/// A fingerprint of everything in a game (hands, stock order, table, phase, ...).
pub fn snapshot(g: &Game) -> String {
    format!("{g:?}")
}

/// Assert that `seat` playing `text` is refused by both `check` and `apply`, with the same
/// error, and that the refused `apply` leaves the game unchanged. Returns the refusal.
pub fn refused(g: &mut Game, seat: Seat, text: &str) -> Illegal {
    refused_move(g, seat, &mv(text))
}

pub fn refused_move(g: &mut Game, seat: Seat, m: &Move) -> Illegal {
    let before = snapshot(g);
    let e = g
        .check(seat, m)
        .expect_err(&format!("seat {seat} {m:?} should be refused"));
    let e2 = g
        .apply(seat, m)
        .expect_err("apply refuses what check refuses");
    assert_eq!(e, e2);
    assert_eq!(before, snapshot(g), "a refused move changes nothing");
    e
}

/// Assert a refusal cites `rule` and its message mentions every `needle`.
pub fn assert_refused(g: &mut Game, seat: Seat, text: &str, rule: &str, needles: &[&str]) {
    let e = refused(g, seat, text);
    assert_eq!(e.rule, rule, "refusal of {text:?}: {e}");
    for n in needles {
        assert!(
            e.message.contains(n),
            "refusal of {text:?} should mention {n:?}: {e}"
        );
    }
}

/// The events of a list whose kind matches, for order checks.
pub fn kinds(events: &[Event]) -> Vec<EventKind> {
    events.iter().map(|e| e.kind).collect()
}

/// The `Drew` events as `(seat, count)`, in order.
pub fn draws(events: &[Event]) -> Vec<(Seat, usize)> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Drew { seat, count, .. } => Some((seat, count)),
            _ => None,
        })
        .collect()
}

/// What one seat can reconstruct from the events it was sent: the fields of [`Observation`]
/// that events determine. Used to check that an observation holds nothing the seat was not told
/// (I-1, I-2, I-3) and that the seat can follow its own hand exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub seat: Seat,
    pub hand: CardSet,
    pub hand_counts: Vec<usize>,
    pub known: Vec<CardSet>,
    pub active: Vec<bool>,
    pub trump_card: Option<Card>,
    pub stock: usize,
    pub discard: CardSet,
    pub table: Vec<(Card, Option<Card>)>,
    pub attacker: Seat,
    pub defender: Seat,
    pub limit: Option<usize>,
    pub taking: bool,
    pub outcome: Option<Option<Seat>>,
}

impl View {
    pub fn new(seat: Seat, players: usize) -> View {
        View {
            seat,
            hand: CardSet::EMPTY,
            hand_counts: vec![0; players],
            known: vec![CardSet::EMPTY; players],
            active: vec![true; players],
            trump_card: None,
            stock: 0,
            discard: CardSet::EMPTY,
            table: Vec::new(),
            attacker: 0,
            defender: 0,
            limit: None,
            taking: false,
            outcome: None,
        }
    }

    fn lose(&mut self, seat: Seat, cards: CardSet) {
        self.hand_counts[seat] -= cards.len();
        self.known[seat] = self.known[seat].minus(cards);
        if seat == self.seat {
            assert!(
                cards.is_subset(self.hand),
                "seat plays {cards} not in its hand"
            );
            self.hand = self.hand.minus(cards);
        }
    }

    fn clear(&mut self, cards: CardSet) {
        self.table.retain(|(a, _)| !cards.contains(*a));
        if self.table.is_empty() {
            self.taking = false;
        }
    }

    /// Apply one event; panics if the event was not meant for this seat.
    pub fn see(&mut self, e: &Event) {
        assert!(
            e.to.sees(self.seat),
            "{:?} is not for seat {}",
            e,
            self.seat
        );
        match e.kind {
            EventKind::Dealt {
                dealer,
                trump_card,
                hand_size,
                stock,
            } => {
                self.trump_card = Some(trump_card);
                self.stock = stock;
                self.hand_counts.iter_mut().for_each(|h| *h = hand_size);
                if stock == 0 {
                    // K-1: the trump card went back into the dealer's hand, seen by everyone.
                    self.known[dealer].insert(trump_card);
                }
            }
            EventKind::DealtHand { seat, cards } => {
                assert_eq!(seat, self.seat, "a dealt hand is private (I-2)");
                self.hand = cards;
            }
            EventKind::FirstAttacker { seat, shown_trump } => {
                if let Some(t) = shown_trump {
                    self.known[seat].insert(t);
                }
            }
            EventKind::TurnStarted {
                attacker,
                defender,
                limit,
            } => {
                self.attacker = attacker;
                self.defender = defender;
                self.limit = limit;
                self.table.clear();
                self.taking = false;
            }
            EventKind::Exchanged {
                seat,
                six,
                trump_card,
            } => {
                assert_eq!(self.trump_card, Some(trump_card));
                self.known[seat].remove(six);
                self.known[seat].insert(trump_card);
                if seat == self.seat {
                    assert!(self.hand.contains(six));
                    self.hand.remove(six);
                    self.hand.insert(trump_card);
                }
                self.trump_card = Some(six);
            }
            EventKind::Attacked { seat, cards } | EventKind::Added { seat, cards } => {
                self.lose(seat, cards);
                self.table.extend(cards.iter().map(|a| (a, None)));
            }
            EventKind::Defended { seat, pairs } => {
                self.lose(seat, pairs.defence_cards());
                for (a, d) in pairs.iter() {
                    let slot = self
                        .table
                        .iter_mut()
                        .find(|(x, y)| *x == a && y.is_none())
                        .expect("defended card is an unbeaten attack card");
                    slot.1 = Some(d);
                }
            }
            EventKind::Takes { .. } => self.taking = true,
            EventKind::Passed { .. } => {}
            EventKind::PickedUp { seat, cards } => {
                self.hand_counts[seat] += cards.len();
                self.known[seat] = self.known[seat].union(cards);
                if seat == self.seat {
                    self.hand = self.hand.union(cards);
                }
                self.clear(cards);
            }
            EventKind::Discarded { cards } => {
                self.discard = self.discard.union(cards);
                self.clear(cards);
            }
            EventKind::Drew {
                seat,
                count,
                trump_card,
            } => {
                assert!(count <= self.stock, "cannot draw more than the stock");
                self.stock -= count;
                self.hand_counts[seat] += count;
                if let Some(t) = trump_card {
                    assert_eq!(self.stock, 0, "the trump card is drawn last (C-5)");
                    assert_eq!(Some(t), self.trump_card);
                    self.known[seat].insert(t);
                }
            }
            EventKind::DrewCards { seat, cards } => {
                assert_eq!(seat, self.seat, "drawn cards are private (I-2)");
                self.hand = self.hand.union(cards);
            }
            EventKind::Exited { seat } => self.active[seat] = false,
            EventKind::GameOver { loser } => self.outcome = Some(loser),
        }
    }

    /// Compare with the engine's observation for this seat.
    pub fn assert_matches(&self, o: &Observation) {
        assert_eq!(o.seat, self.seat);
        assert_eq!(o.hand, self.hand, "own hand (I-2)");
        assert_eq!(o.hand_counts, self.hand_counts, "hand counts (I-1)");
        assert_eq!(o.known, self.known, "publicly known cards (I-1)");
        assert_eq!(o.active, self.active, "exits (I-1)");
        assert_eq!(Some(o.trump_card), self.trump_card, "trump card (I-1)");
        assert_eq!(o.stock, self.stock, "stock count (I-1)");
        assert_eq!(o.trump_card_in_stock, self.stock > 0);
        assert_eq!(o.discard, self.discard, "discard (I-1, C-7)");
        assert_eq!(o.table, self.table, "table (I-1)");
        assert_eq!(o.attacker, self.attacker);
        assert_eq!(o.defender, self.defender);
        assert_eq!(o.limit, self.limit, "K-3 limit");
        assert_eq!(o.taking, self.taking, "K-9 taking");
        assert_eq!(o.outcome.map(|x| x.loser), self.outcome);
    }
}

/// One [`View`] per seat, fed with the start events.
pub fn views(g: &Game) -> Vec<View> {
    let n = g.players();
    let start = g.start_events();
    (0..n)
        .map(|s| {
            let mut v = View::new(s, n);
            for e in start.iter().filter(|e| e.to.sees(s)) {
                v.see(e);
            }
            v
        })
        .collect()
}

/// Feed events to every seat's view (each seat only what it may see).
pub fn feed(views: &mut [View], events: &[Event]) {
    for v in views.iter_mut() {
        let s = v.seat;
        for e in events.iter().filter(|e| e.to.sees(s)) {
            v.see(e);
        }
    }
}
