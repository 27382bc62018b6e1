//! What a [`Server`](super::Server) hands on: every MCP method but the tools' (resources,
//! prompts, completions, subscriptions, logging, skills, custom methods and notifications) goes
//! to an inner rmcp `ServerHandler`, as rmcp's own `Router` hands on what is not a tool. The
//! inner handler may also adapt a call's arguments before it runs and see its result before it is
//! answered ([`Inner`]).

#![allow(deprecated)] // subscribe, unsubscribe and set_level are still part of the protocols served

use std::borrow::Cow;
use std::future::Future;

use rmcp::model::{
    CancelTaskParams, CancelledNotificationParam, CompleteRequestParams, CompleteResult, CustomNotification,
    CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    GetTaskParams, GetTaskResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use super::Server;
use crate::call::CallObserver;
use crate::{ToolResult, ToolSpec, Warning};

/// The inner handler of a [`Server`]: an rmcp `ServerHandler` for every method but tools/list and
/// tools/call (its `get_info` gives the capabilities; the server adds tools, its name and its
/// instructions), and what it adds to each tool call.
pub trait Inner: ServerHandler {
    /// Before a call of `spec` runs (after the consolidated profile resolved it, before the
    /// observer and the argument rules): may change its arguments, e.g. to accept what another
    /// server's clients send. The warnings go after the observer's.
    fn adapt(&self, spec: &'static ToolSpec, args: &mut Map<String, Value>) -> Vec<Warning> {
        let _ = (spec, args);
        Vec::new()
    }

    /// After a call of `tool` ran (or was refused), before its result is renamed for the
    /// profile and answered: may change the result (its warnings) or tell the client more.
    fn answered(
        &self,
        tool: &str,
        result: &mut ToolResult<Value>,
        context: &RequestContext<RoleServer>,
    ) -> impl Future<Output = ()> + Send {
        let _ = (tool, result, context);
        std::future::ready(())
    }
}

/// No inner handler: the server serves its tools and nothing else.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoInner;

impl ServerHandler for NoInner {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::default())
    }
}

impl Inner for NoInner {}

impl<S: super::ToolSet, O: CallObserver + 'static, I: Inner> ServerHandler for Server<S, O, I> {
    fn get_info(&self) -> ServerConfig {
        self.info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let _ = (request, context);
        // Every profile fits one page; several clients ignore nextCursor on tools/list.
        Ok(rmcp::model::ListToolsResult::with_all_items(self.settings.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.settings.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.inner.complete(request, context).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.set_level(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.inner.get_prompt(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.inner.list_prompts(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.inner.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.inner.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.inner.read_resource(request, context).await
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.inner.listen(context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.subscribe(request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.unsubscribe(request, context).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        self.inner.on_custom_request(request, context).await
    }

    async fn on_cancelled(&self, notification: CancelledNotificationParam, context: NotificationContext<RoleServer>) {
        self.inner.on_cancelled(notification, context).await
    }

    async fn on_progress(&self, notification: ProgressNotificationParam, context: NotificationContext<RoleServer>) {
        self.inner.on_progress(notification, context).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.inner.on_initialized(context).await
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.inner.on_roots_list_changed(context).await
    }

    async fn on_custom_notification(&self, notification: CustomNotification, context: NotificationContext<RoleServer>) {
        self.inner.on_custom_notification(notification, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.inner.get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.cancel_task(request, context).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.inner.list_skills(request, context).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.inner.get_skill(request, context).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.inner.read_resource_directory(request, context).await
    }
}
