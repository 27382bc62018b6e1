//! The human command line over the same core as the MCP server: every command turns its flags
//! into a tool's typed arguments ([`crate::generated::arguments`], so a parameter renamed in
//! tools.yaml is a compile error here), runs them as JSON through [`crate::generated::dispatch`]
//! with the handlers of [`App::open`] (the argument rules every client meets), and renders the
//! structured result as text (or prints it as JSON).
//! No store access and no business rules here: validation, defaults and errors are the tools'.
//! (One read: the interactive board asks the store whether anything changed, its generation,
//! to know when to list the cards again.)

mod again;
mod args;
mod board;
mod commands;
mod daily;
mod edit;
mod graph;
mod hook;
mod human;
mod listing;
mod prime;
mod setup;
mod style;
mod table;
mod team;
mod tui;
mod words;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::Value;

pub use args::Command;
use args::WorkspaceArg;
pub use team::setup_lines;

use crate::app::App;
use crate::codes;
use crate::generated::IssuesUpdateOutput;
use crate::generated::ListFormat;
use crate::generated::arguments::{IssuesListInput, IssuesUpdateInput, ToolArguments};
use crate::runtime::{Reply, WarningCode};

/// Runs one command: its output on stdout, `docket: <message>` on stderr when it fails.
/// Exit code 0 on success, 1 on any failure (a tool error, a missing workspace, unreadable input).
/// `top` builds the whole command line (for `docket completions`).
pub fn run(command: Command, top: fn() -> clap::Command) -> ExitCode {
    let result = match &command {
        Command::List(a) => Core::open(&a.ws).and_then(|core| commands::list(&core, a)),
        Command::Show(a) => {
            return match Core::open(&a.ws).and_then(|core| commands::show(&core, a)) {
                // A long issue goes through the pager in a terminal, as `git show` does.
                Ok(text) => match human::page(&text) {
                    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                        fail(&format!("cannot write the output: {e}"))
                    }
                    _ => ExitCode::SUCCESS,
                },
                Err(message) => fail(&message),
            };
        }
        Command::Create(a) => Core::open(&a.ws).and_then(|core| commands::create(&core, a)),
        Command::Update(a) => Core::open(&a.ws).and_then(|core| commands::update(&core, a)),
        Command::Board(a) if a.interactive => Core::open(&a.ws).and_then(|core| tui::run(&core, a)),
        Command::Board(a) => Core::open(&a.ws).and_then(|core| commands::board(&core, a)),
        Command::Stats(a) => Core::open(&a.ws).and_then(|core| commands::stats(&core, a)),
        Command::GitSetup(a) => team::git_setup(a),
        Command::Import(a) => import(a),
        Command::Prime(a) => prime::run(a),
        Command::Setup(a) => {
            return match setup::run(a) {
                Ok((text, ok)) => match (print(&text), ok) {
                    (ExitCode::SUCCESS, false) => ExitCode::FAILURE,
                    (code, _) => code,
                },
                Err(message) => fail(&message),
            };
        }
        Command::Doctor(a) => {
            return match team::doctor(a) {
                Ok((text, verdict)) => match print(&text) {
                    ExitCode::SUCCESS => ExitCode::from(verdict.exit_code()),
                    code => code,
                },
                Err(message) => fail(&message),
            };
        }
        Command::Hook(a) => {
            // A hook never fails the git command that ran it: problems are printed, exit 0.
            match hook::run(a) {
                Ok(lines) => lines.iter().for_each(|l| eprintln!("{l}")),
                Err(message) => eprintln!("docket hook {}: {message}", a.name),
            }
            return ExitCode::SUCCESS;
        }
        Command::MergeFile(a) => {
            return match team::merge_file(a) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(message) => fail(&message),
            };
        }
        Command::Daily(d) => daily::run(d, top),
    };
    match result {
        Ok(text) => print(&text),
        Err(message) => fail(&message),
    }
}

/// `docket import`: the importer writes through the store (no tool does this; see docs/import.md).
fn import(a: &args::ImportArgs) -> Result<String, String> {
    // Like every write: in a linked worktree the main worktree's workspace, and with none yet,
    // the one this first write creates.
    let ws =
        a.ws.resolve_or_pending()
            .map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
    let app = App::load(ws, &[]).map_err(|e| e.to_string())?;
    crate::import::run(&app.store, a.source, &a.path, a.dry_run)
}

fn print(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // `docket list | head` closes the pipe early; that is not a failure.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("docket: cannot write the output: {e}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("docket: {message}");
    ExitCode::FAILURE
}

/// The tool handlers of one workspace and a runtime to call them on.
pub(crate) struct Core {
    runtime: tokio::runtime::Runtime,
    app: App,
    calls: Cell<u64>,
    /// Warnings already printed (a paged command would repeat them).
    warned: RefCell<HashSet<String>>,
    /// Workspace problems seen (DUPLICATE_ID, SKIPPED_FILES): summed up in one line at the end.
    problems: RefCell<BTreeMap<WarningCode, HashSet<String>>>,
    /// Warnings held back instead of printed, while a full-screen board owns the terminal
    /// (stderr would draw over it); it shows them in its own message line.
    held: RefCell<Option<Vec<String>>>,
}

impl Core {
    fn open(ws: &WorkspaceArg) -> Result<Core, String> {
        // No workspace yet: reads say so and find nothing; the first write creates .wrangler/.
        let ws = ws
            .resolve_or_pending()
            .map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the async runtime: {e}"))?;
        let app = App::load_one_shot(ws).map_err(|e| e.to_string())?;
        Ok(Core {
            runtime,
            app,
            calls: Cell::new(0),
            warned: RefCell::default(),
            problems: RefCell::default(),
            held: RefCell::default(),
        })
    }

    /// Calls the tool of `args` the way every front end does ([`crate::call::run`]); a tool error
    /// becomes its message. Warnings go to stderr, except TRUNCATED (about descriptions, which
    /// commands report themselves).
    fn call<A: ToolArguments>(&self, args: &A) -> Result<Reply<Value>, String> {
        self.calls.set(self.calls.get() + 1);
        let tool = A::TOOL;
        let called = self
            .runtime
            .block_on(self.app.call(tool, args.to_map(), format!("cli-{}", self.calls.get())))
            .ok_or_else(|| format!("{tool} is not a docket tool. This is a docket bug; please report it."))?;
        self.answer(called)
    }

    /// issues_update with blockers added and removed by the store as it writes
    /// ([`App::update_editing_blockers`]): one call, read as [`Core::call_as`] reads one.
    fn update_editing_blockers(
        &self,
        args: &IssuesUpdateInput,
        edit: crate::app::BlockerEdit,
    ) -> Result<(IssuesUpdateOutput, Reply<Value>), String> {
        self.calls.set(self.calls.get() + 1);
        let request = format!("cli-{}", self.calls.get());
        let called = self.runtime.block_on(self.app.update_editing_blockers(args.to_map(), edit, request));
        self.typed::<IssuesUpdateInput>(self.answer(called)?)
    }

    /// A call's warnings printed (or held) and its error turned into its message.
    fn answer(&self, called: crate::call::Called) -> Result<Reply<Value>, String> {
        for w in called.warnings.iter().filter(|w| codes::for_a_person(w)) {
            if self.warned.borrow_mut().insert(w.message.clone()) {
                self.warn(&words::in_cli_terms(&w.message));
            }
        }
        let reply = called.result.map_err(|e| words::in_cli_terms(&e.message))?;
        // The MCP summary of workspace problems is replaced by the CLI's own line at the end.
        // DEPRECATED_PARAMETER: `--page` is sent as the tools' old offset on purpose.
        let shown = |w: &&crate::runtime::Warning| {
            ![WarningCode::TRUNCATED, codes::WORKSPACE_PROBLEMS, WarningCode::DEPRECATED_PARAMETER].contains(&w.code)
        };
        for w in reply.warnings.iter().filter(shown) {
            if let Some(kind) = WORKSPACE_PROBLEMS.iter().find(|k| **k == w.code) {
                // Counted by the id a warning is about (its first word): a read and a list word
                // the warning for one duplicated id differently.
                let key = match *kind {
                    codes::DUPLICATE_ID => w.message.split_whitespace().next().unwrap_or_default().to_uppercase(),
                    _ => w.message.clone(),
                };
                self.problems.borrow_mut().entry(*kind).or_default().insert(key);
            } else if self.warned.borrow_mut().insert(w.message.clone()) {
                self.warn(&words::in_cli_terms(&w.message));
            }
        }
        Ok(reply)
    }

    /// `docket: warning: MESSAGE` on stderr, or held while [`Core::hold_warnings`] is on.
    /// How many markdown files without frontmatter (a README, notes) the issue folders hold.
    pub(super) fn plain_files(&self) -> usize {
        self.app.store.plain_files().unwrap_or(0)
    }

    /// The files without frontmatter among `ids`: (id, title, path from the repository root).
    /// None when the folders hold none (the usual case: nothing is read).
    pub(super) fn plain_among(&self, ids: &[(String, String)]) -> Vec<(String, String)> {
        use crate::store::{IssueFilter, SortField, SortOrder};
        if self.plain_files() == 0 || ids.is_empty() {
            return Vec::new();
        }
        let store = &self.app.store;
        let Ok(all) = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc) else { return Vec::new() };
        let root = &store.workspace().root;
        all.value
            .iter()
            .filter(|m| !m.frontmatter && ids.iter().any(|(id, title)| *id == m.id && *title == m.title))
            .map(|m| (m.id.clone(), m.path.strip_prefix(root).unwrap_or(&m.path).display().to_string()))
            .collect()
    }

    fn warn(&self, message: &str) {
        match self.held.borrow_mut().as_mut() {
            Some(held) => held.push(message.to_string()),
            None => eprintln!("docket: warning: {message}"),
        }
    }

    /// From now on, warnings are held for [`Core::take_warnings`] instead of printed.
    fn hold_warnings(&self) {
        self.held.borrow_mut().get_or_insert_with(Vec::new);
    }

    /// The warnings held since the last take.
    fn take_warnings(&self) -> Vec<String> {
        self.held.borrow_mut().as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// [`Core::call`], with the structured result read as the tool's generated output type.
    fn call_as<A: ToolArguments>(&self, args: &A) -> Result<(A::Output, Reply<Value>), String> {
        self.typed::<A>(self.call(args)?)
    }

    /// `reply`'s structured result read as `A`'s generated output type.
    fn typed<A: ToolArguments>(&self, reply: Reply<Value>) -> Result<(A::Output, Reply<Value>), String> {
        let data = serde_json::from_value(reply.data.clone()).map_err(|e| {
            let tool = A::TOOL;
            format!("{tool} returned an unexpected result ({e}). This is a docket bug; please report it.")
        })?;
        Ok((data, reply))
    }
}

/// The DUPLICATE_ID warning of a read of one issue: which of the files holding the id it shows
/// and which others hold it, in a person's words (`None` when the id is held once).
fn duplicate_note(reply: &Reply<Value>, id: &str) -> Option<String> {
    reply
        .warnings
        .iter()
        .filter(|w| codes::DUPLICATE_ID == w.code)
        .find(|w| w.message.split_whitespace().next().is_some_and(|first| first.eq_ignore_ascii_case(id)))
        .map(|w| words::in_cli_terms(&w.message))
}

/// Warnings about the workspace's files, which `docket doctor` lists in full.
const WORKSPACE_PROBLEMS: [WarningCode; 2] = [codes::DUPLICATE_ID, codes::SKIPPED_FILES];

impl Drop for Core {
    /// One line for every workspace problem the command met, instead of one warning each.
    fn drop(&mut self) {
        // A command that read one issue met only that issue's problems, and named its ID as it
        // was asked for (`ISS-000001` for a file whose id is `000001`): the count is the
        // workspace's, taken from a one-row list, which reports every problem, so `show` and
        // `list` (and `docket doctor`) give the same number.
        if !self.problems.borrow().is_empty() {
            let met = self.problems.take();
            let one = IssuesListInput {
                limit: Some(1),
                format: Some(ListFormat::Minimal.to_string()),
                ..IssuesListInput::default()
            };
            if self.call(&one).is_err() {
                *self.problems.borrow_mut() = met;
            }
        }
        let problems = self.problems.borrow();
        let mut parts = Vec::new();
        if let Some(dups) = problems.get(&codes::DUPLICATE_ID) {
            parts.push(format!("{} duplicate id(s)", dups.len()));
        }
        if let Some(skipped) = problems.get(&codes::SKIPPED_FILES) {
            // The message starts with the number of files it lists.
            let files: usize =
                skipped.iter().filter_map(|m| m.split_whitespace().next()?.parse::<usize>().ok()).max().unwrap_or(1);
            parts.push(format!("{files} file(s) with broken frontmatter"));
        }
        if !parts.is_empty() {
            eprintln!(
                "docket: warning: this workspace has {}; run `docket doctor` for the list (`docket doctor --fix` repairs what is safe).",
                parts.join(" and ")
            );
        }
        // The process ends with the command: its index is saved for the next one when it drifted
        // from the last snapshot by many files, then left to the exit rather than freed record
        // by record (at 10,000 issues that took longer than the command's own work, before its
        // output was shown).
        self.app.store.finish();
        std::mem::forget(Arc::clone(&self.app.store));
    }
}

/// Pretty JSON, one trailing newline.
fn json_text(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string()) + "\n"
}
