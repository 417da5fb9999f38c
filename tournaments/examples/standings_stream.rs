//! The standings of a large tournament in one pass: time per result line, the builder's
//! footprint, and the process's peak memory, for a synthetic duplicate tournament of 300,000
//! games (10 bots at 2 seats, 3,334 deals per table; outcomes drawn from fixed strengths).
//!
//! ```sh
//! cargo run --release -p durak-tournaments --example standings_stream [GAMES]
//! ```
//!
//! Lines are fed table by table (every deal of rotation 0 of a pair before its rotation 1), the
//! order that keeps the most deals waiting for their other rotation.

use durak_protocol::Limits;
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::ResultLine;
use durak_tournaments::schedule::combinations;
use durak_tournaments::standings::Standings;
use std::time::Instant;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let games: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("GAMES: a number"))
        .unwrap_or(300_000);
    let n = 10;
    let pairs = combinations(n, 2);
    let per_table = games.div_ceil(pairs.len() as u64 * 2) as u32;
    let t = Tournament {
        variant: Variant::Podkidnoy,
        format: Format::Duplicate,
        table_size: 2,
        games: per_table,
        seed: 1,
        challenger: None,
        concurrency: None,
        max_consecutive_faults: 3,
        sprt: None,
        bots: (0..n)
            .map(|i| Bot {
                name: format!("bot{i}"),
                command: "builtin:random".into(),
                cwd: "/".into(),
                own_cwd: true,
                limits: Limits::default(),
            })
            .collect(),
    };
    let before = peak_rss_kib();
    let start = Instant::now();
    let mut b = Standings::builder(&t);
    let mut id = 0u64;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut footprint_early = 0;
    for (c, pair) in pairs.iter().enumerate() {
        for r in 0..2 {
            let seats = [pair[r], pair[1 - r]];
            for deal in 0..per_table {
                // xorshift; bot i is i·30 Elo above bot 0.
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                let d = (seats[0] as f64 - seats[1] as f64) * 30.0 / 173.7;
                let p0 = 1.0 / (1.0 + (-d).exp());
                let loser = if u < 0.03 {
                    None
                } else if u < 0.03 + 0.97 * p0 {
                    Some(1)
                } else {
                    Some(0)
                };
                let names: Vec<String> = seats.iter().map(|s| format!("bot{s}")).collect();
                b.add(&ResultLine {
                    id,
                    table: (2 * c + r) as u32,
                    game: deal,
                    deal: Some(deal),
                    durak: loser.map(|s: usize| names[s].clone()),
                    seats: names,
                    seed: 1,
                    dealer: 0,
                    loser,
                    draw: loser.is_none(),
                    faults: vec![],
                    moves: 40,
                    replay: None,
                    duration_ms: 5,
                    disqualified: vec![],
                    voided: Vec::new(),
                    void: false,
                    move_limit: None,
                });
                id += 1;
            }
        }
        if c == 0 {
            footprint_early = b.footprint();
        }
    }
    let fed = start.elapsed();
    let footprint = b.footprint();
    let s = b.finish();
    let total = start.elapsed();
    println!(
        "{id} games: {:.0} ns a line to feed, finish {:.1} ms, all {:.2} s",
        fed.as_nanos() as f64 / id as f64,
        (total - fed).as_secs_f64() * 1000.0,
        total.as_secs_f64()
    );
    println!(
        "builder footprint: {footprint} bytes ({footprint_early} after the first pair); peak RSS \
         {} KiB before, {} KiB after",
        before,
        peak_rss_kib()
    );
    println!(
        "top: {} {:+.1} ({}), bottom: {} {:+.1}",
        s.standings[0].bot,
        s.standings[0].elo.unwrap(),
        s.standings[0].rank_label,
        s.standings[n - 1].bot,
        s.standings[n - 1].elo.unwrap()
    );
}
