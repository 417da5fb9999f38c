//! The tournament report (issue 13): `durak tournament --html` on a small tournament with a bot
//! that cannot start (faults, a disqualification, forfeits) and names that need escaping. The
//! pages hold what the standings say (ranks with their ties, figures), a page per bot and per
//! game, the games list's data (every game, the lists its filters read), the raw data; in
//! Chromium the charts render, the games list filters and sorts, nothing overflows at 400 px
//! and no page logs anything to the console.

mod common;

use common::browser::{between, console_lines, measure, run_chromium, serve, url};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

/// One tournament for every test here: four bots at tables of three, a name with markup, a bot
/// that cannot start, a real process that writes notes on stderr (its timings and stderr go in
/// the pages: they count in the 15 KB of a game's page).
fn tournament() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report");
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let config = base.join("t.toml");
        let notes = Path::new(env!("CARGO_MANIFEST_DIR")).join("replay/tests/data/notes_bot.py");
        std::fs::write(
            &config,
            format!(
                r#"[tournament]
variant = "podkidnoy"
table_size = 3
games = 4
seed = 21
max_consecutive_faults = 2

[[bot]]
name = "greedy"
command = "builtin:greedy"

[[bot]]
name = "<i>random</i> & 'co'"
command = "builtin:random"

[[bot]]
name = "notes"
command = "python3 {}"

[[bot]]
name = "crasher"
command = "sh -c 'exit 3'"
"#,
                notes.display()
            ),
        )
        .unwrap();
        let out = base.join("t");
        let o = Command::new(DURAK)
            .args(["tournament", "--quiet", "--html", "-c"])
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        out
    })
}

/// A two-seat SPRT gauntlet of the built-in bots, for every test here that needs one.
fn gauntlet() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-gauntlet");
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let out = base.join("s");
        let o = Command::new(DURAK)
            .args(["tournament", "--quiet", "--html", "--format", "gauntlet"])
            .args([
                "--challenger",
                "builtin:greedy",
                "--sprt",
                "0,20",
                "--seed",
                "5",
            ])
            .arg("--out")
            .arg(&out)
            .args(["builtin:greedy", "builtin:random"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    })
}

fn results(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_report_holds_the_standings_bots_and_games() {
    let dir = tournament();
    let html = dir.join("html");
    let index = read(&html.join("index.html"));
    let standings: Value = serde_json::from_str(&read(&html.join("standings.json"))).unwrap();
    // The header.
    assert!(index.contains("<h1>Durak tournament t</h1>"), "{index}");
    assert!(
        index.contains("podkidnoy · duplicate deals · tables of 3 · 4 games per table · seed 21")
    );
    assert!(index.contains("sandbox default"));
    // The bots with their commands, in the header (not at the page's foot).
    let head = between(&index, "<header class=\"report\">", "</header>");
    assert!(
        head.contains("<code>sh -c &#39;exit 3&#39;</code>")
            || head.contains("<code>sh -c 'exit 3'</code>"),
        "{head}"
    );
    assert!(head.contains("<code>builtin:greedy</code>"), "{head}");
    assert!(head.contains("notes_bot.py</code>"), "{head}");
    // Names are text, never markup.
    assert!(!index.contains("<i>random</i>"));
    assert!(index.contains("&lt;i&gt;random&lt;/i&gt; &amp; 'co'"));
    // Each bot's rank as the standings print it (a tie is "=N"), in their order.
    let table = between(&index, "<table class=\"sortable standings\">", "</table>");
    let mut at = 0;
    for b in standings["standings"].as_array().unwrap() {
        let label = b["rank_label"].as_str().unwrap();
        let cell = format!("\">{label}</td>");
        let i = table[at..]
            .find(&cell)
            .unwrap_or_else(|| panic!("rank {label} in order: {table}"));
        at += i + cell.len();
    }
    // The charts: Elo and loss rate with intervals, two heat maps, the convergence.
    assert_eq!(index.matches("<svg").count(), 5, "five charts");
    assert_eq!(
        index.matches("class=\"interval\"").count(),
        8,
        "4 bots × 2 interval charts"
    );
    // Links to the raw data, and the data is there.
    for f in ["games.csv", "standings.csv", "standings.json", "games.html"] {
        assert!(index.contains(&format!("href=\"{f}\"")), "{f}");
        assert!(html.join(f).is_file(), "{f}");
    }
    for f in ["data/results.jsonl", "data/tournament.toml"] {
        assert!(index.contains(&format!("href=\"{f}\"")), "{f}");
    }
    assert_eq!(
        read(&html.join("data/results.jsonl")),
        read(&dir.join("results.jsonl"))
    );

    let lines = results(dir);
    // games.csv: one row per game, through the csv crate's quoting.
    let mut csv = csv::Reader::from_path(html.join("games.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = csv.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), lines.len());
    assert!(rows.iter().any(|r| r[4].contains("<i>random</i> & 'co'")));
    // A page per game with a replay (at most 15 KB each, the notes bot's stderr included),
    // linked to the bots' pages.
    let mut with_notes = 0;
    for l in &lines {
        let id = l["id"].as_u64().unwrap();
        let page = html.join(format!("g/{:03}/{id}.html", id / 1000));
        let text = read(&page);
        assert!(
            text.len() <= 15 * 1024,
            "{}: {} bytes",
            page.display(),
            text.len()
        );
        assert!(text.contains("href=\"../../index.html\""));
        assert!(
            text.contains(&format!("(id {id}")),
            "the title says which game"
        );
        with_notes += usize::from(text.contains("request ") && text.contains("cards -> "));
    }
    assert!(
        with_notes > 0,
        "the notes bot's stderr is in its games' pages"
    );
    // The games list's data: every game in the rows, the fault list as results.jsonl has it.
    let meta = read(&html.join("data/meta.js"));
    assert!(
        meta.contains(&format!("\"count\":{}", lines.len())),
        "{meta}"
    );
    let faulted = lines
        .iter()
        .filter(|l| !l["faults"].as_array().unwrap().is_empty())
        .count();
    assert!(faulted > 0);
    assert!(meta.contains(&format!("\"faults\":{faulted}")), "{meta}");
    let mut rows_seen = 0;
    for e in std::fs::read_dir(html.join("data")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("rows-") {
            rows_seen += read(&e.path()).matches("{\"id\":").count();
        }
    }
    assert_eq!(rows_seen, lines.len());

    // The crasher's page: its faults by kind, each linked to its game.
    let bots: Vec<PathBuf> = std::fs::read_dir(html.join("bots"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(bots.len(), 4);
    let crasher = read(
        bots.iter()
            .find(|p| p.to_string_lossy().contains("crasher"))
            .unwrap(),
    );
    assert!(crasher.contains("<h3>start_failed · "), "{crasher}");
    assert!(crasher.contains("<h3>forfeit · "), "{crasher}");
    assert!(crasher.contains("href=\"../g/000/"), "links to its games");
    let greedy = read(
        bots.iter()
            .find(|p| p.to_string_lossy().contains("greedy"))
            .unwrap(),
    );
    assert!(greedy.contains("<th>median</th>"), "time per decision");
    assert!(greedy.contains("<th>95th percentile</th>"));
}

/// Every `href` and `src` of a page that names a file (not an anchor, a `data:` address or
/// another site), resolved from the page's folder.
fn local_links(page: &Path) -> Vec<PathBuf> {
    let text = read(page);
    let mut out = Vec::new();
    for key in ["href=\"", "src=\""] {
        for part in text.split(key).skip(1) {
            let target = part.split('"').next().unwrap();
            let file = target.split(['#', '?']).next().unwrap();
            if file.is_empty() || file.starts_with("data:") || file.contains("://") {
                continue;
            }
            out.push(page.parent().unwrap().join(file));
        }
    }
    out
}

/// README step 5: publish `DIR/html/`. Copied alone, every page's every link (the raw data
/// included: `results.jsonl` and `tournament.toml` are copied into `html/data/`) still finds
/// its file.
#[test]
fn the_html_folder_alone_keeps_every_link() {
    let html = tournament().join("html");
    let published = tempfile::tempdir().unwrap();
    let copy = published.path().join("site");
    copy_tree(&html, &copy);
    let pages = pages_under(&copy);
    assert!(pages.len() > 10, "{pages:?}");
    let mut checked = 0;
    for page in &pages {
        for link in local_links(page) {
            assert!(
                link.is_file(),
                "{}: the link to {} finds nothing",
                page.display(),
                link.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} links");
    let index = local_links(&copy.join("index.html"));
    for f in ["results.jsonl", "tournament.toml"] {
        assert!(index.iter().any(|l| l.ends_with(f)), "index links to {f}");
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn attr(dom: &str, el: &str, name: &str) -> String {
    let i = dom.find(el).unwrap_or_else(|| panic!("no {el}"));
    let tag = &dom[i..i + dom[i..].find('>').unwrap()];
    let key = format!("{name}=\"");
    let j = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"));
    tag[j + key.len()..].split('"').next().unwrap().to_string()
}

/// The games list in Chromium: every game, then filtered and sorted, each count as the results
/// say; the data loads from the folder (file://), a chunk at a time.
#[test]
fn the_games_list_filters_and_sorts() {
    let browser = require_chromium!();
    let dir = tournament();
    let games = dir.join("html/games.html");
    let lines = results(dir);
    let list = |fragment: &str| -> String {
        let (out, err) = run_chromium(
            browser,
            &url(&games, fragment),
            &["--dump-dom", "--virtual-time-budget=3000"],
        );
        let console = console_lines(&err);
        assert!(console.is_empty(), "#{fragment}: {console:#?}");
        out
    };
    let all = list("");
    assert_eq!(
        attr(&all, "class=\"games-list\"", "data-total"),
        lines.len().to_string()
    );
    assert_eq!(all.matches("<tr class=").count(), lines.len().min(50));
    let faulted = lines
        .iter()
        .filter(|l| !l["faults"].as_array().unwrap().is_empty())
        .count();
    let f = list("fault=faults");
    assert_eq!(
        attr(&f, "class=\"games-list\"", "data-total"),
        faulted.to_string()
    );
    let clean = list("fault=clean");
    assert_eq!(
        attr(&clean, "class=\"games-list\"", "data-total"),
        (lines.len() - faulted).to_string()
    );
    // greedy is bot 0: the games it lost.
    let lost = lines.iter().filter(|l| l["durak"] == "greedy").count();
    let g = list("bot=0&result=lost");
    assert_eq!(
        attr(&g, "class=\"games-list\"", "data-total"),
        lost.to_string()
    );
    // Sorted by moves, most first: the first row is the longest game.
    let most = lines
        .iter()
        .map(|l| l["moves"].as_u64().unwrap())
        .max()
        .unwrap();
    let sorted = list("sort=-moves");
    let first = between(&sorted, "<tbody>", "</tr>");
    assert!(
        first.contains(&format!("<td class=\"num\">{most}</td>")),
        "{first}"
    );
}

/// The report's pages in Chromium at 1400 and 400 px: the charts render (every chart has a
/// size), nothing overflows the page (wide tables scroll inside their box), no console message.
#[test]
fn the_report_renders_at_1400_and_400_px() {
    let browser = require_chromium!();
    let html = tournament().join("html");
    let charts = "Array.from(d.querySelectorAll('figure.chart svg')).map(function (s) { \
                  var r = s.getBoundingClientRect(); return Math.round(r.width) + 'x' + Math.round(r.height) + ':' + s.querySelectorAll('rect,circle,path').length; }).join(' ')";
    for width in [1400, 400] {
        let (w, scroll, wide, sizes) =
            measure(browser, &html.join("index.html"), "", width, charts);
        assert_eq!(scroll, w, "index at {width}: {wide}");
        assert_eq!(wide, "none", "index at {width}");
        let sizes: Vec<&str> = sizes.split(' ').collect();
        assert_eq!(sizes.len(), 5, "{sizes:?}");
        for s in &sizes {
            let (dims, shapes) = s.split_once(':').unwrap();
            let (cw, ch) = dims.split_once('x').unwrap();
            let (cw, ch): (u32, u32) = (cw.parse().unwrap(), ch.parse().unwrap());
            // Wide charts keep 600 px on a phone and scroll in their box.
            assert!(
                cw > 200 && cw <= w.max(600) && ch > 40,
                "a chart of {dims} at {width}"
            );
            assert!(shapes.parse::<u32>().unwrap() >= 3, "{s}");
        }
        for page in ["games.html", "bots/00-greedy.html"] {
            let (w, scroll, wide, _) = measure(browser, &html.join(page), "", width, "0");
            assert_eq!(scroll, w, "{page} at {width}: {wide}");
        }
    }
    // No console message on any page (the harness hides the frame's console).
    for page in [
        "index.html",
        "games.html",
        "bots/00-greedy.html",
        "g/000/0.html",
    ] {
        let (_, err) = run_chromium(
            browser,
            &url(&html.join(page), ""),
            &["--dump-dom", "--virtual-time-budget=2000"],
        );
        assert!(console_lines(&err).is_empty(), "{page}: {err}");
    }
    let shot = html.join("../report.png");
    let (_, err) = run_chromium(
        browser,
        &url(&html.join("index.html"), ""),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1400,1800",
            "--hide-scrollbars",
        ],
    );
    assert!(console_lines(&err).is_empty(), "{err}");
    assert!(std::fs::metadata(&shot).unwrap().len() > 20_000);
}

/// The same pages work from a server as from the folder (the service will serve them): over
/// HTTP every page loads its shared script and styles (CSP `'self'`), logs nothing, and shows
/// what it shows from disk: the games list fetches its chunks, the game page steps.
#[test]
fn the_pages_work_from_a_server() {
    let browser = require_chromium!();
    let html = tournament().join("html");
    let base = serve(&html);
    let load = |page: &str, fragment: &str| -> String {
        let (out, err) = run_chromium(
            browser,
            &format!("{base}/{page}#{fragment}"),
            &["--dump-dom", "--virtual-time-budget=3000"],
        );
        assert!(console_lines(&err).is_empty(), "{page}: {err}");
        out
    };
    let index = load("index.html", "");
    assert_eq!(index.matches("<svg").count(), 5, "the charts");
    let games = load("games.html", "");
    assert_eq!(
        attr(&games, "class=\"games-list\"", "data-total"),
        results(tournament()).len().to_string(),
        "the list's data came over HTTP"
    );
    assert!(load("bots/00-greedy.html", "").contains("<h1>"));
    let game = load("g/000/0.html", "step=3&press=ArrowRight");
    assert!(
        game.contains("data-step=\"4\""),
        "the viewer ran and stepped"
    );
    assert!(game.contains("Step 4 / "));
}

/// A two-seat SPRT gauntlet: the index shows the verdict (it used to show no SPRT at all), the
/// pairs show the five deal outcomes as the text does (the old "won both · split · lost both"
/// counted a win and a draw as a split) and the paired/unpaired width, and the loss-rate
/// interval says it is unpaired.
#[test]
fn the_report_shows_the_sprt_verdict_and_the_deal_outcomes() {
    let out = gauntlet();
    let index = read(&out.join("html/index.html"));
    let standings: Value = serde_json::from_str(&read(&out.join("html/standings.json"))).unwrap();
    assert_eq!(standings["sprt"]["decision"], "H1");
    assert!(
        index.contains("SPRT: is the challenger better?")
            && index.contains("H1 accepted: the challenger is better (20 Elo rather than 0)"),
        "{index}"
    );
    assert!(index.contains("LLR +") && index.contains("[-2.94, +2.94]"));
    // The pair's row: the five bins in the text's order (0, ½, 1, 1½, 2 points), then nothing.
    let pairs = between(&index, "<h2>Pairs</h2>", "</table>");
    for h in ["deals 0", ">½<", ">1½<", "width"] {
        assert!(pairs.contains(h), "{h}: {pairs}");
    }
    assert!(!pairs.contains("won both · split"), "{pairs}");
    let d = &standings["pairs"][0]["deals"];
    let n = |k: &str| d[k].as_u64().unwrap();
    let bins = [
        n("lost_both"),
        n("lost_drew"),
        n("split") + n("drew_both"),
        n("won_drew"),
        n("won_both"),
    ];
    let row = between(pairs, "<tbody>", "</tbody>");
    let cells: Vec<String> = row
        .split("<td class=\"num\">")
        .skip(1)
        .map(|c| c.split('<').next().unwrap().to_string())
        .collect();
    let tail: Vec<u64> = cells[cells.len() - 5..]
        .iter()
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(tail, bins, "{row}");
    let ratio = standings["pairs"][0]["paired_width_ratio"]
        .as_f64()
        .unwrap();
    assert!(
        cells.contains(&format!("{:.0}%", 100.0 * ratio)),
        "{ratio}: {row}"
    );
    assert!(
        index.contains("95% interval (unpaired)")
            && index.contains("taken as independent (unpaired)")
    );
}

/// Every `.html` file under `dir`, at any depth.
fn pages_under(dir: &Path) -> Vec<PathBuf> {
    let mut pages = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                pages.push(p);
            }
        }
    }
    pages.sort();
    pages
}

/// The columns a table row spans (its cells, each counted by its `colspan`).
fn columns(row: scraper::ElementRef<'_>) -> usize {
    row.children()
        .filter_map(scraper::ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .map(|c| {
            c.value()
                .attr("colspan")
                .map_or(1, |n| n.parse::<usize>().unwrap())
        })
        .sum()
}

/// Each table of the page whose rows do not span as many columns as its header: the page, the
/// table's first header cells, the row's number and both counts.
fn misshapen_tables(page: &Path) -> Vec<String> {
    let doc = scraper::Html::parse_document(&read(page));
    let table = scraper::Selector::parse("table").unwrap();
    let head = scraper::Selector::parse(":scope > thead > tr").unwrap();
    let body = scraper::Selector::parse(":scope > tbody > tr").unwrap();
    let mut out = Vec::new();
    for t in doc.select(&table) {
        let Some(header) = t.select(&head).last() else {
            continue;
        };
        let want = columns(header);
        let name: String = header.text().take(3).collect::<Vec<_>>().join(" | ");
        for (i, row) in t.select(&body).enumerate() {
            let got = columns(row);
            if got != want {
                out.push(format!(
                    "{}: the table headed {name:?}: row {} has {got} cells, the header {want}",
                    page.display(),
                    i + 1
                ));
            }
        }
    }
    out
}

/// Every table of every page of a duplicate report and of a gauntlet's: each row spans as many
/// columns as its header (the pairs' paired interval was once left out of the rows, shifting
/// each later column under the wrong header: LOS showed a deal count).
#[test]
fn every_tables_rows_match_its_header() {
    let mut checked = 0;
    let mut bad = Vec::new();
    for dir in [tournament(), gauntlet()] {
        let pages = pages_under(&dir.join("html"));
        assert!(pages.len() > 5, "{pages:?}");
        for page in &pages {
            bad.extend(misshapen_tables(page));
            checked += 1;
        }
        let index = read(&dir.join("html/index.html"));
        assert!(index.contains("95% (deals)"), "a paired report: {index}");
    }
    assert!(bad.is_empty(), "{} pages:\n{}", checked, bad.join("\n"));
}

/// Issue 26: each bot's page gives its endgame accuracy, the sums over its games of what
/// `durak analyze` (with the report's budget) says of its seat, and links to the games where it
/// blundered at their first blunder; each game's page holds its values. `durak standings --html
/// --no-analysis` leaves them out and says so.
#[test]
fn the_bot_pages_give_the_endgame_accuracy_of_the_analysis() {
    let dir = gauntlet();
    let html = dir.join("html");
    let lines = results(dir);
    let budget = durak_report::scan::ANALYSIS_BUDGET.to_string();
    // Per bot name: (decisions valued, blunders, games with a blunder), and a game with values.
    let mut want: std::collections::BTreeMap<String, (u64, u64, u64)> = Default::default();
    let mut blunder_link = None;
    let mut with_values = None;
    for l in &lines {
        let replay = dir.join(l["replay"].as_str().unwrap());
        let o = Command::new(DURAK)
            .args(["analyze", "--json", "--budget", &budget])
            .arg(&replay)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let a: Value = serde_json::from_slice(&o.stdout).unwrap();
        let id = l["id"].as_u64().unwrap();
        if a["endgame_from"].is_u64() {
            with_values.get_or_insert(id);
        }
        for s in a["summary"]["seats"].as_array().unwrap() {
            let bot = l["seats"][s["seat"].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
                .to_string();
            let e = want.entry(bot.clone()).or_default();
            let (d, b) = (
                s["decisions_valued"].as_u64().unwrap(),
                s["blunders"].as_u64().unwrap(),
            );
            e.0 += d;
            e.1 += b;
            e.2 += u64::from(b > 0);
            if let Some(step) = s["first_blunder"].as_u64() {
                blunder_link.get_or_insert((bot, id, step));
            }
        }
    }
    let bots = std::fs::read_dir(html.join("bots"))
        .unwrap()
        .map(|e| read(&e.unwrap().path()))
        .collect::<Vec<_>>();
    let mut checked = 0;
    for (bot, (decisions, blunders, games)) in &want {
        if *decisions == 0 {
            continue;
        }
        let page = bots
            .iter()
            .find(|p| p.contains(&format!("<h1>{bot}</h1>")))
            .unwrap_or_else(|| panic!("no page of {bot}"));
        let section = between(page, "id=\"endgame\"", "</section>");
        let share = (decisions - blunders) as f64 * 100.0 / *decisions as f64;
        assert!(
            section.contains(&format!("{share:.1} %")),
            "{bot}: {share:.1} %: {section}"
        );
        assert!(
            section.contains(&format!("<td class=\"num\">{decisions}</td>")),
            "{section}"
        );
        assert!(
            section.contains(&format!("<td class=\"num blunders\">{blunders}</td>")),
            "{section}"
        );
        assert!(section.contains(&format!("{games} of ")), "{section}");
        checked += 1;
    }
    assert!(checked > 0, "some bot's decisions were valued: {want:?}");
    // The random bot blunders; its page links to the game at the step.
    let (bot, id, step) = blunder_link.expect("a blunder in the gauntlet's games");
    let page = bots
        .iter()
        .find(|p| p.contains(&format!("<h1>{bot}</h1>")))
        .unwrap();
    let href = format!("../{}#step={step}", durak_report::scan::game_href(id));
    assert!(page.contains(&href), "{bot}: no link {href}");
    // A game's page holds its values.
    let id = with_values.expect("a game with an endgame");
    let game = read(&html.join(durak_report::scan::game_href(id)));
    assert!(game.contains("\"eg\":[\""), "game {id}: no values");

    // Without the analysis: no values, and the bots' pages say why.
    let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-no-analysis");
    let _ = std::fs::remove_dir_all(&copy);
    copy_tree(dir, &copy);
    let o = Command::new(DURAK)
        .args(["standings", "--html", "--no-analysis"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let game = read(&copy.join("html").join(durak_report::scan::game_href(id)));
    assert!(!game.contains("\"eg\":"), "game {id} has values");
    for e in std::fs::read_dir(copy.join("html/bots")).unwrap() {
        let page = read(&e.unwrap().path());
        assert!(page.contains("Not analysed: the report was written with --no-analysis."));
    }
}
