//! One step on a terminal, laid out for the area it gets: [`draw_step`].
//!
//! Every hand is shown in full (a hand wraps onto more lines rather than being cut), the table
//! and the stock take the lines they need, and the decision panel (legal choices, answer, time,
//! faults, result, events, stderr) gets the rest; when that is not enough it shows a window of
//! its rows, says how many are above and below it, and scrolls ([`draw_step_scrolled`]; the
//! viewer's `j` / `k`). At 120 columns and more the decision panel moves to a right-hand column.
//! Down to 80×24 with six seats nothing that matters is cut.

use durak_replay::view::{pretty_card, StepView};
use durak_rules::{Card, Suit};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// Columns from which the decision panel gets a column of its own.
pub const WIDE: u16 = 120;

pub fn dim(s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), Style::default().fg(Color::DarkGray))
}

fn card_span(code: &str, trump: Option<Suit>, known: bool) -> Span<'static> {
    match code.parse::<Card>() {
        Ok(c) => {
            let mut style = Style::default().add_modifier(Modifier::BOLD);
            if matches!(c.suit(), Suit::Diamonds | Suit::Hearts) {
                style = style.fg(Color::LightRed);
            }
            if Some(c.suit()) == trump {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
            if known {
                style = style.bg(Color::Rgb(60, 50, 10));
            }
            Span::styled(pretty_card(c), style)
        }
        Err(_) => Span::raw(code.to_string()),
    }
}

/// `prefix`, then `items` (each a few spans kept together) separated by spaces, wrapped at
/// `width` with continuation lines indented by `indent`: nothing is cut.
fn wrapped(
    prefix: Vec<Span<'static>>,
    items: Vec<Vec<Span<'static>>>,
    width: usize,
    indent: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut cur: Vec<Span<'static>> = prefix;
    let mut used: usize = cur.iter().map(Span::width).sum();
    let width = width.max(indent + 4);
    for item in items {
        let w: usize = item.iter().map(Span::width).sum();
        if used + 1 + w > width && used > indent {
            lines.push(Line::from(std::mem::take(&mut cur)));
            cur.push(Span::raw(" ".repeat(indent)));
            used = indent;
        } else if used > 0 {
            cur.push(Span::raw(" "));
            used += 1;
        }
        used += w;
        cur.extend(item);
    }
    lines.push(Line::from(cur));
    lines
}

fn trump_of(v: &StepView) -> Option<Suit> {
    v.trump_suit.chars().next().and_then(Suit::from_letter)
}

/// The seats, one line each (more when a hand is long): the seat, its name (shortened to fit),
/// its state, its cards (or backs and the publicly known ones, highlighted).
pub fn seat_lines(v: &StepView, width: usize) -> Vec<Line<'static>> {
    let trump = trump_of(v);
    let base_room = (width / 4).clamp(8, 28);
    let mut lines = Vec::new();
    for s in &v.seats {
        let mut tags: Vec<&str> = s.tags().into_iter().filter(|t| *t != "to act").collect();
        if s.faulted {
            tags.push("FAULT");
        }
        let items: Vec<Vec<Span<'static>>> = match &s.hand {
            Some(h) if h.is_empty() => vec![vec![dim("no cards")]],
            Some(h) => h
                .iter()
                .map(|c| vec![card_span(c, trump, s.known.contains(c))])
                .collect(),
            None => {
                let mut items: Vec<Vec<Span<'static>>> = s
                    .known
                    .iter()
                    .map(|c| vec![card_span(c, trump, true)])
                    .collect();
                let hidden = s.count.saturating_sub(s.known.len());
                if hidden > 0 {
                    items.push(vec![
                        Span::styled(
                            "▒".repeat(hidden.min(width.saturating_sub(3 + 12).max(1))),
                            Style::default().fg(Color::Blue),
                        ),
                        dim(format!(" {hidden} hidden")),
                    ]);
                }
                items
            }
        };
        // The whole name when the line has room for it beside the cards (up to 48 columns),
        // else a quarter of the width.
        let rest: usize = items
            .iter()
            .map(|i| 1 + i.iter().map(Span::width).sum::<usize>())
            .sum::<usize>()
            + tags.iter().map(|t| t.chars().count() + 1).sum::<usize>()
            + format!(" ({}):", s.count).len()
            + 3;
        let name_room = width
            .saturating_sub(rest)
            .clamp(base_room, 48.max(base_room));
        let mut name: String = s.name.chars().take(name_room).collect();
        if s.name.chars().count() > name_room {
            name.pop();
            name.push('…');
        }
        let style = if s.to_act {
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        };
        let mut prefix = vec![
            Span::styled(if s.to_act { "▶" } else { " " }, style),
            Span::styled(format!("{} {name}", s.seat), style),
        ];
        if !tags.is_empty() {
            let t = tags.join(" ");
            let st = if s.faulted || s.loser {
                Style::default().fg(Color::LightRed)
            } else {
                Style::default().fg(Color::Cyan)
            };
            prefix.push(Span::styled(format!(" {t}"), st));
        }
        prefix.push(dim(format!(" ({}):", s.count)));
        let indent = 3;
        lines.extend(wrapped(prefix, items, width, indent));
    }
    lines
}

/// The table, the trump card, the stock and the discard (`full`: also the stock's order and
/// the discard's cards, when there is room for them).
pub fn table_lines(v: &StepView, width: usize, full: bool) -> Vec<Line<'static>> {
    let trump = trump_of(v);
    let mut lines = Vec::new();
    let pairs: Vec<Vec<Span<'static>>> = v
        .table
        .iter()
        .map(|p| {
            let mut spans = vec![card_span(&p.attack, trump, false)];
            match &p.defence {
                Some(d) => {
                    spans.push(dim("←"));
                    spans.push(card_span(d, trump, false));
                }
                None => spans.push(Span::styled(
                    "←unbeaten",
                    Style::default().fg(Color::LightYellow),
                )),
            }
            spans
        })
        .collect();
    if pairs.is_empty() {
        lines.push(Line::from(dim(if v.result.is_some() {
            "the game is over"
        } else {
            "the table is empty"
        })));
    } else {
        lines.extend(wrapped(vec![dim("table:")], pairs, width, 7));
    }
    // One line when it fits, else wrapped between its parts (nothing cut at 80 columns).
    let mut info = vec![
        vec![
            Span::raw("trump "),
            card_span(&v.trump_card, trump, false),
            dim(if v.trump_card_in_stock {
                " under the stock"
            } else {
                " (drawn)"
            }),
        ],
        vec![Span::raw(format!("· stock {}", v.stock))],
        vec![Span::raw(format!("· discard {}", v.discard.len()))],
    ];
    if v.result.is_none() {
        info.push(vec![dim(format!(
            "· seat {} attacks seat {}",
            v.attacker, v.defender
        ))]);
        if let Some(l) = v.limit {
            info.push(vec![dim(format!("· at most {l}"))]);
        }
        if v.taking {
            info.push(vec![Span::styled(
                "· the defender takes",
                Style::default().fg(Color::LightYellow),
            )]);
        }
    }
    lines.extend(wrapped(Vec::new(), info, width, 2));
    if full {
        if let Some(stock) = v.stock_cards.as_ref().filter(|s| !s.is_empty()) {
            let items = stock
                .iter()
                .map(|c| vec![card_span(c, trump, false)])
                .collect();
            lines.extend(wrapped(vec![dim("stock, next first:")], items, width, 2));
        }
        if !v.discard.is_empty() {
            let items = v
                .discard
                .iter()
                .map(|c| vec![card_span(c, trump, false)])
                .collect();
            lines.extend(wrapped(vec![dim("discard:")], items, width, 2));
        }
    }
    lines
}

/// The decision and what came with it: legal choices, answer, time, refused line, faults,
/// result, a difference from the re-simulation, the events since the previous step, stderr.
pub fn decision_lines(v: &StepView) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let label = |s: &str| Span::styled(format!("{s:<8}"), Style::default().fg(Color::Cyan));
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
    if let Some(l) = &v.legal {
        lines.push(Line::from(vec![label("legal"), Span::raw(l.clone())]));
    }
    if let Some(c) = &v.legal_codes {
        lines.push(Line::from(vec![label(""), dim(c.clone())]));
    }
    if let Some(a) = &v.answer {
        lines.push(Line::from(vec![
            label("answer"),
            Span::styled(a.clone(), Style::default().add_modifier(Modifier::BOLD)),
        ]));
    }
    if let Some(a) = &v.answer_line {
        lines.push(Line::from(vec![label(""), dim(a.clone())]));
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
        for l in e.text.lines() {
            lines.push(Line::from(dim(format!("  | {l}"))));
        }
    }
    lines
}

/// `line` cut into rows of at most `width` columns, between words where it can (a word longer
/// than a row is cut): the rows a terminal shows, so that they can be counted and scrolled.
fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    if line.width() <= width {
        return vec![line];
    }
    // Continuation rows start under the text: after a label ("legal   "), a bullet ("  • ",
    // "  | ") or two columns in.
    let first = line
        .spans
        .first()
        .map(|s| s.content.to_string())
        .unwrap_or_default();
    let lead = first.len() - first.trim_start().len();
    let indent = if first.len() == 8 && first.ends_with(' ') && lead == 0 {
        8
    } else if lead > 0 {
        lead + 2
    } else {
        2
    }
    .min(width / 2);
    let mut rows = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let flush = |cur: &mut Vec<Span<'static>>, used: &mut usize, rows: &mut Vec<Line<'static>>| {
        rows.push(Line::from(std::mem::take(cur)));
        cur.push(Span::raw(" ".repeat(indent)));
        *used = indent;
    };
    for span in line.spans {
        let style = span.style;
        for word in span.content.split_inclusive(' ') {
            let w = Span::raw(word).width();
            let bare = Span::raw(word.trim_end_matches(' ')).width();
            if used + bare > width && used > indent {
                flush(&mut cur, &mut used, &mut rows);
            }
            if w <= width - used {
                cur.push(Span::styled(word.to_string(), style));
                used += w;
            } else if bare <= width - used {
                cur.push(Span::styled(word.trim_end_matches(' ').to_string(), style));
                flush(&mut cur, &mut used, &mut rows);
            } else {
                // Longer than a row: cut it.
                for ch in word.chars() {
                    let cw = Span::raw(ch.to_string()).width();
                    if used + cw > width {
                        flush(&mut cur, &mut used, &mut rows);
                    }
                    cur.push(Span::styled(ch.to_string(), style));
                    used += cw;
                }
            }
        }
    }
    if used > indent || rows.is_empty() {
        rows.push(Line::from(cur));
    }
    rows
}

/// The rows `lines` take at `width`.
pub fn wrap_rows(lines: Vec<Line<'static>>, width: u16) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .flat_map(|l| wrap_line(l, width as usize))
        .collect()
}

/// A window of `height` rows of `rows`, from row `scroll` (clamped): a line saying how many
/// rows are above it when it does not start at the top, one saying how many are below when it
/// does not reach the end. Returns the rows shown and the largest useful `scroll`.
pub fn window(rows: Vec<Line<'static>>, height: u16, scroll: usize) -> (Vec<Line<'static>>, usize) {
    let h = height as usize;
    let n = rows.len();
    if n <= h || h < 3 {
        return (rows.into_iter().take(h.max(1)).collect(), 0);
    }
    let max = n - (h - 1);
    let s = scroll.min(max);
    let mut body = h - usize::from(s > 0);
    let below = n.saturating_sub(s + body);
    if below > 0 {
        body -= 1;
    }
    let below = n - (s + body);
    let mut shown = Vec::new();
    if s > 0 {
        shown.push(Line::from(dim(format!(
            "↑ {s} line{} above (k scrolls up)",
            if s == 1 { "" } else { "s" }
        ))));
    }
    shown.extend(rows.into_iter().skip(s).take(body));
    if below > 0 {
        shown.push(Line::from(dim(format!(
            "↓ {below} more line{} (j scrolls down)",
            if below == 1 { "" } else { "s" }
        ))));
    }
    (shown, max)
}

/// Draw one step into `area`: the seats and their hands, the table and stock, and the decision
/// with its events and stderr, laid out for the area's size.
pub fn draw_step(frame: &mut Frame, area: Rect, v: &StepView) {
    draw_step_scrolled(frame, area, v, 0);
}

/// [`draw_step`] with the decision panel scrolled down by `scroll` rows (clamped); returns the
/// largest scroll that shows something more (0 when the panel holds everything).
pub fn draw_step_scrolled(frame: &mut Frame, area: Rect, v: &StepView, scroll: usize) -> usize {
    if area.width < 4 || area.height < 3 {
        return 0;
    }
    let wide = area.width >= WIDE;
    let (left, right) = if wide {
        let [l, r] = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
            .areas(area);
        (l, Some(r))
    } else {
        (area, None)
    };
    let inner = left.width.saturating_sub(2) as usize;
    let seats = seat_lines(v, inner);
    let decision = decision_lines(v);
    // The table's extras (stock order, discard's cards) only where they leave the decision room.
    let full_table = table_lines(v, inner, true);
    let short_table = table_lines(v, inner, false);
    let seat_h = seats.len() as u16 + 2;
    let table_for = |lines: &Vec<Line<'static>>| lines.len() as u16 + 2;
    let table = if right.is_some() {
        // Wide: the left column holds seats and table only.
        if seat_h + table_for(&full_table) <= left.height {
            full_table
        } else {
            short_table
        }
    } else {
        let spare = left
            .height
            .saturating_sub(seat_h + table_for(&full_table) + 2);
        if spare as usize >= wrap_rows(decision.clone(), left.width.saturating_sub(2)).len() {
            full_table
        } else {
            short_table
        }
    };
    let table_h = table_for(&table);
    let faulty = !v.faults.is_empty();
    let decision_block = Block::bordered()
        .title(if v.result.is_some() {
            " Result "
        } else {
            " Decision "
        })
        .border_style(if faulty {
            Style::default().fg(Color::Red)
        } else {
            Style::default()
        });
    let seat_title = match v.viewer {
        None => " Seats ".to_string(),
        Some(s) => format!(" Seats, as seat {s} sees them "),
    };
    match right {
        Some(r) => {
            let [s_area, t_area, _] = Layout::vertical([
                Constraint::Length(seat_h),
                Constraint::Length(table_h),
                Constraint::Min(0),
            ])
            .areas(left);
            frame.render_widget(
                Paragraph::new(seats).block(Block::bordered().title(seat_title)),
                s_area,
            );
            frame.render_widget(
                Paragraph::new(table).block(Block::bordered().title(" Table ")),
                t_area,
            );
            let rows = wrap_rows(decision, r.width - 2);
            let (lines, max) = window(rows, r.height.saturating_sub(2), scroll);
            frame.render_widget(Paragraph::new(lines).block(decision_block), r);
            max
        }
        None => {
            let [s_area, t_area, d_area] = Layout::vertical([
                Constraint::Length(seat_h),
                Constraint::Length(table_h),
                Constraint::Min(0),
            ])
            .areas(left);
            frame.render_widget(
                Paragraph::new(seats).block(Block::bordered().title(seat_title)),
                s_area,
            );
            frame.render_widget(
                Paragraph::new(table).block(Block::bordered().title(" Table ")),
                t_area,
            );
            let rows = wrap_rows(decision, d_area.width.saturating_sub(2));
            let (lines, max) = window(rows, d_area.height.saturating_sub(2), scroll);
            frame.render_widget(Paragraph::new(lines).block(decision_block), d_area);
            max
        }
    }
}

/// A box of keys and what they do, centred over `area`.
pub(crate) fn draw_help(frame: &mut Frame, area: Rect, help: &[(&str, &str)]) {
    let key_w = help
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let text_w = help
        .iter()
        .map(|(_, d)| d.chars().count())
        .max()
        .unwrap_or(0);
    let w = ((key_w + text_w + 2) as u16).min(area.width);
    let lines: Vec<Line> = help
        .iter()
        .map(|(k, d)| {
            Line::from(vec![
                Span::styled(format!("{k:<key_w$}"), Style::default().fg(Color::Cyan)),
                Span::raw(*d),
            ])
        })
        .collect();
    let hgt = (lines.len() as u16 + 2).min(area.height);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - hgt) / 2,
        w,
        hgt,
    );
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Keys ")),
        r,
    );
}
