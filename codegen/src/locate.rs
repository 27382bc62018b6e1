//! Maps YAML paths (`tools[3].input.priority.default`) to positions in the manifest.
//!
//! serde_yaml locates syntax and shape errors but not semantic ones (a default outside its
//! range is well-formed YAML), so we walk the event stream once with yaml-rust2's marked parser
//! and remember where every key and value starts. The same walk reports duplicate mapping keys,
//! which serde would otherwise let the last one win.

use std::collections::{HashMap, HashSet};

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::diag::Pos;

/// Where each path's key and value start.
#[derive(Debug, Default)]
pub struct Locator {
    values: HashMap<String, Pos>,
    keys: HashMap<String, Pos>,
    /// Duplicate mapping keys: (path of the second occurrence, its position, first position).
    pub duplicates: Vec<(String, Pos, Pos)>,
}

impl Locator {
    /// Indexes `text`; returns an empty locator when the YAML does not scan (serde reports that).
    pub fn index(text: &str) -> Locator {
        let mut walker = Walker::default();
        let mut parser = Parser::new_from_str(text);
        if parser.load(&mut walker, false).is_err() {
            return Locator::default();
        }
        walker.locator
    }

    /// Position of the value at `path`, or of its nearest located ancestor.
    pub fn value(&self, path: &str) -> Pos {
        self.find(path, &self.values)
    }

    /// Position of the key that introduces `path` (falls back to the value, then ancestors).
    pub fn key(&self, path: &str) -> Pos {
        self.keys.get(path).copied().unwrap_or_else(|| self.value(path))
    }

    fn find(&self, path: &str, map: &HashMap<String, Pos>) -> Pos {
        let mut current = path;
        loop {
            if let Some(pos) = map.get(current).or_else(|| self.values.get(current)) {
                return *pos;
            }
            match parent(current) {
                Some(p) => current = p,
                None => return Pos { line: 1, col: 1 },
            }
        }
    }
}

fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    Some(&path[..cut])
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") }
}

enum Frame {
    Mapping { path: String, pending_key: Option<String>, seen: HashMap<String, Pos> },
    Sequence { path: String, next: usize },
}

#[derive(Default)]
struct Walker {
    stack: Vec<Frame>,
    locator: Locator,
    skipped: HashSet<usize>,
}

impl Walker {
    /// The path a new node (scalar or container) gets, consuming the key slot when in a mapping.
    /// Returns `None` when the node is a mapping key.
    fn place_node(&mut self, pos: Pos, key_text: Option<&str>) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Sequence { path, next }) => {
                let p = format!("{path}[{next}]");
                *next += 1;
                Some(p)
            }
            Some(Frame::Mapping { path, pending_key, seen }) => match pending_key.take() {
                Some(key) => Some(join(path, &key)),
                None => {
                    let key = key_text.unwrap_or("?").to_string();
                    let full = join(path, &key);
                    if let Some(first) = seen.get(&key) {
                        self.locator.duplicates.push((full.clone(), pos, *first));
                    } else {
                        seen.insert(key.clone(), pos);
                    }
                    self.locator.keys.insert(full, pos);
                    *pending_key = Some(key);
                    None
                }
            },
        }
    }
}

impl MarkedEventReceiver for Walker {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let pos = Pos { line: mark.line(), col: mark.col() + 1 };
        match ev {
            Event::Scalar(text, ..) => {
                if let Some(path) = self.place_node(pos, Some(&text)) {
                    self.locator.values.insert(path, pos);
                }
            }
            Event::Alias(id) => {
                self.skipped.insert(id);
                if let Some(path) = self.place_node(pos, Some("*alias")) {
                    self.locator.values.insert(path, pos);
                }
            }
            Event::MappingStart(..) => {
                let path = self.place_node(pos, None).unwrap_or_default();
                self.locator.values.entry(path.clone()).or_insert(pos);
                self.stack.push(Frame::Mapping { path, pending_key: None, seen: HashMap::new() });
            }
            Event::SequenceStart(..) => {
                let path = self.place_node(pos, None).unwrap_or_default();
                self.locator.values.entry(path.clone()).or_insert(pos);
                self.stack.push(Frame::Sequence { path, next: 0 });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str =
        "version: 1\ntools:\n  - name: a\n    input:\n      limit: { type: integer, default: 5 }\n  - name: b\n";

    #[test]
    fn locates_nested_values_and_keys() {
        let loc = Locator::index(DOC);
        assert_eq!(loc.value("tools[0].name"), Pos { line: 3, col: 11 });
        assert_eq!(loc.key("tools[0].input.limit"), Pos { line: 5, col: 7 });
        assert_eq!(loc.value("tools[0].input.limit.default"), Pos { line: 5, col: 40 });
        assert_eq!(loc.value("tools[1].name"), Pos { line: 6, col: 11 });
    }

    #[test]
    fn unknown_path_falls_back_to_nearest_ancestor() {
        let loc = Locator::index(DOC);
        assert_eq!(loc.value("tools[1].input.x"), loc.value("tools[1]"));
    }

    #[test]
    fn reports_duplicate_keys_with_both_positions() {
        let loc = Locator::index("a: 1\nb: 2\na: 3\n");
        assert_eq!(loc.duplicates, vec![("a".to_string(), Pos { line: 3, col: 1 }, Pos { line: 1, col: 1 })]);
    }
}
