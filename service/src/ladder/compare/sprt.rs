//! The SPRT of a comparison (or a challenge) over its heads-up games: the games read from the
//! database, their void ones counted apart, the tournaments crate's [`SprtTracker`] fed in job
//! order, and how many games a comparison may still play.

use super::KIND;
use crate::db::{Db, DbError};
use crate::store::{self, GameRow};
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::sprt::{SprtStatus, SprtTracker};
use durak_tournaments::stats::sprt::SprtParams;
use rusqlite::params;

/// The games of the comparison of `version` with `previous`, by job and game.
pub fn games(db: &Db, version: i64, previous: i64) -> Result<Vec<GameRow>, crate::db::DbError> {
    let seats = serde_json::to_string(&[version, previous]).expect("json");
    db.read(|c| {
        let mut s = c.prepare(&format!(
            "SELECT {} FROM games g JOIN jobs j ON j.id = g.job WHERE j.kind = ?1 AND j.seats = \
             ?2 ORDER BY g.job, g.game",
            store::GAME_COLUMNS
        ))?;
        let rows = s.query_map(params![KIND, seats], store::row_to_game)?;
        rows.collect()
    })
}

/// The void games among heads-up games (given up after 3 voided attempts: they count for
/// nobody), and the deals left out of the paired figures because of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Voids {
    pub games: u64,
    pub deals: u64,
}

impl Voids {
    pub fn of(games: &[GameRow]) -> Voids {
        let deals: std::collections::BTreeSet<(i64, u32)> = games
            .iter()
            .filter(|g| g.void)
            .map(|g| (g.job, g.deal))
            .collect();
        Voids {
            games: games.iter().filter(|g| g.void).count() as u64,
            deals: deals.len() as u64,
        }
    }
}

/// Games a comparison may still play: `max_games` bounds the games played, void ones
/// included (issue 23), so a comparison whose games are voided does not play past its nominal
/// length; its note says how many of them were void ([`stopped_at`]).
pub fn games_left(max_games: u32, counted: u64, void: u64) -> u64 {
    (max_games as u64).saturating_sub(counted + void)
}

/// Why an undecided comparison stopped at `max_games`, saying how many of its games were void.
pub fn stopped_at(max_games: u32, void: u64) -> String {
    match void {
        0 => format!("stopped at max_games = {max_games}"),
        n => format!(
            "stopped at max_games = {max_games} games played, {n} of them void (counted for \
             nobody)"
        ),
    }
}

/// A comparison that could not be tested or kept going: the tournaments crate refused the
/// test's parameters (`[compare]`, its message says which), or the database failed. Both are
/// the server's: a page showing one answers 500.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error(transparent)]
    Sprt(#[from] durak_tournaments::Error),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The test over the comparison's games so far, and its void games.
pub fn status(
    db: &Db,
    cfg: &super::CompareConfig,
    version: i64,
    previous: i64,
) -> Result<(SprtStatus, Voids), CompareError> {
    let games = games(db, version, previous)?;
    Ok((
        heads_up(cfg.params, version, previous, &games)?,
        Voids::of(&games),
    ))
}

/// The SPRT of `version` (the challenger) against `other` over their heads-up games, in job
/// order (each job's deals paired over its two rotations); its status also holds the score and
/// the paired Elo interval. A void game counts for nobody (the tournaments crate's
/// `SprtTracker`): not in the games, the score or the Elo, and its deal is left out of the
/// paired figures.
pub fn heads_up(
    params: SprtParams,
    version: i64,
    other: i64,
    games: &[GameRow],
) -> Result<SprtStatus, CompareError> {
    heads_up_every(params, version, other, games, usize::MAX, |_| {})
}

/// As [`heads_up`], calling `at` with the status after every `every` games and after the last
/// (the version page's chart of Elo as games accumulate).
pub fn heads_up_every(
    params: SprtParams,
    version: i64,
    other: i64,
    games: &[GameRow],
    every: usize,
    mut at: impl FnMut(&SprtStatus),
) -> Result<SprtStatus, CompareError> {
    let t = Tournament {
        variant: durak_rules::Variant::Podkidnoy,
        format: Format::Gauntlet,
        table_size: 2,
        games: 1,
        seed: 0,
        challenger: Some(version.to_string()),
        concurrency: None,
        max_consecutive_faults: 0,
        sprt: None,
        bots: [version, other]
            .iter()
            .map(|v| Bot {
                name: v.to_string(),
                command: String::new(),
                cwd: std::path::PathBuf::new(),
                own_cwd: true,
                limits: durak_protocol::Limits::default(),
            })
            .collect(),
    };
    let mut tracker = SprtTracker::new(&t, params)?;
    // A deal is (job, deal): numbered apart across jobs so that their rotations pair.
    let mut jobs: Vec<i64> = Vec::new();
    for (i, g) in games.iter().enumerate() {
        if jobs.last() != Some(&g.job) {
            jobs.push(g.job);
        }
        let mut line = crate::ladder::board::result_line(g, true);
        line.deal = Some((jobs.len() as u32 - 1) * 1000 + g.deal);
        tracker.add(&line);
        if (i + 1) % every.max(1) == 0 && i + 1 < games.len() {
            at(&tracker.status());
        }
    }
    let last = tracker.status();
    if !games.is_empty() {
        at(&last);
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn void_games_count_towards_max_games_and_the_note_says_so() {
        // 8 games counted and 2 void: 10 played, the cap of 10 reached.
        assert_eq!(games_left(10, 8, 2), 0);
        assert_eq!(games_left(10, 8, 0), 2);
        assert_eq!(games_left(10, 9, 3), 0);
        assert_eq!(stopped_at(10, 0), "stopped at max_games = 10");
        assert_eq!(
            stopped_at(10, 2),
            "stopped at max_games = 10 games played, 2 of them void (counted for nobody)"
        );
    }
}
