//! Shared helpers of the store's tests: the wrangler workspaces they run on, and
//! `on_each_fixture!` (in fixture.rs, which docket's tests/ include as well).
#![allow(dead_code)]

pub mod fixture;
pub mod quirky;
