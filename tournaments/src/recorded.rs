//! What a tournament directory has recorded, checked against the schedule and kept in a few bits
//! per game: [`verify_results`] reads `results.jsonl` one line at a time (as `--resume` and
//! `durak standings` both do), refuses a line that is not a game of the tournament or a game
//! recorded twice, and returns a [`ResultsScan`]: a bit per game, a few bytes per series table,
//! counts. Nothing in it grows with the size of the lines.

use crate::config::Tournament;
use crate::results::{GameSet, LineReader, TournamentDir};
use crate::schedule::{Schedule, SeriesProgress};
use durak_protocol::FaultKind;
use std::path::PathBuf;

/// The games recorded so far: which (a bit each), and where each series stands (C-10: its next
/// dealer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub recorded: GameSet,
    /// Per table, in the series format.
    pub series: Vec<Option<SeriesProgress>>,
}

impl Record {
    /// Nothing recorded yet.
    pub fn new(schedule: &Schedule) -> Record {
        Record {
            recorded: GameSet::new(schedule.total_games()),
            series: schedule
                .tables
                .iter()
                .map(|t| t.is_series().then(|| SeriesProgress::new(t)))
                .collect(),
        }
    }
}

/// `results.jsonl`, checked (see [`verify_results`]).
#[derive(Clone, Debug)]
pub struct ResultsScan {
    pub record: Record,
    /// Faults in the recorded games (forfeits aside).
    pub faults: usize,
    /// The last line was cut short by a kill: left out, and cut by a resume.
    pub torn_tail: bool,
    /// Where the whole lines end.
    pub valid_len: u64,
    /// Replays named by result lines but not on disk (deleted or moved by hand): how many, and
    /// the first.
    pub missing_replays: usize,
    pub first_missing: Option<PathBuf>,
}

impl ResultsScan {
    /// Games recorded.
    pub fn count(&self) -> usize {
        self.record.recorded.len()
    }
}

/// Faults of a result line that a bot committed (forfeits are not).
pub fn count_faults(l: &crate::results::ResultLine) -> usize {
    l.faults
        .iter()
        .filter(|f| f.kind != FaultKind::Forfeit)
        .count()
}

/// Check the results in `dir` against the tournament's schedule, reading them one line at a
/// time: every line a game of it (table, index, seats, seed), none twice, and a series' games in
/// order from its first. A file that fails is refused by `--resume` and by `durak standings`
/// alike, naming the line.
pub fn verify_results(t: &Tournament, dir: &TournamentDir) -> Result<ResultsScan, String> {
    let schedule = Schedule::build(t);
    let path = dir.results_path();
    let fix = "fix: resume with the tournament directory this file belongs to, or start a new \
               tournament";
    let mut record = Record::new(&schedule);
    let mut faults = 0;
    let mut missing_replays = 0;
    let mut first_missing = None;
    let mut reader = LineReader::open(&path)?;
    for n in reader.by_ref() {
        let n = n?;
        let l = &n.line;
        let Some((table, g)) = schedule.game(l.id) else {
            return Err(format!(
                "{}: line {}: game {} is not in this tournament's schedule ({} games)\n  {fix}",
                path.display(),
                n.number,
                l.id,
                schedule.total_games()
            ));
        };
        let names_match = l.seats.len() == table.bots.len()
            && table
                .bots
                .iter()
                .zip(&l.seats)
                .all(|(&b, s)| t.bots[b].name == *s);
        if l.table != table.id || l.game != g.index || l.seed != g.seed || !names_match {
            let names: Vec<&str> = table
                .bots
                .iter()
                .map(|&b| t.bots[b].name.as_str())
                .collect();
            return Err(format!(
                "{}: line {}: game {} was not played by this tournament (table {}, game {}, \
                 seats {:?}, seed {} expected)\n  {fix}",
                path.display(),
                n.number,
                l.id,
                table.id,
                g.index,
                names,
                g.seed
            ));
        }
        if !record.recorded.insert(l.id) {
            return Err(format!(
                "{}: line {}: game {} is recorded twice\n  {fix}",
                path.display(),
                n.number,
                l.id
            ));
        }
        if let Some(progress) = record.series[table.id as usize].as_mut() {
            progress.record(l.game, l.loser).map_err(|e| {
                format!(
                    "{}: line {}: table {}: {e}: a series resumes only after its first games\n  \
                     {fix}",
                    path.display(),
                    n.number,
                    table.id
                )
            })?;
        }
        faults += count_faults(l);
        if let Some(r) = &l.replay {
            let p = dir.path.join(r);
            if !p.is_file() {
                missing_replays += 1;
                first_missing.get_or_insert(p);
            }
        }
    }
    Ok(ResultsScan {
        record,
        faults,
        torn_tail: reader.torn_tail(),
        valid_len: reader.valid_len(),
        missing_replays,
        first_missing,
    })
}
