//! Batched renewals: a serving process renews every live claim of its sessions in one round,
//! one git call that writes: through a remote one `git push --porcelain` with one
//! `--force-with-lease=REF:OLD` per ref (not `--atomic`: one ref someone else took must not fail
//! the others' renewal), in the common git directory one `git update-ref --stdin` transaction
//! (each ref compare-and-set on the claim it renews; when the transaction fails because one ref
//! moved, each ref is then written on its own; the new blobs by one `git fast-import`). A ref refused is someone else's now (or changed by
//! another process): it is read again and renewed on its own only if it is still this session's.

use std::collections::HashMap;

use super::{Backend, Claim, Claims, PREFIX, Refusal, State, lease_end, ref_of};

/// What one renewal round did.
#[derive(Debug, Default)]
pub struct Renewed {
    /// The claims renewed, as written.
    pub renewed: Vec<Claim>,
    /// The issues whose record is no longer the session's claim (someone else's, closed, gone):
    /// not renewed. The session keeps them, so its next write is refused (fencing).
    pub lost: Vec<String>,
    /// The issues that could not be renewed this round, and why (the next round tries again).
    pub failed: Vec<(String, Refusal)>,
}

impl Claims {
    /// Renews the lease of each `(issue, session)` claim whose record is still held by that
    /// session, in one git call that writes (see the module's doc). The records come from one
    /// listing ([`Claims::held`]); a remote that did not answer the listing is an error, and nothing
    /// is pushed this round.
    pub fn renew_all(&self, wanted: &[(String, String)]) -> Result<Renewed, Refusal> {
        let mut out = Renewed::default();
        if wanted.is_empty() {
            return Ok(out);
        }
        // Outside git each record is its own small file: renewed one by one, no git call.
        if let Backend::Files(_) = &self.backend {
            for (id, session) in wanted {
                match self.read(id) {
                    Ok(Some(c)) if c.state == State::Held && c.session == *session => {
                        let new = Claim { lease: lease_end(self.ttl), ..c.clone() };
                        match self.replace(&c, &new) {
                            Ok(Some(written)) => out.renewed.push(written),
                            Ok(None) => out.lost.push(id.clone()),
                            Err(e) => out.failed.push((id.clone(), e)),
                        }
                    }
                    Ok(_) => out.lost.push(id.clone()),
                    Err(e) => out.failed.push((id.clone(), e)),
                }
            }
            return Ok(out);
        }
        let listed = self.held()?;
        if let Some(why) = listed.stale {
            return Err(why);
        }
        let oids: HashMap<&str, &str> = listed.refs.iter().map(|(id, oid)| (id.as_str(), oid.as_str())).collect();
        let texts = self.texts(wanted.iter().filter_map(|(id, _)| oids.get(id.as_str()).map(|o| (id.as_str(), *o))));
        let mut batch: Vec<(Claim, Claim)> = Vec::new();
        for (id, session) in wanted {
            let current = oids.get(id.as_str()).and_then(|oid| Some(Claim::parse(id, oid, texts.get(*oid)?)));
            match current {
                Some(c) if c.state == State::Held && c.session == *session => {
                    let new = Claim { lease: lease_end(self.ttl), ..c.clone() };
                    batch.push((c, new));
                }
                Some(_) => out.lost.push(id.clone()),
                None if oids.contains_key(id.as_str()) => out
                    .failed
                    .push((id.clone(), Refusal::Failed(format!("the claim record of {id} could not be read")))),
                None => out.lost.push(id.clone()),
            }
        }
        if batch.is_empty() {
            return Ok(out);
        }
        let written = self.hash_all(batch.iter().map(|(_, new)| new.text()).collect())?;
        let results = self.write_all(&batch, &written);
        self.forget_list();
        for (((old, new), oid), result) in batch.into_iter().zip(written).zip(results) {
            match result {
                Ok(true) => {
                    self.blobs.lock().unwrap_or_else(|p| p.into_inner()).insert(oid.clone(), new.text());
                    out.renewed.push(Claim { oid, ..new });
                }
                // The ref moved since it was listed: whose is it now? Renewed on its own if it is
                // still this session's (another process of its holder renewed it meanwhile).
                Ok(false) => match self.read(&old.id) {
                    Ok(Some(c)) if c.state == State::Held && c.session == old.session => {
                        match self.replace(&c, &Claim { lease: lease_end(self.ttl), ..c.clone() }) {
                            Ok(Some(renewed)) => out.renewed.push(renewed),
                            Ok(None) => out.lost.push(old.id.clone()),
                            Err(e) => out.failed.push((old.id.clone(), e)),
                        }
                    }
                    Ok(_) => out.lost.push(old.id.clone()),
                    Err(e) => out.failed.push((old.id.clone(), e)),
                },
                Err(e) => out.failed.push((old.id.clone(), e)),
            }
        }
        Ok(out)
    }

    /// The texts of the claim objects `(id, oid)`, by object id: from this process's cache, then
    /// one `cat-file --batch` of the rest, then (through a remote) one fetch each of what this
    /// clone still lacks. An object that cannot be read is left out.
    fn texts<'a>(&self, refs: impl Iterator<Item = (&'a str, &'a str)>) -> HashMap<String, String> {
        let refs: Vec<(&str, &str)> = refs.collect();
        let mut texts = HashMap::new();
        let mut missing = Vec::new();
        {
            let blobs = self.blobs.lock().unwrap_or_else(|p| p.into_inner());
            for (id, oid) in &refs {
                match blobs.get(*oid) {
                    Some(text) => drop(texts.insert(oid.to_string(), text.clone())),
                    None => missing.push((*id, *oid)),
                }
            }
        }
        if missing.is_empty() {
            return texts;
        }
        let found = self.batch(missing.iter().map(|(_, oid)| *oid)).unwrap_or_default();
        for (id, oid) in missing {
            let text = match found.get(oid) {
                Some((kind, text)) if kind == "blob" => Some(text.clone()),
                Some(_) => None,
                None => ref_of(id).ok().and_then(|name| self.content(oid, &name).ok()),
            };
            if let Some(text) = text {
                self.blobs.lock().unwrap_or_else(|p| p.into_inner()).insert(oid.to_string(), text.clone());
                texts.insert(oid.to_string(), text);
            }
        }
        texts
    }

    /// Writes `texts` as blobs with one `git fast-import` (each a `blob` with a mark, then
    /// `get-mark` of each); their object ids, in order. Nothing is written outside git.
    fn hash_all(&self, texts: Vec<String>) -> Result<Vec<String>, Refusal> {
        let mut input = String::new();
        for (i, text) in texts.iter().enumerate() {
            input.push_str(&format!("blob\nmark :{}\ndata {}\n{text}\n", i + 1, text.len()));
        }
        for i in 0..texts.len() {
            input.push_str(&format!("get-mark :{}\n", i + 1));
        }
        let out = self.stdout(&["fast-import", "--quiet"], Some(&input))?;
        let oids: Vec<String> = out.lines().map(str::trim).map(str::to_string).collect();
        match oids.len() == texts.len() {
            true => Ok(oids),
            false => {
                Err(Refusal::Failed(format!("git fast-import gave {} ids for {} claims", oids.len(), texts.len())))
            }
        }
    }

    /// Compare-and-set of each `(old, new)` claim to its object in `oids`, in one git call:
    /// whether each ref was written (`false`: it no longer pointed at `old`).
    fn write_all(&self, batch: &[(Claim, Claim)], oids: &[String]) -> Vec<Result<bool, Refusal>> {
        let names: Vec<String> = batch.iter().map(|(old, _)| format!("{PREFIX}{}", old.id)).collect();
        match &self.backend {
            Backend::Common | Backend::Files(_) => {
                let input: String = names
                    .iter()
                    .zip(oids)
                    .zip(batch)
                    .map(|((name, oid), (old, _))| format!("update {name} {oid} {}\n", old.oid))
                    .collect();
                match self.git(&["update-ref", "-m", "docket claim renewal", "--stdin"], Some(&input)) {
                    Ok(o) if o.status.success() => names.iter().map(|_| Ok(true)).collect(),
                    // One ref moved, so the transaction wrote none: each on its own.
                    _ => names
                        .iter()
                        .zip(oids)
                        .zip(batch)
                        .map(|((name, oid), (old, _))| {
                            let args = ["update-ref", "-m", "docket claim renewal", "--", name, oid, &old.oid];
                            self.git(&args, None).map(|o| o.status.success())
                        })
                        .collect(),
                }
            }
            Backend::Remote(remote) => self.push_all(remote, &names, oids, batch),
        }
    }

    /// One `git push --porcelain` of every ref, each with its own lease; the per-ref results.
    fn push_all(
        &self,
        remote: &str,
        names: &[String],
        oids: &[String],
        batch: &[(Claim, Claim)],
    ) -> Vec<Result<bool, Refusal>> {
        let mut args: Vec<String> = vec!["push".into(), "--porcelain".into(), "--no-verify".into()];
        args.extend(names.iter().zip(batch).map(|(name, (old, _))| format!("--force-with-lease={name}:{}", old.oid)));
        args.extend(["--".into(), remote.to_string()]);
        args.extend(names.iter().zip(oids).map(|(name, oid)| format!("{oid}:{name}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = match self.git_remote(remote, &args, self.until()) {
            Ok(out) => out,
            Err(e) => return names.iter().map(|_| Err(e.clone())).collect(),
        };
        // `FLAG \t SRC:DST \t SUMMARY`, one line per ref; `!` is a refusal.
        let text = String::from_utf8_lossy(&out.stdout);
        let flags: HashMap<&str, bool> = text
            .lines()
            .filter_map(|l| {
                let mut parts = l.split('\t');
                let flag = parts.next()?;
                let dst = parts.next()?.rsplit_once(':')?.1;
                Some((dst, !flag.starts_with('!')))
            })
            .collect();
        names
            .iter()
            .map(|name| match flags.get(name.as_str()) {
                Some(won) => Ok(*won),
                None => Err(super::unreachable(remote, &out)),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str], input: Option<&str>) -> String {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(dir).args(args).stdout(std::process::Stdio::piped());
        cmd.stdin(if input.is_some() { std::process::Stdio::piped() } else { std::process::Stdio::null() });
        let mut child = cmd.spawn().expect("git");
        if let Some(text) = input {
            std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), text.as_bytes()).expect("write");
        }
        let out = child.wait_with_output().expect("git");
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    #[test]
    fn one_transaction_renews_the_sessions_claims_and_leaves_a_ref_someone_else_took() {
        let tmp = tempfile::tempdir().expect("tmp");
        git(tmp.path(), &["init", "-q"], None);
        let claims = Claims::new(tmp.path(), None).expect("claims").with_ttl(std::time::Duration::from_secs(60));
        let ids = ["ISS-1", "ISS-2", "ISS-3"];
        let mut first = Vec::new();
        for id in ids {
            match claims.take_as(id, "ann", "s1", None).expect("claim") {
                super::super::Taken::New(c) => first.push(c),
                other => panic!("{other:?}"),
            }
        }
        // bob takes ISS-2 behind the process's back (another process, another session).
        let bob = "docket claim\nissue ISS-2\nholder bob\nsession s2\ntaken 2030-01-01T00:00:00Z\n";
        let oid = git(tmp.path(), &["hash-object", "-w", "--stdin"], Some(bob));
        git(tmp.path(), &["update-ref", "refs/docket/claims/ISS-2", &oid], None);
        // A renewal a moment later writes a later lease (a new blob).
        std::thread::sleep(std::time::Duration::from_millis(5));
        let wanted: Vec<(String, String)> = ids.iter().map(|id| (id.to_string(), "s1".to_string())).collect();
        let done = claims.renew_all(&wanted).expect("renewed");
        let renewed: Vec<&str> = done.renewed.iter().map(|c| c.id.as_str()).collect();
        assert_eq!((renewed, done.lost.clone()), (vec!["ISS-1", "ISS-3"], vec!["ISS-2".to_string()]), "{done:?}");
        assert!(done.failed.is_empty(), "{done:?}");
        assert_eq!(git(tmp.path(), &["rev-parse", "refs/docket/claims/ISS-2"], None), oid, "bob's ref untouched");
        for (before, id) in [(&first[0], "ISS-1"), (&first[2], "ISS-3")] {
            let now = git(tmp.path(), &["rev-parse", &format!("refs/docket/claims/{id}")], None);
            assert_ne!(now, before.oid, "{id} rewritten");
            let text = git(tmp.path(), &["cat-file", "blob", &now], None);
            let lease = text.lines().find_map(|l| l.strip_prefix("lease ")).expect("a lease");
            assert!(lease >= before.lease.as_str() && text.contains("session s1"), "{text}");
        }
    }

    #[test]
    fn a_transaction_one_moved_ref_fails_is_written_ref_by_ref() {
        let tmp = tempfile::tempdir().expect("tmp");
        git(tmp.path(), &["init", "-q"], None);
        let claims = Claims::new(tmp.path(), None).expect("claims");
        let mut batch = Vec::new();
        for id in ["ISS-1", "ISS-2", "ISS-3"] {
            let super::super::Taken::New(c) = claims.take_as(id, "ann", "s1", None).expect("claim") else {
                panic!("new")
            };
            batch.push((c.clone(), Claim { lease: "2030-01-01T00:00:00.000Z".into(), ..c }));
        }
        // ISS-2 moved after it was read: its compare-and-set fails, and with it the transaction.
        let moved = git(tmp.path(), &["hash-object", "-w", "--stdin"], Some("docket claim\nissue ISS-2\nholder bob\n"));
        git(tmp.path(), &["update-ref", "refs/docket/claims/ISS-2", &moved], None);
        let oids = claims.hash_all(batch.iter().map(|(_, n)| n.text()).collect()).expect("hashed");
        let won: Vec<bool> = claims.write_all(&batch, &oids).into_iter().map(|r| r.expect("git ran")).collect();
        assert_eq!(won, [true, false, true]);
        let at = |id: &str| git(tmp.path(), &["rev-parse", &format!("refs/docket/claims/{id}")], None);
        assert_eq!((at("ISS-1"), at("ISS-2"), at("ISS-3")), (oids[0].clone(), moved, oids[2].clone()));
    }
}
