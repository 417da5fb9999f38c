//! Issue 6: bots are hostile. Every behaviour below is a real process (a `sh` script) with its
//! expected named outcome; after each game the referee is alive, and no process of the bot is
//! left (neither the PIDs it recorded nor any process carrying its marker). Most behaviours run in
//! both modes (`default` and `strict`, the `mod` of the test says which); a few run in one mode
//! only, where the other cannot hold or is unsafe to try (a real fork bomb as root in default
//! mode). `multi_table` checks that the other games of a tournament are unaffected. A bot whose
//! referee is killed (`durak play`, SIGKILL) is the workspace's `tests/isolation.rs`.
//!
//! Strict-mode tests need bubblewrap: without it they are skipped with a note, or fail where
//! system programs are required (CI; see common/system.rs).

mod common;

use common::modes::both_modes;
use common::*;
use durak_protocol::{FaultKind, Limits};
use durak_referee::{play_match, Isolation, MatchResult, ResourceLimits, Sandbox, SeatSpec};
use std::io::Read;
use std::time::{Duration, Instant};

both_modes!(
    silent,
    garbage,
    wrong_json_shape,
    invalid_utf8,
    flood_without_newline,
    one_huge_line,
    deeply_nested_json,
    stderr_flood,
    closes_stdout,
    never_reads_stdin,
    ignores_sigterm,
    leaves_grandchildren,
    leaves_grandchildren_after_setsid,
    double_forks_and_setsids_then_exits,
    forks_many_children,
    eats_memory,
    burns_cpu,
    answers_late,
    answers_twice,
    tries_to_kill_the_referee,
    learns_nothing_from_its_process,
    limits_are_applied,
    multi_table,
    sample_bots_play,
);

fn silent(sb: Sandbox) {
    let h = Hostile::new();
    let r = expect_fault(&h, "sleep $NAP\n", hostile_limits(), sb, FaultKind::Timeout);
    assert!(r.games[0].faults[0].detail.contains("hello"));
}

fn garbage(sb: Sandbox) {
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request("echo 'hello there, referee'"),
        hostile_limits(),
        sb,
        FaultKind::Malformed,
    );
}

fn wrong_json_shape(sb: Sandbox) {
    let h = Hostile::new();
    let r = expect_fault(
        &h,
        &on_request(
            r#"id=$(request_id "$line"); echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"fly\"}""#,
        ),
        hostile_limits(),
        sb,
        FaultKind::Schema,
    );
    assert!(r.games[0].faults[0].detail.contains("action"));
}

fn invalid_utf8(sb: Sandbox) {
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request(r"printf '\377\376{}\n'"),
        hostile_limits(),
        sb,
        FaultKind::Malformed,
    );
}

fn flood_without_newline(sb: Sandbox) {
    // 100 MB and no newline: cut off at the line limit, never buffered whole.
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request(r"head -c 100000000 /dev/zero | tr '\0' 'a'; sleep $NAP"),
        hostile_limits(),
        sb,
        FaultKind::LineTooLong,
    );
}

fn one_huge_line(sb: Sandbox) {
    // One complete line of 2 MiB (the limit is 1 MiB).
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request(r"head -c 2097152 /dev/zero | tr '\0' '['; echo; sleep $NAP"),
        hostile_limits(),
        sb,
        FaultKind::LineTooLong,
    );
}

fn deeply_nested_json(sb: Sandbox) {
    // 200 000 nested arrays in one line under the limit: refused by the parser's depth limit,
    // without overflowing the referee's stack.
    let h = Hostile::new();
    let r = expect_fault(
        &h,
        &on_request(
            r"{ head -c 200000 /dev/zero | tr '\0' '['; head -c 200000 /dev/zero | tr '\0' ']'; echo; }",
        ),
        hostile_limits(),
        sb,
        FaultKind::Malformed,
    );
    assert!(
        r.games[0].faults[0].detail.contains("recursion"),
        "{:?}",
        r.games[0].faults
    );
}

fn stderr_flood(sb: Sandbox) {
    // Floods stderr from a child while playing properly: no fault, the log is capped.
    let h = Hostile::new();
    let body = "yes 'flooding stderr' >&2 &\nrec $!\nexec \"$DURAK\" bot random\n";
    let mut seat = h.seat(body, hostile_limits(), sb);
    seat.limits.move_ms = 10_000;
    let r = run(vec![seat, builtin("greedy", sb)], 2, &h.replay_dir());
    for (i, g) in r.games.iter().enumerate() {
        assert!(g.faults.is_empty(), "no fault from a stderr flood: {g:?}");
        let text = replay_stderr(&r, i, 0);
        assert!(text.len() <= 64 * 1024 + 1);
        assert!(text.contains("flooding stderr"));
    }
    assert_no_process_left(&h);
}

fn closes_stdout(sb: Sandbox) {
    let h = Hostile::new();
    expect_fault(
        &h,
        &format!("{HELLO}exec 1>&-\nwhile read line; do :; done\n"),
        hostile_limits(),
        sb,
        FaultKind::Closed,
    );
}

fn never_reads_stdin(sb: Sandbox) {
    // Says hello without reading anything, then never reads: the referee's writes are bounded.
    let h = Hostile::new();
    expect_fault(
        &h,
        "echo '{\"type\":\"hello\",\"protocol\":1,\"name\":\"deaf\",\"version\":\"1\"}'\nsleep $NAP\n",
        hostile_limits(),
        sb,
        FaultKind::Timeout,
    );
}

fn ignores_sigterm(sb: Sandbox) {
    let h = Hostile::new();
    expect_fault(
        &h,
        &format!("trap '' TERM\n{}", on_request("sleep $NAP")),
        hostile_limits(),
        sb,
        FaultKind::Timeout,
    );
}

fn leaves_grandchildren(sb: Sandbox) {
    // A child in the bot's process group holds stdout open; the bot exits.
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request("sleep $NAP & rec $!; exit 0"),
        hostile_limits(),
        sb,
        FaultKind::Crash,
    );
}

fn leaves_grandchildren_after_setsid(sb: Sandbox) {
    // Children in sessions of their own (out of the bot's process group), one holding stdout;
    // the bot keeps running and times out, then exits: both are cleaned up.
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request(
            "setsid sleep $NAP & rec $!; setsid sleep $NAP >/dev/null 2>&1 & rec $!; sleep $NAP",
        ),
        hostile_limits(),
        sb,
        FaultKind::Timeout,
    );
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request("setsid sleep $NAP & rec $!; sleep 0.1; exit 0"),
        hostile_limits(),
        sb,
        FaultKind::Crash,
    );
}

fn double_forks_and_setsids_then_exits(sb: Sandbox) {
    // The classic daemon: a subshell starts a new session with a child and exits at once, so
    // the child is orphaned (adopted by the supervisor, not by init); then the bot exits.
    let h = Hostile::new();
    expect_fault(
        &h,
        &on_request(
            "( setsid sh -c 'sleep $0 & echo $! >> \"$1\" 2>/dev/null; sleep $0' $NAP \"$PIDS\" & ) ; sleep 0.2; exit 0",
        ),
        hostile_limits(),
        sb,
        FaultKind::Crash,
    );
}

fn forks_many_children(sb: Sandbox) {
    let h = Hostile::new();
    // Bounded by the bot's pids cgroup (any user, any mode), or in strict mode by its own uid's
    // RLIMIT_NPROC; default mode as root without a cgroup has no process limit.
    let bounded = durak_referee::isolation::cgroup::support().is_ok() || sb == Sandbox::Strict;
    if !bounded {
        // 100 children, bounded by the script.
        expect_fault(
            &h,
            &on_request(
                "i=0; while [ $i -lt 100 ]; do sleep $NAP & rec $!; i=$((i+1)); done; sleep $NAP",
            ),
            hostile_limits(),
            sb,
            FaultKind::Timeout,
        );
        assert!(h.pids().len() > 100);
        return;
    }
    // A real fork bomb. The process limit stops it (the shell cannot fork and exits with 2): a
    // crash well before the move limit, not a machine brought down.
    let limits = Limits {
        move_ms: 20_000,
        ..hostile_limits()
    };
    let start = Instant::now();
    let r = expect_fault(
        &h,
        &on_request("while :; do sleep $NAP & done"),
        limits,
        sb,
        FaultKind::Crash,
    );
    assert!(
        r.games[0].faults[0].detail.contains("exited"),
        "{:?}",
        r.games[0]
    );
    assert!(start.elapsed() < Duration::from_secs(15));
}

fn eats_memory(sb: Sandbox) {
    // Doubles a string until the address-space limit (256 MiB here) stops it.
    let h = Hostile::new();
    let iso = Isolation {
        sandbox: sb,
        limits: ResourceLimits {
            address_space: Some(256 << 20),
            ..ResourceLimits::default()
        },
        ..Isolation::default()
    };
    let limits = Limits {
        move_ms: 20_000,
        ..hostile_limits()
    };
    let start = Instant::now();
    expect_fault_iso(
        &h,
        &on_request(r#"exec awk 'BEGIN { s = "x"; while (1) s = s s }'"#),
        limits,
        iso,
        FaultKind::Crash,
    );
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "stopped by the limit, not the clock"
    );
}

fn burns_cpu(sb: Sandbox) {
    // Spins; with 1 CPU second per game it gets SIGXCPU long before the 20 s move limit.
    let h = Hostile::new();
    let iso = Isolation {
        sandbox: sb,
        limits: ResourceLimits {
            cpu_secs_per_game: Some(1),
            ..ResourceLimits::default()
        },
        ..Isolation::default()
    };
    let limits = Limits {
        move_ms: 20_000,
        ..hostile_limits()
    };
    let r = expect_fault_iso(
        &h,
        &on_request("exec awk 'BEGIN { while (1) {} }'"),
        limits,
        iso,
        FaultKind::Crash,
    );
    assert!(
        r.games[0].faults[0].detail.contains("SIGXCPU"),
        "{:?}",
        r.games[0]
    );
}

fn answers_late(sb: Sandbox) {
    // A correct answer, 700 ms after a 300 ms limit.
    let h = Hostile::new();
    let r = expect_fault(
        &h,
        &on_request(
            r#"sleep 0.7; id=$(request_id "$line"); echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"pass\"}""#,
        ),
        hostile_limits(),
        sb,
        FaultKind::Timeout,
    );
    assert!(r.games[0].faults[0].detail.contains("300 ms"));
}

fn answers_twice(sb: Sandbox) {
    // A real bot whose every answer is written twice: the second copy is read as the answer to
    // the next request, whose id it does not carry.
    let h = Hostile::new();
    let body = r#""$DURAK" bot random | sed -u '/"type":"answer"/p'"#;
    let limits = Limits {
        move_ms: 5_000,
        ..hostile_limits()
    };
    let r = expect_fault(&h, &format!("{body}\n"), limits, sb, FaultKind::Schema);
    assert!(
        r.games[0].faults[0].detail.contains("/id"),
        "{:?}",
        r.games[0]
    );
}

fn tries_to_kill_the_referee(sb: Sandbox) {
    // Signals its parent, every process it may signal, and the referee by its pid (passed in the
    // script, as a bot could learn it from /proc in default mode). In default mode its parent is
    // the supervisor, which dies: a crash (the referee survives, but see docs/SECURITY.md: a
    // bot of the same user that goes looking for the referee can kill it). In strict mode
    // nothing outside the sandbox can be reached: the bot is still there and times out.
    let h = Hostile::new();
    let me = std::process::id();
    let (body, kind) = match sb {
        Sandbox::Default => ("kill -9 $PPID; sleep $NAP".to_string(), FaultKind::Crash),
        Sandbox::Strict => (
            format!(
                "kill -9 $PPID; kill -9 -1; kill -9 {me}; for p in /proc/[0-9]*; do [ ${{p#/proc/}} = $$ ] || kill -9 ${{p#/proc/}}; done; sleep $NAP"
            ),
            FaultKind::Timeout,
        ),
    };
    let r = expect_fault(&h, &on_request(&body), hostile_limits(), sb, kind);
    // The referee is alive (this test runs in it) and responsive: it finished the game and can
    // play another.
    assert!(r.games[0].duration_ms < 10_000);
    let dir = tempfile::tempdir().unwrap();
    let again = run(
        vec![builtin("random", sb), builtin("greedy", sb)],
        1,
        dir.path(),
    );
    assert!(again.games[0].faults.is_empty());
}

/// Dumps what a bot can learn about the match from its own process: arguments, environment,
/// working directory, open descriptors, limits.
const SNOOP: &str = r#"{
echo "ARGS: $0 $*"
echo "CWD: $(pwd)"; ls -la .
echo "ENV:"; env
echo "FDS:"; ls -l /proc/self/fd
echo "HOME: $(ls -la "$HOME" 2>&1)"
} >&2
"#;

fn learns_nothing_from_its_process(sb: Sandbox) {
    // The seed and the replay directory are nowhere in what the bot is given.
    let h = Hostile::new();
    let seed: u64 = 987_654_321_123;
    let replay_dir = h.dir.path().join(format!("replays-{seed}"));
    let mut cfg = config(
        vec![
            h.seat(
                &format!("{SNOOP}{}", on_request("sleep $NAP")),
                hostile_limits(),
                sb,
            ),
            builtin("random", sb),
        ],
        1,
        &replay_dir,
    );
    cfg.seed = seed;
    let r = runtime().block_on(play_match(&cfg, |_| {})).unwrap();
    assert_fault(&r, FaultKind::Timeout);
    let text = replay_stderr(&r, 0, 0);
    assert!(text.contains("ENV:"), "{text}");
    assert!(!text.contains(&seed.to_string()), "the seed leaked: {text}");
    assert!(
        !text.contains("replays-"),
        "the replay directory leaked: {text}"
    );
    // Only PATH, LANG, HOME (and what the shell itself sets).
    let env: Vec<&str> = text
        .split("ENV:\n")
        .nth(1)
        .unwrap()
        .split("FDS:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split('=').next())
        .collect();
    for var in &env {
        assert!(
            ["PATH", "LANG", "HOME", "PWD", "OLDPWD", "SHLVL", "_"].contains(var),
            "unexpected variable {var} in {env:?}"
        );
    }
    // No descriptor beyond 0, 1, 2 (and the one `ls` opens to list them).
    let fds: Vec<u32> = text
        .split("FDS:\n")
        .nth(1)
        .unwrap()
        .split("HOME:")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.contains(" -> "))
        .filter_map(|l| {
            l.split(" -> ")
                .next()?
                .split_whitespace()
                .last()?
                .parse()
                .ok()
        })
        .collect();
    assert!(
        fds.iter().all(|&fd| fd <= 3),
        "inherited descriptors: {fds:?}\n{text}"
    );
    // A fresh private working directory, with HOME in it (strict: the sandbox's /tmp).
    let cwd = text.lines().find_map(|l| l.strip_prefix("CWD: ")).unwrap();
    match sb {
        Sandbox::Default => assert!(cwd.contains("durak-bot-"), "{cwd}"),
        Sandbox::Strict => assert_eq!(cwd, "/tmp"),
    }
    assert_no_process_left(&h);
}

fn limits_are_applied(sb: Sandbox) {
    // The documented defaults, and an override.
    let h = Hostile::new();
    let body = format!("cat /proc/$$/limits >&2\n{}", on_request("sleep $NAP"));
    let mut seat = h.seat(&body, hostile_limits(), sb);
    seat.command.isolation.limits.open_files = Some(100);
    let cfg = config(vec![seat, builtin("random", sb)], 3, &h.replay_dir());
    let r = runtime().block_on(play_match(&cfg, |_| {})).unwrap();
    let text = replay_stderr(&r, 0, 0);
    let limit = |name: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in {text}"));
        line[name.len()..]
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Memory is held by the bot's cgroup where there is one; otherwise the address space
    // stands in for it.
    match durak_referee::isolation::cgroup::support() {
        Ok(_) => assert_eq!(limit("Max address space"), "unlimited unlimited"),
        Err(_) => assert_eq!(limit("Max address space"), "4294967296 4294967296"),
    }
    assert_eq!(limit("Max cpu time"), "180 182", "60 s per game, 3 games");
    assert_eq!(limit("Max file size"), "67108864 67108864");
    assert_eq!(limit("Max open files"), "100 100");
    assert_eq!(limit("Max core file size"), "0 0");
    if sb == Sandbox::Strict && durak_referee::isolation::running_as_root() {
        // Its own uid: the process limit holds.
        assert_eq!(limit("Max processes"), "256 256");
    }
    assert_no_process_left(&h);
}

fn multi_table(sb: Sandbox) {
    // Several tables at once in one referee, as in a tournament: hostile bots at some, good
    // bots at the others. The good tables finish every game without a fault; every hostile bot
    // gets its fault; nothing of the hostile bots is left.
    let hostile: Vec<(Hostile, String, FaultKind, ResourceLimits)> = vec![
        (
            Hostile::new(),
            on_request(match sb {
                Sandbox::Default => "kill -9 $PPID; sleep $NAP",
                Sandbox::Strict => "kill -9 $PPID; kill -9 -1; sleep $NAP",
            }),
            match sb {
                Sandbox::Default => FaultKind::Crash,
                Sandbox::Strict => FaultKind::Timeout,
            },
            ResourceLimits::default(),
        ),
        (
            Hostile::new(),
            on_request(match sb {
                Sandbox::Default => {
                    "i=0; while [ $i -lt 50 ]; do sleep $NAP & i=$((i+1)); done; sleep $NAP"
                }
                Sandbox::Strict => "while :; do sleep $NAP & done",
            }),
            match sb {
                Sandbox::Default => FaultKind::Timeout,
                Sandbox::Strict => FaultKind::Crash,
            },
            ResourceLimits::default(),
        ),
        (
            Hostile::new(),
            on_request(r#"exec awk 'BEGIN { s = "x"; while (1) s = s s }'"#),
            FaultKind::Crash,
            ResourceLimits {
                address_space: Some(256 << 20),
                ..ResourceLimits::default()
            },
        ),
        (
            Hostile::new(),
            on_request("exec awk 'BEGIN { while (1) {} }'"),
            FaultKind::Crash,
            ResourceLimits {
                cpu_secs_per_game: Some(1),
                ..ResourceLimits::default()
            },
        ),
        (
            Hostile::new(),
            on_request("setsid sleep $NAP & rec $!; sleep 0.1; exit 0"),
            FaultKind::Crash,
            ResourceLimits::default(),
        ),
    ];
    let good_dir = tempfile::tempdir().unwrap();
    let mut tables: Vec<(durak_referee::MatchConfig, Option<FaultKind>)> = Vec::new();
    for (h, body, kind, rl) in &hostile {
        let mut seat = h.seat(
            body,
            Limits {
                move_ms: 20_000,
                ..hostile_limits()
            },
            sb,
        );
        seat.command.isolation.limits = *rl;
        if *kind == FaultKind::Timeout {
            seat.limits.move_ms = 1_000;
        }
        tables.push((
            config(vec![seat, builtin("random", sb)], 1, &h.replay_dir()),
            Some(*kind),
        ));
    }
    for i in 0..2 {
        let seats: Vec<SeatSpec> = vec![builtin("random", sb), builtin("greedy", sb)];
        tables.push((
            config(seats, 3, &good_dir.path().join(format!("good-{i}"))),
            None,
        ));
    }
    let rt = runtime();
    let results: Vec<(MatchResult, Option<FaultKind>)> = rt.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for (i, (cfg, kind)) in tables.into_iter().enumerate() {
            set.spawn(async move { (i, play_match(&cfg, |_| {}).await.unwrap(), kind) });
        }
        let mut out = Vec::new();
        while let Some(r) = set.join_next().await {
            out.push(r.unwrap());
        }
        out.sort_by_key(|(i, _, _)| *i);
        out.into_iter().map(|(_, r, k)| (r, k)).collect()
    });
    for (r, kind) in &results {
        match kind {
            Some(kind) => assert_fault(r, *kind),
            None => {
                assert_eq!(r.games.len(), 3);
                for g in &r.games {
                    assert!(g.faults.is_empty(), "a good table was disturbed: {g:?}");
                    assert!(g.moves > 0);
                }
            }
        }
    }
    for (h, ..) in &hostile {
        assert_no_process_left(h);
    }
}

// ---------------------------------------------------------------------------------------------
// Strict mode only: what the default mode does not guarantee (docs/SECURITY.md), each checked
// first in default mode, where the probe must succeed, so that the strict assertion means
// something.
// ---------------------------------------------------------------------------------------------

/// A bot that looks for other bots' files, the replays and the tournament around them.
#[test]
fn strict_cannot_read_other_bots_files_or_the_replays() {
    if !strict_ready() {
        return;
    }
    for sb in [Sandbox::Default, Sandbox::Strict] {
        let h = Hostile::new();
        // Another bot's directory, with a secret.
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("secret.txt"), "OTHER-BOT-CONTENT\n").unwrap();
        // The replays inside a tournament directory inside the bot's own directory (the worst
        // case: a configuration with the bot next to the output).
        let tour = h.bot_dir().join("tournament-77");
        let replays = tour.join("replays");
        std::fs::create_dir_all(&replays).unwrap();
        std::fs::write(
            tour.join("tournament.toml"),
            "seed = 7 # TOURNAMENT-CONTENT\n",
        )
        .unwrap();
        std::fs::write(replays.join("t0000-g0000.jsonl"), "REPLAY-CONTENT\n").unwrap();
        for p in [other.path(), &tour, &replays] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let bot_dir = h.bot_dir().display().to_string();
        let probe = format!(
            r#"{{
cat {other}/secret.txt
cat {tour}/tournament.toml {tour}/replays/*
echo "LISTING: $(ls -a {bot_dir} | tr '\n' ' ')"
echo "MOUNTS: $(cut -d' ' -f5 /proc/self/mountinfo | tr '\n' ' ')"
}} >&2
"#,
            other = other.path().display(),
            tour = tour.display(),
        );
        let mut cfg = config(
            vec![
                h.seat(
                    &format!("{probe}{}", on_request("sleep $NAP")),
                    hostile_limits(),
                    sb,
                ),
                builtin("random", sb),
            ],
            1,
            &replays,
        );
        cfg.replay_prefix = "t0001-g".into();
        let r = runtime().block_on(play_match(&cfg, |_| {})).unwrap();
        assert_fault(&r, FaultKind::Timeout);
        let text = replay_stderr(&r, 0, 0);
        let listing = text.lines().find(|l| l.starts_with("LISTING:")).unwrap();
        let mounts = text.lines().find(|l| l.starts_with("MOUNTS:")).unwrap();
        let secrets = ["OTHER-BOT-CONTENT", "TOURNAMENT-CONTENT", "REPLAY-CONTENT"];
        match sb {
            Sandbox::Default => {
                // Documented: the default mode does not hide the file system.
                for s in secrets {
                    assert!(text.contains(s), "the probe works: {s} in {text}");
                }
                assert!(listing.contains("tournament-77"));
            }
            Sandbox::Strict => {
                for s in secrets {
                    assert!(!text.contains(s), "{s} leaked: {text}");
                }
                assert!(!listing.contains("tournament-77"), "{listing}");
                assert!(
                    listing.contains("bot.sh"),
                    "its own files are there: {listing}"
                );
                assert!(!mounts.contains("tournament-77"), "{mounts}");
            }
        }
        assert_no_process_left(&h);
    }
}

/// A bot that looks for the referee in /proc (its command line holds the seed when given with
/// --seed) and tries to open the network. `grep -q`, not `-l`: a process that ends between the
/// glob and the read is an error, and only `-q` still says "found" (exit 0) after one.
#[test]
fn strict_sees_no_referee_and_no_network() {
    if !strict_ready() {
        return;
    }
    let me = std::process::id();
    let exe = std::env::current_exe().unwrap();
    let exe_name = exe.file_name().unwrap().to_string_lossy().into_owned();
    for sb in [Sandbox::Default, Sandbox::Strict] {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let h = Hostile::new();
        let probe = format!(
            r#"{{
if [ -r /proc/{me}/cmdline ]; then echo "REFEREE: visible"; else echo "REFEREE: hidden"; fi
if grep -q -s -F '{exe_name}' /proc/[0-9]*/cmdline; then echo "BY-NAME: found"; else echo "BY-NAME: none"; fi
echo "PROCS: $(ls -d /proc/[0-9]* | wc -l)"
if bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null; then echo "NET: connected"; else echo "NET: refused"; fi
}} >&2
"#
        );
        let r = run(
            vec![
                h.seat(
                    &format!("{probe}{}", on_request("sleep $NAP")),
                    hostile_limits(),
                    sb,
                ),
                builtin("random", sb),
            ],
            1,
            &h.replay_dir(),
        );
        assert_fault(&r, FaultKind::Timeout);
        let text = replay_stderr(&r, 0, 0);
        let mut buf = [0u8; 1];
        let accepted = match listener.accept() {
            Ok((mut s, _)) => {
                let _ = s.read(&mut buf);
                true
            }
            Err(_) => false,
        };
        let procs: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("PROCS: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        match sb {
            Sandbox::Default => {
                assert!(text.contains("REFEREE: visible"), "{text}");
                assert!(text.contains("BY-NAME: found"), "{text}");
                assert!(text.contains("NET: connected") && accepted, "{text}");
            }
            Sandbox::Strict => {
                assert!(text.contains("REFEREE: hidden"), "{text}");
                assert!(text.contains("BY-NAME: none"), "{text}");
                assert!(procs <= 8, "only the sandbox's own processes: {text}");
                assert!(text.contains("NET: refused") && !accepted, "{text}");
            }
        }
        assert_no_process_left(&h);
    }
}

/// The sample bots (Python, JavaScript) and the built-in ones play whole games under the default
/// limits, given by paths relative to the referee's directory; in strict mode with the
/// interpreters of the system (/usr/bin).
fn sample_bots_play(sb: Sandbox) {
    let mut seats = vec![builtin("greedy", sb)];
    for (interp, script) in [
        ("python3", "../sample-bots/python/heuristic_bot.py"),
        ("node", "../sample-bots/js/random_bot.js"),
    ] {
        let package = if interp == "node" { "nodejs" } else { interp };
        let found = require_with(interp, package, || {
            std::env::split_paths(durak_referee::isolation::SANDBOX_PATH)
                .map(|d| d.join(interp))
                .find(|p| p.is_file())
                .ok_or_else(|| "not in the system directories".to_string())
        });
        if found.is_none() {
            continue;
        }
        seats.push(SeatSpec {
            name: script.into(),
            command: durak_referee::BotCommand::parse(&format!("{interp} {script}"))
                .unwrap()
                .with_sandbox(sb),
            limits: Limits {
                move_ms: 10_000,
                ..Limits::default()
            },
        });
    }
    if seats.len() < 2 {
        return; // neither interpreter: nothing to play (the skips are noted)
    }
    let dir = tempfile::tempdir().unwrap();
    let r = run(seats, 2, dir.path());
    for g in &r.games {
        assert!(g.faults.is_empty(), "{g:?}");
        assert!(g.moves > 0);
    }
}

/// Strict mode without bubblewrap's sandbox possible is refused with the reason; a program not
/// in the sandbox's PATH is a start_failed naming it.
#[test]
fn strict_refuses_a_program_outside_the_system_directories() {
    if !strict_ready() {
        return;
    }
    let h = Hostile::new();
    let mut seat = h.seat("sleep 1\n", hostile_limits(), Sandbox::Strict);
    seat.command.program = "no-such-interpreter-xyz".into();
    let r = run(
        vec![seat, builtin("random", Sandbox::Strict)],
        1,
        &h.replay_dir(),
    );
    assert_fault(&r, FaultKind::StartFailed);
    assert!(
        r.games[0].faults[0].detail.contains("PATH"),
        "{:?}",
        r.games[0]
    );
}
