//! Issue 11: what a bot written to cheat tried, and what stops it now. Each test plays real
//! processes; most run in both modes. See docs/SECURITY.md for the promises these check.

mod common;

use common::modes::both_modes;
use common::*;
use durak_protocol::{FaultKind, Limits};
use durak_referee::{
    play_match, BotCommand, Isolation, MatchConfig, ResourceLimits, Sandbox, SeatSpec,
};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

both_modes!(
    has_no_controlling_terminal,
    memory_is_limited_for_all_its_processes_together,
    runs_through_symlinks,
    kills_its_supervisor_and_goes_on,
    a_jvm_sizes_its_heap_from_the_bots_memory_limit,
);

/// The command line of a hostile bot's script (see `Hostile::seat`).
fn spec(h: &Hostile) -> String {
    format!(
        "sh {} {} {} {}",
        h.script().display(),
        h.pids_file().display(),
        h.log_file().display(),
        DURAK
    )
}

/// The stderr lines of every seat-0 `stderr` line of a replay file.
fn stderr_of(replay: &Path) -> String {
    std::fs::read_to_string(replay)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "stderr" && v["seat"] == 0)
        .map(|v| v["text"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The referee runs in a terminal (script(1) gives it a pseudo-terminal as its controlling
/// terminal, as an organiser's shell would). The bot tries to write to /dev/tty, which would
/// reach the organiser's screen (and, with TIOCSTI, type into the shell): it has no
/// controlling terminal, so /dev/tty cannot be opened, and `tty_nr` in its /proc stat is 0.
/// Then it opens every terminal it can find, `/dev/pts/N` (the organiser's among them), and
/// tries TIOCSTI on each: it never types anything, also when the tests run as root (root
/// keeps CAP_SYS_ADMIN, which allows TIOCSTI into any terminal, unless the bot's
/// capabilities are dropped). What it would type is a NUL byte, harmless to a shell.
fn has_no_controlling_terminal(sb: Sandbox) {
    let Some(script) = require("script", "bsdutils") else {
        return;
    };
    let Some(python) = require_interpreter("python3", "python3") else {
        return;
    };
    let h = Hostile::new();
    h.seat(
        &format!(
            r#"{{ if printf 'TTY-MARK\n' > /dev/tty; then echo TTY-OPENED; else echo TTY-REFUSED; fi
echo "TTYNR=$(cut -d' ' -f7 /proc/self/stat)"; }} >&2 2>&1
{python} -c '
import fcntl, glob, os, sys, termios
ptys = sorted(glob.glob("/dev/pts/[0-9]*"))
print("PTYS", len(ptys), file=sys.stderr)
for p in ptys:
    try:
        fd = os.open(p, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as e:
        print("CANNOT-OPEN", p, e.errno, file=sys.stderr)
        continue
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"\0")
        print("TYPED-INTO", p, file=sys.stderr)
    except OSError as e:
        print("NO-TIOCSTI", p, e.errno, file=sys.stderr)
    os.close(fd)
'
exec "$DURAK" bot random
"#,
            python = python.display()
        ),
        hostile_limits(),
        sb,
    );
    let line = format!(
        "{DURAK} play --sandbox {} --games 1 --seed 3 --replay-dir {} '{}' builtin:random",
        sb.name(),
        h.replay_dir().display(),
        spec(&h)
    );
    let out = Command::new(script)
        .args(["-qec", &line, "/dev/null"])
        .env("DURAK_EXE", DURAK)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let screen = text(&out.stdout);
    assert!(out.status.success(), "{screen}\n{}", text(&out.stderr));
    assert!(screen.contains("1 game of podkidnoy"), "{screen}");
    assert!(
        !screen.contains("TTY-MARK"),
        "the bot wrote on the terminal: {screen}"
    );
    let err = stderr_of(&h.replay_dir().join("game-0000.jsonl"));
    assert!(err.contains("TTY-REFUSED"), "{err}");
    assert!(err.contains("TTYNR=0"), "{err}");
    assert!(
        !err.contains("TYPED-INTO"),
        "the bot typed into a terminal: {err}"
    );
    let ptys: usize = err
        .lines()
        .find_map(|l| l.strip_prefix("PTYS "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("the probe ran: {err}"));
    match sb {
        // script's terminal at least: the probe was tried on it.
        Sandbox::Default => assert!(ptys >= 1, "{err}"),
        // The sandbox's /dev/pts holds no terminal of the host.
        Sandbox::Strict => assert_eq!(ptys, 0, "{err}"),
    }
    assert_no_process_left(&h);
}

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
            format!("sh {} {DURAK}", root.join("via/bot.sh").display()),
            None,
        ),
        (
            "a symlinked working directory and script",
            format!("sh ./entry.sh {DURAK}"),
            Some(root.join("via")),
        ),
        (
            "a program that is a symlink to a symlink",
            format!("{} {DURAK}", root.join("run-me").display()),
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
                "{} {} {DURAK} {n} {}",
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

/// A tournament laid out the way organisers do: the configuration (with its seed) next to
/// the bots' scripts and the output, not named `.toml` (`-c contest.conf`), with an editor's
/// backups of it, an earlier tournament's directory, renamed results and a replay beside it;
/// bots without a `cwd` of their own, one at the top of the folder, one in a folder of its own
/// next to another bot's (with its data), and one whose `cwd` is that folder. Each probe looks everywhere for the seed, results,
/// replays and the other bots' files. In default mode it finds them (documented); in strict
/// mode nothing but its own files: a bot without a `cwd` sees only what its command names,
/// never the configuration's directory.
#[test]
fn strict_bot_sees_only_its_own_files_whatever_the_layout() {
    if !strict_ready() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let contest = t.path().join("contest");
    let w = |rel: &str, body: &str| {
        let p = contest.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        let mode = if rel.ends_with(".sh") { 0o755 } else { 0o644 };
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    // The durak executable comes as an argument (strict mode shows the files a command names).
    let config = format!(
        "# SEED-MARK\n[tournament]\nseed = 424242\ngames = 1\n\n\
         [[bot]]\nname = \"alice\"\ncommand = \"sh alice.sh {DURAK}\"\n\n\
         [[bot]]\nname = \"carol\"\ncommand = \"sh bots/carol/carol.sh {DURAK}\"\n\n\
         [[bot]]\nname = \"bob\"\ncommand = \"sh bots/bob/bob.sh {DURAK}\"\n\n\
         [[bot]]\nname = \"dave\"\ncommand = \"sh dave.sh {DURAK}\"\ncwd = \".\"\n"
    );
    w("contest.conf", &config);
    w("contest.toml~", &config);
    w("contest.toml.bak", &config);
    w(
        "old/t-9/tournament.toml",
        "[tournament]\nseed = 9 # OLD-SEED-MARK\n",
    );
    w(
        "old/results.jsonl.1",
        "{\"deck_seed\": 1, \"note\": \"SEED-MARK\"}\n",
    );
    w(
        "old/g.json",
        "{\"type\":\"header\",\"deck\":[\"6S\"],\"note\":\"SEED-MARK\"}\n",
    );
    w(
        "bots/bob/bob.sh",
        "#!/bin/sh\n# BOB-MARK\nexec \"$1\" bot random\n",
    );
    w("bots/bob/data.txt", "BOB-MARK: the other bot's weights\n");
    // Where the probes look: everything around the contest, and /tmp (not the whole disk: in
    // default mode that would take minutes; /tmp's first finds only, the stderr kept is
    // bounded). Their patterns are cut in two so that they do not find themselves.
    let probe = format!(
        r#"#!/bin/sh
look() {{ find "$1" \( -name '*.toml*' -o -name '*.conf' -o -name '*.jsonl*' -o -name '*.json' \
     -o -name 'bob.sh' -o -name 'data.txt' \) 2>/dev/null; }}
{{ echo "FOUND:"; look {root}
   grep -rl -e SEED-MA""RK -e BOB-MA""RK {root} 2>/dev/null | sed 's/^/GREP /'
   look /tmp | head -n 20; }} >&2
exec "$1" bot random
"#,
        root = t.path().display()
    );
    w("alice.sh", &probe);
    w("bots/carol/carol.sh", &probe);
    w("dave.sh", &probe);
    let mut d = contest.clone();
    while d.starts_with(t.path()) {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        d.pop();
    }
    for d in ["old", "old/t-9", "bots", "bots/bob", "bots/carol"] {
        std::fs::set_permissions(contest.join(d), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for sb in [Sandbox::Default, Sandbox::Strict] {
        let out = contest.join(format!("out-{}", sb.name()));
        let o = durak(
            &[
                "tournament",
                "-c",
                "contest.conf",
                "--sandbox",
                sb.name(),
                "--out",
                out.to_str().unwrap(),
                "--quiet",
            ],
            &contest,
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        let replays = out.join("replays");
        let mut names: Vec<PathBuf> = std::fs::read_dir(&replays)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        // A probe's output: its stderr in the first game it played.
        let probe_output = |bot: &str| -> String {
            names
                .iter()
                .map(|p| common::replay_text(p).unwrap())
                .filter(|r| r.contains(&format!("\"name\":\"{bot}\",\"command\"")))
                .map(|r| {
                    r.lines()
                        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                        .filter(|v| v["type"] == "stderr")
                        .map(|v| v["text"].as_str().unwrap_or("").to_string())
                        .collect::<String>()
                })
                .find(|e| e.contains("FOUND:"))
                .unwrap_or_else(|| panic!("{bot}'s probe output in {}", replays.display()))
        };
        for bot in ["alice", "carol"] {
            let err = probe_output(bot);
            let found = |needle: &str| err.contains(needle);
            match sb {
                Sandbox::Default => {
                    // The probe works: the default mode hides nothing of the user's files.
                    for n in [
                        "contest.conf",
                        "contest.toml~",
                        "contest.toml.bak",
                        "tournament.toml",
                        "results.jsonl",
                        "results.jsonl.1",
                        "g.json",
                        "bob.sh",
                        "data.txt",
                        "GREP",
                    ] {
                        assert!(found(n), "default mode, {bot}: {n} in {err}");
                    }
                }
                Sandbox::Strict => {
                    for n in [
                        "contest.conf",
                        "contest.toml",
                        "tournament.toml",
                        ".jsonl",
                        ".json",
                        "bob.sh",
                        "data.txt",
                        "GREP",
                    ] {
                        assert!(!found(n), "strict mode, {bot}: {n} leaked: {err}");
                    }
                }
            }
        }
        // Dave's own directory is the configuration's (`cwd = "."`, the organiser's choice):
        // he sees it, but never the configuration file itself, a tournament's directory, nor
        // the other bots' folders (the directories of the files their commands name).
        let err = probe_output("dave");
        match sb {
            Sandbox::Default => assert!(err.contains("contest.conf"), "{err}"),
            Sandbox::Strict => {
                for n in [
                    "contest.conf",
                    "tournament.toml",
                    "results.jsonl\n",
                    "data.txt",
                ] {
                    assert!(!err.contains(n), "strict mode, dave: {n} leaked: {err}");
                }
            }
        }
    }
}

/// A referee killed by SIGKILL together with its bots' supervisors (a whole process group
/// killed, a machine reset) cannot clean up: the next referee removes the private
/// directories of referees that are gone.
#[test]
fn private_directories_of_a_referee_that_is_gone_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    // A pid above any pid_max: no referee runs it.
    let stale = tmp.path().join("durak-bot-4194999-AbCdEf");
    std::fs::create_dir_all(stale.join("home")).unwrap();
    std::fs::write(stale.join("home/left.txt"), "x").unwrap();
    let replays = tempfile::tempdir().unwrap();
    let o = Command::new(DURAK)
        .args(["play", "--games", "1", "--replay-dir"])
        .arg(replays.path().join("r"))
        .args(["builtin:random", "builtin:greedy"])
        .env("TMPDIR", tmp.path())
        .env("DURAK_EXE", DURAK)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!stale.exists(), "{} is left", stale.display());
    // And the match's own private directories are gone too (the run's directory, by its
    // watcher, right after the referee ends).
    let start = std::time::Instant::now();
    let mut left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    while !left.is_empty() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = std::fs::read_dir(tmp.path()).unwrap().collect();
    }
    assert!(left.is_empty(), "{left:?}");
}

/// A referee running as a user other than root (here `nobody`, via setpriv, when the tests run
/// as root): its bots cannot read its environment or memory in /proc (it is not dumpable), and,
/// with no cgroup for such a user, `RLIMIT_NPROC` stops a fork bomb.
#[test]
fn as_another_user_the_referee_is_hidden_and_forks_bounded() {
    if !durak_referee::isolation::running_as_root() {
        // Then the tests themselves run as another user: the promise is checked by the others.
        return;
    }
    let Some(setpriv) = require("setpriv", "util-linux") else {
        return;
    };
    let h = Hostile::new();
    h.seat(
        &format!(
            r#"referee=$(cut -d' ' -f4 /proc/$PPID/stat)
{{ if cat /proc/$referee/environ >/dev/null 2>&1; then echo ENV-READ; else echo ENV-HIDDEN; fi; }} >&2
{}"#,
            on_request("while :; do sleep $NAP & done")
        ),
        hostile_limits(),
        Sandbox::Default,
    );
    for p in [h.script(), h.bot_dir()] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let replays = h.dir.path().join("out");
    std::fs::create_dir(&replays).unwrap();
    std::fs::set_permissions(&replays, std::fs::Permissions::from_mode(0o777)).unwrap();
    let o = Command::new(setpriv)
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            DURAK,
            "play",
        ])
        .args([
            "--games",
            "1",
            "--move-time-ms",
            "20000",
            "--limit",
            "processes=64",
        ])
        .arg("--replay-dir")
        .arg(replays.join("r"))
        .arg(spec(&h))
        .arg("builtin:random")
        .env("DURAK_EXE", DURAK)
        .current_dir(replays.as_path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let replay = replays.join("r/game-0000.jsonl");
    let err = stderr_of(&replay);
    assert!(err.contains("ENV-HIDDEN"), "{err}");
    let log = std::fs::read_to_string(&replay).unwrap();
    assert!(
        log.contains(r#""type":"fault","seat":0,"kind":"crash""#),
        "the fork bomb ends in a crash: {log}"
    );
    assert_no_process_left(&h);
}

/// `durak play` runs its referee and its bots on one CPU (`--affinity auto`, the default), and
/// leaves them to the kernel with `--affinity off`: what a bot sees in its own
/// `Cpus_allowed_list`.
#[test]
fn play_runs_the_referee_and_its_bots_on_one_cpu() {
    if durak_referee::affinity::allowed_cpus().len() < 2 {
        // One CPU: nothing to choose.
        return;
    }
    let h = Hostile::new();
    h.seat(
        "grep Cpus_allowed_list /proc/self/status >&2\nexec \"$DURAK\" bot random\n",
        hostile_limits(),
        Sandbox::Default,
    );
    for (mode, one) in [("auto", true), ("off", false)] {
        let replays = h.dir.path().join(format!("r-{mode}"));
        let o = Command::new(DURAK)
            .args(["play", "--games", "1", "--affinity", mode, "--replay-dir"])
            .arg(&replays)
            .arg(spec(&h))
            .arg("builtin:random")
            .env("DURAK_EXE", DURAK)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        let err = stderr_of(&replays.join("game-0000.jsonl"));
        let list = err
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap_or_else(|| panic!("{err}"))
            .trim()
            .to_string();
        let single = !list.contains(',') && !list.contains('-');
        assert_eq!(single, one, "--affinity {mode}: the bot may run on {list}");
    }
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
