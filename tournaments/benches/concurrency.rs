//! Concurrency scaling: the same tournament of built-in bots at concurrency 1 and 2, reported as
//! games per second and their ratio (the issue asks for at least 1.8× on 2 cores).
//!
//! ```sh
//! cargo bench -p durak-tournaments --bench concurrency
//! BENCH_GAMES=40 BENCH_ROUNDS=3 cargo bench -p durak-tournaments --bench concurrency
//! BENCH_NO_AFFINITY=1 cargo bench -p durak-tournaments --bench concurrency   # tables unpinned
//! ```
//!
//! `BENCH_GAMES` is deals per table (12 tables), `BENCH_ROUNDS` the alternating rounds; the
//! medians are reported. Tables are pinned to CPUs as `durak tournament --affinity auto` does.
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
        own_cwd: true,
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
        sprt: None,
        bots: vec![
            bot("random-1", "builtin:random"),
            bot("greedy-1", "builtin:greedy"),
            bot("random-2", "builtin:random"),
            bot("greedy-2", "builtin:greedy"),
        ],
    }
}

/// Games per second of the whole tournament at `concurrency`, in a new directory under `root`.
/// (Directories are removed only at the end: ext4 is slow to create files among inodes freed in
/// the last seconds, which would tax each run with the previous run's clean-up.)
fn run(root: &std::path::Path, t: &Tournament, concurrency: usize) -> (usize, f64) {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = TournamentDir::create(&root.join(format!("t{n}")), t, &Default::default())
        .expect("directory");
    let lock = dir.lock().expect("lock");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let start = Instant::now();
    let summary = rt
        .block_on(run_tournament(
            t,
            &dir,
            &lock,
            RunOptions {
                concurrency,
                observer: Arc::new(Silent),
                sandbox: Default::default(),
                resources: Default::default(),
                cpu_groups: if std::env::var_os("BENCH_NO_AFFINITY").is_some() {
                    None
                } else {
                    durak_referee::affinity::groups(concurrency)
                },
                stop_after: None,
                shard: None,
                replays: Default::default(),
                hidden: Vec::new(),
                stop: None,
            },
        ))
        .expect("the tournament runs");
    let secs = start.elapsed().as_secs_f64();
    (summary.played, summary.played as f64 / secs)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    // `cargo test --benches` runs this with no `--bench`: a smoke run only.
    let bench = std::env::args().any(|a| a == "--bench");
    std::env::set_var("DURAK_EXE", durak_exe());
    let games: u32 = std::env::var("BENCH_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(if bench { 100 } else { 1 });
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(if bench { 7 } else { 1 });
    let t = tournament(games);
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    // Warm up (page cache, first process starts).
    let root = tempfile::tempdir().expect("temp dir");
    run(root.path(), &tournament(1), 2);
    // Alternate the two settings, so that whatever else the machine does falls on both alike;
    // report medians.
    let (mut gps1, mut gps2, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut games = 0;
    for round in 1..=rounds {
        let (n1, a) = run(root.path(), &t, 1);
        let (_, b) = run(root.path(), &t, 2);
        games = n1;
        println!(
            "round {round}: concurrency 1: {a:.1} games/s, concurrency 2: {b:.1} games/s \
             ({:.2}x)",
            b / a
        );
        gps1.push(a);
        gps2.push(b);
        ratios.push(b / a);
    }
    let (m1, m2) = (median(gps1), median(gps2));
    println!(
        "tournament/concurrency: {games} games of built-in bots per run, {cores} cores, median of \
         {rounds} rounds: concurrency 1: {m1:.1} games/s; concurrency 2: {m2:.1} games/s; \
         ratio {:.2}x (median of the rounds' ratios: {:.2}x)",
        m2 / m1,
        median(ratios)
    );
}
