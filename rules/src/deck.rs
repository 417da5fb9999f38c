//! The seeded shuffle (C-5, I-3) and seed derivation for series (C-10).
//!
//! The algorithm is fixed, documented and independent of any crate's unstable choices, so the
//! same seed gives the same deck on every machine and every build:
//!
//! 1. The ChaCha20 key is the 64-bit seed in little-endian bytes followed by 24 zero bytes;
//!    stream 0, starting at word 0 (`rand_chacha::ChaCha20Rng::from_seed`, whose output stream is
//!    value-stable).
//! 2. Start from the cards in index order (`6C 7C .. AC 6D .. AD 6H .. AH 6S .. AS`).
//! 3. Fisher-Yates: for `i` from 35 down to 1, draw `j` uniform in `0..=i` and swap cards `i` and
//!    `j`. A uniform draw below `b` takes 32-bit words `x` until `x >= (2^32 mod b)`, then uses
//!    `x mod b` (no bias).

use crate::card::{Card, CardSet};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use std::fmt;

/// A whole deck in order: card 0 is dealt first.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Deck([Card; 36]);

fn chacha(seed: u64) -> ChaCha20Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    ChaCha20Rng::from_seed(key)
}

fn uniform_below(rng: &mut ChaCha20Rng, bound: u32) -> u32 {
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let x = rng.next_u32();
        if x >= threshold {
            return x % bound;
        }
    }
}

impl Deck {
    /// The deck shuffled from `seed` (C-5): see the module docs for the exact algorithm.
    pub fn shuffled(seed: u64) -> Deck {
        let mut cards: [Card; 36] = std::array::from_fn(|i| Card::from_index(i as u8).unwrap());
        let mut rng = chacha(seed);
        for i in (1..36).rev() {
            let j = uniform_below(&mut rng, i as u32 + 1) as usize;
            cards.swap(i, j);
        }
        Deck(cards)
    }

    /// A deck in a given order; every card must appear exactly once.
    pub fn from_cards(cards: &[Card]) -> Result<Deck, DeckError> {
        if cards.len() != 36 {
            return Err(DeckError::Size(cards.len()));
        }
        let mut seen = CardSet::EMPTY;
        for &c in cards {
            if seen.contains(c) {
                return Err(DeckError::Twice(c));
            }
            seen.insert(c);
        }
        let mut arr = [cards[0]; 36];
        arr.copy_from_slice(cards);
        Ok(Deck(arr))
    }

    pub fn cards(&self) -> &[Card; 36] {
        &self.0
    }
}

impl fmt::Display for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Deck({self})")
    }
}

/// SplitMix64's output function: a fixed, well-known 64-bit mixer.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derive an independent seed from `seed` for purpose `tag` and index `i` (deterministic,
/// documented: `splitmix64(splitmix64(seed ^ splitmix64(tag)) ^ i)`).
pub fn derive_seed(seed: u64, tag: u64, i: u64) -> u64 {
    splitmix64(splitmix64(seed ^ splitmix64(tag)) ^ i)
}

/// A uniform number below `bound` from a seed (used to pick the first dealer of a series, C-10).
pub fn uniform_from_seed(seed: u64, bound: u32) -> u32 {
    uniform_below(&mut chacha(seed), bound)
}

/// Cards that are not a deck (C-1): not 36, or one of them twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    /// A deck has 36 cards; this many were given.
    #[error("C-1: a deck has 36 cards, this one has {0}")]
    Size(usize),
    /// This card appears more than once.
    #[error("C-1: {0} appears twice in the deck")]
    Twice(Card),
}
