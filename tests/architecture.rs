//! The module graph has no import cycles: no module of src/ or of the store crate (store/src, seen
//! as the module `store` it is re-exported as) names (`crate::…`, `super::…`) a module that names it
//! back, and no two top-level modules (`server`, `config`, `store`, …) depend on each other through
//! their submodules. A parent and its own submodules are one unit (the
//! parent declares them; a child's `super::` reaches what its parent holds for it), so only
//! modules outside each other's subtree count. Comments and `#[cfg(test)]` code are ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`server::profile`, `crate` for lib.rs and main.rs) -> source text.
fn sources() -> BTreeMap<String, String> {
    let mut out = crate_sources("src", None);
    out.extend(crate_sources("store/src", Some("store")));
    out
}

/// The modules of one crate; `prefix` is the module the main crate re-exports it as, so the
/// crate's own `crate::x` reads as `crate::prefix::x`.
fn crate_sources(dir: &str, prefix: Option<&str>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).expect("under src").with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            if parts == ["lib"] || parts == ["main"] {
                parts.clear();
            }
            let text = code_only(&std::fs::read_to_string(&path).expect("read source"));
            let (name, text) = match prefix {
                Some(p) => {
                    let name = std::iter::once(p.to_string()).chain(parts).collect::<Vec<_>>().join("::");
                    (name, text.replace("crate::", &format!("crate::{p}::")))
                }
                None if parts.is_empty() => ("crate".to_string(), text),
                None => (parts.join("::"), text),
            };
            out.entry(name).or_insert_with(String::new).push_str(&text);
        }
    }
    out
}

/// The text without line comments and without everything from the first `#[cfg(test)]` on.
fn code_only(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// Every `prefix` path in `text`, as its `::`-separated identifiers.
fn paths<'a>(text: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
        out.push(rest[..end].split("::").filter(|s| !s.is_empty()).collect());
    }
    out
}

/// The deepest known module that `segments` (from the crate root) names.
fn module_of(segments: &[&str], modules: &BTreeSet<String>) -> Option<String> {
    (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| modules.contains(m))
}

fn nested(a: &str, b: &str) -> bool {
    a == "crate" || b == "crate" || a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let sources = sources();
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &sources {
        let parent: Vec<&str> = module.split("::").collect::<Vec<_>>().split_last().map_or(vec![], |(_, p)| p.to_vec());
        let mut targets: Vec<Option<String>> = paths(text, "crate::").iter().map(|p| module_of(p, &modules)).collect();
        for p in paths(text, "super::") {
            let full: Vec<&str> = parent.iter().copied().chain(p).collect();
            targets.push(module_of(&full, &modules).or_else(|| Some(parent.join("::"))));
        }
        for target in targets.into_iter().flatten() {
            if !target.is_empty() && !nested(module, &target) {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// Every pair `a <-> b` where each depends on the other.
fn mutual(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    edges
        .iter()
        .flat_map(|(a, targets)| targets.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a < b && edges.get(*b).is_some_and(|t| t.contains(*a)))
        .map(|(a, b)| format!("{a} <-> {b}"))
        .collect()
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let edges = graph();
    assert!(edges.values().map(BTreeSet::len).sum::<usize>() > 50, "the scan finds the crate's imports: {edges:?}");
    assert!(edges.keys().any(|m| m.starts_with("store::")), "the scan reads the store crate too: {edges:?}");
    let cycles = mutual(&edges);
    assert!(cycles.is_empty(), "import cycles: {cycles:?}");
}

#[test]
fn top_level_modules_depend_on_each_other_one_way() {
    let top = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, targets) in graph() {
        for b in targets {
            if top(&a) != top(&b) {
                deps.entry(top(&a)).or_default().insert(top(&b));
            }
        }
    }
    assert!(deps.get("server").is_some_and(|d| d.contains("store")), "the scan sees server -> store: {deps:?}");
    let cycles = mutual(&deps);
    assert!(cycles.is_empty(), "top-level modules that depend on each other: {cycles:?}");
}
