//! Finished games put back in id order before they count, so that what is recorded does not
//! depend on concurrency (see [`crate::runner`]).
//!
//! Tables finish games in any order; each game, when its turn comes (every game with a smaller
//! id sequenced before it), updates the disqualifications ([`Discipline`]) and is *accepted*: it
//! goes to `results.jsonl`. A game a bot played after an earlier game disqualified it is *late*:
//! not recorded; its table stops, and the next pass plays its remaining games as forfeits.
//!
//! What this keeps is bounded: a bit per game ([`Record`]), a cursor per table of the pass, and
//! the *held* games — finished before their turn — as result lines only (their replays are
//! written at once), at most [`HOLD_MAX`] of them: a table whose games wait beyond that waits
//! too (the table with the earliest games never does: its games never wait). Every finished game
//! is written to `pending.jsonl` at once ([`crate::writer`]), so a kill does not lose a held
//! game: the resume takes it in again ([`Sequencer::with_held`]).

use crate::config::Tournament;
use crate::line::{FaultLine, ResultLine};
use crate::recorded::Record;
use crate::schedule::Table;
use crate::sprt::SprtTracker;
use durak_protocol::FaultKind;
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

/// Finished games that may wait for earlier ones, at most, across tables (a result line each,
/// about 400 bytes: under half a megabyte).
pub const HOLD_MAX: usize = 1024;

/// Who is disqualified, and the fault streaks that lead there.
#[derive(Clone, Debug)]
pub struct Discipline {
    max_consecutive: u32,
    pub(crate) names: Vec<String>,
    streak: Vec<u32>,
    /// The reason, for disqualified bots.
    pub disqualified: Vec<Option<String>>,
}

impl Discipline {
    pub fn new(t: &Tournament) -> Discipline {
        let n = t.bots.len();
        Discipline {
            max_consecutive: t.max_consecutive_faults,
            names: t.bots.iter().map(|b| b.name.clone()).collect(),
            streak: vec![0; n],
            disqualified: vec![None; n],
        }
    }

    /// Take a finished game into account; returns the bots it disqualifies (index, reason).
    ///
    /// A game with a forfeit was not played (nobody was asked anything): it changes no streak,
    /// so the order in which forfeits are recorded never matters.
    pub fn record(&mut self, line: &ResultLine) -> Vec<(usize, String)> {
        let mut newly = Vec::new();
        if line.faults.iter().any(|f| f.kind == FaultKind::Forfeit) {
            return newly;
        }
        for (seat, name) in line.seats.iter().enumerate() {
            let Some(b) = self.index(name) else {
                continue;
            };
            let faults: Vec<&FaultLine> = line.faults.iter().filter(|f| f.seat == seat).collect();
            if self.disqualified[b].is_some() {
                continue;
            }
            if let Some(f) = faults.iter().find(|f| f.kind == FaultKind::StartFailed) {
                self.streak[b] += 1;
                let reason = format!("could not be started (game {}): {}", line.id, f.detail);
                self.disqualified[b] = Some(reason.clone());
                newly.push((b, reason));
            } else if let Some(f) = faults.first() {
                self.streak[b] += 1;
                if self.max_consecutive > 0 && self.streak[b] >= self.max_consecutive {
                    let reason = format!(
                        "faulted in {} games in a row (the last, game {}: {}: {})",
                        self.streak[b], line.id, f.kind, f.detail
                    );
                    self.disqualified[b] = Some(reason.clone());
                    newly.push((b, reason));
                }
            } else {
                self.streak[b] = 0;
            }
        }
        newly
    }

    /// The index of the bot with this name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn is_disqualified(&self, bot: usize) -> bool {
        self.disqualified[bot].is_some()
    }
}

/// One table of a pass, as the sequencer sees it.
#[derive(Debug)]
struct TableSeq {
    first_id: u64,
    stride: u64,
    games: u32,
    /// The next index of this table to sequence; `None`: none left in this pass.
    next: Option<u32>,
    /// Its finished games waiting for earlier ones, in index order.
    held: VecDeque<Held>,
    /// It ended: the games not yet come will not come in this pass.
    ended: bool,
    stopped: bool,
}

/// The sequencer of one pass (see the module documentation).
#[derive(Debug, Default)]
pub struct Sequencer {
    tables: BTreeMap<u32, TableSeq>,
    /// Every table before this one has no game left in the pass (table-major ids).
    current: u32,
    /// Ids go deal by deal ([`crate::schedule`]): the next game is the one with the least id
    /// among the tables' next games, not the current table's.
    deal_major: bool,
    held: usize,
    /// The most games held at once, for the benchmark's figures.
    pub held_max: usize,
}

/// A game waiting for its turn.
#[derive(Debug)]
struct Held {
    line: ResultLine,
    finished: Instant,
}

/// A table's queue, once empty, gives its room back: a `VecDeque` keeps the capacity of the
/// most it ever held, and every table holds many games at some point of a long table-major run
/// (the next table's games wait for the whole current table), so without this the queues of
/// all tables together grow with the games per table, up to `HOLD_MAX` each, not in all.
fn release_if_empty(held: &mut VecDeque<Held>) {
    if held.is_empty() && held.capacity() > 16 {
        *held = VecDeque::new();
    }
}

/// The first index from `from` on that `record` does not hold, at a table.
fn next_unrecorded(
    record: &Record,
    (first_id, stride): (u64, u64),
    games: u32,
    from: u32,
) -> Option<u32> {
    (from..games).find(|&i| !record.recorded.contains(first_id + i as u64 * stride))
}

impl Sequencer {
    /// A pass over `tables`: each plays its games not in `record`, in order.
    pub fn new<'a>(tables: impl IntoIterator<Item = &'a Table>, record: &Record) -> Sequencer {
        Sequencer::with_held(tables, record, Vec::new())
    }

    /// [`Sequencer::new`], with games that finished before (a killed run's, from
    /// `pending.jsonl`): `prefill`, per table in index order, the games that follow its
    /// recorded ones (see [`crate::runner`]).
    pub fn with_held<'a>(
        tables: impl IntoIterator<Item = &'a Table>,
        record: &Record,
        prefill: Vec<ResultLine>,
    ) -> Sequencer {
        let mut deal_major = false;
        let mut tables: BTreeMap<u32, TableSeq> = tables
            .into_iter()
            .map(|t| {
                deal_major |= t.stride > 1;
                let seq = TableSeq {
                    first_id: t.first_id,
                    stride: t.stride,
                    games: t.games,
                    next: next_unrecorded(record, (t.first_id, t.stride), t.games, 0),
                    held: VecDeque::new(),
                    ended: false,
                    stopped: false,
                };
                (t.id, seq)
            })
            .collect();
        let mut held = 0;
        let now = Instant::now();
        for line in prefill {
            if let Some(t) = tables.get_mut(&line.table) {
                t.held.push_back(Held {
                    line,
                    finished: now,
                });
                held += 1;
            }
        }
        Sequencer {
            tables,
            held,
            held_max: held,
            deal_major,
            ..Sequencer::default()
        }
    }

    /// Whether a table must wait before its next game: its games wait for earlier ones, and
    /// too many games do.
    pub fn must_wait(&self, table: u32) -> bool {
        self.held >= HOLD_MAX && self.tables.get(&table).is_some_and(|t| !t.held.is_empty())
    }

    /// Games held now.
    pub fn held(&self) -> usize {
        self.held
    }

    /// Room the tables' queues keep, in games (what memory they hold beyond their games).
    pub fn held_capacity(&self) -> usize {
        self.tables.values().map(|t| t.held.capacity()).sum()
    }

    pub fn is_stopped(&self, table: u32) -> bool {
        self.tables.get(&table).is_some_and(|t| t.stopped)
    }
}

/// What sequencing decided, for the caller.
#[derive(Debug, Default)]
pub struct Decided {
    /// Games accepted, in id order, with when they finished: to write.
    pub accepted: Vec<(ResultLine, Instant)>,
    /// Bots disqualified (name, reason).
    pub disqualified: Vec<(String, String)>,
    /// Tables stopped (a late game).
    pub stopped: Vec<u32>,
    /// The run closed at the last game accepted ([`Books::closed`]): every table stops.
    pub closed: bool,
}

/// Why a run accepts no more games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// The SPRT decided: the tournament is over; games after the deciding one are cancelled.
    Decided,
    /// The run's budget of games ([`crate::runner::RunOptions::stop_after`]) is spent: it
    /// stops as a kill would, and a resume goes on.
    Budget,
    /// Stopped from outside ([`crate::runner::RunOptions::stop`]): as a kill would, and a
    /// resume goes on.
    Stopped,
}

/// The disqualifications, the record and the sequencer of the pass, together.
#[derive(Debug)]
pub struct Books {
    pub discipline: Discipline,
    pub record: Record,
    pub seq: Sequencer,
    /// The SPRT, fed every game accepted, in id order: the game at which it decides is the
    /// same in every run of the tournament, resumed or not.
    pub sprt: Option<SprtTracker>,
    /// Games this run may still accept (`None`: all).
    pub budget: Option<usize>,
    /// Set once no more games are accepted.
    pub closed: Option<Closed>,
}

impl Books {
    pub fn new(discipline: Discipline, record: Record, seq: Sequencer) -> Books {
        Books {
            discipline,
            record,
            seq,
            sprt: None,
            budget: None,
            closed: None,
        }
    }

    /// Take a finished game in, and sequence every game whose turn has come.
    pub fn sequence(&mut self, line: ResultLine, finished: Instant, out: &mut Decided) {
        if self.closed.is_some() {
            return;
        }
        let Some(t) = self.seq.tables.get_mut(&line.table) else {
            return;
        };
        if t.stopped || t.next.is_none() {
            return;
        }
        t.held.push_back(Held { line, finished });
        self.seq.held += 1;
        self.advance(out);
        // (A game whose turn it is was not held.)
        self.seq.held_max = self.seq.held_max.max(self.seq.held);
    }

    /// A table of this pass ended: the games it did not finish will not come.
    pub fn table_ended(&mut self, table: u32, out: &mut Decided) {
        if let Some(t) = self.seq.tables.get_mut(&table) {
            t.ended = true;
        }
        self.advance(out);
    }

    /// The table whose next game has the least id (table-major: the first table with games
    /// left).
    fn earliest(&mut self) -> Option<u32> {
        if self.seq.deal_major {
            return self
                .seq
                .tables
                .iter()
                .filter_map(|(&id, t)| Some((t.first_id + t.next? as u64 * t.stride, id)))
                .min()
                .map(|(_, id)| id);
        }
        let current = self.seq.current;
        let (&id, _) = self
            .seq
            .tables
            .range(current..)
            .find(|(_, t)| t.next.is_some())?;
        self.seq.current = id;
        Some(id)
    }

    /// Sequence the games whose turn has come: the earliest game left, as long as it is there.
    fn advance(&mut self, out: &mut Decided) {
        loop {
            if self.closed.is_some() {
                return;
            }
            let Some(id) = self.earliest() else {
                return;
            };
            let t = self.seq.tables.get_mut(&id).expect("a table of the pass");
            let next = t.next.expect("found");
            match t.held.front() {
                Some(h) if h.line.game == next => {
                    let h = t.held.pop_front().expect("a front");
                    self.seq.held -= 1;
                    release_if_empty(&mut t.held);
                    let from = next + 1;
                    let (ids, games) = ((t.first_id, t.stride), t.games);
                    self.accept(h, out);
                    let t = self.seq.tables.get_mut(&id).expect("a table of the pass");
                    if !t.stopped {
                        t.next = next_unrecorded(&self.record, ids, games, from);
                    }
                }
                Some(h) => {
                    // Not the game expected (cannot happen: a table plays its games in order):
                    // drop it, it is played again in the next pass.
                    tracing::warn!(
                        "table {id}: game {} finished where game {next} was expected",
                        h.line.game
                    );
                    t.held.pop_front();
                    self.seq.held -= 1;
                }
                None if t.ended => t.next = None,
                None => return,
            }
        }
    }

    /// A game's turn has come: it counts, or it is late and stops its table.
    fn accept(&mut self, held: Held, out: &mut Decided) {
        let Held { mut line, finished } = held;
        let d = &self.discipline;
        let late = line.seats.iter().enumerate().any(|(seat, name)| {
            let forfeit = line
                .faults
                .iter()
                .any(|f| f.seat == seat && f.kind == FaultKind::Forfeit);
            !forfeit && d.index(name).is_some_and(|b| d.is_disqualified(b))
        });
        if late {
            self.stop_table(line.table);
            out.stopped.push(line.table);
            return;
        }
        let newly = self.discipline.record(&line);
        line.disqualified = newly
            .iter()
            .map(|(b, _)| self.discipline.names[*b].clone())
            .collect();
        for (b, reason) in newly {
            out.disqualified
                .push((self.discipline.names[b].clone(), reason));
        }
        self.record.recorded.insert(line.id);
        if let Some(p) = self.record.series[line.table as usize].as_mut() {
            // In order by construction (a table's games are sequenced in index order).
            let _ = p.record(line.game, line.loser);
        }
        let decided = self.sprt.as_mut().is_some_and(|s| {
            s.add(&line);
            s.status().decision.is_some()
        });
        if let Some(b) = self.budget.as_mut() {
            *b = b.saturating_sub(1);
        }
        if decided {
            self.closed = Some(Closed::Decided);
        } else if self.budget == Some(0) {
            self.closed = Some(Closed::Budget);
        }
        out.closed |= self.closed.is_some();
        out.accepted.push((line, finished));
    }

    /// Record nothing more of `table` in this pass; the next pass plays its remaining games.
    fn stop_table(&mut self, table: u32) {
        if let Some(t) = self.seq.tables.get_mut(&table) {
            self.seq.held -= t.held.len();
            t.held.clear();
            release_if_empty(&mut t.held);
            t.stopped = true;
            t.next = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Bot, Format};
    use crate::schedule::Schedule;

    fn tournament(games: u32) -> Tournament {
        let bot = |name: &str| Bot {
            name: name.into(),
            command: "builtin:random".into(),
            cwd: "/".into(),
            own_cwd: true,
            limits: durak_protocol::Limits::default(),
        };
        Tournament {
            variant: durak_rules::Variant::Podkidnoy,
            format: Format::Duplicate,
            table_size: 2,
            games,
            seed: 1,
            challenger: None,
            concurrency: None,
            max_consecutive_faults: 2,
            sprt: None,
            bots: vec![bot("good"), bot("bad"), bot("other")],
        }
    }

    /// Game `id` at `table` between `seats`; `faulty` seats fault (`kind`).
    fn game(
        id: u64,
        table: u32,
        games: u32,
        seats: [&str; 2],
        faulty: &[(usize, FaultKind)],
    ) -> ResultLine {
        ResultLine {
            id,
            table,
            game: (id % games as u64) as u32,
            deal: None,
            seats: seats.iter().map(|s| s.to_string()).collect(),
            seed: 1,
            dealer: 0,
            loser: faulty.first().map(|f| f.0),
            durak: None,
            draw: faulty.is_empty(),
            faults: faulty
                .iter()
                .map(|&(seat, kind)| FaultLine {
                    seat,
                    bot: seats[seat].into(),
                    kind,
                    detail: String::new(),
                    rule: None,
                })
                .collect(),
            moves: 1,
            replay: None,
            duration_ms: 1,
            disqualified: vec![],
            voided: Vec::new(),
            void: false,
            move_limit: None,
        }
    }

    /// The books of a pass over the first `tables` tables of a `games`-per-table tournament.
    fn books(games: u32, tables: usize) -> Books {
        let t = tournament(games);
        let schedule = Schedule::build(&t);
        let record = Record::new(&schedule);
        let seq = Sequencer::new(schedule.tables.iter().take(tables), &record);
        Books::new(Discipline::new(&t), record, seq)
    }

    /// Deal-major (an SPRT gauntlet): games are accepted in id order across tables, deal by
    /// deal, whatever order they finish in; a run's budget closes it after that many games,
    /// and nothing more is accepted (the held games wait for the resume, in `pending.jsonl`).
    #[test]
    fn deal_major_games_count_in_id_order_and_a_budget_closes_the_run() {
        let mut t = tournament(3);
        t.format = Format::Gauntlet;
        t.challenger = Some("good".into());
        t.sprt = Some(crate::stats::sprt::SprtParams::new(0.0, 10.0, 0.05, 0.05).unwrap());
        let schedule = Schedule::build(&t);
        let record = Record::new(&schedule);
        let seq = Sequencer::new(&schedule.tables, &record);
        let mut b = Books::new(Discipline::new(&t), record, seq);
        b.budget = Some(5);
        // 4 tables (good against bad and other, both rotations): id = deal · 4 + table.
        let line = |id: u64| {
            let (table, g) = schedule.game(id).unwrap();
            let mut l = game(id, table.id, 3, ["good", "bad"], &[]);
            l.game = g.index;
            l.seats = table.bots.iter().map(|&x| t.bots[x].name.clone()).collect();
            l
        };
        let mut out = Decided::default();
        // Table 1 is faster: its deals 0 and 1 (ids 1, 5) wait for table 0's deal 0 (id 0).
        for id in [1, 5] {
            feed(&mut b, line(id), &mut out);
        }
        assert!(ids(&out).is_empty());
        feed(&mut b, line(0), &mut out);
        assert_eq!(ids(&out), vec![0, 1]);
        assert_eq!(b.seq.held(), 1);
        for id in [3, 2] {
            feed(&mut b, line(id), &mut out);
        }
        assert_eq!(ids(&out), vec![0, 1, 2, 3]);
        assert!(!out.closed);
        // 4 (table 0, deal 1) spends the budget of 5: 5 stays held, 6 is not taken.
        feed(&mut b, line(4), &mut out);
        assert_eq!(ids(&out), vec![0, 1, 2, 3, 4]);
        assert!(out.closed);
        assert_eq!(b.closed, Some(Closed::Budget));
        feed(&mut b, line(6), &mut out);
        assert_eq!(ids(&out).len(), 5);
        assert_eq!(b.record.recorded.len(), 5);
    }

    /// Table-major, the next tables' games wait for the whole current table; once they count,
    /// their queues give their room back, so what the queues keep does not grow with the games
    /// per table (it did: a queue kept the capacity of the most it ever held, and a long run's
    /// 306 queues together grew to tens of MiB).
    #[test]
    fn drained_queues_give_their_room_back() {
        let games = 200;
        let mut b = books(games, 6);
        let mut out = Decided::default();
        // Tables 1 to 5 finish everything first: all held behind table 0.
        for id in games as u64..6 * games as u64 {
            let table = (id / games as u64) as u32;
            feed(
                &mut b,
                game(id, table, games, ["good", "bad"], &[]),
                &mut out,
            );
        }
        assert!(ids(&out).is_empty());
        assert_eq!(b.seq.held(), 5 * games as usize);
        assert!(b.seq.held_capacity() >= 5 * games as usize);
        for id in 0..games as u64 {
            feed(&mut b, game(id, 0, games, ["good", "bad"], &[]), &mut out);
        }
        assert_eq!(ids(&out), (0..6 * games as u64).collect::<Vec<_>>());
        assert_eq!(b.seq.held(), 0);
        assert!(
            b.seq.held_capacity() <= 6 * 16,
            "the drained queues keep room for {} games",
            b.seq.held_capacity()
        );
    }

    fn feed(b: &mut Books, line: ResultLine, out: &mut Decided) {
        b.sequence(line, Instant::now(), out);
    }

    fn ids(out: &Decided) -> Vec<u64> {
        out.accepted.iter().map(|(l, _)| l.id).collect()
    }

    /// Games finishing out of order count in id order; a game played by a bot disqualified by
    /// an earlier game stops its table, whose later games are not recorded.
    #[test]
    fn games_count_in_id_order_and_late_ones_stop_their_table() {
        use FaultKind::Malformed;
        let mut out = Decided::default();
        // Table 0: ids 0, 1 (good v bad); table 1: ids 2, 3 (bad v good).
        let mut b = books(2, 2);
        // Table 1 is faster: both its games end first (bad faults in both).
        feed(
            &mut b,
            game(2, 1, 2, ["bad", "good"], &[(0, Malformed)]),
            &mut out,
        );
        feed(
            &mut b,
            game(3, 1, 2, ["bad", "good"], &[(0, Malformed)]),
            &mut out,
        );
        assert!(ids(&out).is_empty(), "games 2 and 3 wait for games 0 and 1");
        assert_eq!(b.seq.held(), 2);
        // Game 0: bad faults. Then 1: bad faults again, the second in a row: disqualified at 1.
        feed(
            &mut b,
            game(0, 0, 2, ["good", "bad"], &[(1, Malformed)]),
            &mut out,
        );
        assert_eq!(ids(&out), vec![0]);
        feed(
            &mut b,
            game(1, 0, 2, ["good", "bad"], &[(1, Malformed)]),
            &mut out,
        );
        // Game 2 was played by bad after its disqualification: table 1 stops, 2 and 3 wait
        // for the next pass.
        assert_eq!(ids(&out), vec![0, 1]);
        assert_eq!(out.accepted[1].0.disqualified, vec!["bad".to_string()]);
        assert_eq!(out.stopped, vec![1]);
        assert!(b.seq.is_stopped(1));
        assert_eq!(b.seq.held(), 0);
        assert_eq!(b.record.recorded.len(), 2);
        // Whatever table 1 still sends is dropped.
        feed(
            &mut b,
            game(3, 1, 2, ["bad", "good"], &[(0, Malformed)]),
            &mut out,
        );
        assert_eq!(ids(&out), vec![0, 1]);
        // The next pass plays table 1 from its first game.
        let t = tournament(2);
        let schedule = Schedule::build(&t);
        let next = Sequencer::new(schedule.tables.iter().take(2), &b.record);
        assert_eq!(next.tables[&0].next, None);
        assert_eq!(next.tables[&1].next, Some(0));
    }

    /// A table that ends without some of its games (an error) does not hold the others back.
    #[test]
    fn a_table_that_ends_early_lets_the_later_games_through() {
        let mut out = Decided::default();
        let mut b = books(2, 2);
        feed(&mut b, game(2, 1, 2, ["bad", "good"], &[]), &mut out);
        feed(&mut b, game(0, 0, 2, ["good", "bad"], &[]), &mut out);
        assert_eq!(ids(&out), vec![0]);
        b.table_ended(0, &mut out);
        assert_eq!(ids(&out), vec![0, 2]);
    }

    /// The held games never exceed what the tables are told: a table whose games wait must
    /// wait itself once HOLD_MAX games are held, and the earliest table never has to.
    #[test]
    fn held_games_are_bounded_and_the_earliest_table_never_waits() {
        let games = 3 * HOLD_MAX as u32;
        let mut b = books(games, 2);
        let mut out = Decided::default();
        let later = |i: u32| game(games as u64 + i as u64, 1, games, ["bad", "good"], &[]);
        let mut sent = 0;
        // Table 1 plays as long as it is not told to wait.
        while !b.seq.must_wait(1) {
            feed(&mut b, later(sent), &mut out);
            sent += 1;
        }
        assert_eq!(sent as usize, HOLD_MAX);
        assert!(out.accepted.is_empty());
        // Table 0 is never told to wait, and its games go through at once.
        for i in 0..games {
            assert!(!b.seq.must_wait(0));
            feed(
                &mut b,
                game(i as u64, 0, games, ["good", "bad"], &[]),
                &mut out,
            );
            if i + 1 < games {
                assert_eq!(out.accepted.len(), i as usize + 1);
            }
        }
        // Table 0 done: table 1's held games go, in order, and it may play on.
        assert_eq!(out.accepted.len(), games as usize + HOLD_MAX);
        assert_eq!(b.seq.held(), 0);
        assert!(!b.seq.must_wait(1));
        assert!(b.seq.held_max <= HOLD_MAX);
        let ids = ids(&out);
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "in id order");
    }

    /// Forfeits change no streak: a faulting bot's streak goes on across a game in which
    /// someone forfeited.
    #[test]
    fn a_forfeit_game_changes_no_streak() {
        let t = tournament(2);
        let mut d = Discipline::new(&t);
        let malformed = game(0, 0, 2, ["good", "bad"], &[(1, FaultKind::Malformed)]);
        let forfeit = game(1, 0, 2, ["bad", "other"], &[(1, FaultKind::Forfeit)]);
        assert!(d.record(&malformed).is_empty());
        assert!(d.record(&forfeit).is_empty());
        let again = game(2, 0, 2, ["good", "bad"], &[(1, FaultKind::Malformed)]);
        assert_eq!(
            d.record(&again).len(),
            1,
            "the second fault in a row disqualifies"
        );
    }
}
