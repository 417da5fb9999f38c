//! The pages' cache of version views (`/bots/BOT/versions/N` and its JSON), as the leaderboard
//! keeps its board: a view read from the database is served again until games are recorded or
//! the leaderboard changes (versions in or out, a suspension, a pause), and then computed again
//! at most every 200 ms, by one request while the others wait for it (not a hundred at once).
//! A version still being built or checked is read every time (its state changes without a game).
//! The standing on the leaderboard is not cached: it is added when the view is served.

use super::AppState;
use crate::views::{self, VersionView};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a view is served after its computation whatever changed.
pub const FRESH: Duration = Duration::from_millis(200);
/// Views kept at most (the least recently computed go first).
const MAX_ENTRIES: usize = 512;

/// What a view was computed after: (games recorded by this run, the leaderboard's generation).
type Generation = (u64, u64);

struct Entry {
    generation: Generation,
    at: Instant,
    view: Arc<VersionView>,
}

#[derive(Default)]
pub struct Cache {
    versions: Mutex<HashMap<(String, i64), Entry>>,
    /// Held while a view is computed: the requests that missed wait, then find it.
    computing: Mutex<()>,
}

fn generation(s: &AppState) -> Generation {
    (
        s.ladder.recorded.load(Ordering::SeqCst),
        s.ladder.board.generation(),
    )
}

impl Cache {
    fn cached(&self, key: &(String, i64), now: Generation) -> Option<Arc<VersionView>> {
        let map = self.versions.lock().unwrap_or_else(|e| e.into_inner());
        let e = map.get(key)?;
        (e.generation == now || e.at.elapsed() < FRESH).then(|| e.view.clone())
    }

    /// The view of version `n` of `bot` (blocking: it may read the database).
    pub fn version(
        &self,
        s: &AppState,
        bot: &str,
        n: i64,
    ) -> Result<Option<Arc<VersionView>>, views::ViewError> {
        let key = (bot.to_string(), n);
        if let Some(v) = self.cached(&key, generation(s)) {
            return Ok(Some(v));
        }
        let _one = self.computing.lock().unwrap_or_else(|e| e.into_inner());
        // Read before the database: a game recorded meanwhile makes the entry stale at once.
        let now = generation(s);
        if let Some(v) = self.cached(&key, now) {
            return Ok(Some(v));
        }
        let Some(view) = views::version_view(&s.ladder, bot, n)? else {
            return Ok(None);
        };
        let view = Arc::new(view);
        let settled = !view.version.state.in_check();
        if settled {
            let mut map = self.versions.lock().unwrap_or_else(|e| e.into_inner());
            if map.len() >= MAX_ENTRIES && !map.contains_key(&key) {
                if let Some(oldest) = map.iter().min_by_key(|(_, e)| e.at).map(|(k, _)| k.clone()) {
                    map.remove(&oldest);
                }
            }
            map.insert(
                key,
                Entry {
                    generation: now,
                    at: Instant::now(),
                    view: view.clone(),
                },
            );
        }
        Ok(Some(view))
    }

    /// Drop the view of version `n` of `bot`: its state was changed by hand (the organiser),
    /// and the next request must see it, not a view computed less than [`FRESH`] ago.
    pub fn forget(&self, bot: &str, n: i64) {
        self.versions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(bot.to_string(), n));
    }

    /// Views kept now.
    pub fn len(&self) -> usize {
        self.versions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
