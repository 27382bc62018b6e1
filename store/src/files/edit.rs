//! Whether a whole-file edit made outside the tools (`docket edit`) is still an issue file.

use super::frontmatter;

/// Whether `edited` is still the issue file `original` was: its frontmatter (the YAML between
/// the `---` lines) must parse as a mapping, be kept if there was one, and keep the `id`.
/// The reason when not.
pub fn check_issue_text(original: &str, edited: &str) -> Result<(), String> {
    let before = frontmatter::parse(original)?;
    let after = frontmatter::parse(edited)?;
    if before.has_frontmatter() && !after.has_frontmatter() {
        return Err("the frontmatter (the block between the --- lines at the top) is gone".into());
    }
    let id = |d: &frontmatter::Document| d.front.get("id").cloned();
    if id(&before) != id(&after) {
        return Err(format!(
            "the id changed from {} to {}; docket edit keeps IDs (other issues and agents refer to them)",
            yaml_text(id(&before)),
            yaml_text(id(&after))
        ));
    }
    Ok(())
}

fn yaml_text(v: Option<serde_yaml::Value>) -> String {
    match v {
        None => "(none)".into(),
        Some(v) => serde_yaml::to_string(&v).unwrap_or_default().trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_must_keep_parsing_frontmatter_and_the_id() {
        let original = "---\nid: ISS-000001\ntitle: T\n---\nBody\n";
        assert!(check_issue_text(original, "---\nid: ISS-000001\ntitle: New\n---\nMore\n").is_ok());
        assert!(!check_issue_text(original, "---\nid: [unclosed\ntitle: T\n---\nBody\n").unwrap_err().is_empty());
        assert!(check_issue_text(original, "just a body\n").unwrap_err().contains("frontmatter"));
        assert!(check_issue_text(original, "---\nid: ISS-000002\ntitle: T\n---\n").unwrap_err().contains("id changed"));
        assert!(check_issue_text("# Notes\n", "# Other notes\n").is_ok());
    }
}
