//! The schedule: which bots sit where, and which deck each game is dealt from — all derived from
//! the tournament seed with [`derive_seed`], so the same seed gives the same schedule and the
//! same deals.
//!
//! - Tables: every k-combination of bots (in the order of the configuration; gauntlet: only those
//!   with the challenger), and for each every seat rotation: rotation `r` seats bot
//!   `combination[(s + r) mod k]` at seat `s`. Table ids count from 0 in that order.
//! - Games: each table plays `games` games, index `0..games` (the index bots see in
//!   `game_start`). A game's id is its position in the whole schedule (tables in order).
//! - Decks: duplicate and gauntlet: game `i` of every table is deal `i`, dealt from
//!   `derive_seed(seed, TAG_DEAL, i)` by the dealer `uniform(derive_seed(seed, TAG_DEALER, i), k)`
//!   — so across the rotations of a combination every bot holds every hand. Round-robin: game
//!   `id` is dealt from `derive_seed(seed, TAG_GAME, id)` by `uniform(derive_seed(seed,
//!   TAG_DEALER, id), k)`. In both every game stands alone (`first_game`: K-2's lowest trump
//!   leads). Series: the table's series seed is `derive_seed(seed, TAG_SERIES, table)`; its games
//!   follow [`Series`] (C-10): first dealer from the series seed, the loser deals next.

use crate::config::{Format, Tournament};
use durak_referee::PlannedGame;
use durak_rules::deck::{derive_seed, uniform_from_seed};
use durak_rules::{Outcome, Seat, Series};
use serde::{Deserialize, Serialize};

pub const TAG_DEAL: u64 = 0x70_0001;
pub const TAG_DEALER: u64 = 0x70_0002;
pub const TAG_GAME: u64 = 0x70_0003;
pub const TAG_SERIES: u64 = 0x70_0004;
pub const TAG_TABLE: u64 = 0x70_0005;

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// Stable id: the game's position in the whole schedule.
    pub id: u64,
    pub table: u32,
    /// Index at its table, from 0 (what bots see in `game_start`).
    pub index: u32,
    /// Duplicate deal number (duplicate and gauntlet).
    pub deal: Option<u32>,
    /// Deck seed.
    pub seed: u64,
    /// The dealer; `None` in a series after its first game: the previous loser deals (C-10).
    pub dealer: Option<Seat>,
    pub first_game: bool,
}

/// One table: a seating of bots playing its games in order, with its own bot processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub id: u32,
    /// Bot index (in the configuration) at each seat.
    pub bots: Vec<usize>,
    /// The seed given to the referee's series (series format: it fixes the first dealer).
    pub series_seed: u64,
    pub games: Vec<ScheduledGame>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub format: Format,
    pub tables: Vec<Table>,
}

/// All k-combinations of `0..n` in lexicographic order.
pub fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k == 0 || k > n {
        return out;
    }
    let mut c: Vec<usize> = (0..k).collect();
    loop {
        out.push(c.clone());
        let mut i = k;
        while i > 0 && c[i - 1] == n - k + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return out;
        }
        c[i - 1] += 1;
        for j in i..k {
            c[j] = c[j - 1] + 1;
        }
    }
}

impl Schedule {
    pub fn build(t: &Tournament) -> Schedule {
        let k = t.table_size;
        let challenger = t.challenger.as_deref().and_then(|c| t.bot_index(c));
        let combos: Vec<Vec<usize>> = combinations(t.bots.len(), k)
            .into_iter()
            .filter(|c| t.format != Format::Gauntlet || challenger.is_some_and(|x| c.contains(&x)))
            .collect();
        let mut tables = Vec::new();
        let mut next_id: u64 = 0;
        for combo in &combos {
            for r in 0..k {
                let id = tables.len() as u32;
                let bots: Vec<usize> = (0..k).map(|s| combo[(s + r) % k]).collect();
                let series_seed = derive_seed(t.seed, TAG_SERIES, id as u64);
                let games = match t.format {
                    Format::Duplicate | Format::Gauntlet => (0..t.games)
                        .map(|i| ScheduledGame {
                            id: next_id + i as u64,
                            table: id,
                            index: i,
                            deal: Some(i),
                            seed: derive_seed(t.seed, TAG_DEAL, i as u64),
                            dealer: Some(dealer(t.seed, i as u64, k)),
                            first_game: true,
                        })
                        .collect(),
                    Format::RoundRobin => (0..t.games)
                        .map(|i| {
                            let gid = next_id + i as u64;
                            ScheduledGame {
                                id: gid,
                                table: id,
                                index: i,
                                deal: None,
                                seed: derive_seed(t.seed, TAG_GAME, gid),
                                dealer: Some(dealer(t.seed ^ TAG_TABLE, gid, k)),
                                first_game: true,
                            }
                        })
                        .collect(),
                    Format::Series => {
                        let mut series =
                            Series::new(t.variant, k, series_seed).expect("checked table size");
                        let first_dealer = series.dealer();
                        (0..t.games)
                            .map(|i| {
                                let g = ScheduledGame {
                                    id: next_id + i as u64,
                                    table: id,
                                    index: i,
                                    deal: None,
                                    seed: series.next_seed(),
                                    dealer: (i == 0).then_some(first_dealer),
                                    first_game: i == 0,
                                };
                                // The deck seeds do not depend on outcomes: step with a draw.
                                series.record(Outcome { loser: None });
                                g
                            })
                            .collect()
                    }
                };
                next_id += t.games as u64;
                tables.push(Table {
                    id,
                    bots,
                    series_seed,
                    games,
                });
            }
        }
        Schedule {
            format: t.format,
            tables,
        }
    }

    pub fn total_games(&self) -> usize {
        self.tables.iter().map(|t| t.games.len()).sum()
    }

    /// The game with this id.
    pub fn game(&self, id: u64) -> Option<(&Table, &ScheduledGame)> {
        // Tables hold consecutive ids.
        let t = self
            .tables
            .iter()
            .find(|t| match (t.games.first(), t.games.last()) {
                (Some(a), Some(b)) => a.id <= id && id <= b.id,
                _ => false,
            })?;
        let g = t.games.iter().find(|g| g.id == id)?;
        Some((t, g))
    }
}

fn dealer(seed: u64, i: u64, k: usize) -> Seat {
    uniform_from_seed(derive_seed(seed, TAG_DEALER, i), k as u32) as Seat
}

impl Table {
    /// The games still to play, given the outcomes (loser seat or draw) of the games already
    /// played at this table, by index. In a series the played games must be the first ones, and
    /// the first remaining game gets the dealer the series gives (C-10).
    pub fn plan(
        &self,
        played: &std::collections::BTreeMap<u32, Option<Seat>>,
        variant: durak_rules::Variant,
    ) -> Result<Vec<PlannedGame>, String> {
        let remaining: Vec<&ScheduledGame> = self
            .games
            .iter()
            .filter(|g| !played.contains_key(&g.index))
            .collect();
        let series = self.games.iter().skip(1).any(|g| g.dealer.is_none());
        let mut plan: Vec<PlannedGame> = remaining
            .iter()
            .map(|g| PlannedGame {
                index: g.index,
                seed: g.seed,
                dealer: g.dealer,
                first_game: g.first_game,
            })
            .collect();
        if series {
            if let Some(first) = plan.first_mut() {
                let j = first.index;
                if played.keys().copied().ne(0..j) {
                    return Err(format!(
                        "table {}: the results hold games {:?} of a series but not all the games \
                         before game {j}",
                        self.id,
                        played.keys().collect::<Vec<_>>()
                    ));
                }
                let mut s = Series::new(variant, self.bots.len(), self.series_seed)
                    .map_err(|e| e.to_string())?;
                for loser in played.values() {
                    s.record(Outcome { loser: *loser });
                }
                first.dealer = Some(s.dealer());
            }
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Bot, Tournament};
    use durak_protocol::Limits;
    use durak_rules::Variant;
    use std::collections::BTreeMap;

    fn tournament(n: usize, k: usize, format: Format, games: u32) -> Tournament {
        Tournament {
            variant: Variant::Podkidnoy,
            format,
            table_size: k,
            games,
            seed: 99,
            challenger: (format == Format::Gauntlet).then(|| "b1".to_string()),
            concurrency: None,
            max_consecutive_faults: 3,
            bots: (0..n)
                .map(|i| Bot {
                    name: format!("b{i}"),
                    command: "builtin:random".into(),
                    cwd: "/".into(),
                    limits: Limits::default(),
                })
                .collect(),
        }
    }

    #[test]
    fn combinations_are_complete() {
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(5, 3).len(), 10);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(4, 2)[5], vec![2, 3]);
    }

    #[test]
    fn duplicate_every_bot_holds_every_hand_of_every_deal() {
        let t = tournament(4, 3, Format::Duplicate, 5);
        let s = Schedule::build(&t);
        assert_eq!(s.tables.len(), 4 * 3);
        assert_eq!(s.total_games(), 4 * 3 * 5);
        for combo in s.tables.chunks(3) {
            for deal in 0..5u32 {
                let games: Vec<_> = combo.iter().map(|t| t.games[deal as usize]).collect();
                // The same deck and dealer at every rotation...
                assert!(games.iter().all(|g| g.seed == games[0].seed
                    && g.dealer == games[0].dealer
                    && g.deal == Some(deal)));
                // ...and each bot of the combination in each seat once.
                for seat in 0..3 {
                    let mut at: Vec<usize> = combo.iter().map(|t| t.bots[seat]).collect();
                    at.sort();
                    let mut members = combo[0].bots.clone();
                    members.sort();
                    assert_eq!(at, members);
                }
            }
        }
        // Ids are the positions in the schedule.
        let ids: Vec<u64> = s
            .tables
            .iter()
            .flat_map(|t| t.games.iter().map(|g| g.id))
            .collect();
        assert_eq!(ids, (0..60).collect::<Vec<_>>());
        assert_eq!(s.game(17).unwrap().1.id, 17);
        // Deals differ from each other.
        assert_ne!(s.tables[0].games[0].seed, s.tables[0].games[1].seed);
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule() {
        for f in Format::ALL {
            let t = tournament(3, 2, f, 4);
            assert_eq!(Schedule::build(&t), Schedule::build(&t));
            let mut u = t.clone();
            u.seed = 100;
            assert_ne!(Schedule::build(&t), Schedule::build(&u));
        }
    }

    #[test]
    fn gauntlet_only_meets_the_challenger() {
        let s = Schedule::build(&tournament(4, 2, Format::Gauntlet, 2));
        assert_eq!(s.tables.len(), 3 * 2);
        assert!(s.tables.iter().all(|t| t.bots.contains(&1)));
    }

    #[test]
    fn round_robin_deals_are_independent() {
        let s = Schedule::build(&tournament(2, 2, Format::RoundRobin, 3));
        assert_ne!(s.tables[0].games[0].seed, s.tables[1].games[0].seed);
    }

    #[test]
    fn series_follows_c10_and_resumes_with_the_right_dealer() {
        let t = tournament(2, 2, Format::Series, 4);
        let s = Schedule::build(&t);
        let table = &s.tables[0];
        let series = Series::new(Variant::Podkidnoy, 2, table.series_seed).unwrap();
        assert_eq!(table.games[0].dealer, Some(series.dealer()));
        assert_eq!(table.games[0].seed, series.next_seed());
        assert!(table.games[1..]
            .iter()
            .all(|g| g.dealer.is_none() && !g.first_game));
        // After games 0 (seat 1 lost) and 1 (a draw), game 2 is dealt by seat 1.
        let played = BTreeMap::from([(0, Some(1)), (1, None)]);
        let plan = table.plan(&played, Variant::Podkidnoy).unwrap();
        assert_eq!(plan.len(), 2);
        assert_eq!((plan[0].index, plan[0].dealer), (2, Some(1)));
        assert_eq!(plan[1].dealer, None);
        let gap = BTreeMap::from([(1, Some(1))]);
        assert!(table.plan(&gap, Variant::Podkidnoy).is_err());
    }
}
