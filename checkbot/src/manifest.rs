//! `bot.toml`: the small manifest of a submitted bot folder, and the `[[bot]]` entry that
//! `durak submit` appends to a tournament configuration.
//!
//! ```toml
//! name = "my-bot"              # letters, digits, - _ . (1 to 64)
//! command = "python3 bot.py"   # run in the bot's folder
//! language = "python"
//! author = "Ada Lovelace"
//! build = "javac -d out src/*.java"   # optional: run in the bot's folder before the check
//! ```
//!
//! `build` is a shell command (`sh -c`) that `durak submit` runs in the bot's folder before
//! checking it, within a time limit (`--build-timeout-s`, 600 s by default): a compiled bot
//! ships its sources and builds where it runs.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The manifest's file name inside a bot folder.
pub const FILE: &str = "bot.toml";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The bot's name in the tournament (unique there).
    pub name: String,
    /// The command line that starts the bot, run in the bot's folder.
    pub command: String,
    /// The language it is written in (for the organiser).
    pub language: String,
    /// Who wrote it.
    pub author: String,
    /// A shell command run in the bot's folder before the check (a compiler), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

const KEYS: &str = "name, command, language, author (and optionally build)";

/// Why a bot's manifest was refused: each message names the file, the key and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error(
        "{}: cannot read the bot's manifest: {source}\n  fix: put a {FILE} in the bot's folder \
         with the keys {KEYS}, for example:\n    name = \"my-bot\"\n    command = \"python3 \
         bot.py\"\n    language = \"python\"\n    author = \"Your Name\"",
        path.display()
    )]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{}: {}\n  {}",
        path.display(),
        source.to_string().trim_end().replace('\n', "\n  "),
        toml_fix(source)
    )]
    Toml {
        path: PathBuf,
        source: toml::de::Error,
    },
    /// A key with a value that cannot be: `why`, and how to fix it.
    #[error("{}: {key} = {value:?}: {why}\n  fix: {fix}", path.display())]
    Value {
        path: PathBuf,
        key: &'static str,
        value: String,
        why: &'static str,
        fix: &'static str,
    },
}

/// The fix for a manifest that is not the TOML it should be.
fn toml_fix(e: &toml::de::Error) -> String {
    let msg = e.to_string();
    if msg.contains("unknown field") {
        format!("fix: remove or rename that key; {FILE} has exactly the keys {KEYS}")
    } else if msg.contains("missing field") {
        format!(
            "fix: add the missing key; {FILE} needs name, command, language and author (build \
             is optional)"
        )
    } else {
        "fix: correct the TOML at that line (strings in double quotes: name = \"my-bot\")"
            .to_string()
    }
}

impl Manifest {
    /// Read `dir/bot.toml`; every refusal names the file, the key and the fix.
    pub fn load(dir: &Path) -> Result<Manifest, ManifestError> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| ManifestError::Unreadable {
            path: path.clone(),
            source,
        })?;
        Manifest::parse(&text, &path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        let m: Manifest = toml::from_str(text).map_err(|source| ManifestError::Toml {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |key: &'static str, value: &str, why: &'static str, fix: &'static str| {
            Err(ManifestError::Value {
                path: path.to_path_buf(),
                key,
                value: value.to_string(),
                why,
                fix,
            })
        };
        let n = m.name.chars().count();
        if n == 0 || n > 64 {
            return bad(
                "name",
                &m.name,
                "a name has 1 to 64 characters",
                "choose a short name such as \"my-bot\"",
            );
        }
        if !m
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return bad(
                "name",
                &m.name,
                "a name has only letters, digits, '-', '_' and '.'",
                "for example \"ada-heuristic\"",
            );
        }
        if m.command.trim().is_empty() {
            return bad(
                "command",
                &m.command,
                "the command is empty",
                "give the command that starts the bot in its folder, e.g. \"python3 bot.py\"",
            );
        }
        if m.command.trim_start().starts_with("builtin:") {
            return bad(
                "command",
                &m.command,
                "a submitted bot is a program of its own, not a built-in bot",
                "give the command that starts your bot, e.g. \"python3 bot.py\"",
            );
        }
        for (key, v) in [("language", &m.language), ("author", &m.author)] {
            if v.trim().is_empty() {
                return bad(key, v, "it is empty", "say it in a few words");
            }
        }
        if let Some(b) = &m.build {
            if b.trim().is_empty() {
                return bad(
                    "build",
                    b,
                    "the build command is empty",
                    "give the command that builds the bot in its folder (\"make\", \"javac -d \
                     out src/*.java\"), or remove the key if it needs no build",
                );
            }
        }
        Ok(m)
    }

    /// The `[[bot]]` entry for a tournament configuration (with a comment line).
    pub fn bot_entry(&self, cwd: &str) -> String {
        // A comment line: no newline, nor any other control character, from bot.toml.
        let one_line = |s: &str| durak_protocol::text::escape_controls(s).into_owned();
        format!(
            "\n# {} ({}, by {}): registered by durak submit after passing durak check-bot\n\
             [[bot]]\nname = {}\ncommand = {}\ncwd = {}\n",
            one_line(&self.name),
            one_line(&self.language),
            one_line(&self.author),
            toml_string(&self.name),
            toml_string(&self.command),
            toml_string(cwd)
        )
    }
}

/// A TOML basic string.
pub fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, String> {
        Manifest::parse(text, Path::new("bots/x/bot.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_good_manifest_is_read() {
        let m = parse(
            "name = \"ada-1\"\ncommand = \"python3 bot.py\"\nlanguage = \"python\"\n\
             author = \"Ada\"\n",
        )
        .unwrap();
        assert_eq!(m.name, "ada-1");
        let entry = m.bot_entry("bots/x");
        assert!(entry.contains("[[bot]]\nname = \"ada-1\"\ncommand = \"python3 bot.py\""));
        assert!(entry.contains("cwd = \"bots/x\""));
        assert_eq!(m.build, None);
        let m = parse(
            "name = \"j\"\ncommand = \"java -cp out Bot\"\nlanguage = \"java\"\n\
             author = \"Ada\"\nbuild = \"javac -d out Bot.java\"\n",
        )
        .unwrap();
        assert_eq!(m.build.as_deref(), Some("javac -d out Bot.java"));
        let e = parse(
            "name = \"j\"\ncommand = \"c\"\nlanguage = \"l\"\nauthor = \"x\"\nbuild = \" \"\n",
        )
        .unwrap_err();
        assert!(e.contains("build = \" \"") && e.contains("fix:"), "{e}");
    }

    #[test]
    fn bad_manifests_name_the_file_the_key_and_the_fix() {
        let e = parse(
            "name = \"a\"\ncommand = \"c\"\nlanguage = \"l\"\nauthor = \"x\"\nversion = \"1\"\n",
        )
        .unwrap_err();
        assert!(
            e.contains("bots/x/bot.toml") && e.contains("version"),
            "{e}"
        );
        assert!(e.contains("fix: remove or rename"), "{e}");
        let e = parse("name = \"a\"\ncommand = \"c\"\nlanguage = \"l\"\n").unwrap_err();
        assert!(e.contains("author") && e.contains("fix: add"), "{e}");
        let e = parse("name = \"a b\"\ncommand = \"c\"\nlanguage = \"l\"\nauthor = \"x\"\n")
            .unwrap_err();
        assert!(e.contains("name = \"a b\"") && e.contains("fix:"), "{e}");
        let e =
            parse("name = \"a\"\ncommand = \" \"\nlanguage = \"l\"\nauthor = \"x\"\n").unwrap_err();
        assert!(e.contains("command"), "{e}");
        // The kind says which key, the text the file, the value and the fix.
        let e = Manifest::parse(
            "name = \"a\"\ncommand = \"builtin:random\"\nlanguage = \"l\"\nauthor = \"x\"\n",
            Path::new("bots/x/bot.toml"),
        )
        .unwrap_err();
        assert!(
            matches!(e, ManifestError::Value { key: "command", .. }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "bots/x/bot.toml: command = \"builtin:random\": a submitted bot is a program of its \
             own, not a built-in bot\n  fix: give the command that starts your bot, e.g. \
             \"python3 bot.py\""
        );
    }

    /// A folder without a manifest is refused with an example to copy, as before the error was
    /// typed.
    #[test]
    fn a_missing_manifest_shows_one_to_copy() {
        let d = tempfile::tempdir().unwrap();
        let e = Manifest::load(d.path()).unwrap_err();
        assert!(matches!(e, ManifestError::Unreadable { .. }), "{e:?}");
        let path = d.path().join(FILE);
        assert_eq!(
            e.to_string(),
            format!(
                "{}: cannot read the bot's manifest: No such file or directory (os error 2)\n  \
                 fix: put a bot.toml in the bot's folder with the keys name, command, language, \
                 author (and optionally build), for example:\n    name = \"my-bot\"\n    \
                 command = \"python3 bot.py\"\n    language = \"python\"\n    author = \"Your \
                 Name\"",
                path.display()
            )
        );
    }

    #[test]
    fn strings_are_quoted_for_toml() {
        for s in ["plain", "a \"b\"\\", "it's", "x'\"y", "line\nbreak"] {
            let v: toml::Table = toml::from_str(&format!("k = {}", toml_string(s))).unwrap();
            assert_eq!(v["k"].as_str(), Some(s));
        }
    }
}
