//! Issue 23, tables that cannot touch each other: a bot's processes stay on its table's CPUs
//! and share one CPU weight, whatever they call (`sched_setaffinity`, `setsid`). The bots here
//! are played as a tournament plays a table: by a thread pinned to the table's CPU.

mod common;

use common::modes::both_modes;
use common::*;
use durak_protocol::Limits;
use durak_referee::isolation::cgroup::support;
use durak_referee::{play_match, MatchResult, Sandbox, SeatSpec};
use std::path::Path;
use std::time::{Duration, Instant};

both_modes!(a_child_that_widens_its_affinity_stays_on_the_tables_cpu);

/// Play `seats` as a table pinned to `cpu` does (`--affinity auto`): a thread pinned to it, a
/// single-threaded runtime.
fn play_on_cpu(cpu: usize, seats: Vec<SeatSpec>, replay_dir: &Path) -> MatchResult {
    let cfg = config(seats, 1, replay_dir);
    std::thread::spawn(move || {
        durak_referee::affinity::pin_current_thread(&[cpu]).expect("pin");
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(play_match(&cfg, |_| {}))
            .expect("the match is played")
    })
    .join()
    .unwrap()
}

/// Bots get a cpuset here (as root with the cpuset controller, cgroup v1 or v2) and there is
/// more than one CPU to keep them from; else the test is skipped with the reason (and fails
/// where tests are required).
fn cpusets_or_skip() -> Option<usize> {
    require_with("a cpuset per bot", "(none: run the tests as root)", || {
        let s = support().as_ref().map_err(|e| e.to_string())?;
        match &s.cpuset {
            Some(base) if base.cpus.len() > 1 => Ok(base.dir.clone()),
            Some(_) => Err("one CPU only: no table has CPUs of its own".into()),
            None => Err(s.cpu_notes.join("; ")),
        }
    })?;
    durak_referee::affinity::allowed_cpus().last().copied()
}

/// A bot whose child asks for every CPU (`taskset`, that is `sched_setaffinity`) still runs
/// only on its table's CPU: the bot's cpuset holds that CPU alone. With the table's pinning
/// alone (before issue 23), the child got them all.
fn a_child_that_widens_its_affinity_stays_on_the_tables_cpu(sb: Sandbox) {
    let Some(cpu) = cpusets_or_skip() else {
        return;
    };
    let h = Hostile::new();
    let seat = h.seat(
        "all=\"0-$(( $(getconf _NPROCESSORS_CONF) - 1 ))\"\n\
         echo \"asked for $all\" >&2\n\
         taskset -c \"$all\" grep Cpus_allowed_list /proc/self/status >&2\n\
         exec \"$DURAK\" bot random\n",
        Limits {
            startup_ms: 10_000,
            ..hostile_limits()
        },
        sb,
    );
    let r = play_on_cpu(cpu, vec![seat, builtin("random", sb)], &h.replay_dir());
    assert!(r.games[0].faults.is_empty(), "{:?}", r.games[0].faults);
    let err = replay_stderr(&r, 0, 0);
    let list = err
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or_else(|| panic!("the child's Cpus_allowed_list in {err}"))
        .trim();
    assert_eq!(list, cpu.to_string(), "the child may run on {list}: {err}");
}

/// A bot that says hello, then starts `n` children, each in a session of its own (`setsid`),
/// spinning; each child's pid goes to `spin`. When `go` exists (or after about 30 s) it stops
/// them and exits: the game does not matter here.
fn spinning_bot(h: &Hostile, n: u32, spin: &Path, go: &Path) -> SeatSpec {
    h.seat(
        &format!(
            "{HELLO}SPIN='{}'; GO='{}'\n\
             i=0; while [ $i -lt {n} ]; do setsid sh -c 'while :; do :; done' & echo $! >> \"$SPIN\"; i=$((i+1)); done\n\
             t=0; while [ ! -e \"$GO\" ] && [ $t -lt 600 ]; do sleep 0.05; t=$((t+1)); done\n\
             kill $(cat \"$SPIN\")\n",
            spin.display(),
            go.display()
        ),
        Limits {
            move_ms: 40_000,
            ..hostile_limits()
        },
        Sandbox::Default,
    )
}

/// The CPU time the processes in `spin` have used (`/proc/PID/schedstat`, nanoseconds).
fn cpu_time(spin: &Path) -> Duration {
    let pids = std::fs::read_to_string(spin).unwrap_or_default();
    let ns: u64 = pids
        .split_whitespace()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

/// Two bots at one table (one CPU): the first starts 8 children in sessions of their own, the
/// second one; all spin. Each bot is one cgroup with the same CPU weight, so the 8 together
/// get about what the one gets (measured: about 1.0), not 8 times as much, as they did when
/// each new session got a scheduler share of its own (autogroup). Asserted with a wide
/// margin: less than 3 times.
#[test]
fn a_bots_setsid_children_share_its_one_cpu_weight() {
    if require_with(
        "a CPU weight per bot",
        "(none: run the tests as root)",
        || {
            let s = support().as_ref().map_err(|e| e.to_string())?;
            s.cpu.clone().ok_or_else(|| s.cpu_notes.join("; "))
        },
    )
    .is_none()
    {
        return;
    }
    let cpu = *durak_referee::affinity::allowed_cpus().last().unwrap();
    let (many, one) = (Hostile::new(), Hostile::new());
    let go = many.dir.path().join("go");
    let spin_many = many.dir.path().join("spin");
    let spin_one = one.dir.path().join("spin");
    let seats = vec![
        spinning_bot(&many, 8, &spin_many, &go),
        spinning_bot(&one, 1, &spin_one, &go),
    ];
    let replays = many.replay_dir();
    let game = std::thread::spawn(move || play_on_cpu(cpu, seats, &replays));
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let start = Instant::now();
    while (lines(&spin_many) < 8 || lines(&spin_one) < 1)
        && start.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the spinners settle on their CPU, then measure over one second.
    std::thread::sleep(Duration::from_millis(200));
    let (m0, o0) = (cpu_time(&spin_many), cpu_time(&spin_one));
    std::thread::sleep(Duration::from_secs(1));
    let (m1, o1) = (cpu_time(&spin_many), cpu_time(&spin_one));
    std::fs::write(&go, "").unwrap();
    game.join().unwrap();
    let (m, o) = (m1 - m0, o1 - o0);
    assert!(
        o > Duration::from_millis(100),
        "the single spinner ran {o:?} in a second (the 8 ran {m:?})"
    );
    let ratio = m.as_secs_f64() / o.as_secs_f64();
    eprintln!("8 setsid spinners: {m:?}, 1 spinner: {o:?}, ratio {ratio:.2}");
    assert!(
        ratio < 3.0,
        "8 setsid spinners got {ratio:.2} times one spinner's CPU"
    );
}
