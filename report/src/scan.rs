//! One pass over the games, in id order, one replay in memory at a time: each game's page, its
//! row of the games list (written in chunks of [`CHUNK`] ids), the id lists the list filters
//! and sorts with, each bot's decision times and faults, and (unless `ReportInput::analyze` is
//! off) each game's endgame analysis: the values on its page, each bot's endgame accuracy.

use crate::{bot_href, Written};
use durak_replay::analyze::{analyze_within, Accuracy};
use durak_replay::html::data::endgame_codes;
use durak_replay::html::{game_page, GameContext};
use durak_replay::{read_replay, simulate};
use durak_tournaments::results::ResultLine;
use durak_tournaments::Tournament;
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The solver's budget per decision when the report analyses a game's endgame (issue 26): a
/// tenth of `durak analyze`'s default, so that the rare huge endgame costs a report about 0.1 s a
/// decision, not a second (docs/BENCHMARKS.md); a position over it is "not solved", never
/// guessed, and left out of the accuracy (`durak analyze --budget` values it).
pub const ANALYSIS_BUDGET: u64 = 200_000;

/// Ids per chunk file of the games list.
pub const CHUNK: usize = 200;
/// Game pages per folder (`g/NNN/`).
pub const PER_FOLDER: u64 = 1000;
/// Faults listed per bot and kind on its page (the games list filters them all).
pub const FAULTS_LISTED: usize = 100;

/// A game's page, relative to the report's folder.
pub fn game_href(id: u64) -> String {
    format!("g/{:03}/{id}.html", id / PER_FOLDER)
}

/// One fault of a bot, for its page.
#[derive(Clone, Debug)]
pub struct FaultSeen {
    pub id: u64,
    pub detail: String,
}

/// A bot's decisions and faults, from the replays.
pub struct BotScan {
    /// Answer times in microseconds.
    pub times: Histogram<u64>,
    /// Kind → the first [`FAULTS_LISTED`] faults, and how many in all.
    pub faults: BTreeMap<String, (Vec<FaultSeen>, u64)>,
    /// Its endgame accuracy (issue 26), over the games analysed.
    pub endgame: Accuracy,
    /// The first [`FAULTS_LISTED`] games in which it blundered: (id, the step of its first
    /// blunder).
    pub blunder_games: Vec<(u64, usize)>,
}

impl BotScan {
    fn new() -> BotScan {
        BotScan {
            times: Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds"),
            faults: BTreeMap::new(),
            endgame: Accuracy::default(),
            blunder_games: Vec::new(),
        }
    }

    /// (median, p95, max) in ms, or `None` without a timed decision.
    pub fn time_summary(&self) -> Option<(f64, f64, f64)> {
        if self.times.is_empty() {
            return None;
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Some((
            ms(self.times.value_at_quantile(0.5)),
            ms(self.times.value_at_quantile(0.95)),
            ms(self.times.max()),
        ))
    }
}

/// The id lists the games list reads to filter and sort without every row (`data/list-*.js`):
/// ids in increasing order, each with its moves and duration, and for a bot's list what the
/// game was to it.
#[derive(Default, Serialize)]
pub struct IdList {
    /// The ids as differences from the previous one (the first from 0).
    pub ids: Vec<u64>,
    pub moves: Vec<u32>,
    pub ms: Vec<u64>,
    /// Per game, for a bot's list: 0 the bot was the durak, 1 it was not, 2 a draw.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub out: Vec<u8>,
    #[serde(skip)]
    last: Option<u64>,
}

impl IdList {
    fn push(&mut self, l: &ResultLine, out: Option<u8>) {
        self.ids.push(l.id - self.last.unwrap_or(0));
        self.last = Some(l.id);
        self.moves.push(l.moves);
        self.ms.push(l.duration_ms);
        if let Some(o) = out {
            self.out.push(o);
        }
    }
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// What the pass found.
pub struct Scan {
    pub bots: Vec<BotScan>,
    /// `all`, `bot-K`, `faults`, `fault-KIND`, `draws`, `unverified`.
    pub lists: BTreeMap<String, IdList>,
    pub verified: u64,
    pub unverified: u64,
    pub missing: u64,
    pub chunks: usize,
    /// Whether the games' endgames were analysed (`ReportInput::analyze`).
    pub analysed: bool,
}

/// A row of the games list, as the list's script reads it.
#[derive(Serialize)]
struct Row<'a> {
    id: u64,
    table: u32,
    game: u32,
    deal: Option<u32>,
    /// Bot index at each seat.
    seats: Vec<Option<usize>>,
    loser: Option<usize>,
    draw: bool,
    /// `seat kind` each.
    faults: Vec<(usize, &'a str)>,
    moves: u32,
    ms: u64,
    /// 1 verified, 0 not, -1 no readable replay.
    v: i8,
}

fn js_call(f: &str, args: &str) -> String {
    // JSON is JavaScript; `<` escaped anyway (a file, but keep it inert everywhere).
    format!("durakGames.{f}({});\n", args.replace('<', "\\u003c"))
}

/// Said on a game's page whose bots' stderr was left out (`ReportInput::hide_stderr`).
pub const STDERR_HIDDEN: &str =
    "The bots' logs (stderr) are left out of this public report: each is visible to its author only, on the judge service's page of the ladder's games.";

/// Run the pass: game pages under `out/g/`, row chunks under `out/data/`.
pub fn scan(
    t: &Tournament,
    tournament_dir: &Path,
    lines: &[&ResultLine],
    out: &Path,
    written: &mut Written,
    hide_stderr: bool,
    analyse: bool,
) -> crate::Result<Scan> {
    let mut s = Scanner {
        t,
        tournament_dir,
        out,
        hide_stderr,
        analyse,
        index: t
            .bots
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.as_str(), i))
            .collect(),
        bots: t.bots.iter().map(|_| BotScan::new()).collect(),
        lists: BTreeMap::from([("all".to_string(), IdList::default())]),
        counts: [0; 3],
    };
    // Rows in chunks by id: chunk k holds the games with ids k*CHUNK to (k+1)*CHUNK-1.
    let mut rows: Vec<String> = Vec::new();
    let mut chunk: Option<u64> = None;
    let mut chunks = 0;
    let data = out.join("data");
    let flush = |rows: &mut Vec<String>, chunk: u64, chunks: &mut usize, written: &mut Written| {
        let text = js_call("rows", &format!("{chunk}, [{}]", rows.join(",\n")));
        written.write(&data.join(format!("rows-{chunk:05}.js")), &text)?;
        *chunks += 1;
        rows.clear();
        Ok::<(), crate::Error>(())
    };
    for l in lines {
        let k = l.id / CHUNK as u64;
        if let Some(c) = chunk.filter(|&c| c != k) {
            flush(&mut rows, c, &mut chunks, written)?;
        }
        chunk = Some(k);
        rows.push(s.game(l, written)?);
    }
    if let Some(c) = chunk {
        flush(&mut rows, c, &mut chunks, written)?;
    }
    for (name, list) in &s.lists {
        let text = js_call(
            "list",
            &format!(
                "{}, {}",
                serde_json::to_string(name).unwrap(),
                serde_json::to_string(list).unwrap()
            ),
        );
        written.write(&data.join(format!("list-{name}.js")), &text)?;
    }
    let [verified, unverified, missing] = s.counts;
    Ok(Scan {
        bots: s.bots,
        lists: s.lists,
        verified,
        unverified,
        missing,
        chunks,
        analysed: analyse,
    })
}

/// The pass over the games: what it was given, and what it has gathered so far.
struct Scanner<'a> {
    t: &'a Tournament,
    tournament_dir: &'a Path,
    out: &'a Path,
    hide_stderr: bool,
    analyse: bool,
    /// Bot index by name.
    index: BTreeMap<&'a str, usize>,
    bots: Vec<BotScan>,
    lists: BTreeMap<String, IdList>,
    /// Games verified, not verified, without a readable replay.
    counts: [u64; 3],
}

impl Scanner<'_> {
    /// One game: its page (when its replay can be read), its place in the lists and the bots'
    /// figures; returns its row of the games list.
    fn game(&mut self, l: &ResultLine, written: &mut Written) -> crate::Result<String> {
        let seats: Vec<Option<usize>> = l
            .seats
            .iter()
            .map(|s| self.index.get(s.as_str()).copied())
            .collect();
        let v = self.page(l, &seats, written)?;
        self.counts[match v {
            1 => 0,
            0 => 1,
            _ => 2,
        }] += 1;
        self.file(l, &seats, v);
        let row = Row {
            id: l.id,
            table: l.table,
            game: l.game,
            deal: l.deal,
            seats,
            loser: l.loser,
            draw: l.draw,
            faults: l.faults.iter().map(|f| (f.seat, f.kind.name())).collect(),
            moves: l.moves,
            ms: l.duration_ms,
            v,
        };
        Ok(serde_json::to_string(&row).expect("a row serializes"))
    }

    /// The game's page from its replay, re-simulated (and its endgame analysed); the bots'
    /// answer times and endgame accuracy. Returns 1 verified, 0 not, -1 no readable replay.
    fn page(
        &mut self,
        l: &ResultLine,
        seats: &[Option<usize>],
        written: &mut Written,
    ) -> crate::Result<i8> {
        let (t, out, bots) = (self.t, self.out, &mut self.bots);
        let (hide_stderr, analyse) = (self.hide_stderr, self.analyse);
        let replay_path: Option<PathBuf> = l.replay.as_ref().map(|r| self.tournament_dir.join(r));
        let mut v = -1i8;
        if let Some(p) = replay_path.as_ref().filter(|p| p.is_file()) {
            if let Ok(mut replay) = read_replay(p) {
                let mut notes = Vec::new();
                if hide_stderr {
                    let before = replay.lines.len();
                    replay
                        .lines
                        .retain(|l| !matches!(l.record, durak_replay::read::Record::Stderr { .. }));
                    if replay.lines.len() < before {
                        notes.push(STDERR_HIDDEN.to_string());
                    }
                }
                let sim = simulate(&replay);
                v = i8::from(sim.verified());
                // The endgame's values, for the page and the bots' accuracy (a fresh solver per
                // game, so that its values never depend on the games before it).
                let mut endgame = Vec::new();
                if analyse {
                    let a = analyze_within(&sim, ANALYSIS_BUDGET);
                    for (seat, b) in seats.iter().enumerate() {
                        let (Some(b), Some(s)) = (b, a.seats.get(seat)) else {
                            continue;
                        };
                        let bot = &mut bots[*b];
                        bot.endgame.add(s);
                        if let Some(step) = s.first_blunder {
                            if bot.blunder_games.len() < FAULTS_LISTED {
                                bot.blunder_games.push((l.id, step));
                            }
                        }
                    }
                    endgame = endgame_codes(&a);
                }
                let depth = "../../";
                let ctx =
                    GameContext {
                        crumbs: vec![
                            (format!("{depth}index.html"), "← tournament".into()),
                            (format!("{depth}games.html"), "all games".into()),
                        ]
                        .into_iter()
                        .chain(seats.iter().flatten().map(|&b| {
                            (format!("{depth}{}", bot_href(t, b)), t.bots[b].name.clone())
                        }))
                        .collect(),
                        place: Some(format!(
                            "table {}, game {} (id {}{})",
                            l.table,
                            l.game,
                            l.id,
                            l.deal.map(|d| format!(", deal {d}")).unwrap_or_default()
                        )),
                        root: depth.into(),
                        notes,
                        endgame,
                    };
                written.write(&out.join(game_href(l.id)), &game_page(&sim, &ctx))?;
                for step in &sim.steps {
                    if let (Some(d), Some(ms)) = (step.decision, step.elapsed_ms) {
                        if let Some(Some(b)) = seats.get(d.seat) {
                            let us = (ms * 1000.0).round().max(1.0) as u64;
                            let _ = bots[*b].times.record(us.min(3_600_000_000));
                        }
                    }
                }
            }
        }
        Ok(v)
    }

    /// The game in the lists it belongs to (all, each of its bots', faults and each kind,
    /// draws, unverified), and its faults in its bots' figures.
    fn file(&mut self, l: &ResultLine, seats: &[Option<usize>], v: i8) {
        self.lists.get_mut("all").unwrap().push(l, None);
        for (seat, b) in seats.iter().enumerate() {
            if let Some(b) = b {
                let o = if l.draw {
                    2
                } else if l.loser == Some(seat) {
                    0
                } else {
                    1
                };
                self.lists
                    .entry(format!("bot-{b}"))
                    .or_default()
                    .push(l, Some(o));
            }
        }
        if !l.faults.is_empty() {
            self.lists.entry("faults".into()).or_default().push(l, None);
            let mut kinds: Vec<&str> = l.faults.iter().map(|f| f.kind.name()).collect();
            kinds.dedup();
            for k in kinds {
                self.lists
                    .entry(format!("fault-{k}"))
                    .or_default()
                    .push(l, None);
            }
            for f in &l.faults {
                if let Some(Some(b)) = seats.get(f.seat) {
                    let e = self.bots[*b]
                        .faults
                        .entry(f.kind.name().to_string())
                        .or_insert_with(|| (Vec::new(), 0));
                    e.1 += 1;
                    if e.0.len() < FAULTS_LISTED {
                        e.0.push(FaultSeen {
                            id: l.id,
                            detail: f.detail.clone(),
                        });
                    }
                }
            }
        }
        if l.draw {
            self.lists.entry("draws".into()).or_default().push(l, None);
        }
        if v != 1 {
            self.lists
                .entry("unverified".into())
                .or_default()
                .push(l, None);
        }
    }
}
