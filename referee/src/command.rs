//! How a bot is started: its command line split like a shell would, or `builtin:NAME`, and the
//! checks that refuse a command that cannot run before anything starts.

use crate::isolation::{self, Isolation, Sandbox};
use std::path::PathBuf;

/// The seat a person plays from the terminal (`durak play human BOT`): `durak human`, started
/// in the referee's terminal and foreground process group, without a sandbox (it is the
/// organiser at the keyboard, not a bot).
pub const HUMAN: &str = "human";

/// The built-in bots (`builtin:NAME`).
pub const BUILTINS: [&str; 2] = ["random", "greedy"];

/// Why a bot command was refused before anything started: each message names the bot's command
/// and the fix.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(
        "unknown built-in bot {name:?}: the built-in bots are {}",
        builtin_list()
    )]
    UnknownBuiltin { name: String },
    #[error("cannot find the durak executable: {0}")]
    NoExecutable(#[source] std::io::Error),
    #[error("cannot split the bot command {spec:?}: {source}")]
    Split {
        spec: String,
        source: shell_words::ParseError,
    },
    #[error("the bot command is empty")]
    Empty,
    #[error("bot {spec:?}: {} does not exist", path.display())]
    Missing { spec: String, path: PathBuf },
    #[error("bot {spec:?}: {} is a directory: name the program in it", path.display())]
    IsDirectory { spec: String, path: PathBuf },
    #[error(
        "bot {spec:?}: {} is not executable: run `chmod +x {}` (a script also needs a first line \
         such as `#!/usr/bin/env python3`), or name its interpreter: \"{} {}\"",
        path.display(),
        path.display(),
        interpreter_for(program),
        program.display()
    )]
    NotExecutable {
        spec: String,
        path: PathBuf,
        program: PathBuf,
    },
    #[error(
        "bot {spec:?}: {} is not a program on PATH; for the file {} here, write \"./{}\" (if it \
         is executable) or name its interpreter: \"{} {}\"",
        program.display(),
        program.display(),
        program.display(),
        interpreter_for(program),
        program.display()
    )]
    FileNotOnPath { spec: String, program: PathBuf },
    #[error("bot {spec:?}: {} is neither a file here nor a program on PATH", program.display())]
    NotFound { spec: String, program: PathBuf },
    #[error(
        "bot {spec:?}: {} is not in {} (the PATH of the strict sandbox, which sees only the \
         system directories): give the program as a path",
        program.display(),
        isolation::SANDBOX_PATH
    )]
    NotInSandboxPath { spec: String, program: PathBuf },
    #[error("bot {spec:?}: the file {file} does not exist")]
    MissingScript { spec: String, file: String },
}

fn builtin_list() -> String {
    BUILTINS.map(|b| format!("builtin:{b}")).join(", ")
}

/// How to start a bot: a command line split like a shell would, or `builtin:NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotCommand {
    /// What the user wrote.
    pub spec: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Working directory, if configured. Without one, the bot runs in a fresh private directory
    /// (default mode) or in its sandbox's private `/tmp` (strict mode), and the program and the
    /// arguments that look like paths (a `/` or a `.`) and exist are made absolute first, a `..` in
    /// them climbed out of as the kernel does (a strict sandbox does not show what it leaves).
    pub cwd: Option<PathBuf>,
    /// The sandbox mode and resource limits ([`Isolation::default`]: default mode, documented
    /// limits).
    pub isolation: Isolation,
}

impl BotCommand {
    /// Parse a bot spec. `builtin:NAME` runs this very executable as `durak bot NAME` (override the
    /// executable with the `DURAK_EXE` environment variable, as tests do).
    pub fn parse(spec: &str) -> Result<BotCommand, CommandError> {
        if let Some(name) = spec.strip_prefix("builtin:") {
            if !BUILTINS.contains(&name) {
                return Err(CommandError::UnknownBuiltin {
                    name: name.to_string(),
                });
            }
            let exe = match std::env::var_os("DURAK_EXE") {
                Some(p) => PathBuf::from(p),
                None => std::env::current_exe().map_err(CommandError::NoExecutable)?,
            };
            return Ok(BotCommand {
                spec: spec.to_string(),
                program: exe,
                args: vec!["bot".into(), name.into()],
                cwd: None,
                isolation: Isolation::default(),
            });
        }
        if spec == HUMAN {
            let exe = match std::env::var_os("DURAK_EXE") {
                Some(p) => PathBuf::from(p),
                None => std::env::current_exe().map_err(CommandError::NoExecutable)?,
            };
            return Ok(BotCommand {
                spec: spec.to_string(),
                program: exe,
                args: vec!["human".into()],
                cwd: None,
                isolation: Isolation::default(),
            });
        }
        let words = shell_words::split(spec).map_err(|source| CommandError::Split {
            spec: spec.to_string(),
            source,
        })?;
        let Some((program, args)) = words.split_first() else {
            return Err(CommandError::Empty);
        };
        Ok(BotCommand {
            spec: spec.to_string(),
            program: PathBuf::from(program),
            args: args.to_vec(),
            cwd: None,
            isolation: Isolation::default(),
        })
    }

    /// Whether this is the human seat ([`HUMAN`]).
    pub fn is_human(&self) -> bool {
        self.spec == HUMAN
    }

    /// The same command with another sandbox mode.
    pub fn with_sandbox(mut self, sandbox: Sandbox) -> BotCommand {
        self.isolation.sandbox = sandbox;
        self
    }

    /// The files and directories this bot is made of, absolute: its working directory (unless
    /// it only starts there, `Isolation::foreign_cwd`), the program when it is a path, the
    /// arguments that name existing files, and the directories of those files (their modules,
    /// their data). What other bots must not see (`MatchConfig::hidden`; a bot's own files
    /// stay visible to it even when another's directory holds them).
    pub fn own_paths(&self) -> Vec<PathBuf> {
        if self.spec.starts_with("builtin:") || self.is_human() {
            return Vec::new();
        }
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let base = match &self.cwd {
            Some(c) if c.is_absolute() => c.clone(),
            Some(c) => here.join(c),
            None => here,
        };
        let mut out: Vec<PathBuf> = self
            .cwd
            .iter()
            .filter(|_| !self.isolation.foreign_cwd)
            .map(|_| base.clone())
            .collect();
        let mut files = Vec::new();
        let p = &self.program;
        if p.components().count() > 1 || p.is_absolute() {
            files.push(base.join(p));
        }
        for a in &self.args {
            if !a.starts_with('-') && (a.contains('/') || a.contains('.')) {
                let f = base.join(a);
                if f.exists() {
                    files.push(f);
                }
            }
        }
        for f in &files {
            let dir = f
                .parent()
                .filter(|d| d.components().count() > 2 && !f.is_dir());
            if let Some(d) = dir.filter(|d| !d.starts_with("/usr")) {
                out.push(d.to_path_buf());
            }
        }
        out.extend(files);
        out
    }

    /// Check before anything starts that the program exists (a path) or is on PATH (a name).
    pub fn check_exists(&self) -> Result<(), CommandError> {
        let p = &self.program;
        let base = self.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        if p.components().count() > 1 || p.is_absolute() {
            let full: PathBuf = if p.is_absolute() {
                p.clone()
            } else {
                base.join(p)
            }
            .components()
            .filter(|c| c != &std::path::Component::CurDir)
            .collect();
            if !full.exists() {
                return Err(CommandError::Missing {
                    spec: self.spec.clone(),
                    path: full,
                });
            }
            if full.is_dir() {
                return Err(CommandError::IsDirectory {
                    spec: self.spec.clone(),
                    path: full,
                });
            }
            // As this user would run it (as root: any execute bit).
            if rustix::fs::access(&full, rustix::fs::Access::EXEC_OK).is_err() {
                return Err(CommandError::NotExecutable {
                    spec: self.spec.clone(),
                    path: full,
                    program: p.clone(),
                });
            }
        } else if which(p).is_none() {
            if base.join(p).is_file() {
                return Err(CommandError::FileNotOnPath {
                    spec: self.spec.clone(),
                    program: p.clone(),
                });
            }
            return Err(CommandError::NotFound {
                spec: self.spec.clone(),
                program: p.clone(),
            });
        } else if self.isolation.sandbox == Sandbox::Strict
            && !std::env::split_paths(isolation::SANDBOX_PATH).any(|d| d.join(p).is_file())
        {
            return Err(CommandError::NotInSandboxPath {
                spec: self.spec.clone(),
                program: p.clone(),
            });
        }
        // Arguments that look like script paths must exist too (python3 bot.py).
        for a in &self.args {
            let looks_like_script = [".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".jar"]
                .iter()
                .any(|ext| a.ends_with(ext));
            if looks_like_script && !a.starts_with('-') && !base.join(a).exists() {
                return Err(CommandError::MissingScript {
                    spec: self.spec.clone(),
                    file: a.clone(),
                });
            }
        }
        Ok(())
    }
}

/// The interpreter a script's extension suggests, for error messages.
fn interpreter_for(script: &std::path::Path) -> &'static str {
    match script.extension().and_then(|e| e.to_str()) {
        Some("py") => "python3",
        Some("js" | "mjs") => "node",
        Some("sh") => "sh",
        Some("rb") => "ruby",
        Some("pl") => "perl",
        Some("jar") => "java -jar",
        _ => "INTERPRETER",
    }
}

/// The first file named `name` in a directory of `PATH`.
pub fn which(name: &std::path::Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|f| f.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command that cannot be parsed is refused with its kind, in the words it always had.
    #[test]
    fn an_unparsable_command_is_refused_by_kind() {
        let e = BotCommand::parse("builtin:nope").unwrap_err();
        assert!(matches!(&e, CommandError::UnknownBuiltin { name } if name == "nope"));
        assert!(
            e.to_string()
                .starts_with("unknown built-in bot \"nope\": the built-in bots are builtin:"),
            "{e}"
        );
        let e = BotCommand::parse("python3 'bot.py").unwrap_err();
        assert!(matches!(e, CommandError::Split { .. }));
        assert!(
            e.to_string()
                .starts_with("cannot split the bot command \"python3 'bot.py\": "),
            "{e}"
        );
        let e = BotCommand::parse("  ").unwrap_err();
        assert_eq!(e.to_string(), "the bot command is empty");
    }

    /// The usual ways to name a bot wrongly are refused before anything starts, with the fix.
    #[test]
    fn a_bot_named_wrongly_is_refused_with_the_fix() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("mybot.py");
        std::fs::write(&script, "#!/usr/bin/env python3\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
        let check = |spec: &str| {
            let mut cmd = BotCommand::parse(spec).unwrap();
            cmd.cwd = Some(dir.path().to_path_buf());
            cmd.check_exists().map_err(|e| e.to_string())
        };
        // A path to a file that cannot run.
        let e = check("./mybot.py").unwrap_err();
        assert!(e.contains("is not executable"), "{e}");
        assert!(e.contains(&format!("chmod +x {}", script.display())), "{e}");
        assert!(e.contains("\"python3 ./mybot.py\""), "{e}");
        // A bare name looks on PATH only, though the file is here.
        let e = check("mybot.py").unwrap_err();
        assert!(e.contains("not a program on PATH"), "{e}");
        assert!(e.contains("\"./mybot.py\""), "{e}");
        assert!(e.contains("\"python3 mybot.py\""), "{e}");
        // A directory.
        std::fs::create_dir(dir.path().join("bot")).unwrap();
        let e = check("./bot").unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
        // Neither here nor on PATH.
        let e = check("nosuchprogram-xyz").unwrap_err();
        assert!(
            e.contains("neither a file here nor a program on PATH"),
            "{e}"
        );
        // Once executable, the path is fine, and so is naming the interpreter.
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        check("./mybot.py").unwrap();
        check("sh mybot.py").unwrap();
    }
}
