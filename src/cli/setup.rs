//! `docket setup CLIENT`: registers docket's MCP server in a client's configuration file, changing
//! only docket's entry. Every other server and every other byte of the file stays as it was:
//! JSON is edited in place (only the entry's span, or one member inserted), TOML through
//! `toml_edit`, which keeps comments and formatting. A file that does not parse (JSON with
//! comments included) is refused with where it stopped; nothing is written then.
//!
//! The entry runs `docket serve` in the project folder: the clients that start servers from
//! elsewhere get `${workspaceFolder}`, never a machine path, so the project files can be
//! committed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::args::{Client, SetupArgs};

impl Client {
    fn label(self) -> &'static str {
        match self {
            Client::Claude => "Claude Code",
            Client::Codex => "Codex",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
        }
    }

    /// The file this client reads, for the project in `project`.
    fn file(self, project: &Path) -> Result<PathBuf, String> {
        Ok(match self {
            Client::Claude => project.join(".mcp.json"),
            Client::Cursor => project.join(".cursor").join("mcp.json"),
            Client::Vscode => project.join(".vscode").join("mcp.json"),
            Client::Codex => codex_home()?.join("config.toml"),
        })
    }

    /// The key of the object holding the servers (JSON clients).
    fn servers_key(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            _ => "mcpServers",
        }
    }

    /// docket's entry for a JSON client.
    fn json_entry(self) -> Value {
        match self {
            // Claude Code starts a project's servers in the project folder.
            Client::Claude => json!({ "command": "docket", "args": ["serve"] }),
            Client::Cursor => json!({ "command": "docket", "args": ["serve", "--workspace", "${workspaceFolder}"] }),
            Client::Vscode => json!({
                "type": "stdio",
                "command": "docket",
                "args": ["serve", "--workspace", "${workspaceFolder}"]
            }),
            Client::Codex => json!({ "command": "docket", "args": ["serve"] }),
        }
    }

    /// What to do after the file changed.
    fn next_step(self) -> &'static str {
        match self {
            Client::Claude => {
                "Start `claude` in the project (it asks once to trust .mcp.json); `claude mcp list` shows docket."
            }
            Client::Codex => {
                "Run `codex` in the project (its servers start in the folder codex runs in); `codex mcp list` shows docket."
            }
            Client::Cursor => "Reload Cursor; docket appears under Settings > MCP.",
            Client::Vscode => "Reload VS Code; docket appears in the MCP servers list (Copilot agent mode).",
        }
    }
}

fn codex_home() -> Result<PathBuf, String> {
    if let Some(home) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".codex"))
        .ok_or_else(|| "neither CODEX_HOME nor HOME is set, so Codex's config.toml cannot be found; set CODEX_HOME to the folder holding it.".to_string())
}

/// What setup found or did.
#[derive(Debug, PartialEq, Eq)]
enum Change {
    Unchanged,
    Added,
    Updated,
}

/// Runs `docket setup`: the text to print, and whether the entry is (now) as it should be.
pub(super) fn run(a: &SetupArgs) -> Result<(String, bool), String> {
    let name = a.name.trim();
    if name.is_empty() || name.chars().any(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')) {
        return Err(format!(
            "--name {:?} is not a server name; use letters, digits, - and _ (e.g. --name docket or --name wrangler).",
            a.name
        ));
    }
    let project = match &a.project {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?,
    };
    if a.client != Client::Codex && !project.is_dir() {
        return Err(format!("the project folder {} does not exist; pass --project DIR.", project.display()));
    }
    let path = a.client.file(&project)?;
    let old = match std::fs::read(&path) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            format!(
                "{} is not UTF-8 text; nothing was written. Fix or move it, then run `docket setup` again.",
                path.display()
            )
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let refused = |why: String| {
        format!(
            "{} cannot be edited safely: {why}. Nothing was written; fix the file (or add docket's entry by hand), then run `docket setup {}` again.",
            path.display(),
            clap::ValueEnum::to_possible_value(&a.client).map(|v| v.get_name().to_string()).unwrap_or_default()
        )
    };
    let (new, change) = match a.client {
        Client::Codex => toml_entry(old.as_deref(), name).map_err(refused)?,
        client => json_entry(old.as_deref(), client.servers_key(), name, &client.json_entry()).map_err(refused)?,
    };
    let shown = path.display();
    let client = a.client.label();
    if change == Change::Unchanged {
        return Ok((format!("{shown} already has {name} for {client}; nothing to change.\n"), true));
    }
    let verb = if change == Change::Added { "add" } else { "update" };
    if a.check {
        return Ok((format!("{shown}: would {verb} {name} for {client} (run without --check to write it).\n"), false));
    }
    let anchor = match a.client {
        Client::Codex => path.parent().map(Path::to_path_buf).unwrap_or_else(|| project.clone()),
        _ => project.clone(),
    };
    let done = if change == Change::Added { "Added" } else { "Updated" };
    let mut how = String::new();
    if a.client == Client::Claude {
        match claude_on_path() {
            Some(claude) => match through_claude(&claude, &project, &path, old.as_deref(), name) {
                Ok(()) => {
                    return Ok((
                        format!(
                            "{done} {name} in {shown} for {client} through `claude mcp add --scope project {name} -- docket serve` (checked: the entry runs `docket serve`).\n{}\n",
                            a.client.next_step()
                        ),
                        true,
                    ));
                }
                Err(why) => how = format!(" directly, as {why}"),
            },
            None => how = " directly (`claude` is not on PATH)".to_string(),
        }
    }
    write_atomic(&anchor, &path, &new)?;
    Ok((format!("{done} {name} in {shown} for {client}{how}: `docket serve`.\n{}\n", a.client.next_step()), true))
}

/// How long `claude mcp add` may take before it is stopped (with its process group) and the
/// file is written directly instead.
const CLAUDE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// The `claude` executable on PATH, if there is one.
fn claude_on_path() -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("claude"))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// Registers `name` with `claude mcp add --scope project NAME -- docket serve` (an argument
/// vector, no shell) run in `project` within [`CLAUDE_DEADLINE`], then checks `.mcp.json` at
/// `path`: it must be JSON whose `mcpServers.NAME` runs `docket serve`. Every other byte of the
/// file as it was (`old`) is kept: if claude rewrote the rest (its own formatting), the old file
/// with only that entry set is written back. When it fails or the check does not hold, the file
/// is put back as it was and the reason returned (the caller then writes the file itself).
fn through_claude(claude: &Path, project: &Path, path: &Path, old: Option<&str>, name: &str) -> Result<(), String> {
    use crate::store::git::remote::{Ran, run_until};
    let mut cmd = std::process::Command::new(claude);
    cmd.args(["mcp", "add", "--scope", "project", name, "--", "docket", "serve"]).current_dir(project);
    let ran = run_until(&mut cmd, std::time::Instant::now() + CLAUDE_DEADLINE);
    let checked = match ran {
        Ok(Ran::Done(out)) if out.status.success() => check_claude(path, old, name),
        Ok(Ran::Done(out)) => {
            let said = [&out.stderr, &out.stdout]
                .iter()
                .map(|b| String::from_utf8_lossy(b).trim().lines().next().unwrap_or("").to_string())
                .find(|l| !l.is_empty())
                .unwrap_or_else(|| "no message".to_string());
            Err(format!("`claude mcp add` failed ({}: {said})", out.status))
        }
        Ok(Ran::TimedOut) => {
            Err(format!("`claude mcp add` did not finish within {} s and was stopped", CLAUDE_DEADLINE.as_secs()))
        }
        Err(e) => Err(format!("`claude` could not be run ({e})")),
    };
    let kept = match checked {
        Ok(kept) => kept,
        Err(why) => {
            put_back(project, path, old)?;
            return Err(why);
        }
    };
    if let Some(kept) = kept {
        write_atomic(project, path, &kept)?;
    }
    Ok(())
}

/// What `claude mcp add` left in `path`, checked: `Ok(None)` when it is as it should stay,
/// `Ok(Some(text))` when the entry is right but other bytes of `old` changed (the text to write
/// back: `old` with only the entry set), or why it is not right.
fn check_claude(path: &Path, old: Option<&str>, name: &str) -> Result<Option<String>, String> {
    let after = std::fs::read_to_string(path)
        .map_err(|e| format!("`claude mcp add` succeeded but {} cannot be read ({e})", path.display()))?;
    let parsed: Value = serde_json::from_str(&after)
        .map_err(|e| format!("`claude mcp add` left {} that is not JSON ({e})", path.display()))?;
    let entry = parsed
        .get("mcpServers")
        .and_then(|s| s.get(name))
        .ok_or_else(|| format!("`claude mcp add` succeeded but {} has no mcpServers.{name}", path.display()))?;
    if plain(entry) != Client::Claude.json_entry() {
        return Err(format!("`claude mcp add` wrote mcpServers.{name} as {entry}, not `docket serve`"));
    }
    let Some(old) = old.filter(|t| !t.trim().is_empty()) else { return Ok(None) };
    let (kept, _) = json_entry(Some(old), "mcpServers", name, entry)?;
    Ok((kept != after).then_some(kept))
}

/// `path` as it was before: `old`, or no file.
fn put_back(project: &Path, path: &Path, old: Option<&str>) -> Result<(), String> {
    let now = std::fs::read(path).ok();
    match old {
        Some(text) if now.as_deref() != Some(text.as_bytes()) => write_atomic(project, path, text),
        None if now.is_some() => crate::store::fs::Root::open_or_create(project)
            .and_then(|root| root.remove_file(path))
            .map_err(|e| format!("cannot remove the {} `claude mcp add` left: {e}", path.display())),
        _ => Ok(()),
    }
}

/// Writes `text` to `path` atomically through the rooted layer anchored at `anchor` (the project
/// folder, or Codex's home, created if missing): a link where the file or a folder should be is
/// refused, never followed.
fn write_atomic(anchor: &Path, path: &Path, text: &str) -> Result<(), String> {
    let root = crate::store::fs::Root::open_or_create(anchor).map_err(|e| e.to_string())?;
    if let Some(parent) = path.parent() {
        root.create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    root.write_atomic(path, text.as_bytes(), None).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Codex's config.toml with `[mcp_servers.NAME]` set to `docket serve`; other keys of that
/// table (env, timeouts) are kept.
fn toml_entry(old: Option<&str>, name: &str) -> Result<(String, Change), String> {
    use toml_edit::{Array, DocumentMut, Item, Table, value};
    let mut doc: DocumentMut = old.unwrap_or("").parse().map_err(|e: toml_edit::TomlError| {
        let at = e.span().map(|s| line_col(old.unwrap_or(""), s.start)).unwrap_or_default();
        format!("it is not valid TOML{at}: {}", e.message())
    })?;
    let servers = doc.entry("mcp_servers").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let servers = servers.as_table_like_mut().ok_or_else(|| "`mcp_servers` is not a table".to_string())?;
    let args: Array = ["serve"].into_iter().collect();
    let change = match servers.get_mut(name) {
        None => {
            let mut t = Table::new();
            t["command"] = value("docket");
            t["args"] = value(args);
            servers.insert(name, Item::Table(t));
            Change::Added
        }
        Some(item) => {
            let entry = item.as_table_like_mut().ok_or_else(|| format!("`mcp_servers.{name}` is not a table"))?;
            let same_command = entry.get("command").and_then(Item::as_str) == Some("docket");
            let same_args = entry
                .get("args")
                .and_then(Item::as_array)
                .is_some_and(|a| a.iter().map(|v| v.as_str()).eq([Some("serve")]));
            if same_command && same_args {
                Change::Unchanged
            } else {
                if !same_command {
                    entry.insert("command", value("docket"));
                }
                if !same_args {
                    entry.insert("args", value(args));
                }
                Change::Updated
            }
        }
    };
    Ok((doc.to_string(), change))
}

/// ` at line L, column C` of byte `at` in `text`.
fn line_col(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(" at line {line}, column {column}")
}

/// A JSON client's file with `KEY.NAME` set to `entry`, edited in place: only that member's value
/// is replaced (or one member inserted); every other byte is kept.
fn json_entry(old: Option<&str>, key: &str, name: &str, entry: &Value) -> Result<(String, Change), String> {
    let Some(text) = old.filter(|t| !t.trim().is_empty()) else {
        let file = json!({ key: { name: entry } });
        return Ok((pretty(&file, "") + "\n", Change::Added));
    };
    let parsed: Value = serde_json::from_str(text).map_err(|e| {
        let comment = if text.contains("//") || text.contains("/*") {
            " (comments and trailing commas are not JSON)"
        } else {
            ""
        };
        format!("it is not plain JSON{comment}: {e}")
    })?;
    if !parsed.is_object() {
        return Err("its top level is not a JSON object".to_string());
    }
    let scan = Scan { s: text.as_bytes() };
    let top = scan.ws(0);
    let (members, close) = scan.members(top)?;
    // One level of the file's indentation (that of its top-level members), two spaces if none.
    let step = member_indent(text, &members).filter(|i| !i.is_empty()).unwrap_or_else(|| "  ".to_string());
    let Some(servers) = unique(&members, key)? else {
        // No servers object yet: a member of the top-level object, after the last one.
        let indent = member_indent(text, &members).unwrap_or_else(|| step.clone());
        let value = pretty_by(&json!({ name: entry }), &indent, &step);
        let member = format!("{}: {value}", json!(key));
        return Ok((insert_member(text, &members, top, close, &indent, &member), Change::Added));
    };
    if !text[servers.value.0..].starts_with('{') {
        return Err(format!("`{key}` is not a JSON object"));
    }
    let (inner, inner_close) = scan.members(servers.value.0)?;
    match unique(&inner, name)? {
        Some(m) => {
            let current: Value =
                serde_json::from_str(&text[m.value.0..m.value.1]).map_err(|e| format!("`{key}.{name}`: {e}"))?;
            if plain(&current) == plain(entry) {
                return Ok((text.to_string(), Change::Unchanged));
            }
            let indent = line_indent(text, m.key);
            let value = pretty_by(entry, &indent, &step);
            Ok((format!("{}{value}{}", &text[..m.value.0], &text[m.value.1..]), Change::Updated))
        }
        None => {
            let outer = line_indent(text, servers.key);
            let indent = member_indent(text, &inner).unwrap_or_else(|| format!("{outer}{step}"));
            let member = format!("{}: {}", json!(name), pretty_by(entry, &indent, &step));
            Ok((insert_member(text, &inner, servers.value.0, inner_close, &indent, &member), Change::Added))
        }
    }
}

/// A server entry without what says nothing: `"type": "stdio"` (the default where it is optional)
/// and an empty `env`, as `claude mcp add` writes them.
fn plain(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Some(map) = entry.as_object_mut() {
        if map.get("type").and_then(Value::as_str) == Some("stdio") {
            map.remove("type");
        }
        if map.get("env").and_then(Value::as_object).is_some_and(|e| e.is_empty()) {
            map.remove("env");
        }
    }
    entry
}

/// `member` added to the object opening at `open` and closing at `close`: after its last member
/// (with a comma), or as its only one.
fn insert_member(text: &str, members: &[Member], open: usize, close: usize, indent: &str, member: &str) -> String {
    match members.last() {
        Some(last) => {
            // On a line of its own when the members are, else on the same line.
            let sep = match member_indent(text, members) {
                Some(_) => format!(",\n{indent}"),
                None => ", ".to_string(),
            };
            let at = last.value.1;
            format!("{}{sep}{member}{}", &text[..at], &text[at..])
        }
        None => {
            let closing = line_indent(text, open);
            format!("{}\n{indent}{member}\n{closing}{}", &text[..=open], &text[close..])
        }
    }
}

/// `value` as pretty JSON whose lines after the first start with `indent`, each level indented
/// by `step`.
fn pretty_by(value: &Value, indent: &str, step: &str) -> String {
    use serde::Serialize as _;
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(step.as_bytes()),
    );
    let text = match value.serialize(&mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| value.to_string()),
        Err(_) => value.to_string(),
    };
    text.replace('\n', &format!("\n{indent}"))
}

/// [`pretty_by`] with two spaces a level (a new file).
fn pretty(value: &Value, indent: &str) -> String {
    pretty_by(value, indent, "  ")
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// The indent of an object's members, when the first one starts a line.
fn member_indent(text: &str, members: &[Member]) -> Option<String> {
    let first = members.first()?;
    let start = text[..first.key].rfind('\n')? + 1;
    let lead = &text[start..first.key];
    lead.chars().all(|c| c == ' ' || c == '\t').then(|| lead.to_string())
}

/// The member named `key`, refusing an object that names it twice.
fn unique<'m>(members: &'m [Member], key: &str) -> Result<Option<&'m Member>, String> {
    let mut found = members.iter().filter(|m| m.name == key);
    let first = found.next();
    match found.next() {
        Some(_) => Err(format!("it names `{key}` twice")),
        None => Ok(first),
    }
}

/// A member of a JSON object: its decoded name, where its key starts, and its value's span.
struct Member {
    name: String,
    key: usize,
    value: (usize, usize),
}

/// Spans of JSON text already checked by serde_json.
struct Scan<'a> {
    s: &'a [u8],
}

impl Scan<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while i < self.s.len() && matches!(self.s[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    }

    fn broken(&self, i: usize) -> String {
        format!("unexpected JSON{}", line_col(std::str::from_utf8(self.s).unwrap_or(""), i))
    }

    /// The end (exclusive) of the string starting at `i` (a `"`).
    fn string_end(&self, mut i: usize) -> Result<usize, String> {
        i += 1;
        while i < self.s.len() {
            match self.s[i] {
                b'\\' => i += 2,
                b'"' => return Ok(i + 1),
                _ => i += 1,
            }
        }
        Err(self.broken(i))
    }

    /// The end (exclusive) of the value starting at `i`.
    fn value_end(&self, i: usize) -> Result<usize, String> {
        match self.s.get(i) {
            Some(b'"') => self.string_end(i),
            Some(b'{') | Some(b'[') => {
                let mut depth = 0usize;
                let mut j = i;
                while j < self.s.len() {
                    match self.s[j] {
                        b'"' => {
                            j = self.string_end(j)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(j + 1);
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                Err(self.broken(j))
            }
            Some(_) => {
                let mut j = i;
                while j < self.s.len() && !matches!(self.s[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    j += 1;
                }
                Ok(j)
            }
            None => Err(self.broken(i)),
        }
    }

    /// The members of the object opening at `open`, and where its `}` is.
    fn members(&self, open: usize) -> Result<(Vec<Member>, usize), String> {
        if self.s.get(open) != Some(&b'{') {
            return Err(self.broken(open));
        }
        let mut out = Vec::new();
        let mut i = self.ws(open + 1);
        loop {
            match self.s.get(i) {
                Some(b'}') => return Ok((out, i)),
                Some(b'"') => {
                    let key_end = self.string_end(i)?;
                    let raw = std::str::from_utf8(&self.s[i..key_end]).map_err(|_| self.broken(i))?;
                    let name: String = serde_json::from_str(raw).map_err(|_| self.broken(i))?;
                    let colon = self.ws(key_end);
                    if self.s.get(colon) != Some(&b':') {
                        return Err(self.broken(colon));
                    }
                    let start = self.ws(colon + 1);
                    let end = self.value_end(start)?;
                    out.push(Member { name, key: i, value: (start, end) });
                    i = self.ws(end);
                    if self.s.get(i) == Some(&b',') {
                        i = self.ws(i + 1);
                    }
                }
                _ => return Err(self.broken(i)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Value {
        Client::Claude.json_entry()
    }

    #[test]
    fn an_object_on_one_line_gets_its_member_on_that_line() {
        let (out, change) =
            json_entry(Some(r#"{"mcpServers": {"a": {"command": "x"}}}"#), "mcpServers", "docket", &entry()).unwrap();
        assert_eq!(change, Change::Added);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mcpServers"]["docket"], entry());
        assert!(out.starts_with(r#"{"mcpServers": {"a": {"command": "x"}, "docket": "#), "{out}");
    }

    #[test]
    fn an_empty_servers_object_gets_docket_indented_under_it() {
        let (out, _) = json_entry(Some("{\n  \"mcpServers\": {}\n}\n"), "mcpServers", "docket", &entry()).unwrap();
        assert_eq!(
            out,
            "{\n  \"mcpServers\": {\n    \"docket\": {\n      \"command\": \"docket\",\n      \"args\": [\n        \"serve\"\n      ]\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn a_file_without_servers_gets_the_key_after_its_members() {
        let (out, _) = json_entry(Some("{\n  \"x\": 1\n}"), "servers", "docket", &entry()).unwrap();
        assert!(out.starts_with("{\n  \"x\": 1,\n  \"servers\": {\n    \"docket\": {"), "{out}");
        assert!(out.ends_with("\n}"), "{out}");
    }
}
