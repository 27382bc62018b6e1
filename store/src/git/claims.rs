//! Claim records, so claims hold where the workspace files alone cannot arbitrate: across
//! worktrees that keep their own files (`worktrees: local`, a bare repository), across clones
//! on other machines through a shared remote (`claims_remote`), and with a lease everywhere.
//!
//! The rules (a lease and the skew it tolerates, fencing, hand-over, tombstones) are written once,
//! here and in `crate::claiming`; a `Backend` only reads records and replaces one by
//! compare-and-set. Three backends:
//! - inside git, refs in the common git directory (shared by every worktree);
//! - with `claims_remote`, refs on that remote (shared by every clone);
//! - outside git, one file per claim in the workspace's cache, `cache/claims/ID`, holding the
//!   same text a ref's blob holds; its object id is a hash of that text, and a replacement is
//!   compare-and-set under the folder's own lock (`cache/claims/.lock`, held only while one
//!   record is read and written, never with the workspace lock or any network call), written
//!   atomically (temp file, rename).
//!
//! A claim of issue `ID` is the ref `refs/docket/claims/ID` pointing at a blob that names the
//! holder and when it was taken. Taking it is a create-only ref update, git's own compare-and-set:
//! `git update-ref REF NEW ""` in the common git directory, or, with a remote, a push with
//! `--force-with-lease=REF:` (the ref must be absent), which the remote applies atomically for
//! every clone. Releasing deletes the ref only while it still points at the holder's claim; a
//! takeover replaces it only while it still points at the claim it replaces. git runs without a
//! shell; the remote name, ids and holders are data (`--` before every operand git allows).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::remote::{self, Ran};

mod fetch;
mod renew;
mod upstream;

pub use renew::Renewed;
pub use upstream::{OnBranch, Upstream};

/// Where claim refs live.
pub const PREFIX: &str = "refs/docket/claims/";

/// How long the remote's list of claims is reused by `issues_ready` before asking again.
pub const LIST_TTL: Duration = Duration::from_secs(2);

/// After the remote failed to answer a list, how long `issues_ready` answers from the last list
/// without asking again (each ask could wait the whole deadline).
pub const SILENT_BACKOFF: Duration = Duration::from_secs(10);

/// Claim refs as (issue id, object id).
pub type RefList = Vec<(String, String)>;

/// The default lease of a claim (`claim_ttl`): a holder that stops renewing loses it this long
/// after its last renewal (plus [`skew`]).
pub const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

/// How far apart two machines' clocks may be without a live claim looking lapsed: a lease counts
/// as lapsed only once it ended this long ago, half the lease and at most a minute.
pub fn skew(ttl: Duration) -> Duration {
    (ttl / 2).min(Duration::from_secs(60))
}

/// Whether the file of a closed issue already says closed when its tombstone is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// It does (or there is no file to write): the tombstone stands until the close is pulled.
    Done,
    /// A holder's close, before it writes the file: the tombstone carries a lease, the time by
    /// which the file must be written. [`Claims::finish_close`] clears it once it is; past it
    /// (and its skew) the close counts as dead everywhere ([`Claim::close_lapsed`]).
    Pending,
}

/// What a claim record says about its issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Someone holds it (until its lease ends, if it has one).
    Held,
    /// It was closed or cancelled: a tombstone, so a clone that has not pulled the close is never
    /// offered the finished work.
    Closed,
}

/// One claim ref as read: its claim, or (its id, why it holds none).
pub type ClaimRead = Result<Claim, (String, String)>;

/// The claim refs as listed, how old the list is, and why it is older than it should be (the
/// remote did not answer: the list is the last one it gave).
#[derive(Debug, Clone)]
pub struct Listed {
    /// The claim refs.
    pub refs: RefList,
    /// How old the list is.
    pub age: Duration,
    /// Why it is the last list rather than a new one.
    pub stale: Option<Refusal>,
}

/// One claim as its ref records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The ID (the last part of the ref's name).
    pub id: String,
    /// Who holds it: the assignee who claimed it (`an unknown holder` when the ref does not say).
    pub holder: String,
    /// The holder's session (one MCP session, stdio process or HTTP session); empty: any session
    /// of that name (the CLI's `--as NAME`, a hand-over, a claim made before sessions).
    pub session: String,
    /// When it was taken (RFC 3339); empty if the ref's content does not say.
    pub taken_at: String,
    /// When its lease ends unless renewed (RFC 3339); empty: a claim made before leases, which
    /// does not lapse.
    pub lease: String,
    /// Held, or closed (a tombstone).
    pub state: State,
    /// The object the ref points at (the compare-and-set value for a release or a takeover).
    pub oid: String,
    /// Why it was taken over from a previous holder, if it was.
    pub takeover: Option<String>,
    /// Whose lease had lapsed when this holder took it, and when (`ann at T`), if that is how.
    pub lapsed_from: Option<String>,
    /// Where it was taken: `HOST:WORKTREE` (empty for a claim that does not say).
    pub at: String,
    /// The issue's `docketKey` when the record was written, if known: before a merge two clones
    /// can give one id to two issues, and a tombstone is only about the issue it closed.
    pub key: Option<String>,
}

impl Claim {
    /// "held by H since T (2h ago), lease until L", or "closed by H at T".
    pub fn describe(&self) -> String {
        if self.state == State::Closed {
            return format!("closed by {} at {}", self.holder, self.taken_at);
        }
        let mut text = match self.taken_at.is_empty() {
            true => format!("held by {} (its claim does not say since when)", self.holder),
            false => format!("held by {} since {} ({})", self.holder, self.taken_at, age(&self.taken_at)),
        };
        if !self.lease.is_empty() {
            text.push_str(&format!(", lease until {}", self.lease));
        }
        text
    }

    /// Whether `holder` in `session` is this claim's holder: the same name, and the same session
    /// unless either side names none.
    pub fn is_held_by(&self, holder: &str, session: &str) -> bool {
        self.holder == one_line(holder) && (session.is_empty() || self.session.is_empty() || self.session == session)
    }

    /// Whether this record is about another issue than the one whose `docketKey` is `key`:
    /// both name a key, and not the same one.
    pub fn about_another(&self, key: Option<&str>) -> bool {
        matches!((self.key.as_deref(), key), (Some(a), Some(b)) if a != b)
    }

    /// Whether it was taken longer than `bound` ago (a claim that says no time is not).
    pub fn older_than(&self, bound: Duration) -> bool {
        chrono::DateTime::parse_from_rfc3339(&self.taken_at)
            .is_ok_and(|t| (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).to_std().is_ok_and(|a| a > bound))
    }

    /// When the lease ended, if it has lapsed (ended more than [`skew`] ago, on this clock).
    pub fn lapsed(&self, ttl: Duration) -> Option<chrono::DateTime<chrono::Utc>> {
        match self.state {
            State::Held => self.lease_ended(ttl),
            State::Closed => None,
        }
    }

    /// Whether this tombstone is a close that did not finish: its file was to be written within
    /// the lease the tombstone was pushed with, and the closing session would have cleared that
    /// lease once it was ([`Claims::finish_close`]). Every clone can judge it, and so every clone
    /// offers the issue again, not only the one whose files show the close missing.
    pub fn close_lapsed(&self, ttl: Duration) -> bool {
        self.state == State::Closed && self.lease_ended(ttl).is_some()
    }

    /// When its lease ended, if it has (on this clock, no skew: for the holder's own check).
    pub fn lease_passed(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        let end = chrono::DateTime::parse_from_rfc3339(&self.lease).ok()?.with_timezone(&chrono::Utc);
        (chrono::Utc::now() > end).then_some(end)
    }

    fn lease_ended(&self, ttl: Duration) -> Option<chrono::DateTime<chrono::Utc>> {
        let end = chrono::DateTime::parse_from_rfc3339(&self.lease).ok()?.with_timezone(&chrono::Utc);
        let grace = chrono::Duration::from_std(skew(ttl)).unwrap_or_default();
        (chrono::Utc::now() > end + grace).then_some(end)
    }

    fn parse(id: &str, oid: &str, text: &str) -> Claim {
        let field = |name: &str| {
            text.lines().find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' '))).map(str::to_string)
        };
        Claim {
            id: id.to_string(),
            holder: field("holder").unwrap_or_else(|| "an unknown holder".into()),
            session: field("session").unwrap_or_default(),
            taken_at: field("taken").unwrap_or_default(),
            lease: field("lease").unwrap_or_default(),
            state: match field("state").as_deref() {
                Some("closed") => State::Closed,
                _ => State::Held,
            },
            oid: oid.to_string(),
            takeover: field("takeover"),
            lapsed_from: field("lapsed"),
            at: field("at").unwrap_or_default(),
            key: field("key"),
        }
    }

    /// The blob text of this claim (its `oid` aside).
    fn text(&self) -> String {
        let mut text = format!("docket claim\nissue {}\nholder {}\n", self.id, one_line(&self.holder));
        if !self.session.is_empty() {
            text.push_str(&format!("session {}\n", one_line(&self.session)));
        }
        text.push_str(&format!("taken {}\n", self.taken_at));
        if !self.lease.is_empty() {
            text.push_str(&format!("lease {}\n", self.lease));
        }
        if self.state == State::Closed {
            text.push_str("state closed\n");
        }
        if let Some(t) = &self.takeover {
            text.push_str(&format!("takeover {}\n", one_line(t)));
        }
        if let Some(l) = &self.lapsed_from {
            text.push_str(&format!("lapsed {}\n", one_line(l)));
        }
        if !self.at.is_empty() {
            text.push_str(&format!("at {}\n", one_line(&self.at)));
        }
        if let Some(k) = &self.key {
            text.push_str(&format!("key {}\n", one_line(k)));
        }
        text
    }
}

/// Now, as a claim records it.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The end of a lease of `ttl` starting now.
pub fn lease_end(ttl: Duration) -> String {
    let ttl = chrono::Duration::from_std(ttl).unwrap_or_else(|_| chrono::Duration::seconds(900));
    (chrono::Utc::now() + ttl).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// How long ago an RFC 3339 time was, in words ("45s ago", "3h ago", "6y ago").
pub fn age(rfc3339: &str) -> String {
    let Ok(then) = chrono::DateTime::parse_from_rfc3339(rfc3339) else { return "age unknown".into() };
    let secs = (chrono::Utc::now() - then.with_timezone(&chrono::Utc)).num_seconds().max(0);
    let (n, unit) = match secs {
        s if s < 120 => (s, "s"),
        s if s < 7_200 => (s / 60, "min"),
        s if s < 172_800 => (s / 3_600, "h"),
        s if s < 63_072_000 => (s / 86_400, "d"),
        s => (s / 31_536_000, "y"),
    };
    format!("{n}{unit} ago")
}

/// What a claim attempt got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Taken {
    /// This call created (or took over) the claim.
    New(Claim),
    /// The holder already had it (a repeated claim, or one whose file write was interrupted).
    Already(Claim),
}

impl Taken {
    /// The claim, and whether this call took it (not a renewal of the holder's own).
    pub fn claim(&self) -> (&Claim, bool) {
        match self {
            Taken::New(c) => (c, true),
            Taken::Already(c) => (c, false),
        }
    }

    /// The claim, if this call created its record where there was none (not a renewal, nor a
    /// takeover or a lapsed lease, which are compare-and-set on the record they replaced).
    pub fn created(&self) -> Option<&Claim> {
        match self {
            Taken::New(c) if c.lapsed_from.is_none() && c.takeover.is_none() => Some(c),
            _ => None,
        }
    }
}

/// Why a claim or release could not be done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Someone else holds it.
    Held(Claim),
    /// The remote could not be asked; nothing was written.
    Unreachable {
        /// The remote's name (`claims_remote`).
        remote: String,
        /// What git said.
        detail: String,
    },
    /// The remote did not answer before the deadline; git was stopped.
    Silent {
        /// The remote's name (`claims_remote`).
        remote: String,
        /// The deadline it was given.
        after: Duration,
    },
    /// git failed otherwise (the message says how).
    Failed(String),
}

impl Refusal {
    /// The reason to give in a claim's CONFLICT (after "Cannot claim ID: ").
    pub fn reason(&self) -> String {
        match self {
            Refusal::Held(c) if c.state == State::Closed => format!(
                "it was {} (a clone that still shows it open has not pulled the close: `git pull` shows it)",
                c.describe()
            ),
            Refusal::Held(c) => {
                let whose = match c.session.is_empty() {
                    true => c.describe(),
                    false => c.describe().replacen(
                        &format!("held by {}", c.holder),
                        &format!("held by {} in another session", c.holder),
                        1,
                    ),
                };
                format!(
                    "it is {whose}; it is free again once its lease lapses (a live holder's server renews it), or take it over now with issues_claim with takeoverReason: \"why\" if that agent is gone"
                )
            }
            Refusal::Unreachable { remote, detail } => format!(
                "the claims remote `{remote}` cannot be reached ({detail}), so no claim was taken and nothing was written; check it with `git ls-remote {remote}` and claim again (unset DOCKET_CLAIMS_REMOTE / claims_remote only to work alone)"
            ),
            Refusal::Silent { .. } => {
                format!("{}, so no claim was taken and nothing was written; claim again when it answers", self.short())
            }
            Refusal::Failed(why) => format!("{why}; no claim was taken"),
        }
    }

    /// What went wrong with the remote, without what it means for a claim.
    pub fn short(&self) -> String {
        match self {
            Refusal::Held(c) => c.describe(),
            Refusal::Unreachable { remote, detail } => {
                format!("the claims remote `{remote}` cannot be reached ({detail})")
            }
            Refusal::Silent { remote, after } => format!(
                "the claims remote `{remote}` did not answer in {} (check it with `git ls-remote {remote}`; remote_timeout in config/docket.yaml or DOCKET_REMOTE_TIMEOUT sets how long docket waits)",
                remote::seconds(*after)
            ),
            Refusal::Failed(why) => why.clone(),
        }
    }
}

/// Where one workspace's claim records live; everything else about a claim is the same for each.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Backend {
    /// Refs in the common git directory (every worktree sees them).
    Common,
    /// Refs on this remote (every clone sees them).
    Remote(String),
    /// Files in this folder of a workspace outside git (its `cache/claims/`).
    Files(PathBuf),
}

/// The claim records of one workspace: refs in its repository's common git directory or on a
/// remote, or files in its cache outside git.
#[derive(Debug)]
pub struct Claims {
    /// A directory inside the repository (`git -C`); outside git, the workspace folder (the
    /// root of every file operation on the records).
    dir: PathBuf,
    backend: Backend,
    /// How long one operation on the remote may take ([`remote::DEFAULT_TIMEOUT`]).
    timeout: Duration,
    /// Where the remote's last list is kept for the next process (in the workspace's cache).
    seen_file: Option<PathBuf>,
    /// The remote's claims as last listed, and whether a list is being asked for.
    listed: Mutex<ListState>,
    /// How long a lease lasts (`claim_ttl`).
    ttl: Duration,
    /// Claim blobs already read, by object id (a blob never changes).
    blobs: Mutex<std::collections::HashMap<String, String>>,
    /// The remote's default branch (`refs/heads/NAME`), once known.
    branch: std::sync::OnceLock<Option<String>>,
    /// The workspace's files on that branch at the head last read.
    upstream: Mutex<Option<Upstream>>,
    /// The workspace folder from the repository's top level (`""`: the top level).
    ws_rel: String,
}

#[derive(Debug, Default)]
struct ListState {
    /// The last list the remote gave, when, and whether it may still be reused (a claim or
    /// release of this process makes it stale).
    last: Option<(Instant, RefList, bool)>,
    /// Another thread is asking the remote now.
    busy: bool,
    /// The remote did not answer: until then, the last list is answered without asking.
    silent_until: Option<Instant>,
    why: Option<Refusal>,
    /// The head of the remote's default branch in the last list, if it was asked for.
    branch_oid: Option<String>,
}

/// Whether `name` can be a git remote's name (and never an option).
pub fn valid_remote(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '.', '/'])
        && !name.contains("..")
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'))
}

/// The ref of issue `id`, if the id can be part of a ref name.
fn ref_of(id: &str) -> Result<String, Refusal> {
    let fine = !id.is_empty()
        && !id.starts_with(['-', '.'])
        && !id.ends_with(".lock")
        && !id.contains("..")
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    match fine {
        true => Ok(format!("{PREFIX}{id}")),
        false => Err(Refusal::Failed(format!("the ID {id:?} cannot name a claim ref (letters, digits, - _ . only)"))),
    }
}

/// The holder as one line of the claim blob (no line breaks or control characters).
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>().trim().to_string()
}

impl Claims {
    /// Claims of the repository holding `dir`, on `remote` if named (its name checked), else in
    /// the common git directory.
    pub fn new(dir: &Path, remote: Option<&str>) -> Result<Claims, String> {
        if let Some(r) = remote.filter(|r| !valid_remote(r)) {
            return Err(format!(
                "{r:?} is not a git remote name (letters, digits, - _ . /, not starting with - . or /); set claims_remote (DOCKET_CLAIMS_REMOTE) to the name `git remote -v` shows"
            ));
        }
        // Only a remote the repository's git config names: a name git does not know would be
        // taken for a path, and a committed config/docket.yaml could point claims anywhere.
        if let Some(r) = remote {
            let key = format!("remote.{r}.url");
            let known = Command::new("git").arg("-C").arg(dir).args(["config", "--get", &key]).output();
            if !known.is_ok_and(|o| o.status.success()) {
                return Err(format!(
                    "no git remote is named {r:?} here, so it cannot arbitrate claims (nothing was written); `git remote -v` lists the remotes: set claims_remote (DOCKET_CLAIMS_REMOTE) to one of them, or add it with `git remote add {r} URL`"
                ));
            }
        }
        let backend = remote.map_or(Backend::Common, |r| Backend::Remote(r.to_string()));
        Ok(Claims::with_backend(dir, backend))
    }

    /// Claims of the workspace folder `ws_dir` outside git: one file per claim in its
    /// `cache/claims/` (ignored by git, like the rest of the cache).
    pub fn in_files(ws_dir: &Path) -> Claims {
        Claims::with_backend(ws_dir, Backend::Files(ws_dir.join("cache").join("claims")))
    }

    fn with_backend(dir: &Path, backend: Backend) -> Claims {
        Claims {
            dir: dir.to_path_buf(),
            backend,
            timeout: remote::DEFAULT_TIMEOUT,
            seen_file: None,
            listed: Mutex::new(ListState::default()),
            ttl: DEFAULT_TTL,
            blobs: Mutex::default(),
            branch: std::sync::OnceLock::new(),
            upstream: Mutex::default(),
            ws_rel: String::new(),
        }
    }

    /// The folder of the claim files, outside git (`None`: the records are refs).
    pub fn files(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Files(dir) => Some(dir),
            _ => None,
        }
    }

    /// These claims with leases of `ttl`.
    pub fn with_ttl(mut self, ttl: Duration) -> Claims {
        self.ttl = ttl;
        self
    }

    /// These claims with `timeout` for each operation on the remote.
    pub fn with_timeout(mut self, timeout: Duration) -> Claims {
        self.timeout = timeout;
        self
    }

    /// These claims serving the workspace at `ws_rel` from the repository's top level.
    pub fn with_workspace_at(mut self, ws_rel: &str) -> Claims {
        self.ws_rel = ws_rel.to_string();
        self
    }

    /// These claims keeping the remote's last list in `file` (read when the remote is silent).
    pub fn with_seen_file(mut self, file: PathBuf) -> Claims {
        self.seen_file = Some(file);
        self
    }

    /// The deadline of an operation starting now.
    pub fn until(&self) -> Instant {
        Instant::now() + self.timeout
    }

    /// How long one operation on the remote may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `HOST:WORKTREE`, what a claim taken here records as where it was taken.
    pub fn here(&self) -> String {
        format!("{}:{}", hostname(), self.dir.display())
    }

    /// Whether `claim` was taken by a docket serving this workspace (its worktree, on this
    /// machine): what doctor needs before it calls a claim interrupted.
    pub fn taken_here(&self, claim: &Claim) -> bool {
        let Some((host, path)) = claim.at.split_once(':') else { return false };
        let same = |a: &Path, b: &Path| {
            a == b || a.canonicalize().ok().zip(b.canonicalize().ok()).is_some_and(|(a, b)| a == b)
        };
        host == hostname() && same(&self.dir, Path::new(path))
    }

    /// How long a lease lasts.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The remote arbitrating claims, if any.
    pub fn remote(&self) -> Option<&str> {
        match &self.backend {
            Backend::Remote(r) => Some(r),
            _ => None,
        }
    }

    fn git(&self, args: &[&str], input: Option<&str>) -> Result<Output, Refusal> {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(&self.dir).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        // A remote asking for a password would wait for a person who is not there.
        cmd.env("GIT_TERMINAL_PROMPT", "0");
        cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = cmd.spawn().map_err(|e| Refusal::Failed(format!("cannot run git ({e})")))?;
        // Written from another thread: a long input (`cat-file --batch` of every claim) would fill
        // the pipe while git waits for its output to be read.
        let writer = match (input, child.stdin.take()) {
            (Some(text), Some(mut stdin)) => {
                let text = text.to_string();
                Some(std::thread::spawn(move || std::io::Write::write_all(&mut stdin, text.as_bytes())))
            }
            _ => None,
        };
        let out = child.wait_with_output().map_err(|e| Refusal::Failed(format!("git did not finish ({e})")))?;
        if let Some(Ok(Err(e))) = writer.map(|w| w.join()) {
            return Err(Refusal::Failed(format!("cannot write to git ({e})")));
        }
        Ok(out)
    }

    /// `git ARGS` that reaches `remote`, stopped (with its process group) at `until`.
    fn git_remote(&self, remote: &str, args: &[&str], until: Instant) -> Result<Output, Refusal> {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(&self.dir).args(args);
        match remote::run_until(&mut cmd, until) {
            Ok(Ran::Done(out)) => Ok(out),
            Ok(Ran::TimedOut) => Err(Refusal::Silent { remote: remote.to_string(), after: self.timeout }),
            Err(e) => Err(Refusal::Failed(format!("cannot run git ({e})"))),
        }
    }

    fn stdout(&self, args: &[&str], input: Option<&str>) -> Result<String, Refusal> {
        let out = self.git(args, input)?;
        match out.status.success() {
            true => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
            false => Err(Refusal::Failed(format!(
                "`git {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    }

    /// Claims `id` for `holder` (any session of that name); see [`Claims::take_as`].
    pub fn take(&self, id: &str, holder: &str, takeover: Option<&str>) -> Result<Taken, Refusal> {
        self.take_as(id, holder, "", takeover)
    }

    /// Claims `id` for `holder` in `session` (empty: any session of that name), compare-and-set
    /// on the record there is: absent, or a claim whose lease lapsed, or (with `takeover`, a
    /// reason) another holder's live claim. The holder's own claim is renewed. A tombstone (the
    /// issue was closed) is never taken. Nothing is written when it is refused.
    pub fn take_as(&self, id: &str, holder: &str, session: &str, takeover: Option<&str>) -> Result<Taken, Refusal> {
        self.take_keyed(id, holder, session, takeover, None)
    }

    /// [`Claims::take_as`] recording the claimed issue's `docketKey`, so the claim can follow
    /// its issue when a merge renumbers it ([`Claims::move_to`]). A record about another issue
    /// (another key: the two had one id in two clones) is refused like a held one, lapsed or
    /// not: taking it would lose that claim.
    pub fn take_keyed(
        &self,
        id: &str,
        holder: &str,
        session: &str,
        takeover: Option<&str>,
        key: Option<&str>,
    ) -> Result<Taken, Refusal> {
        // A takeover (a reason given) that lost its compare-and-set to the holder's own renewal
        // is still wanted: retried (a few times) while the record names the same holder.
        let mut tries = 0;
        loop {
            let (taken, replaced) = self.take_once(id, holder, session, takeover, key)?;
            if let Some(taken) = taken {
                return Ok(taken);
            }
            tries += 1;
            let renewed = match (&replaced, self.read(id)?) {
                (Some(old), Some(now)) => {
                    now.state == State::Held && now.holder == old.holder && now.session == old.session
                }
                _ => false,
            };
            if takeover.is_none() || !renewed || tries >= 3 {
                return self.lost(id, &one_line(holder), session);
            }
        }
    }

    /// One [`Claims::take_as`]: what it took (`None` when its compare-and-set did not hold), and
    /// the record it tried to replace.
    fn take_once(
        &self,
        id: &str,
        holder: &str,
        session: &str,
        takeover: Option<&str>,
        key: Option<&str>,
    ) -> Result<(Option<Taken>, Option<Claim>), Refusal> {
        let holder = one_line(holder);
        let current = self.read(id)?;
        let mut claim = Claim { key: key.map(str::to_string), ..self.new_claim(id, &holder, session) };
        match &current {
            Some(c) if c.state == State::Closed || c.about_another(key) => return Err(Refusal::Held(c.clone())),
            Some(c) if c.is_held_by(&holder, session) => {
                // Renewed: the same claim, a new lease (and this session, if it had none).
                claim.key = claim.key.or_else(|| c.key.clone());
                claim.taken_at = c.taken_at.clone();
                claim.takeover = c.takeover.clone();
                claim.lapsed_from = c.lapsed_from.clone();
                if claim.session.is_empty() {
                    claim.session = c.session.clone();
                }
                return match self.replace(c, &claim)? {
                    Some(renewed) => Ok((Some(Taken::Already(renewed)), current)),
                    None => self.lost(id, &holder, session).map(|t| (Some(t), current)),
                };
            }
            Some(c) => match (c.lapsed(self.ttl), takeover) {
                (Some(end), _) => {
                    let at = end.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                    claim.lapsed_from = Some(format!("{} at {at}", c.holder));
                }
                (None, Some(why)) => claim.takeover = Some(format!("from {}: {}", c.holder, one_line(why))),
                (None, None) => return Err(Refusal::Held(c.clone())),
            },
            None => {}
        }
        let empty = Claim { oid: String::new(), ..claim.clone() };
        let taken = self.replace(current.as_ref().unwrap_or(&empty), &claim)?.map(Taken::New);
        Ok((taken, current))
    }

    /// Claims for `holder` in `session` the issue of tombstone `tomb`, a close that never finished
    /// (the caller has checked: its process died before writing the file), compare-and-set on
    /// the tombstone; the claim says whose close it was.
    pub fn take_after_unfinished_close(&self, tomb: &Claim, holder: &str, session: &str) -> Result<Taken, Refusal> {
        let holder = one_line(holder);
        let claim = Claim {
            lapsed_from: Some(format!("{} (a close at {} that did not finish)", tomb.holder, tomb.taken_at)),
            key: tomb.key.clone(),
            ..self.new_claim(&tomb.id, &holder, session)
        };
        match self.replace(tomb, &claim)? {
            Some(taken) => Ok(Taken::New(taken)),
            None => self.lost(&tomb.id, &holder, session),
        }
    }

    /// A claim of `id` by `holder` in `session` taken here now, its lease starting (not written).
    fn new_claim(&self, id: &str, holder: &str, session: &str) -> Claim {
        Claim {
            id: id.to_string(),
            holder: holder.to_string(),
            session: one_line(session),
            taken_at: now(),
            lease: lease_end(self.ttl),
            state: State::Held,
            oid: String::new(),
            takeover: None,
            lapsed_from: None,
            at: self.here(),
            key: None,
        }
    }

    /// Moves claim `c` to `id`, the id its issue has now (a merge renumbered it): the same
    /// claim is created there (create-only), then `c` is deleted (compare-and-set). The record
    /// at `id` after the move, or `None` when `id` has a record of another issue's. When `id`
    /// already has a record of the same issue (moved by another process, or claimed there
    /// since), that one stands and `c`, left behind, goes.
    pub fn move_to(&self, c: &Claim, id: &str) -> Result<Option<Claim>, Refusal> {
        let moved = Claim { id: id.to_string(), oid: String::new(), ..c.clone() };
        let written = match self.replace(&moved, &moved)? {
            Some(w) => w,
            None => match self.read(id)? {
                Some(there) if there.key == c.key => there,
                _ => return Ok(None),
            },
        };
        if !self.drop_claim(c)? {
            tracing::info!(from = %c.id, to = %id, "a moved claim's old record had changed; it is left");
        }
        Ok(Some(written))
    }

    /// After a compare-and-set that did not hold: who has it now.
    fn lost(&self, id: &str, holder: &str, session: &str) -> Result<Taken, Refusal> {
        match self.read(id)? {
            Some(c) if c.state == State::Held && c.is_held_by(holder, session) => Ok(Taken::Already(c)),
            Some(c) => Err(Refusal::Held(c)),
            None => Err(Refusal::Failed(format!("git refused to write the claim of {id} and then showed none there"))),
        }
    }

    /// Writes `new` in place of `old` (an empty `old.oid`: there was none), compare-and-set;
    /// the claim written, or `None` when the record was no longer `old`.
    pub fn replace(&self, old: &Claim, new: &Claim) -> Result<Option<Claim>, Refusal> {
        let name = ref_of(&new.id)?;
        let text = new.text();
        let (oid, won) = match &self.backend {
            Backend::Files(records) => (text_oid(&text), self.swap_file(records, &new.id, &old.oid, Some(&text))?),
            Backend::Common => {
                let oid = self.stdout(&["hash-object", "-w", "--stdin"], Some(&text))?;
                let args = ["update-ref", "-m", "docket claim", "--", &name, &oid, &old.oid];
                let won = self.git(&args, None)?.status.success();
                (oid, won)
            }
            Backend::Remote(remote) => {
                let oid = self.stdout(&["hash-object", "-w", "--stdin"], Some(&text))?;
                let won = self.push(remote, &format!("{oid}:{name}"), &name, &old.oid, self.until())?;
                (oid, won)
            }
        };
        self.forget_list();
        if !won {
            return Ok(None);
        }
        self.blobs.lock().unwrap_or_else(|p| p.into_inner()).insert(oid.clone(), text.clone());
        Ok(Some(Claim { oid, ..new.clone() }))
    }

    /// Replaces `claim` by a tombstone: `by` closed it (compare-and-set on `claim`, or on no
    /// record when `claim` is `None`); whether it was written.
    pub fn close(&self, id: &str, current: Option<&Claim>, by: &str) -> Result<bool, Refusal> {
        self.close_in(id, current, by, "")
    }

    /// [`Claims::close`] naming the session that closed it, so that session's later writes are
    /// its own and every other session of the former holder is fenced off.
    pub fn close_in(&self, id: &str, current: Option<&Claim>, by: &str, session: &str) -> Result<bool, Refusal> {
        Ok(self.close_keyed(id, current, (by, session), None, Closing::Done)?.is_some())
    }

    /// [`Claims::close_in`] recording the closed issue's `docketKey`, so a tombstone is never
    /// taken for another issue that holds the same id before a merge renumbers one of them.
    /// [`Closing::Pending`] is the tombstone a holder's close pushes before it writes the file.
    /// The tombstone as written, or `None` when the record moved since `current` was read.
    pub fn close_keyed(
        &self,
        id: &str,
        current: Option<&Claim>,
        (by, session): (&str, &str),
        key: Option<String>,
        closing: Closing,
    ) -> Result<Option<Claim>, Refusal> {
        let lease = match closing {
            Closing::Done => String::new(),
            Closing::Pending => lease_end(self.ttl),
        };
        self.tombstone(id, current, by, session, key, lease)
    }

    /// Marks tombstone `tomb` finished (its file says closed): its lease goes, compare-and-set;
    /// whether the record is a finished tombstone now (`false`: it moved since it was read).
    pub fn finish_close(&self, tomb: &Claim) -> Result<bool, Refusal> {
        if tomb.state != State::Closed || tomb.lease.is_empty() {
            return Ok(tomb.state == State::Closed);
        }
        Ok(self.replace(tomb, &Claim { lease: String::new(), ..tomb.clone() })?.is_some())
    }

    fn tombstone(
        &self,
        id: &str,
        current: Option<&Claim>,
        by: &str,
        session: &str,
        key: Option<String>,
        lease: String,
    ) -> Result<Option<Claim>, Refusal> {
        let tomb = Claim {
            id: id.to_string(),
            holder: one_line(by),
            session: session.to_string(),
            taken_at: now(),
            lease,
            state: State::Closed,
            oid: String::new(),
            takeover: None,
            lapsed_from: None,
            at: self.here(),
            key,
        };
        let empty = Claim { oid: String::new(), ..tomb.clone() };
        self.replace(current.unwrap_or(&empty), &tomb)
    }

    /// Ends `claim`'s lease now (compare-and-set): the record stays, lapsed, so the issue is
    /// free to anyone, as after a lease that ran out; whether it was written.
    pub fn give_up(&self, claim: &Claim) -> Result<bool, Refusal> {
        let past = skew(self.ttl) + Duration::from_secs(1);
        let ended = chrono::Utc::now() - chrono::Duration::from_std(past).unwrap_or_default();
        let lease = ended.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        Ok(self.replace(claim, &Claim { lease, ..claim.clone() })?.is_some())
    }

    /// Deletes `claim`'s ref if it still points at that claim; whether it did.
    pub fn drop_claim(&self, claim: &Claim) -> Result<bool, Refusal> {
        let name = ref_of(&claim.id)?;
        let done = match &self.backend {
            Backend::Files(records) => self.swap_file(records, &claim.id, &claim.oid, None)?,
            Backend::Common => self.git(&["update-ref", "-d", "--", &name, &claim.oid], None)?.status.success(),
            Backend::Remote(remote) => self.push(remote, &format!(":{name}"), &name, &claim.oid, self.until())?,
        };
        self.forget_list();
        Ok(done)
    }

    /// Releases `id` if `holder` holds it (a close, a cancel, a hand-back); whether a ref went.
    pub fn release(&self, id: &str, holder: &str) -> Result<bool, Refusal> {
        match self.read(id)? {
            Some(c) if c.state == State::Held && c.holder == one_line(holder) => self.drop_claim(&c),
            _ => Ok(false),
        }
    }

    /// [`Claims::release`], started only before `until` (each git call has its own deadline
    /// too); past it, refused as [`Refusal::Silent`].
    pub fn release_until(&self, id: &str, holder: &str, until: Instant) -> Result<bool, Refusal> {
        let silent = || Refusal::Silent { remote: self.remote().unwrap_or_default().to_string(), after: self.timeout };
        if Instant::now() >= until {
            return Err(silent());
        }
        match self.read(id)? {
            Some(c) if c.state == State::Held && c.holder == one_line(holder) => match Instant::now() < until {
                true => self.drop_claim(&c),
                false => Err(silent()),
            },
            _ => Ok(false),
        }
    }

    /// The claim on `id`, if any. Through a remote, a record renewed between the listing and the
    /// fetch of its blob is listed again (a few times).
    pub fn read(&self, id: &str) -> Result<Option<Claim>, Refusal> {
        let mut tries = 0;
        loop {
            match self.read_once(id) {
                Err(Refusal::Failed(_)) if self.remote().is_some() && tries < 3 => tries += 1,
                other => return other,
            }
        }
    }

    fn read_once(&self, id: &str) -> Result<Option<Claim>, Refusal> {
        let name = ref_of(id)?;
        let oid = match &self.backend {
            Backend::Files(records) => {
                return Ok(self.read_file(records, id)?.map(|(oid, text)| Claim::parse(id, &oid, &text)));
            }
            Backend::Common => {
                let out = self.git(&["rev-parse", "-q", "--verify", "--end-of-options", &name], None)?;
                String::from_utf8_lossy(&out.stdout).trim().to_string()
            }
            Backend::Remote(remote) => {
                // The default branch's head as of this read: a tombstone this read no longer
                // sees ended because its close is on that head (see upstream.rs).
                let branch = self.branch_name();
                let (listed, head) = self.ls_remote_with(remote, &name, branch.as_deref(), self.until())?;
                if head.is_some() {
                    self.state().branch_oid = head;
                }
                listed.into_iter().next().map(|(_, oid)| oid).unwrap_or_default()
            }
        };
        if oid.is_empty() {
            return Ok(None);
        }
        Ok(Some(Claim::parse(id, &oid, &self.content(&oid, &name)?)))
    }

    /// The text of claim object `oid`, fetched from the remote first if this clone lacks it.
    fn content(&self, oid: &str, name: &str) -> Result<String, Refusal> {
        if let Some(text) = self.blobs.lock().unwrap_or_else(|p| p.into_inner()).get(oid) {
            return Ok(text.clone());
        }
        if let Ok(text) = self.stdout(&["cat-file", "blob", oid], None) {
            self.blobs.lock().unwrap_or_else(|p| p.into_inner()).insert(oid.to_string(), text.clone());
            return Ok(text);
        }
        let Backend::Remote(remote) = &self.backend else { return self.stdout(&["cat-file", "blob", oid], None) };
        let seen = name.replacen(PREFIX, "refs/docket/seen/", 1);
        self.fetch_objects(remote, &[oid], &format!("+{name}:{seen}"))?;
        self.stdout(&["cat-file", "blob", oid], None)
    }

    /// Every claim ref as (issue id, object), from the remote at most once per [`LIST_TTL`], and
    /// how old the answer is. A remote that does not answer in time (or has just failed to) is
    /// answered for by its last list, said to be stale; only with no list known is it an error.
    /// No lock is held while the remote is asked: a second caller meanwhile gets the last list.
    pub fn held(&self) -> Result<Listed, Refusal> {
        let remote = match &self.backend {
            Backend::Remote(remote) => remote,
            Backend::Common => {
                let out = self.stdout(&["for-each-ref", "--format=%(refname) %(objectname)", PREFIX], None)?;
                return Ok(Listed { refs: parse_refs(&out), age: Duration::ZERO, stale: None });
            }
            Backend::Files(records) => {
                return Ok(Listed { refs: self.list_files(records)?, age: Duration::ZERO, stale: None });
            }
        };
        {
            let mut st = self.state();
            if let Some((at, refs, true)) = st.last.as_ref().filter(|(at, _, _)| at.elapsed() < LIST_TTL) {
                return Ok(Listed { refs: refs.clone(), age: at.elapsed(), stale: None });
            }
            let silent = st.silent_until.is_some_and(|t| Instant::now() < t);
            if st.busy || silent {
                let why = st.why.clone().unwrap_or(Refusal::Silent { remote: remote.clone(), after: self.timeout });
                if let Some((age, refs)) = self.last_known(&st) {
                    return Ok(Listed { refs, age, stale: silent.then_some(why) });
                }
                if silent {
                    return Err(why);
                }
            }
            st.busy = true;
        }
        // The default branch's head in the same answer: ready and claim judge by it (upstream.rs).
        let branch = self.branch_name();
        let asked = self.ls_remote_with(remote, &format!("{PREFIX}*"), branch.as_deref(), self.until());
        let mut st = self.state();
        st.busy = false;
        match asked {
            Ok((refs, branch_oid)) => {
                st.branch_oid = branch_oid;
                let changed = st.last.as_ref().is_none_or(|(_, old, _)| *old != refs);
                st.last = Some((Instant::now(), refs.clone(), true));
                (st.silent_until, st.why) = (None, None);
                drop(st);
                if changed {
                    self.save_seen(&refs);
                }
                Ok(Listed { refs, age: Duration::ZERO, stale: None })
            }
            Err(why) => {
                st.silent_until = Some(Instant::now() + SILENT_BACKOFF);
                st.why = Some(why.clone());
                match self.last_known(&st) {
                    Some((age, refs)) => Ok(Listed { refs, age, stale: Some(why) }),
                    None => Err(why),
                }
            }
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ListState> {
        self.listed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The last list of the remote's claims this process or an earlier one got, and its age.
    fn last_known(&self, st: &ListState) -> Option<(Duration, RefList)> {
        if let Some((at, refs, _)) = &st.last {
            return Some((at.elapsed(), refs.clone()));
        }
        let text = std::fs::read_to_string(self.seen_file.as_ref()?).ok()?;
        let mut lines = text.lines();
        let millis: i64 = lines.next()?.strip_prefix("listed ")?.trim().parse().ok()?;
        let age = (chrono::Utc::now().timestamp_millis() - millis).max(0) as u64;
        Some((Duration::from_millis(age), parse_refs(&lines.collect::<Vec<_>>().join("\n"))))
    }

    /// Keeps `refs` in the seen file for the next process (best effort: it is a cache).
    fn save_seen(&self, refs: &RefList) {
        let Some(file) = &self.seen_file else { return };
        let Some(dir) = file.parent() else { return };
        let mut text = format!("listed {}\n", chrono::Utc::now().timestamp_millis());
        for (id, oid) in refs {
            text.push_str(&format!("{PREFIX}{id} {oid}\n"));
        }
        let written =
            crate::fs::Root::open_or_create(dir).and_then(|root| root.write_atomic(file, text.as_bytes(), None));
        if let Err(e) = written {
            tracing::debug!(error = %e, "could not keep the claims remote's list");
        }
    }

    /// The claims `refs` point at, read with one `git cat-file --batch` (after one fetch of the
    /// objects this clone lacks, by their ids: no ref written). A ref that holds no claim (a
    /// commit, a missing object) is an error of its own, as (id, why); the others are read.
    pub fn read_all(&self, refs: &RefList) -> Result<Vec<ClaimRead>, Refusal> {
        if let Backend::Files(records) = &self.backend {
            return Ok(refs.iter().map(|(id, _)| self.read_listed(records, id)).collect());
        }
        let mut found = self.batch(refs.iter().map(|(_, oid)| oid.as_str()))?;
        let missing: Vec<&str> = refs.iter().map(|(_, oid)| oid.as_str()).filter(|o| !found.contains_key(*o)).collect();
        if let (Backend::Remote(remote), false) = (&self.backend, missing.is_empty()) {
            self.fetch_objects(remote, &missing, &format!("+{PREFIX}*:refs/docket/seen/*"))?;
            found.extend(self.batch(missing.into_iter())?);
        }
        Ok(refs
            .iter()
            .map(|(id, oid)| match found.get(oid) {
                Some((kind, text)) if kind == "blob" => Ok(Claim::parse(id, oid, text)),
                Some((kind, _)) => Err((id.clone(), format!("its ref {PREFIX}{id} points at a {kind}, not a claim"))),
                None => {
                    Err((id.clone(), format!("its ref {PREFIX}{id} points at {oid}, which this clone cannot read")))
                }
            })
            .collect())
    }

    /// `git cat-file --batch` of `oids`: the type and text of each object found.
    fn batch<'a>(
        &self,
        oids: impl Iterator<Item = &'a str>,
    ) -> Result<std::collections::HashMap<String, (String, String)>, Refusal> {
        let input: String = oids.map(|o| format!("{o}\n")).collect();
        let mut found = std::collections::HashMap::new();
        if input.is_empty() {
            return Ok(found);
        }
        let out = self.git(&["cat-file", "--batch"], Some(&input))?;
        let mut rest: &[u8] = &out.stdout;
        while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
            let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
            rest = &rest[nl + 1..];
            let parts: Vec<&str> = header.split(' ').collect();
            let [oid, kind, size] = parts[..] else { continue };
            let Ok(size) = size.parse::<usize>() else { break };
            let body = &rest[..size.min(rest.len())];
            found.insert(oid.to_string(), (kind.to_string(), String::from_utf8_lossy(body).into_owned()));
            rest = &rest[(size + 1).min(rest.len())..];
        }
        Ok(found)
    }

    /// Every claim record with what it says, how old the list is, and why it is older than it
    /// should be (the remote did not answer: its last list). The blobs this process has not read
    /// yet come from [`Claims::read_all`]; a ref that holds no claim reads as held by an unknown
    /// holder, so nothing offers its issue.
    pub fn records(&self) -> Result<(Vec<Claim>, Duration, Option<Refusal>), Refusal> {
        let listed = self.held()?;
        let unknown: RefList = {
            let blobs = self.blobs.lock().unwrap_or_else(|p| p.into_inner());
            listed.refs.iter().filter(|(_, oid)| !blobs.contains_key(oid)).cloned().collect()
        };
        if !unknown.is_empty() {
            let read = self.read_all(&unknown)?;
            let mut blobs = self.blobs.lock().unwrap_or_else(|p| p.into_inner());
            for ((_, oid), claim) in unknown.iter().zip(read) {
                blobs.insert(oid.clone(), claim.map(|c| c.text()).unwrap_or_default());
            }
        }
        let blobs = self.blobs.lock().unwrap_or_else(|p| p.into_inner());
        let claims = listed
            .refs
            .iter()
            .map(|(id, oid)| Claim::parse(id, oid, blobs.get(oid).map_or("", String::as_str)))
            .collect();
        Ok((claims, listed.age, listed.stale))
    }

    /// Every claim record as this clone already knows it, without asking a remote and writing
    /// nothing: the common git directory's refs; with a claims remote, the last list a docket
    /// process kept ([`Claims::with_seen_file`]) read from the objects already fetched (a record
    /// this clone lacks the object of is left out). With the list's age; `None` when a remote's
    /// list was never kept here.
    pub fn records_here(&self) -> Option<(Vec<Claim>, Duration)> {
        let (age, refs) = match &self.backend {
            Backend::Files(_) => {
                let listed = self.held().ok()?.refs;
                return Some((
                    listed.iter().filter_map(|(id, _)| self.read(id).ok().flatten()).collect(),
                    Duration::ZERO,
                ));
            }
            Backend::Common => (Duration::ZERO, self.held().ok()?.refs),
            Backend::Remote(_) => self.last_known(&self.state())?,
        };
        let found = self.batch(refs.iter().map(|(_, oid)| oid.as_str())).ok()?;
        let claims = refs
            .iter()
            .filter_map(|(id, oid)| match found.get(oid) {
                Some((kind, text)) if kind == "blob" => Some(Claim::parse(id, oid, text)),
                _ => None,
            })
            .collect();
        Some((claims, age))
    }

    fn forget_list(&self) {
        if let Some((_, _, fresh)) = self.state().last.as_mut() {
            *fresh = false;
        }
    }

    /// The claim refs matching `pattern` on `remote`, and in the same call the head of `branch`
    /// (a full ref name) when given.
    fn ls_remote_with(
        &self,
        remote: &str,
        pattern: &str,
        branch: Option<&str>,
        until: Instant,
    ) -> Result<(RefList, Option<String>), Refusal> {
        let mut args = vec!["ls-remote", "--refs", "--", remote, pattern];
        args.extend(branch);
        let out = self.git_remote(remote, &args, until)?;
        if !out.status.success() {
            return Err(unreachable(remote, &out));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let pairs: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once('\t')).collect();
        let head = branch.and_then(|b| pairs.iter().find(|(_, name)| *name == b).map(|(oid, _)| oid.to_string()));
        let lines: Vec<String> = pairs.iter().map(|(oid, name)| format!("{name} {oid}")).collect();
        Ok((parse_refs(&lines.join("\n")), head))
    }

    /// `git push --porcelain --force-with-lease=REF:EXPECTED REMOTE SPEC`: whether the remote
    /// took it (`false`: rejected, the lease did not hold); unreachable is an error.
    fn push(&self, remote: &str, spec: &str, name: &str, expected: &str, until: Instant) -> Result<bool, Refusal> {
        let lease = format!("--force-with-lease={name}:{expected}");
        let out =
            self.git_remote(remote, &["push", "--porcelain", "--no-verify", &lease, "--", remote, spec], until)?;
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().find(|l| l.contains(name));
        match line {
            Some(l) if !l.starts_with('!') && out.status.success() => Ok(true),
            Some(_) => Ok(false),
            None => Err(unreachable(remote, &out)),
        }
    }
}

/// The records of a workspace outside git: one file per claim.
impl Claims {
    fn files_root(&self, records: &Path) -> Result<crate::fs::Root, Refusal> {
        crate::fs::Root::open(&self.dir).map_err(|e| files_failed(records, &e))
    }

    /// The record of `id` as (its object id, its text); `None` when there is none.
    fn read_file(&self, records: &Path, id: &str) -> Result<Option<(String, String)>, Refusal> {
        ref_of(id)?;
        let root = match crate::fs::Root::open(&self.dir) {
            Ok(root) => root,
            // No workspace folder yet: no records either.
            Err(crate::StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(files_failed(records, &e)),
        };
        self.read_file_in(&root, records, id)
    }

    fn read_file_in(
        &self,
        root: &crate::fs::Root,
        records: &Path,
        id: &str,
    ) -> Result<Option<(String, String)>, Refusal> {
        match root.read(&records.join(id), MAX_RECORD) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let oid = text_oid(&text);
                self.blobs.lock().unwrap_or_else(|p| p.into_inner()).insert(oid.clone(), text.clone());
                Ok(Some((oid, text)))
            }
            Err(crate::StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(files_failed(records, &e)),
        }
    }

    /// One listed record read again (it may have been replaced or removed since the listing).
    fn read_listed(&self, records: &Path, id: &str) -> ClaimRead {
        match self.read_file(records, id) {
            Ok(Some((oid, text))) => Ok(Claim::parse(id, &oid, &text)),
            Ok(None) => Err((id.to_string(), format!("its claim file {} went away", records.join(id).display()))),
            Err(r) => Err((id.to_string(), r.short())),
        }
    }

    /// Every record in the folder as (issue id, object id); names that cannot be an issue's
    /// (the lock, a temp file) are not records.
    fn list_files(&self, records: &Path) -> Result<RefList, Refusal> {
        let entries = match std::fs::read_dir(records) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(Refusal::Failed(format!("cannot list the claim files in {} ({e})", records.display())));
            }
        };
        let mut ids: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| ref_of(name).is_ok())
            .collect();
        ids.sort();
        let root = self.files_root(records)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some((oid, _)) = self.read_file_in(&root, records, &id)? {
                out.push((id, oid));
            }
        }
        Ok(out)
    }

    /// Compare-and-set of the record of `id`: when it is `expected` (an object id; empty: no
    /// record), `new` replaces it (`None`: removed). Whether it did.
    fn swap_file(&self, records: &Path, id: &str, expected: &str, new: Option<&str>) -> Result<bool, Refusal> {
        ref_of(id)?;
        let root = self.files_root(records)?;
        let _lock = root.lock(&records.join(".lock")).map_err(|e| files_failed(records, &e))?;
        let file = records.join(id);
        let current = self.read_file_in(&root, records, id)?;
        if current.as_ref().map_or("", |(oid, _)| oid.as_str()) != expected {
            return Ok(false);
        }
        let done = match (new, &current) {
            (Some(text), _) => root.write_atomic(&file, text.as_bytes(), None),
            (None, Some(_)) => root.remove_file(&file),
            (None, None) => Ok(()),
        };
        done.map_err(|e| files_failed(records, &e))?;
        Ok(true)
    }
}

/// The longest claim file read (a record is a few hundred bytes).
const MAX_RECORD: u64 = 64 * 1024;

/// The object id of a claim file: a hash of its text (FNV-1a, 64 bits), so a compare-and-set
/// compares the whole record without keeping it.
fn text_oid(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

fn files_failed(records: &Path, e: &crate::StoreError) -> Refusal {
    Refusal::Failed(format!(
        "the claim records in {} cannot be read or written ({e}); check that folder, or remove it to start again with no claims",
        records.display()
    ))
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into the buffer it is given.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    match rc {
        0 => one_line(&String::from_utf8_lossy(&buf[..end])).replace(':', "_"),
        _ => "localhost".to_string(),
    }
}

fn unreachable(remote: &str, out: &Output) -> Refusal {
    let err = String::from_utf8_lossy(&out.stderr);
    let detail = err.lines().map(str::trim).find(|l| l.starts_with("fatal:")).unwrap_or("git failed").to_string();
    Refusal::Unreachable { remote: remote.to_string(), detail }
}

/// `REFNAME OID` lines as (issue id, object) for claim refs.
fn parse_refs(text: &str) -> RefList {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(name, oid)| Some((name.strip_prefix(PREFIX)?.to_string(), oid.trim().to_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_names_that_could_be_options_are_refused() {
        assert!(valid_remote("origin") && valid_remote("team/claims"));
        for bad in ["", "-uorigin", "--upload-pack=x", "../x", ".hidden", "a b", "a;b"] {
            assert!(!valid_remote(bad), "{bad}");
        }
    }

    #[test]
    fn only_a_remote_the_repository_configures_arbitrates_claims() {
        let tmp = tempfile::tempdir().expect("tmp");
        let git = |args: &[&str]| {
            let out = Command::new("git").arg("-C").arg(tmp.path()).args(args).output().expect("git");
            assert!(out.status.success(), "{args:?}");
        };
        git(&["init", "-q"]);
        // A name git does not know would be pushed to as a path inside the repository.
        let refused = Claims::new(tmp.path(), Some("sub/dir")).expect_err("an unknown remote is refused");
        assert!(
            refused.contains("no git remote is named \"sub/dir\"") && refused.contains("git remote -v"),
            "{refused}"
        );
        git(&["remote", "add", "team", "/nowhere/team.git"]);
        assert!(Claims::new(tmp.path(), Some("team")).is_ok());
        assert!(Claims::new(tmp.path(), None).is_ok());
    }

    #[test]
    fn claim_files_outside_git_are_compare_and_set_like_refs() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = tmp.path().join(".docket");
        std::fs::create_dir_all(&ws).expect("mkdir");
        let claims = Claims::in_files(&ws).with_ttl(Duration::from_secs(60));
        let Ok(Taken::New(ann)) = claims.take("ISS-000001", "ann", None) else { panic!("ann takes it") };
        assert!(matches!(claims.take("ISS-000001", "bob", None), Err(Refusal::Held(c)) if c.holder == "ann"));
        // A write over a record that changed since it was read is refused, and writes nothing.
        let stale = Claim { oid: "0".repeat(16), ..ann.clone() };
        let eve = Claim { holder: "eve".into(), ..ann.clone() };
        assert_eq!(claims.replace(&stale, &eve).expect("compared"), None);
        assert_eq!(claims.read("ISS-000001").expect("read").map(|c| c.holder), Some("ann".into()));
        assert!(claims.close("ISS-000001", Some(&ann), "ann").expect("tombstone"));
        // The folder's lock and temp files are no records.
        let listed = claims.held().expect("list");
        assert_eq!(listed.refs.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["ISS-000001"]);
        let refused = claims.take("ISS-000001", "bob", None);
        assert!(matches!(refused, Err(Refusal::Held(c)) if c.state == State::Closed), "a tombstone is never taken");
    }

    #[test]
    fn a_close_is_dead_once_its_lease_lapses_unless_it_finished() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = tmp.path().join(".docket");
        std::fs::create_dir_all(&ws).expect("mkdir");
        let claims = Claims::in_files(&ws).with_ttl(Duration::from_millis(200));
        let Ok(Taken::New(ann)) = claims.take("ISS-000001", "ann", None) else { panic!("ann takes it") };
        assert!(
            claims
                .close_keyed("ISS-000001", Some(&ann), ("ann", "s1"), None, Closing::Pending)
                .map(|t| t.is_some())
                .expect("tombstone")
        );
        let closing = claims.read("ISS-000001").expect("read").expect("a record");
        assert!(closing.state == State::Closed && !closing.lease.is_empty() && !closing.close_lapsed(claims.ttl));
        std::thread::sleep(Duration::from_millis(400));
        assert!(closing.close_lapsed(claims.ttl), "a lease and its skew later, the close is dead");
        // The same, finished before then: no lease, never dead.
        assert!(claims.finish_close(&closing).expect("finished"));
        let done = claims.read("ISS-000001").expect("read").expect("a record");
        assert!(done.state == State::Closed && done.lease.is_empty() && !done.close_lapsed(claims.ttl));
        assert!(claims.finish_close(&done).expect("already finished"), "finishing twice writes nothing and says so");
    }

    #[test]
    fn a_claim_given_up_stays_as_a_lapsed_lease_anyone_may_take() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = tmp.path().join(".docket");
        std::fs::create_dir_all(&ws).expect("mkdir");
        let claims = Claims::in_files(&ws).with_ttl(Duration::from_secs(60));
        let Ok(Taken::New(ann)) = claims.take("ISS-000001", "ann", None) else { panic!("ann takes it") };
        assert!(claims.give_up(&ann).expect("given up"));
        let record = claims.read("ISS-000001").expect("read").expect("the record stays");
        assert!(record.lapsed(claims.ttl).is_some(), "{record:?}");
        let Ok(Taken::New(bob)) = claims.take("ISS-000001", "bob", None) else { panic!("bob takes it, no reason") };
        assert!(bob.lapsed_from.as_deref().is_some_and(|l| l.starts_with("ann at ")), "{bob:?}");
    }

    #[test]
    fn a_claim_blob_reads_back_and_says_how_old_it_is() {
        let c = Claim::parse("ISS-1", "abc", "docket claim\nissue ISS-1\nholder ann\ntaken 2020-01-01T00:00:00Z\n");
        assert_eq!((c.holder.as_str(), c.taken_at.as_str()), ("ann", "2020-01-01T00:00:00Z"));
        assert!(c.describe().starts_with("held by ann since 2020-01-01T00:00:00Z ("), "{}", c.describe());
        assert!(c.describe().ends_with("y ago)"), "{}", c.describe());
        assert!(ref_of("ISS-000001").is_ok() && ref_of("-x").is_err() && ref_of("a/../b").is_err());
    }
}
