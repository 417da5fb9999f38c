//! What `durak tournament` shows while it runs, on stderr: on a terminal, a progress bar; off a
//! terminal (a pipe, nohup, CI), where a bar would be hidden, a progress line every few seconds
//! (games done of the total, rate, ETA, faults) and one at the end; with `--standings-every N`,
//! the standings as of each multiple of N games recorded, exactly (the writer's observer feeds
//! each recorded game to a standings builder, seeded with what `results.jsonl` held at the
//! start, and prints when the count reaches a multiple). With the SPRT,
//! the bar and each line also show the test over the games recorded: its LLR, bounds, deals and
//! games, the challenger's score and Elo with its interval.

use durak_tournaments::results::ResultLine;
use durak_tournaments::runner::Observer;
use durak_tournaments::sprt::SprtTracker;
use durak_tournaments::standings::{Standings, StandingsBuilder};
use durak_tournaments::{Tournament, TournamentDir};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Off a terminal, a progress line this often (`DURAK_PROGRESS_INTERVAL_MS` changes it: tests).
const LINE_INTERVAL: Duration = Duration::from_secs(5);

/// How progress is shown.
pub struct Progress {
    pub bar: ProgressBar,
    quiet: bool,
    /// Progress lines instead of a bar (stderr is not a terminal).
    lines: bool,
    total: AtomicUsize,
    done: AtomicUsize,
    faults: AtomicUsize,
    /// Games recorded when this run started (for the rate).
    at_start: AtomicUsize,
    started: Mutex<Instant>,
    stop: (Mutex<bool>, Condvar),
    /// The SPRT over the games recorded (fed each recorded game).
    sprt: Mutex<Option<SprtTracker>>,
    /// The run has said how many games it has ([`Observer::start`]): lines before that would
    /// say 0 of 0.
    begun: std::sync::atomic::AtomicBool,
    /// `--standings-every N`: N, and the standings of the games recorded so far.
    every: Mutex<Option<(usize, StandingsBuilder)>>,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        let lines = !quiet && !std::io::stderr().is_terminal();
        let bar = if quiet || lines {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {pos}/{len} games · ETA {eta} · {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        bar.set_message(faults_text(0));
        Progress {
            bar,
            quiet,
            lines,
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            faults: AtomicUsize::new(0),
            at_start: AtomicUsize::new(0),
            started: Mutex::new(Instant::now()),
            stop: (Mutex::new(false), Condvar::new()),
            sprt: Mutex::new(None),
            begun: std::sync::atomic::AtomicBool::new(false),
            every: Mutex::new(None),
        }
    }

    /// Show the SPRT too, from `tracker` (the games recorded so far) on.
    pub fn set_sprt(&self, tracker: Option<SprtTracker>) {
        *self.sprt.lock().unwrap_or_else(|e| e.into_inner()) = tracker;
    }

    /// The bar's message: the faults, and the LLR with its bounds.
    fn message(&self, faults: usize) -> String {
        match &*self.sprt.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(tr) => {
                let s = tr.status();
                format!(
                    "{} · SPRT LLR {:+.2} in [{:.2}, {:+.2}]",
                    faults_text(faults),
                    s.llr,
                    s.lower,
                    s.upper
                )
            }
            None => faults_text(faults),
        }
    }

    /// Print something on stderr without breaking the bar.
    fn say(&self, text: &str) {
        if self.lines {
            eprintln!("{text}");
        } else {
            self.bar.suspend(|| eprintln!("{text}"));
        }
    }

    /// `progress: 1200/5400 games (22%), 410 games/s, ETA 0:10, 3 faults`
    fn line(&self) -> String {
        let (total, done) = (
            self.total.load(Ordering::Relaxed),
            self.done.load(Ordering::Relaxed),
        );
        let now = done.saturating_sub(self.at_start.load(Ordering::Relaxed));
        let secs = self
            .started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
            .as_secs_f64();
        let rate = if secs > 0.0 { now as f64 / secs } else { 0.0 };
        let eta = if done >= total {
            "done".to_string()
        } else if rate > 0.0 {
            let s = ((total - done) as f64 / rate).round() as u64;
            format!("ETA {}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
        } else {
            "ETA unknown".to_string()
        };
        let faults = faults_text(self.faults.load(Ordering::Relaxed));
        if let Some(tr) = &*self.sprt.lock().unwrap_or_else(|e| e.into_inner()) {
            // The test stops the run: the schedule's end is a cap, not an ETA.
            return format!(
                "progress: {done} games (at most {total}), {rate:.0} games/s, {faults} · {}",
                tr.status()
            );
        }
        format!(
            "progress: {done}/{total} games ({:.0}%), {rate:.0} games/s, {eta}, {faults}",
            if total == 0 {
                100.0
            } else {
                done as f64 * 100.0 / total as f64
            },
        )
    }

    /// Show progress until [`Progress::finish`]: a line every interval off a terminal (a
    /// thread; returned, to join after `finish`), and with `standings_every`, the standings as
    /// of each multiple of that many games recorded (from [`Observer::game`], seeded here with
    /// what `results.jsonl` holds).
    pub fn watch(
        self: &Arc<Progress>,
        t: &Tournament,
        dir: &TournamentDir,
        standings_every: Option<usize>,
    ) -> Option<std::thread::JoinHandle<()>> {
        if self.quiet {
            return None;
        }
        if let Some(n) = standings_every.filter(|&n| n > 0) {
            let mut b = Standings::builder(t);
            match durak_tournaments::results::LineReader::open(&dir.results_path()) {
                Ok(lines) => {
                    for l in lines.flatten() {
                        b.add(&l.line);
                    }
                }
                Err(e) => self.say(&format!("standings: cannot read them yet: {e}")),
            }
            *self.every.lock().unwrap_or_else(|e| e.into_inner()) = Some((n, b));
        }
        if !self.lines {
            return None;
        }
        let interval = std::env::var("DURAK_PROGRESS_INTERVAL_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(LINE_INTERVAL, Duration::from_millis);
        let me = self.clone();
        std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || me.ticker(interval))
            .ok()
    }

    fn ticker(&self, interval: Duration) {
        loop {
            let stopped = {
                let guard = self.stop.0.lock().unwrap_or_else(|e| e.into_inner());
                let (guard, _) = self
                    .stop
                    .1
                    .wait_timeout_while(guard, interval, |stop| !*stop)
                    .unwrap_or_else(|e| e.into_inner());
                *guard
            };
            if self.begun.load(Ordering::Relaxed) {
                self.say(&self.line());
            }
            if stopped {
                return;
            }
        }
    }

    /// A game was recorded, the `done`th: with `--standings-every N`, count it, and at a
    /// multiple of N print the standings of exactly those games.
    fn standings_at(&self, line: &ResultLine, done: usize) {
        let mut every = self.every.lock().unwrap_or_else(|e| e.into_inner());
        let Some((n, b)) = every.as_mut() else {
            return;
        };
        b.add(line);
        if done % *n == 0 {
            let s = b.clone().finish();
            drop(every);
            self.say(&format!(
                "standings after {} of {} games:\n{}",
                s.games_played,
                s.games_scheduled,
                s.to_text().trim_end()
            ));
        }
    }

    /// The run is over: the watcher prints its last line (off a terminal) and ends.
    pub fn finish(&self, watcher: Option<std::thread::JoinHandle<()>>) {
        *self.stop.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.stop.1.notify_all();
        if let Some(w) = watcher {
            let _ = w.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn start(&self, total: usize, done: usize, faults: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
        self.at_start.store(done, Ordering::Relaxed);
        self.faults.store(faults, Ordering::Relaxed);
        *self.started.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        self.bar.set_message(self.message(faults));
        self.bar.reset_eta();
        self.begun.store(true, Ordering::Relaxed);
    }

    fn game(&self, line: &ResultLine, done: usize, faults: usize) {
        if let Some(tr) = self.sprt.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            tr.add(line);
        }
        self.standings_at(line, done);
        self.done.store(done, Ordering::Relaxed);
        self.faults.store(faults, Ordering::Relaxed);
        self.bar.set_position(done as u64);
        self.bar.set_message(self.message(faults));
    }

    fn disqualified(&self, bot: &str, reason: &str) {
        if !self.quiet {
            self.say(&format!(
                "disqualified: {bot}: {}",
                durak_protocol::text::escape_controls(reason)
            ));
        }
    }
}

fn faults_text(n: usize) -> String {
    format!("{n} fault{}", if n == 1 { "" } else { "s" })
}
