//! `pub mod arguments`: each tool's arguments as a caller in the same program writes them (a
//! command line, a web page), so a parameter renamed in the manifest breaks the caller's build
//! instead of being sent under its old name and ignored.
//!
//! The handlers' `{Tool}Input` types cannot serve: their defaulted fields would be sent as
//! explicit values, and their enums cannot hold a value a person typed wrong, which the tool
//! must see to refuse it with the manifest's message (listing the valid values, every other
//! problem of the call beside it). So each struct reachable from a tool's input has a twin here,
//! of the same name: every field but the required ones an `Option` left out when `None`, enum
//! values as their wire strings, shared parameter sets flattened as in the input.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::types::{docs, field_head, ident, parameter_set, shape_type};
use crate::model::{Model, Object, RustType, Shape};

/// The module: the `ToolArguments` trait, the twins and its impl for each tool's.
pub fn module(model: &Model) -> TokenStream {
    let mut wanted = BTreeSet::new();
    for tool in &model.tools {
        reach(&tool.input, model, &mut wanted);
    }
    // In the order of the handlers' types, each once.
    let structs = model.rust_types.iter().filter_map(|t| match t {
        RustType::Struct(obj) if wanted.remove(&obj.rust_name) => Some(twin(obj)),
        _ => None,
    });
    let impls = model.tools.iter().map(|t| {
        let (name, input, output) = (&t.name, ident(&t.input.rust_name), ident(&t.output.rust_name));
        quote! {
            impl ToolArguments for #input {
                const TOOL: &'static str = #name;
                type Output = super::#output;
            }
        }
    });
    quote! {
        /// Each tool's arguments as a caller in this program writes them: one struct per tool input
        /// (and per object in one), named like the handlers' types. A field left `None` is not
        /// sent, so the tool applies its own default; an enum value is its wire name, judged by the
        /// tool's argument rules like any client's (a wrong one is refused with the valid values).
        pub mod arguments {
            /// The arguments of a call to one tool.
            pub trait ToolArguments: ::serde::Serialize {
                /// The tool they are for.
                const TOOL: &'static str;
                /// The tool's structured result.
                type Output: ::serde::de::DeserializeOwned;

                /// The JSON object a call carries (these types always serialize to one).
                fn to_map(&self) -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                    match ::serde_json::to_value(self) {
                        Ok(::serde_json::Value::Object(map)) => map,
                        _ => ::serde_json::Map::new(),
                    }
                }
            }

            #( #structs )*
            #( #impls )*
        }
    }
}

/// Adds the objects `obj` holds (parameter sets, object parameters, objects in arrays), at any
/// depth, to `out`, and `obj` itself.
fn reach(obj: &Object, model: &Model, out: &mut BTreeSet<String>) {
    if !out.insert(obj.rust_name.clone()) {
        return;
    }
    for f in &obj.fields {
        match &f.flattened_into {
            Some((_, set)) => {
                let found = model.rust_types.iter().find_map(|t| match t {
                    RustType::Struct(o) if &o.rust_name == set => Some(o),
                    _ => None,
                });
                if let Some(set) = found {
                    reach(set, model, out);
                }
            }
            None => reach_shape(&f.shape, model, out),
        }
    }
}

fn reach_shape(shape: &Shape, model: &Model, out: &mut BTreeSet<String>) {
    match shape {
        Shape::Object(obj) => reach(obj, model, out),
        Shape::Array { items, .. } => reach_shape(items, model, out),
        _ => {}
    }
}

/// The caller's struct for `obj`.
fn twin(obj: &Object) -> TokenStream {
    let ty = ident(&obj.rust_name);
    let doc = docs(&obj.description);
    let mut sets = BTreeSet::new();
    let fields = obj.fields.iter().filter_map(|f| {
        if let Some(set) = parameter_set(f, &mut sets) {
            return set;
        }
        let (doc, rename, name) = field_head(f);
        let inner = caller_type(&f.shape);
        let skip = quote! { #[serde(skip_serializing_if = "Option::is_none")] };
        Some(match (f.required, f.nullable) {
            (true, _) => quote! { #doc #rename pub #name: #inner },
            // `Some(None)` is sent as null: the value that clears the field.
            (false, true) => quote! {
                #doc #rename #skip pub #name: ::std::option::Option<::std::option::Option<#inner>>
            },
            (false, false) => quote! { #doc #rename #skip pub #name: ::std::option::Option<#inner> },
        })
    });
    quote! {
        #doc
        #[derive(Debug, Clone, Default, PartialEq, ::serde::Serialize)]
        pub struct #ty { #( #fields, )* }
    }
}

/// The Rust type a caller gives for `shape`: the handlers' type, but an enum's wire string.
fn caller_type(shape: &Shape) -> TokenStream {
    match shape {
        Shape::Enum { .. } => quote! { ::std::string::String },
        Shape::Array { items, .. } => {
            let inner = caller_type(items);
            quote! { ::std::vec::Vec<#inner> }
        }
        other => shape_type(other),
    }
}
