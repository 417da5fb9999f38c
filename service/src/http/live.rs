//! The live leaderboard: `GET /api/leaderboard/events`, server-sent events. Each event
//! (`event: leaderboard`) carries the leaderboard's JSON, as `GET /api/leaderboard` answers it:
//! the first at once, then one whenever it changes (games in, versions in or out, a pause), at
//! most every 200 ms; a comment (`: keep-alive`) every 15 s keeps idle connections open.
//!
//! One publisher task (started by the first client) watches the board's generation, computes
//! the leaderboard when it moves (while some client listens) and puts its JSON in a `watch`
//! channel: a channel of one value, the latest. Every client reads that value when it can, so a client that never reads holds one
//! shared `Arc` and misses the values in between: the server's memory does not grow with it, and
//! it slows nobody. [`Live::close`] ends every stream (the server's graceful stop waits for open
//! connections, and these would never end by themselves).

use super::AppState;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// The shortest time between two events.
pub const THROTTLE: Duration = Duration::from_millis(200);
/// The keep-alive comment's interval.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

pub struct Live {
    /// The latest leaderboard's JSON, once the publisher runs; its clients subscribe to it.
    latest: Mutex<Option<Arc<watch::Sender<Arc<String>>>>>,
    closed: watch::Sender<bool>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            latest: Mutex::new(None),
            closed: watch::channel(false).0,
        }
    }
}

/// The leaderboard's JSON to send, and what it is compared on (without the time it was
/// computed: a computation that changed nothing sends nothing).
fn snapshot(s: &AppState) -> (String, serde_json::Value) {
    let mut v = crate::views::leaderboard_json(&s.ladder, Some(s.ladder.board.fresh()));
    let text = v.to_string();
    if let Some(o) = v.as_object_mut() {
        o.remove("computed_ms");
    }
    (text, v)
}

async fn snapshot_off_thread(s: &AppState) -> Option<(String, serde_json::Value)> {
    let s2 = s.clone();
    tokio::task::spawn_blocking(move || snapshot(&s2))
        .await
        .ok()
}

/// Until the server stops.
async fn closing(closed: &mut watch::Receiver<bool>) {
    let _ = closed.wait_for(|c| *c).await;
}

/// Computes the leaderboard when it may have changed, at most every [`THROTTLE`], and while
/// some client listens (with none, nothing: the next to come computes it first).
async fn publish(s: AppState, tx: Arc<watch::Sender<Arc<String>>>, mut last: serde_json::Value) {
    let mut changes = s.ladder.board.subscribe();
    let mut closed = s.live.closed.subscribe();
    // What changed between the first snapshot and now is sent at once.
    changes.mark_changed();
    loop {
        tokio::select! {
            r = changes.changed() => if r.is_err() { return },
            _ = closing(&mut closed) => return,
        }
        if tx.receiver_count() == 0 {
            continue;
        }
        let Some((text, cmp)) = snapshot_off_thread(&s).await else {
            return;
        };
        if cmp != last {
            last = cmp;
            tx.send_replace(Arc::new(text));
        }
        tokio::select! {
            _ = tokio::time::sleep(THROTTLE) => {}
            _ = closing(&mut closed) => return,
        }
    }
}

impl Live {
    /// A receiver of the latest leaderboard (the publisher starts with the first one).
    pub async fn subscribe(&self, s: &AppState) -> watch::Receiver<Arc<String>> {
        let existing = self
            .latest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(tx) = existing {
            if tx.receiver_count() == 0 {
                // Nobody listened: the publisher let changes pass.
                if let Some((text, _)) = snapshot_off_thread(s).await {
                    tx.send_replace(Arc::new(text));
                }
            }
            return tx.subscribe();
        }
        let (text, cmp) = snapshot_off_thread(s)
            .await
            .unwrap_or_else(|| ("{}".into(), serde_json::Value::Null));
        let mut latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = latest.as_ref() {
            return tx.subscribe();
        }
        let tx = Arc::new(watch::channel(Arc::new(text)).0);
        let rx = tx.subscribe();
        if !*self.closed.borrow() {
            tokio::spawn(publish(s.clone(), tx.clone(), cmp));
            *latest = Some(tx);
        }
        rx
    }

    /// End every stream, and the publisher (the server is stopping).
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.latest.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// The events of one client: the latest leaderboard now, then each new one it gets to read.
fn events(
    rx: watch::Receiver<Arc<String>>,
    closed: watch::Receiver<bool>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures_util::stream::unfold(
        (rx, closed, true),
        |(mut rx, mut closed, first)| async move {
            if *closed.borrow() {
                return None;
            }
            if !first {
                tokio::select! {
                    r = rx.changed() => r.ok()?,
                    _ = closing(&mut closed) => return None,
                }
            }
            let data = rx.borrow_and_update().clone();
            let event = Event::default().event("leaderboard").data(data.as_str());
            Some((Ok(event), (rx, closed, false)))
        },
    )
}

/// `GET /api/leaderboard/events`.
pub async fn leaderboard_events(
    State(s): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = s.live.subscribe(&s).await;
    Sse::new(events(rx, s.live.closed.subscribe()))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive"))
}
