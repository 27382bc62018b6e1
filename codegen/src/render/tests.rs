//! Generated tests: every tool as published (tools/list) must match the manifest fact by fact,
//! and a call with only the required arguments must parse. The facts are taken from the model,
//! not from the schema renderer, so a renderer bug fails these tests.

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Value, json};

use super::types::ident;
use crate::model::{Field, Model, Object, Publish, Shape, Tool};

pub fn tests(model: &Model, generated: &TokenStream) -> TokenStream {
    let count = model.tools.len();
    let tools = model.tools.iter().map(|t| tool_tests(t, generated));
    quote! {
        use ::serde_json::{json, Value};

        fn published(name: &str) -> Value {
            let tools = #generated::tool_definitions();
            let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("tool {name} is not published"));
            ::serde_json::to_value(tool).expect("a tool serializes")
        }

        fn property_names(schema: &Value) -> Vec<String> {
            schema["properties"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default()
        }

        fn sorted(v: &Value) -> Vec<String> {
            let mut names: Vec<String> = v.as_array().into_iter().flatten().filter_map(|n| n.as_str().map(str::to_string)).collect();
            names.sort();
            names
        }

        /// What serde makes of a generated type, as schemars derives it from the type's serde
        /// attributes: for inputs what deserializes, for outputs what serializes.
        fn derived<T: ::schemars::JsonSchema>(serialize: bool) -> Value {
            let settings = ::schemars::generate::SchemaSettings::default();
            let settings = if serialize { settings.for_serialize() } else { settings.for_deserialize() };
            ::serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).expect("a schema serializes")
        }

        #[test]
        fn every_declared_tool_is_published_once() {
            let tools = #generated::tool_definitions();
            assert_eq!(tools.len(), #count);
            let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), #count);
        }

        #( #tools )*
    }
}

fn tool_tests(t: &Tool, generated: &TokenStream) -> TokenStream {
    let snake = t.name.to_snake_case();
    let published = format_ident!("{}_is_published_as_declared", snake);
    let minimal = format_ident!("{}_accepts_only_its_required_arguments", snake);
    let name = &t.name;
    let title = &t.title;
    let a = t.annotations;
    let (ro, de, id, ow) = (a.read_only, a.destructive, a.idempotent, a.open_world);
    let input_names: Vec<&str> =
        t.input.fields.iter().filter(|f| super::schema::published(f)).map(|f| f.wire.as_str()).collect();
    let output_names: Vec<&str> =
        t.output.fields.iter().map(|f| f.wire.as_str()).chain([super::schema::WARNINGS]).collect();
    let required: Vec<&str> = t.input.fields.iter().filter(|f| f.required).map(|f| f.wire.as_str()).collect();
    let property_checks = t.input.fields.iter().filter(|f| super::schema::published(f)).map(property_facts);
    let input_ty = ident(&t.input.rust_name);
    let sample = sample_object(&t.input).to_string();
    let output_ty = ident(&t.output.rust_name);
    let types_match = format_ident!("{}_rust_types_carry_its_schemas", snake);
    let missing = t.input.fields.iter().filter(|f| f.required).map(|f| {
        let test = format_ident!("{}_without_{}_names_it", snake, f.wire.to_snake_case());
        let wire = &f.wire;
        quote! {
            #[test]
            fn #test() {
                let mut args: ::serde_json::Map<String, Value> = ::serde_json::from_str(#sample).expect("sample is JSON");
                args.remove(#wire);
                let err = #generated::#input_ty::from_arguments(args).expect_err("a required argument is missing");
                assert!(err.message.contains(#wire), "message should name `{}`: {}", #wire, err.message);
            }
        }
    });
    let unpublished = t.input.fields.iter().filter_map(|f| unpublished_checks(t, f, generated));
    quote! {
        #( #unpublished )*

        #[test]
        fn #published() {
            let tool = published(#name);
            assert_eq!(tool["title"], json!(#title));
            let annotations = &tool["annotations"];
            assert_eq!(annotations["readOnlyHint"], json!(#ro));
            assert_eq!(annotations["destructiveHint"], json!(#de));
            assert_eq!(annotations["idempotentHint"], json!(#id));
            assert_eq!(annotations["openWorldHint"], json!(#ow));
            let input = &tool["inputSchema"];
            assert_eq!(input["type"], json!("object"));
            assert_eq!(property_names(input), vec![#( #input_names.to_string() ),*] as Vec<String>);
            let required: Vec<&str> = vec![#( #required ),*];
            assert_eq!(input.get("required").cloned().unwrap_or_else(|| json!([])), json!(required));
            #( #property_checks )*
            let output = &tool["outputSchema"];
            assert_eq!(output["type"], json!("object"));
            assert_eq!(property_names(output), vec![#( #output_names.to_string() ),*] as Vec<String>);
        }

        #[test]
        fn #minimal() {
            let args: ::serde_json::Map<String, Value> = ::serde_json::from_str(#sample).expect("sample is JSON");
            if let Err(e) = #generated::#input_ty::from_arguments(args) {
                panic!("required-only arguments {} were rejected: {}", #sample, e.message);
            }
        }

        /// The generated structs' serde attributes agree with what is published and checked:
        /// every argument rule is a field and the required ones are required; structuredContent
        /// has exactly the published output properties, and the required ones are always sent.
        #[test]
        fn #types_match() {
            let input = derived::<#generated::#input_ty>(false);
            let mut rules: Vec<String> = #generated::#input_ty::RULES.iter().map(|r| r.name.to_string()).collect();
            let mut fields = property_names(&input);
            rules.sort();
            fields.sort();
            assert_eq!(fields, rules, "input fields");
            let mut required: Vec<String> = #generated::#input_ty::RULES.iter().filter(|r| r.required).map(|r| r.name.to_string()).collect();
            required.sort();
            assert_eq!(sorted(&input["required"]), required, "required input fields");
            let output = derived::<#generated::#output_ty>(true);
            let published = published(#name)["outputSchema"].clone();
            let mut sent = property_names(&output);
            sent.push("warnings".to_string());
            sent.sort();
            let mut declared = property_names(&published);
            declared.sort();
            assert_eq!(sent, declared, "output properties");
            assert_eq!(sorted(&output["required"]), sorted(&published["required"]), "required output properties");
        }

        #( #missing )*
    }
}

/// For a field the schema shows less of (deprecated, `publish: none` or `shallow`), a test that
/// the argument rules still accept it and, for shallow objects, still check their properties.
fn unpublished_checks(t: &Tool, f: &Field, generated: &TokenStream) -> Option<TokenStream> {
    let shallow = f.publish == Publish::Shallow;
    if super::schema::published(f) && !shallow {
        return None;
    }
    let snake = t.name.to_snake_case();
    let input_ty = ident(&t.input.rust_name);
    let wire = &f.wire;
    let mut with = sample_object(&t.input);
    with[wire] = sample(&f.shape);
    let accepted = with.to_string();
    let accepts = format_ident!("{}_still_accepts_{}", snake, f.wire.to_snake_case());
    let mut out = quote! {
        #[test]
        fn #accepts() {
            let args: ::serde_json::Map<String, Value> = ::serde_json::from_str(#accepted).expect("sample is JSON");
            if let Err(e) = #generated::#input_ty::from_arguments(args) {
                panic!("{} is no longer accepted: {}", #wire, e.message);
            }
        }
    };
    // A shallow object's properties: one wrong-typed value must still be refused, naming its path.
    let (object, prefix) = match &f.shape {
        Shape::Object(o) => (o.as_ref(), f.wire.clone()),
        Shape::Array { items, .. } => match items.as_ref() {
            Shape::Object(o) => (o.as_ref(), format!("{}[0]", f.wire)),
            _ => return Some(out),
        },
        _ => return Some(out),
    };
    if let Some((inner, bad)) = object.fields.iter().find_map(|x| wrong_value(&x.shape).map(|v| (x, v))) {
        let mut value = sample(&f.shape);
        let slot = if value.is_array() { &mut value[0] } else { &mut value };
        slot[&inner.wire] = bad;
        let mut args = sample_object(&t.input);
        args[wire] = value;
        let args = args.to_string();
        let path = format!("{prefix}.{}", inner.wire);
        let checks = format_ident!("{}_still_checks_{}", snake, f.wire.to_snake_case());
        out.extend(quote! {
            #[test]
            fn #checks() {
                let args: ::serde_json::Map<String, Value> = ::serde_json::from_str(#args).expect("sample is JSON");
                let err = #generated::#input_ty::from_arguments(args).expect_err("a wrong-typed property");
                assert!(err.message.contains(#path), "message should name `{}`: {}", #path, err.message);
            }
        });
    }
    Some(out)
}

/// A value of the wrong JSON type for `shape`, if any type is wrong for it.
fn wrong_value(shape: &Shape) -> Option<Value> {
    match shape {
        Shape::String { .. } | Shape::Enum { .. } => Some(json!(1)),
        Shape::Integer { .. } | Shape::Number { .. } | Shape::Boolean | Shape::Map | Shape::Object(_) => {
            Some(json!("x"))
        }
        Shape::Array { .. } => Some(json!({})),
        Shape::Any => None,
    }
}

/// Assertions on one published property: type, enum values, bounds (numbers, lengths, item
/// counts), default.
fn property_facts(f: &Field) -> TokenStream {
    let wire = &f.wire;
    let mut checks = Vec::new();
    if let Some(t) = f.shape.json_type() {
        checks.push(quote! { assert_eq!(p["type"], json!(#t), "type of {}", #wire); });
    }
    let bounds: Vec<(&str, Option<Value>)> = match &f.shape {
        Shape::Enum { values, .. } => vec![("enum", Some(json!(values)))],
        Shape::Integer { min, max } => vec![("minimum", min.map(|v| json!(v))), ("maximum", max.map(|v| json!(v)))],
        Shape::String { min_len, max_len } => {
            vec![("minLength", min_len.map(|v| json!(v))), ("maxLength", max_len.map(|v| json!(v)))]
        }
        Shape::Array { min_items, max_items, .. } => {
            vec![("minItems", min_items.map(|v| json!(v))), ("maxItems", max_items.map(|v| json!(v)))]
        }
        _ => vec![],
    };
    for (key, value) in bounds.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))) {
        let json = value.to_string();
        checks.push(
            quote! { assert_eq!(p[#key], ::serde_json::from_str::<Value>(#json).unwrap(), "{} of {}", #key, #wire); },
        );
    }
    if let Some(d) = &f.default {
        let json = d.to_string();
        checks.push(quote! { assert_eq!(p["default"], ::serde_json::from_str::<Value>(#json).unwrap(), "default of {}", #wire); });
    }
    // A description that only repeats the name is left out (schema::says_nothing).
    let description = if super::schema::says_nothing(&f.wire, &f.description) {
        quote! { assert!(p.get("description").is_none(), "{} repeats its name in a description", #wire); }
    } else {
        quote! { assert!(p["description"].as_str().is_some_and(|d| !d.is_empty()), "{} has a description", #wire); }
    };
    quote! {
        {
            let p = &input["properties"][#wire];
            #description
            #( #checks )*
        }
    }
}

/// The smallest arguments that satisfy an object's required fields and limits.
fn sample_object(obj: &Object) -> Value {
    let map = obj.fields.iter().filter(|f| f.required).map(|f| (f.wire.clone(), sample(&f.shape))).collect();
    Value::Object(map)
}

fn sample(shape: &Shape) -> Value {
    match shape {
        Shape::String { min_len, .. } => json!("x".repeat(min_len.unwrap_or(1).max(1) as usize)),
        Shape::Enum { values, .. } => json!(values[0]),
        Shape::Integer { min, .. } => json!(min.unwrap_or(1)),
        Shape::Number { min, .. } => json!(min.unwrap_or(1.0)),
        Shape::Boolean => json!(true),
        Shape::Any => json!("value"),
        Shape::Map => json!({}),
        Shape::Array { items, min_items, .. } => {
            Value::Array((0..min_items.unwrap_or(1).max(1)).map(|_| sample(items)).collect())
        }
        Shape::Object(obj) => sample_object(obj),
    }
}
