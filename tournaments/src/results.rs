//! The tournament directory:
//!
//! - `tournament.toml`: the exact configuration, seed included, written before the first game;
//! - `results.jsonl`: one JSON line per finished game ([`ResultLine`]), appended and fsynced only
//!   after the game's replay is on disk — the index of the tournament;
//! - `replays/tTTTT-gGGGG.jsonl`: the replay of game `GGGG` of table `TTTT` (the source of
//!   truth for what happened).
//!
//! A game is in the results or it is not: a line cut short by a kill is dropped on resume, and
//! the game is played again from its start.

use crate::config::{ConfigFile, Input, Tournament};
use crate::error::Error;
pub use crate::error::{quote_path, resume_command};
pub use crate::line::{FaultLine, ResultLine};
pub use crate::lines::{lines_in_id_order, read_results_file, LineReader, Numbered, ReadResults};
use crate::settings::Settings;
use crate::standings::Standings;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = "tournament.toml";
pub const RESULTS_FILE: &str = "results.jsonl";
pub const REPLAYS_DIR: &str = "replays";
/// Every game's line as soon as it finishes, before it is recorded (its turn may not have come,
/// its group may not be committed yet): a kill loses none of them; a resume takes in those not
/// in `results.jsonl`. Removed when the tournament is finished.
pub const PENDING_FILE: &str = "pending.jsonl";

/// A tournament directory.
#[derive(Clone, Debug)]
pub struct TournamentDir {
    pub path: PathBuf,
}

/// A running tournament's hold on its directory (see [`TournamentDir::lock`]).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl TournamentDir {
    pub fn config_path(&self) -> PathBuf {
        self.path.join(CONFIG_FILE)
    }
    pub fn results_path(&self) -> PathBuf {
        self.path.join(RESULTS_FILE)
    }
    pub fn replays_path(&self) -> PathBuf {
        self.path.join(REPLAYS_DIR)
    }
    pub fn pending_path(&self) -> PathBuf {
        self.path.join(PENDING_FILE)
    }

    /// Make a new tournament directory and write its configuration (the tournament and the
    /// settings of its run). Refuses a directory that already holds a tournament, or other
    /// files; a directory that cannot be written is a [`Error::Disk`].
    pub fn create(
        path: &Path,
        t: &Tournament,
        settings: &Settings,
    ) -> Result<TournamentDir, Error> {
        let dir = TournamentDir {
            path: path.to_path_buf(),
        };
        if dir.config_path().exists() {
            return Err(Error::Invalid(format!(
                "{}: this directory already holds a tournament\n  fix: finish it with `{}`, or \
                 choose another directory with --out",
                dir.config_path().display(),
                resume_command(path)
            )));
        }
        if let Ok(mut entries) = std::fs::read_dir(path) {
            if entries.next().is_some() {
                return Err(Error::Invalid(format!(
                    "{}: the directory is not empty and holds no tournament\n  fix: choose a new \
                     or empty directory with --out",
                    path.display()
                )));
            }
        }
        let cannot = |what: &str, p: &Path, e: std::io::Error| {
            Error::Disk(format!(
                "{}: cannot {what}: {e}\n  fix: give --out a directory that can be written (a \
                 read-write file system, with room and permission), or make {} writable",
                p.display(),
                path.display()
            ))
        };
        std::fs::create_dir_all(dir.replays_path())
            .map_err(|e| cannot("create the tournament directory", path, e))?;
        write_synced(
            &dir.config_path(),
            t.to_record(settings).to_toml().as_bytes(),
        )
        .map_err(|e| cannot("write", &dir.config_path(), e))?;
        File::create(dir.results_path())
            .and_then(|f| f.sync_all())
            .map_err(|e| cannot("create", &dir.results_path(), e))?;
        sync_dir(path);
        Ok(dir)
    }

    /// Write `DIR/tournament.toml` again (a resume that changed a setting, see
    /// [`crate::settings`]): atomically, so a kill leaves the old file or the new one.
    pub fn rewrite_config(&self, file: &ConfigFile) -> Result<(), Error> {
        let path = self.config_path();
        let tmp = self.path.join(format!(".{CONFIG_FILE}.tmp"));
        write_synced(&tmp, file.to_toml().as_bytes())
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| self.unwritable(&path, e))?;
        sync_dir(&self.path);
        Ok(())
    }

    /// A file of this directory cannot be written: the games so far are safe; the fix.
    pub fn unwritable(&self, file: &Path, e: std::io::Error) -> Error {
        Error::Disk(format!(
            "{}: cannot write: {e}\n  the tournament directory {} cannot be written (a \
             read-only file system, an immutable file, permissions, a full disk?); the games \
             recorded so far are safe\n  fix: make it writable (mount it read-write, `chattr -i`, \
             free space...), then run `{}`; to read the standings only: `durak standings {}`",
            file.display(),
            self.path.display(),
            resume_command(&self.path),
            quote_path(&self.path)
        ))
    }

    /// Open an existing tournament directory and read its configuration. With `check_bots`, the
    /// bots must still exist (to play); without, only the record is read (standings).
    pub fn open(path: &Path, check_bots: bool) -> Result<(TournamentDir, Tournament), Error> {
        let dir = TournamentDir {
            path: path.to_path_buf(),
        };
        let config = dir.config_path();
        if !config.is_file() {
            let what = if path.is_dir() {
                "is not a tournament directory"
            } else {
                "does not exist"
            };
            return Err(invalid_error!(
                "{}: {what} (there is no {})\n  fix: give a directory made by `durak tournament` \
                 (by default under tournaments-out/)",
                path.display(),
                config.display()
            ));
        }
        let file = ConfigFile::load(&config)?;
        if file.tournament.seed.is_none() {
            return Err(invalid_error!(
                "{}: the configuration has no seed\n  fix: this file was not written by `durak \
                 tournament`; start the tournament again",
                config.display()
            ));
        }
        let input = Input {
            file: Some((config.clone(), file)),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            check_bots,
            ..Input::default()
        };
        let t = input.resolve().map_err(|e| {
            invalid_error!(
                "{e}\n  (in the tournament directory {}: was the bot moved or removed?)",
                path.display()
            )
        })?;
        Ok((dir, t))
    }

    /// `tournament.toml` as written, and the run settings it records (see [`crate::settings`]).
    pub fn recorded(&self) -> Result<(ConfigFile, Settings), Error> {
        let config = self.config_path();
        let file = ConfigFile::load(&config)?;
        let settings = Input {
            file: Some((config, file.clone())),
            ..Input::default()
        }
        .resolve_settings()?;
        Ok((file, settings))
    }

    /// Read `results.jsonl` whole; a torn final line is reported, any other bad line is an
    /// error. (A run reads it line by line.)
    pub fn read_results(&self) -> Result<ReadResults, Error> {
        read_results_file(&self.results_path())
    }

    /// Games recorded (whole lines of `results.jsonl`), counted without keeping them.
    pub fn count_results(&self) -> usize {
        LineReader::open(&self.results_path())
            .map(|r| r.take_while(Result::is_ok).count())
            .unwrap_or(0)
    }

    /// The standings of what is recorded, reading `results.jsonl` one line at a time into the
    /// standings builder (which takes lines in any order, in memory that does not grow with
    /// them).
    pub fn standings(&self, t: &Tournament) -> Result<Standings, Error> {
        let mut b = Standings::builder(t);
        for l in LineReader::open(&self.results_path())? {
            b.add(&l?.line);
        }
        Ok(b.finish())
    }

    /// Hold the directory for a run that writes to it: an exclusive `flock` on the results
    /// file, released when the [`DirLock`] drops or the process dies (even by SIGKILL). A
    /// second run on the same directory is refused instead of playing every game again.
    ///
    /// The results file is opened for appending here, so a directory that cannot be written
    /// is found before anything is read or played ([`Error::Disk`]).
    pub fn lock(&self) -> Result<DirLock, Error> {
        let path = self.results_path();
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| self.unwritable(&path, e))?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(DirLock { _file: file }),
            Err(rustix::io::Errno::WOULDBLOCK) => Err(Error::Invalid(format!(
                "{}: another `durak tournament` is running on this directory (it holds {} \
                 locked)\n  fix: let it finish, or stop it and run `{}`",
                self.path.display(),
                RESULTS_FILE,
                resume_command(&self.path)
            ))),
            Err(e) => Err(Error::Disk(format!("{}: cannot lock: {e}", path.display()))),
        }
    }

    /// Replays that result lines name but that are not there (deleted or moved by hand).
    pub fn missing_replays(&self, lines: &[ResultLine]) -> Vec<PathBuf> {
        lines
            .iter()
            .filter_map(|l| l.replay.as_ref().map(|r| self.path.join(r)))
            .filter(|p| !p.is_file())
            .collect()
    }

    /// Make the directory ready to resume: cut a torn final line, remove replays that were being
    /// written when the referee died.
    pub fn repair(&self, read: &ReadResults) -> Result<(), Error> {
        self.repair_to(read.torn_tail.then_some(read.valid_len))
    }

    /// [`TournamentDir::repair`], the file cut at `valid_len` when its last line is torn.
    pub fn repair_to(&self, torn: Option<u64>) -> Result<(), Error> {
        let path = self.results_path();
        if let Some(valid_len) = torn {
            let f = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| disk_error!("{}: {e}", path.display()))?;
            f.set_len(valid_len)
                .and_then(|_| f.sync_all())
                .map_err(|e| {
                    disk_error!("{}: cannot cut the torn last line: {e}", path.display())
                })?;
        }
        if let Ok(entries) = std::fs::read_dir(self.replays_path()) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with(".replay-") && name.ends_with(".tmp") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(())
    }

    pub fn appender(&self) -> Result<ResultsWriter, Error> {
        self.appender_of(&self.results_path())
    }

    /// `pending.jsonl` anew with `lines` (the finished games a resume takes in), made
    /// durable, and its appender.
    pub fn restart_pending(&self, lines: &[ResultLine]) -> Result<ResultsWriter, Error> {
        let path = self.pending_path();
        let tmp = self.path.join(format!(".{PENDING_FILE}.tmp"));
        let mut text = String::new();
        for l in lines {
            text.push_str(&serde_json::to_string(l).map_err(|e| Error::Run(e.to_string()))?);
            text.push('\n');
        }
        write_synced(&tmp, text.as_bytes())
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| disk_error!("{}: cannot write: {e}", path.display()))?;
        sync_dir(&self.path);
        self.appender_of(&path)
    }

    fn appender_of(&self, path: &Path) -> Result<ResultsWriter, Error> {
        let path = path.to_path_buf();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| disk_error!("{}: cannot open for appending: {e}", path.display()))?;
        Ok(ResultsWriter { file })
    }
}

/// Appends result lines, fsynced before `append_all` returns.
pub struct ResultsWriter {
    file: File,
}

impl ResultsWriter {
    /// Append several lines with one write and one fsync (a group commit).
    pub fn append_all(&mut self, lines: &[&ResultLine]) -> std::io::Result<()> {
        let mut text = String::new();
        for line in lines {
            text.push_str(&serde_json::to_string(line).map_err(std::io::Error::other)?);
            text.push('\n');
        }
        self.append_text(&text)
    }

    /// Append lines already serialised (each ending in a newline), with one write and one
    /// fsync.
    pub fn append_text(&mut self, text: &str) -> std::io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.append_text_unsynced(text)?;
        self.file.sync_data()
    }

    /// [`ResultsWriter::append_text`] without the fsync: in the page cache, safe from a kill
    /// (not from a power cut) as soon as this returns.
    pub fn append_text_unsynced(&mut self, text: &str) -> std::io::Result<()> {
        // One write: a kill leaves whole lines and at most one cut last line (then dropped).
        self.file.write_all(text.as_bytes())
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(path) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A finished game's line with id `id` (shared by the unit tests that read lines back).
    pub(crate) fn line(id: u64) -> ResultLine {
        ResultLine {
            id,
            table: 0,
            game: id as u32,
            deal: Some(id as u32),
            seats: vec!["a".into(), "b".into()],
            seed: 7,
            dealer: 0,
            loser: Some(1),
            durak: Some("b".into()),
            draw: false,
            faults: vec![],
            moves: 40,
            replay: Some(format!("replays/t0000-g{id:04}.jsonl")),
            duration_ms: 12,
            disqualified: vec![],
            voided: Vec::new(),
            void: false,
            move_limit: None,
        }
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let td = TournamentDir {
            path: dir.path().to_path_buf(),
        };
        let mut w = td.appender().unwrap();
        w.append_all(&[&line(0)]).unwrap();
        w.append_all(&[&line(1)]).unwrap();
        let whole = std::fs::read(td.results_path()).unwrap();
        let mut torn = whole.clone();
        let third = serde_json::to_string(&line(2)).unwrap();
        torn.extend_from_slice(&third.as_bytes()[..20]);
        std::fs::write(td.results_path(), &torn).unwrap();
        let r = td.read_results().unwrap();
        assert_eq!(r.lines, vec![line(0), line(1)]);
        assert!(r.torn_tail);
        assert_eq!(r.valid_len, whole.len() as u64);
        td.repair(&r).unwrap();
        assert_eq!(std::fs::read(td.results_path()).unwrap(), whole);
        let mut w = td.appender().unwrap();
        w.append_all(&[&line(2)]).unwrap();
        assert_eq!(td.read_results().unwrap().lines.len(), 3);
    }

    /// A group commit appends its lines in order, after the lines already there.
    #[test]
    fn a_group_of_lines_is_appended_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let td = TournamentDir {
            path: dir.path().to_path_buf(),
        };
        let mut w = td.appender().unwrap();
        w.append_all(&[&line(0)]).unwrap();
        w.append_all(&[&line(3), &line(1), &line(2)]).unwrap();
        w.append_all(&[]).unwrap();
        let r = td.read_results().unwrap();
        assert_eq!(r.lines, vec![line(0), line(3), line(1), line(2)]);
        assert!(!r.torn_tail);
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(RESULTS_FILE);
        std::fs::write(&p, "{\"id\": 1}\n").unwrap();
        let e = read_results_file(&p).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
    }
}
