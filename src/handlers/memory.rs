//! The error memory's tool: errors_resolve.

use super::Handlers;
use crate::generated::*;
use crate::runtime::ToolResult;

/// errors_resolve: attach a fix to a failure pattern.
pub fn resolve(cx: &Handlers, input: ErrorsResolveInput) -> ToolResult<ErrorsResolveOutput> {
    match cx.memory.resolve(input.pattern_id, &input.resolution) {
        Ok(Some(p)) => {
            let text =
                format!("Recorded the fix for pattern {} ({}, failed {} times).", p.id, p.operation, p.frequency);
            let output = ErrorsResolveOutput {
                pattern_id: p.id,
                operation: p.operation,
                frequency: p.frequency,
                resolution: input.resolution,
            };
            Ok(crate::runtime::Reply::new(output).with_text(text))
        }
        Ok(None) => Err(errors::pattern_not_found(input.pattern_id)),
        Err(why) => Err(errors::error_memory_unavailable(why)),
    }
}
