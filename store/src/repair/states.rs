//! Two files that hold one issue in two states: the same id, the same identity (`docketKey`, or
//! for files without one the same `createdAt`), one in a folder and one in its `archived/`. A
//! merge leaves them when one clone closed the issue (moving it) while another changed it in
//! place (a claim, a note): git sees a modify/delete, not a rename. They are one issue, so they
//! are merged, never renumbered apart: the closed copy wins over a claim, otherwise the copy
//! updated last; every body line only the other copy holds is kept, appended to the winner.

use std::sync::Arc;

use crate::IssueMeta;
use crate::files::yaml_edit::in_place;
use crate::git::merge::identity;

/// How two copies of one issue become one file.
#[derive(Debug)]
pub struct Merge {
    /// The copy whose frontmatter (and path) is kept.
    pub keep: Arc<IssueMeta>,
    /// The copy removed.
    pub drop: Arc<IssueMeta>,
    /// The kept file's new text: its own bytes, plus the dropped copy's lines it lacked.
    pub text: String,
    /// How many body lines only the dropped copy held (appended).
    pub kept_lines: usize,
    /// Why `keep` wins, in a few words.
    pub why: &'static str,
}

impl Merge {
    /// What doctor reports and `--fix` says it did: the same words (a doctor line reads
    /// "--fix merges them: ..." and the change "merged them: ...").
    pub fn words(&self, rel: impl Fn(&std::path::Path) -> String) -> String {
        let lines = match self.kept_lines {
            0 => String::new(),
            1 => ", appending the 1 line only it held".to_string(),
            n => format!(", appending the {n} lines only it held"),
        };
        format!(
            "kept {} ({}, {}) and removed {} ({}{}, updated {}){lines}",
            rel(&self.keep.path),
            self.keep.status,
            self.why,
            rel(&self.drop.path),
            self.drop.status,
            self.drop.assignee.as_deref().map(|a| format!(", {a}")).unwrap_or_default(),
            self.drop.updated_at,
        )
    }
}

/// The merge of an interrupted pair whose contents differ but which are one issue, or `None`
/// when they are two issues (different keys) or a file cannot be read.
pub fn plan(a: &Arc<IssueMeta>, b: &Arc<IssueMeta>) -> Option<Merge> {
    let ta = crate::read_file_safely(&a.path).ok()?;
    let tb = crate::read_file_safely(&b.path).ok()?;
    if ta == tb || identity(&ta)? != identity(&tb)? {
        return None;
    }
    let (keep, drop, keep_text, drop_text, why) = match (a.status.is_archived(), b.status.is_archived()) {
        (true, false) => (a, b, &ta, &tb, "a close wins over a claim"),
        (false, true) => (b, a, &tb, &ta, "a close wins over a claim"),
        _ if a.updated_at >= b.updated_at => (a, b, &ta, &tb, "updated last"),
        _ => (b, a, &tb, &ta, "updated last"),
    };
    let missing = lines_only_in(in_place::body(drop_text), in_place::body(keep_text));
    let mut text = keep_text.clone();
    if !missing.is_empty() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "\n---\n**Kept from the other copy ({}, updated {}), merged by docket doctor --fix:**\n\n",
            drop.status, drop.updated_at
        ));
        for line in &missing {
            text.push_str(line);
            text.push('\n');
        }
    }
    Some(Merge { keep: Arc::clone(keep), drop: Arc::clone(drop), kept_lines: missing.len(), text, why })
}

/// The non-blank lines of `theirs` that `ours` does not hold (as many times as they are
/// missing), in `theirs`'s order.
fn lines_only_in<'a>(theirs: &'a str, ours: &str) -> Vec<&'a str> {
    let mut have: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in ours.lines() {
        *have.entry(l.trim_end()).or_default() += 1;
    }
    theirs
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| match have.get_mut(l.trim_end()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::lines_only_in;

    #[test]
    fn only_the_lines_the_kept_copy_lacks_are_carried_over() {
        assert!(lines_only_in("a\nb\n", "a\nb\nc\n").is_empty());
        assert_eq!(lines_only_in("a\nnote\n\nb\n", "a\nb\n"), vec!["note"]);
        assert_eq!(lines_only_in("x\nx\n", "x\n"), vec!["x"]);
    }
}
