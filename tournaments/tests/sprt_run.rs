//! The SPRT through the runner, with real games of the built-in bots (`builtin:greedy`,
//! `builtin:random`, run as the referee's `durak-bot bot NAME`, which is `durak bot NAME`:
//! deterministic given their deal, so every run below is), through
//! `durak_tournaments::run_tournament`. What each test proves is in its doc
//! comment; the statistics themselves are checked by simulation in `tests/sprt.rs`.

use durak_protocol::Limits;
use durak_rules::Variant;
use durak_tournaments::config::{Bot, Format, Tournament};
use durak_tournaments::results::{LineReader, ResultLine};
use durak_tournaments::runner::{RunOptions, RunSummary, Silent};
use durak_tournaments::sequencer::Closed;
use durak_tournaments::sprt::SprtTracker;
use durak_tournaments::stats::sprt::{Hypothesis, SprtParams};
use durak_tournaments::{run_tournament, Schedule, TournamentDir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

/// The built-in bots' program, the referee's `durak-bot`, built with cargo's own `cargo build -p
/// durak-referee --bin durak-bot` into this test's target directory and profile, once per test
/// binary (`cargo test` builds this package's binaries for its tests, not another's).
fn builtin_bots() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        // target/<profile>/deps/sprt_run-HASH
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>/deps");
        let mut build = Command::new(env!("CARGO"));
        build
            .args(["build", "-q", "-p", "durak-referee", "--bin", "durak-bot"])
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if profile_dir.file_name() == Some("release".as_ref()) {
            build.arg("--release");
        }
        let out = build.output().expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo build -p durak-referee --bin durak-bot: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bot = profile_dir.join("durak-bot");
        assert!(bot.is_file(), "{} was built", bot.display());
        bot
    })
}

fn bot(name: &str, command: &str) -> Bot {
    Bot {
        name: name.into(),
        command: command.into(),
        cwd: "/".into(),
        own_cwd: true,
        limits: Limits::default(),
    }
}

/// A gauntlet of `bots` (the first is the challenger) with `H0: 0` against `H1: 20` Elo,
/// `α = β = 0.05`, at most `deals` deals per table.
fn gauntlet(bots: Vec<Bot>, table_size: usize, deals: u32, seed: u64) -> Tournament {
    Tournament {
        variant: Variant::Podkidnoy,
        format: Format::Gauntlet,
        table_size,
        games: deals,
        seed,
        challenger: Some(bots[0].name.clone()),
        concurrency: None,
        max_consecutive_faults: 3,
        sprt: Some(SprtParams::new(0.0, 20.0, 0.05, 0.05).unwrap()),
        bots,
    }
}

/// Run (or resume) the tournament in `path`, accepting at most `stop_after` games.
fn run(t: &Tournament, path: &Path, concurrency: usize, stop_after: Option<usize>) -> RunSummary {
    // The built-in bots are `durak-bot bot NAME` (every test sets the same value).
    std::env::set_var("DURAK_EXE", builtin_bots());
    let dir = if path.join("tournament.toml").exists() {
        TournamentDir::open(path, false).unwrap().0
    } else {
        TournamentDir::create(path, t, &Default::default()).unwrap()
    };
    let lock = dir.lock().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run_tournament(
        t,
        &dir,
        &lock,
        RunOptions {
            concurrency,
            observer: Arc::new(Silent),
            sandbox: Default::default(),
            resources: Default::default(),
            cpu_groups: None,
            stop_after,
            shard: None,
            replays: Default::default(),
            hidden: Vec::new(),
            stop: None,
        },
    ))
    .unwrap()
}

fn results(path: &Path) -> Vec<ResultLine> {
    let mut lines: Vec<ResultLine> = LineReader::open(&path.join("results.jsonl"))
        .unwrap()
        .map(|l| l.unwrap().line)
        .collect();
    lines.sort_by_key(|l| l.id);
    lines
}

/// When each replay file was last written.
fn replay_times(path: &Path) -> std::collections::HashMap<PathBuf, std::time::SystemTime> {
    std::fs::read_dir(path.join("replays"))
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
        .collect()
}

/// Games recorded since `before` whose replay is the one that was already there (written by
/// the stopped run, not played again).
fn taken_in(
    path: &Path,
    before: &(
        Vec<ResultLine>,
        std::collections::HashMap<PathBuf, std::time::SystemTime>,
    ),
) -> usize {
    let (lines, times) = before;
    let old: std::collections::HashSet<u64> = lines.iter().map(|l| l.id).collect();
    results(path)
        .iter()
        .filter(|l| !old.contains(&l.id))
        .filter(|l| {
            let r = path.join(l.replay.as_ref().expect("a replay per game"));
            let now = std::fs::metadata(&r).unwrap().modified().unwrap();
            times.get(&r) == Some(&now)
        })
        .count()
}

fn replays(path: &Path) -> usize {
    std::fs::read_dir(path.join("replays")).unwrap().count()
}

/// What a decided run leaves: the results are exactly the games up to the deciding one (ids
/// `0..n`, deal-major: whole deals first), the test over them decides only at the last one, no
/// game more is recorded or left pending, one replay per result, and the standings say so.
fn check_decided(t: &Tournament, path: &Path, s: &RunSummary, expect: Hypothesis) {
    assert_eq!(s.closed, Some(Closed::Decided));
    let status = s.sprt.clone().expect("an SPRT status");
    assert_eq!(status.decision, Some(expect), "{status}");
    let lines = results(path);
    let n = lines.len();
    assert_eq!(status.games as usize, n);
    assert!(n < Schedule::build(t).total_games(), "stopped early");
    let ids: Vec<u64> = lines.iter().map(|l| l.id).collect();
    assert_eq!(ids, (0..n as u64).collect::<Vec<_>>());
    let mut before = SprtTracker::new(t, t.sprt.unwrap()).unwrap();
    for l in &lines[..n - 1] {
        before.add(l);
        assert_eq!(
            before.status().decision,
            None,
            "decided before game {}",
            l.id
        );
    }
    before.add(&lines[n - 1]);
    assert_eq!(before.status(), status);
    assert!(!path.join("pending.jsonl").exists());
    assert_eq!(replays(path), n, "one replay per recorded game");
    let (dir, stored) = TournamentDir::open(path, false).unwrap();
    assert_eq!(&stored, t);
    let standings = dir.standings(&stored).unwrap();
    assert_eq!(standings.sprt.as_ref(), Some(&status));
    assert!(standings.to_text().contains(&status.verdict()));
}

/// Greedy against random (hundreds of Elo apart): the test accepts H1 ("better by 20 Elo
/// rather than 0") after a few dozen deals, and stops there.
#[test]
fn greedy_against_random_accepts_h1_and_stops() {
    let tmp = tempfile::tempdir().unwrap();
    let t = gauntlet(
        vec![
            bot("greedy", "builtin:greedy"),
            bot("random", "builtin:random"),
        ],
        2,
        2000,
        11,
    );
    let s = run(&t, tmp.path(), 2, None);
    check_decided(&t, tmp.path(), &s, Hypothesis::H1);
    let status = s.sprt.unwrap();
    assert!(status.paired && status.deals * 2 == status.games);
    assert!(status.games < 400, "{status}");
    assert!(status.score > 0.8, "{status}");
}

/// Greedy against a copy of itself: the same deterministic player on both sides of every
/// deal, so each deal's two rotations mirror each other and every deal is split (score ½
/// exactly). The paired test then sees no spread at all and accepts H0 ("not better by 20");
/// it cannot accept H1, whose mean 52.9 % the data never approaches.
#[test]
fn greedy_against_a_copy_of_itself_accepts_h0() {
    let tmp = tempfile::tempdir().unwrap();
    let t = gauntlet(
        vec![
            bot("greedy-new", "builtin:greedy"),
            bot("greedy-old", "builtin:greedy"),
        ],
        2,
        2000,
        12,
    );
    let s = run(&t, tmp.path(), 2, None);
    check_decided(&t, tmp.path(), &s, Hypothesis::H0);
    let status = s.sprt.unwrap();
    assert_eq!(status.score, 0.5, "{status}");
    // Deals decide much sooner than games would: the unpaired LLR has not crossed yet.
    assert!(status.llr_unpaired > status.lower, "{status}");
}

/// Three seats: a deal is its three rotations, ids go deal by deal over the three tables of
/// each pair of opponents, and greedy against two random bots is accepted as better.
#[test]
fn three_seats_greedy_against_two_random_bots_accepts_h1() {
    let tmp = tempfile::tempdir().unwrap();
    let t = gauntlet(
        vec![
            bot("greedy", "builtin:greedy"),
            bot("random-1", "builtin:random"),
            bot("random-2", "builtin:random"),
        ],
        3,
        2000,
        13,
    );
    let s = run(&t, tmp.path(), 2, None);
    check_decided(&t, tmp.path(), &s, Hypothesis::H1);
    assert_eq!(s.sprt.unwrap().games % 3, 0, "whole deals");
}

/// A run stopped mid-way (after 7 games, then after 13 more: as a kill would leave it, with
/// finished games pending) and resumed, at another concurrency each time, ends with the same
/// verdict after the same games, with the same results, as an uninterrupted run; resuming the
/// decided run once more plays nothing and says it is decided.
#[test]
fn a_resumed_run_ends_as_an_uninterrupted_one() {
    let t = gauntlet(
        vec![
            bot("greedy", "builtin:greedy"),
            bot("random", "builtin:random"),
        ],
        2,
        2000,
        14,
    );
    let whole = tempfile::tempdir().unwrap();
    let once = run(&t, whole.path(), 2, None);
    check_decided(&t, whole.path(), &once, Hypothesis::H1);

    let parts = tempfile::tempdir().unwrap();
    let first = run(&t, parts.path(), 1, Some(7));
    assert_eq!(first.closed, Some(Closed::Budget));
    assert_eq!(first.played, 7);
    assert_eq!(first.sprt.as_ref().unwrap().decision, None);
    // What a stopped run finished but did not record (`pending.jsonl`) is recorded by the
    // next one without being played again, and counted apart from what it plays (the resume
    // note says both): a game taken in keeps the replay the stopped run wrote.
    let before = (results(parts.path()), replay_times(parts.path()));
    let second = run(&t, parts.path(), 2, Some(13));
    assert_eq!((second.already, second.recovered + second.played), (7, 13));
    assert_eq!(
        second.recovered,
        taken_in(parts.path(), &before),
        "{second:?}"
    );
    let before = (results(parts.path()), replay_times(parts.path()));
    let last = run(&t, parts.path(), 2, None);
    assert_eq!(last.already, 20);
    assert_eq!(last.recovered, taken_in(parts.path(), &before), "{last:?}");
    assert!(
        second.recovered + last.recovered > 0,
        "the stopped runs left games to take in: the check above checked something"
    );
    assert_eq!(
        last.sprt, once.sprt,
        "the same verdict after the same games"
    );
    let key = |l: &ResultLine| (l.id, l.seats.clone(), l.seed, l.loser, l.moves, l.draw);
    assert_eq!(
        results(parts.path()).iter().map(key).collect::<Vec<_>>(),
        results(whole.path()).iter().map(key).collect::<Vec<_>>()
    );

    let again = run(&t, parts.path(), 2, None);
    assert_eq!((again.played, again.closed), (0, Some(Closed::Decided)));
    assert_eq!(again.sprt, once.sprt);
    assert_eq!(
        results(parts.path()).len(),
        once.sprt.unwrap().games as usize
    );
}
