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
use crate::store::served::Served;

/// How often the store is asked whether anything changed while a board is open.
const POLL: Duration = Duration::from_millis(200);
/// With the index cache off every refresh re-reads every file; poll much less then.
const POLL_UNCACHED: Duration = Duration::from_secs(2);

/// The store generation last seen while boards were open (`None` while none is), watched by
/// every open board.
pub struct Live {
    tx: watch::Sender<Option<u64>>,
    store: Arc<Served>,
}

impl Live {
    /// Starts the poller; it stops with `cancel` or when the last handle to the board is gone.
    pub fn start(store: Arc<Served>, cancel: CancellationToken) -> Arc<Live> {
        let live = Arc::new(Live { tx: watch::Sender::new(None), store: Arc::clone(&store) });
        let weak = Arc::downgrade(&live);
        let interval = if store.index_info().enabled { POLL } else { POLL_UNCACHED };
        // Build the index now, while the person who started the board opens its URL, so the
        // first render does not wait for 10,000 files to be read.
        let warm = Arc::clone(&store);
        tokio::task::spawn_blocking(move || warm.generation());
        tokio::spawn(poll(weak, store, interval, cancel));
        live
    }

    /// A receiver for a new board, once the generation it starts from is known (so an edit made
    /// right after the board connects is announced, never taken as the starting point).
    async fn subscribe(&self) -> watch::Receiver<Option<u64>> {
        let rx = self.tx.subscribe();
        let store = Arc::clone(&self.store);
        if let Ok(Ok(generation)) = tokio::task::spawn_blocking(move || store.generation()).await {
            self.tx.send_if_modified(|known| {
                known.get_or_insert(generation);
                false
            });
        }
        rx
    }

    /// Records `generation`; true (and every board is told) when it differs from the last one.
    fn observe(&self, generation: u64) -> bool {
        self.tx.send_if_modified(|known| match known.replace(generation) {
            Some(before) => before != generation,
            None => false,
        })
    }
}

async fn poll(live: Weak<Live>, store: Arc<Served>, interval: Duration, cancel: CancellationToken) {
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(interval) => {}
        }
        let Some(live) = live.upgrade() else { return };
        if live.tx.receiver_count() == 0 {
            // Nobody is looking: the next board to open fetches everything anyway.
            live.tx.send_if_modified(|known| {
                *known = None;
                false
            });
            continue;
        }
        let store = Arc::clone(&store);
        if let Ok(Ok(generation)) = tokio::task::spawn_blocking(move || store.generation()).await {
            live.observe(generation);
        }
    }
}

/// `GET /api/events`: `hello` once, then `change` whenever an issue changes; ends when the
/// server shuts down (so a graceful stop never waits on an open board).
pub async fn events(State(web): State<Arc<Web>>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = web.live.subscribe().await;
    let cancel = web.cancel.clone();
    let stream = futures_util::stream::unfold((rx, cancel, true), |(mut rx, cancel, first)| async move {
        if first {
            return Some((Ok(Event::default().event("hello").data("ready")), (rx, cancel, false)));
        }
        tokio::select! {
            changed = rx.changed() => {
                changed.ok()?;
                let generation = rx.borrow_and_update().unwrap_or_default();
                Some((Ok(Event::default().event("change").data(generation.to_string())), (rx, cancel, false)))
            }
            _ = cancel.cancelled() => None,
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
