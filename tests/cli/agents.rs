//! Where agents meet docket: `docket prime` (the session primer, within its token budget and
//! writing nothing), `docket setup CLIENT` (one entry changed, every other byte kept), and the
//! skill shipped to the plugin and over MCP (one source, docs/skill/SKILL.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use docket::store::generate::generate_workspace;
use serde_json::Value;

use crate::common::docket;

fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

/// Every file and folder under `root` with its size and modification time.
fn tree(root: &Path) -> BTreeMap<PathBuf, (u64, Option<SystemTime>)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            if meta.is_dir() {
                todo.push(path.clone());
            }
            out.insert(path, (meta.len(), meta.modified().ok()));
        }
    }
    out
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "docket failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

/// Claims `n` ready issues of `root` for `agent` through the CLI.
fn claim_some(root: &Path, agent: &str, n: usize) -> Vec<String> {
    let ready: Value = serde_json::from_str(&stdout(&docket(root, &["ready", "--json", "--limit", "20"]))).unwrap();
    let ids: Vec<String> =
        ready["issues"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    let mut taken = Vec::new();
    for id in ids.iter().take(n) {
        stdout(&docket(root, &["claim", id, "--as", agent]));
        taken.push(id.clone());
    }
    taken
}

/// The primer of a workspace: within budget, naming the workspace, the agent's claims, ready
/// work and the loop; and the disk exactly as it was.
fn check_primer(root: &Path, agent: &str, held: &[String]) -> String {
    let before = tree(root);
    let text = stdout(&docket(root, &["prime", "--as", agent]));
    assert_eq!(tree(root), before, "docket prime changed files under {}", root.display());
    let tokens = o200k(text.trim_end());
    eprintln!("docket prime: {tokens} tokens (o200k_base) on {}:\n{text}", root.display());
    assert!(tokens <= 150, "the primer takes {tokens} tokens, over 150:\n{text}");
    assert!(text.contains(".docket"), "names the workspace: {text}");
    let line = text.lines().find(|l| l.starts_with(&format!("You ({agent}) hold: "))).expect("a line of claims");
    let named = held.iter().filter(|id| line.contains(id.as_str())).count();
    assert!(named >= 1, "names the agent's claims {held:?}: {text}");
    let more = if named < held.len() { format!(" (+{} more)", held.len() - named) } else { String::new() };
    assert!(line.ends_with(&more), "counts the claims it leaves out: {line}");
    assert!(text.contains("Ready: "), "names ready work: {text}");
    assert!(text.contains("Loop: issues_ready"), "carries the loop: {text}");
    assert!(text.contains(docket::agents::loop_line()), "the loop is the skill's: {text}");
    text
}

#[test]
fn prime_fits_150_tokens_on_the_demo_workspace_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // What `docket serve --demo` serves, inside git: claims have records and leases.
    crate::common::git(dir.path(), &["init", "-q", "-b", "main"]);
    let ws = generate_workspace(dir.path(), 40, 7);
    let held = claim_some(dir.path(), "agent-7", 1);
    let text = check_primer(dir.path(), "agent-7", &held);
    assert!(hold_line(&text, "agent-7").contains(" min left)"), "says when the claim's lease ends: {text}");
    let counts = stdout(&docket(dir.path(), &["stats", "--json"]));
    let total = serde_json::from_str::<Value>(&counts).unwrap()["status"]["total"].as_u64().unwrap();
    assert!(text.contains(&format!(": {total} issues (")), "counts every issue ({total}): {text}");
    assert!(ws.dir.is_dir());
    // Without a name it says nothing of claims; the hook JSON carries the same text.
    let plain = stdout(&docket(dir.path(), &["prime"]));
    assert!(!plain.contains("hold"), "{plain}");
    let hook: Value = serde_json::from_str(&stdout(&docket(dir.path(), &["prime", "--hook-json"]))).unwrap();
    assert_eq!(hook["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert_eq!(hook["hookSpecificOutput"]["additionalContext"].as_str().unwrap(), plain.trim_end());
}

#[test]
fn prime_fits_150_tokens_on_ten_thousand_issues() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::git(dir.path(), &["init", "-q", "-b", "main"]);
    generate_workspace(dir.path(), 10_000, 3);
    let held = claim_some(dir.path(), "a-long-agent-name-for-the-budget", 5);
    let text = check_primer(dir.path(), "a-long-agent-name-for-the-budget", &held);
    let line = hold_line(&text, "a-long-agent-name-for-the-budget");
    assert!(line.contains(" min left)"), "says when each named claim's lease ends: {line}");
    assert!(text.contains("10000 issues"), "{text}");
}

/// `docket ARGS --workspace ROOT` with `env` set.
fn docket_env(root: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.args(args);
    crate::common::in_workspace(&mut cmd, root);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("docket runs")
}

/// The primer's line of `agent`'s claims.
fn hold_line(text: &str, agent: &str) -> String {
    let start = format!("You ({agent}) hold: ");
    text.lines().find(|l| l.starts_with(&start)).unwrap_or_else(|| panic!("a line of claims: {text}")).to_string()
}

/// Rewrites the claim record of `id` (its ref in the common git directory) with `edit`, as
/// another worktree's docket would: a new blob, the ref moved to it.
fn rewrite_claim(root: &Path, id: &str, edit: impl Fn(&str) -> String) {
    let name = format!("refs/docket/claims/{id}");
    let text = crate::common::git(root, &["cat-file", "blob", &name]);
    let file = root.join(".git/claim-rewrite");
    std::fs::write(&file, edit(&text)).unwrap();
    let oid = crate::common::git(root, &["hash-object", "-w", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    crate::common::git(root, &["update-ref", &name, oid.trim()]);
}

/// `text` with its `lease ...` line saying `lease`.
fn with_lease(text: &str, lease: &str) -> String {
    text.lines().map(|l| if l.starts_with("lease ") { format!("lease {lease}\n") } else { format!("{l}\n") }).collect()
}

fn rfc3339(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Inside git the primer says when each of the agent's claims' lease ends, from the claim
/// records: live, lapsed, taken by someone else, or held in a record the files here do not show
/// (another worktree's); and it writes nothing, not even under .git.
#[test]
fn prime_gives_each_claims_lease_from_the_claim_records() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::common::git(root, &["init", "-q", "-b", "main"]);
    generate_workspace(root, 40, 7);
    let held = claim_some(root, "ann", 1);
    let id = &held[0];
    let text = check_primer(root, "ann", &held);
    let line = hold_line(&text, "ann");
    assert!(line.contains(&format!("{id} [")), "{line}");
    assert!(line.contains(" min left)"), "the lease of a claim just taken (15 minutes): {line}");

    rewrite_claim(root, id, |t| with_lease(t, &rfc3339(chrono::Utc::now() - chrono::Duration::hours(1))));
    let line = hold_line(&check_primer(root, "ann", &held), "ann");
    assert!(line.contains("(lease lapsed 60 min ago: claim it again)"), "{line}");

    rewrite_claim(root, id, |t| t.replace("holder ann\n", "holder bo\n"));
    let line = hold_line(&check_primer(root, "ann", &held), "ann");
    assert!(line.contains("(now held by bo)"), "{line}");

    // A live record of ann's for an issue the files here show open (another worktree's claim).
    let ready: Value = serde_json::from_str(&stdout(&docket(root, &["ready", "--json"]))).unwrap();
    let other = ready["issues"][0]["id"].as_str().unwrap().to_string();
    let end = rfc3339(chrono::Utc::now() + chrono::Duration::minutes(10));
    let record =
        format!("docket claim\nissue {other}\nholder ann\ntaken {}\nlease {end}\n", rfc3339(chrono::Utc::now()));
    let file = root.join(".git/claim-new");
    std::fs::write(&file, record).unwrap();
    let oid = crate::common::git(root, &["hash-object", "-w", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    crate::common::git(root, &["update-ref", &format!("refs/docket/claims/{other}"), oid.trim()]);
    let before = tree(root);
    let text = stdout(&docket(root, &["prime", "--as", "ann"]));
    assert_eq!(tree(root), before, "docket prime changed files");
    assert!(o200k(text.trim_end()) <= 150, "{text}");
    let line = hold_line(&text, "ann");
    assert!(line.contains(&format!("{other} [")) && line.contains(" min left)"), "{line}");
}

/// With a claims remote the primer never asks it (no git process reaches it): before any
/// docket process kept the remote's list the leases are not known here; after one did (a
/// `docket ready`), each lease comes from that list and the records already fetched.
#[test]
fn prime_reads_a_claims_remotes_leases_from_the_last_list_without_asking_it() {
    let dir = tempfile::tempdir().unwrap();
    let (origin, root) = (dir.path().join("origin.git"), dir.path().join("clone"));
    std::fs::create_dir_all(&root).unwrap();
    crate::common::git(dir.path(), &["init", "-q", "--bare", origin.to_str().unwrap()]);
    crate::common::git(&root, &["init", "-q", "-b", "main"]);
    crate::common::git(&root, &["remote", "add", "origin", origin.to_str().unwrap()]);
    generate_workspace(&root, 40, 7);
    let remote = [("DOCKET_CLAIMS_REMOTE", "origin")];
    let ready: Value = serde_json::from_str(&stdout(&docket_env(&root, &["ready", "--json"], &remote))).unwrap();
    let id = ready["issues"][0]["id"].as_str().unwrap().to_string();
    stdout(&docket_env(&root, &["claim", &id, "--as", "ann"], &remote));
    let seen = root.join(".docket/cache/claims-remote-list");
    let _ = std::fs::remove_file(&seen);

    let trace = dir.path().join("git-trace");
    let traced = [("DOCKET_CLAIMS_REMOTE", "origin"), ("GIT_TRACE", trace.to_str().unwrap())];
    let line = hold_line(&stdout(&docket_env(&root, &["prime", "--as", "ann"], &traced)), "ann");
    assert!(line.contains(&format!("{id} [")) && line.contains("(lease not known here)"), "{line}");

    stdout(&docket_env(&root, &["ready"], &remote));
    assert!(seen.is_file(), "docket ready keeps the remote's list in {}", seen.display());
    let before = tree(&root);
    let text = stdout(&docket_env(&root, &["prime", "--as", "ann"], &traced));
    assert_eq!(tree(&root), before, "docket prime changed files");
    let line = hold_line(&text, "ann");
    assert!(line.contains(&format!("{id} [")) && line.contains(" min left)"), "{line}");
    let trace = std::fs::read_to_string(&trace).unwrap_or_default();
    for asks in ["ls-remote", "fetch", "push"] {
        assert!(!trace.contains(&format!("git {asks}")), "prime ran git {asks}:\n{trace}");
    }
}

#[test]
fn prime_in_an_empty_folder_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["prime", "--hook-json"])
        .current_dir(dir.path())
        .env_remove("DOCKET_WORKSPACE")
        .env_remove("WRANGLER_WORKSPACE_ROOT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    let hook: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let text = hook["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(text.contains("no workspace yet") && text.contains("Loop:"), "{text}");
    assert!(o200k(text) <= 150);
    assert!(tree(dir.path()).is_empty(), "prime wrote into an empty folder: {:?}", tree(dir.path()));
}

/// `docket setup ARGS` in `project`, with Codex's home at `codex_home`.
fn setup(project: &Path, codex_home: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_docket"))
        .arg("setup")
        .args(args)
        .current_dir(project)
        .env("CODEX_HOME", codex_home)
        .env("HOME", codex_home.join("no-home"))
        // No `claude` on it: these tests check the file docket writes itself.
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("docket runs")
}

/// `docket setup claude ARGS` in `project` with `PATH` as given and `HOME` at `home`.
fn setup_claude_with_path(project: &Path, home: &Path, path: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["setup", "claude"])
        .args(args)
        .current_dir(project)
        .env("HOME", home)
        .env("PATH", path)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("CLAUDE_CODE_OAUTH_TOKEN")
        .output()
        .expect("docket runs")
}

/// A `.mcp.json` with another server and formatting of its own (tabs, a blank line, odd spaces).
const OTHER_SERVER: &str =
    "{\n\t\"mcpServers\" : {\n\t\t\"other\": {\"command\": \"other-mcp\",   \"args\": [\"--x\"]}\n\n\t}\n}\n";

/// Writes a fake `claude` into `bin` that records its argv (one per line) and folder in
/// `record`, then runs `body` (sh).
fn fake_claude(bin: &Path, record: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(bin).unwrap();
    let script =
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{rec}'\npwd > '{rec}.cwd'\n{body}\n", rec = record.display());
    let path = bin.join("claude");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// With `claude` on PATH, `docket setup claude` goes through `claude mcp add --scope project
/// docket -- docket serve` (an argument vector, in the project folder), checks what it wrote and
/// keeps every other byte of the file (claude's own rewrite of the rest is undone); when claude
/// fails, the file is put back and written directly, saying so; `--check` and an entry already
/// there never run it.
#[test]
fn setup_claude_goes_through_claude_mcp_add_when_it_is_on_path() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home, bin) = (dir.path().join("project"), dir.path().join("home"), dir.path().join("bin"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let (file, record) = (project.join(".mcp.json"), dir.path().join("argv"));
    let path = format!("{}:/usr/bin:/bin", bin.display());
    // A fake claude that does what claude does: rewrites the whole file in its own formatting.
    let rewritten = "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"other-mcp\",\n      \"args\": [\n        \"--x\"\n      ]\n    },\n    \"docket\": {\n      \"type\": \"stdio\",\n      \"command\": \"docket\",\n      \"args\": [\n        \"serve\"\n      ]\n    }\n  }\n}";
    let store = dir.path().join("claude-writes");
    std::fs::write(&store, rewritten).unwrap();
    fake_claude(&bin, &record, &format!("cat '{}' > .mcp.json", store.display()));
    std::fs::write(&file, OTHER_SERVER).unwrap();

    let check = setup_claude_with_path(&project, &home, &path, &["--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(!record.exists(), "--check ran claude");

    let o = setup_claude_with_path(&project, &home, &path, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("through `claude mcp add --scope project docket -- docket serve`"), "{out}");
    let argv = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        argv.lines().collect::<Vec<_>>(),
        ["mcp", "add", "--scope", "project", "docket", "--", "docket", "serve"]
    );
    let cwd = std::fs::read_to_string(dir.path().join("argv.cwd")).unwrap();
    assert_eq!(Path::new(cwd.trim()).canonicalize().unwrap(), project.canonicalize().unwrap());
    let new = std::fs::read_to_string(&file).unwrap();
    let (lost, gained) = difference(OTHER_SERVER, &new);
    assert_eq!(lost, "", "claude's rewrite of the other bytes was kept:\n{new}");
    assert!(gained.contains("\"docket\"") && !gained.contains("other"), "{new}");
    assert_eq!(json(&new)["mcpServers"]["docket"]["command"], "docket");
    assert_eq!(json(&new)["mcpServers"]["other"]["command"], "other-mcp");

    // Set up: a second run changes nothing and does not run claude.
    std::fs::remove_file(&record).unwrap();
    let again = setup_claude_with_path(&project, &home, &path, &[]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to change"));
    assert!(!record.exists(), "claude ran for an entry already there");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), new);

    // A claude that fails after scribbling on the file: put back, then written directly.
    std::fs::write(&file, OTHER_SERVER).unwrap();
    fake_claude(&bin, &record, "echo '{broken' > .mcp.json; echo 'MCP server docket already exists' >&2; exit 1");
    let o = setup_claude_with_path(&project, &home, &path, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("directly, as `claude mcp add` failed") && out.contains("already exists"), "{out}");
    let new = std::fs::read_to_string(&file).unwrap();
    assert_eq!(difference(OTHER_SERVER, &new).0, "", "{new}");
    assert_eq!(json(&new)["mcpServers"]["docket"]["args"][0], "serve");

    // A claude that says it worked but wrote another command: not kept.
    std::fs::remove_file(&file).unwrap();
    fake_claude(&bin, &record, "echo '{\"mcpServers\": {\"docket\": {\"command\": \"sh\"}}}' > .mcp.json");
    let o = setup_claude_with_path(&project, &home, &path, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("directly, as `claude mcp add` wrote mcpServers.docket as"), "{out}");
    assert_eq!(json(&std::fs::read_to_string(&file).unwrap())["mcpServers"]["docket"]["command"], "docket");

    // No claude on PATH: written directly, and it says so.
    std::fs::remove_file(&file).unwrap();
    let o = setup_claude_with_path(&project, &home, "/usr/bin:/bin", &[]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("directly (`claude` is not on PATH)"));
}

/// The real Claude Code (npm `@anthropic-ai/claude-code`, as .ci/agents/run installs it), when
/// `claude` is on PATH: `docket setup claude` registers docket through it, every other byte of
/// the project's .mcp.json kept, and `claude mcp get docket` reads it back.
#[test]
fn setup_claude_through_the_real_claude_code() {
    let Some(claude) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("claude"))
        .find(|p| p.is_file())
    else {
        eprintln!(
            "skipped: `claude` is not on PATH (npm install @anthropic-ai/claude-code@2.1.328, then put its bin on PATH)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (project, home, bin) = (dir.path().join("project"), dir.path().join("home"), dir.path().join("bin"));
    for d in [&project, &home, &bin] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_docket"), bin.join("docket")).unwrap();
    let path = format!("{}:{}:/usr/bin:/bin", bin.display(), claude.parent().unwrap().display());
    let file = project.join(".mcp.json");
    std::fs::write(&file, OTHER_SERVER).unwrap();
    let o = setup_claude_with_path(&project, &home, &path, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("through `claude mcp add"), "{out}");
    let new = std::fs::read_to_string(&file).unwrap();
    assert_eq!(difference(OTHER_SERVER, &new).0, "", "{new}");
    assert_eq!(json(&new)["mcpServers"]["docket"]["command"], "docket");
    let get = std::process::Command::new(&claude)
        .args(["mcp", "get", "docket"])
        .current_dir(&project)
        .env("HOME", &home)
        .env("PATH", &path)
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&get.stdout);
    assert!(
        said.contains("docket serve") || said.contains("Command: docket"),
        "claude mcp get docket: {said}{}",
        String::from_utf8_lossy(&get.stderr)
    );
    let again = setup_claude_with_path(&project, &home, &path, &[]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to change"));
}

/// How `new` differs from `old`: the bytes `old` loses and those `new` gains, between the
/// longest common prefix and suffix.
fn difference<'a>(old: &'a str, new: &'a str) -> (&'a str, &'a str) {
    let prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old.bytes().rev().zip(new.bytes().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix])
}

/// Runs setup twice on a file holding `old`: the first run only adds (or, with `replaced`,
/// changes only that text), the second changes nothing; returns the file after the first.
fn setup_keeps(client: &str, file: &str, old: &str, replaced: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("project"), dir.path().join("codex"));
    let path = if client == "codex" { home.join(file) } else { project.join(file) };
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(&path, old).unwrap();
    let args: Vec<&str> = [client].into_iter().chain(extra.iter().copied()).collect();
    // --check reports and writes nothing.
    let check = setup(&project, &home, &[&args[..], &["--check"]].concat());
    assert_eq!(check.status.code(), Some(1), "--check on a missing entry: {}", String::from_utf8_lossy(&check.stdout));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
    let first = setup(&project, &home, &args);
    assert!(first.status.success(), "setup {args:?}: {}", String::from_utf8_lossy(&first.stderr));
    let new = std::fs::read_to_string(&path).unwrap();
    let (lost, _) = difference(old, &new);
    assert_eq!(lost, replaced, "setup {client} changed more than docket's entry:\n--- before\n{old}\n--- after\n{new}");
    assert!(!new.contains(dir.path().to_str().unwrap()), "a machine path in {file}:\n{new}");
    assert!(!new.contains("target/"), "a build path in {file}:\n{new}");
    let second = setup(&project, &home, &args);
    assert!(second.status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), new, "a second run changed {file}");
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing to change"));
    let check = setup(&project, &home, &[&args[..], &["--check"]].concat());
    assert_eq!(check.status.code(), Some(0), "--check once set up");
    new
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

#[test]
fn setup_claude_adds_its_entry_beside_other_servers_keeping_every_byte() {
    let old = "{\n\t\"mcpServers\": {\n\t\t\"other\": {\"command\": \"x\",   \"args\": [\"a\" ,\"b\"]}\n\t},\n\t\"note\":   \"é ✓\"\n}";
    let new = setup_keeps("claude", ".mcp.json", old, "", &[]);
    let v = json(&new);
    assert_eq!(v["mcpServers"]["docket"], serde_json::json!({ "command": "docket", "args": ["serve"] }));
    assert_eq!(v["mcpServers"]["other"]["args"], serde_json::json!(["a", "b"]));
    assert!(new.contains("\n\t\t\"docket\": {\n\t\t\t\"command\""), "indented as the file is:\n{new}");
    // One line, no servers key yet.
    let new = setup_keeps("claude", ".mcp.json", r#"{"permissions":{"allow":[]}}"#, "", &["--name", "wrangler"]);
    assert_eq!(json(&new)["mcpServers"]["wrangler"]["command"], "docket");
}

#[test]
fn setup_updates_only_the_value_of_a_stale_entry() {
    let old = "{\n  \"mcpServers\": {\n    \"docket\": { \"command\": \"/home/me/docket/target/debug/docket\", \"args\": [\"serve\"] },\n    \"b\": {}\n  }\n}\n";
    let stale = r#"{ "command": "/home/me/docket/target/debug/docket", "args": ["serve"] }"#;
    // What is replaced is at most that value (a shared tail may stay).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".mcp.json"), old).unwrap();
    assert!(setup(dir.path(), dir.path(), &["claude"]).status.success());
    let new = std::fs::read_to_string(dir.path().join(".mcp.json")).unwrap();
    let (lost, _) = difference(old, &new);
    assert!(stale.contains(lost) && !lost.is_empty(), "lost {lost:?}:\n{new}");
    assert_eq!(json(&new)["mcpServers"]["docket"]["command"], "docket");
    assert_eq!(json(&new)["mcpServers"]["b"], serde_json::json!({}));
}

#[test]
fn setup_cursor_and_vscode_use_the_workspace_folder() {
    let new = setup_keeps("cursor", ".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n", "", &[]);
    assert_eq!(
        json(&new)["mcpServers"]["docket"]["args"],
        serde_json::json!(["serve", "--workspace", "${workspaceFolder}"])
    );
    let old = "{\n    \"inputs\": [],\n    \"servers\": {\n        \"github\": { \"type\": \"http\", \"url\": \"https://api.githubcopilot.com/mcp/\" }\n    }\n}\n";
    let new = setup_keeps("vscode", ".vscode/mcp.json", old, "", &[]);
    let entry = &json(&new)["servers"]["docket"];
    assert_eq!(entry["type"], "stdio");
    assert_eq!(entry["args"], serde_json::json!(["serve", "--workspace", "${workspaceFolder}"]));
    assert!(json(&new).get("mcpServers").is_none(), "VS Code reads `servers`:\n{new}");
}

#[test]
fn setup_codex_keeps_comments_and_formatting_of_config_toml() {
    let old = "# my Codex settings\nmodel = \"o3\"   # inline comment\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [ \"-y\",   \"x\" ]  # spaced\n\n[profiles.fast]\nmodel=\"o4-mini\"\n";
    let new = setup_keeps("codex", "config.toml", old, "", &[]);
    let doc: toml_edit::DocumentMut = new.parse().expect("still TOML");
    assert_eq!(doc["mcp_servers"]["docket"]["command"].as_str(), Some("docket"));
    assert_eq!(doc["mcp_servers"]["other"]["command"].as_str(), Some("npx"));
    // No file yet: CODEX_HOME gets one.
    let dir = tempfile::tempdir().unwrap();
    assert!(setup(dir.path(), &dir.path().join("home"), &["codex"]).status.success());
    let made = std::fs::read_to_string(dir.path().join("home/config.toml")).unwrap();
    assert_eq!(made, "[mcp_servers.docket]\ncommand = \"docket\"\nargs = [\"serve\"]\n");
}

#[test]
fn setup_refuses_a_file_it_cannot_parse_and_writes_nothing() {
    for (client, file, text, place) in [
        ("vscode", ".vscode/mcp.json", "{\n  // mine\n  \"servers\": {}\n}\n", "line 2"),
        ("claude", ".mcp.json", "{\"mcpServers\": {\"a\": {},}}", "line 1"),
        ("cursor", ".cursor/mcp.json", "[1, 2]", "not a JSON object"),
        ("claude", ".mcp.json", "{\"mcpServers\": []}", "`mcpServers` is not a JSON object"),
        ("codex", "config.toml", "model = \"o3\"\n[mcp_servers\n", "line 2"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let home = if client == "codex" { path.parent().unwrap().to_path_buf() } else { dir.path().join("h") };
        let o = setup(dir.path(), &home, &[client]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{client} {text:?}: {err}");
        assert!(err.contains(place) && err.contains("Nothing was written"), "{client} {text:?}: {err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{client} touched a file it refused");
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// The plugin folder holds what the repository builds: the skill is docs/skill/SKILL.md byte for
/// byte, the versions are the crate's, the MCP server and the hook run the commands docket has,
/// and the icon is what plugin/icon.py draws.
#[test]
fn the_plugin_folder_is_what_the_repository_builds() {
    assert_eq!(
        read("plugin/skills/docket/SKILL.md"),
        docket::agents::SKILL_MD,
        "plugin/skills/docket/SKILL.md differs from docs/skill/SKILL.md: cp docs/skill/SKILL.md plugin/skills/docket/SKILL.md"
    );
    let manifest = json(&read("plugin/.claude-plugin/plugin.json"));
    assert_eq!(manifest["name"], "docket");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"), "plugin.json's version is the crate's");
    assert_eq!(manifest["license"], "MIT");
    let market = json(&read(".claude-plugin/marketplace.json"));
    let listed = &market["plugins"][0];
    assert_eq!(listed["name"], "docket");
    assert_eq!(listed["source"], "./plugin");
    assert_eq!(listed["description"], manifest["description"], "the marketplace describes the plugin as it does");
    // The server entry is what `docket setup claude` writes (plus the hosts it reaches: none).
    let mut server = json(&read("plugin/.mcp.json"))["mcpServers"]["docket"].clone();
    assert_eq!(server.as_object_mut().unwrap().remove("network"), Some(serde_json::json!({ "hosts": [] })));
    let dir = tempfile::tempdir().unwrap();
    assert!(setup(dir.path(), dir.path(), &["claude"]).status.success());
    assert_eq!(server, json(&std::fs::read_to_string(dir.path().join(".mcp.json")).unwrap())["mcpServers"]["docket"]);
    let hooks = json(&read("plugin/hooks/hooks.json"));
    let command = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"].as_str().unwrap();
    assert_eq!(command, "docket prime --hook-json");
    // The icon: a square PNG of 512 px, and the pixels plugin/icon.py draws.
    let png = std::fs::read(repo().join("plugin/icon.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let side = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((side(16), side(20)), (512, 512), "icon size");
    assert_eq!(manifest["icon"], "./icon.png");
    match std::process::Command::new("python3").arg(repo().join("plugin/icon.py")).arg("--check").output() {
        Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => eprintln!("python3 not found ({e}): the icon's pixels were not compared with plugin/icon.py"),
    }
}

/// The skill's description is what loads up front in every session: short, and the loop line is
/// the one `docket prime` prints.
#[test]
fn the_skill_is_short_and_names_the_loop() {
    let description = docket::agents::skill_field("description").expect("a description");
    assert!(o200k(description) <= 40, "the skill's description takes {} tokens", o200k(description));
    assert_eq!(docket::agents::skill_field("name"), Some("docket"));
    assert!(docket::agents::loop_line().starts_with("Loop: issues_ready"));
    let tokens = o200k(docket::agents::SKILL_MD);
    eprintln!("SKILL.md: {tokens} tokens (o200k_base), description {}", o200k(description));
    assert!(tokens <= 400, "SKILL.md takes {tokens} tokens; it teaches the loop in few words");
}

/// The skills extension (SEP-2640): skills/list and skills/get give docs/skill/SKILL.md, and
/// resources/read serves its bytes, whose digest the entry carries.
#[tokio::test]
async fn the_skill_is_served_over_mcp() {
    use rmcp::model::{GetSkillRequestParams, ReadResourceRequestParams, ResourceContents, SkillResources};
    let ws = crate::common::workspace();
    let client = crate::common::start(ws.path()).await;
    let info = client.peer_info().expect("initialized");
    assert!(info.capabilities.supports_skills(), "the skills extension is declared");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains(docket::agents::loop_line()),
        "the instructions carry the skill's loop: {instructions}"
    );
    let skills = client.list_all_skills().await.expect("skills/list");
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].uri, docket::agents::SKILL_URI);
    assert_eq!(skills[0].name(), "docket");
    assert_eq!(Some(skills[0].frontmatter.description.as_str()), docket::agents::skill_field("description"));
    let got = client.get_skill(GetSkillRequestParams::new(docket::agents::SKILL_URI)).await.expect("skills/get");
    assert_eq!(got.skill, skills[0]);
    let read = client
        .read_resource(ReadResourceRequestParams::new(docket::agents::SKILL_URI))
        .await
        .expect("resources/read of SKILL.md");
    let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else { panic!("text") };
    assert_eq!(text, docket::agents::SKILL_MD);
    let SkillResources::Files(files) = &got.skill.resources else { panic!("a file manifest") };
    files[0].verify(text.as_bytes()).expect("the digest is of the bytes served");
    let wrong = client.get_skill(GetSkillRequestParams::new("skill://other/SKILL.md")).await;
    assert!(format!("{:?}", wrong.unwrap_err()).contains("skills/list"));
    client.cancel().await.ok();
}

/// A client file that is a link is refused, never followed: the file it points at stays as it was.
#[test]
fn setup_refuses_a_link_in_place_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (project, outside) = (dir.path().join("p"), dir.path().join("elsewhere.json"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(&outside, "{}").unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".mcp.json")).unwrap();
    let o = setup(&project, &dir.path().join("h"), &["claude"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "{}");
    assert!(std::fs::symlink_metadata(project.join(".mcp.json")).unwrap().file_type().is_symlink());
}
