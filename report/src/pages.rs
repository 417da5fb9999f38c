//! The report's pages (maud, through the one layout of `durak_replay::html::layout`).

use crate::charts::{heat_map, interval_chart, line_chart, Bar, Cell, Series};
use crate::scan::{game_href, Scan, CHUNK};
use crate::{bot_href, ReportInput, Written};
use durak_replay::html::layout::Bot;
use durak_tournaments::results::ResultLine;
use durak_tournaments::standings::{BotStanding, PairInterval};
use durak_tournaments::{Standings, Tournament};
use maud::{html, Markup};
use std::path::Path;

/// What every page is made from.
pub struct Context<'a> {
    pub input: &'a ReportInput<'a>,
    pub standings: &'a Standings,
    /// The standings after the first `n` games (in id order), at checkpoints.
    pub history: &'a [(usize, Standings)],
    pub scan: &'a Scan,
    pub games: usize,
}

impl Context<'_> {
    fn t(&self) -> &Tournament {
        self.input.t
    }
    fn name(&self) -> String {
        if let Some(n) = &self.input.name {
            return n.clone();
        }
        self.input
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tournament".into())
    }
    fn bot_index(&self, name: &str) -> Option<usize> {
        self.t().bots.iter().position(|b| b.name == name)
    }
}

fn elo_text(x: Option<f64>) -> String {
    match x {
        Some(v) => format!("{v:+.0}"),
        None => "—".into(),
    }
}

fn interval_text(ci: [Option<f64>; 2]) -> String {
    let lo = ci[0].map_or("−∞".to_string(), |v| format!("{v:+.0}"));
    let hi = ci[1].map_or("+∞".to_string(), |v| format!("{v:+.0}"));
    format!("{lo} … {hi}")
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn modified(path: &Path) -> Option<String> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(
        humantime::format_rfc3339_seconds(t)
            .to_string()
            .replace('T', " ")
            .replace('Z', " UTC"),
    )
}

fn report_page(title: &str, root: &str, crumbs: &[(String, String)], body: Markup) -> String {
    crate::site_page(title, root, crumbs, &[], &[], body)
}

fn limits_text(l: &durak_protocol::Limits) -> String {
    format!(
        "{} ms a decision, a bank of {} ms a game, {} ms to start, lines up to {} bytes",
        l.move_ms, l.bank_ms, l.startup_ms, l.max_line_bytes
    )
}

/// The header: name, what was played, when, how.
fn header(ctx: &Context<'_>) -> Markup {
    let t = ctx.t();
    let s = ctx.standings;
    let dir = ctx.input.dir;
    let created = modified(&dir.join(durak_tournaments::results::CONFIG_FILE));
    let last = modified(&dir.join(durak_tournaments::results::RESULTS_FILE));
    let same_limits = t.bots.windows(2).all(|w| w[0].limits == w[1].limits);
    html! {
        header.report {
            div {
                h1 { "Durak tournament " (Bot(&ctx.name())) }
                p.meta {
                    (t.variant.name()) " · " (t.format.describe()) " · tables of " (t.table_size)
                    " · " (t.games) " game" @if t.games != 1 { "s" } " per table · seed " (t.seed)
                    @if let Some(c) = &t.challenger { " · challenger " (Bot(c)) }
                }
                p.meta {
                    (s.games_played) " of " (s.games_scheduled) " games played"
                    @if let Some(c) = &created { " · started " (c) }
                    @if let Some(l) = &last { " · last result " (l) }
                    " · sandbox " (ctx.input.sandbox.as_deref().unwrap_or("not recorded"))
                    @if t.max_consecutive_faults > 0 {
                        " · disqualified after " (t.max_consecutive_faults) " faulted games in a row"
                    }
                }
                @if same_limits {
                    @if let Some(b) = t.bots.first() { p.meta { "Limits: " (limits_text(&b.limits)) "." } }
                }
                // The bots and their commands, in the header: what was played is said first.
                div.header-bots { (bots_table(ctx, "")) }
            }
        }
    }
}

/// `1 draw`, `2 draws`.
fn counted(n: u64, word: &str) -> String {
    durak_protocol::text::counted(n, word, &format!("{word}s"))
}

fn links(root: &str) -> Markup {
    html! {
        nav.links aria-label="data" {
            a href={ (root) "games.html" } { "every game" }
            a href={ (root) "data/results.jsonl" } { "results.jsonl" }
            a href={ (root) "data/tournament.toml" } { "tournament.toml" }
            a href={ (root) "games.csv" } { "games.csv" }
            a href={ (root) "standings.csv" } { "standings.csv" }
            a href={ (root) "standings.json" } { "standings.json" }
        }
    }
}

fn faults_text(b: &BotStanding) -> String {
    if b.faults.is_empty() {
        "—".into()
    } else {
        b.faults
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn standings_table(ctx: &Context<'_>, root: &str) -> Markup {
    let s = ctx.standings;
    html! {
        div.scroll {
            table.sortable.standings {
                thead { tr {
                    th.num data-sort="num" { "rank" } th { "bot" }
                    th.num data-sort="num" { "Elo" } th { "95% interval" }
                    th.num data-sort="num" { "games" } th.num data-sort="num" { "losses" }
                    th.num data-sort="num" { "loss rate" } th title="Wilson's, over single games taken as independent (not paired by deal)" { "95% interval (unpaired)" }
                    th.num data-sort="num" { "draws" } th { "faults" }
                } }
                tbody {
                    @for b in &s.standings {
                        tr class=[b.tied.then_some("tied")] {
                            td.num data-key=(b.rank) { (b.rank_label) }
                            td {
                                @if let Some(i) = ctx.bot_index(&b.bot) {
                                    a href={ (root) (bot_href(ctx.t(), i)) } { (Bot(&b.bot)) }
                                } @else { (Bot(&b.bot)) }
                                @if let Some(g) = b.disqualified_after_game {
                                    " " span.dq { "disqualified after game " (g) }
                                }
                            }
                            td.num data-key=(b.elo.unwrap_or(f64::NEG_INFINITY)) { (elo_text(b.elo)) }
                            td { @if b.elo.is_some() { (interval_text(b.elo_ci95)) } }
                            td.num { (b.games) }
                            td.num { (b.losses) }
                            td.num data-key=(b.loss_rate) { (pct(b.loss_rate)) }
                            td { (pct(b.loss_rate_ci95[0])) " … " (pct(b.loss_rate_ci95[1])) }
                            td.num { (b.draws) }
                            td { (faults_text(b)) }
                        }
                    }
                }
            }
        }
        p.note {
            "Elo: one fit of all games (who was the durak at each table), relative to the mean of the bots, \
             with its 95% interval, "
            @if s.method.interval == "paired" { "paired by deal (the luck of the deal left out)" }
            @else { "the games taken as independent" }
            ". A rank marked = is shared: the data does not order those bots at 95% (the LOS chart says how sure each comparison is)."
        }
    }
}

fn bars(ctx: &Context<'_>) -> (Vec<Bar>, Vec<Bar>) {
    let s = ctx.standings;
    let elo = s
        .standings
        .iter()
        .map(|b| Bar {
            label: b.bot.clone(),
            tag: b.rank_label.clone(),
            value: b.elo,
            lo: b.elo_ci95[0],
            hi: b.elo_ci95[1],
            text: match b.elo {
                Some(_) => format!("{} ({})", elo_text(b.elo), interval_text(b.elo_ci95)),
                None => "no rating".into(),
            },
        })
        .collect();
    let loss = s
        .standings
        .iter()
        .map(|b| Bar {
            label: b.bot.clone(),
            tag: b.rank_label.clone(),
            value: (b.games > 0).then_some(100.0 * b.loss_rate),
            lo: Some(100.0 * b.loss_rate_ci95[0]),
            hi: Some(100.0 * b.loss_rate_ci95[1]),
            text: format!(
                "{} ({} … {})",
                pct(b.loss_rate),
                pct(b.loss_rate_ci95[0]),
                pct(b.loss_rate_ci95[1])
            ),
        })
        .collect();
    (elo, loss)
}

fn charts(ctx: &Context<'_>) -> Markup {
    let s = ctx.standings;
    let names: Vec<String> = s.standings.iter().map(|b| b.bot.clone()).collect();
    let (elo, loss) = bars(ctx);
    let h2h = |i: usize, j: usize| -> Option<Cell> {
        let h = s
            .head_to_head
            .iter()
            .find(|h| h.bot == names[i] && h.opponent == names[j])?;
        let decided = h.ahead + h.behind + h.draws;
        if decided == 0 {
            return None;
        }
        let score = (h.ahead as f64 + h.draws as f64 / 2.0) / decided as f64;
        Some(Cell {
            value: score,
            text: format!("{}–{}", h.ahead, h.behind),
            title: format!(
                "{} ahead of {} in {} of {} games, behind in {}, {} without a durak",
                names[i], names[j], h.ahead, h.games, h.behind, h.draws
            ),
        })
    };
    let los = |i: usize, j: usize| -> Option<Cell> {
        let p = s.los.get(i)?.get(j).copied().flatten()?;
        Some(Cell {
            value: p,
            text: format!("{:.0}%", 100.0 * p),
            title: format!(
                "{} is better than {} with probability {:.1}%",
                names[i],
                names[j],
                100.0 * p
            ),
        })
    };
    let series: Vec<Series> = names
        .iter()
        .map(|n| Series {
            name: n.clone(),
            points: ctx
                .history
                .iter()
                .filter_map(|(games, st)| st.get(n).and_then(|b| b.elo).map(|e| (*games as f64, e)))
                .collect(),
        })
        .collect();
    html! {
        section.charts {
            h2 { "Charts" }
            div.chart-grid {
                (interval_chart("Elo and its 95% interval (the dot: the rating; an arrow: no bound on that side)", &elo, "", None))
                (interval_chart("Loss rate (times the durak) and its 95% Wilson interval, games taken as independent (unpaired)", &loss, "%", Some((0.0, 100.0))))
                (heat_map(
                    if ctx.t().table_size == 2 {
                        "Head to head: the row bot's wins–losses against the column bot (green: the row bot did better)"
                    } else {
                        "Head to head: games the row bot finished ahead of the column bot – behind it, at the same table"
                    },
                    &names, h2h))
                (heat_map("LOS: the likelihood that the row bot is better than the column bot", &names, los))
                (line_chart("Elo as games accumulate (in game-id order): where the ratings settle", "games", "", &series))
            }
        }
    }
}

fn interval_of(p: &Option<PairInterval>) -> String {
    p.as_ref()
        .map(|i| interval_text(i.elo_ci95))
        .unwrap_or_default()
}

fn pairs_table(ctx: &Context<'_>, only: Option<&str>) -> Markup {
    let s = ctx.standings;
    let rows: Vec<_> = s
        .pairs
        .iter()
        .filter(|p| only.is_none_or(|b| p.bot == b || p.opponent == b))
        .collect();
    let deals = rows.iter().any(|p| p.deals.is_some());
    let paired = rows.iter().any(|p| p.paired.is_some());
    let incomplete = rows
        .iter()
        .any(|p| p.deals.is_some_and(|d| d.incomplete > 0));
    html! {
        @if !rows.is_empty() {
            div.scroll {
                table.sortable {
                    thead { tr {
                        th { "bot" } th { "opponent" } th.num data-sort="num" { "games" }
                        th.num data-sort="num" { "ahead" } th.num data-sort="num" { "behind" }
                        th.num data-sort="num" { "draws" } th.num data-sort="num" { "score" }
                        th.num data-sort="num" { "Elo" } th { "95% (games)" }
                        @if paired { th { "95% (deals)" } }
                        @if paired { th.num data-sort="num" title="the paired interval's width, of the unpaired one's" { "width" } }
                        th.num data-sort="num" { "LOS" }
                        @if deals {
                            th.num data-sort="num" title="deals lost both games (0 points of 2)" { "deals 0" }
                            th.num data-sort="num" title="lost one, drew one (½)" { "½" }
                            th.num data-sort="num" title="won one and lost one, or two draws (1)" { "1" }
                            th.num data-sort="num" title="won one, drew one (1½)" { "1½" }
                            th.num data-sort="num" title="deals won both games (2 points of 2)" { "2" }
                            @if incomplete { th.num data-sort="num" title="deals not played at both rotations yet" { "incomplete" } }
                        }
                    } }
                    tbody {
                        @for p in &rows {
                            tr {
                                td { (Bot(&p.bot)) } td { (Bot(&p.opponent)) }
                                td.num { (p.games) } td.num { (p.ahead) } td.num { (p.behind) } td.num { (p.draws) }
                                td.num { @if let Some(x) = p.score { (pct(x)) } }
                                td.num { (elo_text(p.elo)) }
                                td { (interval_of(&p.unpaired)) }
                                @if paired { td { (interval_of(&p.paired)) } }
                                @if paired { td.num { @if let Some(r) = p.paired_width_ratio { (format!("{:.0}%", 100.0 * r)) } } }
                                td.num {
                                    @if let Some(i) = p.paired.as_ref().or(p.unpaired.as_ref()) { (pct(i.los)) }
                                }
                                @if deals {
                                    @match &p.deals {
                                        Some(d) => {
                                            td.num { (d.lost_both) } td.num { (d.lost_drew) }
                                            td.num { (d.split + d.drew_both) }
                                            td.num { (d.won_drew) } td.num { (d.won_both) }
                                            @if incomplete { td.num { (d.incomplete) } }
                                        }
                                        None => { td {} td {} td {} td {} td {} @if incomplete { td {} } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn bots_table(ctx: &Context<'_>, root: &str) -> Markup {
    let t = ctx.t();
    let same = t.bots.windows(2).all(|w| w[0].limits == w[1].limits);
    html! {
        div.scroll {
            table {
                thead { tr { th { "bot" } th { "command" } th { "working directory" } @if !same { th { "limits" } } } }
                tbody {
                    @for (i, b) in t.bots.iter().enumerate() {
                        tr {
                            td { a href={ (root) (bot_href(t, i)) } { (Bot(&b.name)) } }
                            td { code { (Bot(&b.command)) } }
                            td { @if !b.command.starts_with("builtin:") { code { (Bot(&b.cwd.display().to_string())) } } }
                            @if !same { td { (limits_text(&b.limits)) } }
                        }
                    }
                }
            }
        }
    }
}

fn games_list(root: &str, bot: Option<usize>) -> Markup {
    html! {
        div.games-list data-root=(root) data-bot=[bot] {
            p.empty { "The games list needs JavaScript; the games are also in " a href={ (root) "games.csv" } { "games.csv" } "." }
        }
    }
}

fn verified_note(ctx: &Context<'_>) -> Markup {
    let s = ctx.scan;
    html! {
        p.note {
            (ctx.games) " games: " (s.verified) " replays verified against the rules engine"
            @if s.unverified > 0 { ", " span.bad { (s.unverified) " not verified" } }
            @if s.missing > 0 { ", " span.bad { (s.missing) " without a readable replay" } }
            "."
        }
    }
}

/// A gauntlet run with the SPRT: the verdict, then where the test stands.
fn sprt_section(ctx: &Context<'_>) -> Markup {
    html! {
        @if let Some(sp) = &ctx.standings.sprt {
            section.sprt {
                h2 { "SPRT: is the challenger better?" }
                p { strong { (sp.verdict()) } }
                p.note { (sp.to_string()) }
            }
        }
    }
}

pub fn index_page(ctx: &Context<'_>) -> String {
    let body = html! {
        (header(ctx))
        main.report {
            (links(""))
            (sprt_section(ctx))
            section { h2 { "Standings" } (standings_table(ctx, "")) }
            (charts(ctx))
            section {
                h2 { "Pairs" }
                p.note { "Each pair from their own games only: score (a draw counts half), its Elo, the 95% interval from single games and, with duplicate deals, from whole deals (width: the paired interval's, of the unpaired one's); LOS; at two seats, how many deals scored 0, ½, 1, 1½ and 2 points of 2 (lost both … won both)." }
                (pairs_table(ctx, None))
            }
            section { h2 { "Games" } (verified_note(ctx)) p { a href="games.html" { "Every game, sorted and filtered →" } } }
        }
    };
    report_page(&format!("Durak tournament {}", ctx.name()), "", &[], body)
}

pub fn games_page(ctx: &Context<'_>) -> String {
    let body = html! {
        header.report { div { h1 { "Games of " (Bot(&ctx.name())) } (verified_note(ctx)) } }
        main.report { (links("")) (games_list("", None)) }
    };
    report_page(
        &format!("Games · Durak tournament {}", ctx.name()),
        "",
        &[("index.html".into(), "← tournament".into())],
        body,
    )
}

pub fn bot_page(ctx: &Context<'_>, i: usize) -> String {
    let t = ctx.t();
    let bot = &t.bots[i];
    let st = ctx.standings.get(&bot.name);
    let scan = &ctx.scan.bots[i];
    let h2h: Vec<_> = ctx
        .standings
        .head_to_head
        .iter()
        .filter(|h| h.bot == bot.name)
        .collect();
    let body = html! {
        header.report {
            div {
                h1 { (Bot(&bot.name)) }
                @if let Some(b) = st {
                    p.meta {
                        "rank " (b.rank_label) " · Elo " (elo_text(b.elo))
                        @if b.elo.is_some() { " (" (interval_text(b.elo_ci95)) ")" }
                        " · " (counted(b.games, "game")) ", the durak in " (b.losses) " (" (pct(b.loss_rate)) ", "
                        (pct(b.loss_rate_ci95[0])) " … " (pct(b.loss_rate_ci95[1])) "), " (counted(b.draws, "draw"))
                        @if let Some(g) = b.disqualified_after_game { " · disqualified after game " (g) }
                    }
                }
                p.meta { "command " code { (Bot(&bot.command)) } " · " (limits_text(&bot.limits)) }
            }
        }
        main.report {
            section {
                h2 { "Time per decision" }
                @match scan.time_summary() {
                    Some((median, p95, max)) => {
                        table.figures { tbody {
                            tr { th { "decisions timed" } td.num { (scan.times.len()) } }
                            tr { th { "median" } td.num { (format!("{median:.3} ms")) } }
                            tr { th { "95th percentile" } td.num { (format!("{p95:.3} ms")) } }
                            tr { th { "slowest" } td.num { (format!("{max:.3} ms")) } }
                            tr { th { "limit" } td.num { (bot.limits.move_ms) " ms" } }
                        } }
                    }
                    None => { p.empty { "No timed decision in the replays." } }
                }
            }
            section {
                h2 { "Faults" }
                @if scan.faults.is_empty() { p.empty { "None." } }
                @for (kind, (seen, total)) in &scan.faults {
                    h3 { (kind) " · " (total) }
                    ul.faults {
                        @for f in seen {
                            li { a href={ "../" (game_href(f.id)) } { "game " (f.id) } ": " (Bot(&f.detail)) }
                        }
                        @if *total as usize > seen.len() {
                            li { (total - seen.len() as u64) " more: filter the games below by this fault." }
                        }
                    }
                }
            }
            (crate::endgame::section(scan, ctx.scan.analysed))
            @if !h2h.is_empty() {
                section {
                    h2 { "Head to head" }
                    div.scroll { table.sortable {
                        thead { tr { th { "opponent" } th.num data-sort="num" { "games" } th.num data-sort="num" { "ahead" } th.num data-sort="num" { "behind" } th.num data-sort="num" { "draws" } } }
                        tbody { @for h in &h2h {
                            tr {
                                td { @if let Some(j) = ctx.bot_index(&h.opponent) { a href={ "../" (bot_href(t, j)) } { (Bot(&h.opponent)) } } }
                                td.num { (h.games) } td.num { (h.ahead) } td.num { (h.behind) } td.num { (h.draws) }
                            }
                        } }
                    } }
                }
            }
            section { h2 { "Pairs" } (pairs_table(ctx, Some(&bot.name))) }
            section { h2 { "Games" } (games_list("../", Some(i))) }
        }
    };
    report_page(
        &format!("{} · Durak tournament {}", bot.name, ctx.name()),
        "../",
        &[
            ("../index.html".into(), "← tournament".into()),
            ("../games.html".into(), "all games".into()),
        ],
        body,
    )
}

/// `data/meta.js`: what the games list needs before any row.
pub fn write_meta(ctx: &Context<'_>, out: &Path, written: &mut Written) -> crate::Result<()> {
    let t = ctx.t();
    let meta = serde_json::json!({
        "count": ctx.games,
        "chunk": CHUNK,
        "max_id": ctx.input.lines.iter().map(|l| l.id).max(),
        "bots": t.bots.iter().map(|b| &b.name).collect::<Vec<_>>(),
        "bot_pages": (0..t.bots.len()).map(|i| bot_href(t, i)).collect::<Vec<_>>(),
        "lists": ctx.scan.lists.iter().map(|(k, v)| (k.clone(), v.len())).collect::<std::collections::BTreeMap<_, _>>(),
        "per_folder": crate::scan::PER_FOLDER,
        "table_size": t.table_size,
    });
    let text = format!(
        "durakGames.meta({});\n",
        serde_json::to_string(&meta)
            .expect("meta serializes")
            .replace('<', "\\u003c")
    );
    written.write(&out.join("data/meta.js"), &text)
}

/// `games.csv`: one row per game (the csv crate quotes what needs it).
pub fn write_games_csv(
    _t: &Tournament,
    lines: &[&ResultLine],
    path: &Path,
    written: &mut Written,
) -> crate::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "id",
        "table",
        "game",
        "deal",
        "seats",
        "durak",
        "draw",
        "faults",
        "moves",
        "duration_ms",
        "replay",
    ])?;
    for l in lines {
        let faults: Vec<String> = l
            .faults
            .iter()
            .map(|f| format!("{}:{}", f.seat, f.kind.name()))
            .collect();
        w.write_record([
            l.id.to_string(),
            l.table.to_string(),
            l.game.to_string(),
            l.deal.map(|d| d.to_string()).unwrap_or_default(),
            l.seats.join(" | "),
            l.durak.clone().unwrap_or_default(),
            l.draw.to_string(),
            faults.join(" "),
            l.moves.to_string(),
            l.duration_ms.to_string(),
            l.replay.clone().unwrap_or_default(),
        ])?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    written.write(
        path,
        &String::from_utf8(bytes).expect("CSV of UTF-8 is UTF-8"),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_agree_with_their_noun() {
        // A bot's page said "1 draws" (the audit of issue 13).
        assert_eq!(super::counted(1, "draw"), "1 draw");
        assert_eq!(super::counted(0, "draw"), "0 draws");
        assert_eq!(super::counted(2, "game"), "2 games");
    }
}
