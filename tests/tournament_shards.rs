//! Issue 16, batch part, end to end through the binary: `durak tournament --shard I/N` plays
//! exactly its shard's games; `durak merge` puts the shards together into the results and
//! standings of a single-machine run, byte for byte apart from the timings (`duration_ms`), and
//! refuses, naming the directory and the field: another tournament, another split, a missing
//! shard, a shard not finished, a shard given twice, a game of another shard, disqualifications
//! that one machine would not have decided. `--resume` keeps the shard and refuses another.

mod common;

use common::{durak, text};
use std::path::{Path, PathBuf};

/// "Apart from timings": a result line's `duration_ms` is the one field that differs between
/// two runs of the same games (replays also hold answer times, but they are not compared here).
fn without_timings(results: &str) -> String {
    results
        .lines()
        .map(|l| {
            let at = l
                .find(",\"duration_ms\":")
                .expect("a result line has duration_ms");
            let end = l[at + 1..]
                .find([',', '}'])
                .map(|e| at + 1 + e)
                .expect("the field ends");
            format!("{}{}\n", &l[..at], &l[end..])
        })
        .collect()
}

const BOTS: [&str; 3] = ["builtin:random", "builtin:greedy", "r2=builtin:random"];

/// A configuration of three built-in bots (so three combinations at tables of 2).
fn config(dir: &Path, format: &str, games: u32, extra: &str) -> PathBuf {
    let mut c = format!(
        "[tournament]\nname = \"cup\"\nformat = \"{format}\"\ngames = {games}\nseed = 11\n{extra}\n"
    );
    for b in BOTS {
        let (name, cmd) = b.split_once('=').unwrap_or((b, b));
        c.push_str(&format!(
            "[[bot]]\nname = \"{name}\"\ncommand = \"{cmd}\"\n\n"
        ));
    }
    let path = dir.join(format!("{format}.toml"));
    std::fs::write(&path, c).unwrap();
    path
}

fn run_ok(args: &[&str], cwd: &Path) -> String {
    let out = durak(args, cwd);
    assert!(
        out.status.success(),
        "durak {args:?}: {}\n{}",
        out.status,
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// `durak ARGS` must fail with exit status 2 and a message holding every one of `needles`.
fn refused(args: &[&str], cwd: &Path, needles: &[&str]) -> String {
    let out = durak(args, cwd);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "durak {args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "durak {args:?}: {n:?} not in: {err}");
    }
    err
}

fn lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// Play `config` on one machine into `single`, and as `n` shards into `s1`... in `tmp`.
fn play_single_and_shards(tmp: &Path, config: &Path, n: u32) -> Vec<PathBuf> {
    let c = config.to_str().unwrap();
    run_ok(
        &["tournament", "-q", "-c", c, "-j", "2", "--out", "single"],
        tmp,
    );
    (1..=n)
        .map(|i| {
            let out = format!("s{i}");
            let shard = format!("{i}/{n}");
            run_ok(
                &[
                    "tournament",
                    "-q",
                    "-c",
                    c,
                    "-j",
                    "1",
                    "--shard",
                    &shard,
                    "--out",
                    &out,
                ],
                tmp,
            );
            tmp.join(out)
        })
        .collect()
}

#[test]
fn merged_shards_give_the_results_and_standings_of_one_machine() {
    for (format, games, n) in [("duplicate", 4, 3), ("series", 3, 4), ("round-robin", 3, 2)] {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        let c = config(t, format, games, "");
        let shards = play_single_and_shards(t, &c, n);
        // Each shard played its games only: together every game once.
        let total = lines(&t.join("single")).len();
        let per: Vec<usize> = shards.iter().map(|s| lines(s).len()).collect();
        assert_eq!(per.iter().sum::<usize>(), total, "{format}: {per:?}");
        assert!(per.iter().all(|&p| p > 0 && p < total), "{format}: {per:?}");
        let toml = std::fs::read_to_string(shards[1].join("tournament.toml")).unwrap();
        assert!(toml.contains(&format!("shard = \"2/{n}\"")), "{toml}");
        let mut args = vec!["merge".to_string()];
        args.extend(shards.iter().map(|s| s.to_string_lossy().into_owned()));
        args.extend(["--out".into(), "merged".into(), "-q".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let printed = run_ok(&args, t);
        // Byte for byte, apart from the timings.
        let read = |d: &str| std::fs::read_to_string(t.join(d).join("results.jsonl")).unwrap();
        assert_eq!(
            without_timings(&read("merged")),
            without_timings(&read("single")),
            "{format}"
        );
        assert_ne!(read("merged"), "", "{format}");
        // The standings, in every form (they hold no timing).
        for form in [None, Some("--json"), Some("--csv")] {
            let mut a = vec!["standings"];
            a.extend(form);
            let of = |d: &str| {
                let mut a = a.clone();
                a.insert(1, d);
                run_ok(&a, t)
            };
            assert_eq!(of("merged"), of("single"), "{format} {form:?}");
        }
        assert_eq!(printed, run_ok(&["standings", "merged"], t), "{format}");
        // The merged directory is a finished tournament: its replays are there and verify;
        // its record has no shard, and a resume of it has nothing to play.
        let first = &lines(&t.join("merged"))[0];
        let replay: serde_json::Value = serde_json::from_str(first).unwrap();
        let replay = t.join("merged").join(replay["replay"].as_str().unwrap());
        let verify = durak(&["replay", "--verify", replay.to_str().unwrap()], t);
        assert!(verify.status.success(), "{}", text(&verify.stderr));
        let merged_toml = std::fs::read_to_string(t.join("merged/tournament.toml")).unwrap();
        assert!(!merged_toml.contains("shard"), "{merged_toml}");
        let resumed = durak(&["tournament", "--resume", "merged"], t);
        assert!(resumed.status.success(), "{}", text(&resumed.stderr));
        assert!(
            text(&resumed.stderr).contains("finished"),
            "{}",
            text(&resumed.stderr)
        );
        assert_eq!(lines(&t.join("merged")).len(), total);
    }
}

#[test]
fn merge_refuses_what_is_not_one_whole_tournament() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let c = config(t, "duplicate", 4, "");
    let cs = c.to_str().unwrap();
    let shards = play_single_and_shards(t, &c, 3);
    let s: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();

    // A missing shard.
    refused(
        &["merge", s[0], s[2], "--out", "m1"],
        t,
        &["shard 2/3", "missing", "fix:"],
    );
    // A shard twice: its games would be recorded twice.
    refused(
        &["merge", s[0], s[1], s[2], s[1], "--out", "m2"],
        t,
        &["s2/tournament.toml", "shard = \"2/3\"", "twice"],
    );
    // Another tournament (another seed), named by directory and field.
    run_ok(
        &[
            "tournament",
            "-q",
            "-c",
            cs,
            "--seed",
            "12",
            "--shard",
            "2/3",
            "--out",
            "other",
        ],
        t,
    );
    refused(
        &["merge", s[0], "other", s[2], "--out", "m3"],
        t,
        &[
            "other/tournament.toml",
            "another tournament",
            "seed is 11 there and 12 here",
        ],
    );
    // Another split.
    run_ok(
        &[
            "tournament",
            "-q",
            "-c",
            cs,
            "--shard",
            "2/2",
            "--out",
            "half",
        ],
        t,
    );
    refused(
        &["merge", s[0], "half", s[2], "--out", "m4"],
        t,
        &["half/tournament.toml", "shard = \"2/2\"", "another split"],
    );
    // A whole run is shard 1/1: with shards of three, another split too.
    refused(
        &["merge", "single", s[1], "--out", "m5"],
        t,
        &["shard = \"2/3\"", "another split"],
    );
    // A game of another shard in a shard's results (copied by hand).
    let s1 = lines(&shards[0]);
    let s2 = lines(&shards[1]);
    let mut forged = s1.clone();
    forged[0] = s2[0].clone();
    std::fs::write(shards[0].join("results.jsonl"), forged.join("\n") + "\n").unwrap();
    refused(
        &["merge", s[0], s[1], s[2], "--out", "m6"],
        t,
        &["s1/results.jsonl", "is a game of shard 2/3", "shard 1/3"],
    );
    // A shard holding all its games and one more, of another shard: named as that, not as
    // "not finished: 25 of its 24" (whose --resume fix would then refuse).
    std::fs::write(shards[0].join("results.jsonl"), s1.join("\n") + "\n").unwrap();
    let mut extra = s2.clone();
    extra.push(s1[0].clone());
    std::fs::write(shards[1].join("results.jsonl"), extra.join("\n") + "\n").unwrap();
    let err = refused(
        &["merge", s[0], s[1], s[2], "--out", "m6b"],
        t,
        &["s2/results.jsonl", "is a game of shard 1/3", "shard 2/3"],
    );
    assert!(!err.contains("not finished"), "{err}");
    std::fs::write(shards[1].join("results.jsonl"), s2.join("\n") + "\n").unwrap();
    // A shard not finished (its last games lost), then finished by --resume, which keeps the
    // shard: then the merge goes through.
    std::fs::write(
        shards[0].join("results.jsonl"),
        s1[..s1.len() - 2].join("\n") + "\n",
    )
    .unwrap();
    let err = refused(
        &["merge", s[0], s[1], s[2], "--out", "m7"],
        t,
        &[
            "s1: shard 1/3 is not finished",
            "fix: finish it with `durak tournament --resume",
        ],
    );
    assert!(
        err.contains(&format!("{} of its {} games", s1.len() - 2, s1.len())),
        "{err}"
    );
    assert!(
        !t.join("m7").exists(),
        "nothing written for a refused merge"
    );
    // Another shard on resume is refused, naming both.
    refused(
        &["tournament", "--resume", s[0], "--shard", "2/3"],
        t,
        &["shard = \"1/3\"", "--shard 2/3", "cannot change on resume"],
    );
    refused(
        &["tournament", "--resume", "single", "--shard", "1/3"],
        t,
        &["has no shard", "cannot change on resume"],
    );
    run_ok(&["tournament", "-q", "--resume", s[0]], t);
    assert_eq!(
        lines(&shards[0]).len(),
        s1.len(),
        "the resume played its shard's games only"
    );
    run_ok(&["merge", s[0], s[1], s[2], "--out", "m8", "-q"], t);
    assert_eq!(
        without_timings(&std::fs::read_to_string(t.join("m8/results.jsonl")).unwrap()),
        without_timings(&std::fs::read_to_string(t.join("single/results.jsonl")).unwrap())
    );
    // An out directory in use is refused.
    refused(
        &["merge", s[0], s[1], s[2], "--out", "m8"],
        t,
        &["m8: the directory is not empty"],
    );
    // A bad shard is refused before anything starts.
    for bad in ["0/3", "4/3", "x"] {
        refused(
            &["tournament", "-c", cs, "--shard", bad, "--out", "bad"],
            t,
            &["--shard", "shard"],
        );
    }
}

const BAD_BOT: &str = r#"read line
echo '{"type":"hello","protocol":1,"name":"bad","version":"1"}'
while read line; do
  case "$line" in *'"type":"request"'*) echo 'this is not json';; esac
done
"#;

/// A bot that faults in every game is disqualified after two in a row on one machine; each
/// shard counts its own games, so the shards disqualify it later than one machine would: the
/// merge refuses, naming the game and the bot.
#[test]
fn merge_refuses_disqualifications_one_machine_would_not_have_decided() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::write(t.join("bad.sh"), BAD_BOT).unwrap();
    let c = "[tournament]\nname = \"dq\"\ngames = 4\nseed = 3\nmax_consecutive_faults = 2\n\
             [[bot]]\nname = \"greedy\"\ncommand = \"builtin:greedy\"\n\
             [[bot]]\nname = \"bad\"\ncommand = \"sh bad.sh\"\n";
    std::fs::write(t.join("dq.toml"), c).unwrap();
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = format!("d{i}");
        run_ok(
            &[
                "tournament",
                "-q",
                "-c",
                "dq.toml",
                "--shard",
                &shard,
                "--out",
                &out,
            ],
            t,
        );
    }
    refused(
        &["merge", "d1", "d2", "--out", "dm"],
        t,
        &[
            "results.jsonl: game",
            "bad",
            "one machine",
            "max_consecutive_faults = 0",
        ],
    );
    // Without disqualification for faults, shards and one machine agree.
    let c0 = c.replace("max_consecutive_faults = 2", "max_consecutive_faults = 0");
    std::fs::write(t.join("dq0.toml"), c0).unwrap();
    run_ok(&["tournament", "-q", "-c", "dq0.toml", "--out", "one"], t);
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = format!("e{i}");
        run_ok(
            &[
                "tournament",
                "-q",
                "-c",
                "dq0.toml",
                "--shard",
                &shard,
                "--out",
                &out,
            ],
            t,
        );
    }
    run_ok(&["merge", "e1", "e2", "--out", "em", "-q"], t);
    let read = |d: &str| std::fs::read_to_string(t.join(d).join("results.jsonl")).unwrap();
    assert_eq!(without_timings(&read("em")), without_timings(&read("one")));
}

#[test]
fn a_sharded_sprt_is_refused_and_leaves_no_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sprt-shard");
    let o = out.to_str().unwrap();
    refused(
        &[
            "tournament",
            "--format",
            "gauntlet",
            "--challenger",
            "builtin:greedy",
            "--sprt",
            "0,20",
            "--shard",
            "1/2",
            "--seed",
            "5",
            "--out",
            o,
            "builtin:greedy",
            "builtin:random",
        ],
        tmp.path(),
        &[
            "--shard 1/2 with an SPRT",
            "fix: run an SPRT on one machine",
        ],
    );
    assert!(
        !out.exists(),
        "a refused command left {} behind",
        out.display()
    );
}
