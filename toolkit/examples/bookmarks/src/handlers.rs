//! The tools' behaviour: one method of the generated `ToolHandlers` trait per tool of tools.yaml.
//! Arguments arrive parsed and checked against the manifest; errors are the manifest's templates.

use std::sync::Mutex;

use toolkit_runtime::{CallContext, Reply, ToolResult};

use crate::generated::{
    BookmarksAddInput, BookmarksAddOutput, BookmarksFindInput, BookmarksFindOutput, BookmarksFindOutputBookmarksItem,
    BookmarksRemoveInput, BookmarksRemoveOutput, ToolHandlers, errors,
};

/// The saved bookmarks, in memory: a session's list, gone when the server stops.
#[derive(Default)]
pub struct Bookmarks {
    saved: Mutex<Saved>,
}

#[derive(Default)]
struct Saved {
    next_id: i64,
    bookmarks: Vec<BookmarksFindOutputBookmarksItem>,
}

impl Bookmarks {
    fn saved(&self) -> std::sync::MutexGuard<'_, Saved> {
        // A panic cannot leave the list half-changed (each change is one push or remove).
        self.saved.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ToolHandlers for Bookmarks {
    async fn bookmarks_add(&self, input: BookmarksAddInput, _: CallContext) -> ToolResult<BookmarksAddOutput> {
        if !(input.url.starts_with("http://") || input.url.starts_with("https://")) {
            return Err(errors::bad_url(&input.url));
        }
        let mut saved = self.saved();
        if let Some(b) = saved.bookmarks.iter().find(|b| b.url == input.url) {
            return Err(errors::already_saved(&input.url, b.id));
        }
        saved.next_id += 1;
        let id = saved.next_id;
        let tags = input.tags.unwrap_or_default();
        saved.bookmarks.push(BookmarksFindOutputBookmarksItem { id, url: input.url, title: input.title, tags });
        Ok(Reply::new(BookmarksAddOutput { id }).with_text(format!("Saved as bookmark {id}.")))
    }

    async fn bookmarks_find(&self, input: BookmarksFindInput, _: CallContext) -> ToolResult<BookmarksFindOutput> {
        let word = input.word.map(|w| w.to_lowercase());
        let found: Vec<_> = self
            .saved()
            .bookmarks
            .iter()
            .rev()
            .filter(|b| input.tag.as_ref().is_none_or(|t| b.tags.contains(t)))
            .filter(|b| word.as_ref().is_none_or(|w| b.title.to_lowercase().contains(w)))
            .cloned()
            .collect();
        let total = found.len() as i64;
        let bookmarks = found.into_iter().take(input.limit as usize).collect();
        Ok(Reply::new(BookmarksFindOutput { bookmarks, total }))
    }

    async fn bookmarks_remove(&self, input: BookmarksRemoveInput, _: CallContext) -> ToolResult<BookmarksRemoveOutput> {
        let mut saved = self.saved();
        let Some(at) = saved.bookmarks.iter().position(|b| b.id == input.id) else {
            return Err(errors::not_found(input.id));
        };
        saved.bookmarks.remove(at);
        Ok(Reply::new(BookmarksRemoveOutput { removed: true }))
    }
}
