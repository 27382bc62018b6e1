//! Live boards: while any browser listens, the store's change detection (the inotify watcher,
//! drained by a cheap index refresh) is polled a few times a second, and every change is sent to
//! each open board as a server-sent event; the page then fetches what it shows again.

use std::convert::Infallible;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::Web;
use crate::store::Store;

/// How often the store is asked whether anything changed while a board is open.
const POLL: Duration = Duration::from_millis(200);
/// With the index cache off every refresh re-reads every file; poll much less then.
const POLL_UNCACHED: Duration = Duration::from_secs(2);

/// The latest store generation, watched by every open board.
pub struct Live {
    tx: watch::Sender<u64>,
}

impl Live {
    /// Starts the poller; it stops with `cancel` or when the last handle to the board is gone.
    pub fn start(store: Arc<Store>, cancel: CancellationToken) -> Arc<Live> {
        let live = Arc::new(Live { tx: watch::Sender::new(0) });
        let weak = Arc::downgrade(&live);
        let interval = if store.index_info().enabled { POLL } else { POLL_UNCACHED };
        tokio::spawn(poll(weak, store, interval, cancel));
        live
    }

    fn subscribe(&self) -> watch::Receiver<u64> {
        self.tx.subscribe()
    }
}

async fn poll(live: Weak<Live>, store: Arc<Store>, interval: Duration, cancel: CancellationToken) {
    let mut known: Option<u64> = None;
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(interval) => {}
        }
        let Some(live) = live.upgrade() else { return };
        if live.tx.receiver_count() == 0 {
            // Nobody is looking: the next board to open fetches everything anyway.
            known = None;
            continue;
        }
        let store = Arc::clone(&store);
        let Ok(Ok(generation)) = tokio::task::spawn_blocking(move || store.generation()).await else { continue };
        if known.is_some_and(|k| k != generation) {
            live.tx.send_replace(generation);
        }
        known = Some(generation);
    }
}

/// `GET /api/events`: `hello` once, then `change` whenever an issue changes; ends when the
/// server shuts down (so a graceful stop never waits on an open board).
pub async fn events(State(web): State<Arc<Web>>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = web.live.subscribe();
    let cancel = web.cancel.clone();
    let stream = futures_util::stream::unfold((rx, cancel, true), |(mut rx, cancel, first)| async move {
        if first {
            return Some((Ok(Event::default().event("hello").data("ready")), (rx, cancel, false)));
        }
        tokio::select! {
            changed = rx.changed() => {
                changed.ok()?;
                let generation = *rx.borrow_and_update();
                Some((Ok(Event::default().event("change").data(generation.to_string())), (rx, cancel, false)))
            }
            _ = cancel.cancelled() => None,
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
