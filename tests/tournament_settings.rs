//! Issue 11, through the binary: every setting that shapes a run (sandbox, resource limits,
//! affinity, web pages, concurrency, name) is recorded in `DIR/tournament.toml`, and the resume
//! command `durak tournament` prints, run bare, goes on with them after a kill; a resume that
//! gives a fixed setting another value is refused with both values; the configuration file takes
//! these keys too; a directory that cannot be written stops the run with exit status 1.

mod common;

use common::{text, DURAK};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn durak(args: &[&str], cwd: &Path) -> std::process::Output {
    common::durak(args, cwd)
}

/// The result lines of `dir`, without a last line a kill cut short.
fn results(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap_or_default();
    text[..text.rfind('\n').map_or(0, |i| i + 1)]
        .lines()
        .map(|l| serde_json::from_str(l).expect("a whole JSON line"))
        .collect()
}

fn ids(dir: &Path) -> Vec<u64> {
    let mut ids: Vec<u64> = results(dir)
        .iter()
        .map(|l| l["id"].as_u64().unwrap())
        .collect();
    ids.sort();
    ids
}

/// A bot that says on stderr what it runs as — its uid, how many processes it can see (a few
/// in its own pid namespace), its open-files limit, its CPUs — then plays as the built-in
/// random bot (a link to the durak executable in its directory: strict mode shows a bot only
/// its own directory).
const REPORT_BOT: &str = r#"echo "report uid=$(id -u) procs=$(ls /proc | grep -c '^[0-9]') nofile=$(ulimit -n) cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)" >&2
exec ./durak bot random
"#;

/// What each bot process reported, per game id: `(id, report)`, from the replays' stderr.
fn reports(dir: &Path) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for l in results(dir) {
        let replay = common::replay_text(&dir.join(l["replay"].as_str().unwrap())).unwrap();
        for v in replay
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["type"] == "stderr")
        {
            for line in v["text"].as_str().unwrap().lines() {
                if let Some(r) = line.strip_prefix("report ") {
                    out.push((l["id"].as_u64().unwrap(), r.to_string()));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .split(' ')
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in {report}"))
}

/// A tournament of two reporting bots in `tmp/bot/` (readable by others: strict mode as root
/// runs bots under their own uid).
fn report_tournament(tmp: &Path, games: u32) -> PathBuf {
    let bot = tmp.join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    for d in [tmp, &bot] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(bot.join("report.sh"), REPORT_BOT).unwrap();
    if std::fs::hard_link(DURAK, bot.join("durak")).is_err() {
        std::fs::copy(DURAK, bot.join("durak")).unwrap();
    }
    let config = tmp.join("t.toml");
    std::fs::write(
        &config,
        format!(
            "[tournament]\nseed = 8\ngames = {games}\n\n\
             [[bot]]\nname = \"a\"\ncommand = \"sh report.sh\"\ncwd = \"bot\"\n\n\
             [[bot]]\nname = \"b\"\ncommand = \"sh report.sh\"\ncwd = \"bot\"\n"
        ),
    )
    .unwrap();
    config
}

/// Start `durak tournament ARGS` (not quiet), SIGKILL it once `kill_at` games are recorded, and
/// give back the resume command its start note printed (as arguments, `durak` first).
fn start_then_kill(tmp: &Path, args: &[&str], out: &Path, kill_at: usize) -> Vec<String> {
    let mut child = Command::new(DURAK)
        .args(args)
        .current_dir(tmp)
        .env("DURAK_EXE", DURAK)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut note = String::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        while let Ok(l) = rx.try_recv() {
            note.push_str(&l);
            note.push('\n');
        }
        if results(out).len() >= kill_at {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill: {note}"
        );
        assert!(Instant::now() < deadline, "no progress: {note}");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL: nothing is printed at the end
    child.wait().unwrap();
    while let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
        note.push_str(&l);
        note.push('\n');
    }
    let command = note
        .split("finish it with `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no resume command in the start note: {note}"));
    let words = shell_words::split(command).unwrap();
    assert_eq!(
        &words[..3],
        ["durak", "tournament", "--resume"],
        "{command}"
    );
    assert_eq!(words.len(), 4, "the command is bare: {command}");
    words
}

/// Run a printed `durak ...` command, from another directory than the first run's.
fn run_printed(words: &[String]) -> std::process::Output {
    Command::new(DURAK)
        .args(&words[1..])
        .current_dir("/")
        .env("DURAK_EXE", DURAK)
        .output()
        .unwrap()
}

/// A limit, the affinity, web pages without the endgame analysis and concurrency survive a kill
/// and the bare printed resume command: the bots started after the resume report the same limit
/// and CPUs as the first ones, and the resume's pages are written without the analysis (without
/// the record, the resume ran with the default limits, pinned tables, no pages, or pages with
/// the analysis, seconds a game in a debug build).
#[test]
fn a_killed_run_resumed_with_the_printed_command_keeps_limits_affinity_and_pages() {
    let tmp = tempfile::tempdir().unwrap();
    // (Few games: web pages take a while in a debug build; 20 a table leave the resume 30 or
    // so to play after the kill at 10.)
    let config = report_tournament(tmp.path(), 20);
    let out = tmp.path().join("out");
    let total = 2 * 20;
    let words = start_then_kill(
        tmp.path(),
        &[
            "tournament",
            "-c",
            config.to_str().unwrap(),
            "--out",
            "out",
            "-j",
            "2",
            "--affinity",
            "off",
            "--limit",
            "open_files=77",
            "--html",
            "--no-analysis",
        ],
        &out,
        10,
    );
    let before = ids(&out);
    assert!(before.len() < total, "killed before the end");
    let o = run_printed(&words);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(ids(&out), (0..total as u64).collect::<Vec<_>>());
    assert!(out.join("html/index.html").is_file(), "the web pages");
    let bot_page = std::fs::read_to_string(out.join("html/bots/00-a.html")).unwrap();
    assert!(
        bot_page.contains("Not analysed: the report was written with --no-analysis."),
        "the resume kept --no-analysis: {bot_page}"
    );
    let own = std::fs::read_to_string("/proc/self/status").unwrap();
    let own = own
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    let reports = reports(&out);
    let after: Vec<&(u64, String)> = reports
        .iter()
        .filter(|(id, _)| !before.contains(id))
        .collect();
    assert!(!after.is_empty(), "bots were started after the resume");
    for (id, r) in &reports {
        assert_eq!(field(r, "nofile"), "77", "game {id}: {r}");
        // Affinity off: every bot may run on every CPU (auto would pin each table to one of
        // two CPUs).
        assert_eq!(field(r, "cpus"), own, "game {id}: {r}");
    }
    let toml = std::fs::read_to_string(out.join("tournament.toml")).unwrap();
    for recorded in [
        "sandbox = \"default\"",
        "affinity = \"off\"",
        "html = true",
        "analysis = false",
        "concurrency = 2",
        "open_files = \"77\"",
    ] {
        assert!(toml.contains(recorded), "{recorded} in {toml}");
    }
}

/// The sandbox survives a kill and the bare printed resume command: the bots started after the
/// resume run in bubblewrap too (their own pid namespace, and as root another uid). Without the
/// record, the resume ran them unsandboxed, as root.
#[test]
fn a_strict_run_resumed_with_the_printed_command_stays_strict() {
    if !common::strict_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // 20 games a table: the kill comes at 10, the resume plays the rest in the sandbox.
    let config = report_tournament(tmp.path(), 20);
    let out = tmp.path().join("out");
    let words = start_then_kill(
        tmp.path(),
        &[
            "tournament",
            "-c",
            config.to_str().unwrap(),
            "--out",
            "out",
            "--sandbox",
            "strict",
            "--limit",
            "processes=40",
        ],
        &out,
        10,
    );
    let before = ids(&out);
    let o = run_printed(&words);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(ids(&out), (0..40).collect::<Vec<_>>());
    let reports = reports(&out);
    assert!(
        reports.iter().any(|(id, _)| !before.contains(id)),
        "bots were started after the resume: {reports:?}"
    );
    // SAFETY: getuid has no preconditions.
    let root = unsafe { libc::getuid() } == 0;
    for (id, r) in &reports {
        let procs: u32 = field(r, "procs").parse().unwrap();
        assert!(procs < 10, "game {id}: its own pid namespace: {r}");
        if root {
            assert_ne!(field(r, "uid"), "0", "game {id}: not root: {r}");
        }
    }
    let toml = std::fs::read_to_string(out.join("tournament.toml")).unwrap();
    assert!(
        toml.contains("sandbox = \"strict\"") && toml.contains("processes = \"40\""),
        "{toml}"
    );
}

/// On `--resume`, a fixed setting given another value is refused (exit 2, nothing played),
/// naming both values and where each comes from; concurrency, web pages and the name may change
/// and are recorded.
#[test]
fn a_resume_refuses_other_fixed_settings_and_records_allowed_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    std::fs::write(
        p.join("t.toml"),
        "[tournament]\nseed = 3\ngames = 2\n\n\
         [[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\n\
         [[bot]]\nname = \"b\"\ncommand = \"builtin:greedy\"\n",
    )
    .unwrap();
    let o = durak(
        &[
            "tournament",
            "-c",
            "t.toml",
            "--out",
            "d",
            "-q",
            "--limit",
            "memory=1G",
            "--affinity",
            "off",
            "-j",
            "1",
        ],
        p,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Cut the results, so that a resume has games to play.
    let kept: String = std::fs::read_to_string(p.join("d/results.jsonl"))
        .unwrap()
        .lines()
        .take(1)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(p.join("d/results.jsonl"), &kept).unwrap();
    let toml_before = std::fs::read_to_string(p.join("d/tournament.toml")).unwrap();
    for (args, says) in [
        (
            vec!["--sandbox", "strict"],
            vec![
                "d/tournament.toml: [tournament] sandbox = \"default\", but the command line: \
                 --sandbox strict",
            ],
        ),
        (
            vec!["--limit", "memory=2G", "--affinity", "auto"],
            vec![
                "[tournament.limits] memory = \"1G\", but the command line: --limit memory=2G",
                "[tournament] affinity = \"off\", but the command line: --affinity auto",
            ],
        ),
    ] {
        let mut all = vec!["tournament", "--resume", "d"];
        all.extend(&args);
        let o = durak(&all, p);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        let e = text(&o.stderr);
        for s in says {
            assert!(e.contains(s), "{s:?} in {e}");
        }
        assert!(
            e.contains("fix: leave") && e.contains("durak tournament --resume "),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(p.join("d/results.jsonl")).unwrap(),
            kept,
            "nothing was played"
        );
        assert_eq!(
            std::fs::read_to_string(p.join("d/tournament.toml")).unwrap(),
            toml_before
        );
    }
    // Allowed changes: taken, noted, recorded for the next resume.
    let o = durak(
        &[
            "tournament",
            "--resume",
            "d",
            "-j",
            "2",
            "--html",
            "--name",
            "renamed",
            "--json",
        ],
        p,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(
        e.contains("note: concurrency 2 (the command line: -j 2) instead of 1"),
        "{e}"
    );
    assert!(p.join("d/html/index.html").is_file());
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["name"], "renamed");
    let toml = std::fs::read_to_string(p.join("d/tournament.toml")).unwrap();
    for recorded in [
        "concurrency = 2",
        "html = true",
        "name = \"renamed\"",
        "memory = \"1G\"",
        "affinity = \"off\"",
    ] {
        assert!(toml.contains(recorded), "{recorded} in {toml}");
    }
}

/// `[tournament]` takes `name`, `sandbox`, `html`, `affinity` and a `[tournament.limits]` table;
/// the name gives the default directory and heads the standings; bad keys and values are
/// refused with the file, the key and the fix.
#[test]
fn the_configuration_file_takes_name_sandbox_html_and_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let config = report_tournament(p, 1);
    let bots = std::fs::read_to_string(&config).unwrap();
    let bots = &bots[bots.find("[[bot]]").unwrap()..];
    std::fs::write(
        p.join("cup.toml"),
        format!(
            "[tournament]\nname = \"spring-cup\"\nseed = 11\ngames = 1\nsandbox = \"default\"\n\
             html = true\naffinity = \"off\"\n\n[tournament.limits]\nopen_files = 99\n\
             memory = \"1G\"\n\n{bots}"
        ),
    )
    .unwrap();
    let o = durak(&["tournament", "-c", "cup.toml", "--json"], p);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.starts_with("spring-cup: podkidnoy tournament"), "{e}");
    let dir = p.join("tournaments-out/spring-cup-11");
    assert!(dir.join("html/index.html").is_file(), "html = true");
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["name"], "spring-cup");
    for (_, r) in reports(&dir) {
        assert_eq!(field(&r, "nofile"), "99", "{r}");
    }
    let table = durak(&["standings", dir.to_str().unwrap()], p);
    assert!(text(&table.stdout).starts_with("spring-cup · podkidnoy"));
    // The command line wins over the file.
    let o = durak(
        &[
            "tournament",
            "-c",
            "cup.toml",
            "--limit",
            "open_files=55",
            "--name",
            "other",
            "-q",
        ],
        p,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    for (_, r) in reports(&p.join("tournaments-out/other-11")) {
        assert_eq!(field(&r, "nofile"), "55", "{r}");
    }

    for (i, (bad, says)) in [
        (
            "[tournament.limits]\nmemroy = \"1G\"\n",
            "[tournament.limits] memroy = \"1G\": unknown limit `memroy`\n  fix: did you mean \
             `memory`?",
        ),
        (
            "[tournament.limits]\nprocesses = \"many\"\n",
            "[tournament.limits] processes = \"many\": \"many\" is not a number",
        ),
        (
            "[tournament]\nsandbox = \"stric\"\n",
            "[tournament] sandbox = \"stric\": unknown sandbox",
        ),
        ("[tournament]\nhtml = \"yes\"\n", "html"),
        ("[tournament]\nnmae = \"x\"\n", "did you mean `name`?"),
    ]
    .into_iter()
    .enumerate()
    {
        let file = format!("bad{i}.toml");
        std::fs::write(p.join(&file), format!("{bad}\n{bots}")).unwrap();
        let out = format!("bad{i}");
        let o = durak(&["tournament", "-c", &file, "--out", &out], p);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o.stderr));
        let e = text(&o.stderr);
        assert!(
            e.contains(&file) && e.contains(says) && e.contains("fix:"),
            "{says:?} in {e}"
        );
        assert!(!p.join(&out).exists(), "nothing was created for {bad}");
    }
}

/// Makes files immutable (`chattr +i`) for as long as it lives: even root cannot write them.
struct Immutable(Vec<PathBuf>);

impl Immutable {
    /// `None` (with a note) where `chattr +i` does not work: not root, a file system without
    /// the attribute.
    fn new(paths: &[&Path]) -> Option<Immutable> {
        let mut done = Immutable(Vec::new());
        for p in paths {
            let ok = Command::new("chattr")
                .arg("+i")
                .arg(p)
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                eprintln!(
                    "skipped: `chattr +i {}` failed (it needs root and a file system with \
                     immutable files, e.g. ext4; package e2fsprogs)",
                    p.display()
                );
                return None;
            }
            done.0.push(p.to_path_buf());
        }
        Some(done)
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = Command::new("chattr").arg("-i").arg(p).status();
        }
    }
}

/// A tournament directory that cannot be written is a disk error (exit status 1, as the README
/// says), not a bad configuration (2): on resume, and for a new run whose --out cannot be made;
/// the message names the directory and the fix.
#[test]
fn an_unwritable_tournament_directory_exits_1_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    std::fs::write(
        p.join("t.toml"),
        "[tournament]\nseed = 3\ngames = 2\n\n\
         [[bot]]\nname = \"a\"\ncommand = \"builtin:random\"\n\n\
         [[bot]]\nname = \"b\"\ncommand = \"builtin:greedy\"\n",
    )
    .unwrap();
    let o = durak(&["tournament", "-c", "t.toml", "--out", "d", "-q"], p);
    assert!(o.status.success(), "{}", text(&o.stderr));
    std::fs::write(p.join("d/results.jsonl"), "").unwrap();
    std::fs::create_dir(p.join("ro")).unwrap();
    let d = p.join("d");
    let Some(_held) = Immutable::new(&[&d, &d.join("results.jsonl"), &p.join("ro")]) else {
        return;
    };
    let o = durak(&["tournament", "--resume", "d", "-q"], p);
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("d/results.jsonl: cannot write")
            && e.contains("the tournament directory d cannot be written")
            && e.contains("fix: make it writable")
            && e.contains("--resume"),
        "{e}"
    );
    let o = durak(&["tournament", "-c", "t.toml", "--out", "ro/new", "-q"], p);
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("ro/new: cannot create the tournament directory")
            && e.contains("fix: give --out a directory that can be written"),
        "{e}"
    );
    assert!(!p.join("ro/new").exists());
}
