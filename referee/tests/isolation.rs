//! Issue 11: what a bot written to cheat tried, and what stops it now. Each test plays real
//! processes through the referee's library; most run in both modes. See docs/SECURITY.md for the
//! promises these check. What needs the `durak` binary (a referee in a terminal, killed, gone or
//! run as another user, a tournament's layout) is in the workspace's `tests/isolation.rs`.

mod common;

use common::modes::both_modes;
use common::*;
use durak_protocol::{FaultKind, Limits};
use durak_referee::{
    play_match, BotCommand, Isolation, MatchConfig, ResourceLimits, Sandbox, SeatSpec,
};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::PathBuf;

both_modes!(
    memory_is_limited_for_all_its_processes_together,
    runs_through_symlinks,
    kills_its_supervisor_and_goes_on,
    a_jvm_sizes_its_heap_from_the_bots_memory_limit,
);

/// Whether per-bot cgroups can be used here; when not, the test is skipped with the reason (and
/// fails where tests are required: CI runs them as root, with cgroup v1 or v2).
fn cgroups_or_skip() -> bool {
    require_with("cgroups", "(none: run the tests as root)", || {
        durak_referee::isolation::cgroup::support()
            .as_ref()
            .map(|s| s.memory.clone())
            .map_err(|e| e.to_string())
    })
    .is_some()
}

/// A bot that eats memory is stopped by its memory limit, all its processes together, not
/// per process: two processes of 48 MiB each pass a per-process limit of 64 MiB but not the
/// bot's. The fault is `memory`, and says the limit.
fn memory_is_limited_for_all_its_processes_together(sb: Sandbox) {
    if !cgroups_or_skip() {
        return;
    }
    let h = Hostile::new();
    // Each process holds 32 MiB (48 at its peak): under 64 MiB alone, over it together.
    let eat = r#"awk 'BEGIN { s = "x"; while (length(s) < 25000000) s = s s; while (1) system("sleep 1") }'"#;
    let iso = Isolation {
        sandbox: sb,
        limits: ResourceLimits {
            memory: Some(64 << 20),
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
        &on_request(&format!("{eat} & {eat} & sleep $NAP")),
        limits,
        iso,
        FaultKind::Memory,
    );
    let f = &r.games[0].faults[0];
    assert!(f.detail.contains("64M"), "{f:?}");
    assert!(f.detail.contains("more memory than its limit"), "{f:?}");
}

/// A bot reached through symlinks, as organisers lay out folders: its directory through a
/// link, its script a link, its program a link. Both modes run it.
fn runs_through_symlinks(sb: Sandbox) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let real = root.join("bots/real");
    std::fs::create_dir_all(&real).unwrap();
    for d in [root.join("bots"), real.clone()] {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let bot = real.join("bot.sh");
    // The durak executable comes as an argument (strict mode shows the files a command names).
    std::fs::write(&bot, "#!/bin/sh\nexec \"$1\" bot random\n").unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    symlink(&real, root.join("via")).unwrap();
    symlink("bot.sh", real.join("entry.sh")).unwrap();
    symlink(root.join("via/entry.sh"), root.join("run-me")).unwrap();
    let cases: Vec<(&str, String, Option<PathBuf>)> = vec![
        (
            "a script in a symlinked directory",
            format!("sh {} {BOT}", root.join("via/bot.sh").display()),
            None,
        ),
        (
            "a symlinked working directory and script",
            format!("sh ./entry.sh {BOT}"),
            Some(root.join("via")),
        ),
        (
            "a program that is a symlink to a symlink",
            format!("{} {BOT}", root.join("run-me").display()),
            None,
        ),
    ];
    for (what, command, cwd) in cases {
        let mut c = BotCommand::parse(&command).unwrap().with_sandbox(sb);
        c.cwd = cwd;
        c.check_exists().unwrap();
        let seat = SeatSpec {
            name: "linked".into(),
            command: c,
            limits: Limits {
                move_ms: 10_000,
                ..Limits::default()
            },
        };
        let replays = tempfile::tempdir().unwrap();
        let r = run(vec![seat, builtin("greedy", sb)], 2, replays.path());
        for g in &r.games {
            assert!(g.faults.is_empty(), "{what}: {:?}", g.faults);
        }
    }
}

/// A bot kills its parent, and goes on answering as if nothing happened. In default mode
/// (same user as the referee) its parent is its supervisor, the process that cleans up after
/// it: whenever it does so (right after an answer, the last of a game included), the match has
/// a `crash` that says so. In strict mode its parent is the sandbox's init, which a signal from
/// inside cannot kill: the match goes on without a fault.
fn kills_its_supervisor_and_goes_on(sb: Sandbox) {
    let Some(python) = require_interpreter("python3", "python3") else {
        return;
    };
    let h = Hostile::new();
    // A proxy in front of the built-in random bot: right after its Nth answer it kills its
    // parent, once per match (a marker file; in strict mode the sandbox's /tmp).
    let proxy = h.bot_dir().join("proxy.py");
    std::fs::write(
        &proxy,
        r#"import json, os, signal, subprocess, sys
durak, n, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
parent = os.getppid()
bot = subprocess.Popen([durak, "bot", "random"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
requests = 0
game = None
for line in sys.stdin:
    if '"type":"game_start"' in line:
        game = json.loads(line)["game"]
    bot.stdin.write(line); bot.stdin.flush()
    if '"type":"request"' in line or '"type":"hello"' in line:
        print(bot.stdout.readline(), end="", flush=True)
    if '"type":"request"' in line:
        requests += 1
        if requests == n:
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except OSError:
                continue
            print(f"KILLED in game {game}", file=sys.stderr, flush=True)
            os.kill(parent, signal.SIGKILL)
"#,
    )
    .unwrap();
    for n in 1..=24u64 {
        let marker = match sb {
            Sandbox::Default => h.dir.path().join(format!("killed-{n}")),
            Sandbox::Strict => PathBuf::from(format!("/tmp/killed-{n}")),
        };
        let seat = SeatSpec {
            name: "proxy".into(),
            command: BotCommand::parse(&format!(
                "{} {} {BOT} {n} {}",
                python.display(),
                proxy.display(),
                marker.display()
            ))
            .unwrap()
            .with_sandbox(sb),
            limits: Limits {
                move_ms: 5_000,
                ..Limits::default()
            },
        };
        let replays = tempfile::tempdir().unwrap();
        let cfg = MatchConfig {
            replay_dir: Some(replays.path().to_path_buf()),
            ..MatchConfig::new(
                durak_rules::Variant::Podkidnoy,
                vec![seat, builtin("greedy", sb)],
                5,
                n,
            )
        };
        let r = runtime().block_on(play_match(&cfg, |_| {})).unwrap();
        let faults: Vec<_> = r.games.iter().flat_map(|g| g.faults.clone()).collect();
        if sb == Sandbox::Strict {
            assert!(faults.is_empty(), "n = {n}: {faults:?}");
            continue;
        }
        // The game the proxy says it killed in.
        let notes: String = (0..r.games.len())
            .map(|g| replay_stderr(&r, g, 0))
            .collect();
        let Some(kg) = notes
            .lines()
            .find_map(|l| l.strip_prefix("KILLED in game "))
            .map(|g| g.trim().parse::<usize>().unwrap())
        else {
            // The match had fewer than n requests.
            assert!(faults.is_empty(), "n = {n}: {faults:?}");
            continue;
        };
        if kg + 1 == r.games.len() && faults.is_empty() {
            // After the last answer of the match, the referee may have finished before the
            // kill: nothing is left to play, and the bot's cgroup and process group go.
            continue;
        }
        // In that game, or (when the kill came after the referee's check at its end) the
        // next one, at the first answer.
        let faulted: Vec<usize> = (0..r.games.len())
            .filter(|&g| !r.games[g].faults.is_empty())
            .collect();
        assert!(
            faulted == [kg] || faulted == [kg + 1],
            "n = {n}: killed in game {kg}, faults in {faulted:?}; games {:?}; stderr {notes}",
            r.games
        );
        assert_eq!(faults.len(), 1, "n = {n}: {faults:?}");
        let f = &faults[0];
        assert_eq!((f.seat, f.kind), (0, FaultKind::Crash), "n = {n}: {f:?}");
        // Whenever the referee sees it (at the next answer, or the supervisor's end, which
        // ends the bot too): the bot is named as the one that killed it, never a bare
        // "killed by signal 9".
        assert!(f.detail.contains("killed its supervisor"), "n = {n}: {f:?}");
    }
}

/// Everything a strict bot can write, together, is bounded by `tmp_size`: `/` and `/dev` are
/// read-only, `/dev/shm` and `/tmp` (with its HOME) are small tmpfs sharing the bound, and its
/// rebuilt working directory, here under /tmp, lies inside that /tmp (filled last, it gets
/// nothing: the bound is reached).
#[test]
fn strict_bounds_what_it_writes() {
    if !strict_ready() {
        return;
    }
    let h = Hostile::new();
    let body = r#"for d in / /dev /dev/shm /tmp "$HOME" "$(pwd)"; do
  dd if=/dev/zero of="$d/fill-$$" bs=1048576 count=16 2>/dev/null
  echo "WROTE $d $(stat -c %s "$d/fill-$$" 2>/dev/null || echo 0)"
done >&2
exec "$DURAK" bot random
"#;
    let mut seat = h.seat(body, hostile_limits(), Sandbox::Strict);
    seat.command.cwd = Some(h.bot_dir());
    seat.command.isolation.limits.tmp_size = Some(8 << 20);
    // The replays inside the bot's directory: it is rebuilt without them (the worst case).
    let replays = h.bot_dir().join("replays");
    let r = run(vec![seat, builtin("random", Sandbox::Strict)], 1, &replays);
    assert!(r.games[0].faults.is_empty(), "{:?}", r.games[0].faults);
    let err = replay_stderr(&r, 0, 0);
    let mut wrote = std::collections::BTreeMap::new();
    for l in err.lines().filter_map(|l| l.strip_prefix("WROTE ")) {
        let (place, n) = l.rsplit_once(' ').unwrap();
        wrote.insert(place.to_string(), n.trim().parse::<u64>().unwrap());
    }
    assert_eq!(wrote.len(), 6, "{err}");
    let cwd = h.bot_dir().canonicalize().unwrap().display().to_string();
    for place in ["/", "/dev"] {
        assert_eq!(wrote[place], 0, "{place} is read-only: {err}");
    }
    assert_eq!(wrote[cwd.as_str()], 0, "/tmp is full by then: {err}");
    assert!(wrote["/tmp"] > 0, "the probe can write somewhere: {err}");
    let total: u64 = wrote.values().sum();
    assert!(total <= 8 << 20, "{total} bytes written in all: {err}");
    assert!(wrote["/dev/shm"] <= 2 << 20, "{err}");
}

/// A JVM sizes its heap from the memory it may use (a quarter of it by default): in strict mode
/// too, where the bot's own cgroup is shown to it read-only. Without that, a JVM in the sandbox
/// sized its heap from the machine's memory and an allocating bot met the cgroup's limit.
fn a_jvm_sizes_its_heap_from_the_bots_memory_limit(sb: Sandbox) {
    if !cgroups_or_skip() {
        return;
    }
    if require_interpreter("java", "default-jdk-headless").is_none() {
        return;
    }
    let h = Hostile::new();
    let mut seat = h.seat(
        "java -XX:+PrintFlagsFinal -version 2>/dev/null | grep -w MaxHeapSize >&2\nexec \"$DURAK\" bot random\n",
        Limits {
            startup_ms: 30_000,
            move_ms: 10_000,
            ..hostile_limits()
        },
        sb,
    );
    seat.command.isolation.limits.memory = Some(1 << 30);
    let r = run(vec![seat, builtin("random", sb)], 1, &h.replay_dir());
    assert!(r.games[0].faults.is_empty(), "{:?}", r.games[0].faults);
    let err = replay_stderr(&r, 0, 0);
    let heap: u64 = err
        .split_whitespace()
        .skip_while(|w| *w != "=")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("MaxHeapSize in {err}"));
    assert!(
        heap <= 256 << 20,
        "a heap of {heap} bytes under a 1 GiB limit: {err}"
    );
}
