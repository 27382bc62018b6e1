//! Rust items for the manifest's types: enums, input/output structs, default functions and the
//! argument rule tables the runtime checks raw JSON against.

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Field, Object, RustType, Shape, Tool};

/// One `#[doc]` attribute per line so prettyplease prints `///` comments.
pub fn docs(text: &str) -> TokenStream {
    let lines = text.trim().lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #lines] )* }
}

pub fn ident(name: &str) -> syn::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, proc_macro2::Span::call_site()),
        None => format_ident!("{}", name),
    }
}

pub fn rust_type(t: &RustType, rt: &TokenStream) -> TokenStream {
    match t {
        RustType::Enum { name, description, values } => enum_type(name, description, values),
        RustType::Struct(obj) => struct_type(obj, rt),
    }
}

fn enum_type(name: &str, description: &str, values: &[String]) -> TokenStream {
    let ty = ident(name);
    let doc = docs(description);
    let variants: Vec<_> = values.iter().map(|v| format_ident!("{}", v.to_upper_camel_case())).collect();
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        pub enum #ty {
            #( #[serde(rename = #values)] #variants, )*
        }
        impl #ty {
            /// Every value, in manifest order.
            pub const ALL: &'static [Self] = &[ #( Self::#variants ),* ];
            /// The wire name of this value.
            pub fn as_str(&self) -> &'static str {
                match self { #( Self::#variants => #values, )* }
            }
        }
        impl ::std::fmt::Display for #ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

fn struct_type(obj: &Object, rt: &TokenStream) -> TokenStream {
    let nullable = format!("{}::args::nullable", rt.to_string().replace(' ', ""));
    let ty = ident(&obj.rust_name);
    let doc = docs(&obj.description);
    // serde cannot deny unknown fields beside a flattened one; the argument rules still do.
    let flattens = obj.fields.iter().any(|f| f.flattened_into.is_some());
    let deny = (obj.additional == Some(false) && !flattens).then(|| quote! { #[serde(deny_unknown_fields)] });
    let mut sets = std::collections::BTreeSet::new();
    let fields = obj.fields.iter().filter_map(|f| {
        if let Some(set) = parameter_set(f, &mut sets) {
            return set;
        }
        let (doc, rename, name) = field_head(f);
        let inner = shape_type(&f.shape);
        let (ty, attr) = if f.nullable {
            (
                quote! { ::std::option::Option<::std::option::Option<#inner>> },
                quote! {
                    #[serde(default, deserialize_with = #nullable, skip_serializing_if = "Option::is_none")]
                },
            )
        } else if f.required {
            (inner, quote! {})
        } else if f.default.is_some() {
            let path = format!("defaults::{}", default_fn_name(obj, f));
            (inner, quote! { #[serde(default = #path)] })
        } else {
            (
                quote! { ::std::option::Option<#inner> },
                quote! { #[serde(default, skip_serializing_if = "Option::is_none")] },
            )
        };
        Some(quote! { #doc #rename #attr pub #name: #ty })
    });
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        #deny
        pub struct #ty { #( #fields, )* }
    }
}

/// For a field spliced in from a shared parameter set (`None` for any other): the set's struct as
/// one `#[serde(flatten)]` field in the place of its first property (`None` for the others;
/// `sets` holds the sets already placed).
pub fn parameter_set(f: &Field, sets: &mut std::collections::BTreeSet<String>) -> Option<Option<TokenStream>> {
    let (field, set) = f.flattened_into.as_ref()?;
    if !sets.insert(field.clone()) {
        return Some(None);
    }
    let (name, set) = (ident(field), ident(set));
    Some(Some(quote! { #[serde(flatten)] pub #name: #set }))
}

/// A field's doc comment, its `#[serde(rename)]` when the wire name is not the Rust one, and
/// its Rust name.
pub fn field_head(f: &Field) -> (TokenStream, Option<TokenStream>, syn::Ident) {
    let wire = &f.wire;
    let rename = (f.rust.trim_start_matches("r#") != wire).then(|| quote! { #[serde(rename = #wire)] });
    (docs(&f.description), rename, ident(&f.rust))
}

pub fn shape_type(shape: &Shape) -> TokenStream {
    match shape {
        Shape::String { .. } => quote! { ::std::string::String },
        Shape::Integer { .. } => quote! { i64 },
        Shape::Number { .. } => quote! { f64 },
        Shape::Boolean => quote! { bool },
        Shape::Any => quote! { ::serde_json::Value },
        Shape::Map => quote! { ::serde_json::Map<::std::string::String, ::serde_json::Value> },
        Shape::Enum { rust_name, .. } => {
            let t = ident(rust_name);
            quote! { #t }
        }
        Shape::Object(obj) => {
            let t = ident(&obj.rust_name);
            quote! { #t }
        }
        Shape::Array { items, .. } => {
            let inner = shape_type(items);
            quote! { ::std::vec::Vec<#inner> }
        }
    }
}

fn default_fn_name(obj: &Object, f: &Field) -> String {
    format!("{}_{}", heck::AsSnakeCase(&obj.rust_name), f.rust.trim_start_matches("r#"))
}

/// `pub mod defaults`: one function per defaulted field, named `{struct}_{field}`.
pub fn defaults(types: &[RustType]) -> TokenStream {
    let fns = types
        .iter()
        .filter_map(|t| match t {
            RustType::Struct(obj) => Some(obj),
            RustType::Enum { .. } => None,
        })
        .flat_map(|obj| {
            obj.fields.iter().filter(|f| f.default.is_some() && f.flattened_into.is_none()).map(move |f| (obj, f))
        })
        .map(|(obj, f)| {
            let name = format_ident!("{}", default_fn_name(obj, f));
            let ty = shape_type(&f.shape);
            let value = default_value(&f.shape, f.default.as_ref().expect("filtered on default"));
            let doc = format!(" Default of `{}` in `{}`.", f.wire, obj.rust_name);
            quote! { #[doc = #doc] pub fn #name() -> #ty { #value } }
        });
    quote! {
        /// Defaults declared in tools.yaml (checked against each field's limits at build time).
        pub mod defaults {
            #[allow(unused_imports)]
            use super::*;
            #( #fns )*
        }
    }
}

fn default_value(shape: &Shape, v: &serde_json::Value) -> TokenStream {
    match (shape, v) {
        (Shape::String { .. }, serde_json::Value::String(s)) => quote! { #s.to_string() },
        (Shape::Integer { .. }, serde_json::Value::Number(n)) => {
            let n = n.as_i64().unwrap_or_default();
            quote! { #n }
        }
        (Shape::Number { .. }, serde_json::Value::Number(n)) => {
            let n = n.as_f64().unwrap_or_default();
            quote! { #n }
        }
        (Shape::Boolean, serde_json::Value::Bool(b)) => quote! { #b },
        (Shape::Enum { rust_name, .. }, serde_json::Value::String(s)) => {
            let t = ident(rust_name);
            let variant = format_ident!("{}", s.to_upper_camel_case());
            quote! { #t::#variant }
        }
        (Shape::Array { .. }, serde_json::Value::Array(a)) if a.is_empty() => quote! { ::std::vec::Vec::new() },
        (_, v) => {
            let json = v.to_string();
            quote! { ::serde_json::from_str(#json).expect("default validated by codegen") }
        }
    }
}

/// The argument rule table of an object, for the runtime's `args::check`.
pub fn rules(obj: &Object) -> TokenStream {
    let rules = obj.fields.iter().map(|f| {
        let name = &f.wire;
        let required = f.required;
        let kind = kind(&f.shape);
        quote! { ParamRule { name: #name, required: #required, kind: #kind } }
    });
    quote! { &[ #( #rules ),* ] }
}

fn kind(shape: &Shape) -> TokenStream {
    match shape {
        Shape::String { min_len, max_len } => {
            let (a, b) = (opt(min_len), opt(max_len));
            quote! { Kind::String { min_len: #a, max_len: #b } }
        }
        Shape::Enum { values, .. } => quote! { Kind::Enum(&[ #( #values ),* ]) },
        Shape::Integer { min, max } => {
            let (a, b) = (opt(min), opt(max));
            quote! { Kind::Integer { min: #a, max: #b } }
        }
        Shape::Number { min, max } => {
            let (a, b) = (opt(min), opt(max));
            quote! { Kind::Number { min: #a, max: #b } }
        }
        Shape::Boolean => quote! { Kind::Boolean },
        Shape::Any => quote! { Kind::Any },
        Shape::Map => quote! { Kind::Map },
        Shape::Array { items, min_items, max_items } => {
            let inner = kind(items);
            let (a, b) = (opt(min_items), opt(max_items));
            quote! { Kind::Array { items: &#inner, min_items: #a, max_items: #b } }
        }
        Shape::Object(obj) => {
            let fields = rules(obj);
            let additional = obj.additional.unwrap_or(true);
            quote! { Kind::Object { fields: #fields, additional: #additional } }
        }
    }
}

/// `Some(v)` or `None` as a Rust expression.
fn opt<T: quote::ToTokens>(v: &Option<T>) -> TokenStream {
    match v {
        Some(v) => quote! { Some(#v) },
        None => quote! { None },
    }
}

/// `pub mod limits`: per-tool constants from the manifest's `limits:`.
pub fn limits(tools: &[Tool]) -> TokenStream {
    let mods = tools.iter().filter(|t| !t.limits.is_empty()).map(|t| {
        let m = format_ident!("{}", t.name);
        let doc = format!(" Limits of tool `{}`.", t.name);
        let consts = t.limits.iter().map(|(k, v)| {
            let c = format_ident!("{}", k.to_shouty_snake_case());
            let v = *v as usize;
            quote! { pub const #c: usize = #v; }
        });
        quote! { #[doc = #doc] pub mod #m { #( #consts )* } }
    });
    let table = tools.iter().flat_map(|t| {
        t.limits.iter().map(move |(k, v)| {
            let (tool, v) = (&t.name, *v as usize);
            quote! { (#tool, #k, #v) }
        })
    });
    quote! {
        /// Limits declared per tool in tools.yaml.
        pub mod limits {
            #( #mods )*
            /// Every limit as (tool, name, value), for table-driven checks such as token budgets.
            pub const ALL: &[(&str, &str, usize)] = &[ #( #table ),* ];
            /// The limit `name` of `tool`, if the manifest declares one.
            pub fn get(tool: &str, name: &str) -> ::std::option::Option<usize> {
                ALL.iter().find(|(t, n, _)| *t == tool && *n == name).map(|x| x.2)
            }
        }
    }
}
