//! Error-message templates: `{name}` placeholders, `{{` and `}}` for literal braces.
//!
//! The syntax is deliberately the subset of Rust's `format!` syntax with named arguments only, so
//! the generated constructor passes the template to `format!` unchanged and rustc re-checks it.

/// The placeholders of `template` in order of first use, or what is wrong with it.
pub fn placeholders(template: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let mut chars = template.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|&(_, n)| n) == Some('{') => {
                chars.next();
            }
            '}' if chars.peek().map(|&(_, n)| n) == Some('}') => {
                chars.next();
            }
            '}' => return Err(format!("unmatched `}}` at character {i}")),
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some((_, '}')) => break,
                        Some((_, ch)) if ch.is_ascii_alphanumeric() || ch == '_' => name.push(ch),
                        Some((_, ch)) => {
                            return Err(format!(
                                "placeholder at character {i} contains `{ch}`; only plain names like {{id}} are allowed"
                            ));
                        }
                        None => return Err(format!("unclosed `{{` at character {i}")),
                    }
                }
                if name.is_empty() || name.starts_with(|ch: char| ch.is_ascii_digit()) {
                    return Err(format!("placeholder at character {i} needs a name, like {{id}}"));
                }
                if !out.contains(&name) {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn finds_named_placeholders_in_order_once() {
        assert_eq!(placeholders("Issue {id} not found; {id} again, {tool}").unwrap(), vec!["id", "tool"]);
    }

    #[test]
    fn doubled_braces_are_literal() {
        assert_eq!(placeholders("Pass {{id: '{id}', confirm: true}}").unwrap(), vec!["id"]);
    }

    #[test]
    fn rejects_unclosed_and_positional_placeholders() {
        assert!(placeholders("oops {id").unwrap_err().contains("unclosed"));
        assert!(placeholders("oops {}").unwrap_err().contains("needs a name"));
        assert!(placeholders("oops {a:?}").unwrap_err().contains("only plain names"));
        assert!(placeholders("oops }").unwrap_err().contains("unmatched"));
    }
}
