//! docket's tools as the toolkit's server runs them: the generated dispatch
//! ([`crate::call::dispatch`]) as a call of the connection's session, the holder of the claims
//! its calls take ([`crate::handlers::SESSION`]).

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};
use toolkit_runtime::consolidated::Profile;
use toolkit_runtime::server::ToolSet;
use toolkit_runtime::{CallContext, ToolResult, ToolSpec};

use crate::generated::{self, ToolHandlers};
use crate::store::holder::Session;
use crate::store::served::Served;

/// The tools of `H` for one connection, whose session lives as long as they do.
pub struct SessionTools<H> {
    handlers: Arc<H>,
    store: Arc<Served>,
    session: Arc<Session>,
}

impl<H> SessionTools<H> {
    /// Opens the connection's session on `store`.
    pub fn new(handlers: Arc<H>, store: Arc<Served>) -> Self {
        let session = store.open_session();
        SessionTools { handlers, store, session }
    }
}

impl<H: ToolHandlers> ToolSet for SessionTools<H> {
    const NAME: &'static str = generated::SERVER_NAME;
    const TITLE: &'static str = generated::SERVER_TITLE;
    const INSTRUCTIONS: &'static str = generated::SERVER_INSTRUCTIONS;

    fn tools() -> &'static [ToolSpec] {
        generated::TOOLS
    }

    fn call(
        &self,
        name: &str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> impl Future<Output = Option<ToolResult<Value>>> + Send {
        let session = Arc::clone(&self.session);
        let called = crate::call::dispatch(&*self.handlers, name, args, ctx, self.store.workspace());
        async move { Some(crate::handlers::SESSION.scope(session, called).await) }
    }

    fn consolidated() -> Option<&'static Profile> {
        Some(&generated::consolidated::PROFILE)
    }
}
