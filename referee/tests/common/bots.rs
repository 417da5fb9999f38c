//! Bots for the tests that play real processes, shared by the referee's tests (`referee/tests/`)
//! and the workspace's (`tests/`, which include this file): bots written as `sh` scripts,
//! markers to find every process they start (also inside a sandbox, where the PIDs they see are
//! not the host's), the checks that follow every game, the built-in bots and the Rust sample bot.
//! `super::BOT` is the program that answers `bot NAME` as `durak bot NAME` does: the referee's
//! `durak-bot`, or the `durak` binary itself.

use durak_protocol::{FaultKind, Limits};
use durak_referee::{
    play_match, BotCommand, Isolation, MatchConfig, MatchResult, Sandbox, SeatSpec,
};
use durak_rules::Variant;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[allow(unused_imports)] // each test file uses some of them
pub use super::system::{require, require_interpreter, require_with};

/// The start of every hostile script. Arguments: the PID file, the stdin log, the built-in bots'
/// program `super::BOT`, `$DURAK` in the script (an argument naming a file makes its directory visible in strict mode, so the
/// script can `exec "$DURAK" bot random`). `rec` and `log` write to files outside the bot's
/// directory: in strict mode they cannot (the bot sees nothing else), which is fine: processes are
/// then found by their marker, `sleep $NAP`.
pub const PREAMBLE: &str = r#"PIDS="$1"; LOG="$2"; DURAK="$3"
rec() { { echo "$1" >> "$PIDS"; } 2>/dev/null; }
log() { { echo "$1" >> "$LOG"; } 2>/dev/null; }
rec $$
request_id() { printf '%s' "$1" | sed -n 's/.*"type":"request","id":\([0-9]*\).*/\1/p'; }
"#;

/// Read the referee's hello, log it, answer with ours.
pub const HELLO: &str = r#"read line; log "$line"
echo '{"type":"hello","protocol":1,"name":"hostile","version":"1"}'
"#;

/// `on_request(body)`: after the hello, run `body` when the first request arrives (the line is in
/// `$line`).
pub fn on_request(body: &str) -> String {
    format!(
        "{HELLO}while read line; do log \"$line\"; case \"$line\" in *'\"type\":\"request\"'*) {body};; esac; done\n"
    )
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// One hostile bot: its directory, its files, its marker.
pub struct Hostile {
    pub dir: tempfile::TempDir,
    /// Unique per bot: its long-lived processes are `sleep $NAP`.
    pub nap: u64,
}

impl Default for Hostile {
    fn default() -> Self {
        Self::new()
    }
}

impl Hostile {
    pub fn new() -> Hostile {
        let dir = tempfile::tempdir().unwrap();
        // Strict mode as root runs the bot under another uid: it must be able to enter.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(dir.path().join("bot")).unwrap();
        let nap = 300_000
            + u64::from(std::process::id() % 1000) * 1000
            + NEXT.fetch_add(1, Ordering::Relaxed) % 1000;
        Hostile { dir, nap }
    }
    pub fn bot_dir(&self) -> PathBuf {
        self.dir.path().join("bot")
    }
    pub fn script(&self) -> PathBuf {
        self.bot_dir().join("bot.sh")
    }
    pub fn pids_file(&self) -> PathBuf {
        self.dir.path().join("pids")
    }
    pub fn log_file(&self) -> PathBuf {
        self.dir.path().join("stdin.log")
    }
    pub fn replay_dir(&self) -> PathBuf {
        self.dir.path().join("replays")
    }
    /// A seat running `body` (sh, after the preamble; `$NAP` is set).
    pub fn seat(&self, body: &str, limits: Limits, sandbox: Sandbox) -> SeatSpec {
        std::fs::write(self.script(), format!("{PREAMBLE}NAP={}\n{body}", self.nap)).unwrap();
        let spec = format!(
            "sh {} {} {} {}",
            self.script().display(),
            self.pids_file().display(),
            self.log_file().display(),
            super::BOT,
        );
        SeatSpec {
            name: "hostile".into(),
            command: BotCommand::parse(&spec).unwrap().with_sandbox(sandbox),
            limits,
        }
    }
    pub fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.pids_file())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
    pub fn received(&self) -> String {
        std::fs::read_to_string(self.log_file()).unwrap_or_default()
    }
}

/// A program on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    durak_referee::process::which(Path::new(name))
}

/// An interpreter, the system's first (`/usr/bin`, `/usr/local/bin`), then `PATH`: a pyenv
/// shim on `PATH` can take a second to start.
pub fn interpreter(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
        .or_else(|| which(name))
}

/// Alive means: exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Live processes of the bot found by marker: running its script, or `sleep $NAP`.
pub fn marked(h: &Hostile) -> Vec<u32> {
    let script = h.script().display().to_string();
    let nap = h.nap.to_string();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmd
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let is_bot = args.iter().any(|a| a == &script)
            || (args.len() >= 2 && args[0].ends_with("sleep") && args[1] == nap);
        if is_bot && alive(pid) {
            out.push(pid);
        }
    }
    out
}

/// No process of the bot is left: neither those it recorded nor any carrying its marker.
pub fn assert_no_process_left(h: &Hostile) {
    let pids = h.pids();
    // SIGKILL is delivered asynchronously; allow the kernel a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|&p| alive(p))
            .chain(marked(h))
            .collect();
        if left.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            panic!("processes of the bot left alive: {left:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn builtin(name: &str, sandbox: Sandbox) -> SeatSpec {
    SeatSpec {
        name: format!("builtin:{name}"),
        command: BotCommand {
            spec: format!("builtin:{name}"),
            program: PathBuf::from(super::BOT),
            args: vec!["bot".into(), name.into()],
            cwd: None,
            isolation: Isolation {
                sandbox,
                ..Isolation::default()
            },
        },
        limits: Limits {
            move_ms: 10_000,
            ..Limits::default()
        },
    }
}

/// Short limits for hostile bots.
pub fn hostile_limits() -> Limits {
    Limits {
        startup_ms: 3_000,
        move_ms: 300,
        bank_ms: 0,
        max_line_bytes: 1 << 20,
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub fn config(seats: Vec<SeatSpec>, games: u32, replay_dir: &Path) -> MatchConfig {
    let mut cfg = MatchConfig::new(Variant::Podkidnoy, seats, games, 11);
    cfg.replay_dir = Some(replay_dir.to_path_buf());
    cfg
}

pub fn run(seats: Vec<SeatSpec>, games: u32, replay_dir: &Path) -> MatchResult {
    let cfg = config(seats, games, replay_dir);
    runtime()
        .block_on(play_match(&cfg, |_| {}))
        .expect("the match is played")
}

/// The stderr the replay of game `g` kept for `seat` (its pieces, one per point of the game,
/// joined: together they are the stream as it came).
pub fn replay_stderr(r: &MatchResult, g: usize, seat: usize) -> String {
    let replay = std::fs::read_to_string(r.games[g].replay.as_ref().unwrap()).unwrap();
    let tag = format!(r#""type":"stderr","seat":{seat}"#);
    replay
        .lines()
        .filter(|l| l.contains(&tag))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

/// Check one game's record: `seat` 0 lost with exactly the named fault, the replay is complete.
pub fn assert_fault(r: &MatchResult, kind: FaultKind) {
    let g = &r.games[0];
    assert_eq!(g.loser, Some(0), "the faulting seat loses: {g:?}");
    assert!(!g.draw);
    assert_eq!(g.faults.len(), 1, "{g:?}");
    assert_eq!(g.faults[0].seat, 0);
    assert_eq!(g.faults[0].kind, kind, "{g:?}");
    let replay = std::fs::read_to_string(g.replay.as_ref().unwrap()).unwrap();
    assert!(replay
        .lines()
        .next()
        .unwrap()
        .contains(r#""type":"header""#));
    assert!(replay.contains(&format!(r#""type":"fault","seat":0,"kind":"{kind}""#)));
    assert!(replay
        .lines()
        .last()
        .unwrap()
        .contains(r#""type":"result""#));
}

/// Play one game of the hostile bot (seat 0, `body`) against builtin:random in the same mode;
/// expect the named fault, a referee that did not hang, and no process of the bot left.
pub fn expect_fault(
    h: &Hostile,
    body: &str,
    limits: Limits,
    sandbox: Sandbox,
    kind: FaultKind,
) -> MatchResult {
    expect_fault_iso(
        h,
        body,
        limits,
        Isolation {
            sandbox,
            ..Default::default()
        },
        kind,
    )
}

pub fn expect_fault_iso(
    h: &Hostile,
    body: &str,
    limits: Limits,
    isolation: Isolation,
    kind: FaultKind,
) -> MatchResult {
    let start = Instant::now();
    let mut seat = h.seat(body, limits, isolation.sandbox);
    seat.command.isolation = isolation.clone();
    let r = run(
        vec![seat, builtin("random", isolation.sandbox)],
        1,
        &h.replay_dir(),
    );
    assert_fault(&r, kind);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the referee must not hang"
    );
    assert_no_process_left(h);
    r
}

/// Whether strict-mode tests can run: bubblewrap is installed and builds a sandbox here.
/// Otherwise the test is skipped with a note, or fails where system programs are required (CI;
/// see [`system`]).
pub fn strict_ready() -> bool {
    require_with("bwrap", "bubblewrap", || {
        durak_referee::isolation::check_strict_sandbox()
            .map(|()| which("bwrap").unwrap_or_else(|| "bwrap".into()))
            .map_err(|e| e.to_string())
    })
    .is_some()
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The Rust sample bot, built with cargo's own `cargo build -p durak-sample-bot` into this test's
/// target directory and profile (`cargo test` does not build other packages' binaries).
pub fn rust_sample_bot() -> PathBuf {
    let exe_dir = Path::new(super::BOT).parent().expect("target/<profile>");
    let mut build = Command::new(env!("CARGO"));
    build
        .args(["build", "-q", "-p", "durak-sample-bot"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if exe_dir.file_name() == Some("release".as_ref()) {
        build.arg("--release");
    }
    let out = build.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo build -p durak-sample-bot: {}",
        text(&out.stderr)
    );
    let bot = exe_dir.join("durak-sample-bot");
    assert!(bot.is_file(), "{} was built", bot.display());
    bot
}
