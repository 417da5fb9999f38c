//! Fixed tournaments among the versions in the ladder, started by the organiser: a
//! configuration made from the ladder's settings and its active versions, played by the
//! tournament engine (`durak_tournaments::run_tournament`, duplicate deals) into a
//! `durak tournament` directory under `DATA/tournaments/ID/`, with its standings (text, JSON
//! and HTML, the engine's own report) written there when it ends. One at a time; the ladder
//! goes on meanwhile.

use crate::db::now_ms;
use crate::ladder::Ladder;
use crate::store;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::runner::{RunOptions, Silent};
use durak_tournaments::{run_tournament, Standings, TournamentDir};
use rusqlite::{params, OptionalExtension};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A tournament's row: state, dir, bots (JSON), created, finished, error.
type TournamentRow = (String, String, String, i64, Option<i64>, Option<String>);

#[derive(Default)]
pub struct Tournaments {
    running: Mutex<Option<i64>>,
}

/// A tournament bot's name for a version: `bot-vN` (house bots keep theirs).
fn name_of(v: &store::Version) -> String {
    if v.house {
        v.bot.clone()
    } else {
        format!("{}-v{}", v.bot, v.n)
    }
}

impl Tournaments {
    /// Start one among the active versions, `games` deals per table; returns its id.
    pub fn start(self: &Arc<Self>, ladder: &Arc<Ladder>, games: u32) -> Result<i64, String> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(id) = *running {
            return Err(format!(
                "tournament {id} is still running: one at a time (see /tournaments/{id})"
            ));
        }
        if games == 0 || games > 10_000 {
            return Err("games: give 1 to 10000 deals per table".into());
        }
        let cfg = &ladder.cfg;
        let active = store::versions(&ladder.db, &["active"])?;
        if active.len() < cfg.ladder.table_size {
            return Err(format!(
                "a tournament needs at least {} versions in the ladder, and it has {}",
                cfg.ladder.table_size,
                active.len()
            ));
        }
        let mut bots = Vec::new();
        for v in &active {
            let cwd = if v.house {
                ladder.paths.root.clone()
            } else {
                crate::ladder::executor::version_folder(ladder, v.id)?
                    .ok_or_else(|| format!("version {} has no folder", v.id))?
            };
            bots.push(Bot {
                name: name_of(v),
                command: v.command.clone(),
                cwd,
                own_cwd: !v.house,
                limits: cfg.ladder.limits,
            });
        }
        let mut seed_bytes = [0u8; 8];
        getrandom::fill(&mut seed_bytes).map_err(|e| e.to_string())?;
        let t = Tournament {
            variant: cfg.ladder.variant,
            format: Format::Duplicate,
            table_size: cfg.ladder.table_size,
            games,
            seed: u64::from_le_bytes(seed_bytes) >> 1,
            challenger: None,
            concurrency: Some(1),
            max_consecutive_faults: cfg.ladder.max_consecutive_faults,
            sprt: None,
            bots,
        };
        let names: Vec<String> = active.iter().map(name_of).collect();
        let id = ladder.db.write(|c| {
            c.execute(
                "INSERT INTO tournaments(state, dir, bots, created) VALUES ('running', '', ?1, \
                 ?2)",
                params![serde_json::to_string(&names).expect("json"), now_ms()],
            )?;
            Ok(c.last_insert_rowid())
        })?;
        let dir = ladder.paths.tournaments().join(id.to_string());
        ladder.db.write(|c| {
            c.execute(
                "UPDATE tournaments SET dir = ?1 WHERE id = ?2",
                params![dir.display().to_string(), id],
            )
        })?;
        *running = Some(id);
        let ladder = ladder.clone();
        let me = self.clone();
        std::thread::Builder::new()
            .name(format!("tournament-{id}"))
            .spawn(move || {
                let r = run(&ladder, &t, &dir);
                let (state, error) = match &r {
                    Ok(()) => ("done", None),
                    Err(e) => ("failed", Some(e.clone())),
                };
                let _ = ladder.db.write(|c| {
                    c.execute(
                        "UPDATE tournaments SET state = ?1, error = ?2, finished = ?3 WHERE id = ?4",
                        params![state, error, now_ms(), id],
                    )
                });
                *me.running.lock().unwrap_or_else(|e| e.into_inner()) = None;
            })
            .map_err(|e| e.to_string())?;
        Ok(id)
    }

    /// Its state, and its standings once it is over.
    pub fn view(&self, ladder: &Ladder, id: i64) -> Result<Option<Value>, String> {
        let row: Option<TournamentRow> = ladder.db.read(|c| {
            c.query_row(
                "SELECT state, dir, bots, created, finished, error FROM tournaments WHERE id \
                     = ?1",
                [id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                },
            )
            .optional()
        })?;
        let Some((state, dir, bots, created, finished, error)) = row else {
            return Ok(None);
        };
        let dir = PathBuf::from(dir);
        let standings: Option<Value> = std::fs::read_to_string(dir.join("standings.json"))
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok());
        let played = durak_tournaments::results::read_results_file(&dir.join("results.jsonl"))
            .map(|r| r.lines.len())
            .unwrap_or(0);
        // Named relative to the data directory: answers never show where it is (issue 22).
        let rel = dir.strip_prefix(&ladder.paths.root).unwrap_or(&dir);
        Ok(Some(json!({
            "id": id,
            "state": state,
            "dir": rel,
            "bots": serde_json::from_str::<Value>(&bots).unwrap_or(Value::Null),
            "created": created,
            "finished": finished,
            "error": error,
            "games_played": played,
            "standings": standings,
            "report_dir": rel.join("html"),
            "report": dir.join("html/index.html").is_file().then(|| report_url(id)),
        })))
    }
}

impl Tournaments {
    /// A tournament's directory, if there is one with that id.
    pub fn dir(&self, ladder: &Ladder, id: i64) -> Result<Option<PathBuf>, String> {
        let dir: Option<String> = ladder.db.read(|c| {
            c.query_row("SELECT dir FROM tournaments WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
        })?;
        Ok(dir.filter(|d| !d.is_empty()).map(PathBuf::from))
    }

    /// Every tournament, newest first: id, state, created, finished, and where its report is
    /// once it is written.
    pub fn list(&self, ladder: &Ladder) -> Result<Vec<Value>, String> {
        let rows: Vec<(i64, String, String, i64, Option<i64>)> = ladder.db.read(|c| {
            let mut s = c.prepare(
                "SELECT id, state, dir, created, finished FROM tournaments ORDER BY id DESC",
            )?;
            let rows = s.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            rows.collect()
        })?;
        Ok(rows
            .into_iter()
            .map(|(id, state, dir, created, finished)| {
                let report = PathBuf::from(dir).join("html/index.html").is_file();
                json!({
                    "id": id,
                    "state": state,
                    "created": created,
                    "finished": finished,
                    "url": format!("/tournaments/{id}"),
                    "report": report.then(|| report_url(id)),
                })
            })
            .collect())
    }
}

/// Where a tournament's report is served (`http/reports.rs`).
pub fn report_url(id: i64) -> String {
    format!("/tournaments/{id}/report/index.html")
}

fn run(ladder: &Ladder, t: &Tournament, dir: &std::path::Path) -> Result<(), String> {
    let cfg = &ladder.cfg;
    let settings = durak_tournaments::settings::Settings {
        name: Some(format!(
            "ladder-{}",
            dir.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        )),
        sandbox: cfg.sandbox,
        limits: cfg.resources,
        affinity: durak_tournaments::settings::Affinity::Off,
        html: false,
        shard: None,
        // Plain, as the service's pages and downloads were written for (its readers take both).
        replays: durak_tournaments::settings::ReplayFormat::Plain,
    };
    let td = TournamentDir::create(dir, t, &settings)?;
    let lock = td.lock()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let opts = RunOptions {
        concurrency: 1,
        observer: Arc::new(Silent),
        sandbox: cfg.sandbox,
        resources: cfg.resources,
        cpu_groups: None,
        stop_after: None,
        shard: None,
        replays: durak_tournaments::settings::ReplayFormat::Plain,
        hidden: Vec::new(),
    };
    rt.block_on(run_tournament(t, &td, &lock, opts))?;
    let read = td.read_results()?;
    let s = Standings::compute(t, &read.lines);
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    write("standings.json", s.to_json())?;
    write("standings.txt", s.to_text())?;
    // The tournament report (the report crate's pages) in DIR/html/, as `durak tournament
    // --html` writes it.
    let input = durak_report::ReportInput {
        t,
        dir,
        lines: &read.lines,
        name: None,
        sandbox: Some(cfg.sandbox.name().to_string()),
        hide_stderr: true,
    };
    durak_report::write_report(&input, &dir.join("html"))?;
    Ok(())
}
