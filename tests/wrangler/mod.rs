//! wrangler compatibility: docs/compatibility.md as a contract, and the calls wrangler's docs,
//! skills and own suite make, on the generated and the real wrangler workspace.

mod compatibility;
mod wrangler_compat;
mod wrangler_docs;
mod wrangler_dropin;
mod wrangler_facts;
