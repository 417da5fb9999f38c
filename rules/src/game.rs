//! The game as a value: deal, decisions, legal choices, checking and applying moves, observations.

use crate::card::{Card, CardSet, Rank, Suit};
use crate::deck::Deck;
use crate::judge::DecisionView;
use crate::types::*;
use arrayvec::ArrayVec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Attack,
    Defend,
    Add(Seat),
    Over,
}

/// One game of Durak. Built from a [`Setup`] and a [`Deck`]; advanced only by legal moves.
#[derive(Clone, Debug)]
pub struct Game {
    setup: Setup,
    deck: Deck,
    hands: [CardSet; 6],
    known: [CardSet; 6],
    /// Stock in drawing order, `stock[pos..end]`; the trump card is `stock[end - 1]` (C-5).
    stock: [Card; 36],
    stock_pos: u8,
    stock_end: u8,
    trump_card: Card,
    trump: Suit,
    discard: CardSet,
    active: [bool; 6],
    attacks: ArrayVec<Card, 6>,
    defences: [Option<Card>; 6],
    /// Every card on the table (attacks and defences), kept in step with the two above.
    on_table: CardSet,
    attacker: Seat,
    defender: Seat,
    /// Podkidnoy: the defender's other neighbour, the second adder (K-5); equal to `attacker` when
    /// only two players are active.
    other: Seat,
    limit: usize,
    taking: bool,
    phase: Phase,
    outcome: Option<Outcome>,
    first_attacker: Seat,
    shown_trump: Option<Card>,
    exits: ArrayVec<Seat, 6>,
    moves: u32,
}

impl Game {
    /// Deal a game from a seed (C-5, R-3).
    pub fn new(setup: Setup, seed: u64) -> Result<Game, SetupError> {
        Game::with_deck(setup, Deck::shuffled(seed))
    }

    /// Deal a game from a given deck order.
    pub fn with_deck(setup: Setup, deck: Deck) -> Result<Game, SetupError> {
        setup.check()?;
        let n = setup.players;
        let h = setup.variant.hand_size();
        let cards = deck.cards();
        let mut hands = [CardSet::EMPTY; 6];
        let mut known = [CardSet::EMPTY; 6];
        let mut stock = [cards[0]; 36];
        let (trump_card, stock_end) = if n * h >= 36 {
            // K-1: six players get every card; card 35 is the dealer's last card and the trump.
            for (i, &c) in cards.iter().enumerate() {
                hands[(setup.dealer + 1 + i) % n].insert(c);
            }
            known[setup.dealer].insert(cards[35]);
            (cards[35], 0)
        } else {
            for (i, &c) in cards[..n * h].iter().enumerate() {
                hands[(setup.dealer + 1 + i) % n].insert(c);
            }
            let rest = &cards[n * h + 1..];
            stock[..rest.len()].copy_from_slice(rest);
            stock[rest.len()] = cards[n * h];
            (cards[n * h], rest.len() + 1)
        };
        let trump = trump_card.suit();
        let left = (setup.dealer + 1) % n;
        let (first_attacker, shown_trump) =
            if setup.variant == Variant::Podkidnoy && setup.first_game {
                // K-2: the lowest trump in any hand attacks first and is shown.
                let lowest = Rank::ALL.iter().find_map(|&r| {
                    let c = Card::new(r, trump);
                    (0..n).find(|&s| hands[s].contains(c)).map(|s| (s, c))
                });
                match lowest {
                    Some((s, c)) => (s, Some(c)),
                    None => (left, None),
                }
            } else {
                (left, None) // P-2, K-2 later games, and the K-2 ruling after a draw.
            };
        if let Some(c) = shown_trump {
            known[first_attacker].insert(c);
        }
        let mut active = [false; 6];
        active[..n].iter_mut().for_each(|a| *a = true);
        let mut g = Game {
            setup,
            deck,
            hands,
            known,
            stock,
            stock_pos: 0,
            stock_end: stock_end as u8,
            trump_card,
            trump,
            discard: CardSet::EMPTY,
            active,
            attacks: ArrayVec::new(),
            defences: [None; 6],
            on_table: CardSet::EMPTY,
            attacker: first_attacker,
            defender: first_attacker,
            other: first_attacker,
            limit: 0,
            taking: false,
            phase: Phase::Attack,
            outcome: None,
            first_attacker,
            shown_trump,
            exits: ArrayVec::new(),
            moves: 0,
        };
        g.start_turn(first_attacker);
        Ok(g)
    }

    /// The events of the deal, in order: what each seat learns before the first decision.
    pub fn start_events(&self) -> Vec<Event> {
        let n = self.setup.players;
        let h = self.setup.variant.hand_size();
        let cards = self.deck.cards();
        let mut dealt = [CardSet::EMPTY; 6];
        for (i, &c) in cards[..(n * h).min(36)].iter().enumerate() {
            dealt[(self.setup.dealer + 1 + i) % n].insert(c);
        }
        let mut out = vec![Event {
            to: Audience::All,
            kind: EventKind::Dealt {
                dealer: self.setup.dealer,
                trump_card: self.deck.cards()[(n * h).min(35)],
                hand_size: h,
                stock: 36_usize.saturating_sub(n * h),
            },
        }];
        for (seat, &cards) in dealt.iter().enumerate().take(n) {
            out.push(Event {
                to: Audience::Seat(seat),
                kind: EventKind::DealtHand { seat, cards },
            });
        }
        out.push(Event {
            to: Audience::All,
            kind: EventKind::FirstAttacker {
                seat: self.first_attacker,
                shown_trump: self.shown_trump,
            },
        });
        let defender = self.next_active_from(self.first_attacker, &[true; 6]);
        out.push(Event {
            to: Audience::All,
            kind: EventKind::TurnStarted {
                attacker: self.first_attacker,
                defender,
                limit: (self.setup.variant == Variant::Podkidnoy)
                    .then(|| dealt[defender].len().min(6)),
            },
        });
        out
    }

    // ----- accessors -------------------------------------------------------------------------

    pub fn setup(&self) -> &Setup {
        &self.setup
    }
    pub fn variant(&self) -> Variant {
        self.setup.variant
    }
    pub fn players(&self) -> usize {
        self.setup.players
    }
    /// The deck order: hidden from every player (I-3); for the referee and replays only.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat]
    }
    pub fn trump(&self) -> Suit {
        self.trump
    }
    pub fn trump_card(&self) -> Card {
        self.trump_card
    }
    pub fn stock_len(&self) -> usize {
        (self.stock_end - self.stock_pos) as usize
    }
    /// The cards still in the stock, in drawing order (hidden from players, I-3).
    pub fn stock_cards(&self) -> &[Card] {
        &self.stock[self.stock_pos as usize..self.stock_end as usize]
    }
    pub fn discard(&self) -> CardSet {
        self.discard
    }
    pub fn is_active(&self, seat: Seat) -> bool {
        self.active[seat]
    }
    pub fn table(&self) -> Vec<(Card, Option<Card>)> {
        self.attacks
            .iter()
            .zip(self.defences.iter())
            .map(|(&a, &d)| (a, d))
            .collect()
    }
    pub fn table_cards(&self) -> CardSet {
        self.on_table
    }
    pub fn attacker(&self) -> Seat {
        self.attacker
    }
    pub fn defender(&self) -> Seat {
        self.defender
    }
    /// Podkidnoy: the round's K-3 limit.
    pub fn limit(&self) -> usize {
        self.limit
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
    /// Seats in the order they exited (C-8).
    pub fn exits(&self) -> &[Seat] {
        &self.exits
    }
    /// Moves applied so far (chosen and forced).
    pub fn move_count(&self) -> u32 {
        self.moves
    }

    /// Whose decision it is and of what kind; `None` once the game is over.
    pub fn decision(&self) -> Option<Decision> {
        let (seat, kind) = match self.phase {
            Phase::Attack => (self.attacker, DecisionKind::Attack),
            Phase::Defend => (self.defender, DecisionKind::Defend),
            Phase::Add(s) => (s, DecisionKind::Add),
            Phase::Over => return None,
        };
        Some(Decision {
            seat,
            kind,
            after_take: self.taking,
        })
    }

    /// OpenSpiel's name for the seat to act.
    pub fn current_player(&self) -> Option<Seat> {
        self.decision().map(|d| d.seat)
    }

    // ----- helpers ---------------------------------------------------------------------------

    fn next_active_from(&self, s: Seat, active: &[bool; 6]) -> Seat {
        let n = self.setup.players;
        (1..=n)
            .map(|i| (s + i) % n)
            .find(|&t| active[t] && t != s)
            .unwrap_or(s)
    }

    /// C-3: the first active seat after `s`, never `s` itself.
    pub fn next_active(&self, s: Seat) -> Seat {
        self.next_active_from(s, &self.active)
    }

    fn unbeaten(&self) -> impl Iterator<Item = Card> + '_ {
        self.attacks
            .iter()
            .zip(self.defences.iter())
            .filter(|(_, d)| d.is_none())
            .map(|(&a, _)| a)
    }

    fn table_ranks(&self) -> u16 {
        self.table_cards().rank_mask()
    }

    /// P-4: the exchange open to `seat` now, if any.
    pub fn exchange_open(&self, seat: Seat) -> Option<Exchange> {
        if self.setup.variant != Variant::Prostoy || self.stock_pos >= self.stock_end {
            return None;
        }
        let six = Card::new(Rank::Six, self.trump);
        (self.trump_card != six && self.hands[seat].contains(six)).then_some(Exchange {
            six,
            trump_card: self.trump_card,
        })
    }

    fn to_beat_into(&self, hand: CardSet, out: &mut ArrayVec<ToBeat, 6>) {
        for (i, &a) in self.attacks.iter().enumerate() {
            if self.defences[i].is_none() {
                out.push(ToBeat {
                    attack: a,
                    beaters: a.beaten_by(self.trump).intersect(hand),
                });
            }
        }
    }

    /// K-7: whether every card of `to_beat` can be beaten by a different card (Hall's condition
    /// over all subsets, at most 2^6).
    fn can_cover_all(to_beat: &[ToBeat]) -> bool {
        let k = to_beat.len();
        // Fast paths: a card nobody can beat; then a greedy assignment, most constrained first.
        if to_beat.iter().any(|t| t.beaters.is_empty()) {
            return false;
        }
        let mut order: [(u32, u64); 6] = [(0, 0); 6];
        for (o, t) in order.iter_mut().zip(to_beat) {
            *o = (t.beaters.len() as u32, t.beaters.bits());
        }
        order[..k].sort_unstable();
        let mut used = 0u64;
        let greedy = order[..k].iter().all(|&(_, b)| {
            let free = b & !used;
            used |= free & free.wrapping_neg();
            free != 0
        });
        if greedy {
            return true;
        }
        (1usize..(1 << k)).all(|s| {
            let mut union = 0u64;
            let mut rest = s;
            while rest != 0 {
                union |= to_beat[rest.trailing_zeros() as usize].beaters.bits();
                rest &= rest - 1;
            }
            union.count_ones() >= s.count_ones()
        })
    }

    /// The legal choices of the current decision, or `None` when the game is over.
    pub fn legal(&self) -> Option<Legal> {
        let mut legal = Legal::empty();
        self.legal_into(&mut legal).then_some(legal)
    }

    /// [`Game::legal`] into a reusable value (no copy of the choices); `false` once the game is
    /// over.
    pub fn legal_into(&self, legal: &mut Legal) -> bool {
        let Some(decision) = self.decision() else {
            return false;
        };
        let seat = decision.seat;
        let hand = self.hands[seat];
        legal.reset(decision, hand, self.exchange_open(seat));
        legal.view = self.view_of(decision);
        match (self.setup.variant, decision.kind) {
            (Variant::Prostoy, DecisionKind::Attack) => {
                let def = self.hands[self.defender].len();
                let mut hands = [hand, hand];
                if let Some(x) = legal.exchange {
                    hands[1].remove(x.six);
                    hands[1].insert(x.trump_card);
                }
                for h in hands {
                    let pairs = h.pair_count();
                    if !h.is_empty() {
                        legal.attack_sizes |= 1 << 1;
                    }
                    if def >= 3 && pairs >= 1 && h.len() >= 3 {
                        legal.attack_sizes |= 1 << 3;
                    }
                    if def >= 5 && pairs >= 2 && h.len() >= 5 {
                        legal.attack_sizes |= 1 << 5;
                    }
                }
            }
            (Variant::Podkidnoy, DecisionKind::Attack) => {
                legal.same_rank = true;
                let most = hand.max_rank_count();
                for k in 1..=most.min(self.limit) {
                    legal.attack_sizes |= 1 << k;
                }
            }
            (Variant::Prostoy, DecisionKind::Defend) => {
                self.to_beat_into(hand, &mut legal.to_beat);
                if let Some(x) = legal.exchange {
                    let mut h = hand;
                    h.remove(x.six);
                    h.insert(x.trump_card);
                    self.to_beat_into(h, &mut legal.to_beat_after_exchange);
                }
            }
            (Variant::Podkidnoy, DecisionKind::Defend) => {
                self.to_beat_into(hand, &mut legal.to_beat);
                legal.must_cover_all = true;
                legal.can_take = true;
                legal.can_cover = Self::can_cover_all(&legal.to_beat);
            }
            (_, DecisionKind::Add) => {
                legal.room = self.limit - self.attacks.len();
                legal.addable = hand.with_ranks(self.table_ranks());
            }
        }
        true
    }

    /// the move the referee plays in the player's name when the decision has exactly one legal
    /// answer; `None` when the player has a real choice (or the game is over).
    pub fn forced_move(&self) -> Option<Move> {
        self.legal()?.forced_move(self.setup.variant)
    }

    // ----- checking ----------------------------------------------------------------------------

    /// What judging the current decision's move needs, as its seat sees it (`None` once the
    /// game is over): what [`Game::check`] judges the deciding seat's move by.
    pub fn view(&self) -> Option<DecisionView> {
        Some(self.view_of(self.decision()?))
    }

    fn view_of(&self, d: Decision) -> DecisionView {
        let podkidnoy = self.setup.variant == Variant::Podkidnoy;
        DecisionView {
            variant: self.setup.variant,
            decision: d,
            hand: self.hands[d.seat],
            trump_card: self.trump_card,
            trump_card_in_stock: self.stock_len() > 0,
            defender: self.defender,
            defender_cards: self.hands[self.defender].len(),
            limit: if podkidnoy { self.limit } else { 0 },
            table: self
                .attacks
                .iter()
                .zip(self.defences.iter())
                .map(|(&a, &d)| (a, d))
                .collect(),
            taking: self.taking,
        }
    }

    /// Check `mv` by `seat` without applying it: `Err` names the rule it breaks. A seat whose
    /// decision it is not is refused here (C-9, K-5, R-2); the deciding seat's move is judged by
    /// [`DecisionView::check`], as a player holding the request judges it.
    pub fn check(&self, seat: Seat, mv: &Move) -> Result<(), Illegal> {
        let Some(d) = self.decision() else {
            return Err(Illegal::new("C-9", "the game is over; no more moves"));
        };
        if let (Variant::Podkidnoy, Move::Add { .. }) = (self.setup.variant, mv) {
            if seat != d.seat && seat < self.setup.players {
                if let Some(e) = self.adder_error(seat, d) {
                    return Err(e);
                }
            }
        }
        if seat != d.seat {
            return Err(Illegal::new(
                "R-2",
                format!(
                    "it is seat {}'s turn to {}, not seat {seat}'s",
                    d.seat,
                    d.kind.name()
                ),
            ));
        }
        self.view_of(d).check(mv)
    }

    /// K-5: why `seat`, whose decision it is not, may not add now (`None`: not a K-5 matter).
    fn adder_error(&self, seat: Seat, d: Decision) -> Option<Illegal> {
        let (a, o) = (self.attacker, self.other);
        if seat != a && seat != o {
            let adders = if a == o {
                format!("seat {a}")
            } else {
                format!("seats {a} and {o}")
            };
            let who = if seat == self.defender {
                "is the defender"
            } else {
                "is not a neighbour of the defender"
            };
            return Some(Illegal::new(
                "K-5",
                format!("seat {seat} may not add: it {who}; only {adders} add to this round"),
            ));
        }
        (seat == o && d.kind == DecisionKind::Add && d.seat == a).then(|| {
            Illegal::new(
                "K-5",
                format!(
                    "seat {a}, the initial attacker, has priority: seat {o} adds only after they pass"
                ),
            )
        })
    }

    // ----- applying --------------------------------------------------------------------------

    /// Check and apply a move; on success returns its events (each public or private to a seat).
    pub fn apply(&mut self, seat: Seat, mv: &Move) -> Result<Vec<Event>, Illegal> {
        let mut out = Vec::new();
        self.apply_into(seat, mv, &mut out)?;
        Ok(out)
    }

    /// [`Game::apply`] appending the events to `out` (no allocation when `out` has room).
    pub fn apply_into(
        &mut self,
        seat: Seat,
        mv: &Move,
        out: &mut Vec<Event>,
    ) -> Result<(), Illegal> {
        self.check(seat, mv)?;
        self.moves += 1;
        match (self.setup.variant, *mv) {
            (_, Move::Attack { cards, exchange }) => {
                if exchange {
                    self.do_exchange(seat, out);
                }
                self.hands[seat] = self.hands[seat].minus(cards);
                self.known[seat] = self.known[seat].minus(cards);
                self.attacks.extend(cards.iter());
                self.on_table = self.on_table.union(cards);
                out.push(public(EventKind::Attacked { seat, cards }));
                if self.setup.variant == Variant::Prostoy {
                    self.draw(seat, out); // P-7
                }
                self.phase = Phase::Defend;
            }
            (Variant::Prostoy, Move::Defend { pairs, exchange }) => {
                if exchange {
                    self.do_exchange(seat, out);
                }
                self.place_defence(seat, &pairs, out);
                self.resolve_prostoy(out);
            }
            (Variant::Podkidnoy, Move::Defend { pairs, .. }) => {
                self.place_defence(seat, &pairs, out);
                if self.attacks.len() >= self.limit {
                    self.close_round(out);
                } else {
                    self.phase = Phase::Add(self.attacker);
                }
            }
            (_, Move::Take) => {
                self.taking = true;
                out.push(public(EventKind::Takes { seat }));
                if self.attacks.len() >= self.limit {
                    self.close_round(out);
                } else {
                    self.phase = Phase::Add(self.attacker);
                }
            }
            (_, Move::Add { cards }) => {
                self.hands[seat] = self.hands[seat].minus(cards);
                self.known[seat] = self.known[seat].minus(cards);
                self.attacks.extend(cards.iter());
                self.on_table = self.on_table.union(cards);
                out.push(public(EventKind::Added { seat, cards }));
                if !self.taking {
                    self.phase = Phase::Defend;
                } else if self.attacks.len() < self.limit
                    && seat == self.attacker
                    && self.other != self.attacker
                {
                    self.phase = Phase::Add(self.other);
                } else {
                    self.close_round(out);
                }
            }
            (_, Move::Pass) => {
                out.push(public(EventKind::Passed { seat }));
                if seat == self.attacker && self.other != self.attacker {
                    self.phase = Phase::Add(self.other);
                } else {
                    self.close_round(out);
                }
            }
        }
        Ok(())
    }

    /// Apply [`Game::forced_move`] if there is one; returns whether a move was played.
    pub fn play_forced(&mut self, out: &mut Vec<Event>) -> bool {
        match self.legal() {
            Some(legal) => self.play_forced_with(&legal, out),
            None => false,
        }
    }

    /// [`Game::play_forced`] with the legal choices already computed by [`Game::legal`].
    pub fn play_forced_with(&mut self, legal: &Legal, out: &mut Vec<Event>) -> bool {
        match legal.forced_move(self.setup.variant) {
            Some(mv) => {
                self.apply_into(legal.decision.seat, &mv, out)
                    .expect("a forced move is legal");
                true
            }
            None => false,
        }
    }

    fn do_exchange(&mut self, seat: Seat, out: &mut Vec<Event>) {
        let x = self.exchange_open(seat).expect("checked");
        let hand = &mut self.hands[seat];
        hand.remove(x.six);
        hand.insert(x.trump_card);
        self.known[seat].remove(x.six);
        self.known[seat].insert(x.trump_card);
        self.stock[self.stock_end as usize - 1] = x.six;
        self.trump_card = x.six;
        out.push(public(EventKind::Exchanged {
            seat,
            six: x.six,
            trump_card: x.trump_card,
        }));
    }

    fn place_defence(&mut self, seat: Seat, pairs: &Pairs, out: &mut Vec<Event>) {
        for (a, d) in pairs.iter() {
            let i = self.attacks.iter().position(|&x| x == a).expect("checked");
            self.defences[i] = Some(d);
            self.on_table.insert(d);
            self.hands[seat].remove(d);
            self.known[seat].remove(d);
        }
        out.push(public(EventKind::Defended {
            seat,
            pairs: *pairs,
        }));
    }

    /// C-6: draw up to the hand size.
    fn draw(&mut self, seat: Seat, out: &mut Vec<Event>) {
        let h = self.setup.variant.hand_size();
        let have = self.hands[seat].len();
        let k = h.saturating_sub(have).min(self.stock_len());
        if k == 0 {
            return;
        }
        let from = self.stock_pos as usize;
        let cards: CardSet = self.stock[from..from + k].iter().copied().collect();
        self.stock_pos += k as u8;
        let trump_card = (self.stock_pos == self.stock_end).then_some(self.trump_card);
        if let Some(t) = trump_card {
            self.known[seat].insert(t); // I-2: everyone saw the trump card.
        }
        self.hands[seat] = self.hands[seat].union(cards);
        out.push(public(EventKind::Drew {
            seat,
            count: k,
            trump_card,
        }));
        out.push(Event {
            to: Audience::Seat(seat),
            kind: EventKind::DrewCards { seat, cards },
        });
    }

    fn clear_table(&mut self) {
        self.attacks.clear();
        self.defences = [None; 6];
        self.on_table = CardSet::EMPTY;
        self.taking = false;
    }

    /// P-9 to P-11.
    fn resolve_prostoy(&mut self, out: &mut Vec<Event>) {
        let (a, d) = (self.attacker, self.defender);
        let mut beaten = CardSet::EMPTY;
        let mut unbeaten = CardSet::EMPTY;
        for (i, &c) in self.attacks.iter().enumerate() {
            match self.defences[i] {
                Some(x) => {
                    beaten.insert(c);
                    beaten.insert(x);
                }
                None => unbeaten.insert(c),
            }
        }
        if !beaten.is_empty() {
            self.discard = self.discard.union(beaten);
            out.push(public(EventKind::Discarded { cards: beaten }));
        }
        if !unbeaten.is_empty() {
            self.hands[d] = self.hands[d].union(unbeaten);
            self.known[d] = self.known[d].union(unbeaten);
            out.push(public(EventKind::PickedUp {
                seat: d,
                cards: unbeaten,
            }));
        }
        self.clear_table();
        self.draw(d, out); // P-9
        self.apply_exits(a, out); // P-10
        if self.finish_if_over(out) {
            return;
        }
        // P-11
        let next = if unbeaten.is_empty() && self.active[d] {
            d
        } else {
            self.next_active(d)
        };
        self.start_turn_announced(next, out);
    }

    /// K-10 to K-13.
    fn close_round(&mut self, out: &mut Vec<Event>) {
        let (a, d) = (self.attacker, self.defender);
        let cards = self.table_cards();
        let taken = self.taking;
        if taken {
            self.hands[d] = self.hands[d].union(cards);
            self.known[d] = self.known[d].union(cards);
            out.push(public(EventKind::PickedUp { seat: d, cards }));
        } else {
            self.discard = self.discard.union(cards);
            out.push(public(EventKind::Discarded { cards }));
        }
        self.clear_table();
        // K-12: the initial attacker, the others clockwise from them, the defender last.
        let n = self.setup.players;
        for i in 0..n {
            let s = (a + i) % n;
            if s != d && self.active[s] {
                self.draw(s, out);
            }
        }
        self.draw(d, out);
        self.apply_exits(a, out); // K-13
        if self.finish_if_over(out) {
            return;
        }
        let next = if !taken && self.active[d] {
            d // K-10
        } else {
            self.next_active(d) // K-10 after an exit, K-11
        };
        self.start_turn_announced(next, out);
    }

    /// C-8: once the stock is empty, active players without cards exit (clockwise from `from`).
    fn apply_exits(&mut self, from: Seat, out: &mut Vec<Event>) {
        if self.stock_len() > 0 {
            return;
        }
        let n = self.setup.players;
        for i in 0..n {
            let s = (from + i) % n;
            if self.active[s] && self.hands[s].is_empty() {
                self.active[s] = false;
                self.exits.push(s);
                out.push(public(EventKind::Exited { seat: s }));
            }
        }
    }

    /// C-9.
    fn finish_if_over(&mut self, out: &mut Vec<Event>) -> bool {
        let n = self.setup.players;
        let mut remaining = (0..n).filter(|&s| self.active[s]);
        let first = remaining.next();
        if remaining.next().is_some() {
            return false;
        }
        self.outcome = Some(Outcome { loser: first });
        self.phase = Phase::Over;
        out.push(public(EventKind::GameOver { loser: first }));
        true
    }

    fn start_turn(&mut self, attacker: Seat) {
        self.attacker = attacker;
        self.defender = self.next_active(attacker);
        self.other = self.next_active(self.defender);
        self.limit = self.hands[self.defender].len().min(6);
        self.phase = Phase::Attack;
        self.clear_table();
    }

    fn start_turn_announced(&mut self, attacker: Seat, out: &mut Vec<Event>) {
        self.start_turn(attacker);
        out.push(public(EventKind::TurnStarted {
            attacker,
            defender: self.defender,
            limit: (self.setup.variant == Variant::Podkidnoy).then_some(self.limit),
        }));
    }

    // ----- the endgame solver's view ----------------------------------------------------------

    /// The two active seats, lower first, once the stock is empty and exactly two players remain
    /// and the game is not over: the positions [`crate::solve`] can value exactly.
    pub fn endgame_seats(&self) -> Option<(Seat, Seat)> {
        if self.is_over() || self.stock_len() > 0 {
            return None;
        }
        let mut active = (0..self.setup.players).filter(|&s| self.active[s]);
        let (p, q) = (active.next()?, active.next()?);
        active.next().is_none().then_some((p, q))
    }

    /// An exact, compact description of everything that decides how an endgame (stock empty) can
    /// go on: the variant, trumps, the active seats and their hands, the table (all its cards and
    /// the unbeaten ones), the limit, the take, whose decision and which. What it leaves out does
    /// not change any rule's outcome from here: the discard (the complement of the rest), the
    /// order of the attack cards and which card beat which (a defended round discards them all,
    /// a take picks them all up), the cards publicly known and the move count.
    pub(crate) fn endgame_key(&self) -> [u64; 4] {
        let mut seats = (0..self.setup.players).filter(|&s| self.active[s]);
        let p = seats.next().unwrap_or(0);
        let q = seats.next().unwrap_or(p);
        let unbeaten: CardSet = self.unbeaten().collect();
        let (phase, actor) = match self.phase {
            Phase::Attack => (0u64, self.attacker),
            Phase::Defend => (1, self.defender),
            Phase::Add(s) => (2, s),
            Phase::Over => (3, 0),
        };
        let variant = (self.setup.variant == Variant::Podkidnoy) as u64;
        [
            self.hands[p].bits() | (p as u64) << 36 | (self.trump as u64) << 40 | variant << 42,
            self.hands[q].bits()
                | (q as u64) << 36
                | (self.attacker as u64) << 40
                | (self.defender as u64) << 44,
            self.on_table.bits()
                | (self.limit as u64) << 36
                | (self.taking as u64) << 40
                | (self.attacks.len() as u64) << 41,
            unbeaten.bits() | phase << 36 | (actor as u64) << 38,
        ]
    }

    // ----- observation -----------------------------------------------------------------------

    /// What `seat` may know now (I-1, I-2); nothing of the stock order or other hands (I-3).
    pub fn observation(&self, seat: Seat) -> Observation {
        let n = self.setup.players;
        Observation {
            seat,
            variant: self.setup.variant,
            players: n,
            dealer: self.setup.dealer,
            hand: self.hands[seat],
            hand_counts: (0..n).map(|s| self.hands[s].len()).collect(),
            known: (0..n).map(|s| self.known[s]).collect(),
            active: self.active[..n].to_vec(),
            trump_suit: self.trump,
            trump_card: self.trump_card,
            trump_card_in_stock: self.stock_len() > 0,
            stock: self.stock_len(),
            discard: self.discard,
            table: self.table(),
            attacker: self.attacker,
            defender: self.defender,
            limit: (self.setup.variant == Variant::Podkidnoy).then_some(self.limit),
            taking: self.taking,
            decision: self.decision(),
            outcome: self.outcome,
        }
    }

    /// Where every card is: for invariant checks. Hands, stock, table, discard.
    pub fn card_locations(&self) -> Vec<(Card, &'static str, Option<Seat>)> {
        let mut v = Vec::with_capacity(36);
        for s in 0..self.setup.players {
            v.extend(self.hands[s].iter().map(|c| (c, "hand", Some(s))));
        }
        v.extend(self.stock_cards().iter().map(|&c| (c, "stock", None)));
        v.extend(self.table_cards().iter().map(|c| (c, "table", None)));
        v.extend(self.discard.iter().map(|c| (c, "discard", None)));
        v
    }
}

fn public(kind: EventKind) -> Event {
    Event {
        to: Audience::All,
        kind,
    }
}
