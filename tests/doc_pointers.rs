//! Pointers into the documentation (`see docs/TOURNAMENTS.md, "SPRT: ..."`, `(README,
//! "Faults")`) name a file and a heading that exist: the README became a short first page and
//! its reference sections moved to `docs/` (issue 13), and a `--help` or a doc pointing at the
//! old place sends the reader nowhere.

use std::path::Path;
use std::process::Command;

const DURAK: &str = env!("CARGO_BIN_EXE_durak");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The headings of a markdown file, without their `#`s.
fn headings(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .collect()
}

/// Every `FILE, "Heading"` in `text` (FILE: `the README`, `README`, `README.md` or a path
/// ending in `.md`), with the file resolved from `base`; and every bare "the README" (which
/// names no heading).
fn pointers(text: &str, base: &Path) -> (Vec<(std::path::PathBuf, String)>, usize) {
    let mut out = Vec::new();
    let mut bare = 0;
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (i, _) in flat.match_indices(", \"") {
        let before = &flat[..i];
        let word = before
            .rsplit([' ', '(', '['])
            .next()
            .unwrap_or("")
            .trim_matches('`');
        let file = if word == "README" || word == "README.md" {
            root().join("README.md")
        } else if word.ends_with(".md") {
            let p = base.join(word);
            if p.is_file() {
                p
            } else {
                root().join(word)
            }
        } else {
            continue;
        };
        let rest = &flat[i + 3..];
        let heading = rest.split('"').next().unwrap().to_string();
        out.push((file, heading));
    }
    for (i, _) in flat.match_indices("the README") {
        if !flat[i + "the README".len()..].starts_with(", \"") {
            bare += 1;
        }
    }
    (out, bare)
}

fn check(what: &str, text: &str, base: &Path) -> usize {
    let (found, bare) = pointers(text, base);
    assert_eq!(bare, 0, "{what} says \"see the README\" without a heading");
    for (file, heading) in &found {
        assert!(
            headings(file).iter().any(|h| h == heading),
            "{what} points at {}, \"{heading}\": no such heading (headings: {:?})",
            file.display(),
            headings(file)
        );
    }
    found.len()
}

#[test]
fn help_texts_point_at_headings_that_exist() {
    let mut n = 0;
    for cmd in [
        "play",
        "tournament",
        "merge",
        "standings",
        "replay",
        "rerun",
        "check-bot",
        "submit",
        "serve",
        "worker",
        "worker-token",
    ] {
        let o = Command::new(DURAK).args([cmd, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        n += check(&format!("durak {cmd} --help"), &text, root());
    }
    assert!(n > 0, "the help texts point somewhere");
}

#[test]
fn docs_point_at_headings_that_exist() {
    let mut files = vec![root().join("README.md")];
    for e in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "md") {
            files.push(e.path());
        }
    }
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        check(&f.display().to_string(), &text, f.parent().unwrap());
    }
}
