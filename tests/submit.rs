//! Issue 7: `durak submit PATH`: a bot folder with a `bot.toml` is checked with check-bot and
//! registered in a tournament configuration that `durak tournament --config` then runs; a
//! failing bot is refused with the report; a bad `bot.toml` or a duplicate name is refused with
//! the file, the key and the fix. The bots are `sh` scripts, so no interpreter is needed.

mod common;

use common::durak;
use serde_json::Value;
use std::path::Path;

/// Output folded into single spaces (messages are wrapped).
fn flat(b: &[u8]) -> String {
    String::from_utf8_lossy(b)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A minimal legal bot: first card of legal.hand to attack, take or beat nothing, pass.
/// `DEFENCE` is its podkidnoy defence.
const BOT_SH: &str = r#"read -r line
echo '{"type":"hello","protocol":1,"name":"sh-bot","version":"1"}'
while read -r line; do
  case "$line" in
    *'"type":"request"'*)
      id=$(printf '%s' "$line" | sed -n 's/.*"type":"request","id":\([0-9]*\).*/\1/p')
      case "$line" in
        *'"decision":"attack"'*)
          card=$(printf '%s' "$line" | sed -n 's/.*"legal":{"hand":\["\([^"]*\)".*/\1/p')
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"attack\",\"cards\":[\"$card\"]}";;
        *'"decision":"defend"'*'"must_cover_all":true'*)
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"DEFENCE\"}";;
        *'"decision":"defend"'*)
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"defend\",\"pairs\":[]}";;
        *)
          echo "{\"type\":\"answer\",\"id\":$id,\"action\":\"pass\"}";;
      esac;;
    *'"type":"match_end"'*) exit 0;;
  esac
done
"#;

/// A bot folder `root/bots/NAME` with bot.sh and the given bot.toml.
fn bot_folder(root: &Path, name: &str, defence: &str, manifest: &str) {
    let dir = root.join("bots").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bot.sh"), BOT_SH.replace("DEFENCE", defence)).unwrap();
    std::fs::write(dir.join("bot.toml"), manifest).unwrap();
}

fn manifest(name: &str) -> String {
    format!(
        "name = \"{name}\"\ncommand = \"sh bot.sh\"\nlanguage = \"sh\"\nauthor = \"Test Author\"\n"
    )
}

#[test]
fn a_checked_bot_is_registered_and_the_tournament_runs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    bot_folder(root, "alpha", "take", &manifest("alpha"));
    bot_folder(root, "beta", "take", &manifest("beta"));

    let out = durak(
        &["submit", "bots/alpha", "--games", "1", "--long", "0"],
        root,
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        flat(&out.stdout),
        flat(&out.stderr)
    );
    assert!(flat(&out.stdout).contains("PASSED"));
    assert!(flat(&out.stderr).contains("REGISTERED: \"alpha\""));
    let config = std::fs::read_to_string(root.join("tournament.toml")).unwrap();
    assert!(config.starts_with("# A Durak tournament"), "{config}");
    assert!(
        config.contains("[[bot]]\nname = \"alpha\"\ncommand = \"sh bot.sh\"\ncwd = \"bots/alpha\""),
        "{config}"
    );
    assert!(config.contains("(sh, by Test Author)"), "{config}");

    // A second bot goes after the first; the first entry, and comments, are kept.
    let out = durak(
        &["submit", "bots/beta", "--games", "1", "--long", "0"],
        root,
    );
    assert!(out.status.success(), "{}", flat(&out.stderr));
    let config2 = std::fs::read_to_string(root.join("tournament.toml")).unwrap();
    assert!(config2.starts_with(&config), "appended:\n{config2}");
    assert!(config2.contains("name = \"beta\""));
    assert!(flat(&out.stderr).contains("2 bots now"));

    // The organiser runs the tournament from the file: both bots load and play.
    let out = durak(
        &[
            "tournament",
            "--config",
            "tournament.toml",
            "--games",
            "1",
            "--seed",
            "3",
            "--quiet",
            "--json",
            "--out",
            "out",
        ],
        root,
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        flat(&out.stdout),
        flat(&out.stderr)
    );
    let standings = flat(&out.stdout);
    assert!(
        standings.contains("\"alpha\"") && standings.contains("\"beta\""),
        "{standings}"
    );

    // The same name again is refused before any check, and the file is unchanged.
    let out = durak(&["submit", "bots/alpha"], root);
    assert_eq!(out.status.code(), Some(2), "{}", flat(&out.stderr));
    let err = flat(&out.stderr);
    assert!(
        err.contains("already has a bot with this name") && err.contains("fix:"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("tournament.toml")).unwrap(),
        config2
    );
}

#[test]
fn a_failing_bot_is_refused_with_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Passing as a podkidnoy defender breaks K-7.
    bot_folder(root, "broken", "pass", &manifest("broken"));
    std::fs::write(
        root.join("t.toml"),
        "# my tournament\n[tournament]\nvariant = \"podkidnoy\"\n",
    )
    .unwrap();
    let out = durak(
        &[
            "submit",
            "bots/broken",
            "--tournament",
            "t.toml",
            "--games",
            "1",
            "--long",
            "0",
        ],
        root,
    );
    assert_eq!(out.status.code(), Some(1));
    let report = flat(&out.stdout);
    assert!(report.contains("FAILED"), "{report}");
    assert!(
        report.contains("what was wrong: an illegal move, rule K-7"),
        "{report}"
    );
    assert!(report.contains("how to fix it"), "{report}");
    // Only the tournament's variant was checked.
    assert!(report.contains("variants: podkidnoy;"), "{report}");
    assert!(flat(&out.stderr).contains("REFUSED: \"broken\" was not registered"));
    assert_eq!(
        std::fs::read_to_string(root.join("t.toml")).unwrap(),
        "# my tournament\n[tournament]\nvariant = \"podkidnoy\"\n"
    );

    // --json: the report for machines, with the verdict.
    let out = durak(
        &[
            "submit",
            "bots/broken",
            "--tournament",
            "t.toml",
            "--games",
            "0",
            "--long",
            "0",
            "--json",
        ],
        root,
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(v["passed"], false);
    assert_eq!(v["variants"], serde_json::json!(["podkidnoy"]));
}

#[test]
fn bad_manifests_are_refused_with_the_file_the_key_and_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let refused = |folder: &str| {
        let out = durak(&["submit", folder, "--games", "0"], root);
        assert_eq!(out.status.code(), Some(2), "{}", flat(&out.stdout));
        assert!(
            !root.join("tournament.toml").exists(),
            "nothing is registered"
        );
        flat(&out.stderr)
    };

    bot_folder(
        root,
        "extra",
        "take",
        &format!("{}version = \"2\"\n", manifest("extra")),
    );
    let e = refused("bots/extra");
    assert!(
        e.contains("bots/extra/bot.toml") && e.contains("version"),
        "{e}"
    );
    assert!(e.contains("fix: remove or rename that key"), "{e}");

    bot_folder(
        root,
        "noauthor",
        "take",
        "name = \"x\"\ncommand = \"sh bot.sh\"\nlanguage = \"sh\"\n",
    );
    let e = refused("bots/noauthor");
    assert!(
        e.contains("author") && e.contains("fix: add the missing key"),
        "{e}"
    );

    bot_folder(root, "badname", "take", &manifest("my bot!"));
    let e = refused("bots/badname");
    assert!(
        e.contains("name = \"my bot!\"") && e.contains("fix:"),
        "{e}"
    );

    std::fs::create_dir_all(root.join("bots/empty")).unwrap();
    let e = refused("bots/empty");
    assert!(e.contains("bot.toml") && e.contains("cannot read"), "{e}");

    let e = refused("bots/nowhere");
    assert!(e.contains("not a folder"), "{e}");
}

/// `durak submit .` (and `durak submit bot.toml`) from inside the bot's folder.
#[test]
fn submit_works_from_inside_the_bot_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    bot_folder(root, "here", "take", &manifest("here"));
    let folder = root.join("bots/here");
    for (arg, tournament) in [(".", "../../t1.toml"), ("bot.toml", "../../t2.toml")] {
        let out = durak(
            &[
                "submit", arg, "-t", tournament, "--games", "0", "--long", "0",
            ],
            &folder,
        );
        assert!(
            out.status.success(),
            "durak submit {arg}: {}\n{}",
            flat(&out.stdout),
            flat(&out.stderr)
        );
        let config = std::fs::read_to_string(folder.join(tournament)).unwrap();
        assert!(
            config.contains("name = \"here\"") && config.contains("cwd = \"bots/here\""),
            "{config}"
        );
    }
}

/// bot.toml's `build` runs in the bot's folder before the check; a failed build, or one over
/// its time limit, is refused with its output, and nothing is registered.
#[test]
fn the_build_runs_before_the_check_and_a_failed_build_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // The build makes bot.sh from its source.
    let with_build = |name: &str, build: &str| {
        bot_folder(
            root,
            name,
            "take",
            &format!("{}build = {build:?}\n", manifest(name)),
        );
        let dir = root.join("bots").join(name);
        std::fs::rename(dir.join("bot.sh"), dir.join("bot.sh.in")).unwrap();
    };
    with_build("built", "echo building; cp bot.sh.in bot.sh");
    let out = durak(
        &["submit", "bots/built", "--games", "0", "--long", "0"],
        root,
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        flat(&out.stdout),
        flat(&out.stderr)
    );
    assert!(flat(&out.stderr).contains("build: echo building; cp bot.sh.in bot.sh"));
    assert!(root.join("bots/built/bot.sh").exists());

    with_build("broken", "echo 'bot.c:3: error: expected ;' >&2; exit 2");
    let out = durak(
        &["submit", "bots/broken", "--games", "0", "--long", "0"],
        root,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = flat(&out.stdout);
    assert!(
        text.contains("the build exited with code 2") && text.contains("| bot.c:3: error"),
        "{text}"
    );
    assert!(flat(&out.stderr).contains("REFUSED: \"broken\""));

    with_build("slow", "sleep 60");
    let out = durak(
        &[
            "submit",
            "bots/slow",
            "--games",
            "0",
            "--long",
            "0",
            "--build-timeout-s",
            "1",
        ],
        root,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        flat(&out.stdout).contains("did not finish within 1 s"),
        "{}",
        flat(&out.stdout)
    );
    let config = std::fs::read_to_string(root.join("tournament.toml")).unwrap();
    assert!(
        config.contains("\"built\"")
            && !config.contains("\"broken\"")
            && !config.contains("\"slow\""),
        "{config}"
    );
}
