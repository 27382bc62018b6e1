    async fn issues_recent(&self, input: IssuesRecentInput, _: CallContext) -> ToolResult<IssuesRecentOutput> {
        run(self, move |h| aggregate::recent(h, input)).await
    }

