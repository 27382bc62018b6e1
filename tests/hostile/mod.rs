//! Hostile input never hurts the server or the data: abusive calls and protocol lines (the abuse
//! suite, split by kind), and hostile repositories (links, FIFOs, absurd ids, hook names).

mod abuse_paths;
pub(crate) mod abuse_stdio;
mod abuse_values;
mod abuse_yaml;
mod escape;
mod hostile_files;
mod hostile_hooks;
