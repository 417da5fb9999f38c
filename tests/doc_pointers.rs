//! Pointers into the documentation (`see docs/TOURNAMENTS.md, "SPRT: ..."`, `(README,
//! "Faults")`) name a file and a heading that exist: the README became a short first page and
//! its reference sections moved to `docs/` (issue 13), and a `--help` or a doc pointing at the
//! old place sends the reader nowhere. And the paths that comments and docs name
//! (`referee/src/replay.rs`, `schemas/replay.json`, a module's own file) are files that exist.
//! And the repository tracks no file that running the code writes (Python's byte code).

mod common;

use std::path::{Path, PathBuf};
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

/// The repository's files and folders (relative paths), without `target/`, `.git/` and other
/// hidden or generated folders.
fn tree() -> (
    std::collections::BTreeSet<PathBuf>,
    std::collections::BTreeSet<PathBuf>,
) {
    let mut files = std::collections::BTreeSet::new();
    let mut dirs = std::collections::BTreeSet::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(root().join(&d)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || ["target", "node_modules", "__pycache__"].contains(&&*name)
            {
                continue;
            }
            let rel = d.join(&name);
            if e.file_type().unwrap().is_dir() {
                dirs.insert(rel.clone());
                stack.push(rel);
            } else {
                files.insert(rel);
            }
        }
    }
    (files, dirs)
}

/// The extensions of the files a comment or a doc names.
const NAMED: [&str; 17] = [
    "rs", "json", "md", "toml", "js", "py", "sh", "html", "css", "yaml", "yml", "c", "go", "java",
    "ts", "cpp", "jsonl",
];

/// The paths a text names: words of path characters that end in a known extension (or in `/`,
/// a folder), with a `/` in them or, when `bare_rs`, a bare Rust file's name.
fn named_paths(text: &str, bare_rs: bool) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    text.split(|c: char| !is_path_char(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty() && !w.starts_with(['/', '.', '-']))
        .filter(|w| {
            let ext = w.rsplit_once('.').map(|(_, e)| e);
            let file = ext.is_some_and(|e| NAMED.contains(&e)) && !w.ends_with('/');
            if w.contains('/') {
                file || (w.ends_with('/') && w.len() > 1)
            } else {
                bare_rs && ext == Some("rs")
            }
        })
        .map(str::to_string)
        .collect()
}

/// Comments (of Rust, shell, Python, TOML, YAML, JavaScript and the starter kits' languages)
/// and docs name files and folders that exist: the replay line's schema, the service's worker
/// module and its API module were once named by their old names long after they were renamed. A path is looked for from the repository's root, the naming file's folder, its
/// crate's root and `src/`, and (a Rust file) its module's folder; a path whose first folder
/// is none of these (`DIR/tournament.toml`, `my-bot/bot.py`) is an example, not a pointer.
#[test]
fn comments_and_docs_name_files_that_exist() {
    let (files, dirs) = tree();
    let crate_of = |f: &Path| {
        f.ancestors()
            .skip(1)
            .find(|d| files.contains(&d.join("Cargo.toml")))
            .unwrap_or(Path::new(""))
            .to_path_buf()
    };
    let mut bad = Vec::new();
    let mut checked = 0;
    for f in &files {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let rust = ext == "rs";
        // Where a file's comments are: every line of a doc, lines starting so elsewhere.
        let comment: &[&str] = match ext {
            "md" => &[""],
            "rs" => &["//"],
            "sh" | "py" | "toml" | "yaml" | "yml" => &["#"],
            "js" | "ts" | "css" | "c" | "cpp" | "go" | "java" => &["//", "/*", "*"],
            _ => continue,
        };
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        let dir = f.parent().unwrap().to_path_buf();
        let krate = crate_of(f);
        let module = if f.file_stem().is_some_and(|s| s == "mod" || s == "lib") {
            dir.clone()
        } else {
            dir.join(f.file_stem().unwrap())
        };
        let bases = [PathBuf::new(), dir, krate.join("src"), krate, module];
        for (n, line) in text.lines().enumerate() {
            if !comment.iter().any(|c| line.trim_start().starts_with(c)) {
                continue;
            }
            for p in named_paths(line, rust) {
                let first = p.split('/').next().unwrap();
                if p.contains('/') && !bases.iter().any(|b| dirs.contains(&b.join(first))) {
                    continue;
                }
                let target = p.trim_end_matches('/');
                let found = if p.ends_with('/') {
                    bases.iter().any(|b| dirs.contains(&b.join(target)))
                } else {
                    bases.iter().any(|b| files.contains(&b.join(target)))
                };
                checked += 1;
                if !found {
                    bad.push(format!("{}:{}: {p}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(checked > 200, "{checked} pointers checked");
    assert!(
        bad.is_empty(),
        "these name no file or folder of the repository (fix the name, or the comment):\n{}",
        bad.join("\n")
    );
}

/// The repository tracks sources, not what running them writes: Python's byte code (a `.pyc`
/// in the `__pycache__` folder beside the Python sample bots) was tracked, and every game of a
/// Python sample bot rewrote it, so a checkout was never clean after the tests. `.gitignore`
/// keeps it out.
#[test]
fn the_repository_tracks_no_build_output() {
    let Some(git) = common::require_with("git", "git", || {
        let git = common::which("git").ok_or("not found on PATH")?;
        let inside = Command::new(&git)
            .args(["rev-parse", "--is-inside-work-tree"])
            .current_dir(root())
            .output()
            .map_err(|e| e.to_string())?;
        if !inside.status.success() {
            return Err(format!("{} is not a git checkout", root().display()));
        }
        Ok(git)
    }) else {
        return;
    };
    let git = |args: &[&str]| {
        let out = Command::new(&git)
            .args(args)
            .current_dir(root())
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8(out.stdout).unwrap())
    };
    let (_, tracked) = git(&["ls-files"]);
    assert!(tracked.lines().count() > 100, "git ls-files: {tracked}");
    let outputs: Vec<&str> = tracked
        .lines()
        .filter(|f| {
            f.split('/')
                .any(|part| part == "__pycache__" || part == "target")
                || [".pyc", ".class", ".o"].iter().any(|e| f.ends_with(e))
        })
        .collect();
    assert!(
        outputs.is_empty(),
        "tracked files that running the code writes (git rm --cached them, and ignore them in \
         .gitignore):\n{}",
        outputs.join("\n")
    );
    for written in [
        "sample-bots/python/__pycache__/random_bot.cpython-311.pyc",
        "sample-bots/python/__pycache__/heuristic_bot.cpython-313.pyc",
    ] {
        let (ignored, _) = git(&["check-ignore", "-q", "--no-index", written]);
        assert!(
            ignored,
            "{written} is not ignored: add its pattern to .gitignore"
        );
    }
}
