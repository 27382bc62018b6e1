//! Golden tests: the generator's output for fixture manifests is pinned in `golden/`.
//! `ok_*` fixtures pin generated Rust; `err_*` fixtures pin each validation error verbatim.
//! After an intended change, regenerate with `EXPECTORATE=overwrite cargo test -p codegen` and
//! review the diff.

use std::path::Path;

fn fixture(stem: &str) -> (String, String) {
    let name = format!("fixtures/{stem}.yaml");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(&name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    (name, text)
}

fn golden(file: &str) -> String {
    format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// Generates `stem` and pins every output file.
fn assert_generates(stem: &str) {
    let (name, text) = fixture(stem);
    let output = codegen::generate(&name, &text).unwrap_or_else(|d| panic!("{stem} should be valid:\n{}", join(&d)));
    for (file, contents) in output.files {
        expectorate::assert_contents(golden(&format!("{stem}.{file}")), &contents);
    }
}

/// Fails to generate `stem` with a diagnostic of `code`, and pins the full diagnostic text.
fn assert_rejects(stem: &str, code: &str) {
    let (name, text) = fixture(stem);
    let diagnostics = codegen::generate(&name, &text).err().unwrap_or_else(|| panic!("{stem} should be rejected"));
    assert!(diagnostics.iter().any(|d| d.code == code), "{stem}: expected [{code}], got:\n{}", join(&diagnostics));
    expectorate::assert_contents(golden(&format!("{stem}.err")), &join(&diagnostics));
}

fn join(diagnostics: &[codegen::Diagnostic]) -> String {
    diagnostics.iter().map(|d| format!("{d}\n")).collect()
}

#[test]
fn ok_minimal_generates_pinned_code() {
    assert_generates("ok_minimal");
}

#[test]
fn ok_minimal_publishes_pinned_tool_list() {
    let (name, text) = fixture("ok_minimal");
    let json = codegen::tool_list_json(&name, &text).expect("valid fixture");
    expectorate::assert_contents(golden("ok_minimal.tools.json"), &serde_json::to_string_pretty(&json).expect("JSON"));
}

macro_rules! rejects {
    ($($test:ident: $stem:literal => $code:literal,)*) => {
        $( #[test] fn $test() { assert_rejects($stem, $code); } )*
    };
}

rejects! {
    unknown_type_is_rejected: "err_unknown_type" => "unknown-type",
    duplicate_tool_name_is_rejected: "err_duplicate_tool" => "duplicate-tool",
    default_outside_min_max_is_rejected: "err_default_out_of_range" => "default-invalid",
    default_not_in_enum_is_rejected: "err_default_not_in_enum" => "default-invalid",
    read_only_tool_marked_destructive_is_rejected: "err_read_only_destructive" => "annotation-conflict",
    unknown_error_template_is_rejected: "err_unknown_error_template" => "unknown-error-template",
    placeholder_not_available_to_template_is_rejected: "err_unknown_placeholder" => "unknown-placeholder",
    missing_description_is_rejected: "err_missing_description" => "missing-description",
    duplicate_parameter_key_is_rejected: "err_duplicate_key" => "duplicate-key",
    misspelled_field_is_rejected: "err_unknown_field" => "invalid-manifest",
    missing_builtin_template_is_rejected: "err_missing_builtin_template" => "missing-builtin-template",
    array_without_items_is_rejected: "err_array_without_items" => "array-without-items",
    unknown_error_context_param_is_rejected: "err_unknown_context_param" => "unknown-context-param",
}

#[test]
fn the_real_manifest_is_valid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools.yaml");
    let text = std::fs::read_to_string(path).expect("tools.yaml at the repository root");
    let model = codegen::load("tools.yaml", &text).unwrap_or_else(|d| panic!("tools.yaml is invalid:\n{}", join(&d)));
    assert_eq!(model.tools.len(), 21);
}
