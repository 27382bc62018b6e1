//! Renaming granular tool names in a text to their consolidated calls (`issues_list` ->
//! `issues(action=list)`). One implementation for both sides: codegen uses it to write the
//! consolidated descriptions and instructions at build time, and a server uses it for the texts
//! of results at run time.

/// Replaces every whole-word `from` of `aliases` in `text` with its `to`, leaving every
/// occurrence of a `protected` string (user data) as it is. `aliases` must list longer names
/// first, so a name is never cut at a shorter one that prefixes it.
pub fn rewrite<S: AsRef<str>>(text: &str, aliases: &[(S, S)], protected: &[String]) -> String {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut spans: Vec<(usize, usize)> = protected
        .iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| text.match_indices(p.as_str()).map(|(at, m)| (at, at + m.len())))
        .collect();
    spans.sort_unstable();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut next_span = 0;
    while i < text.len() {
        while spans.get(next_span).is_some_and(|&(_, end)| end <= i) {
            next_span += 1;
        }
        if let Some(&(start, end)) = spans.get(next_span)
            && start <= i
        {
            // Inside user data: copy it through unchanged (span ends are char boundaries).
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        if i == 0 || !word(bytes[i - 1]) {
            let hit = aliases
                .iter()
                .map(|(f, t)| (f.as_ref(), t.as_ref()))
                .find(|(from, _)| text[i..].starts_with(from) && !bytes.get(i + from.len()).is_some_and(|&b| word(b)));
            if let Some((from, to)) = hit {
                out.push_str(to);
                i += from.len();
                continue;
            }
        }
        let ch = text[i..].chars().next().expect("i is a char boundary before the end");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_names_are_renamed_and_user_data_is_not() {
        let aliases = [("issues_get_batch", "issues(action=get_batch)"), ("issues_get", "issues(action=get)")];
        let text = "Call issues_get_batch or issues_get; not my_issues_get. Title: issues_get fails";
        let protected = vec!["issues_get fails".to_string()];
        assert_eq!(
            rewrite(text, &aliases, &protected),
            "Call issues(action=get_batch) or issues(action=get); not my_issues_get. Title: issues_get fails"
        );
    }
}
