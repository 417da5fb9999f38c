//! "Is my new version better?" (issue 25). When a version passes its check and its bot has a
//! version in the ladder, the new one plays the previous one heads-up (two seats, whatever the
//! ladder's table size) on paired deals — every deal at both seat rotations — in jobs of kind
//! `compare`, under the SPRT that `durak tournament --sprt` runs (the tournaments crate's
//! `SprtTracker`: the new version is the challenger, `H0: elo0` against `H1: elo1` Elo above
//! the previous one, Wald's bounds). Its games are unrated: they never count on the
//! leaderboard.
//!
//! The verdict: `better` when the test accepts H1; when it accepts H0, `worse` if the 95 %
//! Elo interval (paired by deal) lies below 0 (or it lost every game), else `equal`; `undecided` while it runs, and
//! when it stopped at `[compare] max_games` (or a version left) without a decision. The
//! scheduler calls [`tick`]: it keeps one job open per running comparison, and once the test
//! stops it cancels what is left and writes the final status down (`comparisons.result`).
//!
//! With `[compare] require_not_worse = true` a passing version waits in state `comparing`
//! (its previous version plays on in the ladder) and enters only when the verdict is not
//! `worse`; a `worse` one fails with the figures as its reason.
//!
//! Its parts: `config.rs` (`[compare]`), `sprt.rs` (the test over the heads-up games),
//! `view.rs` (the verdict and the comparison as pages and the API show it), `schedule.rs`
//! (starting a comparison, and the scheduler's [`tick`] that keeps its jobs going).

mod config;
mod schedule;
mod sprt;
mod view;

pub use config::{resolve, CompareConfig, CompareSection};
pub use schedule::{begin, previous_of, tick};
pub use sprt::{
    games, games_left, heads_up, heads_up_every, status, stopped_at, CompareError, Voids,
};
pub use view::{verdict_of, view, Comparison, Verdict};

use crate::domain::VersionState;

/// The jobs' kind.
pub const KIND: &str = "compare";

/// Whether a version in `state` may sit at a job of `kind`: the ladder's jobs take versions
/// in the ladder only; a comparison also its previous (retired) version and a new one waiting
/// for its verdict.
pub fn may_play(kind: &str, state: VersionState) -> bool {
    use VersionState::*;
    match kind {
        KIND => matches!(state, Active | Retired | Comparing),
        _ => state == Active,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::GameRow;

    /// A heads-up game of job 5 between versions 1 and 2 on `deal` at `rotation`.
    pub(crate) fn row(deal: u32, rotation: u32, loser: Option<usize>, void: bool) -> GameRow {
        GameRow {
            job: 5,
            game: 2 * deal + rotation,
            rotation,
            deal,
            seats: if rotation == 0 {
                vec![1, 2]
            } else {
                vec![2, 1]
            },
            seed: 9,
            dealer: 0,
            loser,
            draw: false,
            faults: Vec::new(),
            moves: 10,
            duration_ms: 3,
            move_limit: None,
            replay: String::new(),
            recorded: 0,
            voided: if void {
                vec!["starved".into(); 3]
            } else {
                Vec::new()
            },
            void,
        }
    }

    /// Version 1 wins every game of 4 deals but deal 2's second, given up as void: 7 games, 3
    /// whole deals, a score of 1 (the void game is no draw), and the JSON and the line say so.
    pub(crate) fn four_deals_one_void() -> Vec<GameRow> {
        let mut games = Vec::new();
        for d in 0..4 {
            games.push(row(d, 0, Some(1), false));
            let void = d == 2;
            games.push(row(d, 1, (!void).then_some(0), void));
        }
        games
    }

    #[test]
    fn only_a_comparison_seats_versions_out_of_the_ladder() {
        assert!(may_play("ladder", VersionState::Active));
        assert!(!may_play("ladder", VersionState::Retired));
        assert!(!may_play("ladder", VersionState::Comparing));
        assert!(may_play(KIND, VersionState::Retired) && may_play(KIND, VersionState::Comparing));
        assert!(!may_play(KIND, VersionState::Suspended) && !may_play(KIND, VersionState::Removed));
    }
}
