//! `durak tournament --sprt` end to end through the binary: refusals with the flag and the fix,
//! the progress lines and the verdict (text and JSON), what the directory holds afterwards,
//! `durak standings` on it, a resume of a decided run, a resume that gives another test, and
//! the gauntlet's CSV rows of the challenger against each opponent.

mod common;

use common::{durak, text, DURAK};
use serde_json::Value;
use std::path::Path;

/// `durak ARGS` with extra environment variables.
fn durak_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(DURAK)
        .args(args)
        .current_dir(cwd)
        .env("DURAK_EXE", DURAK)
        .envs(env.iter().copied())
        .output()
        .expect("durak runs")
}

fn refused(args: &[&str], cwd: &Path) -> String {
    let out = durak(args, cwd);
    assert_eq!(out.status.code(), Some(2), "{args:?} was accepted");
    let e = text(&out.stderr);
    assert!(e.contains("fix:"), "no fix in: {e}");
    e
}

#[test]
fn bad_sprt_settings_are_refused_naming_the_flag_or_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let bots = ["builtin:greedy", "builtin:random"];
    let with = |extra: &[&str]| -> Vec<String> {
        extra
            .iter()
            .chain(bots.iter())
            .map(|s| s.to_string())
            .collect()
    };
    let run = |extra: &[&str]| {
        let args = with(extra);
        refused(&args.iter().map(String::as_str).collect::<Vec<_>>(), cwd)
    };
    let e = run(&["tournament", "--sprt", "0,10"]);
    assert!(
        e.contains("--sprt") && e.contains("gauntlet") && e.contains("\"duplicate\""),
        "{e}"
    );
    let g = [
        "tournament",
        "--format",
        "gauntlet",
        "--challenger",
        "builtin:greedy",
        "--sprt",
    ];
    let e = run(&[&g[..], &["10,0"]].concat());
    assert!(e.contains("elo0 (10) must be below elo1 (0)"), "{e}");
    let e = run(&[&g[..], &["0,10,0.6,0.05"]].concat());
    assert!(e.contains("alpha = 0.6"), "{e}");
    let e = run(&[&g[..], &["0,ten"]].concat());
    assert!(e.contains("elo1 = \"ten\" is not a number"), "{e}");
    let e = run(&[&g[..], &["0,10,0.05"]].concat());
    assert!(e.contains("3 values, 2 or 4 expected"), "{e}");
    // In a configuration file: the key, and an unknown key in [tournament.sprt].
    let conf = cwd.join("cup.toml");
    std::fs::write(
        &conf,
        "[tournament]\nformat = \"gauntlet\"\nchallenger = \"builtin:greedy\"\n\
         [tournament.sprt]\nelo0 = 5\nelo1 = 5\n",
    )
    .unwrap();
    let e = run(&["tournament", "-c", conf.to_str().unwrap()]);
    assert!(
        e.contains("cup.toml: [tournament.sprt]: SPRT: elo0 (5)"),
        "{e}"
    );
    std::fs::write(
        &conf,
        "[tournament]\nformat = \"gauntlet\"\nchallenger = \"builtin:greedy\"\n\
         [tournament.sprt]\nelo0 = 0\nelo1 = 5\nalhpa = 0.1\n",
    )
    .unwrap();
    let e = run(&["tournament", "-c", conf.to_str().unwrap()]);
    assert!(
        e.contains("alhpa") && e.contains("did you mean `alpha`?"),
        "{e}"
    );
}

/// A decided run: progress lines with the LLR and its bounds, the verdict on stderr and in the
/// standings (text, and JSON with the decision), the directory as consistent as a finished
/// tournament's; `durak standings` and a resume say the test decided, and a resume with
/// another test is refused.
#[test]
fn an_sprt_run_stops_at_its_verdict_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let o = out.to_str().unwrap();
    let args = [
        "tournament",
        "--format",
        "gauntlet",
        "--challenger",
        "builtin:greedy",
        "--sprt",
        "0,20",
        "--seed",
        "5",
        "--games",
        "3000",
        "--json",
        "--out",
        o,
        "builtin:greedy",
        "builtin:random",
    ];
    let run = durak_env(&args, tmp.path(), &[("DURAK_PROGRESS_INTERVAL_MS", "1")]);
    let err = text(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(
        err.contains("SPRT: H0 the challenger builtin:greedy is 0 Elo above the field, H1 20 Elo")
            && err.contains("it stops when the LLR leaves [-2.94, +2.94], at most 6000 games"),
        "{err}"
    );
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("progress:")).collect();
    assert!(
        progress.iter().all(|l| l.contains("(at most 6000)")
            && l.contains("LLR ")
            && l.contains("[-2.94, +2.94]")),
        "{err}"
    );
    assert!(
        err.contains("SPRT: decided after ")
            && err.contains("H1 accepted: the challenger is better"),
        "{err}"
    );
    let json: Value = serde_json::from_slice(&run.stdout).expect("JSON standings");
    let sprt = &json["sprt"];
    assert_eq!(sprt["decision"], "H1", "{sprt}");
    assert_eq!(sprt["params"]["elo1"], 20.0);
    assert!(sprt["llr"].as_f64().unwrap() >= sprt["upper"].as_f64().unwrap());
    let games = sprt["games"].as_u64().unwrap();
    assert_eq!(json["games_played"].as_u64(), Some(games));
    assert!(games < 6000);
    let lines = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(lines.lines().count() as u64, games);
    assert!(!out.join("pending.jsonl").exists());
    assert_eq!(
        std::fs::read_dir(out.join("replays")).unwrap().count() as u64,
        games
    );
    let toml = std::fs::read_to_string(out.join("tournament.toml")).unwrap();
    assert!(
        toml.contains("[tournament.sprt]") && toml.contains("elo1 = 20.0"),
        "{toml}"
    );

    let st = durak(&["standings", o], tmp.path());
    assert!(st.status.success());
    let st = text(&st.stdout);
    assert!(
        st.contains(&format!("{games} of 6000 games played"))
            && st.contains("LLR +")
            && st.contains("H1 accepted: the challenger is better (20 Elo rather than 0)"),
        "{st}"
    );

    let again = durak(&["tournament", "--resume", o], tmp.path());
    let e = text(&again.stderr);
    assert!(again.status.success(), "{e}");
    assert!(
        e.contains(&format!("finished: the SPRT decided after {games} games"))
            && e.contains("SPRT: decided in an earlier run"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl")).unwrap(),
        lines,
        "nothing more played"
    );

    let e = refused(&["tournament", "--resume", o, "--sprt", "0,10"], tmp.path());
    assert!(
        e.contains("sprt is 0,20,0.05,0.05 there and 0,10,0.05,0.05 here"),
        "{e}"
    );
}

/// In a gauntlet, each opponent's CSV row holds the challenger's pair against it (games,
/// score, Elo, paired and unpaired intervals, LOS, the deals 0-½-1-1½-2); the challenger's own
/// row leaves them empty.
#[test]
fn gauntlet_csv_rows_hold_the_challenger_against_each_opponent() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("g");
    let run = durak(
        &[
            "tournament",
            "-q",
            "--format",
            "gauntlet",
            "--challenger",
            "builtin:greedy",
            "--games",
            "20",
            "--seed",
            "3",
            "--csv",
            "--out",
            out.to_str().unwrap(),
            "builtin:greedy",
            "builtin:random",
        ],
        tmp.path(),
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let csv = text(&run.stdout);
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let header = &rows[0];
    assert!(rows.iter().all(|r| r.len() == header.len()), "{csv}");
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let random = rows
        .iter()
        .find(|r| r[col("bot")] == "builtin:random")
        .unwrap();
    let greedy = rows
        .iter()
        .find(|r| r[col("bot")] == "builtin:greedy")
        .unwrap();
    assert_eq!(random[col("challenger_games")], "40");
    assert_eq!(greedy[col("challenger_games")], "");
    let deals: u32 = [
        "challenger_deals_0",
        "challenger_deals_half",
        "challenger_deals_1",
        "challenger_deals_1half",
        "challenger_deals_2",
    ]
    .iter()
    .map(|c| random[col(c)].parse::<u32>().unwrap())
    .sum();
    assert_eq!(deals, 20);
    let score: f64 = random[col("challenger_score")].parse().unwrap();
    assert!(score > 0.5, "{csv}");
    let lo: f64 = random[col("challenger_elo_ci95_low")].parse().unwrap();
    let elo: f64 = random[col("challenger_elo")].parse().unwrap();
    assert!(lo < elo, "{csv}");
}
