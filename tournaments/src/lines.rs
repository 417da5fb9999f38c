//! `results.jsonl` (and `pending.jsonl`) read one line at a time: [`LineReader`] in file order,
//! with the memory of one line whatever the file's size; [`lines_in_id_order`] in game id order,
//! merging the few ascending runs the file is made of.

use crate::error::Error;
use crate::line::ResultLine;
use std::fs::File;
use std::path::{Path, PathBuf};

/// One line of a results file, where it is.
#[derive(Clone, Debug)]
pub struct Numbered {
    /// From 1.
    pub number: usize,
    /// Where the line starts in the file.
    pub offset: u64,
    pub line: ResultLine,
}

/// A results file read one line at a time (the memory of one line, whatever its size). A last
/// line without its newline was cut by a kill: the game is not finished; it ends the reading
/// ([`LineReader::torn_tail`]). Any other bad line is an error naming it.
pub struct LineReader {
    path: PathBuf,
    reader: Option<std::io::BufReader<File>>,
    buf: Vec<u8>,
    number: usize,
    /// Where the next line starts (the end of the valid part so far).
    offset: u64,
    /// Stop before this offset (a part of the file, for [`lines_in_id_order`]).
    end: u64,
    torn: bool,
}

impl LineReader {
    /// Read `path` from its start; a file that does not exist reads as empty.
    pub fn open(path: &Path) -> Result<LineReader, Error> {
        LineReader::open_at(path, 0, 0, u64::MAX)
    }

    /// Read from byte `offset` (the start of line `number + 1`) up to `end`.
    fn open_at(path: &Path, offset: u64, number: usize, end: u64) -> Result<LineReader, Error> {
        use std::io::{Seek, SeekFrom};
        let reader = match File::open(path) {
            Ok(mut f) => {
                if offset > 0 {
                    f.seek(SeekFrom::Start(offset))
                        .map_err(|e| disk_error!("{}: cannot read: {e}", path.display()))?;
                }
                Some(std::io::BufReader::with_capacity(16 * 1024, f))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(disk_error!("{}: cannot read: {e}", path.display())),
        };
        Ok(LineReader {
            path: path.to_path_buf(),
            reader,
            buf: Vec::new(),
            number,
            offset,
            end,
            torn: false,
        })
    }

    /// Where the whole lines read so far end.
    pub fn valid_len(&self) -> u64 {
        self.offset
    }

    /// Whether the file ended in a line cut short.
    pub fn torn_tail(&self) -> bool {
        self.torn
    }
}

impl Iterator for LineReader {
    type Item = Result<Numbered, Error>;

    fn next(&mut self) -> Option<Result<Numbered, Error>> {
        use std::io::BufRead;
        loop {
            if self.offset >= self.end {
                return None;
            }
            let reader = self.reader.as_mut()?;
            self.buf.clear();
            let n = match reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(e) => {
                    self.reader = None;
                    return Some(Err(disk_error!(
                        "{}: cannot read: {e}",
                        self.path.display()
                    )));
                }
            };
            self.number += 1;
            let start = self.offset;
            if self.buf.last() != Some(&b'\n') {
                // A last line without its newline was cut by a kill: the game is not finished.
                self.torn = true;
                self.reader = None;
                return None;
            }
            self.offset += n as u64;
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(match serde_json::from_slice::<ResultLine>(&self.buf) {
                Ok(line) => Ok(Numbered {
                    number: self.number,
                    offset: start,
                    line,
                }),
                Err(e) => {
                    self.reader = None;
                    Err(record_error!(
                        "{}: line {} is not a result line: {e}\n  fix: this file is written by \
                         durak tournament only; restore it or start the tournament again",
                        self.path.display(),
                        self.number
                    ))
                }
            });
        }
    }
}

/// Runs of ascending ids merged at once, at most; a file with more (edited by hand) is sorted in
/// memory instead.
const MERGE_MAX: usize = 64;

/// The lines of a results file in id order (the schedule's, which standings and
/// disqualifications follow), reading it one line at a time. The file is a few runs of
/// ascending ids — each pass of a run, each resume, appends games in id order — found in a first
/// reading and merged. A torn last line is left out.
pub fn lines_in_id_order(
    path: &Path,
) -> Result<Box<dyn Iterator<Item = Result<ResultLine, Error>>>, Error> {
    // (offset, number before it) of each run, and where the valid part ends.
    let mut runs: Vec<(u64, usize)> = Vec::new();
    let mut previous: Option<u64> = None;
    let mut reader = LineReader::open(path)?;
    for l in reader.by_ref() {
        let l = l?;
        if previous.is_none_or(|p| l.line.id < p) {
            runs.push((l.offset, l.number - 1));
        }
        previous = Some(l.line.id);
    }
    let end = reader.valid_len();
    if runs.len() > MERGE_MAX {
        let mut all = read_results_file(path)?.lines;
        all.sort_by_key(|l| l.id);
        return Ok(Box::new(all.into_iter().map(Ok)));
    }
    let mut parts = Vec::new();
    for (i, &(offset, number)) in runs.iter().enumerate() {
        let until = runs.get(i + 1).map_or(end, |r| r.0);
        parts.push(LineReader::open_at(path, offset, number, until)?.peekable());
    }
    Ok(Box::new(Merge { parts }))
}

/// A k-way merge of ascending runs (k is small: a linear scan for the least head).
struct Merge {
    parts: Vec<std::iter::Peekable<LineReader>>,
}

impl Iterator for Merge {
    type Item = Result<ResultLine, Error>;

    fn next(&mut self) -> Option<Result<ResultLine, Error>> {
        let mut best: Option<(usize, u64)> = None;
        for (i, p) in self.parts.iter_mut().enumerate() {
            match p.peek() {
                Some(Ok(l)) if best.is_none_or(|(_, id)| l.line.id < id) => {
                    best = Some((i, l.line.id));
                }
                Some(Err(_)) => return p.next().map(|r| r.map(|n| n.line)),
                _ => {}
            }
        }
        let (i, _) = best?;
        self.parts[i].next().map(|r| r.map(|n| n.line))
    }
}

/// The results read back: the lines in file order, and where the valid part of the file ends.
#[derive(Clone, Debug, Default)]
pub struct ReadResults {
    pub lines: Vec<ResultLine>,
    pub valid_len: u64,
    /// A final line cut short (a kill during the write): dropped.
    pub torn_tail: bool,
}

/// Read a results file whole (see [`TournamentDir::read_results`]). For small files and tests:
/// a run and `durak standings` read it line by line ([`LineReader`], [`lines_in_id_order`]).
pub fn read_results_file(path: &Path) -> Result<ReadResults, Error> {
    let mut reader = LineReader::open(path)?;
    let mut out = ReadResults::default();
    for l in reader.by_ref() {
        out.lines.push(l?.line);
    }
    out.valid_len = reader.valid_len();
    out.torn_tail = reader.torn_tail();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::line;
    use crate::results::TournamentDir;

    /// Lines come back in id order from a file of ascending runs (passes, resumes), read one at
    /// a time; a torn last line is left out; a file of many runs (edited by hand) still works.
    #[test]
    fn lines_come_back_in_id_order() {
        let dir = tempfile::tempdir().unwrap();
        let td = TournamentDir {
            path: dir.path().to_path_buf(),
        };
        let order = [3u64, 4, 8, 0, 1, 2, 9, 5, 6, 7];
        let mut w = td.appender().unwrap();
        for id in order {
            w.append_all(&[&line(id)]).unwrap();
        }
        let mut text = std::fs::read(td.results_path()).unwrap();
        text.extend_from_slice(&serde_json::to_vec(&line(10)).unwrap()[..15]);
        std::fs::write(td.results_path(), &text).unwrap();
        let ids = |td: &TournamentDir| -> Vec<u64> {
            lines_in_id_order(&td.results_path())
                .unwrap()
                .map(|l| l.unwrap().id)
                .collect()
        };
        assert_eq!(ids(&td), (0..10).collect::<Vec<_>>());
        assert_eq!(td.count_results(), 10);
        // More runs than are merged at once: sorted in memory.
        let many: Vec<u64> = (0..2 * MERGE_MAX as u64).rev().collect();
        let mut w = {
            std::fs::write(td.results_path(), "").unwrap();
            td.appender().unwrap()
        };
        for &id in &many {
            w.append_all(&[&line(id)]).unwrap();
        }
        assert_eq!(ids(&td), (0..2 * MERGE_MAX as u64).collect::<Vec<_>>());
        // A bad line is an error naming it, in any order.
        std::fs::write(td.results_path(), "{\"id\": 1}\n").unwrap();
        assert!(lines_in_id_order(&td.results_path())
            .err()
            .unwrap()
            .to_string()
            .contains("line 1"));
    }
}
