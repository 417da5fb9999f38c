//! The schedule: which bots sit where, and which deck each game is dealt from — all derived from
//! the tournament seed with [`derive_seed`], so the same seed gives the same schedule and the
//! same deals.
//!
//! - Tables: every k-combination of bots (in the order of the configuration; gauntlet: only those
//!   with the challenger), and for each every seat rotation: rotation `r` seats bot
//!   `combination[(s + r) mod k]` at seat `s`. Table ids count from 0 in that order.
//! - Games: each table plays `games` games, index `0..games` (the index bots see in
//!   `game_start`). A game's id is its position in the whole schedule: tables in order, each
//!   table's games in order (`table · games + index`). **Deal-major** (a gauntlet with the SPRT):
//!   deals in order, each deal at every table in order (`index · tables + table`), so that the
//!   seat rotations of a deal come one after the other and the test sees whole deals early.
//! - Decks: duplicate and gauntlet: game `i` of every table is deal `i`, dealt from
//!   `derive_seed(seed, TAG_DEAL, i)` by the dealer `uniform(derive_seed(seed, TAG_DEALER, i), k)`
//!   — so across the rotations of a combination every bot holds every hand. Round-robin: game
//!   `id` is dealt from `derive_seed(seed, TAG_GAME, id)` by `uniform(derive_seed(seed,
//!   TAG_DEALER, id), k)`. In both every game stands alone (`first_game`: K-2's lowest trump
//!   leads). Series: the table's series seed is `derive_seed(seed, TAG_SERIES, table)`; its games
//!   follow [`Series`] (C-10): first dealer from the series seed, the loser deals next.

use crate::config::{Format, Tournament};
use crate::error::Error;
use durak_referee::PlannedGame;
use durak_rules::deck::{derive_seed, uniform_from_seed};
use durak_rules::{Seat, Series};
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

/// One table: a seating of bots playing its games in order, with its own bot processes. Its
/// games are computed on demand ([`Table::game`]): a schedule of a million games takes no more
/// memory than one of ten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub id: u32,
    /// Bot index (in the configuration) at each seat.
    pub bots: Vec<usize>,
    /// The seed given to the referee's series (series format: it fixes the first dealer).
    pub series_seed: u64,
    /// The id of its game 0; its game `i` has the id `first_id + i · stride` ([`Table::id_of`]).
    pub first_id: u64,
    /// 1, or the number of tables in a deal-major schedule.
    pub stride: u64,
    /// Games at this table.
    pub games: u32,
    format: Format,
    variant: durak_rules::Variant,
    seed: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub format: Format,
    pub tables: Vec<Table>,
    /// Games per table (every table has as many).
    pub games_per_table: u32,
    /// Ids go deal by deal (see the module documentation).
    pub deal_major: bool,
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

/// The tag [`Series`] derives game `i`'s deck seed with: `derive_seed(series_seed, 0x6A, i)`
/// (C-10; pinned by a test against `Series` itself).
const SERIES_TAG_GAME: u64 = 0x6A;

impl Schedule {
    pub fn build(t: &Tournament) -> Schedule {
        let k = t.table_size;
        let challenger = t.challenger.as_deref().and_then(|c| t.bot_index(c));
        let combos: Vec<Vec<usize>> = combinations(t.bots.len(), k)
            .into_iter()
            .filter(|c| t.format != Format::Gauntlet || challenger.is_some_and(|x| c.contains(&x)))
            .collect();
        let deal_major = t.sprt.is_some();
        let stride = if deal_major {
            (combos.len() * k) as u64
        } else {
            1
        };
        let mut tables = Vec::new();
        for combo in &combos {
            for r in 0..k {
                let id = tables.len() as u32;
                tables.push(Table {
                    id,
                    bots: (0..k).map(|s| combo[(s + r) % k]).collect(),
                    series_seed: derive_seed(t.seed, TAG_SERIES, id as u64),
                    first_id: if deal_major {
                        id as u64
                    } else {
                        id as u64 * t.games as u64
                    },
                    stride,
                    games: t.games,
                    format: t.format,
                    variant: t.variant,
                    seed: t.seed,
                });
            }
        }
        Schedule {
            format: t.format,
            tables,
            games_per_table: t.games,
            deal_major,
        }
    }

    pub fn total_games(&self) -> usize {
        self.tables.len() * self.games_per_table as usize
    }

    /// The game with this id.
    pub fn game(&self, id: u64) -> Option<(&Table, ScheduledGame)> {
        if self.deal_major {
            // Each deal holds one id per table.
            let n = self.tables.len().max(1) as u64;
            let table = self.tables.get((id % n) as usize)?;
            return Some((table, table.game(u32::try_from(id / n).ok()?)?));
        }
        // Tables hold consecutive ids, as many each.
        let per = self.games_per_table.max(1) as u64;
        let table = self.tables.get(usize::try_from(id / per).ok()?)?;
        Some((table, table.game((id % per) as u32)?))
    }
}

fn dealer(seed: u64, i: u64, k: usize) -> Seat {
    uniform_from_seed(derive_seed(seed, TAG_DEALER, i), k as u32) as Seat
}

impl Table {
    /// The id of game `index` of this table.
    pub fn id_of(&self, index: u32) -> u64 {
        self.first_id + index as u64 * self.stride
    }

    /// Game `index` of this table (`None` past its last game).
    pub fn game(&self, index: u32) -> Option<ScheduledGame> {
        if index >= self.games {
            return None;
        }
        let k = self.bots.len();
        let id = self.id_of(index);
        let i = index as u64;
        let (deal, seed, dealer, first_game) = match self.format {
            Format::Duplicate | Format::Gauntlet => (
                Some(index),
                derive_seed(self.seed, TAG_DEAL, i),
                Some(dealer(self.seed, i, k)),
                true,
            ),
            Format::RoundRobin => (
                None,
                derive_seed(self.seed, TAG_GAME, id),
                Some(dealer(self.seed ^ TAG_TABLE, id, k)),
                true,
            ),
            Format::Series => {
                // The deck seeds do not depend on outcomes; the first dealer is the series'.
                let first = (index == 0).then(|| {
                    Series::new(self.variant, k, self.series_seed)
                        .map(|s| s.dealer())
                        .unwrap_or(0)
                });
                (
                    None,
                    derive_seed(self.series_seed, SERIES_TAG_GAME, i),
                    first,
                    index == 0,
                )
            }
        };
        Some(ScheduledGame {
            id,
            table: self.id,
            index,
            deal,
            seed,
            dealer,
            first_game,
        })
    }

    /// Every game of this table, in order.
    pub fn all_games(&self) -> impl Iterator<Item = ScheduledGame> + '_ {
        (0..self.games).filter_map(|i| self.game(i))
    }

    /// Whether this table plays a series (C-10): the dealer of a game after the first follows
    /// the previous outcome.
    pub fn is_series(&self) -> bool {
        self.format == Format::Series
    }

    /// The games still to play, computed one at a time: those whose index `played` says are
    /// not played, in order. In a series the played games must be the first ones
    /// (`series` is the series after them: [`SeriesProgress`]), and the first remaining game
    /// gets the dealer the series gives (C-10).
    pub fn plan<'a>(
        &'a self,
        played: impl Fn(u32) -> bool + 'a,
        series: Option<&SeriesProgress>,
    ) -> Result<impl Iterator<Item = PlannedGame> + 'a, Error> {
        let mut first_dealer = None;
        if self.is_series() {
            let progress = series.cloned().unwrap_or_else(|| SeriesProgress::new(self));
            let j = progress.played;
            if (0..j).any(|i| !played(i)) || (j..self.games).any(&played) {
                return Err(record_error!(
                    "table {}: the results hold games of a series but not all the games before \
                     game {j}",
                    self.id
                ));
            }
            first_dealer = Some(progress.dealer);
        }
        let mut first = true;
        Ok((0..self.games)
            .filter(move |&i| !played(i))
            .filter_map(move |i| {
                let g = self.game(i)?;
                let mut p = PlannedGame {
                    index: g.index,
                    seed: g.seed,
                    dealer: g.dealer,
                    first_game: g.first_game,
                };
                if std::mem::take(&mut first) {
                    if let Some(d) = first_dealer {
                        p.dealer = Some(d);
                    }
                }
                Some(p)
            }))
    }
}

/// A series table's progress (C-10): games recorded, in index order from 0, and the dealer of
/// the next one (the last loser; unchanged by a draw). What resuming a series needs of its
/// recorded games, in a few bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesProgress {
    pub played: u32,
    pub dealer: Seat,
}

impl SeriesProgress {
    pub fn new(table: &Table) -> SeriesProgress {
        let first = table.game(0).and_then(|g| g.dealer).unwrap_or(0);
        SeriesProgress {
            played: 0,
            dealer: first,
        }
    }

    /// Take the next game's outcome; `Err` when `index` is not the next game (a gap).
    pub fn record(&mut self, index: u32, loser: Option<Seat>) -> Result<(), Error> {
        if index != self.played {
            return Err(record_error!(
                "game {index} of a series is recorded before game {}",
                self.played
            ));
        }
        if let Some(l) = loser {
            self.dealer = l;
        }
        self.played += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Bot, Tournament};
    use durak_protocol::Limits;
    use durak_rules::{Outcome, Variant};

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

    fn games(t: &Table) -> Vec<ScheduledGame> {
        t.all_games().collect()
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
                let games: Vec<_> = combo.iter().map(|t| t.game(deal).unwrap()).collect();
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
            .flat_map(|t| games(t).into_iter().map(|g| g.id))
            .collect();
        assert_eq!(ids, (0..60).collect::<Vec<_>>());
        for id in 0..60 {
            let (table, g) = s.game(id).unwrap();
            assert_eq!((g.id, g.table, table.id), (id, table.id, (id / 5) as u32));
        }
        assert!(s.game(60).is_none());
        assert!(s.tables[0].game(5).is_none());
        // Deals differ from each other.
        assert_ne!(
            s.tables[0].game(0).unwrap().seed,
            s.tables[0].game(1).unwrap().seed
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule() {
        for f in Format::ALL {
            let t = tournament(3, 2, f, 4);
            let all = |t: &Tournament| -> Vec<ScheduledGame> {
                Schedule::build(t).tables.iter().flat_map(games).collect()
            };
            assert_eq!(all(&t), all(&t));
            let mut u = t.clone();
            u.seed = 100;
            assert_ne!(all(&t), all(&u));
        }
    }

    /// The games computed on demand are those of the schedule as it was built before (every
    /// game materialised): pinned here so that recorded tournaments resume.
    #[test]
    fn games_on_demand_are_the_pinned_ones() {
        let t = tournament(3, 2, Format::RoundRobin, 3);
        let s = Schedule::build(&t);
        let g = s.game(4).unwrap().1;
        assert_eq!(g.seed, derive_seed(99, TAG_GAME, 4));
        assert_eq!(g.dealer, Some(dealer(99 ^ TAG_TABLE, 4, 2)));
        let t = tournament(3, 2, Format::Duplicate, 3);
        let g = Schedule::build(&t).game(4).unwrap().1;
        assert_eq!((g.deal, g.seed), (Some(1), derive_seed(99, TAG_DEAL, 1)));
    }

    /// With the SPRT the ids go deal by deal: the ids of deal `d` are `d·T .. d·T + T` over the
    /// `T` tables, `game(id)` inverts `id_of`, and the decks are those of the table-major
    /// gauntlet (only the ids change).
    #[test]
    fn sprt_gauntlets_are_deal_major() {
        let mut t = tournament(3, 2, Format::Gauntlet, 4);
        let plain = Schedule::build(&t);
        t.sprt = Some(crate::stats::sprt::SprtParams::new(0.0, 10.0, 0.05, 0.05).unwrap());
        let s = Schedule::build(&t);
        assert!(s.deal_major && !plain.deal_major);
        let n = s.tables.len() as u64;
        assert_eq!(n, 4);
        let mut seen = Vec::new();
        for id in 0..s.total_games() as u64 {
            let (table, g) = s.game(id).unwrap();
            assert_eq!((table.id as u64, g.index as u64), (id % n, id / n));
            assert_eq!(table.id_of(g.index), id);
            assert_eq!(g.deal, Some((id / n) as u32));
            let same = plain.tables[table.id as usize].game(g.index).unwrap();
            assert_eq!((g.seed, g.dealer), (same.seed, same.dealer));
            seen.push(id);
        }
        assert!(s.game(s.total_games() as u64).is_none());
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
        assert_ne!(
            s.tables[0].game(0).unwrap().seed,
            s.tables[1].game(0).unwrap().seed
        );
    }

    #[test]
    fn series_follows_c10_and_resumes_with_the_right_dealer() {
        let t = tournament(2, 2, Format::Series, 4);
        let s = Schedule::build(&t);
        let table = &s.tables[0];
        // Every deck is the one the referee's own series deals (C-10).
        let mut series = Series::new(Variant::Podkidnoy, 2, table.series_seed).unwrap();
        let first = table.game(0).unwrap();
        assert_eq!(first.dealer, Some(series.dealer()));
        for g in games(table) {
            assert_eq!(g.seed, series.next_seed(), "game {}", g.index);
            assert_eq!(g.first_game, g.index == 0);
            assert_eq!(g.dealer.is_some(), g.index == 0);
            series.record(Outcome { loser: Some(1) });
        }
        // After games 0 (seat 1 lost) and 1 (a draw), game 2 is dealt by seat 1.
        let mut progress = SeriesProgress::new(table);
        progress.record(0, Some(1)).unwrap();
        progress.record(1, None).unwrap();
        let plan: Vec<PlannedGame> = table.plan(|i| i < 2, Some(&progress)).unwrap().collect();
        assert_eq!(plan.len(), 2);
        assert_eq!((plan[0].index, plan[0].dealer), (2, Some(1)));
        assert_eq!(plan[1].dealer, None);
        // A gap is refused, when recorded and when planned.
        assert!(progress.clone().record(3, Some(0)).is_err());
        assert!(table.plan(|i| i == 1, Some(&progress)).is_err());
        // Nothing played: the whole series, from its own first dealer.
        let plan: Vec<PlannedGame> = table.plan(|_| false, None).unwrap().collect();
        assert_eq!(plan.len(), 4);
        assert_eq!(plan[0].dealer, first.dealer);
    }

    /// Building the schedule of a huge tournament costs its tables, not its games.
    #[test]
    fn a_huge_schedule_is_built_without_its_games() {
        let s = Schedule::build(&tournament(3, 2, Format::Duplicate, u32::MAX));
        assert_eq!(s.tables.len(), 6);
        assert_eq!(s.total_games(), 6 * u32::MAX as usize);
        let last = s.game(6 * u32::MAX as u64 - 1).unwrap().1;
        assert_eq!((last.table, last.index), (5, u32::MAX - 1));
    }
}
