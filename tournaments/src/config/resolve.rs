//! [`Input::resolve`]: the file's `[tournament]` and `[[bot]]` tables and the command line made
//! into one checked [`Tournament`]; the first problem is refused with its origin and a fix.

use super::{
    absolute, cli_bot_names, clock_seed, names, Bot, ConfigFile, Format, Input, SprtSection,
    Tournament, TournamentSection, DEFAULT_GAMES, DEFAULT_MAX_CONSECUTIVE_FAULTS,
    DEFAULT_SPRT_GAMES, MAX_SEED, MAX_SPRT_TABLES,
};
use crate::error::Error;
use durak_protocol::Limits;
use durak_rules::Variant;
use std::path::Path;

/// A `[tournament]` value: the command line's (and `true`: overridden) or the file's.
macro_rules! pick {
    ($o:expr, $t:expr, $k:ident) => {
        match (&$o.$k, &$t.$k) {
            (Some(v), _) => (Some(v.clone()), true),
            (None, v) => (v.clone(), false),
        }
    };
}

/// The game's shape, from `[tournament]` and the command line.
struct Shape {
    variant: Variant,
    format: Format,
    /// `format` was given on the command line (for messages).
    format_overridden: bool,
    table_size: usize,
    table_size_overridden: bool,
}

/// A bot and where it was given, for messages.
struct Placed {
    bot: Bot,
    here: String,
}

impl Input {
    /// Resolve and check everything; the first problem is refused with its origin and a fix.
    pub fn resolve(&self) -> Result<Tournament, Error> {
        let empty = ConfigFile::default();
        let t = &self
            .file
            .as_ref()
            .map(|(_, f)| f)
            .unwrap_or(&empty)
            .tournament;
        let o = &self.overrides;
        let shape = self.shape(o, t)?;
        let (sprt, sprt_overridden) = pick!(o, t, sprt);
        let games = self.games(o, t, sprt.is_some())?;
        let (seed, os) = pick!(o, t, seed);
        let seed = seed.unwrap_or_else(clock_seed);
        if seed > MAX_SEED {
            return Err(config_error!(
                "{}: seeds are at most {MAX_SEED} (TOML integers are signed 64-bit)\n  \
                 fix: choose a smaller seed",
                self.setting("seed", os, seed.to_string())
            ));
        }
        let (concurrency, oc) = pick!(o, t, concurrency);
        if concurrency == Some(0) {
            return Err(config_error!(
                "{}: at least one game must run at a time\n  fix: set concurrency to 1 or \
                 more, or leave it out (the number of cores)",
                self.setting("concurrency", oc, "0".into())
            ));
        }
        let max_consecutive_faults = pick!(o, t, max_consecutive_faults)
            .0
            .unwrap_or(DEFAULT_MAX_CONSECUTIVE_FAULTS);
        let defaults = self.default_limits(o, t)?;
        let bots = self.bots(&defaults, shape.table_size, shape.table_size_overridden)?;
        let challenger = self.challenger(o, t, &shape, &bots)?;
        let sprt = match sprt {
            None => None,
            Some(sp) => Some(self.sprt(&sp, sprt_overridden, &shape, bots.len())?),
        };
        Ok(Tournament {
            variant: shape.variant,
            format: shape.format,
            table_size: shape.table_size,
            games,
            seed,
            challenger,
            concurrency,
            max_consecutive_faults,
            bots,
            sprt,
        })
    }

    /// The variant, the format and the table size, checked against each other.
    fn shape(&self, o: &TournamentSection, t: &TournamentSection) -> Result<Shape, Error> {
        let (variant, ov) = pick!(o, t, variant);
        let variant = match variant {
            None => Variant::Podkidnoy,
            Some(v) => v.parse::<Variant>().map_err(|e| {
                config_error!(
                    "{}: {e}\n  fix: use \"podkidnoy\" or \"prostoy\"",
                    self.setting("variant", ov, format!("{v:?}"))
                )
            })?,
        };
        let (format, of) = pick!(o, t, format);
        let format = match format {
            None => Format::Duplicate,
            Some(f) => Format::parse(&f).map_err(|e| {
                config_error!("{}: {e}", self.setting("format", of, format!("{f:?}")))
            })?,
        };
        let (table_size, ot) = pick!(o, t, table_size);
        let table_size = table_size.unwrap_or(2);
        if let Err(e) = variant.check_players(table_size) {
            return Err(config_error!(
                "{}: {e}\n  fix: choose a table size from {} to {} for {}",
                self.setting("table_size", ot, table_size.to_string()),
                variant.players().start(),
                variant.players().end(),
                variant.name()
            ));
        }
        Ok(Shape {
            variant,
            format,
            format_overridden: of,
            table_size,
            table_size_overridden: ot,
        })
    }

    /// Games per table: given, or the default (a cap under an SPRT).
    fn games(
        &self,
        o: &TournamentSection,
        t: &TournamentSection,
        sprt: bool,
    ) -> Result<u32, Error> {
        let (games, og) = pick!(o, t, games);
        let games = games.unwrap_or(if sprt {
            DEFAULT_SPRT_GAMES
        } else {
            DEFAULT_GAMES
        });
        if games == 0 {
            return Err(config_error!(
                "{}: a table must play at least one game\n  fix: set games to 1 or more",
                self.setting("games", og, "0".into())
            ));
        }
        Ok(games)
    }

    /// Every bot's limits unless its `[[bot]]` says otherwise. A limit given on the command
    /// line applies to every bot, over the file's values, and must be positive.
    fn default_limits(
        &self,
        o: &TournamentSection,
        t: &TournamentSection,
    ) -> Result<Limits, Error> {
        for (key, v) in [
            ("startup_ms", o.startup_ms),
            ("move_ms", o.move_ms),
            ("max_line_bytes", o.max_line_bytes.map(|v| v as u64)),
        ] {
            if v == Some(0) {
                return Err(config_error!(
                    "{}: it must be positive\n  fix: give a positive value (or leave it out)",
                    self.setting(key, true, "0".into())
                ));
            }
        }
        let base = Limits::default();
        Ok(Limits {
            startup_ms: pick!(o, t, startup_ms).0.unwrap_or(base.startup_ms),
            move_ms: pick!(o, t, move_ms).0.unwrap_or(base.move_ms),
            bank_ms: pick!(o, t, bank_ms).0.unwrap_or(base.bank_ms),
            max_line_bytes: pick!(o, t, max_line_bytes).0.unwrap_or(base.max_line_bytes),
        })
    }

    /// The bots: the file's, then the command line's; names unique, enough for a table.
    fn bots(
        &self,
        defaults: &Limits,
        table_size: usize,
        table_size_overridden: bool,
    ) -> Result<Vec<Bot>, Error> {
        let mut placed = self.file_bots(defaults)?;
        let cli_names = cli_bot_names(&self.cli_bots);
        for (spec, name) in self.cli_bots.iter().zip(cli_names) {
            let here = format!("the command line: bot {spec:?}");
            let bot = Bot {
                name,
                command: spec.clone(),
                cwd: self.cwd.clone(),
                own_cwd: false,
                limits: *defaults,
            };
            self.check_bot(&bot, &here)?;
            placed.push(Placed { bot, here });
        }
        for (i, p) in placed.iter().enumerate() {
            if let Some(first) = placed[..i].iter().find(|a| a.bot.name == p.bot.name) {
                return Err(config_error!(
                    "duplicate bot name {:?}: {} and {}\n  fix: give each bot its own name (in a \
                     configuration file: name = \"...\")",
                    p.bot.name,
                    first.here,
                    p.here
                ));
            }
        }
        let bots: Vec<Bot> = placed.into_iter().map(|p| p.bot).collect();
        if bots.len() < table_size {
            let fix = if bots.len() >= 2 {
                format!(", or set table_size = {} or lower", bots.len())
            } else {
                String::new() // a table needs two players at least
            };
            return Err(config_error!(
                "{} bot{} for tables of {table_size} ({})\n  fix: add bots ([[bot]] in the \
                 configuration file, or on the command line){fix}",
                bots.len(),
                if bots.len() == 1 { "" } else { "s" },
                self.origin("table_size", table_size_overridden)
            ));
        }
        Ok(bots)
    }

    /// The file's `[[bot]]` tables, each checked.
    fn file_bots(&self, defaults: &Limits) -> Result<Vec<Placed>, Error> {
        let Some((path, f)) = &self.file else {
            return Ok(Vec::new());
        };
        let file_dir = self.file_dir();
        let o = &self.overrides;
        let mut placed = Vec::new();
        for (i, b) in f.bots.iter().enumerate() {
            let here = format!("{}: [[bot]] #{} ({:?})", path.display(), i + 1, b.name);
            if b.name.trim().is_empty() {
                return Err(config_error!(
                    "{}: [[bot]] #{}: the name is empty\n  fix: give every bot a name",
                    path.display(),
                    i + 1
                ));
            }
            if b.name.chars().any(char::is_control) {
                return Err(config_error!(
                    "{here}: the name holds a control character (a line break, a tab...)\n  \
                     fix: give a name on one line; it is printed in tables and file names"
                ));
            }
            if b.cwd.is_some() && b.start_dir.is_some() {
                return Err(config_error!(
                    "{here}: both `cwd` and `start_dir` are given\n  fix: keep `cwd` (the \
                     bot's own directory)"
                ));
            }
            let cwd = match (&b.cwd, &b.start_dir) {
                (Some(c), _) | (None, Some(c)) => absolute(&file_dir, Path::new(c)),
                (None, None) => file_dir.clone(),
            };
            if self.check_bots && !cwd.is_dir() {
                return Err(config_error!(
                    "{here} cwd = {:?}: {} is not a directory\n  fix: relative paths are \
                     relative to the configuration file's directory ({})",
                    b.cwd.as_deref().unwrap_or(""),
                    cwd.display(),
                    file_dir.display()
                ));
            }
            let bot = Bot {
                name: b.name.clone(),
                command: b.command.clone(),
                cwd,
                own_cwd: b.cwd.is_some(),
                limits: Limits {
                    startup_ms: o.startup_ms.or(b.startup_ms).unwrap_or(defaults.startup_ms),
                    move_ms: o.move_ms.or(b.move_ms).unwrap_or(defaults.move_ms),
                    bank_ms: o.bank_ms.or(b.bank_ms).unwrap_or(defaults.bank_ms),
                    max_line_bytes: o
                        .max_line_bytes
                        .or(b.max_line_bytes)
                        .unwrap_or(defaults.max_line_bytes),
                },
            };
            self.check_bot(&bot, &here)?;
            placed.push(Placed { bot, here });
        }
        Ok(placed)
    }

    /// A gauntlet's challenger: required there, one of the bots, and for no other format.
    fn challenger(
        &self,
        o: &TournamentSection,
        t: &TournamentSection,
        shape: &Shape,
        bots: &[Bot],
    ) -> Result<Option<String>, Error> {
        let (challenger, och) = pick!(o, t, challenger);
        match (shape.format, &challenger) {
            (Format::Gauntlet, None) => Err(config_error!(
                "{}: format \"gauntlet\" needs a challenger\n  fix: set challenger = \
                 \"NAME\" ([tournament]) or --challenger NAME, naming one of the bots: {}",
                self.origin("format", shape.format_overridden),
                names(bots)
            )),
            (Format::Gauntlet, Some(c)) if !bots.iter().any(|b| &b.name == c) => {
                Err(config_error!(
                    "{}: no bot has that name\n  fix: name one of the bots: {}",
                    self.setting("challenger", och, format!("{c:?}")),
                    names(bots)
                ))
            }
            (f, Some(_)) if f != Format::Gauntlet => Err(config_error!(
                "{}: a challenger is only for format \"gauntlet\" (the format is {:?})\n  \
                 fix: remove the challenger, or set format = \"gauntlet\"",
                self.origin("challenger", och),
                f.name()
            )),
            _ => Ok(challenger),
        }
    }

    /// The SPRT's parameters: only for a gauntlet, whose tables must all be open at once.
    fn sprt(
        &self,
        sp: &SprtSection,
        overridden: bool,
        shape: &Shape,
        bots: usize,
    ) -> Result<crate::stats::sprt::SprtParams, Error> {
        let here = if overridden {
            "the command line: --sprt".to_string()
        } else {
            self.origin("sprt", false).replace("] sprt", ".sprt]")
        };
        let p = sp.params().map_err(|e| config_error!("{here}: {e}"))?;
        if shape.format != Format::Gauntlet {
            return Err(config_error!(
                "{here}: the SPRT tests a gauntlet's challenger against the field, and \
                 the format is {:?}\n  fix: add --format gauntlet --challenger NAME \
                 (format = \"gauntlet\", challenger = \"NAME\"), or leave the SPRT out",
                shape.format.name()
            ));
        }
        let (table_size, opponents) = (shape.table_size, bots - 1);
        let tables = crate::schedule::combinations(opponents, table_size - 1).len() * table_size;
        if tables > MAX_SPRT_TABLES {
            return Err(config_error!(
                "{here}: an SPRT gauntlet keeps every table open at once, and {opponents} \
                 opponents at tables of {table_size} make {tables} tables (at most \
                 {MAX_SPRT_TABLES})\n  fix: fewer opponents, or smaller tables"
            ));
        }
        Ok(p)
    }

    fn check_bot(&self, bot: &Bot, here: &str) -> Result<(), Error> {
        let cmd = bot
            .bot_command()
            .map_err(|e| config_error!("{here} command = {:?}: {e}", bot.command))?;
        if self.check_bots {
            cmd.check_exists().map_err(|e| {
                config_error!(
                    "{here} command = {:?}: {e}\n  fix: correct the command; relative paths are \
                     relative to the bot's working directory {}",
                    bot.command,
                    bot.cwd.display()
                )
            })?;
        }
        for (key, v) in [
            ("startup_ms", bot.limits.startup_ms),
            ("move_ms", bot.limits.move_ms),
            ("max_line_bytes", bot.limits.max_line_bytes as u64),
        ] {
            if v == 0 {
                return Err(config_error!(
                    "{here}: {key} = 0\n  fix: give {key} a positive value (or leave it out for \
                     the default)"
                ));
            }
        }
        Ok(())
    }
}
