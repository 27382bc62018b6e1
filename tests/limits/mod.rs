//! Bounded resources and published bounds: HTTP sessions, half-sent requests and unread replies,
//! the limits every schema publishes, write caps, token budgets.

mod bounded;
mod published_limits;
mod token_budget;
mod write_caps;
