//! Workspace store: placeholder until the store module lands.
