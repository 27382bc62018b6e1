//! Tests generated from tools.yaml (see codegen/src/render/tests.rs): every tool's published
//! title, annotations and schemas match the manifest, and required-only arguments parse.
include!(concat!(env!("OUT_DIR"), "/tools_tests.rs"));
