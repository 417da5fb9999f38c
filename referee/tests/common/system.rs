//! System programs the tests need (bubblewrap, Chromium, python3, node, a C compiler, ...).
//!
//! On a machine without one, a test that needs it is skipped, and says so where it is seen:
//! a `SKIPPED <test>: needs <program> (apt-get install <package>)` line on the real stderr (the
//! test harness captures `eprintln!`, not this), and, when the test binary ends, after cargo's
//! `test result:` line, a summary of every test of that binary that was skipped and why.
//!
//! Where the programs must be there (CI, whose `.ci/run` installs them), set `CI` (any value but
//! `0`/`false`) or `DURAK_REQUIRE_SYSTEM_TESTS=1`: a missing program then fails the test, with the
//! install command. `DURAK_TEST_PRETEND_MISSING=bwrap,chromium,...` makes the tests act as if
//! those programs were missing (to check the skips without uninstalling anything): the names are
//! the first argument of [`require`] and [`require_with`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The skips of this test binary, printed when it ends.
static SKIPPED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Whether a missing program fails the test instead of skipping it.
pub fn required() -> bool {
    let set =
        |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    set("CI") || set("DURAK_REQUIRE_SYSTEM_TESTS")
}

/// Whether `DURAK_TEST_PRETEND_MISSING` names `program`.
pub fn pretend_missing(program: &str) -> bool {
    std::env::var("DURAK_TEST_PRETEND_MISSING")
        .is_ok_and(|v| v.split(',').any(|p| p.trim() == program))
}

/// The running test's name (libtest names each test's thread after it).
fn test_name() -> String {
    std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("a test")
        .to_string()
}

/// This test binary's name: `hostile` for `target/debug/deps/hostile-0123abcd`.
fn binary_name() -> String {
    let exe = std::env::args().next().unwrap_or_default();
    let stem = Path::new(&exe)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_string(),
        _ => stem,
    }
}

extern "C" fn print_summary() {
    let skipped = match SKIPPED.lock() {
        Ok(s) => s.clone(),
        Err(e) => e.into_inner().clone(),
    };
    if skipped.is_empty() {
        return;
    }
    let mut out = format!(
        "\nSKIPPED in {}: {} test{} (or part{}) for want of a system program; \
         CI=1 or DURAK_REQUIRE_SYSTEM_TESTS=1 makes that a failure:\n",
        binary_name(),
        skipped.len(),
        if skipped.len() == 1 { "" } else { "s" },
        if skipped.len() == 1 { "" } else { "s" },
    );
    for s in &skipped {
        out.push_str(&format!("  {s}\n"));
    }
    let _ = std::io::stderr().write_all(out.as_bytes());
}

/// Note a skip: now on the real stderr, and in the summary at the end of the binary.
fn note_skip(line: String) {
    let _ = writeln!(std::io::stderr(), "{line}");
    let mut skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if skipped.is_empty() {
        // SAFETY: registers a plain `extern "C" fn` that takes no argument, as atexit(3) wants.
        unsafe {
            libc::atexit(print_summary);
        }
    }
    skipped.push(line.trim_start_matches("SKIPPED ").to_string());
}

/// What the running test needs, found by `find` (its path, or why it cannot be used). When it
/// is missing, or named in `DURAK_TEST_PRETEND_MISSING`: `None`, with the skip noted, or, when
/// [`required`], a panic with the install command. `program` names it in the notes and in
/// `DURAK_TEST_PRETEND_MISSING`; `package` is its Debian package(s).
pub fn require_with(
    program: &str,
    package: &str,
    find: impl FnOnce() -> Result<PathBuf, String>,
) -> Option<PathBuf> {
    let found = if pretend_missing(program) {
        Err("DURAK_TEST_PRETEND_MISSING names it".to_string())
    } else {
        find()
    };
    let why = match found {
        Ok(p) => return Some(p),
        Err(why) => why,
    };
    let test = test_name();
    if required() {
        panic!(
            "{test} needs {program}, which cannot be used here ({why}): install it with \
             `apt-get install {package}` (CI or DURAK_REQUIRE_SYSTEM_TESTS is set: a missing \
             program fails the test instead of skipping it)"
        );
    }
    note_skip(format!(
        "SKIPPED {test}: needs {program} (apt-get install {package}): {why}"
    ));
    None
}

/// [`require_with`] for a program on `PATH`.
pub fn require(program: &str, package: &str) -> Option<PathBuf> {
    require_with(program, package, || {
        super::which(program).ok_or_else(|| "not found on PATH".to_string())
    })
}

/// [`require`] for an interpreter, the system's first (see [`super::interpreter`]).
pub fn require_interpreter(program: &str, package: &str) -> Option<PathBuf> {
    require_with(program, package, || {
        super::interpreter(program).ok_or_else(|| "not found".to_string())
    })
}
