//! `--resume`: the recorded settings checked against those given again (see the parent module's
//! documentation for which are fixed and which may change).

use super::{recorded_limit, Settings};
use crate::config::{ConfigFile, Input, TournamentSection};
use crate::error::Error;
use durak_referee::isolation::format_limit;
use durak_referee::ResourceLimits;
use std::path::Path;

/// What `--resume` runs with: the recorded settings, with the changes allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resumed {
    pub settings: Settings,
    pub concurrency: Option<usize>,
    /// For people: each accepted change, each setting the file did not record.
    pub notes: Vec<String>,
    /// `tournament.toml` must be written again (a change, or a setting it lacked).
    pub changed: bool,
}

/// The settings a resume runs with. `config_path` and `recorded`: `DIR/tournament.toml` and its
/// contents; `given`: what the resume command gave (a `-c` file, if any, and the command line).
/// A fixed setting given with another value is refused (every such setting is named, with
/// both values and their origins); see the module documentation.
pub fn resume_settings(
    config_path: &Path,
    recorded: &ConfigFile,
    given: &Input,
) -> Result<Resumed, Error> {
    let rec_input = Input {
        file: Some((config_path.to_path_buf(), recorded.clone())),
        ..Input::default()
    };
    let rec = rec_input.resolve_settings()?;
    let now = given.resolve_settings()?;
    let empty = ConfigFile::default();
    let gfile = given.file.as_ref().map(|(_, f)| f).unwrap_or(&empty);
    let mut r = Resume {
        config_path,
        r: &recorded.tournament,
        g: &gfile.tournament,
        given,
        out: rec.clone(),
        rec,
        now,
        conflicts: Vec::new(),
        notes: Vec::new(),
        changed: false,
    };
    r.fixed_sandbox();
    r.fixed_affinity();
    r.fixed_shard();
    r.fixed_limits();
    r.refuse_conflicts()?;
    let concurrency = r.accept_changes();
    Ok(Resumed {
        settings: r.out,
        concurrency,
        notes: r.notes,
        changed: r.changed,
    })
}

/// One resume's work: the recorded settings (`rec`, from the file `r`), those given now (`now`,
/// from the `-c` file's table `g` and the command line), and what comes of them.
struct Resume<'a> {
    config_path: &'a Path,
    r: &'a TournamentSection,
    g: &'a TournamentSection,
    given: &'a Input,
    rec: Settings,
    now: Settings,
    out: Settings,
    conflicts: Vec<String>,
    notes: Vec<String>,
    changed: bool,
}

impl Resume<'_> {
    fn o(&self) -> &TournamentSection {
        &self.given.overrides
    }

    /// Where a given value comes from, if it was given: `cli`, the flag as written, when it was
    /// on the command line; else the `-c` file's key, when it is there.
    fn given_at(
        &self,
        key: &str,
        cli: Option<String>,
        in_file: bool,
        value: String,
    ) -> Option<String> {
        match (cli, &self.given.file) {
            (Some(flag), _) => Some(format!("the command line: {flag}")),
            (None, Some((p, _))) if in_file => {
                Some(format!("{}: [tournament] {key} = {value}", p.display()))
            }
            _ => None,
        }
    }

    fn rec_at(&self, key: &str, value: String) -> String {
        format!(
            "{}: [tournament] {key} = {value}",
            self.config_path.display()
        )
    }

    /// A setting the file did not record: taken from `from` (or the default), with a note.
    fn unrecorded(&mut self, key: &str, value: String, from: Option<String>) {
        self.notes.push(format!(
            "note: {} does not record {key} (an older durak wrote it): {} {value}; it is \
             recorded now",
            self.config_path.display(),
            match from {
                Some(f) => format!("as {f} says,"),
                None => "the default,".to_string(),
            }
        ));
        self.changed = true;
    }

    fn fixed_sandbox(&mut self) {
        let (rec, now) = (self.rec.sandbox, self.now.sandbox);
        let from = self.given_at(
            "sandbox",
            self.o()
                .sandbox
                .is_some()
                .then(|| format!("--sandbox {now}")),
            self.g.sandbox.is_some(),
            format!("{:?}", now.name()),
        );
        match (&self.r.sandbox, from) {
            (Some(_), Some(from)) if now != rec => {
                let at = self.rec_at("sandbox", format!("{:?}", rec.name()));
                self.conflicts.push(format!(
                    "{at}, but {from}: the sandbox cannot change on resume"
                ));
            }
            (Some(_), _) => {}
            (None, from) => {
                self.out.sandbox = now;
                self.unrecorded("sandbox", now.name().into(), from);
            }
        }
    }

    fn fixed_affinity(&mut self) {
        let (rec, now) = (self.rec.affinity, self.now.affinity);
        let from = self.given_at(
            "affinity",
            self.o()
                .affinity
                .is_some()
                .then(|| format!("--affinity {}", now.name())),
            self.g.affinity.is_some(),
            format!("{:?}", now.name()),
        );
        match (&self.r.affinity, from) {
            (Some(_), Some(from)) if now != rec => {
                let at = self.rec_at("affinity", format!("{:?}", rec.name()));
                self.conflicts.push(format!(
                    "{at}, but {from}: the CPU affinity cannot change on resume"
                ));
            }
            (Some(_), _) => {}
            (None, from) => {
                self.out.affinity = now;
                self.unrecorded("affinity", now.name().into(), from);
            }
        }
    }

    /// The shard: fixed (its games are the directory's; another split is another directory).
    fn fixed_shard(&mut self) {
        let (rec, now) = (self.rec.shard, self.now.shard);
        let from = self.given_at(
            "shard",
            self.o().shard.as_ref().map(|sh| format!("--shard {sh}")),
            self.g.shard.is_some(),
            format!("{:?}", now.map(|sh| sh.to_string())),
        );
        if let Some(from) = from.filter(|_| now != rec) {
            let at = match rec {
                Some(sh) => self.rec_at("shard", format!("\"{sh}\"")),
                None => format!(
                    "{} has no shard (every game is played here)",
                    self.config_path.display()
                ),
            };
            self.conflicts.push(format!(
                "{at}, but {from}: the shard cannot change on resume"
            ));
        }
    }

    /// Where the limit `key`, whose value is now `is`, was given, if it was.
    fn limit_given_at(&self, key: &str, is: Option<u64>) -> Option<String> {
        match (
            self.o().limits.as_ref().and_then(|m| m.get(key)),
            self.given.file.as_ref(),
        ) {
            (Some(_), _) => Some(format!(
                "the command line: --limit {key}={}",
                format_limit(is)
            )),
            (None, Some((p, f)))
                if f.tournament
                    .limits
                    .as_ref()
                    .is_some_and(|m| m.contains_key(key)) =>
            {
                Some(format!(
                    "{}: [tournament.limits] {key} = {}",
                    p.display(),
                    recorded_limit(is)
                ))
            }
            _ => None,
        }
    }

    fn fixed_limits(&mut self) {
        let rec_limits = self.r.limits.clone().unwrap_or_default();
        for key in ResourceLimits::KEYS {
            let was = self.rec.limits.get(key).flatten();
            let is = self.now.limits.get(key).flatten();
            let from = self.limit_given_at(key, is);
            if rec_limits.contains_key(key) {
                if let Some(from) = from.filter(|_| was != is) {
                    self.conflicts.push(format!(
                        "{}: [tournament.limits] {key} = {}, but {from}: a limit cannot change \
                         on resume",
                        self.config_path.display(),
                        recorded_limit(was)
                    ));
                }
            } else {
                let v = if from.is_some() {
                    is
                } else {
                    ResourceLimits::default().get(key).flatten()
                };
                self.out
                    .limits
                    .set_value(key, &format_limit(v))
                    .expect("a formatted limit reads back");
                self.unrecorded(&format!("the limit {key}"), format_limit(v), from);
            }
        }
    }

    fn refuse_conflicts(&self) -> Result<(), Error> {
        if self.conflicts.is_empty() {
            return Ok(());
        }
        Err(resume_error!(
            "{}\n  (the games already played ran with the recorded settings; the rest must too, \
             for fairness and safety)\n  fix: leave {} out to go on as recorded: `{}`; or start a \
             new tournament in another directory with --out DIR",
            self.conflicts.join("\n"),
            if self.conflicts.len() == 1 {
                "it"
            } else {
                "them"
            },
            crate::error::resume_command(self.config_path.parent().unwrap_or(Path::new(".")))
        ))
    }

    /// A setting that may change, given as `is` where `was` is recorded: accepted with a note
    /// when it differs. True when accepted.
    fn accept(&mut self, key: &str, was: String, is: String, from: Option<String>) -> bool {
        let Some(from) = from.filter(|_| was != is) else {
            return false;
        };
        self.notes.push(format!(
            "note: {key} {is} ({from}) instead of {was} as recorded in {}: it changes nothing \
             that is recorded of a game; recorded for the next resume",
            self.config_path.display()
        ));
        self.changed = true;
        true
    }

    /// The settings that may change: accepted, noted, recorded. Returns the concurrency.
    fn accept_changes(&mut self) -> Option<usize> {
        if self.r.html.is_none() || self.r.replays.is_none() {
            self.changed = true;
        }
        let concurrency = self.accept_concurrency();
        self.accept_html();
        self.accept_analysis();
        self.accept_replays();
        self.accept_name();
        concurrency
    }

    fn accept_concurrency(&mut self) -> Option<usize> {
        let show =
            |c: Option<usize>| c.map_or("the number of cores".to_string(), |c| c.to_string());
        let (rc, gc) = (
            self.r.concurrency,
            self.o().concurrency.or(self.g.concurrency),
        );
        let from = self.given_at(
            "concurrency",
            self.o().concurrency.map(|c| format!("-j {c}")),
            self.g.concurrency.is_some(),
            show(gc),
        );
        if self.accept("concurrency", show(rc), show(gc), from) {
            gc
        } else {
            rc
        }
    }

    fn accept_html(&mut self) {
        let now = self.now.html;
        let from = self.given_at(
            "html",
            self.o()
                .html
                .map(|h| if h { "--html" } else { "--no-html" }.to_string()),
            self.g.html.is_some(),
            now.to_string(),
        );
        if self.accept("html", self.rec.html.to_string(), now.to_string(), from) {
            self.out.html = now;
        }
    }

    fn accept_analysis(&mut self) {
        let (was, is) = (!self.rec.no_analysis, !self.now.no_analysis);
        let from = self.given_at(
            "analysis",
            self.o()
                .analysis
                .map(|a| if a { "--analysis" } else { "--no-analysis" }.to_string()),
            self.g.analysis.is_some(),
            is.to_string(),
        );
        if self.accept("analysis", was.to_string(), is.to_string(), from) {
            self.out.no_analysis = self.now.no_analysis;
        }
    }

    fn accept_replays(&mut self) {
        let now = self.now.replays;
        let from = self.given_at(
            "replays",
            self.o().replays.as_ref().map(|f| format!("--replays {f}")),
            self.g.replays.is_some(),
            format!("{:?}", now.name()),
        );
        if self.accept(
            "replays",
            self.rec.replays.name().into(),
            now.name().into(),
            from,
        ) {
            self.out.replays = now;
        }
    }

    fn accept_name(&mut self) {
        let show = |n: &Option<String>| n.as_deref().map_or("none".into(), |n| format!("{n:?}"));
        let (was, is) = (show(&self.rec.name), show(&self.now.name));
        let from = self.given_at(
            "name",
            self.o().name.as_ref().map(|n| format!("--name {n}")),
            self.g.name.is_some(),
            is.clone(),
        );
        if self.accept("name", was, is, from) {
            self.out.name = self.now.name.clone();
        }
    }
}
