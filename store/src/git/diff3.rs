//! A three-way line merge like `git merge-file`'s, in near-linear time: each side is diffed
//! against the base once with imara-diff's Myers diff (git's algorithm, with the heuristics of
//! git and GNU diff that keep pathological inputs from going quadratic), and the
//! two lists of changes are walked together. Changes of one side only are taken; changes of
//! both sides to overlapping or touching base lines are taken once when equal and otherwise
//! written between conflict markers (`<<<<<<< ours`, `=======`, `>>>>>>> theirs`), each marker at
//! a line start.

use std::ops::Range;

use imara_diff::{Algorithm, Diff, Hunk, InternedInput};

/// The merged text and whether it holds conflict markers.
pub fn merge(base: &str, ours: &str, theirs: &str) -> (String, bool) {
    let base_lines: Vec<&str> = imara_diff::sources::lines(base).collect();
    let our_lines: Vec<&str> = imara_diff::sources::lines(ours).collect();
    let their_lines: Vec<&str> = imara_diff::sources::lines(theirs).collect();
    let ours_h = hunks(base, ours);
    let theirs_h = hunks(base, theirs);

    let mut out = String::with_capacity(ours.len().max(theirs.len()));
    let mut conflicts = false;
    let (mut i, mut j) = (0, 0);
    // Base lines before `at` are written; `delta_*` maps a base line to the side's line outside
    // that side's changes.
    let (mut at, mut delta_o, mut delta_t) = (0i64, 0i64, 0i64);
    while i < ours_h.len() || j < theirs_h.len() {
        // The next region: the earliest change, grown by every change of either side that
        // overlaps or touches it.
        let first_ours =
            j >= theirs_h.len() || (i < ours_h.len() && ours_h[i].before.start <= theirs_h[j].before.start);
        let start = if first_ours { ours_h[i].before.start } else { theirs_h[j].before.start };
        let mut end = start;
        let (i0, j0) = (i, j);
        loop {
            if i < ours_h.len() && ours_h[i].before.start <= end {
                end = end.max(ours_h[i].before.end);
                i += 1;
            } else if j < theirs_h.len() && theirs_h[j].before.start <= end {
                end = end.max(theirs_h[j].before.end);
                j += 1;
            } else {
                break;
            }
        }
        out.extend(base_lines[at as usize..start as usize].iter().copied());
        let ours_part = side(&ours_h[i0..i], start, end, &mut delta_o);
        let theirs_part = side(&theirs_h[j0..j], start, end, &mut delta_t);
        let (o, t) = (&our_lines[ours_part], &their_lines[theirs_part]);
        let b = &base_lines[start as usize..end as usize];
        if i == i0 || o == b {
            out.extend(t.iter().copied());
        } else if j == j0 || t == b || o == t {
            out.extend(o.iter().copied());
        } else {
            conflicts = true;
            marker(&mut out, "<<<<<<< ours");
            out.extend(o.iter().copied());
            marker(&mut out, "=======");
            out.extend(t.iter().copied());
            marker(&mut out, ">>>>>>> theirs");
        }
        at = end as i64;
    }
    out.extend(base_lines[at as usize..].iter().copied());
    (out, conflicts)
}

/// The changes that turn `before` into `after`, as line ranges.
fn hunks(before: &str, after: &str) -> Vec<Hunk> {
    let input = InternedInput::new(before, after);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    diff.hunks().collect()
}

/// A side's lines for the base region `start..end`, given its changes in the region; `delta`
/// (the side's line minus the base line after its earlier changes) is moved past the region.
fn side(changes: &[Hunk], start: u32, end: u32, delta: &mut i64) -> Range<usize> {
    let from = (start as i64 + *delta) as usize;
    for h in changes {
        *delta += (h.after.len() as i64) - (h.before.len() as i64);
    }
    let to = (end as i64 + *delta) as usize;
    from..to
}

/// A conflict marker on a line of its own (after a last line without a newline, one is added).
fn marker(out: &mut String, text: &str) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::merge;

    #[test]
    fn one_sided_and_identical_changes_merge_cleanly() {
        let base = "a\nb\nc\nd\ne\n";
        assert_eq!(merge(base, "a\nB\nc\nd\ne\n", "a\nb\nc\nD\ne\n"), ("a\nB\nc\nD\ne\n".into(), false));
        assert_eq!(merge(base, "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n"), ("a\nB\nc\nd\ne\n".into(), false));
        assert_eq!(merge(base, base, "x\n"), ("x\n".into(), false));
        assert_eq!(merge(base, "a\nb\nc\nd\ne\nf", base), ("a\nb\nc\nd\ne\nf".into(), false));
        assert_eq!(merge("", "x\n", ""), ("x\n".into(), false));
    }

    #[test]
    fn overlapping_changes_are_conflicts_with_markers_at_line_starts() {
        let (text, conflicts) = merge("a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n");
        assert!(conflicts);
        assert_eq!(text, "a\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\nc\n");
        let (text, conflicts) = merge("a", "b", "c");
        assert!(conflicts);
        assert_eq!(text, "<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n");
    }

    #[test]
    fn agrees_with_diffy_on_small_merges() {
        let cases = [
            ("1\n2\n3\n4\n5\n6\n", "1\n2x\n3\n4\n5\n6\n", "1\n2\n3\n4\n5x\n6\n"),
            ("1\n2\n3\n", "0\n1\n2\n3\n", "1\n2\n3\n4\n"),
            ("1\n2\n3\n", "1\n3\n", "1\n2\n3\n4\n"),
        ];
        for (b, o, t) in cases {
            let ours = merge(b, o, t);
            let mut options = diffy::MergeOptions::new();
            options.set_conflict_style(diffy::ConflictStyle::Merge);
            let theirs = match options.merge(b, o, t) {
                Ok(t) => (t, false),
                Err(t) => (t, true),
            };
            assert_eq!(ours, theirs, "{b:?} {o:?} {t:?}");
        }
    }
}
