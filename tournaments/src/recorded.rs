//! What a tournament directory has recorded, checked against the schedule and kept in a few bits
//! per game: [`verify_results`] reads `results.jsonl` one line at a time (as `--resume` and
//! `durak standings` both do), refuses a line that is not a game of the tournament or a game
//! recorded twice, and returns a [`ResultsScan`]: a bit per game, a few bytes per series table,
//! counts. Nothing in it grows with the size of the lines.

use crate::config::Tournament;
use crate::error::Error;
use crate::results::{LineReader, ResultLine, TournamentDir};
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

/// A set of game ids, one bit each: what a run keeps of the games recorded, whatever their
/// number (a 300,000-game tournament: 37 KB).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameSet {
    words: Vec<u64>,
    total: u64,
    count: usize,
}

impl GameSet {
    /// An empty set for ids below `total`.
    pub fn new(total: usize) -> GameSet {
        GameSet {
            words: vec![0; total.div_ceil(64)],
            total: total as u64,
            count: 0,
        }
    }

    /// Add `id`; false when it was there already (or is out of range).
    pub fn insert(&mut self, id: u64) -> bool {
        if id >= self.total {
            return false;
        }
        let (w, b) = ((id / 64) as usize, id % 64);
        match self.words.get_mut(w) {
            Some(word) if *word & (1 << b) == 0 => {
                *word |= 1 << b;
                self.count += 1;
                true
            }
            _ => false,
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        self.words
            .get((id / 64) as usize)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The finished games of a killed run (`pending.jsonl`) that a resume takes in: games of the
/// schedule not recorded whose replay is whole (it ends with its result), for each table those
/// that follow its recorded games without a gap (a table plays its games in order; anything else
/// is played again). A line that is not a game of this tournament, or a damaged file, leaves
/// the rest to be played again.
pub(crate) fn pending_games(
    schedule: &Schedule,
    dir: &TournamentDir,
    record: &Record,
) -> Vec<ResultLine> {
    let mut by_table: std::collections::BTreeMap<u32, std::collections::BTreeMap<u32, ResultLine>> =
        Default::default();
    let Ok(reader) = LineReader::open(&dir.pending_path()) else {
        return Vec::new();
    };
    for n in reader {
        let Ok(n) = n else { break };
        let l = n.line;
        let fits = schedule
            .game(l.id)
            .is_some_and(|(table, g)| l.table == table.id && l.game == g.index && l.seed == g.seed);
        if fits && !record.recorded.contains(l.id) {
            // A later line of the same game (played again in a later pass) replaces it.
            by_table.entry(l.table).or_default().insert(l.game, l);
        }
    }
    let mut out = Vec::new();
    for (id, mut games) in by_table {
        let table = &schedule.tables[id as usize];
        let mut i = (0..table.games)
            .find(|&i| !record.recorded.contains(table.id_of(i)))
            .unwrap_or(table.games);
        while let Some(l) = games.remove(&i) {
            let whole = l
                .replay
                .as_ref()
                .is_none_or(|r| replay_is_whole(&dir.path.join(r)));
            if !whole {
                break;
            }
            out.push(l);
            i += 1;
        }
    }
    out
}

/// Whether a replay file is whole: its last line is the game's result (a replay is written to a
/// temporary file and renamed, but after a power cut the data may be missing).
fn replay_is_whole(path: &std::path::Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut magic = [0u8; 4];
    if f.read_exact(&mut magic).is_ok() && magic == durak_referee::replay::ZSTD_MAGIC {
        // Compressed: whole when the frame decompresses and its last line is the result.
        return durak_referee::replay::read_replay_bytes(path).is_ok_and(|bytes| {
            let text = String::from_utf8_lossy(&bytes);
            ends_with_result(&text)
        });
    }
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(4096);
    let mut tail = Vec::new();
    if f.seek(SeekFrom::Start(from)).is_err() || f.read_to_end(&mut tail).is_err() {
        return false;
    }
    ends_with_result(&String::from_utf8_lossy(&tail))
}

/// Whether the last line of `text` is a replay's result line.
fn ends_with_result(text: &str) -> bool {
    text.trim_end_matches('\n')
        .rsplit('\n')
        .next()
        .is_some_and(|last| last.starts_with("{\"type\":\"result\""))
}

/// Faults of a result line that a bot committed (forfeits are not).
pub fn count_faults(l: &crate::line::ResultLine) -> usize {
    l.faults
        .iter()
        .filter(|f| f.kind != FaultKind::Forfeit)
        .count()
}

/// Check the results in `dir` against the tournament's schedule, reading them one line at a
/// time: every line a game of it (table, index, seats, seed), none twice, and a series' games in
/// order from its first. A file that fails is refused by `--resume` and by `durak standings`
/// alike, naming the line.
pub fn verify_results(t: &Tournament, dir: &TournamentDir) -> Result<ResultsScan, Error> {
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
            return Err(record_error!(
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
            return Err(record_error!(
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
            return Err(record_error!(
                "{}: line {}: game {} is recorded twice\n  {fix}",
                path.display(),
                n.number,
                l.id
            ));
        }
        if let Some(progress) = record.series[table.id as usize].as_mut() {
            progress.record(l.game, l.loser).map_err(|e| {
                record_error!(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultLine;
    fn two_bots() -> Tournament {
        crate::config::Input {
            file: Some((
                "t.toml".into(),
                crate::config::ConfigFile::parse(
                    "[tournament]\ngames = 4\n[[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\
                     [[bot]]\nname = \"b\"\ncommand = \"builtin:greedy\"\n",
                    std::path::Path::new("t.toml"),
                )
                .unwrap(),
            )),
            cwd: "/".into(),
            ..Default::default()
        }
        .resolve()
        .unwrap()
    }

    /// A resume takes in the pending games that follow each table's recorded ones without a
    /// gap, whose replay is whole; the others are played again.
    #[test]
    fn pending_games_taken_in_follow_the_recorded_ones_and_have_whole_replays() {
        let t = two_bots();
        let schedule = Schedule::build(&t);
        let dir = tempfile::tempdir().unwrap();
        let td = TournamentDir {
            path: dir.path().to_path_buf(),
        };
        std::fs::create_dir_all(td.replays_path()).unwrap();
        let line = |id: u64, whole: bool| {
            let (table, g) = schedule.game(id).unwrap();
            let replay = format!("replays/t{:04}-g{:04}.jsonl", table.id, g.index);
            let end = if whole { "{\"type\":\"result\"}\n" } else { "" };
            std::fs::write(
                td.path.join(&replay),
                format!("{{\"type\":\"header\"}}\n{end}"),
            )
            .unwrap();
            ResultLine {
                id,
                table: table.id,
                game: g.index,
                deal: g.deal,
                seats: table.bots.iter().map(|&b| t.bots[b].name.clone()).collect(),
                seed: g.seed,
                dealer: 0,
                loser: None,
                durak: None,
                draw: true,
                faults: vec![],
                moves: 0,
                replay: Some(replay),
                duration_ms: 0,
                disqualified: vec![],
                voided: Vec::new(),
                void: false,
                move_limit: None,
            }
        };
        // Table 0 (ids 0-3): 0 recorded; 1, 2 pending, 3's replay cut short. Table 1 (4-7):
        // 5 pending after a gap (4 was never finished).
        let mut record = Record::new(&schedule);
        record.recorded.insert(0);
        let mut w = td.restart_pending(&[]).unwrap();
        let pending = [line(1, true), line(2, true), line(3, false), line(5, true)];
        w.append_all(&pending.iter().collect::<Vec<_>>()).unwrap();
        // A line of another tournament (another seed) is left out too.
        let mut other = line(1, true);
        other.seed ^= 1;
        w.append_all(&[&other]).unwrap();
        let taken: Vec<u64> = pending_games(&schedule, &td, &record)
            .iter()
            .map(|l| l.id)
            .collect();
        assert_eq!(taken, vec![1, 2]);
        // The later line of a game replaces the earlier one (played again in a later pass).
        let mut again = line(1, true);
        again.moves = 99;
        w.append_all(&[&again]).unwrap();
        let taken = pending_games(&schedule, &td, &record);
        assert_eq!(taken[0].moves, 99);
    }

    /// Compressed replays (`.jsonl.zst`, the default) are read for the check too: a whole one
    /// is taken in, one whose frame is cut short is not (nor what follows it at its table).
    #[test]
    fn pending_games_with_compressed_replays_are_checked_decompressed() {
        let t = two_bots();
        let schedule = Schedule::build(&t);
        let dir = tempfile::tempdir().unwrap();
        let td = TournamentDir {
            path: dir.path().to_path_buf(),
        };
        let line = |id: u64, cut: bool| {
            let (table, g) = schedule.game(id).unwrap();
            let replay = format!("replays/t{:04}-g{:04}.jsonl.zst", table.id, g.index);
            let path = td.path.join(&replay);
            let mut log = durak_referee::ReplayLog::default();
            for i in 0..200 {
                log.push(serde_json::json!({"type": "event", "i": i}));
            }
            log.push(serde_json::json!({"type": "result"}));
            log.write_atomic(&path).unwrap();
            if cut {
                let bytes = std::fs::read(&path).unwrap();
                std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
            }
            ResultLine {
                id,
                table: table.id,
                game: g.index,
                deal: g.deal,
                seats: table.bots.iter().map(|&b| t.bots[b].name.clone()).collect(),
                seed: g.seed,
                dealer: 0,
                loser: None,
                durak: None,
                draw: true,
                faults: vec![],
                moves: 0,
                replay: Some(replay),
                duration_ms: 0,
                disqualified: vec![],
                voided: Vec::new(),
                void: false,
                move_limit: None,
            }
        };
        let record = Record::new(&schedule);
        let mut w = td.restart_pending(&[]).unwrap();
        let pending = [
            line(0, false),
            line(1, false),
            line(2, true),
            line(3, false),
        ];
        w.append_all(&pending.iter().collect::<Vec<_>>()).unwrap();
        let taken: Vec<u64> = pending_games(&schedule, &td, &record)
            .iter()
            .map(|l| l.id)
            .collect();
        assert_eq!(taken, vec![0, 1]);
    }

    #[test]
    fn a_game_set_holds_a_bit_per_game() {
        let mut s = GameSet::new(130);
        assert_eq!(s.words.len(), 3);
        assert!(s.insert(0) && s.insert(129) && s.insert(64));
        assert!(!s.insert(64), "already there");
        assert!(!s.insert(130), "out of range");
        assert!(s.contains(129) && !s.contains(128) && !s.contains(1000));
        assert_eq!(s.len(), 3);
    }
}
