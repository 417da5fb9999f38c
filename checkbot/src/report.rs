//! The report: what was sent, what came back, what was wrong and how to fix it; as text for
//! people and as JSON for machines.

use durak_protocol::text::escape_controls_multiline;
use durak_protocol::{FaultKind, Limits};
use serde::{Serialize, Serializer};
use std::fmt::Write;

/// The outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    /// Not a failure: something worth knowing (slow answers, no exit after match_end).
    Warn,
    Fail,
    /// Not run (an earlier failure made it pointless).
    Skip,
}

impl Status {
    fn mark(self) -> &'static str {
        match self {
            Status::Pass => "✓",
            Status::Warn => "!",
            Status::Fail => "✗",
            Status::Skip => "-",
        }
    }
}

/// What a problem is: one of the bot's faults, or the referee's own failure. Written (text and
/// JSON) by its name: the fault kind's, as results and replays name it (`illegal`, `schema`,
/// `timeout`, ...), or `referee`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    Fault(FaultKind),
    /// Not the bot's: the referee could not play the match (a replay directory not writable).
    Referee,
}

impl Cause {
    pub fn name(self) -> &'static str {
        match self {
            Cause::Fault(k) => k.name(),
            Cause::Referee => "referee",
        }
    }

    /// The fault kind, when the bot is at fault.
    pub fn fault(self) -> Option<FaultKind> {
        match self {
            Cause::Fault(k) => Some(k),
            Cause::Referee => None,
        }
    }
}

impl From<FaultKind> for Cause {
    fn from(k: FaultKind) -> Cause {
        Cause::Fault(k)
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Cause {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What was wrong with an answer (or with the bot's process).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    /// What went wrong: the fault kind, or the referee's failure.
    pub fault: Cause,
    /// The rule the move breaks (illegal moves).
    pub rule: Option<String>,
    /// A JSON pointer into the bot's message (schema faults).
    pub pointer: Option<String>,
    /// The referee's (or the engine's) explanation.
    pub message: String,
    /// How to fix it, in plain words.
    pub fix: String,
    /// The end of the bot's stderr, when it says something.
    pub stderr: Option<String>,
}

/// One request and the answer to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exchange {
    /// Which request: "the scripted decision", "request 12 (defend), later in the same game".
    pub label: String,
    pub id: u64,
    pub decision: String,
    /// The situation in words.
    pub summary: String,
    /// The request line as sent.
    pub request: String,
    /// The bot's line, if one came.
    pub answer: Option<String>,
    pub elapsed_ms: Option<f64>,
    /// The answer in words ("attack 7C 7D 9H"), or what went wrong.
    pub verdict: String,
    pub problem: Option<Problem>,
}

/// One check of the suite.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    pub id: String,
    pub title: String,
    /// Rule ids the check is about.
    pub rules: String,
    /// What is checked and what is legal.
    pub purpose: String,
    pub status: Status,
    /// The result in one line, shown under the title ("3 games, no faults").
    pub summary: Option<String>,
    /// One-line notes ("then the game went on: 14 more decisions, all legal").
    pub details: Vec<String>,
    /// The scripted request first; then the failing one, if another failed.
    pub exchanges: Vec<Exchange>,
    /// When it failed without an exchange (start-up, a crash between games).
    pub problem: Option<Problem>,
}

impl Check {
    pub fn new(id: &str, title: &str, rules: &str, purpose: &str) -> Check {
        Check {
            id: id.into(),
            title: title.into(),
            rules: rules.into(),
            purpose: purpose.into(),
            status: Status::Pass,
            summary: None,
            details: Vec::new(),
            exchanges: Vec::new(),
            problem: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub title: String,
    pub checks: Vec<Check>,
}

/// Answer times of one kind of decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimingRow {
    /// `hello`, `attack`, `defend` or `add`.
    pub decision: String,
    pub answers: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The bot command as given.
    pub command: String,
    /// Its working directory, when one was set.
    pub cwd: Option<String>,
    pub bot_name: Option<String>,
    pub bot_version: Option<String>,
    pub variants: Vec<String>,
    pub limits: Limits,
    pub passed: bool,
    pub sections: Vec<Section>,
    pub timing: Vec<TimingRow>,
    pub warnings: Vec<String>,
    /// Where the full games' replays were kept, if asked.
    pub replay_dir: Option<String>,
    /// The long match (many games in one process): peak memory, answer times.
    pub long: Option<LongReport>,
}

impl Report {
    /// Checks by status.
    pub fn count(&self, status: Status) -> usize {
        self.sections
            .iter()
            .flat_map(|s| &s.checks)
            .filter(|c| c.status == status)
            .count()
    }

    /// The failed checks' titles.
    pub fn failures(&self) -> Vec<String> {
        self.sections
            .iter()
            .flat_map(|s| s.checks.iter().map(move |c| (s, c)))
            .filter(|(_, c)| c.status == Status::Fail)
            .map(|(s, c)| format!("{}: {}", s.title, c.title))
            .collect()
    }

    /// The report for people, with the bot's text (its name, its lines, its stderr, the
    /// messages that quote them) escaped for a terminal: only the report's own newlines and
    /// tabs are kept.
    pub fn to_text(&self) -> String {
        escape_controls_multiline(&self.text_raw()).into_owned()
    }

    fn text_raw(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "durak check-bot: {}", self.command);
        if let Some(cwd) = &self.cwd {
            let _ = writeln!(o, "  working directory: {cwd}");
        }
        if let Some(name) = &self.bot_name {
            let _ = writeln!(
                o,
                "  the bot says it is {name:?}, version {:?}",
                self.bot_version.as_deref().unwrap_or("?")
            );
        }
        let _ = writeln!(
            o,
            "  variants: {}; limits: {} ms per decision (+ {} ms bank per game), {} ms to start",
            self.variants.join(", "),
            self.limits.move_ms,
            self.limits.bank_ms,
            self.limits.startup_ms
        );
        let mut seen = Vec::new();
        for s in &self.sections {
            let _ = writeln!(o, "\n{}", s.title);
            for c in &s.checks {
                write_check(&mut o, c, &mut seen);
            }
        }
        if !self.timing.is_empty() {
            let _ = writeln!(
                o,
                "\nAnswer times (from the moment the request was written)"
            );
            let _ = writeln!(
                o,
                "  {:<9} {:>7} {:>10} {:>10} {:>10}",
                "decision", "answers", "median", "p95", "max"
            );
            for t in &self.timing {
                let _ = writeln!(
                    o,
                    "  {:<9} {:>7} {:>10} {:>10} {:>10}",
                    t.decision,
                    t.answers,
                    ms(t.median_ms),
                    ms(t.p95_ms),
                    ms(t.max_ms)
                );
            }
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(o, "\nWarnings (they do not fail the check)");
            for w in &self.warnings {
                let _ = writeln!(o, "  ! {}", wrap_from(w, 4, 4));
            }
        }
        let total: usize = self.sections.iter().map(|s| s.checks.len()).sum();
        let failed = self.count(Status::Fail);
        let _ = writeln!(o);
        if self.passed {
            let _ = writeln!(
                o,
                "PASSED: {} of {total} checks passed{}.",
                self.count(Status::Pass),
                match self.count(Status::Warn) {
                    0 => String::new(),
                    w => format!(", {w} with a warning"),
                }
            );
        } else {
            let _ = writeln!(o, "FAILED: {failed} of {total} checks failed:");
            for f in self.failures() {
                let _ = writeln!(o, "  ✗ {f}");
            }
            let _ = writeln!(
                o,
                "Fix the first failure first: later ones are often the same mistake. \
                 Then run durak check-bot again."
            );
        }
        o
    }
}

fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.0} ms")
    }
}

/// Wrap `text` at 96 columns: the first line starts at column `first`, the others are indented
/// by `n`.
fn wrap(text: &str, n: usize) -> String {
    wrap_from(text, n, n)
}

fn wrap_from(text: &str, first: usize, n: usize) -> String {
    let mut out = String::new();
    for (i, para) in text.split('\n').enumerate() {
        let mut col = if i == 0 { first } else { n };
        if i > 0 {
            out.push('\n');
            out.push_str(&" ".repeat(n));
        }
        for (j, w) in para.split(' ').enumerate() {
            if j > 0 {
                if col + 1 + w.chars().count() > 96 && col > n {
                    out.push('\n');
                    out.push_str(&" ".repeat(n));
                    col = n;
                } else {
                    out.push(' ');
                    col += 1;
                }
            }
            out.push_str(w);
            col += w.chars().count();
        }
    }
    out
}

/// A raw line for the text report: at most `max` characters.
pub fn truncate(line: &str, max: usize) -> String {
    let n = line.chars().count();
    if n <= max {
        line.to_string()
    } else {
        let head: String = line.chars().take(max).collect();
        format!("{head}… ({} bytes in all)", line.len())
    }
}

/// A problem's signature, to say "the same mistake as above" instead of repeating it.
fn signature(p: &Problem) -> String {
    format!("{}|{:?}|{:?}", p.fault, p.rule, p.pointer)
}

fn write_check(o: &mut String, c: &Check, seen: &mut Vec<String>) {
    let rules = if c.rules.is_empty() {
        String::new()
    } else {
        format!(" ({})", c.rules)
    };
    let _ = writeln!(o, "  {} {}{rules}", c.status.mark(), c.title);
    if let Some(s) = &c.summary {
        let _ = writeln!(o, "      {}", wrap(s, 6));
    }
    let problems: Vec<&Problem> = c
        .exchanges
        .iter()
        .filter_map(|x| x.problem.as_ref())
        .chain(c.problem.as_ref())
        .collect();
    let repeated = !problems.is_empty() && problems.iter().all(|p| seen.contains(&signature(p)));
    if repeated {
        for x in c.exchanges.iter().filter(|x| x.problem.is_some()) {
            let _ = writeln!(o, "      {}:", wrap(&x.label, 6));
            if let Some(a) = &x.answer {
                let _ = writeln!(o, "      came back: {}", elide(a, 150, 150));
            }
        }
        for p in problems {
            let _ = writeln!(
                o,
                "      {}",
                wrap(
                    &format!("the same mistake as above ({}): {}", what(p), p.message),
                    8
                )
            );
            // The same mistake, but the bot said something new about it: show it.
            write_stderr(o, p, seen);
        }
        return;
    }
    if c.status == Status::Fail && !c.purpose.is_empty() {
        let _ = writeln!(
            o,
            "      what is checked: {}",
            wrap_from(&c.purpose, 23, 23)
        );
    }
    for x in &c.exchanges {
        if c.exchanges.len() > 1 || x.problem.is_some() {
            let _ = writeln!(o, "      {}:", wrap(&x.label, 6));
        }
        if !x.summary.is_empty() {
            let _ = writeln!(o, "      sent: {}", wrap_from(&x.summary, 12, 12));
        }
        if !x.request.is_empty() {
            let _ = writeln!(o, "        {}", elide(&x.request, 100, 220));
        }
        match &x.answer {
            Some(a) => {
                let took = x
                    .elapsed_ms
                    .map(|t| format!(" after {}", ms(t)))
                    .unwrap_or_default();
                let _ = writeln!(o, "      came back{took}: {}", elide(a, 150, 150));
            }
            None => {
                let _ = writeln!(o, "      came back: nothing");
            }
        }
        match &x.problem {
            None => {
                let _ = writeln!(o, "      verdict: legal: {}", wrap_from(&x.verdict, 22, 8));
            }
            Some(p) => write_problem(o, p, seen),
        }
    }
    for d in &c.details {
        let _ = writeln!(o, "      {}", wrap(d, 8));
    }
    if let Some(p) = &c.problem {
        write_problem(o, p, seen);
    }
}

/// The fault in words: "an illegal move, rule K-7".
fn what(p: &Problem) -> String {
    use FaultKind as K;
    let kind = match p.fault.fault() {
        Some(K::Illegal) => "an illegal move",
        Some(K::Schema) => "a message of the wrong shape (schema)",
        Some(K::Malformed) => "not JSON (malformed)",
        Some(K::Timeout) => "too slow (timeout)",
        Some(K::Crash) => "the bot ended (crash)",
        Some(K::Memory) => "the bot used too much memory (memory)",
        Some(K::Closed) => "the bot closed its output (closed)",
        Some(K::StartFailed) => "the bot did not start (start_failed)",
        Some(K::LineTooLong) => "a line too long (line_too_long)",
        Some(K::Forfeit) | None => p.fault.name(),
    };
    let rule = p
        .rule
        .as_ref()
        .map(|r| format!(", rule {r}"))
        .unwrap_or_default();
    let pointer = match p.pointer.as_deref() {
        None => String::new(),
        Some("") => ", in the message as a whole".to_string(),
        Some(r) => format!(", at {r}"),
    };
    format!("{kind}{rule}{pointer}")
}

/// A long line with its middle cut out: the first `head` and the last `tail` characters.
pub fn elide(line: &str, head: usize, tail: usize) -> String {
    let n = line.chars().count();
    if n <= head + tail + 20 {
        return line.to_string();
    }
    let h: String = line.chars().take(head).collect();
    let t: String = line.chars().skip(n - tail).collect();
    format!("{h} … {t}")
}

fn write_problem(o: &mut String, p: &Problem, seen: &mut Vec<String>) {
    let _ = writeln!(o, "      what was wrong: {}", what(p));
    let _ = writeln!(o, "        {}", wrap(&p.message, 8));
    let _ = writeln!(o, "      how to fix it:");
    let _ = writeln!(o, "        {}", wrap(&p.fix, 8));
    write_stderr(o, p, seen);
    let sig = signature(p);
    if !seen.contains(&sig) {
        seen.push(sig);
    }
}

/// The end of the bot's stderr with a problem, unless the same text was shown already.
fn write_stderr(o: &mut String, p: &Problem, seen: &mut Vec<String>) {
    let Some(e) = &p.stderr else { return };
    let key = format!("stderr|{e}");
    if seen.contains(&key) {
        return;
    }
    seen.push(key);
    let _ = writeln!(o, "      the bot's stderr ended with:");
    for l in e.lines() {
        let _ = writeln!(o, "        | {l}");
    }
}

/// How to fix a fault, for a beginner. `decision` is the kind of request it answered.
pub fn fix_for(fault: Cause, rule: Option<&str>, pointer: Option<&str>, decision: &str) -> String {
    let by_rule = match rule {
        Some("P-5") => Some(
            "a prostoy attack is 1 card, or 3 cards with a pair, or 5 cards with two pairs \
             (never 2 or 4), all from your hand, and the attacker may not pass. Pick a size \
             listed in legal.sizes.",
        ),
        Some("P-6") => Some(
            "never attack with more cards than the defender holds: use only a size listed in \
             legal.sizes.",
        ),
        Some("P-4") => Some(
            "send \"exchange\": true only when legal.exchange is not null; after the swap your \
             hand has legal.exchange.trump_card instead of legal.exchange.six, and your cards \
             must come from that hand.",
        ),
        Some("P-7") => Some(
            "prostoy has no take, add or pass: an attacker attacks, a defender answers \
             {\"action\": \"defend\", \"pairs\": [...]} (an empty list beats nothing and takes \
             the attack cards).",
        ),
        Some("P-8") => Some(
            "answer {\"action\": \"defend\", \"pairs\": [[attack, beater], ...]}: each pair's \
             attack card from legal.to_beat, its beater from that card's beaters, no beater used \
             twice. Leaving cards unbeaten is fine (\"pairs\": [] is legal); there is no \
             \"take\" in prostoy.",
        ),
        Some("K-7") => Some(
            "cover every card in legal.to_beat with a different card from its beaters, or \
             answer {\"action\": \"take\"}. A greedy choice of beaters can fail: search for a \
             complete assignment (backtracking), and take if there is none.",
        ),
        Some("K-4") => Some(
            "an opening attack is one card, or several cards of one rank, from legal.hand, at \
             most max(legal.sizes) of them; the attacker may not pass.",
        ),
        Some("K-3") => Some(
            "never put more attack cards on the table than the round's limit: attack with at \
             most max(legal.sizes) cards, add at most legal.room cards.",
        ),
        Some("K-6") => Some(
            "add only cards listed in legal.addable (their rank is already on the table), at \
             least one card, or answer {\"action\": \"pass\"}.",
        ),
        Some("K-5") | Some("K-8") | Some("K-9") => Some(
            "an add request is answered with {\"action\": \"add\", \"cards\": [...]} (cards \
             from legal.addable, at most legal.room) or {\"action\": \"pass\"}.",
        ),
        Some("C-4") => Some(
            "a card beats another of the same suit and lower rank, or any non-trump if it is \
             a trump. Take each beater from that attack card's legal.to_beat[i].beaters.",
        ),
        Some("C-1") => Some(
            "write every card as rank then suit (6 7 8 9 T J Q K A, then C D H S: \"TS\", \
             \"6C\"), and never list a card twice.",
        ),
        Some("R-2") => Some(
            "answer the kind of decision asked: \"attack\" for decision attack, \"defend\" (or \
             podkidnoy \"take\") for defend, \"add\" or \"pass\" for add.",
        ),
        _ => None,
    };
    if let Some(f) = by_rule {
        return f.to_string();
    }
    use FaultKind as K;
    match fault.fault() {
        Some(K::Schema) if pointer == Some("/id") => "copy the request's \"id\" into your answer \
             unchanged, as a number: {\"type\": \"answer\", \"id\": <the request's id>, ...}. \
             Answer each request exactly once, in order."
            .into(),
        Some(K::Schema) if pointer == Some("/protocol") => {
            "say \"protocol\": 1 in your hello: this referee speaks protocol version 1.".into()
        }
        Some(K::Schema) => format!(
            "send exactly the fields of the protocol: {{\"type\": \"answer\", \"id\": ..., \
             \"action\": ...}} plus the action's own fields (docs/PROTOCOL.md, \"Messages you \
             send\"; schemas/answer.json). Unknown fields are refused. This was a {decision} \
             request."
        ),
        Some(K::Malformed) => "print exactly one JSON object per line on stdout, and nothing else \
             there: debug output goes to stderr. Use your language's JSON library to write it."
            .into(),
        Some(K::Timeout) => {
            "answer every request with one line and flush stdout after it (Python: \
             print(..., flush=True); C: fflush(stdout)). Keep reading stdin while thinking, and \
             think less if you are slow: the clock runs from the moment the request is written."
                .into()
        }
        Some(K::Crash) => {
            "your bot exited or was killed: its stderr (below, if it wrote any) usually \
             says why. It must keep running until match_end, and ignore message types and \
             fields it does not know."
                .into()
        }
        Some(K::Memory) => {
            "your bot used more memory than its limit (all its processes together) and \
             the kernel killed it: keep less in memory (a JVM: -Xmx well below the limit; \
             caches with a bound), or ask the organiser for a higher --limit memory=..."
                .into()
        }
        Some(K::Closed) => "your bot closed its stdout: keep it open until match_end.".into(),
        Some(K::LineTooLong) => {
            "send one answer per line, ending with a newline; answers are short.".into()
        }
        Some(K::StartFailed) => "check the command: it must start your bot from its working \
             directory (a program on PATH or a path, then its arguments); if the bot ended \
             before its hello, its stderr (below, if it wrote any) usually says why (a syntax \
             error, a missing module). The bot must answer the referee's hello with \
             {\"type\": \"hello\", \"protocol\": 1, \"name\": ..., \"version\": ...}."
            .into(),
        _ => "see docs/PROTOCOL.md and docs/WRITING_A_BOT.md.".into(),
    }
}

/// What the long match found, for the JSON report (the text report shows it in its check).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LongReport {
    pub variant: String,
    /// Games asked for.
    pub games: u32,
    /// Games played to their end by the one process.
    pub played: u32,
    /// The most memory the bot used at once (all its processes), in bytes, when known.
    pub peak_memory_bytes: Option<u64>,
    /// The same after the first game (to see growth).
    pub peak_after_first_game_bytes: Option<u64>,
    /// Its memory limit, in bytes (`None`: unlimited).
    pub memory_limit_bytes: Option<u64>,
    /// Why the peak is not known, when it is not.
    pub memory_unknown: Option<String>,
    /// Answer times of the long match, by kind of decision.
    pub timing: Vec<TimingRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(fault: Cause) -> Problem {
        Problem {
            fault,
            rule: None,
            pointer: None,
            message: "m".into(),
            fix: fix_for(fault, None, None, "attack"),
            stderr: None,
        }
    }

    /// A problem's cause is written by its name, in JSON and in words: a fault kind's own name
    /// (as results and replays write it), or `referee` when the bot is not at fault.
    #[test]
    fn a_cause_is_written_by_its_name() {
        for k in FaultKind::ALL {
            let p = problem(k.into());
            let json = serde_json::to_value(&p).unwrap();
            assert_eq!(json["fault"], k.name());
            assert_eq!(p.fault.fault(), Some(k));
            assert!(
                what(&p).contains(k.name()) || k == FaultKind::Illegal,
                "{}",
                what(&p)
            );
        }
        let p = problem(Cause::Referee);
        assert_eq!(serde_json::to_value(&p).unwrap()["fault"], "referee");
        assert_eq!((p.fault.fault(), what(&p)), (None, "referee".to_string()));
        assert_eq!(p.fix, "see docs/PROTOCOL.md and docs/WRITING_A_BOT.md.");
        // Each fault kind of the bot's has its own fix.
        let timeout = fix_for(FaultKind::Timeout.into(), None, None, "");
        assert!(timeout.contains("flush"), "{timeout}");
    }
}
