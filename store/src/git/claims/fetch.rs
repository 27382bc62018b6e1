//! Fetching claim objects this clone lacks. A clone reads a claim's blob by its object id; the
//! ids come from one `ls-remote`. Fetching those ids themselves (protocol v2 lets a client ask
//! for any object) writes no ref at all: with 1,000 claim refs, a fetch that mirrored them under
//! `refs/docket/seen/` spent most of a first `docket doctor` writing the 1,000 refs (numbers in
//! docs/benchmarks.md, "1,000 claim refs"). A server that refuses a want by object id is asked
//! the old way, by the refs.

use super::{Claims, Refusal, unreachable};

/// How many object ids one fetch names on its command line.
const PER_FETCH: usize = 2_000;

impl Claims {
    /// Fetches the objects `oids` from `remote` (distinct ids, this clone lacking them), by their
    /// ids; if the remote refuses that, by `refspec` (refs written where it says). Each git call
    /// runs under the remote's deadline.
    pub(super) fn fetch_objects(&self, remote: &str, oids: &[&str], refspec: &str) -> Result<(), Refusal> {
        let mut unique: Vec<&str> = oids.to_vec();
        unique.sort_unstable();
        unique.dedup();
        let mut by_id = true;
        for chunk in unique.chunks(PER_FETCH) {
            let mut args = vec!["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", remote];
            args.extend(chunk.iter().copied());
            let out = self.git_remote(remote, &args, self.until())?;
            if !out.status.success() {
                tracing::debug!(stderr = %String::from_utf8_lossy(&out.stderr), "the claims remote refused a fetch by object id");
                by_id = false;
                break;
            }
        }
        if by_id {
            return Ok(());
        }
        let args = ["fetch", "-q", "--prune", "--no-tags", "--no-write-fetch-head", "--", remote, refspec];
        let out = self.git_remote(remote, &args, self.until())?;
        match out.status.success() {
            true => Ok(()),
            false => Err(unreachable(remote, &out)),
        }
    }
}
