//! The interactive terminal viewer (ratatui + crossterm): `durak replay FILE` on a terminal.
//!
//! The state and the key handling ([`App`]) are plain data, tested without a terminal; [`draw`]
//! renders one frame (tested on ratatui's `TestBackend`); [`run`] is the loop around them.

use crate::sim::Simulation;
use crate::view::{step_view, StepView};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use durak_protocol::text::escape_controls;
use durak_rules::{Card, Seat, Suit};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// Steps moved by PageUp / PageDown.
pub const PAGE: usize = 10;

/// The viewer's state: which step, whose view, a step number being typed.
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
        }
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

    /// React to one key press.
    pub fn handle_key(&mut self, key: KeyEvent) {
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
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Right | KeyCode::Char('l') | KeyCode::Char('n') | KeyCode::Char(' ') => {
                self.next()
            }
            KeyCode::Left | KeyCode::Char('h') | KeyCode::Char('p') | KeyCode::Backspace => {
                self.prev()
            }
            KeyCode::Home | KeyCode::Char('g') => self.first(),
            KeyCode::End | KeyCode::Char('G') => self.last(),
            KeyCode::PageDown => self.step = (self.step + PAGE).min(self.steps - 1),
            KeyCode::PageUp => self.step = self.step.saturating_sub(PAGE),
            KeyCode::Char(c) if c.is_ascii_digit() => self.jump = Some(c.to_string()),
            KeyCode::Char('v') | KeyCode::Tab => self.next_view(),
            KeyCode::Char('V') | KeyCode::BackTab => self.prev_view(),
            KeyCode::Char('f') => self.viewer = None,
            KeyCode::Char('?') => self.help = true,
            _ => {}
        }
    }
}

fn card_span(code: &str, trump: Option<Suit>) -> Span<'static> {
    match code.parse::<Card>() {
        Ok(c) => {
            let red = matches!(c.suit(), Suit::Diamonds | Suit::Hearts);
            let mut style = Style::default().add_modifier(Modifier::BOLD);
            if red {
                style = style.fg(Color::LightRed);
            }
            if Some(c.suit()) == trump {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
            Span::styled(crate::view::pretty_card(c), style)
        }
        Err(_) => Span::raw(code.to_string()),
    }
}

fn cards_spans(codes: &[String], trump: Option<Suit>) -> Vec<Span<'static>> {
    if codes.is_empty() {
        return vec![Span::styled("none", Style::default().fg(Color::DarkGray))];
    }
    let mut v = Vec::new();
    for (i, c) in codes.iter().enumerate() {
        if i > 0 {
            v.push(Span::raw(" "));
        }
        v.push(card_span(c, trump));
    }
    v
}

fn dim(s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), Style::default().fg(Color::DarkGray))
}

fn table_lines(v: &StepView, trump: Option<Suit>) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if v.table.is_empty() {
        lines.push(Line::from(dim("(the table is empty)")));
    }
    for p in &v.table {
        let mut spans = vec![card_span(&p.attack, trump), Span::raw("  ← ")];
        match &p.defence {
            Some(d) => spans.push(card_span(d, trump)),
            None => spans.push(dim("unbeaten")),
        }
        lines.push(Line::from(spans));
    }
    let mut info = Vec::new();
    if let Some(l) = v.limit {
        info.push(format!("limit {l}"));
    }
    if v.taking {
        info.push("the defender takes".into());
    }
    info.push(format!("seat {} attacks seat {}", v.attacker, v.defender));
    lines.push(Line::from(dim(info.join(" · "))));
    lines.push(Line::raw(""));
    let mut trump_line = vec![Span::raw("trump "), card_span(&v.trump_card, trump)];
    trump_line.push(dim(if v.trump_card_in_stock {
        " under the stock"
    } else {
        " (drawn)"
    }));
    lines.push(Line::from(trump_line));
    lines.push(Line::raw(format!("stock {} cards", v.stock)));
    if let Some(stock) = &v.stock_cards {
        if !stock.is_empty() {
            let mut s = vec![dim("  next: ")];
            s.extend(cards_spans(stock, trump));
            lines.push(Line::from(s));
        }
    }
    let mut d = vec![Span::raw(format!("discard {} cards", v.discard.len()))];
    if !v.discard.is_empty() {
        d.push(Span::raw(": "));
        d.extend(cards_spans(&v.discard, trump));
    }
    lines.push(Line::from(d));
    lines
}

fn hand_lines(v: &StepView, trump: Option<Suit>) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for s in &v.seats {
        let mut head = vec![Span::styled(
            format!("seat {} {}", s.seat, s.name),
            if s.to_act {
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().add_modifier(Modifier::BOLD)
            },
        )];
        let tags = s.tags();
        if !tags.is_empty() {
            head.push(dim(format!("  {}", tags.join(" · "))));
        }
        if s.faulted {
            head.push(Span::styled(
                "  FAULT",
                Style::default().fg(Color::White).bg(Color::Red),
            ));
        }
        lines.push(Line::from(head));
        let mut cards = vec![Span::raw("  ")];
        match &s.hand {
            Some(h) => {
                cards.extend(cards_spans(h, trump));
                cards.push(dim(format!("  ({})", s.count)));
            }
            None => {
                cards.push(Span::styled(
                    "▒".repeat(s.count.min(24)),
                    Style::default().fg(Color::Blue),
                ));
                cards.push(dim(format!(" {} hidden", s.count)));
                if !s.known.is_empty() {
                    cards.push(dim("; known: "));
                    cards.extend(cards_spans(&s.known, trump));
                }
            }
        }
        lines.push(Line::from(cards));
    }
    lines
}

fn decision_lines(v: &StepView) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let label = |s: &str| Span::styled(format!("{s:<8}"), Style::default().fg(Color::Cyan));
    if let Some(l) = &v.legal {
        lines.push(Line::from(vec![label("legal"), Span::raw(l.clone())]));
    }
    if let Some(a) = &v.answer {
        lines.push(Line::from(vec![
            label("answer"),
            Span::styled(a.clone(), Style::default().add_modifier(Modifier::BOLD)),
        ]));
    }
    if let Some(t) = &v.timing {
        lines.push(Line::from(vec![label("time"), Span::raw(t.clone())]));
    }
    if let Some(r) = &v.refused {
        let line = r
            .line
            .clone()
            .unwrap_or_else(|| "(the line is private to the bot)".into());
        lines.push(Line::from(vec![
            label("refused"),
            Span::styled(line, Style::default().fg(Color::LightRed)),
        ]));
        lines.push(Line::from(vec![label(""), Span::raw(r.reason.clone())]));
    }
    for f in &v.faults {
        lines.push(Line::from(vec![
            Span::styled(
                "FAULT ",
                Style::default()
                    .fg(Color::White)
                    .bg(Color::Red)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!(" {}", f.text), Style::default().fg(Color::LightRed)),
        ]));
    }
    if let Some(r) = &v.result {
        lines.push(Line::from(vec![
            label("result"),
            Span::styled(r.clone(), Style::default().add_modifier(Modifier::BOLD)),
        ]));
    }
    if let Some(n) = &v.note {
        lines.push(Line::from(Span::styled(
            format!("REPLAY DIFFERS HERE: {n}"),
            Style::default().fg(Color::Black).bg(Color::Yellow),
        )));
    }
    if !v.events.is_empty() {
        lines.push(Line::from(dim("since the previous step:")));
        for e in &v.events {
            let mut s = vec![Span::raw(format!("  • {}", e.text))];
            if let Some(p) = e.private_to {
                s.push(dim(format!("  (only seat {p} sees this)")));
            }
            lines.push(Line::from(s));
        }
    }
    for e in &v.stderr {
        let when = if e.when.is_empty() {
            String::new()
        } else {
            format!(" ({})", e.when)
        };
        lines.push(Line::from(dim(format!("stderr of seat {}{when}:", e.seat))));
        for l in e.text.lines().take(20) {
            lines.push(Line::from(dim(format!("  | {l}"))));
        }
    }
    lines
}

const HELP: &[(&str, &str)] = &[
    ("→ l n space", "next step"),
    ("← h p backspace", "previous step"),
    ("Home g / End G", "first / last step"),
    ("PgUp / PgDn", "10 steps back / on"),
    ("digits, Enter", "jump to a step"),
    (
        "v Tab / V",
        "next / previous view: full, seat 0, seat 1, ...",
    ),
    ("f", "full view"),
    ("?", "this help"),
    ("q Esc", "quit"),
];

/// Draw one frame.
pub fn draw(frame: &mut Frame, app: &App, sim: &Simulation) {
    let v = step_view(sim, app.step.min(sim.steps.len() - 1), app.viewer).escaped();
    let trump = v.trump_suit.chars().next().and_then(Suit::from_letter);
    let h = &sim.header;
    let area = frame.area();
    let [top, middle, bottom, keys] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length((v.seats.len() as u16 * 2 + 2).max(10)),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(area);
    let view = match app.viewer {
        None => "full view".to_string(),
        Some(s) => format!("seat {s}'s view"),
    };
    let verdict = match &sim.divergence {
        None => Span::styled(" ✓ verified ", Style::default().fg(Color::Green)),
        Some(d) => Span::styled(
            format!(
                " ✗ differs at {} ",
                d.step.map_or("the header".into(), |s| format!("step {s}"))
            ),
            Style::default().fg(Color::White).bg(Color::Red),
        ),
    };
    let title = format!(
        " durak replay · {} · {} {} players · {view} ",
        escape_controls(&sim.source),
        h.variant.name(),
        h.players
    );
    let head = Paragraph::new(Line::from(vec![
        Span::styled(
            format!("Step {}/{}", v.step, v.steps),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        dim(format!(" (line {})  ", v.line)),
        Span::styled(
            v.title.clone(),
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ),
        Span::raw("  "),
        verdict,
    ]))
    .block(Block::bordered().title(title));
    frame.render_widget(head, top);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(middle);
    frame.render_widget(
        Paragraph::new(table_lines(&v, trump))
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Table ")),
        left,
    );
    frame.render_widget(
        Paragraph::new(hand_lines(&v, trump))
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Hands ")),
        right,
    );
    let faulty = !v.faults.is_empty();
    let block = Block::bordered()
        .title(" Decision ")
        .border_style(if faulty {
            Style::default().fg(Color::Red)
        } else {
            Style::default()
        });
    frame.render_widget(
        Paragraph::new(decision_lines(&v))
            .wrap(Wrap { trim: false })
            .block(block),
        bottom,
    );
    let hint = match &app.jump {
        Some(buf) => format!(" jump to step: {buf}_  (Enter to go, Esc to cancel)"),
        None => " ←/→ step  Home/End first/last  digits+Enter jump  v view  ? help  q quit".into(),
    };
    frame.render_widget(Paragraph::new(Line::from(dim(hint))), keys);
    if app.help {
        let w = 64.min(area.width);
        let hgt = (HELP.len() as u16 + 2).min(area.height);
        let r = Rect::new(
            area.x + (area.width - w) / 2,
            area.y + (area.height - hgt) / 2,
            w,
            hgt,
        );
        let lines: Vec<Line> = HELP
            .iter()
            .map(|(k, d)| {
                Line::from(vec![
                    Span::styled(format!("{k:<18}"), Style::default().fg(Color::Cyan)),
                    Span::raw(*d),
                ])
            })
            .collect();
        frame.render_widget(Clear, r);
        frame.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(" Keys ")),
            r,
        );
    }
}

/// Run the viewer on the terminal until the user quits. `start` is 0-based.
pub fn run(sim: &Simulation, start: usize, viewer: Option<Seat>) -> std::io::Result<()> {
    let mut app = App::new(sim.steps.len(), sim.header.players);
    app.step = start.min(app.steps - 1);
    app.viewer = viewer;
    let mut terminal = ratatui::try_init()?;
    let result = loop {
        if let Err(e) = terminal.draw(|f| draw(f, &app, sim)) {
            break Err(e);
        }
        match event::read() {
            Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => app.handle_key(k),
            Ok(_) => {}
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
        press(&mut app, &[KeyCode::Char('f')]);
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
