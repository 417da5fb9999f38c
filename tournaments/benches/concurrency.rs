//! Concurrency scaling: the same tournament of built-in bots at concurrency 1 and 2, reported as
//! games per second and their ratio (the issue asks for at least 1.8× on 2 cores).
//!
//! ```sh
//! cargo bench -p durak-tournaments --bench concurrency
//! BENCH_GAMES=40 cargo bench -p durak-tournaments --bench concurrency   # deals per table
//! ```
//!
//! The built-in bots are run as `durak bot NAME` from `target/release/durak` (built here if
//! missing) or from `DURAK_EXE`.

use durak_protocol::Limits;
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::runner::{RunOptions, Silent};
use durak_tournaments::{run_tournament, TournamentDir};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

fn durak_exe() -> PathBuf {
    if let Some(p) = std::env::var_os("DURAK_EXE") {
        return PathBuf::from(p);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let exe = root.join("target/release/durak");
    if !exe.is_file() {
        eprintln!("building target/release/durak for the built-in bots...");
        let ok = std::process::Command::new(env!("CARGO"))
            .args(["build", "--release", "--bin", "durak"])
            .current_dir(&root)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "cargo build --release --bin durak failed");
    }
    exe
}

fn tournament(games: u32) -> Tournament {
    let bot = |name: &str, command: &str| Bot {
        name: name.into(),
        command: command.into(),
        cwd: "/".into(),
        limits: Limits::default(),
    };
    Tournament {
        variant: Variant::Podkidnoy,
        format: Format::Duplicate,
        table_size: 2,
        games,
        seed: 1,
        challenger: None,
        concurrency: None,
        max_consecutive_faults: 3,
        bots: vec![
            bot("random-1", "builtin:random"),
            bot("greedy-1", "builtin:greedy"),
            bot("random-2", "builtin:random"),
            bot("greedy-2", "builtin:greedy"),
        ],
    }
}

/// Games per second of the whole tournament at `concurrency`.
fn run(t: &Tournament, concurrency: usize) -> (usize, f64) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = TournamentDir::create(&tmp.path().join("t"), t).expect("directory");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let start = Instant::now();
    let summary = rt
        .block_on(run_tournament(
            t,
            &dir,
            RunOptions {
                concurrency,
                observer: Arc::new(Silent),
                sandbox: Default::default(),
                resources: Default::default(),
            },
        ))
        .expect("the tournament runs");
    let secs = start.elapsed().as_secs_f64();
    (summary.played, summary.played as f64 / secs)
}

fn main() {
    // `cargo test --benches` runs this with no `--bench`: a smoke run only.
    let bench = std::env::args().any(|a| a == "--bench");
    std::env::set_var("DURAK_EXE", durak_exe());
    let games: u32 = std::env::var("BENCH_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(if bench { 25 } else { 1 });
    let t = tournament(games);
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let rounds: usize = if bench { 3 } else { 1 };
    // Warm up (page cache, first process starts).
    run(&tournament(1), 2);
    // Alternate the two settings and keep the best of each: other work on the machine only
    // ever slows a run down.
    let (mut best1, mut best2) = (0.0f64, 0.0f64);
    let mut games = 0;
    for round in 1..=rounds {
        let (n1, gps1) = run(&t, 1);
        let (_, gps2) = run(&t, 2);
        games = n1;
        println!(
            "round {round}: concurrency 1: {gps1:.1} games/s, concurrency 2: {gps2:.1} games/s \
             ({:.2}x)",
            gps2 / gps1
        );
        best1 = best1.max(gps1);
        best2 = best2.max(gps2);
    }
    println!(
        "tournament/concurrency: {games} games of built-in bots per run, {cores} cores, best of \
         {rounds}: concurrency 1: {best1:.1} games/s; concurrency 2: {best2:.1} games/s; ratio \
         {:.2}x",
        best2 / best1
    );
}
