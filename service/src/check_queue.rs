//! The checker's fair queue: builds and checks run `[check] concurrency` at a time, taken in
//! turn by author — round robin over the authors with a waiting version (the author served
//! longest ago first, then the one whose waiting version is oldest), oldest first within an
//! author — and never two of one author's at once. So one author's slow build holds one of the
//! checker's places, never the others: another author waits for at most one check.

use crate::ladder::Ladder;
use std::collections::HashMap;
use std::sync::Mutex;

/// When each author was last served (a counter, not a clock: only the order matters).
#[derive(Default)]
pub struct Turns {
    inner: Mutex<TurnState>,
}

#[derive(Default)]
struct TurnState {
    served: u64,
    last: HashMap<i64, u64>,
}

impl Turns {
    /// Of the waiting versions `(version, author)` (oldest first), the one to take now: the
    /// author served longest ago (never: first), ties to the oldest waiting version; the
    /// author's turn is recorded.
    pub fn pick(&self, waiting: &[(i64, i64)]) -> Option<i64> {
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // Each author's oldest waiting version, by its place in `waiting`.
        let mut first: HashMap<i64, usize> = HashMap::new();
        for (i, (_, author)) in waiting.iter().enumerate() {
            first.entry(*author).or_insert(i);
        }
        let (&author, &i) = first
            .iter()
            .min_by_key(|(a, i)| (t.last.get(*a).copied().unwrap_or(0), **i))?;
        t.served += 1;
        let n = t.served;
        t.last.insert(author, n);
        Some(waiting[i].0)
    }
}

/// Take the next version to build and check (its state becomes `checking`), if one may start
/// now: queued, of an author with nothing of theirs being built or checked.
pub fn next(ladder: &Ladder, turns: &Turns) -> Result<Option<i64>, crate::db::DbError> {
    crate::domain::versions::take_next_check(&ladder.db, |waiting| turns.pick(waiting))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round robin over authors, oldest first within one; a new author goes before those
    /// served already.
    #[test]
    fn authors_take_turns() {
        let t = Turns::default();
        // Versions 1-3 of author 10, 4 of author 20, 5 of author 30.
        let mut waiting = vec![(1, 10), (2, 10), (3, 10), (4, 20), (5, 30)];
        let mut order = Vec::new();
        while let Some(v) = t.pick(&waiting) {
            order.push(v);
            waiting.retain(|(id, _)| *id != v);
        }
        assert_eq!(order, [1, 4, 5, 2, 3]);
        // Author 10 was served last: a newcomer (40) and then 20 come first.
        let order: Vec<i64> = {
            let mut w = vec![(6, 10), (7, 20), (8, 40)];
            let mut o = Vec::new();
            while let Some(v) = t.pick(&w) {
                o.push(v);
                w.retain(|(id, _)| *id != v);
            }
            o
        };
        assert_eq!(order, [8, 7, 6]);
    }
}
