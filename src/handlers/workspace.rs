//! init_workspace: wrangler's workspace layout, reported (fix false) or completed (fix true).

use std::path::{Path, PathBuf};

use super::Handlers;
use super::convert::store_error;
use crate::codes;
use crate::generated::{
    AssetReport, AssetsReport, ConfigReport, GitignoreReport, InitWorkspaceInput, InitWorkspaceOutput,
    InitWorkspaceOutputStatus, PathReport, errors,
};
use crate::runtime::{Reply, ToolResult};
use crate::store::{Split, Store};

pub fn init(cx: &Handlers, input: InitWorkspaceInput) -> ToolResult<InitWorkspaceOutput> {
    let store: &Store = &cx.store;
    let ws = store.workspace();
    for (param, given, next) in [
        ("projectRoot", &input.project_root, format!("without projectRoot to set up {}", ws.root.display())),
        ("pluginRoot", &input.plugin_root, "with pluginRoot set to the root of a wrangler plugin checkout".into()),
    ] {
        if let Some(given) = given.as_deref().filter(|p| !p.trim().is_empty())
            && let Some(resolved) = system_directory(&ws.root.join(given))
        {
            return Err(errors::system_directory(param, given, resolved.display(), next));
        }
    }
    if let Some(given) = input.project_root.as_deref().filter(|p| !p.trim().is_empty()) {
        let path = ws.root.join(given);
        if !same_dir(&path, &ws.root) && !same_dir(&path, &ws.dir) {
            return Err(errors::project_root_mismatch(given, ws.root.display()));
        }
    }
    let plugin_root: Option<PathBuf> =
        input.plugin_root.as_deref().filter(|p| !p.trim().is_empty()).map(|p| ws.root.join(p));
    let report = ws.init_layout(input.fix, plugin_root.as_deref()).map_err(store_error)?;
    let status = match (report.changes, report.applied) {
        (false, _) => InitWorkspaceOutputStatus::Compliant,
        (true, true) => InitWorkspaceOutputStatus::Initialized,
        (true, false) => InitWorkspaceOutputStatus::ChangesNeeded,
    };
    let asset = |kind: &str| {
        let split = report.assets.iter().find(|(k, _)| *k == kind).map(|(_, s)| s.clone()).unwrap_or_default();
        AssetReport { copied: split.created, skipped: split.existing }
    };
    let assets = AssetsReport { agents: asset("agents"), prompts: asset("prompts"), workflows: asset("workflows") };
    let copied = assets.agents.copied.len() + assets.prompts.copied.len() + assets.workflows.copied.len();
    let text = summary(status, &ws.dir, &report.directories, copied, &report);
    let output = InitWorkspaceOutput {
        status,
        workspace: ws.dir.display().to_string(),
        directories: paths(report.directories.clone()),
        assets,
        config: ConfigReport {
            created: report.schema_missing,
            schema_updated: report.schema_missing || report.schema_update.is_some(),
            wrangler_config_created: report.wrangler_config_missing,
        },
        gitignore: GitignoreReport {
            patterns_added: report.gitignore.created.clone(),
            existing: report.gitignore.existing.clone(),
        },
    };
    let mut reply = Reply::new(output).with_text(text);
    if !report.refused.is_empty() {
        reply = reply.warn_visibly(
            codes::SKIPPED_FILES,
            format!(
                "The plugin's workspace schema names directories outside the workspace folder, left alone: {}. \
                 init_workspace creates only folders inside {}; fix those paths in the plugin's schema.",
                report.refused.join(", "),
                ws.dir.display()
            ),
        );
    }
    Ok(match (report.plugin_root_empty && report.schema_source.is_none(), plugin_root) {
        (true, Some(root)) => reply.warn_visibly(
            codes::NO_ASSETS,
            format!(
                "pluginRoot {} has none of .wrangler/config/workspace-schema.json, workflows/agents, \
                 workflows/prompts or workflows/*.yaml; the built-in layout was used and no assets were copied. Pass \
                 the root of a wrangler checkout.",
                root.display()
            ),
        ),
        _ => reply,
    })
}

/// Directories wrangler refuses as a projectRoot or pluginRoot (its init.ts), and docket with it.
const SYSTEM_DIRS: &[&str] = &[
    "/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/var", "/proc", "/sys", "/dev", "/boot", "/tmp", "/root",
    "/home",
];

/// The system directory `path` names, written out (`/etc/../usr/` is `/usr`) or through links
/// (`/private/etc` on macOS, a link to `/etc`); None for any other path.
fn system_directory(path: &Path) -> Option<PathBuf> {
    let mut lexical = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            std::path::Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let system = |p: &Path| SYSTEM_DIRS.iter().any(|d| p == Path::new(d));
    let canonical = path.canonicalize().ok();
    let canonical_system = canonical.as_deref().is_some_and(|c| {
        system(c) || SYSTEM_DIRS.iter().filter_map(|d| Path::new(d).canonicalize().ok()).any(|d| d == c)
    });
    if system(&lexical) {
        Some(lexical)
    } else if canonical_system {
        canonical
    } else {
        None
    }
}

fn paths(split: Split) -> PathReport {
    PathReport { created: split.created, existing: split.existing }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// What was (or would be) done, one line per kind of change.
fn summary(
    status: InitWorkspaceOutputStatus,
    dir: &Path,
    dirs: &Split,
    copied: usize,
    r: &crate::store::LayoutReport,
) -> String {
    let mut lines = match status {
        InitWorkspaceOutputStatus::Compliant => {
            return format!("Workspace {} is compliant: nothing to create.", dir.display());
        }
        InitWorkspaceOutputStatus::Initialized => vec![format!("Workspace {} initialized:", dir.display())],
        InitWorkspaceOutputStatus::ChangesNeeded => {
            vec![format!(
                "Workspace {} needs changes (call init_workspace with fix: true to apply them):",
                dir.display()
            )]
        }
    };
    let verb = |done: &str, todo: &str| if r.applied { done.to_string() } else { todo.to_string() };
    if !dirs.created.is_empty() {
        lines.push(format!("- {} {}", verb("Created directories:", "Directories to create:"), dirs.created.join(", ")));
    }
    if !r.gitkeeps.is_empty() {
        lines.push(format!("- Created {}", r.gitkeeps.join(", ")));
    }
    if !r.gitignore.created.is_empty() {
        let what = verb("Added to .gitignore:", "Missing from .gitignore:");
        lines.push(format!("- {what} {}", r.gitignore.created.join(", ")));
    }
    if let Some(source) = &r.schema_source {
        lines.push(format!("- Layout from the plugin's schema {}", source.display()));
    }
    if let Some(u) = &r.schema_update {
        let mut change = vec![format!("version {} to {}", u.from, u.to)];
        for (what, list) in [
            ("directories added", &u.directories_added),
            ("directories dropped", &u.directories_removed),
            ("gitignore patterns added", &u.patterns_added),
        ] {
            if !list.is_empty() {
                change.push(format!("{what}: {}", list.join(", ")));
            }
        }
        let verb = verb("Updated", "To update (the plugin's is newer):");
        lines.push(format!("- {verb} config/workspace-schema.json: {}", change.join("; ")));
    }
    for (done, missing, file) in [
        ("Created", r.schema_missing, "config/workspace-schema.json"),
        ("Created", r.wrangler_config_missing, "config/wrangler.json"),
    ] {
        if missing {
            lines.push(format!("- {} {file}", verb(done, "To create:")));
        }
    }
    if copied > 0 {
        lines.push(format!("- {} {copied}", verb("Assets copied:", "Assets to copy:")));
    }
    lines.join("\n")
}
