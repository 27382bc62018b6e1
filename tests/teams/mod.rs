//! Teams with real git: clones of a local bare origin, linked worktrees, merges, hooks, claims and
//! their leases, tombstones, and the soak.

mod branches;
mod claims_network;
mod claims_outside_git;
mod claims_scale;
mod fifth_ring;
mod leases;
mod merge_hooks;
mod races;
mod remote_claims;
mod renumbered_claims;
mod soak;
mod tombstones;
mod unpulled;
mod worktrees;
