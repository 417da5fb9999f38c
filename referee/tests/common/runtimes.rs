//! The sample bots of other runtimes, built for the tests that play them: a plain JVM, Go and
//! Node.js (`referee/tests/runtimes.rs` plays them through the referee, the workspace's
//! `tests/runtimes.rs` through `durak check-bot` and `durak tournament`). Each is built from
//! `sample-bots/` into a temporary directory (javac, go build); a missing runtime is SKIPPED with
//! a note naming its Debian package ([`require_interpreter`]), unless `CI` or
//! `DURAK_REQUIRE_SYSTEM_TESTS` is set: then it fails (`.ci/run` installs them).

use super::{repo, require_interpreter, text};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A directory for one runtime's build, made afresh in cargo's temporary directory for tests (one
/// per package: the referee's tests and the workspace's build their own),
/// readable by others (strict mode as root runs the bot under another uid).
pub fn build_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("runtimes-{}-{name}", env!("CARGO_PKG_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// A built bot: the command line that runs it, the name it says in its hello, and the directory
/// it was built in (a tournament runs it from there).
#[derive(Clone, Debug)]
pub struct Bot {
    pub command: String,
    pub name: &'static str,
    pub dir: PathBuf,
}

/// `sample-bots/java/Bot.java`, built with `javac -d DIR`, run as a plain `java -cp DIR Bot`.
/// Built once per test process.
pub fn java_bot() -> Option<Bot> {
    let javac = require_interpreter("javac", "default-jdk-headless")?;
    let java = require_interpreter("java", "default-jdk-headless")?;
    static BUILT: OnceLock<Bot> = OnceLock::new();
    let bot = BUILT.get_or_init(|| {
        let dir = build_dir("java");
        let out = Command::new(javac)
            .args(["-Xlint:all", "-Werror", "-d"])
            .arg(&dir)
            .arg(repo().join("sample-bots/java/Bot.java"))
            .output()
            .expect("javac runs");
        assert!(out.status.success(), "javac: {}", text(&out.stderr));
        assert!(dir.join("Bot.class").is_file());
        Bot {
            command: format!("{} -cp {} Bot", java.display(), dir.display()),
            name: "java-sample",
            dir,
        }
    });
    Some(bot.clone())
}

/// `sample-bots/go/bot.go`, built with `go build` (standard library only: nothing is
/// downloaded, `GOPROXY=off`; the build cache is kept in cargo's temporary directory).
pub fn go_bot() -> Option<Bot> {
    let go = require_interpreter("go", "golang-go")?;
    static BUILT: OnceLock<Bot> = OnceLock::new();
    let bot = BUILT.get_or_init(|| {
        let dir = build_dir("go");
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-cache");
        let exe = dir.join("go-bot");
        let out = Command::new(go)
            .args(["build", "-o"])
            .arg(&exe)
            .arg(".")
            .current_dir(repo().join("sample-bots/go"))
            .env("GOCACHE", cache.join("build"))
            .env("GOPATH", cache.join("path"))
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GOFLAGS", "")
            .output()
            .expect("go runs");
        assert!(out.status.success(), "go build: {}", text(&out.stderr));
        assert!(exe.is_file());
        Bot {
            command: exe.display().to_string(),
            name: "go-sample",
            dir,
        }
    });
    Some(bot.clone())
}

/// `sample-bots/js/random_bot.js` under Node.js.
pub fn node_bot() -> Option<Bot> {
    let node = require_interpreter("node", "nodejs")?;
    let dir = repo().join("sample-bots/js");
    Some(Bot {
        command: format!("{} {}", node.display(), dir.join("random_bot.js").display()),
        name: "random-js",
        dir,
    })
}
