//! The human seat's screen in `durak play human BOT`: the viewer's layout ([`draw_step`]) for the
//! position one seat may see, with the legal choices numbered below it and a line to type in.
//!
//! [`SeatScreen`] is plain data, filled from the protocol's messages by the seat (src/human/):
//! [`SeatScreen::observe`] takes a request's observation (exactly what the seat may know, I-1,
//! I-2), [`SeatScreen::apply_event`] keeps the picture current between requests with the
//! events the seat was sent (its own hand from its own moves and `drew_cards`, the others' only
//! as counts). [`draw_seat`] renders it; tested on ratatui's `TestBackend`.

use super::layout::{dim, draw_help, draw_step};
use durak_replay::view::{sorted_hand, PairView, SeatView, StepView};
use durak_rules::{Card, CardSet, Seat, Suit};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;
use serde_json::Value;

/// Events kept for the panel (the latest).
const EVENTS_KEPT: usize = 12;

/// What the person is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before the first position of a game.
    Starting,
    /// Another seat decides.
    Waiting,
    /// The person decides: what (`attack`, `defend`, `add or pass`, ...).
    Deciding(String),
    /// The game is over: the result in words; `last`: the match's last game.
    Over { result: String, last: bool },
}

/// The human seat's screen.
#[derive(Clone, Debug)]
pub struct SeatScreen {
    pub seat: Seat,
    pub players: usize,
    pub variant: String,
    /// The game being played (0-based) and the series' length.
    pub game: u64,
    pub games: u64,
    /// Seat labels (`you` for this seat).
    pub names: Vec<String>,
    /// The position as this seat sees it (`None` before the game's first request).
    pub view: Option<StepView>,
    /// What happened since the person's last decision, in words (the latest last).
    pub events: Vec<String>,
    /// The numbered choices (1-based on screen).
    pub choices: Vec<String>,
    /// The choice Enter plays when nothing is typed (0-based).
    pub selected: usize,
    /// What is being typed.
    pub input: String,
    /// A line under the input: a refused move with its rule, or a note.
    pub message: Option<String>,
    pub phase: Phase,
    /// The help is open.
    pub help: bool,
    /// The previous game's result, shown in the header.
    pub previous: Option<String>,
}

impl SeatScreen {
    pub fn new(seat: Seat, players: usize, variant: &str, games: u64) -> SeatScreen {
        SeatScreen {
            seat,
            players,
            variant: variant.to_string(),
            game: 0,
            games,
            names: (0..players)
                .map(|s| {
                    if s == seat {
                        "you".into()
                    } else {
                        "bot".into()
                    }
                })
                .collect(),
            view: None,
            events: Vec::new(),
            choices: Vec::new(),
            selected: 0,
            input: String::new(),
            message: None,
            phase: Phase::Starting,
            help: false,
            previous: None,
        }
    }

    /// A new game: the seat (it can change between games only in a future protocol) and a
    /// clean table.
    pub fn start_game(&mut self, game: u64, seat: Seat) {
        if seat != self.seat && seat < self.players {
            self.names.swap(seat, self.seat);
            self.seat = seat;
        }
        self.game = game;
        self.view = None;
        self.events.clear();
        self.choices.clear();
        self.input.clear();
        self.message = None;
        self.phase = Phase::Starting;
    }

    /// One event, in words, for the panel.
    pub fn note_event(&mut self, text: String) {
        self.events.push(text);
        let over = self.events.len().saturating_sub(EVENTS_KEPT);
        self.events.drain(..over);
    }

    /// A request's observation: the position, exactly as the seat may see it.
    pub fn observe(&mut self, o: &Value) {
        self.view = Some(observation_view(o, &self.names));
    }

    /// The decision is the person's: `what` in words, the numbered choices.
    pub fn decide(&mut self, what: &str, choices: Vec<String>) {
        self.phase = Phase::Deciding(what.to_string());
        self.choices = choices;
        self.selected = 0;
        self.input.clear();
        if let Some(v) = self.view.as_mut() {
            for s in &mut v.seats {
                s.to_act = s.seat == self.seat;
            }
        }
    }

    /// The person answered: the next decision is someone else's until a request comes.
    pub fn answered(&mut self) {
        self.phase = Phase::Waiting;
        self.choices.clear();
        self.input.clear();
        self.message = None;
        self.events.clear();
        if let Some(v) = self.view.as_mut() {
            for s in &mut v.seats {
                s.to_act = false;
            }
        }
    }

    /// The game ended: `loser` from `game_end`, and the faults in words.
    pub fn game_over(&mut self, loser: Option<Seat>, faults: &[String], last: bool) {
        let mut result = match loser {
            Some(l) if l == self.seat => "you are the durak".to_string(),
            Some(l) => format!("seat {l} is the durak: you did not lose"),
            None => "a draw".to_string(),
        };
        for f in faults {
            result += &format!(" · {f}");
        }
        if let Some(v) = self.view.as_mut() {
            for s in &mut v.seats {
                s.loser = Some(s.seat) == loser;
                s.to_act = false;
                s.role = None;
            }
            v.result = Some(result.clone());
        }
        self.previous = Some(format!("game {}: {result}", self.game));
        self.phase = Phase::Over { result, last };
        self.choices.clear();
        self.input.clear();
    }

    /// Keep the picture current with an event the seat was sent (the next request's
    /// observation replaces it anyway).
    pub fn apply_event(&mut self, e: &Value) {
        let me = self.seat;
        let Some(v) = self.view.as_mut() else {
            return;
        };
        let trump = v.trump_suit.chars().next().and_then(Suit::from_letter);
        let seat = e["seat"].as_u64().map(|s| s as usize);
        let cards = card_list(&e["cards"]);
        let take = |v: &mut StepView, s: Seat, n: usize, gone: &[String]| {
            if let Some(sv) = v.seats.get_mut(s) {
                sv.count = sv.count.saturating_sub(n);
                if let Some(h) = sv.hand.as_mut() {
                    h.retain(|c| !gone.contains(c));
                }
                sv.known.retain(|c| !gone.contains(c));
            }
        };
        match e["kind"].as_str().unwrap_or("") {
            "attacked" | "added" => {
                if let Some(s) = seat {
                    take(v, s, cards.len(), &cards);
                }
                v.table.extend(cards.iter().map(|c| PairView {
                    attack: c.clone(),
                    defence: None,
                }));
            }
            "defended" => {
                let mut used = Vec::new();
                for p in e["pairs"].as_array().into_iter().flatten() {
                    let (a, d) = match p {
                        Value::Array(x) if x.len() == 2 => (&x[0], &x[1]),
                        _ => (&p["attack"], &p["defence"]),
                    };
                    let (Some(a), Some(d)) = (a.as_str(), d.as_str()) else {
                        continue;
                    };
                    if let Some(slot) = v.table.iter_mut().find(|t| t.attack == a) {
                        slot.defence = Some(d.to_string());
                    }
                    used.push(d.to_string());
                }
                if let Some(s) = seat {
                    take(v, s, used.len(), &used);
                }
            }
            "takes" => v.taking = true,
            "picked_up" => {
                if let Some(sv) = seat.and_then(|s| v.seats.get_mut(s)) {
                    sv.count += cards.len();
                    if let Some(h) = sv.hand.as_mut() {
                        h.extend(cards.iter().cloned());
                    } else {
                        // Picked-up cards are known to everyone (I-1).
                        sv.known.extend(cards.iter().cloned());
                    }
                }
                v.table.clear();
                v.taking = false;
            }
            "discarded" => {
                v.discard.extend(cards);
                v.table.clear();
            }
            "drew" => {
                let n = e["count"].as_u64().unwrap_or(0) as usize;
                if let Some(sv) = seat.and_then(|s| v.seats.get_mut(s)) {
                    if sv.seat != me {
                        sv.count += n;
                    }
                }
                v.stock = v.stock.saturating_sub(n);
                if e["trump_card"].is_string() {
                    v.trump_card_in_stock = false;
                }
            }
            "drew_cards" => {
                if let Some(sv) = v.seats.get_mut(me) {
                    sv.count += cards.len();
                    if let Some(h) = sv.hand.as_mut() {
                        h.extend(cards);
                    }
                }
            }
            "exited" => {
                if let Some(sv) = seat.and_then(|s| v.seats.get_mut(s)) {
                    sv.active = false;
                    sv.role = None;
                }
            }
            "turn_started" => {
                let (a, d) = (e["attacker"].as_u64(), e["defender"].as_u64());
                if let (Some(a), Some(d)) = (a, d) {
                    v.attacker = a as usize;
                    v.defender = d as usize;
                    v.limit = e["limit"].as_u64().map(|l| l as usize);
                    v.taking = false;
                    for s in &mut v.seats {
                        s.role = if !s.active {
                            None
                        } else if s.seat == v.attacker {
                            Some("attacker".into())
                        } else if s.seat == v.defender {
                            Some("defender".into())
                        } else {
                            None
                        };
                    }
                }
            }
            _ => {}
        }
        if let (Some(t), Some(sv)) = (trump, v.seats.get_mut(me)) {
            if let Some(h) = sv.hand.as_mut() {
                *h = sorted_codes(h, t);
            }
        }
    }
}

fn card_list(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect()
}

fn sorted_codes(codes: &[String], trump: Suit) -> Vec<String> {
    let set: CardSet = codes
        .iter()
        .filter_map(|c| c.parse::<Card>().ok())
        .collect();
    sorted_hand(set, trump)
        .into_iter()
        .map(|c| c.to_string())
        .collect()
}

/// The view of a request's observation (the protocol's `observation` object): this seat's hand,
/// every seat's card count and publicly known cards, the table, trump, stock and discard.
pub fn observation_view(o: &Value, names: &[String]) -> StepView {
    let me = o["seat"].as_u64().unwrap_or(0) as usize;
    let trump_suit = o["trump_suit"].as_str().unwrap_or("?").to_string();
    let trump = trump_suit.chars().next().and_then(Suit::from_letter);
    let sort = |codes: Vec<String>| match trump {
        Some(t) => sorted_codes(&codes, t),
        None => codes,
    };
    let counts = o["hand_counts"].as_array().cloned().unwrap_or_default();
    let attacker = o["attacker"].as_u64().unwrap_or(0) as usize;
    let defender = o["defender"].as_u64().unwrap_or(0) as usize;
    let seats = counts
        .iter()
        .enumerate()
        .map(|(s, n)| {
            let active = o["active"][s].as_bool().unwrap_or(true);
            SeatView {
                seat: s,
                name: names.get(s).cloned().unwrap_or_default(),
                hand: (s == me).then(|| sort(card_list(&o["hand"]))),
                count: n.as_u64().unwrap_or(0) as usize,
                known: sort(card_list(&o["known"][s])),
                active,
                role: if !active {
                    None
                } else if s == attacker {
                    Some("attacker".into())
                } else if s == defender {
                    Some("defender".into())
                } else {
                    None
                },
                to_act: false,
                faulted: false,
                loser: false,
            }
        })
        .collect();
    let table = o["table"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| PairView {
            attack: p["attack"].as_str().unwrap_or("?").to_string(),
            defence: p["defence"].as_str().map(str::to_string),
        })
        .collect();
    StepView {
        step: 0,
        steps: 0,
        line: 0,
        viewer: Some(me),
        title: String::new(),
        decision: None,
        legal: None,
        legal_codes: None,
        answer: None,
        answer_line: None,
        elapsed_ms: None,
        timing: None,
        refused: None,
        faults: Vec::new(),
        events: Vec::new(),
        table,
        seats,
        stock: o["stock"].as_u64().unwrap_or(0) as usize,
        stock_cards: None,
        trump_card: o["trump_card"].as_str().unwrap_or("?").to_string(),
        trump_suit,
        trump_card_in_stock: o["trump_card_in_stock"].as_bool().unwrap_or(false),
        discard: card_list(&o["discard"]),
        attacker,
        defender,
        limit: o["limit"].as_u64().map(|l| l as usize),
        taking: o["taking"].as_bool().unwrap_or(false),
        result: None,
        note: None,
        stderr: Vec::new(),
    }
}

/// The keys, for the help box (the same words as the plain mode's `?`).
pub const SEAT_HELP: &[(&str, &str)] = &[
    ("1 2 3 ... Enter", "play that choice"),
    ("↑ ↓, Enter", "pick a choice, play it"),
    (
        "7C 7D QH",
        "attack or add these cards (rank 6789TJQKA, suit CDHS)",
    ),
    ("x 7C", "attack after the trump-six exchange"),
    (
        "7C>KC 8D>9D",
        "defend: attack card > the card that beats it",
    ),
    ("take / pass", "as the words say"),
    ("Esc", "clear what is typed"),
    ("q Enter, Ctrl-C", "leave the game (the seat forfeits it)"),
    ("?", "this help (any key closes it)"),
];

/// Draw the seat's screen: a header, the position as the viewer draws it (seats and hands, the
/// table, trump, stock and discard, the events), the numbered choices and the typing line.
pub fn draw_seat(frame: &mut Frame, s: &SeatScreen) {
    let area = frame.area();
    let choice_rows = match s.phase {
        Phase::Deciding(_) => {
            let room = (area.height / 3).max(3) as usize;
            s.choices.len().clamp(1, room) as u16
        }
        _ => 1,
    };
    let [top, middle, bottom, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(6),
        Constraint::Length(choice_rows + 4),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut head = vec![
        Span::styled(
            format!(" Game {}/{} ", s.game + 1, s.games.max(1)),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("you are seat {}", s.seat),
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ),
        dim(format!(" · {} {}p", s.variant, s.players)),
    ];
    if let Some(p) = &s.previous {
        if !matches!(s.phase, Phase::Over { .. }) {
            head.push(dim(format!(" · last {p}")));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(head)), top);
    match &s.view {
        Some(v) => {
            let mut v = v.clone();
            // The latest events that fit under the seats and the table (the older ones go).
            let fixed = v.seats.len() + 2 + 3 + 2 + 2 + 1 + usize::from(v.result.is_some());
            let room = (middle.height as usize).saturating_sub(fixed).max(1);
            v.events = s.events[s.events.len().saturating_sub(room)..]
                .iter()
                .map(|t| durak_replay::view::EventView {
                    text: t.clone(),
                    private_to: None,
                })
                .collect();
            draw_step(frame, middle, &v.escaped());
        }
        None => {
            let lines: Vec<Line> = std::iter::once(Line::from(dim("dealing…")))
                .chain(s.events.iter().map(|t| Line::from(format!("  • {t}"))))
                .collect();
            frame.render_widget(
                Paragraph::new(lines).block(Block::bordered().title(" Table ")),
                middle,
            );
        }
    }
    draw_choices(frame, bottom, s);
    let hint = match s.phase {
        Phase::Deciding(_) => {
            " number+Enter plays it · or type a move: 7C 7D, 7C>KC, take, pass · ? help · q leaves"
        }
        Phase::Over { last: false, .. } => " any key: the next game",
        Phase::Over { last: true, .. } => " any key: the match's summary",
        _ => " waiting for the other seats · Ctrl-C leaves",
    };
    frame.render_widget(Paragraph::new(Line::from(dim(hint))), keys);
    if s.help {
        draw_help(frame, area, SEAT_HELP);
    }
}

fn draw_choices(frame: &mut Frame, area: Rect, s: &SeatScreen) {
    let (title, style) = match &s.phase {
        Phase::Deciding(what) => (
            format!(" Your move: {what} "),
            Style::default().fg(Color::Yellow),
        ),
        Phase::Over { .. } => (" Game over ".to_string(), Style::default().fg(Color::Cyan)),
        _ => (" Waiting ".to_string(), Style::default()),
    };
    let block = Block::bordered().title(title).border_style(style);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let [list, input, note] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    match &s.phase {
        Phase::Deciding(_) => {
            let rows = list.height.max(1) as usize;
            let cols = s.choices.len().div_ceil(rows).max(1);
            let areas =
                Layout::horizontal(vec![Constraint::Ratio(1, cols as u32); cols]).split(list);
            for (c, col) in areas.iter().enumerate() {
                let lines: Vec<Line> = s
                    .choices
                    .iter()
                    .enumerate()
                    .skip(c * rows)
                    .take(rows)
                    .map(|(i, text)| {
                        let mark = if i == s.selected { "▶" } else { " " };
                        let st = if i == s.selected {
                            Style::default().add_modifier(Modifier::BOLD)
                        } else {
                            Style::default()
                        };
                        Line::from(vec![
                            Span::styled(
                                format!("{mark}{:>2}) ", i + 1),
                                Style::default().fg(Color::Cyan),
                            ),
                            Span::styled(text.clone(), st),
                        ])
                    })
                    .collect();
                frame.render_widget(Paragraph::new(lines), *col);
            }
            frame.render_widget(
                Paragraph::new(Line::from(vec![
                    Span::styled("> ", Style::default().fg(Color::Yellow)),
                    Span::raw(s.input.clone()),
                    Span::styled("_", Style::default().add_modifier(Modifier::SLOW_BLINK)),
                ])),
                input,
            );
        }
        Phase::Over { result, .. } => {
            frame.render_widget(
                Paragraph::new(Line::from(Span::styled(
                    format!("game {} over: {result}", s.game),
                    Style::default().add_modifier(Modifier::BOLD),
                )))
                .wrap(Wrap { trim: false }),
                list,
            );
        }
        _ => frame.render_widget(
            Paragraph::new(Line::from(dim("the other seats play…"))),
            list,
        ),
    }
    if let Some(m) = &s.message {
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                m.clone(),
                Style::default().fg(Color::LightRed),
            ))),
            note,
        );
    }
}
