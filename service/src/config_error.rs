//! Why a configuration was refused ([`crate::config`]): the file (or the defaults), the key or
//! flag, and the fix, in every message.

use std::path::PathBuf;

/// The keys of the configuration file, for the message of one that does not parse.
const KEYS: &str = "listen, data_dir, registration, [ladder], [sandbox], [build], [upload], \
                    [check], [tls], [quota], [limits], [season], trusted_proxies";

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The configuration file cannot be read.
    #[error("{}: cannot read the configuration: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not TOML, or has a key that is not one (`detail`: TOML's words, with the
    /// line).
    #[error("{}: {detail}\n  fix: see docs/SERVICE.md for the keys ({KEYS})", path.display())]
    NotToml { path: PathBuf, detail: String },
    /// A key's (or a flag's) value refused: `key` as the file or the command line spells it
    /// (`[ladder] deals`, `--limit`); `message` names it again with the value and the fix.
    #[error("{message}")]
    Key { key: String, message: String },
    /// A refusal of a key in the file `file` (or "the defaults").
    #[error("{file}: {error}")]
    InFile {
        file: String,
        error: Box<ConfigError>,
    },
}

impl ConfigError {
    /// The key `key` refused, `message` saying why and the fix.
    pub fn key(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError::Key {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The same refusal, said to be in `file`.
    pub fn in_file(self, file: &str) -> ConfigError {
        ConfigError::InFile {
            file: file.to_string(),
            error: Box::new(self),
        }
    }

    /// The key or flag refused, if the refusal is of one.
    pub fn key_name(&self) -> Option<&str> {
        match self {
            ConfigError::Key { key, .. } => Some(key),
            ConfigError::InFile { error, .. } => error.key_name(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{resolve, ConfigFile, Overrides};
    use std::path::Path;

    #[test]
    fn a_misspelt_key_names_the_file_the_key_and_where_the_keys_are() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("serve.toml");
        std::fs::write(&path, "[ladder]\nspeed = 1\n").unwrap();
        let e = ConfigFile::load(&path).unwrap_err();
        assert!(
            matches!(&e, ConfigError::NotToml { path: p, .. } if *p == path),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(m.starts_with(&format!("{}: ", path.display())), "{m}");
        assert!(
            m.contains("speed") && m.contains("fix: see docs/SERVICE.md"),
            "{m}"
        );
        let e = ConfigFile::load(&d.path().join("none.toml")).unwrap_err();
        assert!(matches!(e, ConfigError::Unreadable { .. }), "{e:?}");
    }

    #[test]
    fn a_bad_value_names_the_file_and_the_key() {
        let f: ConfigFile = toml::from_str("[ladder]\ndeals = 0\n").unwrap();
        let e = resolve(Some((Path::new("serve.toml"), &f)), &Overrides::default()).unwrap_err();
        assert_eq!(e.key_name(), Some("[ladder] deals"));
        assert!(
            matches!(&e, ConfigError::InFile { file, .. } if file == "serve.toml"),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(
            m.starts_with("serve.toml: [ladder] deals = 0") && m.contains("fix:"),
            "{m}"
        );
        // A flag's refusal names the flag.
        let o = Overrides {
            limits: vec!["memory=lots".into()],
            ..Overrides::default()
        };
        assert_eq!(resolve(None, &o).unwrap_err().key_name(), Some("--limit"));
    }
}
