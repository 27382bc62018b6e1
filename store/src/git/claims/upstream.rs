//! The claims remote's default branch, as the claims listing last saw it. A clone that has not
//! pulled still shows a teammate's closed issue open in its files, and a tombstone ends once the
//! close is on that branch: so ready and claim ask the branch itself (its head comes with the
//! one `ls-remote` of the claim refs, its tree is read once per head). An issue file that is not
//! on the branch yet was created here since the last push: its id is this clone's guess until
//! the merge that may renumber it, so no claim through the remote should name it yet.

use std::collections::HashSet;
use std::path::{Component, Path};
use std::sync::Arc;

use super::{Backend, Claims};

/// Where an issue file of this workspace stands on the remote's default branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBranch {
    /// There, in the folder it is in here (or anywhere, for an archived file here).
    Pushed,
    /// There in `archived/` while it is open here: closed by someone else, not yet pulled.
    Closed,
    /// Not there at all: created here since the last push.
    NotYet,
}

/// The workspace's issue files on the remote's default branch at one commit.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// `REMOTE/BRANCH`, for messages.
    pub branch: String,
    oid: String,
    /// The workspace folder from the repository's top level (`""`: the top level itself).
    ws_rel: String,
    paths: Arc<HashSet<String>>,
}

impl Upstream {
    /// Where the file at `in_ws` (a path inside the workspace folder) stands on the branch.
    pub fn state(&self, in_ws: &Path) -> OnBranch {
        let Some(rel) = slash_path(in_ws) else { return OnBranch::Pushed };
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        let archived_here = dir == "archived" || dir.ends_with("/archived");
        let twin = match archived_here {
            true => join(dir.strip_suffix("archived").unwrap_or("").trim_end_matches('/'), name),
            false => join(&join(dir, "archived"), name),
        };
        let on = |p: &str| self.paths.contains(&join(&self.ws_rel, p));
        match (on(&rel), on(&twin), archived_here) {
            (true, _, _) | (false, true, true) => OnBranch::Pushed,
            (false, true, false) => OnBranch::Closed,
            (false, false, _) => OnBranch::NotYet,
        }
    }
}

fn join(a: &str, b: &str) -> String {
    match a.is_empty() {
        true => b.to_string(),
        false => format!("{a}/{b}"),
    }
}

/// `p` as git names it (`/`-separated, no `.` or `..`), if it is plain UTF-8.
fn slash_path(p: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> =
        p.components().map(|c| if let Component::Normal(s) = c { s.to_str() } else { None }).collect();
    parts.map(|p| p.join("/")).filter(|p| !p.is_empty())
}

impl Claims {
    /// The remote's default branch as `refs/heads/NAME`, from this clone's `REMOTE/HEAD` (else
    /// `main`, else `master`, whichever this clone has fetched).
    pub(super) fn branch_name(&self) -> Option<String> {
        let Backend::Remote(remote) = &self.backend else { return None };
        self.branch
            .get_or_init(|| {
                let head = format!("refs/remotes/{remote}/HEAD");
                let tracking = match self.stdout(&["symbolic-ref", "-q", "--end-of-options", &head], None) {
                    Ok(b) if !b.is_empty() => Some(b),
                    _ => ["main", "master"].iter().map(|b| format!("refs/remotes/{remote}/{b}")).find(|r| {
                        self.stdout(
                            &["rev-parse", "-q", "--verify", "--end-of-options", &format!("{r}^{{commit}}")],
                            None,
                        )
                        .is_ok()
                    }),
                };
                let prefix = format!("refs/remotes/{remote}/");
                tracking.and_then(|t| t.strip_prefix(&prefix).map(|b| format!("refs/heads/{b}")))
            })
            .clone()
    }

    /// The workspace's files on the remote's default branch, at the head the last listing of the
    /// claim refs saw (else at this clone's remote-tracking branch). `None`: no claims remote, no such branch, or its commit could
    /// not be fetched in time (the caller then judges by the files alone).
    pub fn upstream(&self) -> Option<Upstream> {
        let listed = self.state().branch_oid.clone();
        self.upstream_at(listed)
    }

    /// The workspace's files on the remote's default branch as the remote has it now (one
    /// `ls-remote` of that branch alone). Asked after a claim's push, it has every close that
    /// could have ended a tombstone before that push: a tombstone ends only once its close is on
    /// the branch, so a record the push found absent may be a close this clone never saw.
    pub fn upstream_now(&self) -> Option<Upstream> {
        let Backend::Remote(remote) = &self.backend else { return None };
        let name = self.branch_name()?;
        let (_, head) = self.ls_remote_with(remote, &name, Some(&name), self.until()).ok()?;
        self.upstream_at(Some(head?))
    }

    /// The workspace's files on the branch at `oid` (`None`: this clone's remote-tracking branch).
    fn upstream_at(&self, oid: Option<String>) -> Option<Upstream> {
        let ws_rel = self.ws_rel.as_str();
        let Backend::Remote(remote) = &self.backend else { return None };
        let name = self.branch_name()?;
        let short = name.strip_prefix("refs/heads/").unwrap_or(&name).to_string();
        let tracking = format!("refs/remotes/{remote}/{short}");
        let oid = match oid {
            Some(oid) => oid,
            None => self.stdout(&["rev-parse", "-q", "--verify", "--end-of-options", &tracking], None).ok()?,
        };
        {
            let cached = self.upstream.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(u) = cached.as_ref().filter(|u| u.oid == oid && u.ws_rel == ws_rel) {
                return Some(u.clone());
            }
        }
        let commit = format!("{oid}^{{commit}}");
        if self.stdout(&["cat-file", "-e", &commit], None).is_err() {
            self.fetch_objects(remote, &[oid.as_str()], &format!("+{name}:{tracking}")).ok()?;
        }
        let mut args = vec!["ls-tree", "-r", "--full-tree", "--name-only", "-z", oid.as_str(), "--"];
        if !ws_rel.is_empty() {
            args.push(ws_rel);
        }
        let out = self.git(&args, None).ok().filter(|o| o.status.success())?;
        let paths: HashSet<String> = out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .filter_map(|p| std::str::from_utf8(p).ok().map(str::to_string))
            .collect();
        let upstream =
            Upstream { branch: format!("{remote}/{short}"), oid, ws_rel: ws_rel.to_string(), paths: Arc::new(paths) };
        *self.upstream.lock().unwrap_or_else(|p| p.into_inner()) = Some(upstream.clone());
        Some(upstream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(paths: &[&str], ws_rel: &str) -> Upstream {
        Upstream {
            branch: "origin/main".into(),
            oid: String::new(),
            ws_rel: ws_rel.into(),
            paths: Arc::new(paths.iter().map(|p| p.to_string()).collect()),
        }
    }

    #[test]
    fn a_file_is_pushed_closed_elsewhere_or_not_yet_on_the_branch() {
        let up = on(&[".docket/issues/ISS-1-a.md", ".docket/issues/archived/ISS-2-b.md"], ".docket");
        assert_eq!(up.state(Path::new("issues/ISS-1-a.md")), OnBranch::Pushed);
        assert_eq!(up.state(Path::new("issues/ISS-2-b.md")), OnBranch::Closed);
        assert_eq!(up.state(Path::new("issues/archived/ISS-2-b.md")), OnBranch::Pushed);
        assert_eq!(up.state(Path::new("issues/ISS-3-c.md")), OnBranch::NotYet);
        // Closed here and still open there: this clone's close, not pushed yet.
        assert_eq!(up.state(Path::new("issues/archived/ISS-1-a.md")), OnBranch::Pushed);
        let top = on(&["issues/archived/ISS-4-d.md"], "");
        assert_eq!(top.state(Path::new("issues/ISS-4-d.md")), OnBranch::Closed);
    }
}
