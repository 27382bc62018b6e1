//! What docket hands an agent's harness: the workflow skill (docs/skill/SKILL.md, the one source
//! of the plugin's skill, the MCP skill and the loop line of `docket prime`), and the names it is
//! served under.
//!
//! The claim-specific wording lives in docs/skill/SKILL.md alone: `docket prime` prints its
//! `Loop:` line, the MCP skill serves the whole file, and the plugin ships a byte-equal copy
//! (tests/cli/agents.rs checks both).

/// docs/skill/SKILL.md, as the repository has it.
pub const SKILL_MD: &str = include_str!("../docs/skill/SKILL.md");

/// The skill's name (its frontmatter `name`, and the folder the plugin keeps it in).
pub const SKILL_NAME: &str = "docket";

/// Where the MCP skills extension serves it (`skill://<name>/SKILL.md`).
pub const SKILL_URI: &str = "skill://docket/SKILL.md";

/// A frontmatter field of SKILL.md (`name`, `description`), as written on its one line.
pub fn skill_field(key: &str) -> Option<&'static str> {
    let front = SKILL_MD.strip_prefix("---\n")?.split("\n---\n").next()?;
    front.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':')).map(str::trim)
}

/// The one-line loop of SKILL.md (its line starting `Loop:`).
pub fn loop_line() -> &'static str {
    SKILL_MD.lines().find(|l| l.starts_with("Loop:")).unwrap_or("Loop: issues_ready → issues_claim → work → close.")
}
