//! Memory and durability of a long tournament (issue 11): not a timed test, a benchmark.
//!
//! ```sh
//! cargo build --release && cargo bench -p durak-tournaments --bench memory
//! BENCH_GAMES=30000,300000 BENCH_ROUNDS=3 BENCH_KILLS=5 cargo bench -p durak-tournaments --bench memory
//! ```
//!
//! 1. Peak memory: `durak tournament` (the release binary) plays `BENCH_GAMES` games of built-in
//!    bots (18 bots, 9 `builtin:random` and 9 `builtin:greedy`: 306 tables of 2, duplicate deals,
//!    the games per table giving the total), `BENCH_ROUNDS` times each; reported, as medians:
//!    the referee's peak resident memory during the games (`VmHWM` when they are done, from
//!    `DURAK_RUN_STATS`), the peak of the whole process (`wait4`'s `ru_maxrss`: the standings at
//!    the end included), games per second, and the longest wait from a game's end to its line
//!    being durable. The issue asks for 300,000 games within 1.2x of 30,000.
//! 2. Kills: `BENCH_KILLS` runs of `BENCH_KILL_GAMES` games (default 30,000) killed by SIGKILL at
//!    a random moment; each game is logged as it finishes (`DURAK_FINISH_LOG`), and the games
//!    logged but neither in `results.jsonl` nor in `held.jsonl` are the lost ones: reported
//!    with how long before the kill the oldest of them finished. The issue asks for at most the
//!    games of the last second.
//!
//! The tournament directories go to `BENCH_DIR` (default: a temporary directory), one at a
//! time (300,000 replays are about 7 GB). `DURAK_EXE` names the binary (default
//! `target/release/durak`, built first: `cargo build --release --bin durak`, a no-op when it is
//! up to date).

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BOTS: usize = 18;

fn durak_exe() -> PathBuf {
    if let Some(p) = std::env::var_os("DURAK_EXE") {
        return PathBuf::from(p);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let exe = root.join("target/release/durak");
    // Built every time (a no-op when it is up to date): this bench measures the binary, and a
    // stale one measures yesterday's code.
    {
        eprintln!("building target/release/durak (cargo build --release --bin durak)...");
        let ok = Command::new(env!("CARGO"))
            .args(["build", "--release", "--bin", "durak"])
            .current_dir(&root)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "cargo build --release --bin durak failed");
    }
    exe
}

/// The configuration: BOTS built-in bots, tables of 2 (BOTS * (BOTS - 1) tables).
fn config(dir: &Path) -> PathBuf {
    let mut text = String::from("[tournament]\nseed = 11\nmax_consecutive_faults = 0\n\n");
    for i in 0..BOTS {
        let kind = if i % 2 == 0 { "random" } else { "greedy" };
        text.push_str(&format!(
            "[[bot]]\nname = \"{kind}-{i}\"\ncommand = \"builtin:{kind}\"\n\n"
        ));
    }
    let path = dir.join("bench.toml");
    std::fs::write(&path, text).expect("the configuration");
    path
}

fn tables() -> u64 {
    (BOTS * (BOTS - 1)) as u64
}

struct Run {
    games: u64,
    /// KiB.
    run_peak: u64,
    process_peak: u64,
    secs: f64,
    durable_max_ms: f64,
    held_max: u64,
}

fn stat(stats: &str, key: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(stats).expect("run-stats JSON");
    v[key].as_f64().unwrap_or(0.0)
}

/// Wait for `pid` (a child): its exit status and peak resident memory in KiB.
fn wait_rss(pid: u32) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not waited for yet; the pointers are valid.
    let r = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as i32, "wait4");
    (status, usage.ru_maxrss as u64)
}

#[allow(clippy::zombie_processes)] // waited for with wait4, for its rusage
fn play(exe: &Path, config: &Path, root: &Path, games: u64) -> Run {
    let per_table = games / tables();
    let out = root.join(format!("t-{games}"));
    let _ = std::fs::remove_dir_all(&out);
    let start = Instant::now();
    let mut child = Command::new(exe)
        .args(["tournament", "-q", "-c"])
        .arg(config)
        .args(["--games", &per_table.to_string(), "--out"])
        .arg(&out)
        .env("DURAK_EXE", exe)
        .env("DURAK_RUN_STATS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("durak tournament");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let (status, process_peak) = wait_rss(child.id());
    let secs = start.elapsed().as_secs_f64();
    let err = reader.join().expect("stderr");
    assert_eq!(status, 0, "durak tournament failed: {err}");
    let stats = err
        .lines()
        .find_map(|l| l.strip_prefix("run-stats: "))
        .unwrap_or_else(|| panic!("no run-stats in: {err}"));
    let _ = std::fs::remove_dir_all(&out);
    Run {
        games: per_table * tables(),
        run_peak: stat(stats, "vm_hwm_kib") as u64,
        process_peak,
        secs,
        durable_max_ms: stat(stats, "durable_max_ms"),
        held_max: stat(stats, "held_max") as u64,
    }
}

/// Ids of the whole lines of a JSON-lines file.
fn ids(path: &Path) -> HashSet<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| l.ends_with('}'))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["id"].as_u64())
        .collect()
}

/// One run killed at `after`: (games finished, lost, how long before the kill the oldest lost
/// game finished).
fn kill(
    exe: &Path,
    config: &Path,
    root: &Path,
    games: u64,
    after: Duration,
) -> (usize, usize, f64) {
    let out = root.join("killed");
    let _ = std::fs::remove_dir_all(&out);
    let log = root.join("finished.log");
    let _ = std::fs::remove_file(&log);
    let mut child = Command::new(exe)
        .args(["tournament", "-q", "-c"])
        .arg(config)
        .args(["--games", &(games / tables()).to_string(), "--out"])
        .arg(&out)
        .env("DURAK_EXE", exe)
        .env("DURAK_FINISH_LOG", &log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("durak tournament");
    std::thread::sleep(after);
    let killed_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock")
        .as_nanos();
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    let mut kept = ids(&out.join("results.jsonl"));
    kept.extend(ids(&out.join("held.jsonl")));
    let finished: Vec<(u64, u128)> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (id, t) = l.split_once(' ')?;
            Some((id.parse().ok()?, t.parse().ok()?))
        })
        .collect();
    let lost: Vec<u128> = finished
        .iter()
        .filter(|(id, _)| !kept.contains(id))
        .map(|(_, t)| *t)
        .collect();
    let oldest = lost
        .iter()
        .min()
        .map_or(0.0, |&t| killed_at.saturating_sub(t) as f64 / 1e6);
    let _ = std::fs::remove_dir_all(&out);
    (finished.len(), lost.len(), oldest)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: a smoke run only.
    let bench = std::env::args().any(|a| a == "--bench");
    let exe = durak_exe();
    let tmp;
    let root = match std::env::var_os("BENCH_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            tmp = tempfile::tempdir().expect("a temporary directory");
            tmp.path().to_path_buf()
        }
    };
    std::fs::create_dir_all(&root).expect("BENCH_DIR");
    let config = config(&root);
    let sizes: Vec<u64> = std::env::var("BENCH_GAMES")
        .unwrap_or_else(|_| {
            if bench {
                "30000,300000".into()
            } else {
                "612".into()
            }
        })
        .split(',')
        .filter_map(|g| g.trim().parse().ok())
        .collect();
    let rounds: usize = env_or("BENCH_ROUNDS", if bench { 3 } else { 1 });
    let kills: usize = env_or("BENCH_KILLS", if bench { 5 } else { 0 });
    let kill_games: u64 = env_or("BENCH_KILL_GAMES", 30_000);

    let mut peaks = Vec::new();
    for &games in &sizes {
        let runs: Vec<Run> = (0..rounds)
            .map(|round| {
                let r = play(&exe, &config, &root, games);
                println!(
                    "{} games, round {}: run peak {} KiB, process peak {} KiB, {:.0} games/s, \
                     durable within {:.0} ms, {} held at most",
                    r.games,
                    round + 1,
                    r.run_peak,
                    r.process_peak,
                    r.games as f64 / r.secs,
                    r.durable_max_ms,
                    r.held_max
                );
                r
            })
            .collect();
        let m = |f: fn(&Run) -> f64| median(runs.iter().map(f).collect());
        let (run, process) = (m(|r| r.run_peak as f64), m(|r| r.process_peak as f64));
        println!(
            "memory/{}: median of {rounds}: run peak {:.1} MiB, process peak {:.1} MiB, {:.0} \
             games/s, durable within {:.0} ms",
            runs[0].games,
            run / 1024.0,
            process / 1024.0,
            m(|r| r.games as f64 / r.secs),
            m(|r| r.durable_max_ms)
        );
        peaks.push((runs[0].games, run, process));
    }
    if let (Some(first), Some(last)) = (peaks.first(), peaks.last()) {
        if peaks.len() > 1 {
            println!(
                "memory: {} games against {}: run peak {:.2}x, process peak {:.2}x (the issue \
                 asks for at most 1.2x)",
                last.0,
                first.0,
                last.1 / first.1,
                last.2 / first.2
            );
        }
    }
    if kills > 0 {
        // Kill somewhere in the middle of the run: its length from a first run's rate.
        let probe = play(&exe, &config, &root, kill_games);
        let secs = probe.secs;
        let mut lost_all = Vec::new();
        let mut oldest_all: Vec<f64> = Vec::new();
        for k in 0..kills {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("a clock")
                .subsec_nanos();
            let at = secs * (0.1 + 0.8 * (nanos as f64 / 1e9));
            let (finished, lost, oldest) = kill(
                &exe,
                &config,
                &root,
                kill_games,
                Duration::from_secs_f64(at),
            );
            println!(
                "kill {}: SIGKILL after {at:.1} s: {finished} games finished, {lost} lost, the \
                 oldest of them {oldest:.0} ms before the kill",
                k + 1
            );
            lost_all.push(lost as f64);
            oldest_all.push(oldest);
        }
        println!(
            "kill: {kills} SIGKILLs of a {kill_games}-game run: median {:.0} games lost, the \
             oldest lost game at most {:.0} ms before its kill (the issue asks for under 1 s)",
            median(lost_all),
            oldest_all.iter().copied().fold(0.0, f64::max)
        );
    }
}
