//! What a strict-mode bot sees of the host: its own files, read-only, and nothing else. Its
//! working directory when it is its own (or, when it has none or only starts there, the
//! directories of the files its command names), the program, the scripts, reached through any
//! symlinks (each symlink on the way is made again in the sandbox,
//! so the paths the organiser wrote work); minus whatever must stay hidden: the paths the
//! referee names (replays, the tournament's directory and configuration, other bots' files) and
//! whatever looks like a tournament's or a match's records inside the visible directories,
//! found by a scan ([`sensitive`]), whatever the layout of folders.

use super::paths::{canonical, depth, is_system_path};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The host as a strict bot sees it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct View {
    /// Directories shown read-only at their canonical paths.
    pub dirs: Vec<PathBuf>,
    /// Files shown read-only at their canonical paths (not inside `dirs`).
    pub files: Vec<PathBuf>,
    /// Symlinks to make again: (target as the link holds it, where the link is).
    pub links: Vec<(PathBuf, PathBuf)>,
    /// Canonical paths inside `dirs` left out.
    pub hidden: Vec<PathBuf>,
    /// The working directory inside the sandbox (canonical), if one is configured.
    pub chdir: Option<PathBuf>,
    /// Whether `chdir` is only where the bot starts (not shown): the sandbox makes it, empty
    /// but for what the bot's command names inside it.
    pub chdir_made: bool,
}

/// Entries a scan looks at, at most, over a bot's visible directories.
pub(crate) const SCAN_LIMIT: usize = 200_000;

/// What a strict bot sees. `cwd`: its configured working directory (absolute), shown when
/// `cwd_own`; otherwise only where it starts (`Isolation::foreign_cwd`, a tournament's bot
/// without a `cwd` of its own, which starts in the configuration's directory): then the bot
/// sees what its command names, as a bot without a working directory does, and never a
/// directory holding that one (a file named at its top is shown alone). `program`: the
/// program when it is a path (absolute); `args`: the arguments that name existing files
/// (absolute); `hidden`: what the referee says must not be seen.
pub(crate) fn view(
    spec: &str,
    (cwd, cwd_own): (Option<&Path>, bool),
    program: Option<&Path>,
    args: &[PathBuf],
    hidden: &[PathBuf],
) -> io::Result<View> {
    let mut v = View::default();
    // The bot's own paths, canonical, and the places of the symlinks that lead there.
    let mut own: Vec<PathBuf> = Vec::new();
    let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut take = |p: &Path, own: &mut Vec<PathBuf>| -> PathBuf {
        let (real, mut on_the_way) = resolve(p);
        own.push(real.clone());
        own.extend(on_the_way.iter().map(|(_, at)| at.clone()));
        links.append(&mut on_the_way);
        real
    };
    // Where the bot starts when that is not its own directory (canonical): nothing holding
    // it is shown whole.
    let mut start_only: Option<PathBuf> = None;
    match cwd {
        Some(c) if cwd_own => {
            let real = take(c, &mut own);
            v.dirs.push(real.clone());
            v.chdir = Some(real);
        }
        Some(c) => {
            let (real, _) = resolve(c);
            v.chdir = Some(real.clone());
            v.chdir_made = true;
            start_only = Some(real);
        }
        None => {}
    }
    let holds_start = |d: &Path| start_only.as_ref().is_some_and(|s| s.starts_with(d));
    if let Some(p) = program {
        if !is_system_path(p) {
            let real = take(p, &mut own);
            if !is_system_path(&real) {
                v.files.push(real);
            }
        }
    }
    for a in args {
        if is_system_path(a) {
            continue;
        }
        let real = take(a, &mut own);
        if is_system_path(&real) {
            continue;
        }
        if real.is_dir() {
            if holds_start(&real) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "bot {spec:?}: strict mode shows a bot only its own files, and its \
                         command names {}, which holds the directory it starts in ({}, not \
                         its own: a tournament's [[bot]] without `cwd` starts in the \
                         configuration's directory): give the bot a `cwd` of its own, or name \
                         its files and directories inside it",
                        real.display(),
                        start_only.as_deref().unwrap_or(Path::new("")).display()
                    ),
                ));
            }
            v.dirs.push(real);
        } else if cwd.is_some() && cwd_own {
            v.files.push(real);
        } else {
            // Without a working directory of its own: the file's directory (sibling modules,
            // data), unless that directory is a top-level one (/tmp, /home) or holds where
            // the bot starts (a configuration's directory): then the file alone.
            match real.parent() {
                Some(parent) if depth(parent) >= 2 && !holds_start(parent) => {
                    v.dirs.push(parent.to_path_buf())
                }
                _ => v.files.push(real),
            }
        }
    }
    if let Some(d) = v.dirs.iter().find(|d| depth(d) < 2) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "bot {spec:?}: strict mode shows a bot only its own directory, and {} is not \
                 one (a top-level directory): move the bot into a directory of its own",
                d.display()
            ),
        ));
    }
    v.dirs.sort();
    v.dirs.dedup();
    // A directory inside another is shown by it.
    let dirs = v.dirs.clone();
    v.dirs
        .retain(|d| !dirs.iter().any(|o| o != d && d.starts_with(o)));
    v.files.sort();
    v.files.dedup();
    v.files.retain(|f| !v.dirs.iter().any(|d| f.starts_with(d)));
    // Symlinks inside a shown directory are there already, and so are those of the system
    // (a virtual environment's `bin/python3` leads to `/usr/bin/python3`, itself a link to
    // `python3.11`: the read-only `/usr` holds it, and making it again would fail).
    links.sort();
    links.dedup();
    links.retain(|(_, at)| !is_system_path(at) && !v.dirs.iter().any(|d| at.starts_with(d)));
    v.links = links;

    // What stays hidden: what the referee names, and what the scan finds; never the bot's own
    // files or a directory holding them (it could not run without them), and only what a
    // shown directory holds.
    let here = std::env::current_dir()?;
    let mut out: Vec<PathBuf> = hidden.iter().map(|h| canonical(&here, h)).collect();
    for d in &v.dirs {
        out.extend(sensitive(d)?);
    }
    out.retain(|h| {
        !own.iter().any(|o| o.starts_with(h)) && v.dirs.iter().any(|d| h.starts_with(d) && h != d)
    });
    out.sort();
    out.dedup();
    v.hidden = out;
    Ok(v)
}

/// The canonical form of `p` (absolute), and every symlink met on the way: (its target as it
/// holds it, where it is). A path that does not exist resolves as far as it exists.
pub(crate) fn resolve(p: &Path) -> (PathBuf, Vec<(PathBuf, PathBuf)>) {
    let mut links = Vec::new();
    let mut todo: Vec<OsString> = p
        .components()
        .rev()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    let mut cur = PathBuf::from("/");
    let mut hops = 0;
    while let Some(c) = todo.pop() {
        if c == ".." {
            cur.pop();
            continue;
        }
        let next = cur.join(&c);
        match std::fs::read_link(&next) {
            Ok(target) if hops < 40 => {
                hops += 1;
                links.push((target.clone(), next));
                if target.is_absolute() {
                    cur = PathBuf::from("/");
                }
                for t in target.components().rev() {
                    match t {
                        Component::Normal(n) => todo.push(n.to_os_string()),
                        Component::ParentDir => todo.push("..".into()),
                        _ => {}
                    }
                }
            }
            _ => cur = next,
        }
    }
    (cur, links)
}

/// Inside `dir`: what looks like a tournament's or a match's records, for any layout of
/// folders. A tournament directory (it holds `tournament.toml` or `results.jsonl`: its seed,
/// its results, its replays), a configuration file (a `.toml` with a `[tournament]` table or
/// `[[bot]]` entries: it may hold the seed), a directory named `replays`, a replay (a `.jsonl`
/// whose first line is a replay header; a compressed one, `.jsonl.zst`). The scan does not
/// follow symlinks and looks at [`SCAN_LIMIT`] entries at most: a bigger directory is refused
/// (it cannot be checked). Results are kept a few seconds, for the bots of a tournament
/// started together.
pub(crate) fn sensitive(dir: &Path) -> io::Result<Vec<PathBuf>> {
    type Cache = Mutex<HashMap<PathBuf, (Instant, Vec<PathBuf>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((at, found)) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(dir) {
        if at.elapsed() < Duration::from_secs(10) {
            return Ok(found.clone());
        }
    }
    let found = scan(dir, SCAN_LIMIT)?;
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(dir.to_path_buf(), (Instant::now(), found.clone()));
    Ok(found)
}

fn scan(root: &Path, limit: usize) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let entries: Vec<_> = entries.flatten().collect();
        seen += entries.len();
        if seen > limit {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "strict mode checks that a bot's directory holds no tournament files \
                     (seeds, results, replays), and {} holds more than {limit} entries: give \
                     the bot a smaller directory of its own (cwd)",
                    root.display()
                ),
            ));
        }
        let names: Vec<OsString> = entries.iter().map(|e| e.file_name()).collect();
        if names
            .iter()
            .any(|n| n == "tournament.toml" || n == "results.jsonl")
        {
            // The directory, and (for when it is the bot's own) what is sensitive in it.
            found.push(dir.clone());
            for n in ["tournament.toml", "results.jsonl", "replays"] {
                if names.iter().any(|x| x == n) {
                    found.push(dir.join(n));
                }
            }
            // Go on inside: when the directory is the bot's own it stays shown, and what it
            // holds must be checked.
        }
        for e in entries {
            let path = e.path();
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name();
            let name = name.to_string_lossy();
            if ft.is_dir() {
                if name == "replays" {
                    found.push(path);
                } else {
                    stack.push(path);
                }
            } else if ft.is_file()
                && ((name.ends_with(".toml") && is_tournament_config(&path))
                    || (name.ends_with(".jsonl") && is_replay(&path))
                    || name.ends_with(".jsonl.zst"))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// A TOML file with a `[tournament]` table (or `[tournament.*]`) or `[[bot]]` entries.
fn is_tournament_config(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if meta.len() > 4 << 20 {
        return true; // too big to read for a check: treated as one
    }
    let Ok(text) = std::fs::read(p) else {
        return false;
    };
    String::from_utf8_lossy(&text).lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("[tournament]")
            || l.starts_with("[tournament.")
            || l.starts_with("[[bot]]")
            || l.starts_with("[[ bot ]]")
    })
}

/// A JSON-lines file whose first line is a replay header.
fn is_replay(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 64];
    let Ok(mut f) = std::fs::File::open(p) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    let head: String = String::from_utf8_lossy(&head[..n])
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    head.starts_with("{\"type\":\"header\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlinks_on_the_way_are_found() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("real/sub")).unwrap();
        std::fs::write(root.join("real/sub/bot.sh"), "").unwrap();
        symlink(root.join("real"), root.join("link")).unwrap();
        symlink("sub/bot.sh", root.join("real/entry.sh")).unwrap();
        let (real, links) = resolve(&root.join("link/entry.sh"));
        assert_eq!(real, root.join("real/sub/bot.sh"));
        assert_eq!(
            links,
            vec![
                (root.join("real"), root.join("link")),
                (PathBuf::from("sub/bot.sh"), root.join("real/entry.sh"))
            ]
        );
        // `..` after a symlink is taken from its target, as the kernel does.
        let (real, _) = resolve(&root.join("link/sub/../entry.sh"));
        assert_eq!(real, root.join("real/sub/bot.sh"));
        // A loop ends.
        symlink(root.join("loop"), root.join("loop")).unwrap();
        let _ = resolve(&root.join("loop/x"));
    }

    #[test]
    fn the_scan_finds_records_in_any_layout() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().canonicalize().unwrap();
        let w = |p: &str, text: &str| {
            let p = d.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("bot.py", "print()");
        w("notes.toml", "[other]\nx = 1\n");
        w("contest.toml", "# mine\n[tournament]\nseed = 42\n");
        w("deep/er/bots.toml", "[[bot]]\nname = \"a\"\n");
        w("old/t-42/tournament.toml", "[tournament]\n");
        w("old/t-42/results.jsonl", "{}\n");
        w(
            "plays/p/game-0000.jsonl",
            "{\"type\": \"header\", \"format\": 1}\n",
        );
        w("plays/p/data.jsonl", "{\"x\": 1}\n");
        w("x/replays/a.jsonl", "");
        w("y/game.jsonl.zst", "");
        let mut found = scan(&d, 1000).unwrap();
        found.sort();
        let rel: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(&d).unwrap().display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                "contest.toml",
                "deep/er/bots.toml",
                "old/t-42",
                "old/t-42/results.jsonl",
                "old/t-42/tournament.toml",
                "plays/p/game-0000.jsonl",
                "x/replays",
                "y/game.jsonl.zst"
            ]
        );
        // Too many entries to check: refused, with the fix.
        let e = scan(&d, 3).unwrap_err();
        assert!(
            e.to_string().contains("smaller directory of its own"),
            "{e}"
        );
    }

    #[test]
    fn a_view_keeps_own_files_and_hides_the_rest() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(d.join("contest/out/t-1")).unwrap();
        std::fs::write(d.join("contest/out/t-1/tournament.toml"), "[tournament]\n").unwrap();
        std::fs::write(d.join("contest/tournament.toml"), "[tournament]\nseed=1\n").unwrap();
        std::fs::write(d.join("contest/alice.py"), "").unwrap();
        std::fs::write(d.join("contest/bob.py"), "").unwrap();
        // Alice: no cwd of her own, the configuration's directory; Bob's script is hidden
        // from her, as are the configuration and the output.
        let v = view(
            "python3 alice.py",
            (Some(&d.join("contest")), true),
            None,
            &[d.join("contest/alice.py")],
            &[d.join("contest/bob.py"), d.join("contest")],
        )
        .unwrap();
        assert_eq!(v.dirs, vec![d.join("contest")]);
        assert_eq!(
            v.hidden,
            vec![
                d.join("contest/bob.py"),
                d.join("contest/out/t-1"),
                d.join("contest/out/t-1/tournament.toml"),
                d.join("contest/tournament.toml"),
            ]
        );
        // Reached through a symlink: the link is made again, the real directory shown.
        symlink(d.join("contest"), d.join("via")).unwrap();
        let v = view("x", (Some(&d.join("via")), true), None, &[], &[]).unwrap();
        assert_eq!(v.dirs, vec![d.join("contest")]);
        assert_eq!(v.links, vec![(d.join("contest"), d.join("via"))]);
        assert_eq!(v.chdir, Some(d.join("contest")));
    }

    /// A program reached through links that end in the system (a virtual environment's
    /// `bin/python` -> `python3` -> `/usr/bin/python3` -> `python3.11`): the links outside it
    /// are made again, none inside `/usr` or `/bin` (there already, read-only: bubblewrap
    /// cannot make a link there).
    #[test]
    fn links_into_the_system_are_not_made_again() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(d.join("venv/bin")).unwrap();
        symlink("/bin/sh", d.join("venv/bin/sh3")).unwrap();
        symlink("sh3", d.join("venv/bin/sh")).unwrap();
        let program = d.join("venv/bin/sh");
        let v = view("venv/bin/sh", (None, false), Some(&program), &[], &[]).unwrap();
        assert_eq!(
            v.links,
            vec![
                (PathBuf::from("/bin/sh"), d.join("venv/bin/sh3")),
                (PathBuf::from("sh3"), d.join("venv/bin/sh")),
            ]
        );
        assert!(v.files.is_empty() && v.dirs.is_empty(), "{v:?}");
    }

    #[test]
    fn a_start_directory_that_is_not_the_bots_own_is_never_shown() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().canonicalize().unwrap();
        let c = d.join("contest");
        for f in [
            "bots/spy/spy.py",
            "bots/spy/model.bin",
            "top.py",
            "contest.conf",
        ] {
            std::fs::create_dir_all(c.join(f).parent().unwrap()).unwrap();
            std::fs::write(c.join(f), "").unwrap();
        }
        let start = (Some(c.as_path()), false);
        // A script in a folder of its own: that folder (its modules, its data), nothing else.
        let v = view(
            "python3 bots/spy/spy.py",
            start,
            None,
            &[c.join("bots/spy/spy.py")],
            &[],
        )
        .unwrap();
        assert_eq!(v.dirs, vec![c.join("bots/spy")]);
        assert!(v.files.is_empty());
        assert_eq!(
            (v.chdir.as_deref(), v.chdir_made),
            (Some(c.as_path()), true)
        );
        // A script at the top of the start directory (the configuration's): the file alone,
        // whatever else lies beside it.
        let v = view("python3 top.py", start, None, &[c.join("top.py")], &[]).unwrap();
        assert!(v.dirs.is_empty(), "{v:?}");
        assert_eq!(v.files, vec![c.join("top.py")]);
        // Naming the start directory itself (`java -cp . Bot`), or one holding it: refused.
        for named in [c.clone(), d.clone()] {
            let e = view("java -cp . Bot", start, None, &[named], &[]).unwrap_err();
            assert!(
                e.to_string().contains("give the bot a `cwd` of its own"),
                "{e}"
            );
        }
        // The same directory given as the bot's own is shown whole.
        let v = view(
            "python3 top.py",
            (Some(c.as_path()), true),
            None,
            &[c.join("top.py")],
            &[],
        )
        .unwrap();
        assert_eq!(v.dirs, vec![c.clone()]);
        assert!(!v.chdir_made);
    }
}
