//! Text a bot controls (its hello name and version, its stderr, its answer lines, fault details
//! that quote them), made safe to print on the organiser's terminal.
//!
//! A terminal obeys control characters: ESC starts sequences that clear the screen, set the
//! window title, move the cursor or, on some terminals, answer back; a carriage return lets a
//! line overwrite the one before; C1 controls (U+0080 to U+009F) are the same sequences in one
//! code point; bidirectional overrides and isolates reorder what follows them. Every one of them
//! is shown here as a visible escape instead: `\e`, `\x07`, `\r`, `\u{9b}`, `\u{202e}`. Every
//! other character (accents, Cyrillic, emoji) is kept as it is, and so is a backslash: the
//! escapes are for people to read, not to be decoded.
//!
//! JSON output needs none of this: JSON escapes control characters itself.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must be escaped; `\n` and `\t` only when `keep_layout` is false.
fn must_escape(c: char, keep_layout: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_layout,
        // C0 controls, DEL and C1 controls.
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI,
        // RLI, FSI, PDI).
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

fn escape(s: &str, keep_layout: bool) -> Cow<'_, str> {
    let Some(first) = s.find(|c| must_escape(c, keep_layout)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if !must_escape(c, keep_layout) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// `1 game`, `2 games`; `many` is the plural, said whole (`loss`, `losses`).
pub fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `s` for one line of a terminal: every control character (newlines and tabs too), DEL, C1
/// control and bidirectional override or isolate is replaced by a visible escape (`\e`, `\n`,
/// `\x07`, `\u{202e}`). Borrows `s` when there is nothing to escape.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// [`escape_controls`] for a block of several lines (a bot's stderr): newlines and tabs are
/// kept, everything else is escaped the same way (a carriage return too, so that no line can
/// overwrite another).
pub fn escape_controls_multiline(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No byte a terminal acts on: C0 controls (but `\n` and `\t` when `keep` is given), DEL, C1
    /// (as UTF-8, U+0080 to U+009F), bidi overrides and isolates.
    fn inert(s: &str, keep: &[char]) -> bool {
        s.chars()
            .all(|c| keep.contains(&c) || !must_escape(c, false))
    }

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        for s in ["", "greedy 1.0", "Дурак-бот ♠ 🃏", r"C:\bots\x07 is a path"] {
            let e = escape_controls(s);
            assert!(matches!(e, Cow::Borrowed(_)), "{s:?}");
            assert_eq!(e, s);
        }
        assert!(matches!(
            escape_controls_multiline("two\n\tlines"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn terminal_sequences_become_visible_escapes() {
        let cases = [
            ("\x1b]0;pwned\x07", r"\e]0;pwned\x07"),
            ("\x1b[2J\x1b[H", r"\e[2J\e[H"),
            ("ok\rFAKE", r"ok\rFAKE"),
            ("a\nb\tc", r"a\nb\tc"),
            ("nul\0del\x7f", r"nul\x00del\x7f"),
            ("csi\u{9b}2J", r"csi\u{9b}2J"),
            ("\u{85}next line", r"\u{85}next line"),
            ("abc\u{202e}fed", r"abc\u{202e}fed"),
            (
                "\u{202a}\u{202b}\u{202c}\u{202d}\u{2066}\u{2067}\u{2068}\u{2069}",
                r"\u{202a}\u{202b}\u{202c}\u{202d}\u{2066}\u{2067}\u{2068}\u{2069}",
            ),
            ("Дурак\x1b[31m♠", r"Дурак\e[31m♠"),
        ];
        for (raw, want) in cases {
            let got = escape_controls(raw);
            assert_eq!(got, want, "{raw:?}");
            assert!(inert(&got, &[]), "{got:?}");
        }
    }

    #[test]
    fn the_multiline_variant_keeps_newlines_and_tabs_only() {
        let raw = "Traceback:\n\tline 1\r\n\x1b[2Jgone\u{202e}\n";
        let got = escape_controls_multiline(raw);
        assert_eq!(got, "Traceback:\n\tline 1\\r\n\\e[2Jgone\\u{202e}\n");
        assert!(inert(&got, &['\n', '\t']), "{got:?}");
    }

    /// Every code point that must be escaped is, and no other: the escaped text of any string is
    /// inert, and a string without them comes back unchanged.
    #[test]
    fn every_code_point_is_either_kept_or_escaped() {
        for cp in (0u32..0x3000).chain([0xfeff, 0x1_f0a1, 0x10_ffff]) {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let s = format!("x{c}y");
            let e = escape_controls(&s);
            assert!(inert(&e, &[]), "U+{cp:04X}: {e:?}");
            let dangerous = cp < 0x20
                || (0x7f..=0x9f).contains(&cp)
                || (0x202a..=0x202e).contains(&cp)
                || (0x2066..=0x2069).contains(&cp);
            assert_eq!(e != s, dangerous, "U+{cp:04X}");
        }
    }
}
