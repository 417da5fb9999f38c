//! Issues 6, 11 and 23: what a bot written to cheat tried, and what stops it now, where the
//! `durak` binary is the referee: in a terminal, SIGKILLed mid-game, gone, run as another user,
//! pinned to one CPU, or running a tournament laid out as organisers do. Each test plays real
//! processes; some run in both modes. See docs/SECURITY.md for the promises these check; the
//! referee's own tests of the rest are `referee/tests/hostile.rs`, `referee/tests/isolation.rs`
//! and `referee/tests/tables.rs`.

mod common;

use common::modes::both_modes;
use common::*;
use durak_referee::Sandbox;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

both_modes!(has_no_controlling_terminal, dies_with_the_referee);

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
    // bounded). Their patterns are cut in two so that they do not find themselves. The folder
    // of the durak binary their commands name is the bots' to see (it holds cargo's own
    // .json files, under /tmp when the checkout is there): it is left out of /tmp's finds.
    let probe = format!(
        r#"#!/bin/sh
look() {{ find "$1" \( -name '*.toml*' -o -name '*.conf' -o -name '*.jsonl*' -o -name '*.json' \
     -o -name 'bob.sh' -o -name 'data.txt' \) 2>/dev/null; }}
{{ echo "FOUND:"; look {root}
   grep -rl -e SEED-MA""RK -e BOB-MA""RK {root} 2>/dev/null | sed 's/^/GREP /'
   look /tmp | grep -v "^$(dirname "$1")/" | head -n 20; }} >&2
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

fn dies_with_the_referee(sb: Sandbox) {
    // A referee (`durak play`) killed by SIGKILL mid-game, its bot having started children in
    // its group and in sessions of their own: none of them survives it.
    let h = Hostile::new();
    h.seat(
        &format!(
            "{{ pwd > \"$PIDS.cwd\"; }} 2>/dev/null\nsetsid sleep $NAP & sleep $NAP &\n( setsid sh -c 'sleep $0' $NAP & )\n{}",
            on_request("sleep $NAP")
        ),
        hostile_limits(),
        sb,
    );
    let mut referee = std::process::Command::new(DURAK)
        .args([
            "play",
            "--sandbox",
            sb.name(),
            "--move-time-ms",
            "60000",
            "--replay-dir",
        ])
        .arg(h.replay_dir())
        .arg(format!(
            "sh {} {} {} {}",
            h.script().display(),
            h.pids_file().display(),
            h.log_file().display(),
            DURAK
        ))
        .arg("builtin:random")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked(&h).iter().filter(|&&p| p != referee.id()).count() < 4 {
        assert!(
            Instant::now() < deadline,
            "the bot never started its children"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    referee.kill().unwrap();
    referee.wait().unwrap();
    assert_no_process_left(&h);
    // Default mode: the bot's private directory goes too (the supervisor removes it).
    if sb == Sandbox::Default {
        let cwd = std::fs::read_to_string(h.dir.path().join("pids.cwd")).unwrap();
        let cwd = std::path::Path::new(cwd.trim());
        assert!(cwd.starts_with(std::env::temp_dir()), "{}", cwd.display());
        let deadline = Instant::now() + Duration::from_secs(5);
        while cwd.exists() {
            assert!(Instant::now() < deadline, "{} left", cwd.display());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Names in `dir` starting with `durak-bot-`.
fn private_dirs(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("durak-bot-"))
        .collect()
}

/// A referee SIGKILLed in the middle of a game leaves no private directory in `$TMPDIR`: the
/// run's directory goes with the run (its watcher removes it), not at the next start. Five
/// kills, at different points of a match.
#[test]
fn a_sigkilled_referee_leaves_no_private_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let replays = tempfile::tempdir().unwrap();
    for (i, delay_ms) in [0u64, 30, 70, 150, 300].into_iter().enumerate() {
        let mut child = Command::new(DURAK)
            .args(["play", "--games", "100000", "--replay-dir"])
            .arg(replays.path().join(format!("r{i}")))
            .args(["builtin:random", "builtin:greedy"])
            .env("TMPDIR", tmp.path())
            .env("DURAK_EXE", DURAK)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Until a bot's private directory is there (a game is being played).
        let start = std::time::Instant::now();
        let playing = loop {
            let inside = private_dirs(tmp.path()).iter().any(|d| {
                std::fs::read_dir(tmp.path().join(d))
                    .map(|mut e| e.next().is_some())
                    .unwrap_or(false)
            });
            if inside || start.elapsed() > std::time::Duration::from_secs(30) {
                break inside;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert!(playing, "kill {i}: the match never started");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let start = std::time::Instant::now();
        while !private_dirs(tmp.path()).is_empty()
            && start.elapsed() < std::time::Duration::from_secs(10)
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(
            private_dirs(tmp.path()),
            Vec::<String>::new(),
            "kill {i} ({delay_ms} ms into the match) left these"
        );
    }
}
