//! The crate's error for what a bot decodes: a referee line it cannot read.

/// A referee line (or request) that [`crate::bot::read_for_bot`] or
/// [`crate::legal_from_request`] cannot decode; the message names what is wrong in it.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The line is not JSON of a referee message.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// A request whose `decision` is not `attack`, `defend` or `add` (the value, if any).
    #[error("unknown decision {0:?}")]
    UnknownDecision(Option<String>),
    /// A request without this field (`observation`, `id`).
    #[error("a request without {0}")]
    Missing(&'static str),
    /// A request whose observation's `trump_suit` is not a suit's letter.
    #[error("bad trump_suit")]
    BadTrumpSuit,
}

#[cfg(test)]
mod tests {
    use super::DecodeError;
    use crate::bot::read_for_bot;
    use serde_json::json;

    #[test]
    fn a_line_a_bot_cannot_decode_says_what_is_wrong_by_kind() {
        let e = read_for_bot("{not json").unwrap_err();
        assert!(matches!(e, DecodeError::Json(_)), "{e:?}");
        let e = read_for_bot(r#"{"type":"request","id":3,"decision":"flee"}"#).unwrap_err();
        assert_eq!(e.to_string(), r#"unknown decision Some("flee")"#);
        let e = read_for_bot(r#"{"type":"request","id":3,"decision":"attack"}"#).unwrap_err();
        assert_eq!(e.to_string(), "a request without observation");
        let e = crate::legal_from_request(&json!({"type": "request"})).unwrap_err();
        assert_eq!(e.to_string(), "unknown decision None");
    }
}
