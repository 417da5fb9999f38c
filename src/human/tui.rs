//! The human seat on a terminal: the replay viewer's layout for the seat's position
//! (`durak_tui::seat`), the numbered choices below it and a line to type in; the game's
//! end shown until a key is pressed. Raw mode and the alternate screen are left on drop (and
//! `durak play` restores the terminal after the match, in case this process was killed).

use super::plain::describe_event;
use super::{fault_words, Front, Hello, HumanError};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use durak_replay::moves::{choices, read_input, verb, Input};
use durak_rules::{Legal, Move};
use durak_tui::seat::{draw_seat, SeatScreen};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use serde_json::Value;
use std::fs::File;
use std::time::Duration;

pub struct Tui {
    screen: Option<File>,
    term: Option<Terminal<CrosstermBackend<File>>>,
    seat: Option<SeatScreen>,
}

impl Tui {
    pub fn new(screen: File) -> Tui {
        Tui {
            screen: Some(screen),
            term: None,
            seat: None,
        }
    }

    fn start(&mut self) -> Result<(), HumanError> {
        let Some(mut out) = self.screen.take() else {
            return Ok(());
        };
        crossterm::terminal::enable_raw_mode().map_err(HumanError::Terminal)?;
        crossterm::execute!(out, EnterAlternateScreen, crossterm::cursor::Hide)
            .map_err(HumanError::Terminal)?;
        let term = Terminal::new(CrosstermBackend::new(out))?;
        self.term = Some(term);
        Ok(())
    }

    fn draw(&mut self) -> Result<(), HumanError> {
        if let (Some(t), Some(s)) = (self.term.as_mut(), self.seat.as_ref()) {
            t.draw(|f| draw_seat(f, s))?;
        }
        Ok(())
    }

    /// The next key press (a resized window is redrawn meanwhile).
    fn key(&mut self) -> Result<KeyEvent, HumanError> {
        loop {
            match event::read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release => return Ok(k),
                Event::Resize(..) => self.draw()?,
                _ => {}
            }
        }
    }
}

fn ctrl_c(k: &KeyEvent) -> bool {
    k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c')
}

impl Drop for Tui {
    fn drop(&mut self) {
        self.restore();
    }
}

impl Tui {
    /// Raw mode off, the normal screen back, the cursor shown.
    fn restore(&mut self) {
        if let Some(mut t) = self.term.take() {
            let _ = crossterm::execute!(
                t.backend_mut(),
                LeaveAlternateScreen,
                crossterm::cursor::Show
            );
            let _ = crossterm::terminal::disable_raw_mode();
        }
    }
}

impl Front for Tui {
    fn hello(&mut self, h: &Hello) -> Result<(), HumanError> {
        let mut s = SeatScreen::new(h.seat, h.players, &h.variant, h.games);
        s.names = h.names.clone();
        self.seat = Some(s);
        self.start()?;
        self.draw()
    }

    fn game_start(&mut self, game: u64, seat: usize) {
        if let Some(s) = self.seat.as_mut() {
            s.start_game(game, seat);
        }
        let _ = self.draw();
    }

    fn event(&mut self, e: &Value) {
        if let Some(s) = self.seat.as_mut() {
            if let Some(t) = describe_event(e, s.seat) {
                s.note_event(t);
            }
            s.apply_event(e);
        }
        let _ = self.draw();
    }

    fn refused(&mut self, message: &str) {
        if let Some(s) = self.seat.as_mut() {
            s.message = Some(format!(
                "the referee refused your move: {}",
                durak_protocol::text::escape_controls(message)
            ));
        }
        let _ = self.draw();
    }

    fn game_end(&mut self, msg: &Value, last: bool) -> Result<(), HumanError> {
        if let Some(s) = self.seat.as_mut() {
            let loser = msg["loser"].as_u64().map(|l| l as usize);
            s.game_over(loser, &fault_words(msg), last);
        }
        self.draw()?;
        // The end stays on screen until the person has seen it.
        self.key()?;
        Ok(())
    }

    fn decide(&mut self, o: &Value, legal: &Legal) -> Result<Option<Move>, HumanError> {
        let list = choices(legal);
        {
            let Some(s) = self.seat.as_mut() else {
                return Ok(None);
            };
            s.observe(o);
            s.decide(verb(legal), list.iter().map(|(t, _)| t.clone()).collect());
        }
        loop {
            self.draw()?;
            let k = self.key()?;
            let s = self.seat.as_mut().expect("a seat");
            if ctrl_c(&k) {
                return Ok(None);
            }
            if s.help {
                s.help = false;
                continue;
            }
            match k.code {
                KeyCode::Char('?') if s.input.is_empty() => s.help = true,
                KeyCode::Char(c) if s.input.len() < 80 => {
                    s.input.push(c);
                }
                KeyCode::Backspace => {
                    s.input.pop();
                }
                KeyCode::Esc => s.input.clear(),
                KeyCode::Up => s.selected = s.selected.saturating_sub(1),
                KeyCode::Down => s.selected = (s.selected + 1).min(list.len().saturating_sub(1)),
                KeyCode::Enter => {
                    let line = if s.input.trim().is_empty() {
                        (s.selected + 1).to_string()
                    } else {
                        s.input.clone()
                    };
                    s.input.clear();
                    match read_input(&line, &list, legal) {
                        Input::Play(m) => {
                            s.answered();
                            self.draw()?;
                            return Ok(Some(m));
                        }
                        Input::Quit => return Ok(None),
                        Input::Help => s.help = true,
                        Input::Retry(why) => s.message = Some(why),
                    }
                }
                _ => {}
            }
        }
    }

    fn idle(&mut self) -> Result<(), HumanError> {
        while event::poll(Duration::ZERO)? {
            match event::read()? {
                Event::Resize(..) => self.draw()?,
                // Not the person's turn: keys wait for it, but Ctrl-C leaves at once.
                Event::Key(k) if ctrl_c(&k) => {
                    self.restore();
                    std::process::exit(durak_referee::process::HUMAN_QUIT);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn match_end(&mut self) {}
}
