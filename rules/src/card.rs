//! Cards, suits, ranks, their text form (C-1) and card sets.

use std::fmt;
use std::str::FromStr;

/// A suit (C-1). The discriminant is the suit's index in [`Card::index`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Clubs = 0,
    Diamonds = 1,
    Hearts = 2,
    Spades = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The one-letter text form: `C`, `D`, `H`, `S`.
    pub fn letter(self) -> char {
        ['C', 'D', 'H', 'S'][self as usize]
    }

    pub fn from_letter(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'C' => Some(Suit::Clubs),
            'D' => Some(Suit::Diamonds),
            'H' => Some(Suit::Hearts),
            'S' => Some(Suit::Spades),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        ["clubs", "diamonds", "hearts", "spades"][self as usize]
    }

    /// Every card of this suit.
    pub fn cards(self) -> CardSet {
        CardSet(0x1FF << (9 * self as u32))
    }
}

/// A rank, low to high (C-1). The discriminant is the rank's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    Six = 0,
    Seven = 1,
    Eight = 2,
    Nine = 3,
    Ten = 4,
    Jack = 5,
    Queen = 6,
    King = 7,
    Ace = 8,
}

impl Rank {
    pub const ALL: [Rank; 9] = [
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The one-character text form: `6 7 8 9 T J Q K A`.
    pub fn letter(self) -> char {
        ['6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A'][self as usize]
    }

    pub fn from_letter(c: char) -> Option<Rank> {
        Some(match c.to_ascii_uppercase() {
            '6' => Rank::Six,
            '7' => Rank::Seven,
            '8' => Rank::Eight,
            '9' => Rank::Nine,
            'T' => Rank::Ten,
            'J' => Rank::Jack,
            'Q' => Rank::Queen,
            'K' => Rank::King,
            'A' => Rank::Ace,
            _ => return None,
        })
    }

    fn from_index(i: u8) -> Rank {
        Rank::ALL[i as usize]
    }

    /// Every card of this rank.
    pub fn cards(self) -> CardSet {
        CardSet::ALL.of_rank(self)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One of the 36 cards. It can only be built valid: from a rank and a suit, from an index below
/// 36, or by parsing its text form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(suit as u8 * 9 + rank as u8)
    }

    /// The card with index `i` (`suit * 9 + rank`), if `i < 36`.
    pub fn from_index(i: u8) -> Option<Card> {
        (i < 36).then_some(Card(i))
    }

    pub fn index(self) -> u8 {
        self.0
    }

    pub fn rank(self) -> Rank {
        Rank::from_index(self.0 % 9)
    }

    pub fn suit(self) -> Suit {
        Suit::ALL[(self.0 / 9) as usize]
    }

    /// C-4: `self` beats `attack` when both have the same suit and `self` is higher, or `self` is
    /// a trump and `attack` is not.
    pub fn beats(self, attack: Card, trump: Suit) -> bool {
        if self.suit() == attack.suit() {
            self.0 > attack.0
        } else {
            self.suit() == trump
        }
    }

    /// C-4: every card that beats `self`.
    pub fn beaten_by(self, trump: Suit) -> CardSet {
        let same_suit_higher = self.suit().cards().0 & !((2u64 << self.0) - 1);
        let trumps = if self.suit() == trump {
            0
        } else {
            trump.cards().0
        };
        CardSet(same_suit_higher | trumps)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().letter(), self.suit().letter())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a text is not a card (C-1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardParseError {
    pub input: String,
    pub reason: String,
}

impl fmt::Display for CardParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "C-1: {:?} is not a card: {}", self.input, self.reason)
    }
}

impl std::error::Error for CardParseError {}

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(s: &str) -> Result<Card, CardParseError> {
        let err = |reason: String| CardParseError {
            input: s.to_string(),
            reason,
        };
        let chars: Vec<char> = s.chars().collect();
        if chars.len() != 2 {
            let hint = if s.starts_with("10") {
                " (the ten is written T, as in TS)".to_string()
            } else {
                String::new()
            };
            return Err(err(format!(
                "a card is two characters, rank then suit, like TS or 6C{hint}"
            )));
        }
        let rank = Rank::from_letter(chars[0]).ok_or_else(|| {
            let mut reason = format!("{:?} is not a rank; ranks are 6 7 8 9 T J Q K A", chars[0]);
            if Suit::from_letter(chars[0]).is_some() && Rank::from_letter(chars[1]).is_some() {
                reason.push_str(" (rank comes first, then suit: write it the other way round)");
            }
            err(reason)
        })?;
        let suit = Suit::from_letter(chars[1]).ok_or_else(|| {
            err(format!(
                "{:?} is not a suit; suits are C D H S (clubs, diamonds, hearts, spades)",
                chars[1]
            ))
        })?;
        Ok(Card::new(rank, suit))
    }
}

const ALL_BITS: u64 = (1 << 36) - 1;

/// A set of cards, as a bit set over [`Card::index`]. Iterates in index order (clubs 6..A, then
/// diamonds, hearts, spades).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    pub const ALL: CardSet = CardSet(ALL_BITS);

    pub fn bits(self) -> u64 {
        self.0
    }

    pub fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & ALL_BITS)
    }

    pub fn single(card: Card) -> CardSet {
        CardSet(1 << card.0)
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, card: Card) -> bool {
        self.0 >> card.0 & 1 == 1
    }

    pub fn insert(&mut self, card: Card) {
        self.0 |= 1 << card.0;
    }

    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1 << card.0);
    }

    pub fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    pub fn intersect(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    pub fn minus(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    pub fn is_subset(self, other: CardSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The lowest card by index, if any.
    pub fn first(self) -> Option<Card> {
        (self.0 != 0).then(|| Card(self.0.trailing_zeros() as u8))
    }

    /// The `i`-th card in iteration order.
    pub fn nth(self, i: usize) -> Option<Card> {
        self.iter().nth(i)
    }

    pub fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }

    /// The ranks present, as a 9-bit mask (bit `r` for rank `r`).
    pub fn rank_mask(self) -> u16 {
        let b = self.0;
        ((b | b >> 9 | b >> 18 | b >> 27) & 0x1FF) as u16
    }

    /// The cards of this set whose rank is in `rank_mask`.
    pub fn with_ranks(self, rank_mask: u16) -> CardSet {
        let m = rank_mask as u64 & 0x1FF;
        CardSet(self.0 & (m | m << 9 | m << 18 | m << 27))
    }

    /// The cards of this set of one rank.
    pub fn of_rank(self, rank: Rank) -> CardSet {
        self.with_ranks(1 << rank as u16)
    }

    /// The cards of this set of one suit.
    pub fn of_suit(self, suit: Suit) -> CardSet {
        self.intersect(suit.cards())
    }

    /// The largest number of cards of one rank.
    pub fn max_rank_count(self) -> usize {
        let b = self.0;
        let (c, d, h, s) = (b & 0x1FF, b >> 9 & 0x1FF, b >> 18 & 0x1FF, b >> 27 & 0x1FF);
        if c & d & h & s != 0 {
            4
        } else if (c & d & h) | (c & d & s) | (c & h & s) | (d & h & s) != 0 {
            3
        } else if (c & d) | (c & h) | (c & s) | (d & h) | (d & s) | (h & s) != 0 {
            2
        } else if b != 0 {
            1
        } else {
            0
        }
    }

    /// Ranks held at least twice, as a 9-bit mask.
    pub fn paired_ranks(self) -> u16 {
        let b = self.0;
        let (c, d, h, s) = (b & 0x1FF, b >> 9 & 0x1FF, b >> 18 & 0x1FF, b >> 27 & 0x1FF);
        ((c & d) | (c & h) | (c & s) | (d & h) | (d & s) | (h & s)) as u16
    }

    /// P-5: the number of disjoint pairs (sum over ranks of floor(count / 2)).
    pub fn pair_count(self) -> usize {
        Rank::ALL.iter().map(|&r| self.of_rank(r).len() / 2).sum()
    }

    /// Parse a space- or comma-separated list of cards. Duplicates are an error.
    pub fn parse_list(s: &str) -> Result<CardSet, CardParseError> {
        let mut set = CardSet::EMPTY;
        for word in s
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
        {
            let card: Card = word.parse()?;
            if set.contains(card) {
                return Err(CardParseError {
                    input: word.to_string(),
                    reason: "the same card is listed twice; each card exists once (C-1)".into(),
                });
            }
            set.insert(card);
        }
        Ok(set)
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut s = CardSet::EMPTY;
        for c in iter {
            s.insert(c);
        }
        s
    }
}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardSetIter;
    fn into_iter(self) -> CardSetIter {
        self.iter()
    }
}

pub struct CardSetIter(u64);

impl Iterator for CardSetIter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Card(i as u8))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardSetIter {}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for c in self.iter() {
            if !first {
                write!(f, " ")?;
            }
            first = false;
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{self}]")
    }
}

/// A list of ranks for messages: "8, J".
pub fn ranks_text(rank_mask: u16) -> String {
    let v: Vec<String> = Rank::ALL
        .iter()
        .filter(|r| rank_mask >> (**r as u16) & 1 == 1)
        .map(|r| r.letter().to_string())
        .collect();
    v.join(", ")
}
