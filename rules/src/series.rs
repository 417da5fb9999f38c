//! C-10: a series of games at one table.

use crate::deck::{derive_seed, uniform_from_seed};
use crate::game::Game;
use crate::types::{Outcome, Seat, Setup, SetupError, Variant};

const TAG_DEALER: u64 = 0xD0;
const TAG_GAME: u64 = 0x6A;

/// A series of games with the same seats (C-10): the first dealer is drawn from the series seed,
/// the loser deals the next game, and the dealer stays after a draw. Game `i` is shuffled from
/// `derive_seed(seed, 0x6A, i)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    pub variant: Variant,
    pub players: usize,
    pub seed: u64,
    dealer: Seat,
    games: u32,
    losses: Vec<u32>,
    draws: u32,
}

impl Series {
    pub fn new(variant: Variant, players: usize, seed: u64) -> Result<Series, SetupError> {
        variant.check_players(players)?;
        let dealer = uniform_from_seed(derive_seed(seed, TAG_DEALER, 0), players as u32) as Seat;
        Ok(Series {
            variant,
            players,
            seed,
            dealer,
            games: 0,
            losses: vec![0; players],
            draws: 0,
        })
    }

    /// The setup of the next game.
    pub fn next_setup(&self) -> Setup {
        Setup {
            variant: self.variant,
            players: self.players,
            dealer: self.dealer,
            first_game: self.games == 0,
        }
    }

    /// The deck seed of the next game.
    pub fn next_seed(&self) -> u64 {
        derive_seed(self.seed, TAG_GAME, self.games as u64)
    }

    /// Deal the next game.
    pub fn next_game(&self) -> Game {
        Game::new(self.next_setup(), self.next_seed()).expect("series setups are valid")
    }

    /// Record a finished game: its loser deals next; after a draw the dealer stays.
    pub fn record(&mut self, outcome: Outcome) {
        match outcome.loser {
            Some(l) => {
                self.dealer = l;
                self.losses[l] += 1;
            }
            None => self.draws += 1,
        }
        self.games += 1;
    }

    pub fn games_played(&self) -> u32 {
        self.games
    }
    pub fn dealer(&self) -> Seat {
        self.dealer
    }
    pub fn losses(&self) -> &[u32] {
        &self.losses
    }
    pub fn draws(&self) -> u32 {
        self.draws
    }
}
