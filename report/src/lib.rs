//! # durak-report
//!
//! The tournament report (`durak tournament --html`, `durak standings --html`): web pages in
//! `DIR/html/` that work opened from the folder and served by a web server, with no external
//! resource.
//!
//! - `index.html`: the header (name, variant, format, seed, limits, sandbox, dates, the bots and
//!   their commands), the standings with their ties (`=2`), charts (Elo and loss rate with their
//!   intervals, head to head and LOS as heat maps, Elo as games accumulate), the pairs, links to
//!   the raw data (`games.csv`, `standings.csv`, `standings.json`, and copies of the
//!   tournament's `results.jsonl` and `tournament.toml` in `data/`, so that the folder
//!   published alone keeps every link). Every figure comes from [`Standings`] (its data, not its HTML).
//! - `bots/NAME.html`: a bot's figures, time per decision (median, p95, max), faults by kind with
//!   links to the games, its endgame accuracy (the share of its solved endgame decisions that
//!   kept its value, the blunders, links to the games at their first blunder), head to head, its
//!   games.
//! - `games.html`: every game, sorted and filtered (bot, result, fault) by `report.js`, which
//!   loads rows 200 at a time (`data/rows-*.js`) and the id lists a filter or sort needs
//!   (`data/list-*.js`), never every row at once.
//! - `g/NNN/ID.html`: each game's page (the replay viewer), with its endgame's values.
//!
//! [`site_page`] and [`ASSETS`] give other sites the report's look (the judge service's pages,
//! `durak serve`, use them).
//!
//! Writing it reads one replay at a time ([`scan`]); what it keeps grows with the number of
//! games by a few numbers a game (the id lists), not by their replays.

pub mod charts;
pub mod endgame;
mod error;
pub mod pages;
pub mod scan;

pub use error::{Error, Result};

use durak_replay::html::layout::{self, Asset, Page};
use durak_tournaments::results::ResultLine;
use durak_tournaments::{Standings, Tournament};
use std::path::{Path, PathBuf};

pub const REPORT_CSS: Asset = Asset::new("report", "css", include_str!("page/report.css"));
pub const REPORT_JS: Asset = Asset::new("report", "js", include_str!("page/report.js"));

/// Every file the report's pages load (the shared style, the viewer's, the report's), for a
/// server that serves them under one folder.
pub const ASSETS: [Asset; 5] = [
    layout::SITE_CSS,
    layout::VIEWER_CSS,
    layout::VIEWER_JS,
    REPORT_CSS,
    REPORT_JS,
];

/// A page with the report's look (the one layout of `durak_replay::html::layout`, the report's
/// style and script), for the report's own pages and for other sites that share its look (the
/// judge service's, `durak serve`): `root` is where the [`ASSETS`] are (`""`, `"../"`,
/// `"/assets/"`), `crumbs` the navigation above the body, `styles` and `scripts` the caller's
/// own files after the report's (under `root` too).
pub fn site_page(
    title: &str,
    root: &str,
    crumbs: &[(String, String)],
    styles: &[Asset],
    scripts: &[Asset],
    body: maud::Markup,
) -> String {
    let styles: Vec<Asset> = std::iter::once(REPORT_CSS)
        .chain(styles.iter().copied())
        .collect();
    let scripts: Vec<Asset> = std::iter::once(REPORT_JS)
        .chain(scripts.iter().copied())
        .collect();
    layout::page(Page {
        title,
        root,
        styles: &styles,
        scripts: &scripts,
        class: "report",
        crumbs,
        body,
    })
}

/// What the report is of.
pub struct ReportInput<'a> {
    pub t: &'a Tournament,
    /// The tournament directory (its `replays/`, `results.jsonl`, `tournament.toml`).
    pub dir: &'a Path,
    /// The result lines, in any order.
    pub lines: &'a [ResultLine],
    /// The tournament's name (`[tournament] name`); `None`: the directory's name.
    pub name: Option<String>,
    /// `default` or `strict`, when known (the run that wrote the results knows it).
    pub sandbox: Option<String>,
    /// Leave the bots' stderr out of the game pages, saying so (the judge service's reports are
    /// public, and a bot's log is its author's).
    pub hide_stderr: bool,
    /// Analyse each game's endgame (`durak analyze`, issue 26): its values and blunders on the
    /// game's page, each bot's endgame accuracy on its page. Costs solver time
    /// (docs/BENCHMARKS.md); `durak standings --html --no-analysis` leaves it out.
    pub analyze: bool,
}

/// A bot's page, relative to the report's folder: its index (so that two names never share a
/// page) and its name, letters, digits, `-` and `_` kept, the rest `_`.
pub fn bot_href(t: &Tournament, i: usize) -> String {
    format!("bots/{i:02}-{}.html", slug(&t.bots[i].name))
}

fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "bot".into()
    } else {
        s
    }
}

/// Counts what is written (files, bytes) and names the file in any error.
#[derive(Default)]
pub struct Written {
    pub files: u64,
    pub bytes: u64,
}

impl Written {
    pub fn write(&mut self, path: &Path, text: &str) -> Result<()> {
        if let Some(d) = path.parent() {
            create_dir(d)?;
        }
        std::fs::write(path, text).map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })?;
        self.files += 1;
        self.bytes += text.len() as u64;
        Ok(())
    }

    /// A copy of `from` at `to` (a file of the tournament the pages link to).
    pub fn copy(&mut self, from: &Path, to: &Path) -> Result<()> {
        if let Some(d) = to.parent() {
            create_dir(d)?;
        }
        let n = std::fs::copy(from, to).map_err(|source| Error::Copy {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            source,
        })?;
        self.files += 1;
        self.bytes += n;
        Ok(())
    }
}

fn create_dir(path: &Path) -> Result<()> {
    std::fs::create_dir_all(path).map_err(|source| Error::CreateDir {
        path: path.to_path_buf(),
        source,
    })
}

/// Write the report into `out` (created if need be); returns the index page's path.
pub fn write_report(input: &ReportInput<'_>, out: &Path) -> Result<PathBuf> {
    let t = input.t;
    create_dir(out)?;
    let assets = |source| Error::Assets {
        dir: out.to_path_buf(),
        source,
    };
    layout::write_assets(out).map_err(assets)?;
    for a in [REPORT_CSS, REPORT_JS] {
        a.write_into(out).map_err(assets)?;
    }
    let mut lines: Vec<&ResultLine> = input.lines.iter().collect();
    lines.sort_by_key(|l| l.id);
    let mut written = Written::default();
    // Standings as games accumulate, for the convergence chart: the builder's aggregates are
    // small, so a copy is finished at each checkpoint.
    let checkpoints = 24.min(lines.len().max(1));
    let mut builder = Standings::builder(t);
    let mut history = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        builder.add(l);
        let n = i + 1;
        if n * checkpoints / lines.len() != i * checkpoints / lines.len() || n == lines.len() {
            history.push((n, builder.clone().finish()));
        }
    }
    let standings = builder.finish();
    let scan = scan::scan(
        t,
        input.dir,
        &lines,
        out,
        &mut written,
        input.hide_stderr,
        input.analyze,
    )?;
    pages::write_games_csv(t, &lines, &out.join("games.csv"), &mut written)?;
    for f in ["results.jsonl", "tournament.toml"] {
        written.copy(&input.dir.join(f), &out.join("data").join(f))?;
    }
    written.write(&out.join("standings.csv"), &standings.to_csv())?;
    written.write(&out.join("standings.json"), &standings.to_json())?;
    let ctx = pages::Context {
        input,
        standings: &standings,
        history: &history,
        scan: &scan,
        games: lines.len(),
    };
    pages::write_meta(&ctx, out, &mut written)?;
    written.write(&out.join("games.html"), &pages::games_page(&ctx))?;
    for (i, b) in t.bots.iter().enumerate() {
        let _ = b;
        written.write(&out.join(bot_href(t, i)), &pages::bot_page(&ctx, i))?;
    }
    let index = out.join("index.html");
    written.write(&index, &pages::index_page(&ctx))?;
    Ok(index)
}
