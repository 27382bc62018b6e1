//! What a client asked to hear about: resource subscriptions (`resources/subscribe`) and the
//! log level (`logging/setLevel`). After a successful write, subscribers of the board and of
//! the issues the call touched get `notifications/resources/updated`; after a failed call, a
//! client that set a level of `warning` or lower gets a `notifications/message`.
//!
//! MCP logging is deprecated from protocol 2026-07-28 (SEP-2577) but still part of the earlier
//! versions docket serves, so it stays until rmcp drops it.
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::Mutex;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};

use crate::handlers::uri::ResourceUri;
use crate::runtime::{ToolError, ToolSpec};

pub use crate::call::Write;

/// Subscriptions one connection may hold.
pub const MAX_SUBSCRIPTIONS: usize = 256;

/// One connection's subscriptions and log level.
#[derive(Debug, Default)]
pub struct Listeners {
    subscribed: Mutex<BTreeSet<String>>,
    level: Mutex<Option<LoggingLevel>>,
}

impl Listeners {
    /// Any URI within [`super::resources::MAX_URI`] bytes is accepted (one that names nothing
    /// docket serves simply never fires), up to [`MAX_SUBSCRIPTIONS`] per connection.
    pub fn subscribe(&self, uri: String) -> Result<(), ErrorData> {
        super::resources::check_uri(&uri)?;
        let mut subscribed = self.subscribed.lock().unwrap_or_else(|p| p.into_inner());
        if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains(&uri) {
            return Err(ErrorData::invalid_params(
                format!(
                    "This connection already holds {MAX_SUBSCRIPTIONS} resource subscriptions, the most it may hold; {} was not added. Call resources/unsubscribe for URIs you no longer watch (docket://board covers every change), then subscribe again.",
                    super::resources::shown(&uri)
                ),
                None,
            ));
        }
        subscribed.insert(uri);
        Ok(())
    }

    pub fn unsubscribe(&self, uri: &str) {
        self.subscribed.lock().unwrap_or_else(|p| p.into_inner()).remove(uri);
    }

    pub fn set_level(&self, level: LoggingLevel) {
        *self.level.lock().unwrap_or_else(|p| p.into_inner()) = Some(level);
    }

    /// Whether a call of `tool` could concern a subscriber: it writes, and someone listens.
    pub fn wants(&self, tool: &ToolSpec) -> bool {
        !tool.read_only && !self.subscribed.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    /// The subscribed URIs a successful call of `tool` may have changed.
    pub fn touched(&self, tool: &ToolSpec, args: &Map<String, Value>, output: &Value) -> Vec<String> {
        if !self.wants(tool) {
            return Vec::new();
        }
        let subscribed = self.subscribed.lock().unwrap_or_else(|p| p.into_inner());
        let mut ids = BTreeSet::new();
        collect_ids(&Value::Object(args.clone()), &mut ids);
        collect_ids(output, &mut ids);
        subscribed
            .iter()
            .filter(|uri| match ResourceUri::parse(uri) {
                Some(ResourceUri::Board) => true,
                Some(other) => other.issue().is_some_and(|id| ids.contains(id)),
                None => false,
            })
            .cloned()
            .collect()
    }

    /// The board, if subscribed: what changed when the writes themselves were missed.
    pub fn board(&self) -> Vec<String> {
        let subscribed = self.subscribed.lock().unwrap_or_else(|p| p.into_inner());
        subscribed.iter().filter(|uri| ResourceUri::parse(uri) == Some(ResourceUri::Board)).cloned().collect()
    }

    /// Sends the failure as a log message when the client asked for warnings.
    pub async fn log_failure(&self, peer: &Peer<RoleServer>, tool: &str, error: &ToolError) {
        let wanted = *self.level.lock().unwrap_or_else(|p| p.into_inner());
        if wanted.is_some_and(|level| {
            matches!(level, LoggingLevel::Debug | LoggingLevel::Info | LoggingLevel::Notice | LoggingLevel::Warning)
        }) {
            let data = json!({"tool": tool, "code": error.code.as_str(), "message": error.message});
            let param = LoggingMessageNotificationParam::new(LoggingLevel::Warning, data).with_logger("docket");
            if let Err(e) = peer.notify_logging_message(param).await {
                tracing::debug!(error = %e, "could not send a log message");
            }
        }
    }
}

/// Forwards the writes announced on `writes` to the subscriptions of `listeners`, until the
/// session ends (its listeners dropped or its transport closed).
pub fn forward(
    mut writes: tokio::sync::broadcast::Receiver<Write>,
    listeners: std::sync::Weak<Listeners>,
    peer: Peer<RoleServer>,
) {
    use tokio::sync::broadcast::error::RecvError;
    /// How often an idle forwarder checks that its session is still there.
    const CHECK: std::time::Duration = std::time::Duration::from_secs(30);
    tokio::spawn(async move {
        loop {
            let received = tokio::time::timeout(CHECK, writes.recv()).await;
            let Some(listeners) = listeners.upgrade() else { return };
            if peer.is_transport_closed() {
                return;
            }
            let uris = match received {
                Err(_idle) => continue,
                Ok(Ok(w)) => listeners.touched(w.tool, &w.args, &w.output),
                // Missed some: the board changed, at least.
                Ok(Err(RecvError::Lagged(_))) => listeners.board(),
                Ok(Err(RecvError::Closed)) => return,
            };
            for uri in uris {
                let param = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
                if let Err(e) = peer.notify_resource_updated(param).await {
                    tracing::debug!(error = %e, "could not notify a subscriber");
                }
            }
        }
    });
}

/// Every string value under an `id` or `ids` key (issue ids of arguments and results).
fn collect_ids(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("id", Value::String(s)) => {
                        out.insert(s.clone());
                    }
                    ("ids", Value::Array(items)) => {
                        out.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                    _ => collect_ids(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_ids(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::TOOLS;

    #[test]
    fn writes_touch_the_board_and_the_issues_they_name() {
        let l = Listeners::default();
        for uri in ["docket://issues/ISS-000001", "docket://issues/ISS-000002/structure", "docket://issues/ISS-000009"]
        {
            l.subscribe(uri.into()).expect("subscribed");
        }
        l.subscribe("docket://board".into()).expect("subscribed");
        let args = json!({"updates": [{"id": "ISS-000001", "status": "closed"}]});
        let out = json!({"results": [{"id": "ISS-000002", "ok": true}]});
        let spec = |name: &str| TOOLS.iter().find(|t| t.name == name).expect("declared");
        let touched = l.touched(spec("issues_update_batch"), args.as_object().unwrap(), &out);
        assert_eq!(
            touched,
            vec!["docket://board", "docket://issues/ISS-000001", "docket://issues/ISS-000002/structure"]
        );
        assert!(l.touched(spec("issues_get"), args.as_object().unwrap(), &out).is_empty(), "reads change nothing");
        assert_eq!(l.board(), vec!["docket://board"], "missed writes touch the board");
        l.unsubscribe("docket://board");
        assert!(l.board().is_empty(), "no board subscription left");
        assert!(
            !l.touched(spec("issues_update_batch"), args.as_object().unwrap(), &out).contains(&"docket://board".into())
        );
    }
}
