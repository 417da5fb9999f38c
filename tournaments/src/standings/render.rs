//! The standings for people (text, an HTML fragment) and for machines (CSV; JSON is serde's).

use super::{BotStanding, PairInterval, PairStanding, Standings};
use comfy_table::{CellAlignment, Table as TextTable};
use durak_protocol::FaultKind;

/// comfy-table style: a rule above, below and under the header; nothing else.
const COMPACT: &str = "  ──────     ──────";

impl Standings {
    fn headline(&self) -> String {
        format!(
            "{} · {} · tables of {} · {} per table · seed {} · {} of {} games played",
            self.variant,
            crate::config::Format::parse(&self.format)
                .map(|f| f.describe())
                .unwrap_or("?"),
            self.table_size,
            plural(self.games_per_table as usize, "game"),
            self.seed,
            self.games_played,
            self.games_scheduled
        )
    }

    /// A line on voided games, when there were any.
    fn voided_line(&self) -> Option<String> {
        (self.attempts_voided > 0).then(|| {
            format!(
                "Voided: {} played again (a bot starved by the machine past ten times its \
                 limit); {} void after 3 attempts, counted for nobody. First: {}",
                plural(self.attempts_voided, "attempt"),
                plural(self.games_void, "game"),
                self.voided.first().map_or("", String::as_str)
            )
        })
    }

    fn legend(&self) -> String {
        format!(
            "Elo: one fit of all games (who was the durak at each table), relative to the mean; \
             ± its 95% interval, {}. Ranks marked = are not ordered by the data at 95% (see LOS).",
            if self.method.interval == "paired" {
                "paired by deal (the luck of the deal left out)"
            } else {
                "games taken as independent"
            }
        )
    }

    fn rated(&self) -> usize {
        self.standings.iter().filter(|s| s.elo.is_some()).count()
    }

    fn h2h_cell(&self, row: &str, col: &str) -> Option<String> {
        self.head_to_head
            .iter()
            .find(|h| h.bot == row && h.opponent == col)
            .map(|h| {
                if self.table_size == 2 {
                    format!("{}-{}-{}", h.ahead, h.behind, h.draws)
                } else {
                    format!("{}-{}/{}", h.ahead, h.behind, h.games)
                }
            })
    }

    fn h2h_legend(&self) -> &'static str {
        if self.table_size == 2 {
            "Head to head: the row bot's wins-losses-draws against the column bot (a win: the \
             other one was the durak)"
        } else {
            "Head to head: games the row bot finished ahead of the column bot (the column bot was \
             the durak) - behind it / games at the same table"
        }
    }

    fn pairs_legend(&self) -> String {
        let what = if self.challenger.is_some() {
            "The challenger against each opponent"
        } else {
            "Each pair"
        };
        let deals = if self.pairs.iter().any(|p| p.paired.is_some()) {
            " Paired: over whole deals (every seat rotation of one deck); unpaired: games taken \
             as independent."
        } else {
            ""
        };
        format!(
            "{what}, from their own games only: score (a draw half), its Elo and 95% interval, \
             LOS.{deals}"
        )
    }

    /// Tables for people: the standings, the LOS matrix, head to head, the pairs.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.headline());
        if let Some(v) = self.voided_line() {
            out.push_str(&format!("{v}\n"));
        }
        if let Some(sprt) = &self.sprt {
            out.push_str(&format!(
                "{sprt}{}\n",
                if sprt.decision.is_none() {
                    " · undecided"
                } else {
                    ""
                }
            ));
        }
        out.push_str(&format!("{}\n", self.legend()));
        self.standings_text(&mut out);
        self.los_text(&mut out);
        self.head_to_head_text(&mut out);
        self.pairs_text(&mut out);
        out
    }

    /// The standings' table.
    fn standings_text(&self, out: &mut String) {
        let mut table = TextTable::new();
        table.load_preset(COMPACT).set_header(vec![
            "#",
            "bot",
            "Elo",
            "95%",
            "games",
            "losses",
            "draws",
            "loss rate",
            "faults",
        ]);
        for s in &self.standings {
            let name = match s.disqualified_after_game {
                Some(g) => format!("{} (disqualified after game {g})", s.bot),
                None => s.bot.clone(),
            };
            table.add_row(vec![
                s.rank_label.clone(),
                name,
                fmt_elo(s.elo),
                fmt_rating_interval(s),
                s.games.to_string(),
                s.losses.to_string(),
                s.draws.to_string(),
                format!("{:.1}%", 100.0 * s.loss_rate),
                faults_text(s),
            ]);
        }
        for c in [0, 2, 3, 4, 5, 6, 7] {
            if let Some(col) = table.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        out.push_str(&table.to_string());
        out.push('\n');
    }

    /// The LOS matrix, between rated bots (two at least).
    fn los_text(&self, out: &mut String) {
        let rated = self.rated();
        if rated < 2 {
            return;
        }
        out.push_str("\nLOS: the likelihood that the row bot is better than the column bot\n");
        let mut m = TextTable::new();
        let mut header = vec!["LOS".to_string()];
        header.extend(self.standings[..rated].iter().map(|s| s.bot.clone()));
        m.load_preset(COMPACT).set_header(header);
        for (i, s) in self.standings[..rated].iter().enumerate() {
            let mut cells = vec![s.bot.clone()];
            cells.extend((0..rated).map(|j| match self.los[i][j] {
                Some(l) => fmt_los(l),
                None => "·".to_string(),
            }));
            m.add_row(cells);
        }
        for c in 1..=rated {
            if let Some(col) = m.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        out.push_str(&m.to_string());
        out.push('\n');
    }

    /// The head-to-head cross table.
    fn head_to_head_text(&self, out: &mut String) {
        if self.head_to_head.is_empty() {
            return;
        }
        let order: Vec<&str> = self.standings.iter().map(|s| s.bot.as_str()).collect();
        let mut cross = TextTable::new();
        let mut header = vec![if self.table_size == 2 {
            "wins-losses-draws".to_string()
        } else {
            "ahead-behind/games".to_string()
        }];
        header.extend(order.iter().map(|b| b.to_string()));
        cross.load_preset(COMPACT).set_header(header);
        for row in &order {
            let mut cells = vec![row.to_string()];
            for col in &order {
                cells.push(if row == col {
                    "·".to_string()
                } else {
                    self.h2h_cell(row, col).unwrap_or_default()
                });
            }
            cross.add_row(cells);
        }
        for c in 1..=order.len() {
            if let Some(col) = cross.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Center);
            }
        }
        out.push('\n');
        out.push_str(self.h2h_legend());
        out.push('\n');
        out.push_str(&cross.to_string());
        out.push('\n');
    }

    /// The pairs' table (each bot against each opponent).
    fn pairs_text(&self, out: &mut String) {
        if self.pairs.is_empty() {
            return;
        }
        let paired = self.pairs.iter().any(|p| p.paired.is_some());
        let deals = self.pairs.iter().any(|p| p.deals.is_some());
        let mut header = vec!["bot", "opponent", "games", "score", "Elo"];
        if paired {
            header.extend(["95% paired", "95% unpaired", "width", "LOS"]);
        } else {
            header.extend(["95%", "LOS"]);
        }
        if deals {
            header.push("deals 0-½-1-1½-2");
        }
        let mut p = TextTable::new();
        p.load_preset(COMPACT).set_header(header);
        for x in &self.pairs {
            let mut cells = vec![
                x.bot.clone(),
                x.opponent.clone(),
                x.games.to_string(),
                x.score
                    .map(|s| format!("{:.1}%", 100.0 * s))
                    .unwrap_or_else(|| "-".into()),
                fmt_pair_elo(x),
            ];
            let main = if paired { &x.paired } else { &x.unpaired };
            if paired {
                cells.push(fmt_pair_interval(&x.paired));
                cells.push(fmt_pair_interval(&x.unpaired));
                cells.push(
                    x.paired_width_ratio
                        .map(|r| format!("{:.0}%", 100.0 * r))
                        .unwrap_or_else(|| "-".into()),
                );
            } else {
                cells.push(fmt_pair_interval(&x.unpaired));
            }
            cells.push(
                main.as_ref()
                    .map(|i| fmt_los(i.los))
                    .unwrap_or_else(|| "-".into()),
            );
            if deals {
                cells.push(x.deals.map(|d| pentanomial(&d)).unwrap_or_default());
            }
            p.add_row(cells);
        }
        for c in 2..(if paired { 9 } else { 7 }) {
            if let Some(col) = p.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        out.push('\n');
        out.push_str(&self.pairs_legend());
        if paired {
            out.push_str(" Width: the paired interval's, of the unpaired one's.");
        }
        if deals {
            out.push_str(
                " Deals: how many scored 0, ½, 1 (split, or two draws), 1½ and 2 points of 2.",
            );
        }
        out.push('\n');
        out.push_str(&p.to_string());
        out.push('\n');
    }

    /// One CSV row per bot, in rank order (written by the `csv` crate: a bot's name is quoted
    /// as it needs). An infinite interval end is `-inf` or `inf`; a bot without a rating has
    /// empty rank and Elo fields.
    pub fn to_csv(&self) -> String {
        let mut header: Vec<String> = [
            "rank",
            "tied",
            "bot",
            "elo",
            "elo_ci95_low",
            "elo_ci95_high",
            "games",
            "losses",
            "draws",
            "loss_rate",
            // Wilson's, games taken as independent even in the duplicate formats.
            "loss_ci95_low_unpaired",
            "loss_ci95_high_unpaired",
            "faults",
        ]
        .map(String::from)
        .to_vec();
        header.extend(FaultKind::ALL.iter().map(|k| k.name().to_string()));
        header.push("disqualified_after_game".into());
        // A gauntlet: each opponent's row also holds the challenger's pair against it.
        let gauntlet = self.challenger.is_some();
        if gauntlet {
            header.extend(PAIR_CSV_COLUMNS.iter().map(|c| format!("challenger_{c}")));
        }
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(&header).expect("CSV into memory");
        for s in &self.standings {
            let total: u64 = s.faults.values().sum();
            let end = |x: Option<f64>, inf: &str| match (s.elo, x) {
                (None, _) => String::new(),
                (Some(_), Some(v)) => format!("{v:.3}"),
                (Some(_), None) => inf.to_string(),
            };
            let mut row = vec![
                if s.elo.is_some() {
                    s.rank.to_string()
                } else {
                    String::new()
                },
                s.tied.to_string(),
                s.bot.clone(),
                s.elo.map(|e| format!("{e:.3}")).unwrap_or_default(),
                end(s.elo_ci95[0], "-inf"),
                end(s.elo_ci95[1], "inf"),
                s.games.to_string(),
                s.losses.to_string(),
                s.draws.to_string(),
                format!("{:.6}", s.loss_rate),
                format!("{:.6}", s.loss_rate_ci95[0]),
                format!("{:.6}", s.loss_rate_ci95[1]),
                total.to_string(),
            ];
            row.extend(FaultKind::ALL.iter().map(|&k| s.fault_count(k).to_string()));
            row.push(
                s.disqualified_after_game
                    .map(|g| g.to_string())
                    .unwrap_or_default(),
            );
            if gauntlet {
                let pair = self
                    .pairs
                    .iter()
                    .find(|p| Some(&p.bot) == self.challenger.as_ref() && p.opponent == s.bot);
                match pair {
                    Some(p) => row.extend(pair_csv(p)),
                    None => row.extend(PAIR_CSV_COLUMNS.iter().map(|_| String::new())),
                }
            }
            w.write_record(&row).expect("CSV into memory");
        }
        String::from_utf8(w.into_inner().expect("CSV into memory")).expect("CSV of strings")
    }
}

fn faults_text(s: &BotStanding) -> String {
    if s.faults.is_empty() {
        "-".to_string()
    } else {
        s.faults
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn signed(x: f64) -> String {
    let s = format!("{x:+.1}");
    // "-0.0" and "+0.0" both read as 0.
    if s == "-0.0" || s == "+0.0" {
        "0.0".to_string()
    } else {
        s
    }
}

fn fmt_elo(e: Option<f64>) -> String {
    e.map(signed).unwrap_or_else(|| "-".into())
}

/// "± 45.6", or "+400.1 … +∞" when an end is open.
fn fmt_rating_interval(s: &BotStanding) -> String {
    let Some(e) = s.elo else {
        return "-".into();
    };
    match s.elo_ci95 {
        [Some(lo), Some(hi)] => format!("± {:.1}", ((hi - e) + (e - lo)) / 2.0),
        [lo, hi] => format!(
            "{} … {}",
            lo.map(signed).unwrap_or_else(|| "−∞".into()),
            hi.map(signed).unwrap_or_else(|| "+∞".into())
        ),
    }
}

fn fmt_pair_elo(x: &PairStanding) -> String {
    match (x.elo, x.score) {
        (Some(e), _) => signed(e),
        (None, Some(s)) if s >= 1.0 => "+∞".into(),
        (None, Some(_)) => "−∞".into(),
        (None, None) => "-".into(),
    }
}

fn fmt_pair_interval(i: &Option<PairInterval>) -> String {
    match i {
        None => "-".into(),
        Some(i) => format!(
            "[{}, {}]",
            i.elo_ci95[0].map(signed).unwrap_or_else(|| "−∞".into()),
            i.elo_ci95[1].map(signed).unwrap_or_else(|| "+∞".into())
        ),
    }
}

fn fmt_los(l: f64) -> String {
    format!("{:.1}%", 100.0 * l)
}

/// fastchess's order: deals scoring 0, ½, 1, 1½, 2 points (1: split, or two draws).
fn pentanomial(d: &crate::stats::pair::DealOutcomes) -> String {
    let mut s = format!(
        "{} {} {} {} {}",
        d.lost_both,
        d.lost_drew,
        d.split + d.drew_both,
        d.won_drew,
        d.won_both
    );
    if d.incomplete > 0 {
        s.push_str(&format!(" (+{} incomplete)", d.incomplete));
    }
    s
}

/// The `challenger_*` CSV columns of a pair ([`pair_csv`]).
const PAIR_CSV_COLUMNS: [&str; 13] = [
    "games",
    "score",
    "elo",
    "elo_ci95_low",
    "elo_ci95_high",
    "elo_ci95_low_unpaired",
    "elo_ci95_high_unpaired",
    "los",
    "deals_0",
    "deals_half",
    "deals_1",
    "deals_1half",
    "deals_2",
];

/// The 13 `challenger_*` CSV fields of a pair: games, score, Elo, the interval (paired when
/// there is one), the unpaired interval, LOS, the deals scoring 0, ½, 1, 1½ and 2 points (two
/// seats). An infinite end is `-inf` or `inf`; what does not apply is empty.
fn pair_csv(p: &PairStanding) -> Vec<String> {
    let num = |x: Option<f64>| x.map(|v| format!("{v:.3}")).unwrap_or_default();
    let end = |i: &Option<PairInterval>, e: usize| match i {
        None => String::new(),
        Some(i) => i.elo_ci95[e]
            .map(|v| format!("{v:.3}"))
            .unwrap_or_else(|| if e == 0 { "-inf" } else { "inf" }.to_string()),
    };
    let elo = match (p.elo, p.score) {
        (Some(e), _) => format!("{e:.3}"),
        (None, Some(s)) if s >= 1.0 => "inf".into(),
        (None, Some(_)) => "-inf".into(),
        (None, None) => String::new(),
    };
    let main = if p.paired.is_some() {
        &p.paired
    } else {
        &p.unpaired
    };
    let mut out = vec![
        p.games.to_string(),
        p.score.map(|s| format!("{s:.6}")).unwrap_or_default(),
        elo,
        end(main, 0),
        end(main, 1),
        end(&p.unpaired, 0),
        end(&p.unpaired, 1),
        num(main.as_ref().map(|i| i.los)),
    ];
    match p.deals {
        Some(d) => out.extend(
            [
                d.lost_both,
                d.lost_drew,
                d.split + d.drew_both,
                d.won_drew,
                d.won_both,
            ]
            .map(|x| x.to_string()),
        ),
        None => out.extend((0..5).map(|_| String::new())),
    }
    out
}

/// "1 game", "2 games".
fn plural(n: usize, what: &str) -> String {
    durak_protocol::text::counted(n as u64, what, &format!("{what}s"))
}
