//! Tool names in answers, as the consolidated profile publishes them: every granular name in a
//! message, a text block, a warning or a server hint becomes its consolidated call
//! (`bookmarks_find` -> `bookmarks(action=find)`), so that the next call a message names is one
//! the client can make. User data is never renamed: every string of the structured answer that
//! names a tool (a bookmark titled "bookmarks_find is slow") is kept as it is wherever the text
//! repeats it; only the hints the server declares its own ([`Renaming::hints`]) are renamed there.

use serde_json::Value;

use crate::{ToolResult, Warning};

/// How a server's answers are renamed for its consolidated profile.
#[derive(Debug, Clone, Copy)]
pub struct Renaming {
    /// (granular name, consolidated call), the generated profile's `ALIASES`.
    pub aliases: &'static [(&'static str, &'static str)],
    /// Where the structured answer holds the server's own hints (the call to make next), which
    /// are renamed rather than protected: dotted paths of object keys, `[]` after a key for each
    /// item of its array (`next`, `issue.next`, `issues[].next`).
    pub hints: &'static [&'static str],
}

impl Renaming {
    /// `text` with every tool named as its consolidated call.
    pub fn text(&self, text: &str) -> String {
        self.except(text, &[])
    }

    /// [`Renaming::text`], leaving every occurrence of a `protected` string as it is.
    fn except(&self, text: &str, protected: &[String]) -> String {
        crate::aliases::rewrite(text, self.aliases, protected)
    }

    /// Renames each warning's message.
    pub fn warnings(&self, warnings: &mut [Warning]) {
        for w in warnings {
            w.message = self.text(&w.message);
        }
    }

    /// Renames a result's texts (error message; text block and warnings, sparing user data);
    /// structuredContent stays exactly the tool's but for its hints.
    pub fn result(&self, result: ToolResult<Value>) -> ToolResult<Value> {
        match result {
            Ok(mut reply) => {
                let hints = self.take_hints(&mut reply.data);
                let mut protected = Vec::new();
                self.user_strings(&reply.data, &mut protected);
                for (path, hint) in hints {
                    if let Some(object) = at(&mut reply.data, &path).and_then(Value::as_object_mut) {
                        object.insert(path.key.to_string(), Value::String(self.text(&hint)));
                    }
                }
                reply.text = reply.text.map(|t| self.except(&t, &protected));
                for w in &mut reply.warnings {
                    w.message = self.except(&w.message, &protected);
                }
                Ok(reply)
            }
            Err(mut e) => {
                e.message = self.text(&e.message);
                Err(e)
            }
        }
    }

    /// The hint strings of `data`, taken out with their places, so that they are not protected
    /// as user data.
    fn take_hints(&self, data: &mut Value) -> Vec<(Place, String)> {
        let mut out = Vec::new();
        for hint in self.hints {
            let (parents, key) = hint.rsplit_once('.').map_or(("", *hint), |(p, k)| (p, k));
            for steps in places(data, parents) {
                let place = Place { steps, key };
                if let Some(Value::String(s)) =
                    at(data, &place).and_then(Value::as_object_mut).and_then(|o| o.remove(key))
                {
                    out.push((place, s));
                }
            }
        }
        out
    }

    /// The strings (and object keys) of `data` that renaming would change, in the forms a text
    /// may repeat them: as they are, each line alone, and JSON-escaped (shown as JSON).
    fn user_strings(&self, data: &Value, out: &mut Vec<String>) {
        match data {
            Value::String(s) => self.protect(s, out),
            Value::Array(items) => items.iter().for_each(|v| self.user_strings(v, out)),
            Value::Object(map) => {
                for (k, v) in map {
                    self.protect(k, out);
                    self.user_strings(v, out);
                }
            }
            _ => {}
        }
    }

    fn protect(&self, s: &str, out: &mut Vec<String>) {
        if self.text(s) == s {
            return;
        }
        out.push(s.to_string());
        out.extend(s.lines().filter(|l| self.text(l) != *l).map(str::to_string));
        let escaped = Value::String(s.to_string()).to_string();
        let escaped = &escaped[1..escaped.len() - 1];
        if escaped != s {
            out.push(escaped.to_string());
        }
    }
}

/// Where a hint is: the steps to its object (keys and array indexes), and its key.
struct Place {
    steps: Vec<Step>,
    key: &'static str,
}

enum Step {
    Key(String),
    Index(usize),
}

/// The concrete steps to every object a dotted path with `[]` names in `data`.
fn places(data: &Value, path: &str) -> Vec<Vec<Step>> {
    let mut found = vec![Vec::new()];
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, each) = part.strip_suffix("[]").map_or((part, false), |k| (k, true));
        let mut next = Vec::new();
        for mut steps in found {
            let Some(value) = walk(data, &steps).and_then(|v| v.get(key)) else { continue };
            steps.push(Step::Key(key.to_string()));
            match (each, value) {
                (false, _) => next.push(steps),
                (true, Value::Array(items)) => next.extend((0..items.len()).map(|i| {
                    let mut item = steps.iter().map(Step::copy).collect::<Vec<_>>();
                    item.push(Step::Index(i));
                    item
                })),
                (true, _) => {}
            }
        }
        found = next;
    }
    found
}

impl Step {
    fn copy(&self) -> Step {
        match self {
            Step::Key(k) => Step::Key(k.clone()),
            Step::Index(i) => Step::Index(*i),
        }
    }
}

fn walk<'a>(data: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    steps.iter().try_fold(data, |at, step| match step {
        Step::Key(k) => at.get(k.as_str()),
        Step::Index(i) => at.get(*i),
    })
}

fn at<'a>(data: &'a mut Value, place: &Place) -> Option<&'a mut Value> {
    place.steps.iter().try_fold(data, |at, step| match step {
        Step::Key(k) => at.get_mut(k.as_str()),
        Step::Index(i) => at.get_mut(*i),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reply;

    const RENAMING: Renaming = Renaming {
        aliases: &[("notes_get", "notes(action=get)"), ("notes_list", "notes(action=list)")],
        hints: &["next", "note.next", "notes[].next"],
    };

    #[test]
    fn user_data_keeps_its_tool_names_and_hints_are_renamed() {
        let data = serde_json::json!({"note": {"title": "notes_get is slow", "next": "notes_get"},
            "notes": [{"next": "notes_list"}, {"title": "x"}], "next": "notes_list",
            "context": {"see": "\"notes_list\""}});
        let text = "notes_get is slow {\"see\":\"\\\"notes_list\\\"\"}. Next: notes_get.";
        let Ok(out) = RENAMING.result(Ok(Reply::new(data).with_text(text))) else { panic!("still a success") };
        assert_eq!(
            out.text.as_deref(),
            Some("notes_get is slow {\"see\":\"\\\"notes_list\\\"\"}. Next: notes(action=get).")
        );
        assert_eq!(out.data["note"]["title"], "notes_get is slow", "user data untouched");
        assert_eq!(out.data["note"]["next"], "notes(action=get)");
        assert_eq!(out.data["notes"][0]["next"], "notes(action=list)");
        assert_eq!(out.data["next"], "notes(action=list)");
        assert_eq!(RENAMING.text("my_notes_get and notes_getter stay"), "my_notes_get and notes_getter stay");
    }
}
