//! Shards: one tournament played on many machines (`durak tournament --shard I/N`), then put
//! together by `durak merge` ([`crate::merge`]).
//!
//! The schedule is a pure function of the tournament seed, so each machine computes it whole and
//! plays only the games of its shard. The split is by *unit*, dealt round robin over the shards
//! (`unit mod N`, shards numbered from 1):
//!
//! - duplicate and gauntlet: a unit is one deal of one combination of bots, at every seat
//!   rotation (unit `combination × games + deal`): a duplicate deal set stays together, so every
//!   bot of the combination holds every hand of it on one machine (the paired interval of the
//!   standings needs the whole set, whichever machine played it);
//! - round-robin: the same units (independent deals, the same split);
//! - series (C-10): a unit is a whole table — its games follow each other (the loser deals
//!   next), so a series is never split.
//!
//! A shard's games are those of its units; every game is in exactly one shard. A shard's table
//! plays its games of the shard in index order (the index bots see in `game_start` is the
//! schedule's, so deterministic bots play what they would have played on one machine).

use crate::error::Error;
use crate::schedule::{Schedule, Table};

/// Shard `index` of `count` (`I/N`, from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;

    /// `I/N` with `1 ≤ I ≤ N`.
    fn from_str(s: &str) -> Result<Shard, Error> {
        let bad = || {
            config_error!(
                "{s:?} is not a shard: write I/N, the shard I (from 1) of N, e.g. 2/8 (a Slurm \
                 array task: $((SLURM_ARRAY_TASK_ID + 1))/N)"
            )
        };
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(config_error!(
                "{s:?}: shards are numbered 1 to N (here {index} of {count})"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The unit of game `index` of `table` (see the module documentation).
    pub fn unit(table: &Table, index: u32) -> u64 {
        if table.is_series() {
            return table.id as u64;
        }
        // Tables are the k rotations of each combination in turn.
        let combination = (table.id as usize / table.bots.len().max(1)) as u64;
        combination * table.games as u64 + index as u64
    }

    /// Whether game `index` of `table` is one of this shard's.
    pub fn holds(&self, table: &Table, index: u32) -> bool {
        Shard::unit(table, index) % self.count as u64 == (self.index - 1) as u64
    }

    /// The shard a game belongs to, among `count`.
    pub fn of(table: &Table, index: u32, count: u32) -> Shard {
        Shard {
            index: (Shard::unit(table, index) % count as u64) as u32 + 1,
            count,
        }
    }

    /// Games of the schedule in this shard (computed, not stored).
    pub fn games(&self, schedule: &Schedule) -> usize {
        schedule
            .tables
            .iter()
            .map(|t| (0..t.games).filter(|&i| self.holds(t, i)).count())
            .sum()
    }
}

/// The games of a run: every game, or one shard's.
pub fn games_of(schedule: &Schedule, shard: Option<Shard>) -> usize {
    match shard {
        Some(s) => s.games(schedule),
        None => schedule.total_games(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Bot, Format, Tournament};
    use durak_protocol::Limits;
    use durak_rules::Variant;

    fn tournament(n: usize, k: usize, format: Format, games: u32) -> Tournament {
        Tournament {
            variant: Variant::Podkidnoy,
            format,
            table_size: k,
            games,
            seed: 7,
            challenger: (format == Format::Gauntlet).then(|| "b0".to_string()),
            concurrency: None,
            max_consecutive_faults: 3,
            sprt: None,
            bots: (0..n)
                .map(|i| Bot {
                    name: format!("b{i}"),
                    command: "builtin:random".into(),
                    cwd: "/".into(),
                    own_cwd: true,
                    limits: Limits::default(),
                })
                .collect(),
        }
    }

    #[test]
    fn shards_parse_as_i_of_n_from_one() {
        let s: Shard = "2/8".parse().unwrap();
        assert_eq!((s.index, s.count), (2, 8));
        assert_eq!(s.to_string(), "2/8");
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", ""] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains("shard") || e.contains("1 to N"), "{bad}: {e}");
        }
    }

    /// Every game is in exactly one shard; a duplicate deal set (every rotation of one deal of
    /// a combination) is in one shard; a series table is in one shard whole; and the shards
    /// split the work about evenly.
    #[test]
    fn every_game_is_in_one_shard_and_deal_sets_and_series_stay_together() {
        for format in Format::ALL {
            for (n, k) in [(3, 2), (4, 3), (2, 2)] {
                let s = Schedule::build(&tournament(n, k, format, 7));
                for count in [1u32, 2, 3, 5] {
                    let shards: Vec<Shard> =
                        (1..=count).map(|index| Shard { index, count }).collect();
                    for t in &s.tables {
                        for i in 0..t.games {
                            let holders: Vec<&Shard> =
                                shards.iter().filter(|sh| sh.holds(t, i)).collect();
                            assert_eq!(holders.len(), 1, "{format:?} table {} game {i}", t.id);
                            assert_eq!(*holders[0], Shard::of(t, i, count));
                            if format == Format::Series {
                                assert!(holders[0].holds(t, 0), "a series is never split");
                            } else {
                                // Every rotation of this combination holds this deal here too.
                                let first = t.id as usize / k * k;
                                for r in &s.tables[first..first + k] {
                                    assert!(holders[0].holds(r, i), "deal set split");
                                }
                            }
                        }
                    }
                    let sizes: Vec<usize> = shards.iter().map(|sh| sh.games(&s)).collect();
                    assert_eq!(sizes.iter().sum::<usize>(), s.total_games());
                    if format != Format::Series {
                        // Units (k games each) are dealt round robin: at most one apart.
                        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                        assert!(hi - lo <= k, "{sizes:?}");
                    }
                }
            }
        }
        let s = Schedule::build(&tournament(3, 2, Format::Duplicate, 4));
        assert_eq!(games_of(&s, None), 24);
        assert_eq!(games_of(&s, Some("1/1".parse().unwrap())), 24);
    }
}
