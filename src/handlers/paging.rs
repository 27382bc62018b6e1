//! Opaque cursors: base64 of the offset, the sort and a hash of the filters, so a cursor replayed
//! with other filters (or garbage) is rejected instead of silently returning the wrong page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct CursorData {
    /// Offset of the first item of the page.
    o: usize,
    /// Sort the listing was made with.
    s: String,
    /// Hash of the filters the listing was made with.
    h: String,
}

/// A query's identity for cursors: its sort and a stable hash of its filters.
pub struct Query {
    sort: String,
    filters_hash: String,
}

impl Query {
    /// `filters` is any serializable value holding every parameter that changes which items match.
    pub fn new(sort: &str, filters: &impl Serialize) -> Self {
        let json = serde_json::to_string(filters).unwrap_or_default();
        Query { sort: sort.to_string(), filters_hash: format!("{:016x}", fnv1a(json.as_bytes())) }
    }

    pub fn cursor(&self, offset: usize) -> String {
        let data = CursorData { o: offset, s: self.sort.clone(), h: self.filters_hash.clone() };
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&data).unwrap_or_default())
    }

    /// The offset a cursor points at, or why it does not belong to this query.
    pub fn offset(&self, cursor: &str) -> Result<usize, &'static str> {
        let bytes = URL_SAFE_NO_PAD.decode(cursor.trim()).map_err(|_| "it is not a cursor docket issued")?;
        let data: CursorData = serde_json::from_slice(&bytes).map_err(|_| "it is not a cursor docket issued")?;
        if data.h != self.filters_hash {
            return Err("it was issued for different filters");
        }
        if data.s != self.sort {
            return Err("it was issued for a different sort order");
        }
        Ok(data.o)
    }
}

/// 64-bit FNV-1a: tiny, stable across runs and Rust versions (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// One page of `total` items starting at `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub len: usize,
    pub total: usize,
}

impl Page {
    pub fn new(offset: usize, size: usize, total: usize) -> Self {
        let offset = offset.min(total);
        Page { offset, len: size.min(total - offset), total }
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.len
    }

    pub fn remaining(&self) -> usize {
        self.total - self.offset - self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cursor_round_trips_its_offset() {
        let q = Query::new("updated", &json!({"status": ["open"]}));
        assert_eq!(q.offset(&q.cursor(25)), Ok(25));
    }

    #[test]
    fn a_cursor_from_other_filters_is_rejected() {
        let a = Query::new("updated", &json!({"status": ["open"]}));
        let b = Query::new("updated", &json!({"status": ["closed"]}));
        assert_eq!(b.offset(&a.cursor(25)), Err("it was issued for different filters"));
    }

    #[test]
    fn garbage_is_rejected() {
        let q = Query::new("updated", &json!({}));
        assert!(q.offset("not a cursor!").is_err());
        assert!(q.offset(&URL_SAFE_NO_PAD.encode("{}")).is_err());
    }

    #[test]
    fn pages_clamp_to_the_total() {
        assert_eq!(Page::new(20, 25, 30), Page { offset: 20, len: 10, total: 30 });
        assert_eq!(Page::new(20, 25, 30).remaining(), 0);
        assert_eq!(Page::new(0, 25, 142).remaining(), 117);
        assert_eq!(Page::new(500, 25, 30).len, 0);
    }
}
