//! # durak-checkbot
//!
//! The conformance suite behind `durak check-bot` and `durak submit` (issue 7). It runs a real
//! bot process through the real protocol and judges every answer with the rules engine:
//!
//! 1. **Protocol basics**: the hello (name, version, protocol 1, within the start-up limit),
//!    answers that echo the request id, a bot that keeps running after `game_end` and exits
//!    after `match_end`.
//! 2. **Scripted positions** ([`positions`]): explicit deals and a few scripted moves that reach
//!    every kind of decision (prostoy attack with and without the trump-six exchange, partial
//!    defence; podkidnoy opening attack, cover-or-take, add after a defence and after a take,
//!    with 2 and 3 players). The bot gets the events its seat would have seen, then the request;
//!    the answer is validated (schema, id, `Game::check`), and the game is played on to its end.
//! 3. **Full games** against the built-in bots in each variant, through the referee itself.
//! 4. **The long match** ([`long`]): many games in one process (`--long N`, 100 by default),
//!    with the bot's peak memory and its answer times: what kills a bot dozens of games in.
//! 5. **Answer times**: median, p95 and max per kind of decision, with warnings near the limit.
//!
//! The result is a [`Report`]: text for people ([`Report::to_text`]), JSON for machines.

pub mod basics;
pub mod build;
pub mod deliver;
pub mod describe;
pub mod fork;
pub mod games;
pub mod long;
pub mod manifest;
pub mod positions;
pub mod report;
pub mod rerun;
pub mod session;

pub use report::{Cause, Check, Exchange, Problem, Report, Section, Status, TimingRow};

use durak_protocol::Limits;
use durak_referee::BotCommand;
use durak_rules::Variant;
use std::path::PathBuf;

/// What to check, and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub variants: Vec<Variant>,
    /// Games per table in the full-games part (0: no full games).
    pub games: u32,
    /// The bot's limits (move, bank, start-up, line length).
    pub limits: Limits,
    /// The seed of the full games (the scripted part is fixed).
    pub seed: u64,
    /// Keep the full games' replays here (default: a temporary directory, removed).
    pub replay_dir: Option<PathBuf>,
    /// Games of the long match, all in one process (0: none).
    pub long: u32,
}

/// The default [`Options::long`]: enough games for what kills a bot dozens of games in (a
/// runtime at its memory limit, a leak), in a few seconds for a fast bot.
pub const DEFAULT_LONG: u32 = 100;

impl Default for Options {
    fn default() -> Options {
        Options {
            variants: vec![Variant::Prostoy, Variant::Podkidnoy],
            games: 3,
            limits: Limits::default(),
            seed: 1,
            replay_dir: None,
            long: DEFAULT_LONG,
        }
    }
}

/// Run the whole suite against the bot started by `cmd` (its `cwd` is the working directory).
pub async fn check_bot(cmd: &BotCommand, opts: &Options) -> Report {
    let mut report = Report {
        command: cmd.spec.clone(),
        cwd: cmd.cwd.as_ref().map(|d| d.display().to_string()),
        bot_name: None,
        bot_version: None,
        variants: opts.variants.iter().map(|v| v.name().to_string()).collect(),
        limits: opts.limits,
        passed: false,
        sections: Vec::new(),
        timing: Vec::new(),
        warnings: Vec::new(),
        replay_dir: opts.replay_dir.as_ref().map(|d| d.display().to_string()),
        long: None,
    };
    let mut basics = Section {
        title: "Protocol basics".into(),
        checks: Vec::new(),
    };
    // A command that cannot run at all: say so plainly, before anything else.
    if let Err(e) = cmd.check_exists() {
        basics.checks.push(basics::cannot_start(e.to_string()));
        report.sections.push(basics);
        return report;
    }

    let mut session = session::Session::new(cmd, opts.limits);
    let scripted = scripted_sections(&mut session, opts).await;
    let f = &session.findings;
    // Protocol basics, from what the scripted part saw.
    if let Some((name, version)) = basics::judge(f, &opts.limits, &mut basics) {
        report.bot_name = Some(name);
        report.bot_version = Some(version);
    }
    let started = f.hello.is_some();
    if f.timeouts > 0 {
        report.warnings.push(
            "after the first timeout, the remaining scripted positions gave the bot no time \
             bank (only the limit per decision), to keep the check short"
                .into(),
        );
    }
    let mut times = f.times.clone();
    let hello_times = f.hello_times.clone();
    let timed_out = f.timeouts > 0;
    report.sections.push(basics);
    report.sections.extend(scripted);
    if opts.games > 0 {
        let section = full_games(cmd, opts, started, timed_out, &mut report, &mut times).await;
        report.sections.push(section);
    }
    if opts.long > 0 {
        let section = long_match(&mut session, opts, started, &mut report).await;
        report.sections.push(section);
    }
    answer_times(&mut report, &times, hello_times, &opts.limits);
    report.passed = report.count(Status::Fail) == 0;
    report
}

/// The scripted positions, grouped by (variant, players): one match per group, a section each.
async fn scripted_sections(session: &mut session::Session<'_>, opts: &Options) -> Vec<Section> {
    let mut groups: Vec<Vec<&positions::Position>> = Vec::new();
    for p in positions::positions(&opts.variants) {
        match groups.last_mut() {
            Some(g) if g[0].variant == p.variant && g[0].players() == p.players() => g.push(p),
            _ => groups.push(vec![p]),
        }
    }
    let mut scripted: Vec<Section> = Vec::new();
    for g in &groups {
        let title = format!(
            "Scripted positions: {}, {} players (you are seat 0)",
            g[0].variant.name(),
            g[0].players()
        );
        if session.findings.hello.is_none() && session.findings.start_problem.is_some() {
            // The bot never started: the other positions would say the same.
            let checks = g
                .iter()
                .map(|p| {
                    let mut c = Check::new(p.id, p.title, p.rules, p.purpose);
                    c.status = Status::Skip;
                    c.summary = Some("not checked: the bot did not start (see hello)".into());
                    c
                })
                .collect();
            scripted.push(Section { title, checks });
            continue;
        }
        let checks = session.run_group(g).await;
        scripted.push(Section { title, checks });
    }
    scripted
}

/// Full games against the built-in bots, through the referee itself (skipped when the bot did
/// not start or timed out in the scripted part). Their answer times join `times`.
async fn full_games(
    cmd: &BotCommand,
    opts: &Options,
    started: bool,
    timed_out: bool,
    report: &mut Report,
    times: &mut Vec<(String, f64)>,
) -> Section {
    let mut section = Section {
        title: format!(
            "Full games against the built-in bots ({} per table)",
            opts.games
        ),
        checks: Vec::new(),
    };
    if !started || timed_out {
        let mut c = Check::new("games", "full games", "", "");
        c.status = Status::Skip;
        c.summary = Some(if started {
            "skipped: the bot timed out in the scripted positions; fix that first (every \
             timeout in a full game would wait for the whole time limit)"
                .into()
        } else {
            "skipped: the bot did not start (see hello)".into()
        });
        section.checks.push(c);
        return section;
    }
    let tmp;
    let dir = match &opts.replay_dir {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::tempdir();
            match &tmp {
                Ok(t) => t.path().to_path_buf(),
                Err(e) => {
                    report
                        .warnings
                        .push(format!("no temporary directory for replays: {e}"));
                    std::env::temp_dir().join("durak-check-bot")
                }
            }
        }
    };
    let full = games::play(
        cmd,
        opts.limits,
        &opts.variants,
        opts.games,
        opts.seed,
        &dir,
        opts.replay_dir.is_some(),
    )
    .await;
    times.extend(full.times);
    report.warnings.extend(full.warnings);
    section.checks = full.checks;
    if opts.replay_dir.is_none() && section.checks.iter().any(|c| c.status == Status::Fail) {
        report.warnings.push(
            "to step through the failed games, run again with --replay-dir DIR and open \
                 a replay with durak replay DIR/.../game-NNNN.jsonl"
                .into(),
        );
    }
    section
}

/// The long match, in one process: podkidnoy when both variants are checked.
async fn long_match(
    session: &mut session::Session<'_>,
    opts: &Options,
    started: bool,
    report: &mut Report,
) -> Section {
    let variant = if opts.variants.contains(&Variant::Podkidnoy) {
        Variant::Podkidnoy
    } else {
        opts.variants[0]
    };
    let mut section = Section {
        title: format!(
            "Long match: {} games of {} in one process, against a greedy player",
            opts.long,
            variant.name()
        ),
        checks: Vec::new(),
    };
    if !started || session.findings.timeouts > 0 {
        let mut c = Check::new(
            "long",
            &format!("{} games in one process", opts.long),
            "",
            "",
        );
        c.status = Status::Skip;
        c.summary = Some(if started {
            "skipped: the bot timed out in the scripted positions; fix that first".into()
        } else {
            "skipped: the bot did not start (see hello)".into()
        });
        section.checks.push(c);
    } else {
        let l = long::play(session, variant, opts.long, opts.seed).await;
        section.checks.push(l.check);
        report.warnings.extend(l.warnings);
        report.long = Some(l.report);
    }
    section
}

/// Answer times: median, p95 and max per kind of decision, with warnings near the limit.
fn answer_times(
    report: &mut Report,
    times: &[(String, f64)],
    hello_times: Vec<f64>,
    limits: &Limits,
) {
    if !hello_times.is_empty() {
        report.timing.push(timing_row("hello", hello_times));
    }
    for kind in ["attack", "defend", "add"] {
        let v: Vec<f64> = times
            .iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, t)| *t)
            .collect();
        if !v.is_empty() {
            report.timing.push(timing_row(kind, v));
        }
    }
    let move_ms = limits.move_ms as f64;
    for row in &report.timing {
        let (limit, what) = if row.decision == "hello" {
            (limits.startup_ms as f64, "start-up limit")
        } else {
            (move_ms, "limit per decision")
        };
        if row.max_ms > limit / 2.0 {
            report.warnings.push(format!(
                "the slowest {} answer took {:.0} ms, more than half the {:.0} ms {what}: on a \
                 busier machine it could time out",
                row.decision, row.max_ms, limit
            ));
        }
    }
    let over = times.iter().filter(|(_, t)| *t > move_ms).count();
    if over > 0 {
        report.warnings.push(format!(
            "{over} answer{} took longer than {move_ms:.0} ms and used the time bank",
            if over == 1 { "" } else { "s" }
        ));
    }
}

/// Median, p95 and max of some times.
pub fn timing_row(decision: &str, mut v: Vec<f64>) -> TimingRow {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| {
        let i = ((v.len() as f64 - 1.0) * q).round() as usize;
        (v[i.min(v.len() - 1)] * 100.0).round() / 100.0
    };
    TimingRow {
        decision: decision.into(),
        answers: v.len(),
        median_ms: at(0.5),
        p95_ms: at(0.95),
        max_ms: at(1.0),
    }
}
