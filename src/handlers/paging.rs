//! Cursors: the offset and a short tag of the sort and the filters (`25.a1b2c3d4e5f6`), so a
//! cursor replayed with other filters (or garbage) is rejected instead of silently returning the
//! wrong page. Short on purpose: every list reply repeats it, and a base64 blob cost ~30 tokens.

use serde::Serialize;

/// A query's identity for cursors: its sort and a stable hash of its filters.
pub struct Query {
    sort_tag: u16,
    filters_tag: u32,
}

impl Query {
    /// `filters` is any serializable value holding every parameter that changes which items match.
    pub fn new(sort: &str, filters: &impl Serialize) -> Self {
        let json = serde_json::to_string(filters).unwrap_or_default();
        Query { sort_tag: fnv1a(sort.as_bytes()) as u16, filters_tag: fnv1a(json.as_bytes()) as u32 }
    }

    pub fn cursor(&self, offset: usize) -> String {
        format!("{offset}.{:04x}{:08x}", self.sort_tag, self.filters_tag)
    }

    /// The offset a cursor points at, or why it does not belong to this query.
    pub fn offset(&self, cursor: &str) -> Result<usize, &'static str> {
        let foreign = "it is not a cursor docket issued";
        let (offset, tag) = cursor.trim().split_once('.').ok_or(foreign)?;
        let offset: usize = offset.parse().map_err(|_| foreign)?;
        if tag.len() != 12 || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(foreign);
        }
        if u16::from_str_radix(&tag[..4], 16) != Ok(self.sort_tag) {
            return Err("it was issued for a different sort order");
        }
        if u32::from_str_radix(&tag[4..], 16) != Ok(self.filters_tag) {
            return Err("it was issued for different filters");
        }
        Ok(offset)
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
    fn a_cursor_from_another_sort_is_rejected() {
        let a = Query::new("updated", &json!({}));
        let b = Query::new("priority", &json!({}));
        assert_eq!(b.offset(&a.cursor(10)), Err("it was issued for a different sort order"));
    }

    #[test]
    fn garbage_is_rejected() {
        let q = Query::new("updated", &json!({}));
        for junk in ["not a cursor!", "", "25", "25.", "x.000000000000", "25.zzzzzzzzzzzz", "25.0123"] {
            assert_eq!(q.offset(junk), Err("it is not a cursor docket issued"), "{junk}");
        }
    }

    #[test]
    fn cursors_are_short() {
        let q = Query::new("updated:desc", &json!({"status": ["open", "in_progress"], "labels": ["backend"]}));
        assert!(q.cursor(1_025).len() <= 17, "{}", q.cursor(1_025));
    }

    #[test]
    fn pages_clamp_to_the_total() {
        assert_eq!(Page::new(20, 25, 30), Page { offset: 20, len: 10, total: 30 });
        assert_eq!(Page::new(20, 25, 30).remaining(), 0);
        assert_eq!(Page::new(0, 25, 142).remaining(), 117);
        assert_eq!(Page::new(500, 25, 30).len, 0);
    }
}
