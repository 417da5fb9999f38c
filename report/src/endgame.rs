//! A bot's endgame accuracy on its page (issue 26): the share of its endgame decisions (stock
//! empty, two players, every card known) that kept the exact value the solver gives them, its
//! blunders, and links to the games where it blundered, each at its first blunder.

use crate::scan::{game_href, BotScan, FAULTS_LISTED};
use maud::{html, Markup};

/// The section of a bot's page; `analysed` false: the report was written without the analysis.
pub fn section(scan: &BotScan, analysed: bool) -> Markup {
    let acc = &scan.endgame;
    html! {
        section #endgame {
            h2 { "Endgame accuracy" }
            @if !analysed {
                p.empty { "Not analysed: the report was written with --no-analysis." }
            } @else if let Some(share) = acc.share() {
                table.figures { tbody {
                    tr { th { "accuracy" } td.num.accuracy { (format!("{:.1} %", share * 100.0)) } }
                    tr { th { "solved decisions" } td.num { (acc.decisions) } }
                    tr { th { "blunders" } td.num.blunders { (acc.blunders) } }
                    tr { th { "games with a blunder" } td.num { (acc.games_with_blunders) " of " (acc.games) } }
                    tr { th { "won positions thrown away" } td.num { (acc.thrown) } }
                } }
                p.meta {
                    "The share of its own decisions in the games' endgames (stock empty, two players, \
                     every card known) that kept the exact value of its position; a blunder lowered \
                     it (win to draw or loss, draw to loss). "
                    code { "durak analyze REPLAY" } " gives a game's values; the game's page shows \
                     them and jumps between blunders (b, B)."
                }
                @if !scan.blunder_games.is_empty() {
                    ul.blunders {
                        @for (id, step) in &scan.blunder_games {
                            li { a href={ "../" (game_href(*id)) "#step=" (step) } { "game " (id) ", step " (step) } }
                        }
                        @if acc.games_with_blunders as usize > scan.blunder_games.len() {
                            li { (acc.games_with_blunders - scan.blunder_games.len() as u64) " more (the first "
                                (FAULTS_LISTED) " are listed)." }
                        }
                    }
                }
            } @else {
                p.empty { "No endgame decision of this bot was valued." }
            }
        }
    }
}
