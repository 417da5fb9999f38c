//! The kinds of message the referee sends a bot, as a set of bits: one vocabulary for the
//! referee (which kinds a bot process has read and lived on, to say which new kind it may have
//! died on) and `durak check-bot` (which kinds it has delivered, and which one a bot died
//! reading).

use crate::messages::{event_kind_index, EVENT_KINDS};
use durak_rules::EventKind;

/// A set of message kinds: each event kind (bit `i` for [`EVENT_KINDS`]`[i]`), then
/// `game_start`, `request` and `game_end`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageKinds(u32);

const EVENT_BITS: u32 = (1 << EVENT_KINDS.len()) - 1;

impl MessageKinds {
    pub const EMPTY: MessageKinds = MessageKinds(0);
    pub const GAME_START: MessageKinds = MessageKinds(1 << EVENT_KINDS.len());
    pub const REQUEST: MessageKinds = MessageKinds(1 << (EVENT_KINDS.len() + 1));
    pub const GAME_END: MessageKinds = MessageKinds(1 << (EVENT_KINDS.len() + 2));

    /// The kind of an event.
    pub fn event(e: &EventKind) -> MessageKinds {
        MessageKinds(1 << event_kind_index(e))
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Every kind of `other` is in this set.
    pub fn contains(self, other: MessageKinds) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn insert(&mut self, other: MessageKinds) {
        self.0 |= other.0;
    }

    /// The kinds of this set that are not in `other`.
    pub fn minus(self, other: MessageKinds) -> MessageKinds {
        MessageKinds(self.0 & !other.0)
    }

    /// The names of the event kinds in the set, in [`EVENT_KINDS`] order.
    pub fn events(self) -> impl Iterator<Item = &'static str> {
        EVENT_KINDS
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, k)| *k)
    }

    /// The names of the event kinds not in the set, in [`EVENT_KINDS`] order.
    pub fn missing_events(self) -> impl Iterator<Item = &'static str> {
        MessageKinds(!self.0 & EVENT_BITS).events()
    }

    /// One kind in words: `"game_over" event`, `game_start`, `request`, `game_end` (a set of
    /// several: its first kind).
    pub fn name(self) -> String {
        if let Some(e) = self.events().next() {
            return format!("{e:?} event");
        }
        [
            (MessageKinds::GAME_START, "game_start"),
            (MessageKinds::REQUEST, "request"),
            (MessageKinds::GAME_END, "game_end"),
        ]
        .into_iter()
        .find(|(k, _)| self.contains(*k) && !k.is_empty())
        .map_or_else(|| "nothing".to_string(), |(_, n)| n.to_string())
    }
}

impl std::ops::BitOr for MessageKinds {
    type Output = MessageKinds;
    fn bitor(self, other: MessageKinds) -> MessageKinds {
        MessageKinds(self.0 | other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message kinds are distinct bits: no event kind shares one with game_start, request
    /// or game_end (the referee's and check-bot's sets once gave bit 17 two meanings).
    #[test]
    fn every_kind_has_its_own_bit() {
        let others = [
            MessageKinds::GAME_START,
            MessageKinds::REQUEST,
            MessageKinds::GAME_END,
        ];
        let mut all = MessageKinds::EMPTY;
        for k in others {
            assert!(!all.contains(k) && !k.is_empty());
            assert_eq!(k.events().count(), 0);
            all.insert(k);
        }
        assert_eq!(all.missing_events().count(), EVENT_KINDS.len());
        assert_eq!(
            others.map(MessageKinds::name),
            ["game_start", "request", "game_end"]
        );
        let over = MessageKinds::EMPTY.missing_events().last().unwrap();
        assert_eq!(over, EVENT_KINDS[EVENT_KINDS.len() - 1]);
    }

    #[test]
    fn events_by_name() {
        let e = MessageKinds::event(&EventKind::GameOver { loser: None });
        assert_eq!(e.name(), "\"game_over\" event");
        assert_eq!(e.events().collect::<Vec<_>>(), ["game_over"]);
        let both = e | MessageKinds::REQUEST;
        assert!(both.contains(e) && both.contains(MessageKinds::REQUEST));
        assert_eq!(both.minus(e), MessageKinds::REQUEST);
        assert_eq!(both.missing_events().count(), EVENT_KINDS.len() - 1);
    }
}
