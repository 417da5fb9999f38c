//! Charts as inline SVG, drawn here (a few shapes each: simpler than a plotting crate, and no
//! external resource): values with their intervals as bars, a heat map, lines over time.

use maud::{html, Markup};

/// Colours for series (bots), in order.
pub const PALETTE: [&str; 10] = [
    "#e0b94f", "#6fb7e8", "#e07a5f", "#81c784", "#ba8ee0", "#f06292", "#4dd0e1", "#ffb74d",
    "#aed581", "#90a4ae",
];

/// One row of an interval chart.
pub struct Bar {
    pub label: String,
    /// Printed before the label (a rank, `=2`).
    pub tag: String,
    pub value: Option<f64>,
    /// `None`: unbounded on that side (drawn as an arrow to the edge).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The value as printed at the end of the row.
    pub text: String,
}

fn nice_step(span: f64, ticks: f64) -> f64 {
    let raw = (span / ticks).max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    p * if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    }
}

/// Ticks over `[lo, hi]`, widened to round numbers.
fn ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let step = nice_step(hi - lo, 5.0);
    let a = (lo / step).floor() * step;
    let b = (hi / step).ceil() * step;
    let mut v = Vec::new();
    let mut x = a;
    while x <= b + step / 2.0 {
        v.push((x / step).round() * step);
        x += step;
    }
    (a, b, v)
}

fn fmt_tick(x: f64, unit: &str) -> String {
    if x.abs() >= 10.0 || x == x.round() {
        format!("{x:.0}{unit}")
    } else {
        format!("{x:.1}{unit}")
    }
}

/// Each row's value as a dot with its interval as a bar, on one axis (`unit` after the ticks,
/// `fixed`: the axis' range, else from the values).
pub fn interval_chart(title: &str, bars: &[Bar], unit: &str, fixed: Option<(f64, f64)>) -> Markup {
    let label_w = 230.0;
    let value_w = 200.0;
    let plot_w = 520.0;
    let row_h = 26.0;
    let top = 24.0;
    let width = label_w + plot_w + value_w;
    let height = top + row_h * bars.len() as f64 + 26.0;
    let finite: Vec<f64> = bars
        .iter()
        .flat_map(|b| [b.value, b.lo, b.hi])
        .flatten()
        .filter(|x| x.is_finite())
        .collect();
    let (lo, hi) = match fixed {
        Some(r) => r,
        None => {
            let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if lo.is_finite() && hi > lo {
                (lo, hi)
            } else if lo.is_finite() {
                (lo - 50.0, lo + 50.0)
            } else {
                (-100.0, 100.0)
            }
        }
    };
    let (a, b, tick_list) = if fixed.is_some() {
        let step = nice_step(hi - lo, 5.0);
        let n = ((hi - lo) / step).round() as usize;
        (lo, hi, (0..=n).map(|i| lo + i as f64 * step).collect())
    } else {
        ticks(lo, hi)
    };
    let x = |v: f64| label_w + (v.clamp(a, b) - a) / (b - a) * plot_w;
    html! {
        figure.chart.wide.scroll {
            figcaption { (title) }
            svg viewBox={ "0 0 " (width) " " (height) } width=(width) height=(height) role="img"
                aria-label=(title) xmlns="http://www.w3.org/2000/svg" {
                @for t in &tick_list {
                    line.grid x1=(x(*t)) x2=(x(*t)) y1=(top - 6.0) y2=(height - 22.0) {}
                    text.tick x=(x(*t)) y=(height - 6.0) text-anchor="middle" { (fmt_tick(*t, unit)) }
                }
                @if a < 0.0 && b > 0.0 {
                    line.zero x1=(x(0.0)) x2=(x(0.0)) y1=(top - 6.0) y2=(height - 22.0) {}
                }
                @for (i, bar) in bars.iter().enumerate() {
                    @let y = top + row_h * i as f64 + row_h / 2.0;
                    @let colour = PALETTE[i % PALETTE.len()];
                    text.label x=(label_w - 8.0) y=(y + 4.0) text-anchor="end" {
                        tspan.tag { (bar.tag) " " } (bar.label)
                    }
                    @if let Some(v) = bar.value {
                        @let x0 = bar.lo.map_or(label_w, x);
                        @let x1 = bar.hi.map_or(label_w + plot_w, x);
                        rect.interval x=(x0) y=(y - 6.0) width=((x1 - x0).max(1.0)) height="12"
                            fill=(colour) {
                            title { (bar.label) ": " (bar.text) }
                        }
                        @if bar.lo.is_none() {
                            path.open d={ "M" (label_w) " " (y) " l8 -7 v14 z" } fill=(colour) {}
                        }
                        @if bar.hi.is_none() {
                            path.open d={ "M" (label_w + plot_w) " " (y) " l-8 -7 v14 z" } fill=(colour) {}
                        }
                        circle.value cx=(x(v)) cy=(y) r="5" {}
                    } @else {
                        text.none x=(label_w + 6.0) y=(y + 4.0) { "no rating" }
                    }
                    text.value x=(label_w + plot_w + 10.0) y=(y + 4.0) { (bar.text) }
                }
            }
        }
    }
}

/// A cell of a heat map: its colour's value in `[0, 1]` (0.5 even), its text, its tooltip.
pub struct Cell {
    pub value: f64,
    pub text: String,
    pub title: String,
}

/// A square heat map: rows against columns (the same names), red below 0.5, green above.
pub fn heat_map(
    title: &str,
    names: &[String],
    cell: impl Fn(usize, usize) -> Option<Cell>,
) -> Markup {
    let n = names.len();
    // Sized to the names (at most 24 characters, about 7 px each at 12-13 px): the row names on
    // the left, the column names slanted by 40° above, the last one reaching past the grid.
    let longest = names
        .iter()
        .map(|n| short(n).chars().count())
        .max()
        .unwrap_or(0) as f64;
    let text_w = longest * 7.2;
    let label_w = (text_w + 16.0).clamp(60.0, 200.0);
    let cell_w = 64.0;
    let cell_h = 30.0;
    let head_h = (text_w * 0.643 + 16.0).clamp(30.0, 120.0);
    let right = (text_w * 0.766 - cell_w / 2.0 + 8.0).clamp(8.0, 140.0);
    let width = label_w + cell_w * n as f64 + right;
    let height = head_h + cell_h * n as f64 + 4.0;
    let colour = |v: f64| {
        let v = v.clamp(0.0, 1.0);
        // 0: red, 0.5: grey, 1: green.
        let (r, g, b) = if v < 0.5 {
            let t = v / 0.5;
            (
                190.0 + (70.0 - 190.0) * t,
                60.0 + (78.0 - 60.0) * t,
                60.0 + (72.0 - 60.0) * t,
            )
        } else {
            let t = (v - 0.5) / 0.5;
            (
                70.0 + (40.0 - 70.0) * t,
                78.0 + (150.0 - 78.0) * t,
                72.0 + (80.0 - 72.0) * t,
            )
        };
        format!("rgb({:.0},{:.0},{:.0})", r, g, b)
    };
    html! {
        figure.chart.scroll {
            figcaption { (title) }
            svg viewBox={ "0 0 " (width) " " (height) } width=(width) height=(height) role="img"
                aria-label=(title) xmlns="http://www.w3.org/2000/svg" {
                @for (j, name) in names.iter().enumerate() {
                    @let cx = label_w + cell_w * j as f64 + cell_w / 2.0;
                    text.col x=(cx) y=(head_h - 8.0)
                        transform={ "rotate(-40 " (cx) " " (head_h - 8.0) ")" } { (short(name)) }
                }
                @for (i, name) in names.iter().enumerate() {
                    @let y = head_h + cell_h * i as f64;
                    text.label x=(label_w - 8.0) y=(y + cell_h / 2.0 + 4.0) text-anchor="end" { (short(name)) }
                    @for j in 0..n {
                        @let x = label_w + cell_w * j as f64;
                        @if let Some(c) = cell(i, j) {
                            rect.cell x=(x + 1.0) y=(y + 1.0) width=(cell_w - 2.0) height=(cell_h - 2.0)
                                fill=(colour(c.value)) {
                                title { (c.title) }
                            }
                            text.cell x=(x + cell_w / 2.0) y=(y + cell_h / 2.0 + 4.0) text-anchor="middle" { (c.text) }
                        } @else {
                            rect.empty x=(x + 1.0) y=(y + 1.0) width=(cell_w - 2.0) height=(cell_h - 2.0) {}
                        }
                    }
                }
            }
        }
    }
}

fn short(name: &str) -> String {
    if name.chars().count() > 24 {
        let mut s: String = name.chars().take(23).collect();
        s.push('…');
        s
    } else {
        name.to_string()
    }
}

/// One line of a line chart: points (x, y), drawn in order.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Lines over a shared x axis, with a legend.
pub fn line_chart(title: &str, x_label: &str, y_unit: &str, series: &[Series]) -> Markup {
    let left = 56.0;
    let plot_w = 700.0;
    let plot_h = 260.0;
    let top = 14.0;
    let legend_w = 220.0;
    let width = left + plot_w + 16.0 + legend_w;
    let height = top + plot_h + 44.0;
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .collect();
    let x_hi = xs.iter().copied().fold(1.0, f64::max);
    let (y_lo, y_hi) = if ys.is_empty() {
        (-100.0, 100.0)
    } else {
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if hi > lo {
            (lo, hi)
        } else {
            (lo - 50.0, hi + 50.0)
        }
    };
    let (ya, yb, yt) = ticks(y_lo, y_hi);
    let (_, xb, xt) = ticks(0.0, x_hi);
    let px = |x: f64| left + x / xb * plot_w;
    let py = |y: f64| top + plot_h - (y - ya) / (yb - ya) * plot_h;
    html! {
        figure.chart.wide.scroll {
            figcaption { (title) }
            svg viewBox={ "0 0 " (width) " " (height) } width=(width) height=(height) role="img"
                aria-label=(title) xmlns="http://www.w3.org/2000/svg" {
                @for t in &yt {
                    line.grid x1=(left) x2=(left + plot_w) y1=(py(*t)) y2=(py(*t)) {}
                    text.tick x=(left - 6.0) y=(py(*t) + 4.0) text-anchor="end" { (fmt_tick(*t, y_unit)) }
                }
                @for t in &xt {
                    line.grid x1=(px(*t)) x2=(px(*t)) y1=(top) y2=(top + plot_h) {}
                    text.tick x=(px(*t)) y=(top + plot_h + 16.0) text-anchor="middle" { (fmt_tick(*t, "")) }
                }
                text.axis x=(left + plot_w / 2.0) y=(height - 6.0) text-anchor="middle" { (x_label) }
                @for (i, s) in series.iter().enumerate() {
                    @let colour = PALETTE[i % PALETTE.len()];
                    @let d: String = s.points.iter().filter(|p| p.1.is_finite()).enumerate()
                        .map(|(k, p)| format!("{}{:.1} {:.1}", if k == 0 { "M" } else { " L" }, px(p.0), py(p.1)))
                        .collect();
                    path.series d=(d) stroke=(colour) {
                        title { (s.name) }
                    }
                    @let ly = top + 10.0 + 18.0 * i as f64;
                    rect x=(left + plot_w + 16.0) y=(ly - 9.0) width="14" height="10" fill=(colour) {}
                    text.legend x=(left + plot_w + 36.0) y=(ly) { (short(&s.name)) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(value: Option<f64>, lo: Option<f64>, hi: Option<f64>) -> Bar {
        Bar {
            label: "<b>x</b>".into(),
            tag: "=2".into(),
            value,
            lo,
            hi,
            text: "t".into(),
        }
    }

    #[test]
    fn an_unbounded_end_is_an_arrow_and_labels_are_text() {
        let svg = interval_chart(
            "c",
            &[
                bar(Some(10.0), Some(-20.0), None),
                bar(Some(0.0), None, Some(5.0)),
                bar(None, None, None),
            ],
            "",
            None,
        )
        .into_string();
        assert_eq!(svg.matches("class=\"interval\"").count(), 2);
        assert_eq!(
            svg.matches("class=\"open\"").count(),
            2,
            "one arrow per open end"
        );
        assert!(svg.contains("no rating"));
        assert!(svg.contains("&lt;b&gt;x&lt;/b&gt;") && !svg.contains("<b>x"));
        // Every shape is closed: inline SVG in HTML needs it.
        assert_eq!(svg.matches("<rect").count(), svg.matches("</rect>").count());
        assert_eq!(svg.matches("<line").count(), svg.matches("</line>").count());
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let (a, b, t) = ticks(-37.0, 412.0);
        assert!(a <= -37.0 && b >= 412.0);
        assert_eq!(t, vec![-100.0, 0.0, 100.0, 200.0, 300.0, 400.0, 500.0]);
        let (_, _, t) = ticks(0.0, 1.0);
        assert_eq!(t.first(), Some(&0.0));
        assert!(t.len() >= 3 && t.len() <= 12, "{t:?}");
    }

    #[test]
    fn heat_map_cells() {
        let names = vec!["a".to_string(), "b".to_string()];
        let svg = heat_map("h", &names, |i, j| {
            (i != j).then(|| Cell {
                value: if i == 0 { 1.0 } else { 0.0 },
                text: format!("{i}{j}"),
                title: "t".into(),
            })
        })
        .into_string();
        assert_eq!(
            svg.matches("class=\"cell\"").count(),
            4,
            "2 rects and 2 texts"
        );
        assert_eq!(svg.matches("class=\"empty\"").count(), 2, "the diagonal");
        assert!(svg.contains("rgb(40,150,80)"), "green for 1");
        assert!(svg.contains("rgb(190,60,60)"), "red for 0");
    }

    /// The margins follow the names: short names leave little room, long ones more (capped).
    #[test]
    fn heat_map_margins_follow_the_names() {
        let size = |name: &str| -> (f64, f64) {
            let names = vec![name.to_string(), "b".to_string()];
            let svg = heat_map("h", &names, |_, _| None).into_string();
            let vb = svg.split("viewBox=\"0 0 ").nth(1).unwrap();
            let mut it = vb.split(['"', ' ']).map(|x| x.parse::<f64>().unwrap());
            (it.next().unwrap(), it.next().unwrap())
        };
        let (w_short, h_short) = size("a");
        // Two 64 × 30 cells: the margins of one-letter names are small.
        assert!(w_short <= 2.0 * 64.0 + 60.0 + 8.0 + 0.5, "{w_short}");
        assert!(h_short <= 2.0 * 30.0 + 30.0 + 4.0 + 0.5, "{h_short}");
        let (w_long, h_long) = size("a-rather-long-bot-name-24");
        assert!(w_long > w_short + 150.0 && h_long > h_short + 60.0);
        let (w_capped, _) = size(&"x".repeat(200));
        assert_eq!(w_capped, w_long, "names are cut at 24 characters");
    }
}
