//! Rust items for the tool surface: error constructors, argument parsing, the handler trait,
//! the tool table (what tools/list publishes) and dispatch.

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::schema::{input_schema, output_schema};
use super::types::{docs, ident, rules};
use crate::model::{ErrorTemplate, Model, Tool};
use crate::template;

/// `pub mod errors`: one constructor per catalogue template, with its params as arguments.
pub fn errors(templates: &[ErrorTemplate], rt: &TokenStream) -> TokenStream {
    let fns = templates.iter().map(|t| {
        let name = format_ident!("{}", t.name);
        let code = format_ident!("{}", t.code.to_upper_camel_case());
        let variant = format_ident!("{}", t.name.to_upper_camel_case());
        let message = &t.message;
        let used = template::placeholders(&t.message).unwrap_or_default();
        let params: Vec<_> = t.params.iter().map(|p| format_ident!("{}", p)).collect();
        let args = t.params.iter().filter(|p| used.contains(p)).map(|p| {
            let i = format_ident!("{}", p);
            quote! { #i = ToolError::placeholder(#i) }
        });
        let unused = t.params.iter().filter(|p| !used.contains(p)).map(|p| format_ident!("{}", p));
        let doc = docs(&format!("`{}`: {}", t.code, t.message));
        quote! {
            #doc
            pub fn #name( #( #params: impl ::std::fmt::Display ),* ) -> ToolError {
                #( let _ = &#unused; )*
                ToolError::new(ErrorCode::#code, Template::#variant.name(), format!(#message #(, #args)*))
            }
        }
    });
    let variants: Vec<_> = templates.iter().map(|t| format_ident!("{}", t.name.to_upper_camel_case())).collect();
    let names = templates.iter().map(|t| &t.name);
    quote! {
        /// Error constructors from the catalogue in tools.yaml; messages are the manifest's templates.
        pub mod errors {
            use #rt::{ErrorCode, ToolError};

            /// The catalogue's templates; a [`ToolError`]'s `template` is one of their names.
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            pub enum Template { #( #variants ),* }

            impl Template {
                /// The name in tools.yaml (`_meta.error.template`).
                pub const fn name(self) -> &'static str {
                    match self { #( Template::#variants => #names ),* }
                }

                /// The template a [`ToolError`] was made from.
                pub fn of(error: &ToolError) -> ::std::option::Option<Template> {
                    [ #( Template::#variants ),* ].into_iter().find(|t| t.name() == error.template)
                }
            }

            #( #fns )*
        }
    }
}

/// `ARGUMENT_ERRORS`: the catalogue's messages for the argument checks of
/// the runtime's `args::parse`, which holds the checking logic itself.
pub fn argument_errors(rt: &TokenStream) -> TokenStream {
    quote! {
        /// The manifest's messages for what the argument checks refuse.
        pub const ARGUMENT_ERRORS: #rt::args::ArgumentErrors = #rt::args::ArgumentErrors {
            missing_required: |tool, param| errors::missing_required(tool, param),
            unknown_parameter: |tool, param, allowed| errors::unknown_parameter(tool, param, allowed),
            invalid_type: |param, expected, actual| errors::invalid_type(param, expected, actual),
            invalid_enum: |param, value, allowed| errors::invalid_enum(param, value, allowed),
            out_of_range: |param, value, range| errors::out_of_range(param, value, range),
            invalid_length: |param, length, range| errors::invalid_length(param, length, range),
            invalid_item_count: |param, count, range| errors::invalid_item_count(param, count, range),
            invalid_arguments: |tool, details| errors::invalid_arguments(tool, details),
        };
    }
}

/// `impl FooInput { RULES, from_arguments }` for every tool.
pub fn input_impls(tools: &[Tool], rt: &TokenStream) -> TokenStream {
    let impls = tools.iter().map(|t| {
        let ty = ident(&t.input.rust_name);
        let name = &t.name;
        let table = rules(&t.input);
        quote! {
            impl #ty {
                /// Argument rules from tools.yaml, checked before deserialization.
                pub const RULES: &'static [ParamRule] = #table;
                /// Parses and checks the raw arguments of a call.
                pub fn from_arguments(args: ::serde_json::Map<::std::string::String, ::serde_json::Value>) -> ::std::result::Result<Self, ToolError> {
                    #rt::args::parse(#name, args, Self::RULES, &ARGUMENT_ERRORS)
                }
            }
        }
    });
    let arms = tools.iter().map(|t| {
        let ty = ident(&t.input.rust_name);
        let name = &t.name;
        quote! { #name => #ty::RULES, }
    });
    quote! {
        #( #impls )*

        /// The argument rules of tool `name` (the server strips undeclared parameters with them).
        pub fn input_rules(name: &str) -> ::std::option::Option<&'static [ParamRule]> {
            Some(match name {
                #( #arms )*
                _ => return None,
            })
        }
    }
}

/// `pub trait ToolHandlers`: one async method per tool, documented with its description.
pub fn handler_trait(tools: &[Tool]) -> TokenStream {
    let methods = tools.iter().map(|t| {
        let m = format_ident!("{}", t.name);
        let input = ident(&t.input.rust_name);
        let output = ident(&t.output.rust_name);
        let doc = docs(&t.description);
        let deprecated = t.deprecated.as_ref().map(|d| {
            let note = format!("use {} instead", d.replacement);
            quote! { #[deprecated(note = #note)] }
        });
        quote! {
            #doc
            #deprecated
            fn #m(&self, input: #input, ctx: CallContext) -> impl ::std::future::Future<Output = ToolResult<#output>> + Send;
        }
    });
    quote! {
        /// The server's tools: one method per tool of the manifest, implemented by the server for
        /// its own type. Return typed output; the generated dispatch and the runtime own arguments,
        /// JSON and the result envelope.
        pub trait ToolHandlers: Send + Sync + 'static {
            #( #methods )*
        }
    }
}

/// `pub const TOOLS`: name, title, description, group, annotations and schemas of every tool.
pub fn tool_table(model: &Model) -> TokenStream {
    let specs = model.tools.iter().map(|t| {
        let name = &t.name;
        let title = &t.title;
        let description = t.published_description();
        let group = &t.group;
        let a = t.annotations;
        let (ro, de, id, ow) = (a.read_only, a.destructive, a.idempotent, a.open_world);
        let input = input_schema(&t.input).to_string();
        let output = output_schema(&t.output).to_string();
        let error_context = &t.error_context;
        let writes_when = match &t.writes_when {
            Some(flag) => quote! { Some(#flag) },
            None => quote! { None },
        };
        let deprecated_by = match &t.deprecated {
            Some(d) => {
                let r = &d.replacement;
                quote! { Some(#r) }
            }
            None => quote! { None },
        };
        quote! {
            ToolSpec {
                name: #name, title: #title, description: #description, group: #group,
                read_only: #ro, destructive: #de, idempotent: #id, open_world: #ow,
                deprecated_by: #deprecated_by, input_schema: #input, output_schema: #output,
                error_context: &[ #( #error_context ),* ], writes_when: #writes_when,
            }
        }
    });
    quote! {
        /// Every tool declared in tools.yaml, in manifest order.
        pub const TOOLS: &[ToolSpec] = &[ #( #specs ),* ];
    }
}

/// `pub async fn dispatch`: parse arguments, call the handler, serialize its output.
pub fn dispatch(tools: &[Tool]) -> TokenStream {
    let arms = tools.iter().map(|t| {
        let name = &t.name;
        let m = format_ident!("{}", t.name);
        let input = ident(&t.input.rust_name);
        let allow = t.deprecated.as_ref().map(|_| quote! { #[allow(deprecated)] });
        quote! {
            #name => match #input::from_arguments(args) {
                Ok(input) => {
                    #allow handlers.#m(input, ctx).await.and_then(Reply::into_json)
                }
                Err(e) => Err(e),
            },
        }
    });
    quote! {
        /// Runs tool `name`; `None` when no such tool is declared.
        pub async fn dispatch<H: ToolHandlers>(
            handlers: &H,
            name: &str,
            args: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            ctx: CallContext,
        ) -> ::std::option::Option<ToolResult<::serde_json::Value>> {
            Some(match name {
                #( #arms )*
                _ => return None,
            })
        }
    }
}
