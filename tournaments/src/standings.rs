//! Standings, computed from the result lines only (and the configuration, for the list of bots).
//!
//! For each bot: games, losses (times it was the durak), draws, faults by kind, the loss rate with
//! its 95% Wilson score interval, and a Weng-Lin rating (`skillratings`) with its uncertainty:
//! each game is a free-for-all of one-player teams, the durak ranked last and everyone else tied
//! (a draw ties everyone), taken in game-id order — so the standings do not depend on the order
//! in which concurrent games finished. For 2-player tables, a head-to-head cross-table.

use crate::config::Tournament;
use crate::results::ResultLine;
use crate::schedule::Schedule;
use comfy_table::{CellAlignment, Table as TextTable};
use durak_protocol::FaultKind;
use serde::Serialize;
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;
use std::collections::BTreeMap;

/// comfy-table style: a rule above, below and under the header; nothing else.
const COMPACT: &str = "  ──────     ──────";

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval for `x` successes in `n` trials at normal quantile `z`.
/// With no trials: `(0, 1)`.
pub fn wilson(x: u32, n: u32, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = x as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At x = 0 and x = n the bound is exactly 0 (or 1); computed, it can miss by a rounding
    // error (1e-17), and the interval would not contain the rate itself.
    let low = if x == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if x as f64 == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotStanding {
    pub rank: usize,
    pub bot: String,
    pub games: u32,
    /// Times this bot was the durak.
    pub losses: u32,
    pub draws: u32,
    /// Fault kind → count (kinds that occurred).
    pub faults: BTreeMap<String, u32>,
    pub loss_rate: f64,
    /// 95% Wilson score interval of the loss rate.
    pub loss_rate_ci95: [f64; 2],
    /// Weng-Lin rating (mu) and its uncertainty (sigma).
    pub rating: f64,
    pub rating_uncertainty: f64,
    /// The game after which the bot was disqualified.
    pub disqualified_after_game: Option<u64>,
}

impl BotStanding {
    pub fn fault_count(&self, kind: FaultKind) -> u32 {
        self.faults.get(kind.name()).copied().unwrap_or(0)
    }
}

/// One bot's record against one opponent at 2-player tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeadToHead {
    pub bot: String,
    pub opponent: String,
    pub games: u32,
    /// Games the opponent lost.
    pub wins: u32,
    /// Games this bot lost.
    pub losses: u32,
    pub draws: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standings {
    pub variant: String,
    pub format: String,
    pub table_size: usize,
    pub games_per_table: u32,
    pub seed: u64,
    pub games_scheduled: usize,
    pub games_played: usize,
    pub standings: Vec<BotStanding>,
    /// Only for 2-player tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_to_head: Option<Vec<HeadToHead>>,
}

impl Standings {
    /// Compute the standings of `t` from its result lines (in any order).
    pub fn compute(t: &Tournament, lines: &[ResultLine]) -> Standings {
        let mut lines: Vec<&ResultLine> = lines.iter().collect();
        lines.sort_by_key(|l| l.id);
        let n = t.bots.len();
        let index = |name: &str| t.bot_index(name);
        let mut games = vec![0u32; n];
        let mut losses = vec![0u32; n];
        let mut draws = vec![0u32; n];
        let mut faults: Vec<BTreeMap<String, u32>> = vec![BTreeMap::new(); n];
        let mut dq: Vec<Option<u64>> = vec![None; n];
        let mut ratings = vec![WengLinRating::new(); n];
        let config = WengLinConfig::new();
        // (bot, opponent) -> (games, wins, losses, draws)
        let mut h2h: BTreeMap<(usize, usize), [u32; 4]> = BTreeMap::new();

        for l in &lines {
            let seats: Vec<Option<usize>> = l.seats.iter().map(|s| index(s)).collect();
            for (seat, b) in seats.iter().enumerate() {
                let Some(b) = *b else { continue };
                games[b] += 1;
                if l.draw {
                    draws[b] += 1;
                }
                if l.loser == Some(seat) {
                    losses[b] += 1;
                }
            }
            for f in &l.faults {
                if let Some(b) = seats.get(f.seat).copied().flatten() {
                    *faults[b].entry(f.kind.name().to_string()).or_default() += 1;
                }
            }
            for name in &l.disqualified {
                if let Some(b) = index(name) {
                    dq[b].get_or_insert(l.id);
                }
            }
            // Weng-Lin: one-player teams; the durak last, the others tied first. A game nobody
            // played (every seat faulted before play: a draw) says nothing of skill.
            let nobody_played =
                durak_protocol::nobody_played(seats.len(), l.faults.iter().map(|f| f.seat));
            if seats.iter().all(Option::is_some) && seats.len() >= 2 && !nobody_played {
                let teams: Vec<[WengLinRating; 1]> =
                    seats.iter().map(|b| [ratings[b.unwrap()]]).collect();
                let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                    .iter()
                    .enumerate()
                    .map(|(seat, team)| {
                        let rank = if l.loser == Some(seat) { 2 } else { 1 };
                        (&team[..], MultiTeamOutcome::new(rank))
                    })
                    .collect();
                let new = weng_lin_multi_team(&ranked, &config);
                for (seat, b) in seats.iter().enumerate() {
                    ratings[b.unwrap()] = new[seat][0];
                }
            }
            if t.table_size == 2 && seats.len() == 2 {
                if let (Some(a), Some(b)) = (seats[0], seats[1]) {
                    for (me, other, my_seat) in [(a, b, 0), (b, a, 1)] {
                        let e = h2h.entry((me, other)).or_default();
                        e[0] += 1;
                        match l.loser {
                            Some(s) if s == my_seat => e[2] += 1,
                            Some(_) => e[1] += 1,
                            None => e[3] += 1,
                        }
                    }
                }
            }
        }

        let mut standings: Vec<BotStanding> = (0..n)
            .map(|b| {
                let rate = if games[b] == 0 {
                    0.0
                } else {
                    losses[b] as f64 / games[b] as f64
                };
                let (lo, hi) = wilson(losses[b], games[b], Z95);
                BotStanding {
                    rank: 0,
                    bot: t.bots[b].name.clone(),
                    games: games[b],
                    losses: losses[b],
                    draws: draws[b],
                    faults: faults[b].clone(),
                    loss_rate: rate,
                    loss_rate_ci95: [lo, hi],
                    rating: ratings[b].rating,
                    rating_uncertainty: ratings[b].uncertainty,
                    disqualified_after_game: dq[b],
                }
            })
            .collect();
        // Ranked by loss rate (every bot meets the same field the same number of times in
        // round-robin, duplicate and series); ties by rating, then name.
        standings.sort_by(|a, b| {
            let played = |s: &BotStanding| s.games > 0;
            played(b)
                .cmp(&played(a))
                .then(a.loss_rate.total_cmp(&b.loss_rate))
                .then(b.rating.total_cmp(&a.rating))
                .then(a.bot.cmp(&b.bot))
        });
        for (i, s) in standings.iter_mut().enumerate() {
            s.rank = i + 1;
        }
        let head_to_head = (t.table_size == 2).then(|| {
            h2h.iter()
                .map(|(&(a, b), e)| HeadToHead {
                    bot: t.bots[a].name.clone(),
                    opponent: t.bots[b].name.clone(),
                    games: e[0],
                    wins: e[1],
                    losses: e[2],
                    draws: e[3],
                })
                .collect()
        });
        Standings {
            variant: t.variant.name().to_string(),
            format: t.format.name().to_string(),
            table_size: t.table_size,
            games_per_table: t.games,
            seed: t.seed,
            games_scheduled: Schedule::build(t).total_games(),
            games_played: lines.len(),
            standings,
            head_to_head,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("standings serialise")
    }

    /// One CSV row per bot, in rank order.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "rank,bot,games,losses,draws,loss_rate,loss_ci95_low,loss_ci95_high,rating,\
             rating_uncertainty,faults",
        );
        for k in FaultKind::ALL {
            out.push_str(&format!(",{}", k.name()));
        }
        out.push_str(",disqualified_after_game\n");
        for s in &self.standings {
            let total: u32 = s.faults.values().sum();
            out.push_str(&format!(
                "{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{:.6},{}",
                s.rank,
                csv_field(&s.bot),
                s.games,
                s.losses,
                s.draws,
                s.loss_rate,
                s.loss_rate_ci95[0],
                s.loss_rate_ci95[1],
                s.rating,
                s.rating_uncertainty,
                total
            ));
            for k in FaultKind::ALL {
                out.push_str(&format!(",{}", s.fault_count(k)));
            }
            out.push_str(&format!(
                ",{}\n",
                s.disqualified_after_game
                    .map(|g| g.to_string())
                    .unwrap_or_default()
            ));
        }
        out
    }

    /// An HTML fragment (for the tournament's index page): the standings table, then the
    /// head-to-head cross-table at 2-player tables. Bot names are escaped.
    pub fn to_html(&self) -> String {
        fn esc(s: &str) -> String {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        }
        let mut out = format!(
            "<p>{} · {} · tables of {} · {} per table · seed {} · \
             {} of {} games played</p>\n<table class=\"standings\">\n<tr><th>#</th><th>bot</th>\
             <th>games</th><th>losses</th><th>draws</th><th>loss rate</th><th>95% CI</th>\
             <th>rating ± σ</th><th>faults</th></tr>\n",
            esc(&self.variant),
            esc(&self.format),
            self.table_size,
            plural(self.games_per_table as usize, "game"),
            self.seed,
            self.games_played,
            self.games_scheduled
        );
        for s in &self.standings {
            let faults: Vec<String> = s.faults.iter().map(|(k, n)| format!("{k} {n}")).collect();
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td>\
                 <td>{:.1}–{:.1}%</td><td>{:.2} ± {:.2}</td><td>{}</td></tr>\n",
                s.rank,
                esc(&s.bot),
                s.disqualified_after_game
                    .map(|g| format!(" (disqualified after game {g})"))
                    .unwrap_or_default(),
                s.games,
                s.losses,
                s.draws,
                100.0 * s.loss_rate,
                100.0 * s.loss_rate_ci95[0],
                100.0 * s.loss_rate_ci95[1],
                s.rating,
                s.rating_uncertainty,
                if faults.is_empty() {
                    "-".to_string()
                } else {
                    esc(&faults.join(", "))
                }
            ));
        }
        out.push_str("</table>\n");
        if let Some(h2h) = &self.head_to_head {
            let bots: Vec<&str> = self.standings.iter().map(|s| s.bot.as_str()).collect();
            out.push_str(
                "<h2>Head to head</h2>\n<p>The row bot's wins-losses-draws against the column \
                 bot.</p>\n<table class=\"h2h\">\n<tr><th></th>",
            );
            for b in &bots {
                out.push_str(&format!("<th>{}</th>", esc(b)));
            }
            out.push_str("</tr>\n");
            for a in &bots {
                out.push_str(&format!("<tr><th>{}</th>", esc(a)));
                for b in &bots {
                    let cell = h2h
                        .iter()
                        .find(|h| h.bot == *a && h.opponent == *b)
                        .map(|h| format!("{}-{}-{}", h.wins, h.losses, h.draws))
                        .unwrap_or_else(|| "·".to_string());
                    out.push_str(&format!("<td>{cell}</td>"));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
        out
    }

    /// Tables for people: the standings, then the head-to-head cross-table (2-player tables).
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{} · {} · tables of {} · {} per table · seed {} · {} of {} games played\n",
            self.variant,
            crate::config::Format::parse(&self.format)
                .map(|f| f.describe())
                .unwrap_or("?"),
            self.table_size,
            plural(self.games_per_table as usize, "game"),
            self.seed,
            self.games_played,
            self.games_scheduled
        );
        let mut table = TextTable::new();
        table.load_preset(COMPACT).set_header(vec![
            "#",
            "bot",
            "games",
            "losses",
            "draws",
            "loss rate",
            "95% CI",
            "rating ± σ",
            "faults",
        ]);
        for s in &self.standings {
            let faults = if s.faults.is_empty() {
                "-".to_string()
            } else {
                s.faults
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let name = match s.disqualified_after_game {
                Some(g) => format!("{} (disqualified after game {g})", s.bot),
                None => s.bot.clone(),
            };
            table.add_row(vec![
                s.rank.to_string(),
                name,
                s.games.to_string(),
                s.losses.to_string(),
                s.draws.to_string(),
                format!("{:.1}%", 100.0 * s.loss_rate),
                format!(
                    "{:.1}–{:.1}%",
                    100.0 * s.loss_rate_ci95[0],
                    100.0 * s.loss_rate_ci95[1]
                ),
                format!("{:.2} ± {:.2}", s.rating, s.rating_uncertainty),
                faults,
            ]);
        }
        for c in [0, 2, 3, 4, 5, 6, 7] {
            if let Some(col) = table.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        out.push_str(&table.to_string());
        out.push('\n');
        if let Some(h2h) = &self.head_to_head {
            let order: Vec<&str> = self.standings.iter().map(|s| s.bot.as_str()).collect();
            let mut cross = TextTable::new();
            let mut header = vec!["wins-losses-draws".to_string()];
            header.extend(order.iter().map(|b| b.to_string()));
            cross.load_preset(COMPACT).set_header(header);
            for row in &order {
                let mut cells = vec![row.to_string()];
                for col in &order {
                    let cell = if row == col {
                        "·".to_string()
                    } else {
                        h2h.iter()
                            .find(|h| h.bot == *row && h.opponent == *col)
                            .map(|h| format!("{}-{}-{}", h.wins, h.losses, h.draws))
                            .unwrap_or_default()
                    };
                    cells.push(cell);
                }
                cross.add_row(cells);
            }
            for c in 1..=order.len() {
                if let Some(col) = cross.column_mut(c) {
                    col.set_cell_alignment(CellAlignment::Center);
                }
            }
            out.push_str(
                "\nHead to head: the row bot's wins-losses-draws against the column bot \
                 (a win: the other one was the durak)\n",
            );
            out.push_str(&cross.to_string());
            out.push('\n');
        }
        out
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// "1 game", "2 games".
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_hand_computed_values() {
        // x = 3, n = 10, z = 1.96 (textbook): p = 0.3, centre = (0.3 + 0.19208)/1.38416
        // = 0.355508, half = 1.96 * sqrt(0.021 + 0.009604)/1.38416 = 0.247719.
        let (lo, hi) = wilson(3, 10, 1.96);
        assert!((lo - 0.107789).abs() < 1e-6, "{lo}");
        assert!((hi - 0.603227).abs() < 1e-6, "{hi}");
        // No losses in 5: the upper bound is z²/(n + z²).
        let (lo, hi) = wilson(0, 5, Z95);
        assert_eq!(lo, 0.0);
        assert!((hi - Z95 * Z95 / (5.0 + Z95 * Z95)).abs() < 1e-12);
        assert_eq!(wilson(0, 0, Z95), (0.0, 1.0));
        // Every interval contains its rate, exactly at the ends: 0 losses, or all (a
        // disqualified bot), for every game count (24 of 0 and 10 of 10 used to miss by 1e-17).
        for n in 1..=2000 {
            assert_eq!(wilson(0, n, Z95).0, 0.0, "0 of {n}");
            assert_eq!(wilson(n, n, Z95).1, 1.0, "{n} of {n}");
            for x in [1, n / 2, n - 1] {
                let (lo, hi) = wilson(x, n, Z95);
                let p = x as f64 / n as f64;
                assert!(lo <= p && p <= hi, "{x} of {n}: {lo}..{hi}");
            }
        }
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
