//! Issue 16: tournament replays written compressed (zstd, `.jsonl.zst`, the default) or plain
//! (`--replays plain`), and every reader taking both: `durak replay` (text, `--verify`,
//! `--html`), the tournament's web pages (`durak standings --html`); `--resume`'s check of
//! pending replays is tested in `tournaments/src/recorded.rs`.

mod common;

use common::{durak, text};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

fn run_ok(args: &[&str], cwd: &Path) -> String {
    let out = durak(args, cwd);
    assert!(
        out.status.success(),
        "durak {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn replays(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn tournament(tmp: &Path, out: &str, extra: &[&str]) -> PathBuf {
    let games = if extra.contains(&"--games") {
        &[][..]
    } else {
        &["--games", "6"][..]
    };
    let mut args = vec!["tournament", "-q", "--seed", "21", "--out", out];
    args.extend(games);
    args.extend(extra);
    args.extend(["builtin:random", "builtin:greedy"]);
    run_ok(&args, tmp);
    tmp.join(out)
}

#[test]
fn compressed_and_plain_replays_read_the_same_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let packed = tournament(t, "packed", &[]);
    let plain = tournament(t, "plain", &["--replays", "plain"]);
    let (zs, ps) = (replays(&packed), replays(&plain));
    assert_eq!(zs.len(), 12);
    assert!(
        zs.iter()
            .all(|p| p.to_string_lossy().ends_with(".jsonl.zst")),
        "{zs:?}"
    );
    assert!(
        ps.iter().all(|p| p.to_string_lossy().ends_with(".jsonl")),
        "{ps:?}"
    );
    let rec = |d: &Path| std::fs::read_to_string(d.join("tournament.toml")).unwrap();
    assert!(rec(&packed).contains("replays = \"zstd\""));
    assert!(rec(&plain).contains("replays = \"plain\""));
    // At most 5 KB per game on disk (blocks allocated, not only the length), several times
    // smaller than the plain file.
    for (z, p) in zs.iter().zip(&ps) {
        let (zm, pm) = (std::fs::metadata(z).unwrap(), std::fs::metadata(p).unwrap());
        assert!(
            zm.blocks() * 512 <= 5 * 1024,
            "{}: {} blocks",
            z.display(),
            zm.blocks()
        );
        assert!(
            zm.len() * 4 < pm.len(),
            "{}: {} vs {}",
            z.display(),
            zm.len(),
            pm.len()
        );
        // The same game, whatever the format: the same text when read back.
        assert_eq!(
            common::replay_text(z).unwrap().lines().count(),
            std::fs::read_to_string(p).unwrap().lines().count()
        );
    }
    // The same standings: the results differ only in the replays' names (and timings).
    assert_eq!(
        run_ok(&["standings", "packed", "--json"], t),
        run_ok(&["standings", "plain", "--json"], t)
    );
    // `durak replay`: steps, --verify and --html read both.
    for (z, p) in zs.iter().zip(&ps).take(3) {
        let (zs, ps) = (z.to_str().unwrap(), p.to_str().unwrap());
        // The same steps (answer times aside: the two runs are two runs), the file name aside.
        let steps = |path: &str| -> Vec<String> {
            run_ok(&["replay", "--all", path], t)
                .replace(path, "FILE")
                .lines()
                .filter(|l| !l.contains("ms"))
                .map(String::from)
                .collect()
        };
        let (a, b) = (steps(zs), steps(ps));
        assert!(a.len() > 20, "{a:?}");
        assert!(a == b, "the steps of {zs} and {ps} differ");
        let vz = run_ok(&["replay", "--verify", zs], t);
        assert!(vz.starts_with(&format!("verified: {zs}")), "{vz}");
        assert!(run_ok(&["replay", "--verify", ps], t).starts_with("verified: "));
        let page = t.join("one.html");
        run_ok(&["replay", "--html", page.to_str().unwrap(), zs], t);
        // The viewer writes the page beside its files: the page names the game.
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(
            html.contains("<html") && html.contains("builtin:greedy"),
            "a page"
        );
    }
    // The tournament's web pages (the report), from compressed and from plain replays: a page
    // per game either way.
    for dir in [&packed, &plain] {
        let name = dir.file_name().unwrap().to_str().unwrap();
        run_ok(&["standings", name, "--html"], t);
        assert!(dir.join("html/index.html").is_file());
        for id in 0..12 {
            let page = dir.join(format!("html/g/000/{id}.html"));
            let html = std::fs::read_to_string(&page)
                .unwrap_or_else(|e| panic!("{}: {e}", page.display()));
            assert!(html.contains("builtin:random"), "{}", page.display());
        }
    }
}

#[test]
fn a_damaged_compressed_replay_is_refused_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let packed = tournament(t, "packed", &["--games", "1"]);
    let z = &replays(&packed)[0];
    let bytes = std::fs::read(z).unwrap();
    let cut = t.join("cut.jsonl.zst");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = durak(&["replay", "--verify", cut.to_str().unwrap()], t);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cut.jsonl.zst") && err.contains("cannot be decompressed"),
        "{err}"
    );
}

/// The format may change on resume (every reader takes both): the new one is noted, recorded,
/// and the games still to play are written in it.
#[test]
fn the_replay_format_may_change_on_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let dir = tournament(t, "d", &["--replays", "plain"]);
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let kept: Vec<&str> = results.lines().take(4).collect();
    std::fs::write(dir.join("results.jsonl"), kept.join("\n") + "\n").unwrap();
    let out = durak(&["tournament", "--resume", "d", "--replays", "zstd"], t);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("note: replays zstd"), "{err}");
    let rec = std::fs::read_to_string(dir.join("tournament.toml")).unwrap();
    assert!(rec.contains("replays = \"zstd\""), "{rec}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 12);
    let names: Vec<&str> = lines
        .iter()
        .map(|l| l["replay"].as_str().unwrap())
        .collect();
    assert!(
        names[..4].iter().all(|n| n.ends_with(".jsonl")),
        "{names:?}"
    );
    assert!(
        names[4..].iter().all(|n| n.ends_with(".jsonl.zst")),
        "{names:?}"
    );
    run_ok(&["standings", "d"], t);
}

/// `durak replay --seat S --raw` and `durak rerun` read a compressed replay as they read the same
/// game written plain: the same output, the file's name aside.
#[test]
fn raw_lines_and_rerun_read_compressed_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let packed = tournament(t, "packed", &["--games", "1"]);
    let z = replays(&packed)[0].clone();
    assert!(z.to_string_lossy().ends_with(".jsonl.zst"), "{z:?}");
    let plain = t.join("same-game.jsonl");
    std::fs::write(&plain, common::replay_text(&z).unwrap()).unwrap();
    let (zs, ps) = (z.to_str().unwrap(), plain.to_str().unwrap());
    let same = |args: &[&str]| {
        let run = |file: &str| {
            let mut a: Vec<&str> = args.to_vec();
            a.insert(1, file);
            let out = durak(&a, t);
            let (o, e) = (text(&out.stdout), text(&out.stderr));
            // The new answer's time is the one thing that differs between two runs.
            let o: Vec<String> = o
                .replace(file, "FILE")
                .lines()
                .map(|l| match l.strip_prefix("new answer (") {
                    Some(rest) => rest.split_once(')').map_or(l, |(_, r)| r).to_string(),
                    None => l.to_string(),
                })
                .collect();
            (out.status.code(), o.join("\n"), e.replace(file, "FILE"))
        };
        let (a, b) = (run(zs), run(ps));
        assert_eq!(a, b, "durak {args:?} on {zs} and on {ps}");
        a
    };
    for seat in ["0", "1"] {
        let (code, out, _) = same(&["replay", "--seat", seat, "--raw"]);
        assert_eq!(code, Some(0));
        assert!(out.contains("stdin   {\"type\":\"request\""), "{out}");
    }
    let replay = durak_replay::read_replay(&z).unwrap();
    let sim = durak_replay::simulate(&replay);
    let steps = durak_checkbot::rerun::request_steps(&sim);
    let step = steps[0].0.to_string();
    let (code, out, _) = same(&["rerun", "--step", &step, "builtin:greedy"]);
    assert!(matches!(code, Some(0) | Some(1)), "{out}");
    assert!(
        out.contains("recorded answer: {\"type\":\"answer\""),
        "{out}"
    );
    assert!(out.contains("verdict: "), "{out}");
}
