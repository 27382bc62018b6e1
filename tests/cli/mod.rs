//! The human command line: the real `docket` binary in a terminal or a pipe, its daily commands,
//! one-shot calls, the agents' setup and the importers.

mod agents;
mod cli_daily;
mod cli_work;
mod commands;
mod import;
mod import_finished;
mod one_shot;
mod polish;
mod terminal;
