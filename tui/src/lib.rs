//! # durak-tui
//!
//! The terminal UI (ratatui + crossterm), apart from the replay model (`durak-replay`) so that
//! what only reads and verifies replays (the service, check-bot) does not build it: the
//! interactive replay viewer, `durak replay FILE` on a terminal, and the human seat's screen
//! ([`seat`], `durak play human BOT`).
//!
//! The state and the key handling ([`App`]) are plain data, tested without a terminal; [`draw`]
//! renders one frame (tested on ratatui's `TestBackend`, 80×24 and larger); [`run`] is the loop
//! around them, which also plays the game by itself (`p`).
//!
//! The layout is in [`layout`]: [`layout::draw_step`] draws one [`StepView`] (seats and hands,
//! the table, the decision, the events, stderr) into any area, laid out for its size (two
//! columns when wide, one down to 80×24, every hand in full), so that another screen — a human
//! seat in `durak play` — can show a position the same way with its own header and keys.

mod layout;
pub mod seat;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use durak_protocol::text::escape_controls;
use durak_replay::sim::Simulation;
use durak_replay::view::step_view;
use durak_rules::solve::{Unsolved, Value};
use durak_rules::{EventKind, Seat};
use layout::{dim, draw_help, draw_step_scrolled};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::time::{Duration, Instant};

/// Steps moved by PageUp / PageDown.
pub const PAGE: usize = 10;

/// Autoplay's delays between steps, in ms (`+` / `-` pick the next).
pub const DELAYS: [u64; 5] = [2000, 1000, 500, 250, 100];

/// The viewer's state: which step, whose view, a step number being typed, autoplay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    /// The step shown, 0-based (shown 1-based).
    pub step: usize,
    pub steps: usize,
    pub players: usize,
    /// `None`: the full view; else one seat's view.
    pub viewer: Option<Seat>,
    /// Digits typed to jump to a step (Enter jumps).
    pub jump: Option<String>,
    pub help: bool,
    pub quit: bool,
    /// Steps (0-based) with a fault, for `f` / `F`.
    pub faults: Vec<usize>,
    /// Steps (0-based) where a round (a turn, in prostoy) starts, for `r` / `R`.
    pub rounds: Vec<usize>,
    /// Autoplay is on: [`App::tick`] moves a step every [`App::delay`].
    pub playing: bool,
    /// Index into [`DELAYS`].
    pub speed: usize,
    /// Rows the decision panel is scrolled down by (`j` / `k`; back to 0 at another step or
    /// view).
    pub scroll: usize,
    /// The largest useful [`App::scroll`], as the last frame drawn found it.
    pub scroll_max: std::cell::Cell<usize>,
    /// Per step (0-based), the endgame value of its decision in words (`durak analyze`), when
    /// the step is in the solved part ([`App::with_analysis`]).
    pub values: Vec<Option<String>>,
    /// Steps (0-based) whose move was a blunder, for `b` / `B`.
    pub blunders: Vec<usize>,
}

impl App {
    pub fn new(steps: usize, players: usize) -> App {
        App {
            step: 0,
            steps: steps.max(1),
            players,
            viewer: None,
            jump: None,
            help: false,
            quit: false,
            faults: Vec::new(),
            rounds: Vec::new(),
            playing: false,
            speed: 1,
            scroll: 0,
            scroll_max: std::cell::Cell::new(0),
            values: Vec::new(),
            blunders: Vec::new(),
        }
    }

    /// Mark the endgame's values and blunders (issue 26) from the game's analysis.
    pub fn with_analysis(mut self, a: &durak_replay::analyze::Analysis) -> App {
        self.values = vec![None; self.steps];
        for d in &a.decisions {
            let Some(slot) = self.values.get_mut(d.step - 1) else {
                continue;
            };
            let show = |v: &Result<Value, Unsolved>| match v {
                Ok(v) => v.name().to_string(),
                Err(_) => "?".to_string(),
            };
            *slot = Some(format!(
                "endgame: seat {} {} → {}{}",
                d.seat,
                show(&d.value),
                show(&d.value_after),
                if d.blunder() { " BLUNDER" } else { "" }
            ));
            if d.blunder() {
                self.blunders.push(d.step - 1);
            }
        }
        self
    }

    /// The viewer of a game: its steps, with its faults and rounds marked for the jumps.
    pub fn for_game(sim: &Simulation) -> App {
        let mut app = App::new(sim.steps.len(), sim.header.players);
        for (i, s) in sim.steps.iter().enumerate() {
            if !s.faults.is_empty() {
                app.faults.push(i);
            }
            let starts = s
                .before
                .iter()
                .any(|e| matches!(e.kind, EventKind::TurnStarted { .. }));
            if i > 0 && starts {
                app.rounds.push(i);
            }
        }
        app
    }

    pub fn next(&mut self) {
        self.step = (self.step + 1).min(self.steps - 1);
    }
    pub fn prev(&mut self) {
        self.step = self.step.saturating_sub(1);
    }
    pub fn first(&mut self) {
        self.step = 0;
    }
    pub fn last(&mut self) {
        self.step = self.steps - 1;
    }
    /// Jump to step `n` (1-based; clamped to the game).
    pub fn jump_to(&mut self, n: usize) {
        self.step = n.clamp(1, self.steps) - 1;
    }
    /// The next (or previous) step of `marks` after (before) this one; stays put if none.
    fn seek(&mut self, marks: &[usize], forward: bool) {
        let found = if forward {
            marks.iter().find(|&&m| m > self.step)
        } else {
            marks.iter().rev().find(|&&m| m < self.step)
        };
        if let Some(&m) = found {
            self.step = m;
        }
    }
    /// Full view, seat 0, seat 1, ..., full view.
    pub fn next_view(&mut self) {
        self.viewer = match self.viewer {
            None => Some(0),
            Some(s) if s + 1 < self.players => Some(s + 1),
            Some(_) => None,
        };
    }
    pub fn prev_view(&mut self) {
        self.viewer = match self.viewer {
            None => Some(self.players - 1),
            Some(0) => None,
            Some(s) => Some(s - 1),
        };
    }

    /// The time between two steps of autoplay.
    pub fn delay(&self) -> Duration {
        Duration::from_millis(DELAYS[self.speed.min(DELAYS.len() - 1)])
    }

    /// Autoplay's step: on to the next step, and off at the last.
    pub fn tick(&mut self) {
        if !self.playing {
            return;
        }
        self.next();
        self.scroll = 0;
        if self.step + 1 >= self.steps {
            self.playing = false;
        }
    }

    /// React to one key press.
    pub fn handle_key(&mut self, key: KeyEvent) {
        let at = (self.step, self.viewer);
        self.handle(key);
        if (self.step, self.viewer) != at {
            self.scroll = 0;
        }
    }

    fn handle(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        if let Some(buf) = self.jump.as_mut() {
            match key.code {
                KeyCode::Char(c) if c.is_ascii_digit() && buf.len() < 6 => buf.push(c),
                KeyCode::Backspace => {
                    buf.pop();
                    if buf.is_empty() {
                        self.jump = None;
                    }
                }
                KeyCode::Enter => {
                    let n = buf.parse::<usize>().unwrap_or(1);
                    self.jump = None;
                    self.jump_to(n);
                }
                KeyCode::Esc => self.jump = None,
                _ => {}
            }
            return;
        }
        if self.help {
            // Any key closes the help; q still quits.
            self.help = false;
            if matches!(key.code, KeyCode::Char('q')) {
                self.quit = true;
            }
            return;
        }
        // Keys that move stop autoplay; the others leave it on.
        let before = self.step;
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Right | KeyCode::Char('l') | KeyCode::Char('n') | KeyCode::Char(' ') => {
                self.next()
            }
            KeyCode::Left | KeyCode::Char('h') | KeyCode::Backspace => self.prev(),
            KeyCode::Home | KeyCode::Char('g') => self.first(),
            KeyCode::End | KeyCode::Char('G') => self.last(),
            KeyCode::PageDown => self.step = (self.step + PAGE).min(self.steps - 1),
            KeyCode::PageUp => self.step = self.step.saturating_sub(PAGE),
            KeyCode::Char(c) if c.is_ascii_digit() => self.jump = Some(c.to_string()),
            KeyCode::Char('v') | KeyCode::Tab => self.next_view(),
            KeyCode::Char('V') | KeyCode::BackTab => self.prev_view(),
            KeyCode::Char('a') => self.viewer = None,
            KeyCode::Char('f') => self.seek(&self.faults.clone(), true),
            KeyCode::Char('F') => self.seek(&self.faults.clone(), false),
            KeyCode::Char('r') => self.seek(&self.rounds.clone(), true),
            KeyCode::Char('R') => self.seek(&self.rounds.clone(), false),
            KeyCode::Char('b') => self.seek(&self.blunders.clone(), true),
            KeyCode::Char('B') => self.seek(&self.blunders.clone(), false),
            KeyCode::Char('p') => {
                self.playing = !self.playing;
                if self.playing && self.step + 1 >= self.steps {
                    self.step = 0;
                }
                return;
            }
            KeyCode::Char('+') | KeyCode::Char('=') => {
                self.speed = (self.speed + 1).min(DELAYS.len() - 1);
                return;
            }
            KeyCode::Char('-') => {
                self.speed = self.speed.saturating_sub(1);
                return;
            }
            KeyCode::Char('?') => self.help = true,
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll = (self.scroll + 1).min(self.scroll_max.get())
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            _ => {}
        }
        if self.step != before || self.jump.is_some() {
            self.playing = false;
        }
    }
}

const HELP: &[(&str, &str)] = &[
    ("→ l n space", "next step"),
    ("← h backspace", "previous step"),
    ("Home g / End G", "first / last step"),
    ("PgUp / PgDn", "10 steps back / on"),
    ("digits, Enter", "jump to a step"),
    ("p", "play / pause: a step every second"),
    ("+ / -", "play faster / slower"),
    ("f / F", "next / previous fault"),
    ("r / R", "next / previous round"),
    ("b / B", "next / previous endgame blunder"),
    ("v Tab / V", "next / previous view: full, seat 0, ..."),
    ("a", "the full view (all hands)"),
    ("j ↓ / k ↑", "scroll the decision panel down / up"),
    ("?", "this help (any key closes it)"),
    ("q Esc", "quit"),
];

/// Draw one frame: a header line, the step ([`layout::draw_step_scrolled`]), a line of keys, and the help over
/// them when it is open.
pub fn draw(frame: &mut Frame, app: &App, sim: &Simulation) {
    let v = step_view(sim, app.step.min(sim.steps.len() - 1), app.viewer).escaped();
    let area = frame.area();
    let [top, middle, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let h = &sim.header;
    let view = match app.viewer {
        None => "full view".to_string(),
        Some(s) => format!("seat {s}'s view"),
    };
    let verdict = match &sim.divergence {
        None => Span::styled("✓ verified", Style::default().fg(Color::Green)),
        Some(d) => Span::styled(
            format!(
                "✗ differs at {}",
                d.step.map_or("the header".into(), |s| format!("step {s}"))
            ),
            Style::default().fg(Color::White).bg(Color::Red),
        ),
    };
    let head = vec![
        Span::styled(
            format!("Step {}/{}", v.step, v.steps),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            if app.playing {
                format!(" ▶ playing ({} ms) ", app.delay().as_millis())
            } else {
                " ".to_string()
            },
            Style::default().fg(Color::Cyan),
        ),
        Span::styled(
            v.title.clone(),
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ),
        match app.values.get(app.step).cloned().flatten() {
            Some(t) if t.ends_with("BLUNDER") => Span::styled(
                format!("  {t}"),
                Style::default().fg(Color::White).bg(Color::Magenta),
            ),
            Some(t) => Span::styled(format!("  {t}"), Style::default().fg(Color::Magenta)),
            None => Span::raw(""),
        },
        Span::raw("  "),
        verdict,
        dim(format!(
            "  {view} · {} {}p · {}",
            h.variant.name(),
            h.players,
            escape_controls(&sim.source)
        )),
    ];
    frame.render_widget(Paragraph::new(Line::from(head)), top);
    app.scroll_max
        .set(draw_step_scrolled(frame, middle, &v, app.scroll));
    let hint = match &app.jump {
        Some(buf) => format!(" jump to step: {buf}_  (Enter to go, Esc to cancel)"),
        None => {
" ←/→ step  p play  f fault  r round  v view  j/k scroll  ? help (and more keys)  q quit".into()
        }
    };
    frame.render_widget(Paragraph::new(Line::from(dim(hint))), keys);
    if app.help {
        draw_help(frame, area, HELP);
    }
}

/// Run the viewer on the terminal until the user quits. `start` is 0-based.
pub fn run(sim: &Simulation, start: usize, viewer: Option<Seat>) -> std::io::Result<()> {
    let mut app = App::for_game(sim).with_analysis(&durak_replay::analyze::analyze(sim));
    app.step = start.min(app.steps - 1);
    app.viewer = viewer;
    let mut terminal = ratatui::try_init()?;
    let mut next_tick = Instant::now() + app.delay();
    let result = loop {
        if let Err(e) = terminal.draw(|f| draw(f, &app, sim)) {
            break Err(e);
        }
        let wait = if app.playing {
            next_tick.saturating_duration_since(Instant::now())
        } else {
            Duration::from_secs(3600)
        };
        match event::poll(wait) {
            Ok(true) => match event::read() {
                Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => {
                    let was = app.playing;
                    app.handle_key(k);
                    if app.playing && !was {
                        next_tick = Instant::now() + app.delay();
                    }
                }
                Ok(_) => {}
                Err(e) => break Err(e),
            },
            Ok(false) => {
                app.tick();
                next_tick = Instant::now() + app.delay();
            }
            Err(e) => break Err(e),
        }
        if app.quit {
            break Ok(());
        }
    };
    ratatui::restore();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn press(app: &mut App, codes: &[KeyCode]) {
        for &c in codes {
            app.handle_key(key(c));
        }
    }

    #[test]
    fn stepping_stays_in_the_game() {
        let mut app = App::new(5, 2);
        press(&mut app, &[KeyCode::Left]);
        assert_eq!(app.step, 0);
        press(
            &mut app,
            &[KeyCode::Right, KeyCode::Char('l'), KeyCode::Char(' ')],
        );
        assert_eq!(app.step, 3);
        press(&mut app, &[KeyCode::Right, KeyCode::Right, KeyCode::Right]);
        assert_eq!(app.step, 4);
        press(&mut app, &[KeyCode::Char('h')]);
        assert_eq!(app.step, 3);
        press(&mut app, &[KeyCode::Home]);
        assert_eq!(app.step, 0);
        press(&mut app, &[KeyCode::End]);
        assert_eq!(app.step, 4);
        press(&mut app, &[KeyCode::Char('g')]);
        assert_eq!(app.step, 0);
        press(&mut app, &[KeyCode::Char('G')]);
        assert_eq!(app.step, 4);
        let mut long = App::new(30, 2);
        press(&mut long, &[KeyCode::PageDown, KeyCode::PageDown]);
        assert_eq!(long.step, 20);
        press(&mut long, &[KeyCode::PageDown]);
        assert_eq!(long.step, 29);
        press(&mut long, &[KeyCode::PageUp]);
        assert_eq!(long.step, 19);
        assert!(!long.quit);
    }

    #[test]
    fn jumping_by_number() {
        let mut app = App::new(50, 2);
        press(&mut app, &[KeyCode::Char('1'), KeyCode::Char('2')]);
        assert_eq!(app.jump.as_deref(), Some("12"));
        assert_eq!(app.step, 0, "nothing moves before Enter");
        // While typing, letters do nothing and q does not quit.
        press(&mut app, &[KeyCode::Char('q'), KeyCode::Enter]);
        assert_eq!((app.step, app.jump.clone(), app.quit), (11, None, false));
        press(
            &mut app,
            &[KeyCode::Char('9'), KeyCode::Char('9'), KeyCode::Enter],
        );
        assert_eq!(app.step, 49, "clamped to the last step");
        press(&mut app, &[KeyCode::Char('0'), KeyCode::Enter]);
        assert_eq!(app.step, 0, "clamped to the first step");
        press(&mut app, &[KeyCode::Char('7'), KeyCode::Esc]);
        assert_eq!((app.step, app.jump.clone()), (0, None), "Esc cancels");
        press(&mut app, &[KeyCode::Char('7'), KeyCode::Backspace]);
        assert_eq!(app.jump, None, "deleting the last digit cancels");
        assert!(!app.quit);
    }

    #[test]
    fn views_cycle_through_the_seats() {
        let mut app = App::new(3, 3);
        assert_eq!(app.viewer, None);
        let mut seen = Vec::new();
        for _ in 0..4 {
            press(&mut app, &[KeyCode::Char('v')]);
            seen.push(app.viewer);
        }
        assert_eq!(seen, vec![Some(0), Some(1), Some(2), None]);
        press(&mut app, &[KeyCode::Char('V')]);
        assert_eq!(app.viewer, Some(2));
        press(
            &mut app,
            &[KeyCode::Tab, KeyCode::BackTab, KeyCode::BackTab],
        );
        assert_eq!(app.viewer, Some(1));
        press(&mut app, &[KeyCode::Char('a')]);
        assert_eq!(app.viewer, None);
    }

    #[test]
    fn help_and_quit() {
        let mut app = App::new(3, 2);
        press(&mut app, &[KeyCode::Char('?')]);
        assert!(app.help);
        press(&mut app, &[KeyCode::Right]);
        assert!(!app.help, "any key closes the help");
        assert_eq!(
            app.step, 0,
            "the key that closes the help does nothing else"
        );
        press(&mut app, &[KeyCode::Char('q')]);
        assert!(app.quit);
        let mut app = App::new(3, 2);
        app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert!(app.quit);
        let mut app = App::new(3, 2);
        let mut release = key(KeyCode::Right);
        release.kind = KeyEventKind::Release;
        app.handle_key(release);
        assert_eq!(app.step, 0, "key releases are ignored");
    }
}
