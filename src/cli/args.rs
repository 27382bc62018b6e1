//! The command-line flags of each human command, and how they become a tool's typed arguments
//! ([`crate::generated::arguments`]: a parameter renamed in tools.yaml breaks this file's build).
//!
//! Flags carry strings, not enums: the values are checked by the generated dispatch, whose
//! messages list the valid values from tools.yaml (so `--priority urgent` is an input error, exit
//! 1, not a usage error).
//!
//! Over 600 lines on purpose: one clap struct per human command beside its conversion to tool
//! arguments, so a flag and what it becomes are read together; it is declarations, not logic.
//! The work-graph commands' flags are here too: the modules that run commands import this one,
//! never the other way round.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::generated::arguments::{
    IssueFilters, IssuesCreateInput, IssuesGetInput, IssuesListInput, IssuesStatsInput, IssuesUpdateInput,
    WranglerContext,
};
use crate::generated::{IssueField, IssueStatus, ListFormat, StatsGroupBy};

/// The human commands over the tools (`serve` and `init` live in the binary).
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List issues as a table, newest update first (issues_list).
    List(ListArgs),
    /// Show one issue: its fields, then its markdown body (issues_get).
    Show(ShowArgs),
    /// Create an issue, specification or idea; prints the new ID (issues_create).
    Create(CreateArgs),
    /// Change fields of an issue; prints what changed (issues_update).
    Update(UpdateArgs),
    /// A kanban board of the workspace: open | in_progress | closed (issues_list).
    Board(BoardArgs),
    /// Issue counts by status, priority and type (issues_stats).
    Stats(StatsArgs),
    /// Check the workspace files: duplicate ids, misplaced files, broken frontmatter, missing
    /// parents, stale temp files (workspace_doctor); --fix repairs what is safe. Exit 0: clean,
    /// or no workspace yet (nothing to check, as `list` finds nothing); 1: problems --fix
    /// repairs; 3: only problems that need a person (also what a --fix that changed nothing left).
    Doctor(DoctorArgs),
    /// Route the workspace's issue files through docket's merge driver: writes .gitattributes in
    /// the workspace directory, merge.docket in the repository's git config, and the
    /// post-merge, post-rewrite and post-commit hooks that renumber ids a merge duplicated
    /// (your own hooks are kept and run first; idempotent).
    GitSetup(GitSetupArgs),
    /// git merge driver for issue files: `docket merge-file %O %A %B %P` (set by git-setup).
    /// Writes the merge to OURS; exit 0 when clean, 1 when the body keeps conflict markers. Two
    /// different issues added at one path are kept apart: the other goes beside it (NAME-2.md).
    MergeFile(MergeFileArgs),
    /// What the git hooks installed by git-setup run: renumbers ids a merge duplicated and
    /// commits the repair. `docket hook post-merge|post-rewrite|post-commit [HOOK ARGS]`.
    #[command(hide = true)]
    Hook(HookArgs),
    /// Bring issues over from beads (a .beads/ folder or its issues.jsonl) or Backlog.md (a
    /// project holding backlog/): one file per issue, the old id kept as
    /// wranglerContext.importedFrom and in import/SOURCE-idmap.tsv; edges, statuses and
    /// priorities mapped as docs/import.md says. Issues already imported are left as they are.
    Import(ImportArgs),
    /// What an agent needs at the start of a session, in at most 150 tokens: the workspace, your
    /// claims, the top ready issues, counts and the work loop. Reads only; writes nothing.
    Prime(PrimeArgs),
    /// Register docket's MCP server with a client: claude (.mcp.json), codex
    /// (~/.codex/config.toml), cursor (.cursor/mcp.json) or vscode (.vscode/mcp.json). Changes
    /// only docket's entry; every other server and byte of the file is kept.
    Setup(SetupArgs),
    // Daily use (src/cli/daily.rs): search, close, reopen, edit, ready, web, completions.
    #[command(flatten)]
    Daily(Daily),
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Repair what is safe (renumber duplicates, move misplaced files, rename files named after
    /// another id, remove stale temp files) and print every change. Without it nothing is
    /// written. Exit code: 0 nothing wrong, 1 problems --fix repairs, 3 only problems that need a
    /// person.
    #[arg(long)]
    pub fix: bool,
    /// Print the problems (and changes) as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The tracker the issues come from.
    #[arg(value_enum)]
    pub source: crate::import::Source,
    /// beads: a .beads/ folder, the project holding it, or a JSONL export; backlog: the project
    /// (or its backlog/ folder).
    pub path: PathBuf,
    /// Print what would be imported and how it maps; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct PrimeArgs {
    /// Your agent name: lists the issues you hold (in progress and assigned to you).
    #[arg(long = "as", value_name = "NAME", env = "DOCKET_AGENT")]
    pub agent: Option<String>,
    /// Print Claude Code's SessionStart hook JSON (the primer as additionalContext).
    #[arg(long)]
    pub hook_json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

/// The clients `docket setup` knows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// Claude Code: the project's .mcp.json (`mcpServers`).
    Claude,
    /// Codex: ~/.codex/config.toml, or $CODEX_HOME/config.toml (`[mcp_servers.NAME]`).
    Codex,
    /// Cursor: the project's .cursor/mcp.json (`mcpServers`).
    Cursor,
    /// VS Code: the project's .vscode/mcp.json (`servers`, `"type": "stdio"`).
    Vscode,
}

#[derive(Args, Debug)]
pub struct SetupArgs {
    /// The client: claude, codex, cursor or vscode.
    #[arg(value_enum)]
    pub client: Client,
    /// Report what would change; write nothing (exit 1 when the entry is missing or differs).
    #[arg(long)]
    pub check: bool,
    /// The server's name in the client's file (e.g. wrangler, for tools named as wrangler's).
    #[arg(long, default_value = "docket")]
    pub name: String,
    /// The project folder (default: the current directory); codex's file is the user's own.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct GitSetupArgs {
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct MergeFileArgs {
    /// The common ancestor's version (%O).
    pub base: PathBuf,
    /// Our version (%A); the merge result is written here.
    pub ours: PathBuf,
    /// Their version (%B).
    pub theirs: PathBuf,
    /// The path of the file in the repository (%P), for messages.
    pub path: Option<String>,
}

#[derive(Args, Debug)]
pub struct HookArgs {
    /// The git hook running: post-merge, post-rewrite or post-commit.
    pub name: String,
    /// The arguments git gave the hook.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

/// Where the workspace is, resolved like `docket serve`.
#[derive(Args, Debug, Clone, Default)]
pub struct WorkspaceArg {
    /// Workspace directory (holding .wrangler/ or .docket/). Default: DOCKET_WORKSPACE,
    /// WRANGLER_WORKSPACE_ROOT, then the nearest ancestor of the current directory that has one.
    #[arg(long, value_name = "PATH")]
    pub workspace: Option<PathBuf>,
    /// In a linked git worktree, use its own workspace files instead of the main worktree's
    /// (claims still hold across worktrees). Default: DOCKET_WORKTREES, then `worktrees` in
    /// config/docket.yaml, then shared.
    #[arg(long)]
    pub worktree_local: bool,
}

impl WorkspaceArg {
    /// The workspace these flags name ([`crate::store::Workspace::resolve_with`]).
    pub fn resolve(&self) -> Result<crate::store::Workspace, crate::store::StoreError> {
        let flag = self.worktree_local.then_some(crate::store::Worktrees::Local);
        crate::store::Workspace::resolve_with(self.workspace.as_deref(), flag)
    }

    /// [`WorkspaceArg::resolve`], or with no workspace found, the one the first write creates
    /// ([`crate::store::Workspace::resolve_or_pending`]).
    pub fn resolve_or_pending(&self) -> Result<crate::store::Workspace, crate::store::StoreError> {
        let flag = self.worktree_local.then_some(crate::store::Worktrees::Local);
        crate::store::Workspace::resolve_or_pending(self.workspace.as_deref(), flag)
    }
}

/// Filters shared by list, board and stats (the issues_list / issues_stats filters but status).
#[derive(Args, Debug, Clone, Default)]
pub struct Filters {
    /// Only these priorities (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "PRIORITY")]
    pub priority: Vec<String>,
    /// Only issues with any of these labels (repeatable or comma-separated).
    #[arg(long = "label", value_delimiter = ',', value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Only issues assigned to this person.
    #[arg(long)]
    pub assignee: Option<String>,
    /// Only issues of this project.
    #[arg(long)]
    pub project: Option<String>,
    /// Only these types: issue, specification, idea (repeatable or comma-separated).
    #[arg(long = "type", value_delimiter = ',', value_name = "TYPE")]
    pub issue_type: Vec<String>,
}

impl Filters {
    /// The issue filters these flags ask for (one type goes as `type`, several as `types`).
    pub(super) fn to_arguments(&self) -> IssueFilters {
        let (one_type, types) = match self.issue_type.as_slice() {
            [] => (None, None),
            [one] => (Some(one.clone()), None),
            many => (None, Some(many.to_vec())),
        };
        IssueFilters {
            priority: listed(&self.priority),
            labels: listed(&self.labels),
            assignee: self.assignee.clone(),
            project: self.project.clone(),
            r#type: one_type,
            types,
            ..IssueFilters::default()
        }
    }
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Only these statuses (repeatable or comma-separated; default open,in_progress, or every
    /// status with --json; `all` for finished work too).
    #[arg(long, value_delimiter = ',', value_name = "STATUS")]
    pub status: Vec<String>,
    #[command(flatten)]
    pub filters: Filters,
    /// Rows per page (1-100; default 25).
    #[arg(long)]
    pub limit: Option<i64>,
    /// Continue from the cursor printed below the previous page.
    #[arg(long, conflicts_with = "all")]
    pub cursor: Option<String>,
    /// Show page N of --limit rows (1 is the first).
    #[arg(long, value_name = "N", conflicts_with_all = ["cursor", "all"], value_parser = clap::value_parser!(u32).range(1..))]
    pub page: Option<u32>,
    /// Follow the cursors and print every matching issue.
    #[arg(long)]
    pub all: bool,
    /// Columns of the table (minimal, summary, full; default full). With --json, prints the
    /// tool's own result for that format (one line per issue for minimal and summary).
    #[arg(long)]
    pub format: Option<String>,
    /// Print the structured issues_list result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

/// The issue fields the list table can show (format full without the description).
pub const TABLE_FIELDS: [IssueField; 8] = [
    IssueField::Title,
    IssueField::Type,
    IssueField::Status,
    IssueField::Priority,
    IssueField::Labels,
    IssueField::Assignee,
    IssueField::Project,
    IssueField::Dates,
];

/// Page size of `list` when none is given (the tool's summary default, also used for `full`).
pub const LIST_PAGE: i64 = 25;

/// What `list` shows without --status: the work still to do.
pub const LIST_STATUSES: [IssueStatus; 2] = [IssueStatus::Open, IssueStatus::InProgress];

impl ListArgs {
    /// The statuses to list: those given, every one for `all`, else [`LIST_STATUSES`] for the
    /// table and every one for `--json` (scripts get what issues_list gives).
    pub fn statuses(&self) -> Vec<String> {
        match self.status.as_slice() {
            [] if self.json => Vec::new(),
            [] => wire_names(&LIST_STATUSES),
            [all] if all == "all" => Vec::new(),
            given => given.to_vec(),
        }
    }

    /// issues_list arguments for one page (`cursor` overrides `--cursor` when following pages).
    pub fn to_arguments(&self, cursor: Option<&str>) -> IssuesListInput {
        // The table (and --json, for scripts) takes records: the fields the table shows for the
        // format asked, without bodies. --json with a --format prints the tool's own result for
        // it (and a format the tool does not know, the tool refuses).
        let format = self.format.as_deref().map(|f| ListFormat::ALL.iter().copied().find(|v| v.as_str() == f));
        let fields: Option<&[IssueField]> = match (self.json, format) {
            (_, None) | (false, Some(Some(ListFormat::Full))) => Some(&TABLE_FIELDS),
            (false, Some(Some(ListFormat::Minimal))) => Some(&[IssueField::Title, IssueField::Status]),
            (false, Some(Some(ListFormat::Summary))) => Some(&[
                IssueField::Title,
                IssueField::Status,
                IssueField::Priority,
                IssueField::Labels,
                IssueField::Dates,
            ]),
            (_, Some(_)) => None,
        };
        let limit = match (self.limit, self.all) {
            (Some(l), _) => Some(l),
            (None, true) => Some(crate::generated::limits::issues_list::MAX_PAGE_SIZE as i64),
            (None, false) => (!self.json || self.page.is_some()).then_some(LIST_PAGE),
        };
        let (cursor, offset) = match (cursor.map(str::to_string).or_else(|| self.cursor.clone()), self.page) {
            (Some(c), _) => (Some(c), None),
            // A page number is an offset (the tools' older way to page, still taken).
            (None, Some(page)) => (None, Some(i64::from(page - 1).saturating_mul(limit.unwrap_or(LIST_PAGE)))),
            (None, None) => (None, None),
        };
        IssuesListInput {
            filters: IssueFilters { status: listed(&self.statuses()), ..self.filters.to_arguments() },
            format: if fields.is_none() { self.format.clone() } else { None },
            fields: fields.map(wire_names),
            limit,
            cursor,
            offset,
            ..IssuesListInput::default()
        }
    }
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Issue ID, e.g. ISS-000042.
    pub id: String,
    /// Print the structured issues_get result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

impl ShowArgs {
    pub fn to_arguments(&self) -> IssuesGetInput {
        use IssueField::*;
        // Every field, with the exact times (a model's default answer has the update date only).
        let fields = [Title, Description, Type, Status, Priority, Labels, Assignee, Project, Dates, WranglerContext];
        IssuesGetInput { id: self.id.clone(), fields: Some(wire_names(&fields)), ..IssuesGetInput::default() }
    }
}

/// Where a markdown body comes from.
#[derive(Args, Debug, Clone, Default)]
pub struct BodyArgs {
    /// Markdown body; "-" reads it from stdin.
    #[arg(long, value_name = "TEXT", conflicts_with = "description_file")]
    pub description: Option<String>,
    /// Read the markdown body from a file ("-" for stdin).
    #[arg(long, value_name = "FILE")]
    pub description_file: Option<PathBuf>,
}

impl BodyArgs {
    /// The body to send, read from stdin or a file when asked.
    pub fn read(&self) -> Result<Option<String>, String> {
        let stdin = || {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the description from stdin: {e}"))?;
            Ok(text)
        };
        match (&self.description, &self.description_file) {
            (Some(d), _) if d == "-" => stdin().map(Some),
            (Some(d), _) => Ok(Some(d.clone())),
            (None, Some(f)) if f.as_os_str() == "-" => stdin().map(Some),
            (None, Some(f)) => std::fs::read_to_string(f)
                .map(Some)
                .map_err(|e| format!("cannot read the description file {}: {e}", f.display())),
            (None, None) => Ok(None),
        }
    }
}

#[derive(Args, Debug)]
pub struct CreateArgs {
    /// Short title (or --title).
    #[arg(value_name = "TITLE", required_unless_present = "title", conflicts_with = "title")]
    pub title_arg: Option<String>,
    /// Short title.
    #[arg(long)]
    pub title: Option<String>,
    #[command(flatten)]
    pub body: BodyArgs,
    /// Kind: issue (default), specification or idea.
    #[arg(long = "type", value_name = "TYPE")]
    pub issue_type: Option<String>,
    /// Priority (default medium).
    #[arg(long)]
    pub priority: Option<String>,
    /// Initial status (default open).
    #[arg(long)]
    pub status: Option<String>,
    /// Labels (repeatable or comma-separated).
    #[arg(long = "label", value_delimiter = ',', value_name = "LABEL")]
    pub labels: Vec<String>,
    /// Assignee.
    #[arg(long)]
    pub assignee: Option<String>,
    /// Project.
    #[arg(long)]
    pub project: Option<String>,
    /// Parent issue or spec (wranglerContext.parentTaskId).
    #[arg(long, value_name = "ID")]
    pub parent: Option<String>,
    /// Issues this one waits for (repeatable or comma-separated).
    #[arg(long = "blocked-by", value_delimiter = ',', value_name = "ID")]
    pub blocked_by: Vec<String>,
    /// Print the structured issues_create result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

impl CreateArgs {
    /// issues_create arguments; `body` is the description already read (empty when none given).
    pub fn to_arguments(&self, body: Option<String>) -> IssuesCreateInput {
        IssuesCreateInput {
            // clap asks for one of the two.
            title: self.title.clone().or_else(|| self.title_arg.clone()).unwrap_or_default(),
            description: body.unwrap_or_default(),
            r#type: self.issue_type.clone(),
            priority: self.priority.clone(),
            status: self.status.clone(),
            labels: listed(&self.labels),
            assignee: self.assignee.clone(),
            project: self.project.clone(),
            wrangler_context: self
                .parent
                .clone()
                .map(|parent| WranglerContext { parent_task_id: Some(parent), ..WranglerContext::default() }),
            blocked_by: listed(&self.blocked_by),
        }
    }
}

#[derive(Args, Debug)]
pub struct UpdateArgs {
    /// Issue ID, e.g. ISS-000042.
    pub id: String,
    /// New title.
    #[arg(long)]
    pub title: Option<String>,
    #[command(flatten)]
    pub body: BodyArgs,
    /// New type (moves the file to that collection).
    #[arg(long = "type", value_name = "TYPE")]
    pub issue_type: Option<String>,
    /// New status (closed or cancelled archives the file).
    #[arg(long)]
    pub status: Option<String>,
    /// New priority.
    #[arg(long)]
    pub priority: Option<String>,
    /// Replace the labels (repeatable or comma-separated); `+L` adds L and `-L` removes it
    /// (`--label +urgent`, `--label=-docs`) keeping the others.
    #[arg(
        long = "label",
        value_delimiter = ',',
        value_name = "LABEL",
        conflicts_with = "no_labels",
        allow_hyphen_values = true
    )]
    pub labels: Vec<String>,
    /// Add labels, keeping the others (repeatable or comma-separated).
    #[arg(long = "add-label", value_delimiter = ',', value_name = "LABEL", conflicts_with = "no_labels")]
    pub add_labels: Vec<String>,
    /// Remove labels, keeping the others (repeatable or comma-separated).
    #[arg(long = "remove-label", value_delimiter = ',', value_name = "LABEL", conflicts_with = "no_labels")]
    pub remove_labels: Vec<String>,
    /// Remove every label.
    #[arg(long)]
    pub no_labels: bool,
    /// Replace the blockers: the issues this one waits for (repeatable or comma-separated).
    #[arg(long = "blocked-by", value_delimiter = ',', value_name = "ID", conflicts_with = "no_blockers")]
    pub blocked_by: Vec<String>,
    /// Add blockers, keeping the others (repeatable or comma-separated).
    #[arg(long = "add-blocker", value_delimiter = ',', value_name = "ID", conflicts_with_all = ["no_blockers", "blocked_by"])]
    pub add_blockers: Vec<String>,
    /// Remove blockers, keeping the others (repeatable or comma-separated).
    #[arg(long = "remove-blocker", value_delimiter = ',', value_name = "ID", conflicts_with_all = ["no_blockers", "blocked_by"])]
    pub remove_blockers: Vec<String>,
    /// Remove every blocker.
    #[arg(long)]
    pub no_blockers: bool,
    /// New assignee ("" clears it).
    #[arg(long)]
    pub assignee: Option<String>,
    /// New project ("" clears it).
    #[arg(long)]
    pub project: Option<String>,
    /// Print the structured issues_update result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

/// What an update does to the labels: replace them all, or add and remove some.
#[derive(Debug, PartialEq)]
pub enum LabelChange {
    Keep,
    Replace(Vec<String>),
    Edit { add: Vec<String>, remove: Vec<String> },
}

impl UpdateArgs {
    /// The labels change the flags ask for; `--label` values are all `+L`/`-L` edits or all
    /// plain names (a list to replace the labels with), never a mix.
    pub fn label_change(&self) -> Result<LabelChange, String> {
        if self.no_labels {
            return Ok(LabelChange::Replace(Vec::new()));
        }
        let signed = |l: &String| l.starts_with(['+', '-']);
        let (mut add, mut remove) = (self.add_labels.clone(), self.remove_labels.clone());
        if self.labels.iter().all(signed) {
            for l in &self.labels {
                let (sign, name) = l.split_at(1);
                if name.is_empty() {
                    return Err(format!("--label {l} names no label: write --label {sign}NAME"));
                }
                if sign == "+" { add.push(name.to_string()) } else { remove.push(name.to_string()) }
            }
        } else if self.labels.iter().any(signed) {
            return Err(format!(
                "--label {} mixes labels to set with +/- edits: either list every label the issue should have, \
                 or use only +LABEL / -LABEL (or --add-label / --remove-label)",
                self.labels.join(",")
            ));
        } else if !add.is_empty() || !remove.is_empty() {
            return Err("--label replaces every label, so it cannot go with --add-label or --remove-label: use one \
                        or the other"
                .into());
        } else {
            return Ok(LabelChange::Replace(self.labels.clone()));
        }
        if add.is_empty() && remove.is_empty() { Ok(LabelChange::Keep) } else { Ok(LabelChange::Edit { add, remove }) }
    }

    /// issues_update arguments; `body` is the new description already read, if any. Label edits
    /// (`+L`, `-L`) are not among them: they go through issues_labels (see [`Self::label_change`]).
    pub fn to_arguments(&self, body: Option<String>) -> IssuesUpdateInput {
        IssuesUpdateInput {
            id: self.id.clone(),
            title: self.title.clone(),
            description: body,
            r#type: self.issue_type.clone(),
            status: self.status.clone(),
            priority: self.priority.clone(),
            labels: match self.label_change() {
                Ok(LabelChange::Replace(labels)) => Some(labels),
                _ => None,
            },
            // "" clears them (sent as given, not as null).
            assignee: self.assignee.clone().map(Some),
            project: self.project.clone().map(Some),
            blocked_by: if self.no_blockers { Some(Vec::new()) } else { listed(&self.blocked_by) },
            ..IssuesUpdateInput::default()
        }
    }

    /// Whether blockers are added or removed (a read-modify-write of blockedBy).
    pub fn edits_blockers(&self) -> bool {
        !self.add_blockers.is_empty() || !self.remove_blockers.is_empty()
    }

    /// --add-blocker and --remove-blocker, for the store to apply to the blockers the issue has
    /// when it is written.
    pub fn blocker_edit(&self) -> crate::app::BlockerEdit {
        crate::app::BlockerEdit { add: self.add_blockers.clone(), remove: self.remove_blockers.clone() }
    }
}

#[derive(Args, Debug)]
pub struct BoardArgs {
    #[command(flatten)]
    pub filters: Filters,
    /// The board in the terminal, live: arrows move, Enter opens an issue, `<` `>` change its
    /// status, q quits.
    #[arg(long, short = 'i')]
    pub interactive: bool,
    /// Cards per open or in-progress column, highest priority first; the rest are counted in a
    /// "+N more" line (0: every card).
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub limit: usize,
    /// How many of the most recently updated closed (and cancelled) issues to show.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub closed: u8,
    /// Add a cancelled column.
    #[arg(long)]
    pub cancelled: bool,
    /// Board width in characters (default: COLUMNS, else the terminal's width, else 100).
    #[arg(long, value_parser = clap::value_parser!(u16).range(40..))]
    pub width: Option<u16>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

impl BoardArgs {
    /// issues_list arguments for one column's page.
    pub fn to_arguments(&self, status: IssueStatus, limit: i64, cursor: Option<&str>) -> IssuesListInput {
        IssuesListInput {
            filters: IssueFilters { status: Some(vec![status.to_string()]), ..self.filters.to_arguments() },
            fields: Some(wire_names(&[IssueField::Title, IssueField::Priority])),
            limit: Some(limit),
            cursor: cursor.map(str::to_string),
            ..IssuesListInput::default()
        }
    }
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Only these statuses (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "STATUS")]
    pub status: Vec<String>,
    #[command(flatten)]
    pub filters: Filters,
    /// Count by these fields: status, priority, type, project, assignee, labels (repeatable or
    /// comma-separated; default status, priority and type). Under labels an issue with several
    /// labels counts once under each.
    #[arg(long, value_delimiter = ',', value_name = "FIELD")]
    pub by: Vec<String>,
    /// Print the structured issues_stats results as one JSON object keyed by grouping.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

impl StatsArgs {
    pub fn to_arguments(&self, group_by: StatsGroupBy) -> IssuesStatsInput {
        IssuesStatsInput {
            group_by: group_by.to_string(),
            filters: IssueFilters { status: listed(&self.status), ..self.filters.to_arguments() },
            ..IssuesStatsInput::default()
        }
    }
}

/// A list flag's values, or `None` (not sent) when none were given.
pub(super) fn listed(values: &[String]) -> Option<Vec<String>> {
    (!values.is_empty()).then(|| values.to_vec())
}

/// Enum values as the tools take them (their wire names).
pub(super) fn wire_names<T: std::fmt::Display>(values: &[T]) -> Vec<String> {
    values.iter().map(ToString::to_string).collect()
}

/// The daily commands (run by cli/daily.rs).
#[derive(Subcommand, Debug)]
pub enum Daily {
    /// Find issues by text in titles, bodies and labels, best match first (issues_search).
    Search(SearchArgs),
    /// Close an issue; with --note, append completion notes (issues_update / issues_mark_complete).
    Close(CloseArgs),
    /// Open a closed or cancelled issue again (issues_update).
    Reopen(IdArgs),
    /// Edit an issue's file in $VISUAL or $EDITOR; saved only if its frontmatter still parses.
    Edit(IdArgs),
    /// What to pick up next: open issues nothing blocks that are not containers, unassigned (plus
    /// --assignee's own), highest priority first, then oldest (issues_ready).
    ///
    /// A container is an issue with open or in-progress children, or one whose wranglerContext
    /// says `container: true`; `container: false` offers a parent as work even while it has open
    /// children.
    #[command(mut_arg("assignee", |a| a.help("Add this person's issues to the unassigned ones (it does not narrow the list to theirs)")))]
    Ready(ReadyArgs),
    /// Make an issue wait for others: `docket block ID --by ID...` (issues_update blockedBy).
    Block(BlockArgs),
    /// Stop an issue waiting for others: `docket unblock ID --by ID...`.
    Unblock(BlockArgs),
    /// Take an issue: assignee and in_progress in one write, if nobody has it and nothing blocks
    /// it (issues_claim).
    Claim(ClaimArgs),
    /// End a claim: the issue back to open, unassigned (issues_claim with release).
    Release(ReleaseArgs),
    /// An issue with its parent, children, blockers and what it blocks.
    Tree(IdArgs),
    /// Serve the web board alone on loopback and print its URL (`docket serve --http` serves it
    /// beside /mcp).
    Web(WebArgs),
    /// Print a shell completion script: `docket completions bash > ~/.local/share/bash-completion/completions/docket`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Text to find (case-insensitive).
    pub query: String,
    /// Only these statuses (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "STATUS")]
    pub status: Vec<String>,
    #[command(flatten)]
    pub filters: Filters,
    /// Most matches to show (1-100; default 10, or search_page_size in the config).
    #[arg(long)]
    pub limit: Option<i64>,
    /// Show the next page: the cursor the previous page printed.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Show page N of --limit matches (1 is the first).
    #[arg(long, value_name = "N", conflicts_with = "cursor", value_parser = clap::value_parser!(u32).range(1..))]
    pub page: Option<u32>,
    /// Print the structured issues_search result as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct IdArgs {
    /// Issue ID, e.g. ISS-000042.
    pub id: String,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct CloseArgs {
    /// Issue ID, e.g. ISS-000042.
    pub id: String,
    /// Completion notes appended to the description.
    #[arg(long)]
    pub note: Option<String>,
    /// Mark it cancelled (won't do) rather than closed (done).
    #[arg(long, conflicts_with = "note")]
    pub cancel: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct WebArgs {
    /// Port on 127.0.0.1 (default: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Open the board in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Require this token: the browser presents it once through the printed URL.
    #[arg(long, env = "DOCKET_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Workspace directory (holding .wrangler/ or .docket/), found like `serve` otherwise.
    #[arg(long, value_name = "PATH")]
    pub workspace: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BlockArgs {
    /// The issue that waits, e.g. ISS-000042.
    pub id: String,
    /// The issues it waits for (repeatable or comma-separated).
    #[arg(long = "by", value_delimiter = ',', value_name = "ID", required = true, num_args = 1..)]
    pub by: Vec<String>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct ClaimArgs {
    /// Issue ID, e.g. ISS-000042 (or --next).
    #[arg(required_unless_present = "next")]
    pub id: Option<String>,
    /// Claim the first issue `docket ready` lists (one nobody else is claiming).
    #[arg(long, conflicts_with = "id")]
    pub next: bool,
    /// Who takes it (claiming it again renews its lease).
    #[arg(long = "as", value_name = "NAME")]
    pub assignee: String,
    /// Take over another holder's claim (its agent is gone), saying why.
    #[arg(long, value_name = "REASON")]
    pub force: Option<String>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct ReleaseArgs {
    /// Issue ID, e.g. ISS-000042.
    pub id: String,
    /// Whose claim ends.
    #[arg(long = "as", value_name = "NAME")]
    pub assignee: String,
    /// Release another holder's claim, saying why.
    #[arg(long, value_name = "REASON")]
    pub force: Option<String>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Args, Debug)]
pub struct ReadyArgs {
    #[command(flatten)]
    pub filters: Filters,
    /// Most issues to show (default 10).
    #[arg(long, default_value_t = READY_PAGE)]
    pub limit: usize,
    /// Show page N of --limit issues (1 is the first).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub page: Option<u32>,
    /// Print the issues as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

/// Issues `ready` shows when no --limit is given.
pub const READY_PAGE: usize = 10;

#[cfg(test)]
mod tests {
    use clap::Parser;
    use serde_json::{Value, json};

    use super::*;
    use crate::generated::arguments::ToolArguments;

    #[derive(Parser)]
    struct Top {
        #[command(subcommand)]
        command: Command,
    }

    fn parse(argv: &[&str]) -> Command {
        Top::try_parse_from(std::iter::once("docket").chain(argv.iter().copied())).expect("parses").command
    }

    #[test]
    fn list_flags_become_issues_list_arguments() {
        let Command::List(list) =
            parse(&["list", "--status", "open,in_progress", "--status", "closed", "--label", "bug", "--limit", "5"])
        else {
            panic!("not list")
        };
        let args = Value::Object(list.to_arguments(None).to_map());
        assert_eq!(
            args,
            json!({"status": ["open", "in_progress", "closed"], "labels": ["bug"], "fields": TABLE_FIELDS, "limit": 5})
        );
    }

    #[test]
    fn list_json_asks_for_the_table_records_and_leaves_page_size_to_the_tool() {
        let Command::List(list) = parse(&["list", "--json", "--cursor", "abc"]) else { panic!("not list") };
        assert_eq!(Value::Object(list.to_arguments(None).to_map()), json!({"fields": TABLE_FIELDS, "cursor": "abc"}));
        let Command::List(list) = parse(&["list", "--json", "--format", "minimal"]) else { panic!("not list") };
        assert_eq!(Value::Object(list.to_arguments(None).to_map()), json!({"format": "minimal"}));
    }

    #[test]
    fn update_sends_only_the_fields_given() {
        let Command::Update(u) = parse(&["update", "ISS-000001", "--status", "closed", "--no-labels"]) else {
            panic!("not update")
        };
        assert_eq!(
            Value::Object(u.to_arguments(None).to_map()),
            json!({"id": "ISS-000001", "status": "closed", "labels": []})
        );
        // "" clears the assignee: sent as given.
        let Command::Update(u) = parse(&["update", "ISS-000001", "--assignee", "", "--no-blockers"]) else {
            panic!("not update")
        };
        assert_eq!(
            Value::Object(u.to_arguments(None).to_map()),
            json!({"id": "ISS-000001", "assignee": "", "blockedBy": []})
        );
    }

    #[test]
    fn create_always_sends_a_description() {
        let Command::Create(c) = parse(&["create", "--title", "T", "--priority", "urgent"]) else {
            panic!("not create")
        };
        assert_eq!(
            Value::Object(c.to_arguments(None).to_map()),
            json!({"title": "T", "description": "", "priority": "urgent"})
        );
    }

    #[test]
    fn one_type_is_sent_as_type_and_several_as_types() {
        let Command::Stats(s) = parse(&["stats", "--type", "idea", "--assignee", "ann"]) else { panic!("not stats") };
        assert_eq!(
            Value::Object(s.to_arguments(StatsGroupBy::Priority).to_map()),
            json!({"groupBy": "priority", "type": "idea", "assignee": "ann"})
        );
        let Command::List(list) = parse(&["list", "--json", "--type", "issue,idea", "--page", "3", "--limit", "5"])
        else {
            panic!("not list")
        };
        assert_eq!(
            Value::Object(list.to_arguments(None).to_map()),
            json!({"types": ["issue", "idea"], "fields": TABLE_FIELDS, "limit": 5, "offset": 10})
        );
    }
}
