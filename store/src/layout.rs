//! `init_workspace`: the workspace layout wrangler defines (its workspace schema 1.3.0), checked
//! and, on request, completed. Plans first, then applies the plan, so the report of a dry run and
//! of a real one name the same paths. Only creates: no file is overwritten, moved or deleted.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::files::WorkspaceLock;
use crate::fs::{Entry, Root};
use crate::model::StoreError;
use crate::workspace::Workspace;

/// Version of wrangler's workspace schema this layout follows.
const SCHEMA_VERSION: &str = "1.3.0";

/// One directory of the layout: name under the workspace directory, whether git tracks it
/// (it gets a `.gitkeep`), its subdirectories, and what it holds.
struct Dir {
    name: &'static str,
    tracked: bool,
    subdirs: &'static [&'static str],
    about: &'static str,
}

const DIRS: &[Dir] = &[
    Dir { name: "issues", tracked: true, subdirs: &["archived"], about: "Issue files" },
    Dir { name: "specifications", tracked: true, subdirs: &["archived"], about: "Specification files" },
    Dir { name: "ideas", tracked: true, subdirs: &[], about: "Ideas not yet promoted to specifications" },
    Dir { name: "memos", tracked: true, subdirs: &[], about: "Reference material" },
    Dir { name: "plans", tracked: true, subdirs: &[], about: "Implementation plans" },
    Dir { name: "docs", tracked: true, subdirs: &[], about: "Generated documentation" },
    Dir { name: "cache", tracked: false, subdirs: &[], about: "Runtime cache (gitignored)" },
    Dir { name: "config", tracked: true, subdirs: &[], about: "Configuration files" },
    Dir { name: "logs", tracked: false, subdirs: &[], about: "Runtime logs (gitignored)" },
    Dir {
        name: "orchestration",
        tracked: true,
        subdirs: &["agents", "prompts", "workflows"],
        about: "Orchestration assets: agents, prompts and workflows",
    },
];

/// Lines the workspace's `.gitignore` must have.
const GITIGNORE: &[&str] = &["cache/", "logs/", "sessions/"];

/// Orchestration assets: (kind, source folder under the plugin root, file extensions).
const ASSETS: &[(&str, &str, &[&str])] = &[
    ("agents", "workflows/agents", &[".md"]),
    ("prompts", "workflows/prompts", &[".md"]),
    ("workflows", "workflows", &[".yaml", ".yml"]),
];

/// Created (or, in a dry run, missing) and already present, as paths from the repository root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    /// Created by this call (in a dry run: missing, to be created).
    pub created: Vec<String>,
    /// Already there, left as they are.
    pub existing: Vec<String>,
}

/// What `init_workspace` found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutReport {
    /// Whether anything was missing.
    pub changes: bool,
    /// Whether the missing parts were created (asked to fix, and something was missing).
    pub applied: bool,
    /// The layout's directories under the workspace folder (`issues/`, `issues/archived/`,
    /// `cache/`, `orchestration/agents/`, ...).
    pub directories: Split,
    /// `.gitkeep` files created (not part of wrangler's report; the text lists them).
    pub gitkeeps: Vec<String>,
    /// Per asset kind: file names copied (or to copy) and skipped (already there).
    pub assets: Vec<(&'static str, Split)>,
    /// Whether a plugin root was given and none of its asset folders exists.
    pub plugin_root_empty: bool,
    /// `config/workspace-schema.json` and `config/wrangler.json` missing (or created).
    pub schema_missing: bool,
    /// `config/wrangler.json` missing (or created). Like `schema_missing`, only a `.wrangler/`
    /// workspace needs one.
    pub wrangler_config_missing: bool,
    /// Patterns appended to (or missing from) `.gitignore`, and those already there.
    pub gitignore: Split,
    /// Where the layout came from: the plugin's `.wrangler/config/workspace-schema.json`, or
    /// `None` for the built-in layout (wrangler's schema 1.3.0).
    pub schema_source: Option<PathBuf>,
    /// Paths of the plugin's schema left alone because they lead outside the workspace folder
    /// (absolute, `..`, or another folder of the repository).
    pub refused: Vec<String>,
    /// The plugin's schema is newer (semver) than the workspace's `config/workspace-schema.json`:
    /// what replacing it changes (fix true replaced it).
    pub schema_update: Option<SchemaUpdate>,
}

/// A newer workspace schema in the plugin than in the workspace, and what it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaUpdate {
    /// The workspace's version (`0.0.0` when missing or not semver, as wrangler reads it).
    pub from: String,
    /// The plugin's version.
    pub to: String,
    /// Directory paths the plugin's schema has and the workspace's does not.
    pub directories_added: Vec<String>,
    /// Directory paths the workspace's schema has and the plugin's does not.
    pub directories_removed: Vec<String>,
    /// `.gitignore` patterns the plugin's schema adds.
    pub patterns_added: Vec<String>,
}

/// One directory of the layout to check: absolute path, whether it gets a `.gitkeep`, and its
/// subdirectories (absolute).
struct PlanDir {
    path: PathBuf,
    tracked: bool,
    subdirs: Vec<PathBuf>,
}

/// The plugin's workspace schema as init_workspace uses it.
struct PluginSchema {
    path: PathBuf,
    bytes: Vec<u8>,
    json: Value,
}

/// `[major, minor, patch]` of `1.2.3` or `v1.2.3` (a pre-release suffix ignored); `[0, 0, 0]`
/// for anything else, as wrangler's `parseSemver` reads versions.
pub fn semver(version: Option<&str>) -> [u64; 3] {
    let v = version.unwrap_or("").trim_start_matches('v');
    let mut parts = [0u64; 3];
    let mut rest = v;
    for (i, part) in parts.iter_mut().enumerate() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return [0, 0, 0];
        }
        let Ok(n) = rest[..digits].parse() else { return [0, 0, 0] };
        *part = n;
        rest = &rest[digits..];
        if i < 2 {
            match rest.strip_prefix('.') {
                Some(r) => rest = r,
                None => return [0, 0, 0],
            }
        }
    }
    parts
}

/// Every directory path a workspace schema names (directories and their subdirectories).
fn schema_paths(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for dir in schema["directories"].as_object().into_iter().flat_map(|m| m.values()) {
        out.extend(dir["path"].as_str().map(str::to_string));
        for sub in dir["subdirectories"].as_object().into_iter().flat_map(|m| m.values()) {
            out.extend(sub["path"].as_str().map(str::to_string));
        }
    }
    out
}

fn patterns(schema: &Value) -> Vec<String> {
    schema["gitignorePatterns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(str::to_string))
        .collect()
}

impl Workspace {
    /// Checks the layout; with `fix`, creates what is missing. `plugin_root` is a wrangler
    /// checkout to copy orchestration assets from (docket ships none).
    pub fn init_layout(&self, fix: bool, plugin_root: Option<&Path>) -> Result<LayoutReport, StoreError> {
        // The lock lives in cache/, so taking it creates that folder: look before.
        let cache_existed = self.cache_dir().is_dir();
        // A pending workspace's folder, made here so the lock does not write its own .gitignore:
        // the report below lists every pattern this call adds.
        if fix && !self.exists() {
            Root::open(&self.root)?.create_dir_all(&self.dir)?;
        }
        let _lock = if fix { Some(WorkspaceLock::acquire(self)?) } else { None };
        let shown = |p: &Path| p.strip_prefix(&self.root).unwrap_or(p).to_string_lossy().replace('\\', "/");
        let plugin = plugin_root.and_then(|r| self.plugin_schema(r));
        let mut refused = Vec::new();
        let plan: Vec<PlanDir> = match &plugin {
            Some(p) => self.plan_from(&p.json, &mut refused),
            None => DIRS
                .iter()
                .map(|d| {
                    let top = self.dir.join(d.name);
                    PlanDir { subdirs: d.subdirs.iter().map(|s| top.join(s)).collect(), path: top, tracked: d.tracked }
                })
                .collect(),
        };
        let mut directories = Split::default();
        for dir in &plan {
            for path in std::iter::once(&dir.path).chain(dir.subdirs.iter()) {
                let exists = if *path == self.cache_dir() { cache_existed } else { path.is_dir() };
                let shown = shown(path);
                if directories.existing.contains(&shown) || directories.created.contains(&shown) {
                    continue;
                }
                let list = if exists { &mut directories.existing } else { &mut directories.created };
                list.push(shown);
            }
        }
        let required: Vec<String> = match &plugin {
            Some(p) if p.json.get("gitignorePatterns").is_some() => patterns(&p.json),
            _ => GITIGNORE.iter().map(|p| p.to_string()).collect(),
        };
        let assets: Vec<(&str, Split, PathBuf, PathBuf)> = ASSETS
            .iter()
            .map(|(kind, from, exts)| {
                let source = plugin_root.map(|r| r.join(from)).unwrap_or_default();
                let dest = self.dir.join("orchestration").join(kind);
                (*kind, plan_copy(plugin_root.is_some(), &source, &dest, exts), source, dest)
            })
            .collect();
        let plugin_root_empty = plugin_root.is_some()
            && ASSETS.iter().all(|(_, from, _)| !plugin_root.is_some_and(|r| r.join(from).is_dir()));
        let ignore_path = self.dir.join(".gitignore");
        // Every write below goes through the rooted layer: a `sessions/`, `config/`,
        // `orchestration/` or `.gitignore` committed as a link is refused, never written through.
        let root = Root::workspace(self)?;
        let ignore_text = read_optional(&root, &ignore_path)?;
        let present: Vec<&str> =
            ignore_text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
        let mut gitignore = Split::default();
        for pattern in &required {
            let list =
                if present.contains(&pattern.as_str()) { &mut gitignore.existing } else { &mut gitignore.created };
            list.push(pattern.clone());
        }
        let wrangler = self.is_wrangler();
        let config = self.dir.join("config");
        let schema_path = config.join("workspace-schema.json");
        let schema_missing = wrangler && !schema_path.exists();
        let wrangler_config_missing = wrangler && !config.join("wrangler.json").exists();
        // FR-011: the plugin's schema replaces the workspace's when its version is newer (semver).
        let schema_update = match (&plugin, wrangler && !schema_missing) {
            (Some(p), true) => {
                let current: Option<Value> =
                    read_optional(&root, &schema_path).ok().and_then(|t| serde_json::from_str(&t).ok());
                current.and_then(|current| {
                    let (from, to) = (current["version"].as_str(), p.json["version"].as_str());
                    (semver(to) > semver(from)).then(|| {
                        let (old, new) = (schema_paths(&current), schema_paths(&p.json));
                        let old_patterns = patterns(&current);
                        SchemaUpdate {
                            from: from.filter(|f| semver(Some(f)) != [0, 0, 0]).unwrap_or("0.0.0").to_string(),
                            to: to.unwrap_or_default().to_string(),
                            directories_added: new.iter().filter(|d| !old.contains(d)).cloned().collect(),
                            directories_removed: old.iter().filter(|d| !new.contains(d)).cloned().collect(),
                            patterns_added: patterns(&p.json)
                                .into_iter()
                                .filter(|x| !old_patterns.contains(x))
                                .collect(),
                        }
                    })
                })
            }
            _ => None,
        };
        let changes = !directories.created.is_empty()
            || assets.iter().any(|(_, s, _, _)| !s.created.is_empty())
            || !gitignore.created.is_empty()
            || schema_missing
            || schema_update.is_some()
            || wrangler_config_missing;
        let mut gitkeeps = Vec::new();
        if fix && changes {
            for dir in &plan {
                for path in std::iter::once(&dir.path).chain(dir.subdirs.iter()) {
                    root.create_dir_all(path)?;
                }
                let keep = dir.path.join(".gitkeep");
                if dir.tracked && root.entry(&keep)? == Entry::Missing {
                    root.create_atomic(&keep, b"")?;
                    gitkeeps.push(shown(&keep));
                }
            }
            for (_, split, source, dest) in &assets {
                for name in &split.created {
                    let (from, to) = (source.join(name), dest.join(name));
                    let bytes = Root::open(source)?.read(&from, crate::files::MAX_FILE_BYTES)?;
                    root.create_atomic(&to, &bytes)?;
                }
            }
            if !gitignore.created.is_empty() {
                root.write_atomic(&ignore_path, append_lines(&ignore_text, &gitignore.created).as_bytes(), None)?;
            }
            match &plugin {
                // The plugin's own bytes, as wrangler copies the file.
                Some(p) if schema_missing => root.create_atomic(&schema_path, &p.bytes)?,
                Some(p) if schema_update.is_some() => root.write_atomic(&schema_path, &p.bytes, None)?,
                None if schema_missing => write_json(&root, &schema_path, &self.schema_json())?,
                _ => {}
            }
            if wrangler_config_missing {
                let config_json = match &plugin {
                    Some(p) => self.config_json_from(&p.json),
                    None => self.config_json(),
                };
                write_json(&root, &config.join("wrangler.json"), &config_json)?;
            }
        }
        Ok(LayoutReport {
            changes,
            applied: fix && changes,
            directories,
            gitkeeps,
            assets: assets.into_iter().map(|(kind, split, _, _)| (kind, split)).collect(),
            plugin_root_empty,
            schema_missing,
            wrangler_config_missing,
            gitignore,
            schema_source: plugin.map(|p| p.path),
            refused,
            schema_update,
        })
    }

    /// The plugin's `.wrangler/config/workspace-schema.json`, read without following a link and
    /// bounded; `None` when it is missing or not a JSON object with `directories` (wrangler then
    /// uses its default schema, as docket its built-in layout).
    fn plugin_schema(&self, plugin_root: &Path) -> Option<PluginSchema> {
        let path = plugin_root.join(".wrangler/config/workspace-schema.json");
        let bytes = Root::open(plugin_root).ok()?.read(&path, 1 << 20).ok()?;
        let json: Value = serde_json::from_slice(&bytes).ok()?;
        json["directories"].is_object().then_some(PluginSchema { path, bytes, json })
    }

    /// The directories a plugin's schema names, inside this workspace's folder: its paths start
    /// with the schema's workspace root (`.wrangler/...`), read as this workspace's folder
    /// (`.docket/...` too); a path elsewhere (absolute, with `..`, another folder) is refused.
    fn plan_from(&self, schema: &Value, refused: &mut Vec<String>) -> Vec<PlanDir> {
        let root_name = schema["workspace"]["root"].as_str().unwrap_or(".wrangler").trim_end_matches('/').to_string();
        let mut inside = |given: &str| -> Option<PathBuf> {
            let rel = Path::new(given);
            let under = rel.strip_prefix(&root_name).ok().filter(|_| !rel.is_absolute());
            let clean = under.filter(|u| u.components().all(|c| matches!(c, std::path::Component::Normal(_))));
            match clean {
                Some(u) if u.components().next().is_some() => Some(self.dir.join(u)),
                _ => {
                    refused.push(given.to_string());
                    None
                }
            }
        };
        let mut plan = Vec::new();
        for dir in schema["directories"].as_object().into_iter().flat_map(|m| m.values()) {
            let Some(path) = dir["path"].as_str().and_then(&mut inside) else { continue };
            let subdirs = dir["subdirectories"]
                .as_object()
                .into_iter()
                .flat_map(|m| m.values())
                .filter_map(|s| s["path"].as_str().and_then(&mut inside))
                .collect();
            plan.push(PlanDir { path, tracked: dir["gitTracked"].as_bool().unwrap_or(false), subdirs });
        }
        plan
    }

    /// `config/wrangler.json` from a plugin's schema: its version and directories.
    fn config_json_from(&self, schema: &Value) -> Value {
        let root = self.root_name();
        let schema_root = schema["workspace"]["root"].as_str().unwrap_or(".wrangler");
        let dirs: Map<String, Value> = schema["directories"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, d)| {
                let rest = d["path"].as_str()?.strip_prefix(schema_root)?;
                let inside = rest.starts_with('/') && !rest.split('/').any(|part| part == "..");
                inside.then(|| (k.clone(), json!(format!("{root}{rest}"))))
            })
            .collect();
        let version = schema["version"].as_str().unwrap_or(SCHEMA_VERSION);
        json!({"version": version, "workspace": {"root": root, "directories": dirs}})
    }

    /// A `.wrangler/` workspace (wrangler reads its config files); `.docket/` has its own.
    fn is_wrangler(&self) -> bool {
        self.dir.file_name().is_some_and(|n| n == ".wrangler")
    }

    fn root_name(&self) -> String {
        self.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| ".wrangler".into())
    }

    /// `config/wrangler.json`: the schema version and where each directory is.
    fn config_json(&self) -> Value {
        let root = self.root_name();
        let dirs: Map<String, Value> =
            DIRS.iter().map(|d| (d.name.to_string(), json!(format!("{root}/{}", d.name)))).collect();
        json!({"version": SCHEMA_VERSION, "workspace": {"root": root, "directories": dirs}})
    }

    /// `config/workspace-schema.json` in the shape wrangler reads (directories, gitignore
    /// patterns, artifact types, where its MCP server finds each collection).
    fn schema_json(&self) -> Value {
        let root = self.root_name();
        let dirs: Map<String, Value> = DIRS
            .iter()
            .map(|d| {
                let mut entry =
                    json!({"path": format!("{root}/{}", d.name), "description": d.about, "gitTracked": d.tracked});
                if !d.subdirs.is_empty() {
                    let subs: Map<String, Value> = d
                        .subdirs
                        .iter()
                        .map(|s| (s.to_string(), json!({"path": format!("{root}/{}/{s}", d.name), "description": s})))
                        .collect();
                    entry["subdirectories"] = Value::Object(subs);
                }
                (d.name.to_string(), entry)
            })
            .collect();
        json!({
            "version": SCHEMA_VERSION,
            "description": "Workspace layout (written by docket init_workspace)",
            "workspace": {"root": root, "description": "Issues, specifications and ideas as markdown files"},
            "directories": dirs,
            "gitignorePatterns": GITIGNORE,
            "artifactTypes": {
                "issue": {"directory": "issues", "description": "Work items"},
                "specification": {"directory": "specifications", "description": "Feature specifications"},
                "idea": {"directory": "ideas", "description": "Ideas and proposals"}
            },
            "mcpConfiguration": {
                "issuesDirectory": format!("{root}/issues"),
                "specificationsDirectory": format!("{root}/specifications"),
                "ideasDirectory": format!("{root}/ideas")
            }
        })
    }
}

/// Which files of `source` with one of `exts` are missing from `dest` (copied) or not (skipped).
fn plan_copy(wanted: bool, source: &Path, dest: &Path, exts: &[&str]) -> Split {
    let mut split = Split::default();
    if !wanted {
        return split;
    }
    let Ok(entries) = std::fs::read_dir(source) else { return split };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| exts.iter().any(|x| n.ends_with(x)))
        .collect();
    names.sort();
    for name in names {
        let list = if dest.join(&name).exists() { &mut split.existing } else { &mut split.created };
        list.push(name);
    }
    split
}

fn read_optional(root: &Root, path: &Path) -> Result<String, StoreError> {
    match root.read(path, crate::files::MAX_FILE_BYTES) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| StoreError::Refused { path: path.to_path_buf(), reason: "it is not UTF-8 text".into() }),
        Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e),
    }
}

/// `text` with `lines` appended, keeping every existing byte and the file's line ending.
fn append_lines(text: &str, lines: &[String]) -> String {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = text.to_string();
    if out.is_empty() {
        out.push_str("# Runtime data (don't commit)");
        out.push_str(eol);
    } else if !out.ends_with('\n') {
        out.push_str(eol);
    }
    for line in lines {
        out.push_str(line);
        out.push_str(eol);
    }
    out
}

fn write_json(root: &Root, path: &Path, value: &Value) -> Result<(), StoreError> {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    root.write_atomic(path, text.as_bytes(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrangler_ws(dir: &Path) -> Workspace {
        std::fs::create_dir_all(dir.join(".wrangler/issues")).expect("mkdir");
        Workspace::at(dir).expect("workspace")
    }

    #[test]
    fn a_dry_run_reports_and_writes_nothing_then_fix_creates_it_all_once() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = wrangler_ws(tmp.path());
        let dry = ws.init_layout(false, None).expect("dry run");
        assert!(dry.changes && !dry.applied);
        assert_eq!(dry.directories.existing, [".wrangler/issues"]);
        assert!(dry.directories.created.contains(&".wrangler/orchestration/agents".to_string()));
        assert!(dry.schema_missing && dry.wrangler_config_missing);
        assert!(!tmp.path().join(".wrangler/memos").exists(), "a dry run creates nothing");
        let fixed = ws.init_layout(true, None).expect("fix");
        assert!(fixed.applied);
        assert_eq!(fixed.directories.created, dry.directories.created, "the dry run named what fix creates");
        for path in &fixed.directories.created {
            assert!(tmp.path().join(path).is_dir(), "{path}");
        }
        assert!(tmp.path().join(".wrangler/issues/.gitkeep").exists());
        assert!(!tmp.path().join(".wrangler/cache/.gitkeep").exists(), "untracked folders get no .gitkeep");
        let ignore = std::fs::read_to_string(tmp.path().join(".wrangler/.gitignore")).expect("gitignore");
        assert!(ignore.ends_with("cache/\nlogs/\nsessions/\n"), "{ignore}");
        let config: Value = serde_json::from_str(
            &std::fs::read_to_string(tmp.path().join(".wrangler/config/wrangler.json")).expect("config"),
        )
        .expect("json");
        assert_eq!(config["workspace"]["directories"]["issues"], ".wrangler/issues");
        let again = ws.init_layout(true, None).expect("again");
        assert!(!again.changes && !again.applied, "idempotent: {again:?}");
    }

    #[test]
    fn an_existing_gitignore_keeps_its_bytes_and_line_endings() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = wrangler_ws(tmp.path());
        std::fs::write(ws.dir.join(".gitignore"), "# mine\r\ncache/\r\nlocal.txt").expect("write");
        let report = ws.init_layout(true, None).expect("fix");
        assert_eq!(report.gitignore.existing, ["cache/"]);
        assert_eq!(report.gitignore.created, ["logs/", "sessions/"]);
        let text = std::fs::read_to_string(ws.dir.join(".gitignore")).expect("read");
        assert_eq!(text, "# mine\r\ncache/\r\nlocal.txt\r\nlogs/\r\nsessions/\r\n");
    }

    #[test]
    fn assets_are_copied_from_a_plugin_root_without_overwriting() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = wrangler_ws(tmp.path());
        let plugin = tempfile::tempdir().expect("plugin");
        std::fs::create_dir_all(plugin.path().join("workflows/agents")).expect("mkdir");
        std::fs::write(plugin.path().join("workflows/agents/a.md"), "agent").expect("write");
        std::fs::write(plugin.path().join("workflows/agents/notes.txt"), "not an asset").expect("write");
        std::fs::write(plugin.path().join("workflows/spec.yaml"), "steps: []").expect("write");
        std::fs::create_dir_all(ws.dir.join("orchestration/workflows")).expect("mkdir");
        std::fs::write(ws.dir.join("orchestration/workflows/spec.yaml"), "mine").expect("write");
        let report = ws.init_layout(true, Some(plugin.path())).expect("fix");
        let kinds: Vec<(&str, Split)> = report.assets.clone();
        assert_eq!(kinds[0].1.created, ["a.md"]);
        assert_eq!(kinds[2].1.existing, ["spec.yaml"]);
        assert_eq!(std::fs::read_to_string(ws.dir.join("orchestration/agents/a.md")).expect("copied"), "agent");
        assert_eq!(std::fs::read_to_string(ws.dir.join("orchestration/workflows/spec.yaml")).expect("kept"), "mine");
        assert!(!report.plugin_root_empty);
        assert!(ws.init_layout(false, Some(tmp.path())).expect("dry").plugin_root_empty);
    }

    #[test]
    fn versions_compare_as_wranglers_parse_semver_reads_them() {
        assert_eq!(semver(Some("1.2.3")), [1, 2, 3]);
        assert_eq!(semver(Some("v1.2.3")), [1, 2, 3]);
        assert_eq!(semver(Some("1.2.3-beta.1")), [1, 2, 3]);
        assert!(semver(Some("1.10.0")) > semver(Some("1.9.0")));
        for bad in [None, Some(""), Some("abc"), Some("1.2"), Some("x1.2.3")] {
            assert_eq!(semver(bad), [0, 0, 0], "{bad:?}");
        }
    }

    #[test]
    fn a_docket_workspace_gets_the_folders_but_no_wrangler_config() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = Workspace::init(tmp.path()).expect("init");
        let report = ws.init_layout(true, None).expect("fix");
        assert!(!report.schema_missing && !report.wrangler_config_missing);
        assert!(tmp.path().join(".docket/orchestration/prompts").is_dir());
        assert!(!tmp.path().join(".docket/config/wrangler.json").exists());
    }
}
