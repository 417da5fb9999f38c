//! Where an SPRT would have stopped on a tournament's recorded games: fed one game at a time
//! (unpaired) or by whole duplicate deals (paired, when the lines have deals), in the order
//! the games were scheduled. For the figures of `docs/BENCHMARKS.md` ("games an SPRT needs"):
//! `durak tournament --sprt` gives the paired test's stopping point itself; this gives the
//! unpaired test's on a round-robin of the same two bots (independent deals), whose games are
//! taken in the order deal `i` of each seating, then deal `i + 1`.
//!
//! ```sh
//! cargo run -p durak-tournaments --example sprt_stop -- DIR CHALLENGER ELO0,ELO1[,ALPHA,BETA]
//! # DIR/results.jsonl: games  decided after N games (H0|H1)  or  undecided after N games
//! ```

use durak_tournaments::config::{Bot, Format, SprtSection, Tournament};
use durak_tournaments::results::ResultLine;
use durak_tournaments::sprt::SprtTracker;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 3 {
        eprintln!("usage: sprt_stop DIR CHALLENGER ELO0,ELO1[,ALPHA,BETA]");
        return ExitCode::from(2);
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sprt_stop: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let path = PathBuf::from(&args[0]).join("results.jsonl");
    let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines: Vec<ResultLine> = Vec::new();
    for (i, l) in std::io::BufReader::new(file).lines().enumerate() {
        let l = l.map_err(|e| format!("{}: {e}", path.display()))?;
        if l.trim().is_empty() {
            continue;
        }
        lines.push(
            serde_json::from_str(&l)
                .map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))?,
        );
    }
    // Deal by deal: a gauntlet's ids already are (deal-major); a round-robin's tables are
    // interleaved so that each seating's game i comes before anyone's game i + 1.
    let paired = lines.iter().all(|l| l.deal.is_some());
    if paired {
        lines.sort_by_key(|l| l.id);
    } else {
        lines.sort_by_key(|l| (l.game, l.table));
    }
    let mut names: Vec<String> = lines.iter().flat_map(|l| l.seats.clone()).collect();
    names.sort();
    names.dedup();
    let challenger = args[1].clone();
    if !names.contains(&challenger) {
        return Err(format!(
            "no bot {challenger:?} in {} (its bots: {})",
            path.display(),
            names.join(", ")
        )
        .into());
    }
    let params = SprtSection::parse(&args[2])?.params()?;
    let t = Tournament {
        variant: durak_rules::Variant::Podkidnoy,
        format: Format::Gauntlet,
        table_size: lines.first().map_or(2, |l| l.seats.len()),
        games: 1,
        seed: 0,
        challenger: Some(challenger),
        concurrency: None,
        max_consecutive_faults: 0,
        sprt: None,
        bots: names
            .iter()
            .map(|n| Bot {
                name: n.clone(),
                command: String::new(),
                cwd: PathBuf::new(),
                own_cwd: true,
                limits: durak_protocol::Limits::default(),
            })
            .collect(),
    };
    let mut tracker = SprtTracker::new(&t, params)?;
    for (i, l) in lines.iter().enumerate() {
        tracker.add(l);
        let st = tracker.status();
        if let Some(h) = st.decision {
            println!(
                "{}: decided after {} games ({h:?}, {}): {st}",
                path.display(),
                i + 1,
                if st.paired { "paired" } else { "unpaired" }
            );
            return Ok(());
        }
    }
    println!(
        "{}: undecided after {} games: {}",
        path.display(),
        lines.len(),
        tracker.status()
    );
    Ok(())
}
