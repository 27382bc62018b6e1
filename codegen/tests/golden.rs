//! Golden tests: the generator's output for fixture manifests is pinned in `golden/`.
//! `ok_*` fixtures pin generated Rust; `err_*` fixtures pin each validation error verbatim.
//! After an intended change, regenerate with `EXPECTORATE=overwrite cargo test -p codegen` and
//! review the diff. The pinned `ok_full.tools.rs` is also compiled and run, against the real
//! runtime, by the runtime's tests (toolkit/runtime/tests/golden_compiles.rs): a golden that does
//! not build fails there.

use std::path::Path;

fn fixture(stem: &str) -> (String, String) {
    let name = format!("fixtures/{stem}.yaml");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(&name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    (name, text)
}

/// The default settings: the runtime at `::toolkit_runtime`, the generated module at `crate::generated`.
fn settings() -> codegen::Settings {
    codegen::Settings::default()
}

fn golden(file: &str) -> String {
    format!("{}/tests/golden/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// Generates `stem` with `settings` and pins every output file.
fn assert_generates(stem: &str, settings: &codegen::Settings) {
    let (name, text) = fixture(stem);
    let output = settings.generate(&name, &text).unwrap_or_else(|d| panic!("{stem} should be valid:\n{}", join(&d)));
    for (file, contents) in output.files {
        expectorate::assert_contents(golden(&format!("{stem}.{file}")), &contents);
    }
}

/// Fails to generate `stem` with a diagnostic of `code`, and pins the full diagnostic text.
fn assert_rejects(stem: &str, code: &str) {
    let (name, text) = fixture(stem);
    let diagnostics = settings().generate(&name, &text).err().unwrap_or_else(|| panic!("{stem} should be rejected"));
    assert!(diagnostics.iter().any(|d| d.code == code), "{stem}: expected [{code}], got:\n{}", join(&diagnostics));
    expectorate::assert_contents(golden(&format!("{stem}.err")), &join(&diagnostics));
}

fn join(diagnostics: &[codegen::Diagnostic]) -> String {
    diagnostics.iter().map(|d| format!("{d}\n")).collect()
}

#[test]
fn ok_full_generates_pinned_code() {
    assert_generates("ok_full", &settings());
}

#[test]
fn ok_full_publishes_pinned_tool_list() {
    let (name, text) = fixture("ok_full");
    let json = codegen::tool_list_json(&name, &text).expect("valid fixture");
    expectorate::assert_contents(golden("ok_full.tools.json"), &serde_json::to_string_pretty(&json).expect("JSON"));
}

/// A manifest without the optional features: built-in templates get their default messages, no
/// consolidated tools.
#[test]
fn ok_minimal_generates_pinned_code() {
    assert_generates("ok_minimal", &codegen::Settings::default());
    let (name, text) = fixture("ok_minimal");
    let model = codegen::load(&name, &text).expect("valid fixture");
    let builtins = codegen::model::BUILTIN_TEMPLATES.len();
    assert_eq!(model.errors.len(), 1 + builtins, "not_found and every built-in template");
    assert!(model.groups.is_empty() && model.tools.iter().all(|t| t.samples.is_empty()));
    let json = codegen::consolidated_list_json(&name, &text).expect("valid fixture");
    assert_eq!(json, serde_json::json!({ "tools": [] }));
}

/// The consolidated profile of a fixture made to exercise merging: its tools/list and its module.
#[test]
fn ok_consolidated_publishes_pinned_consolidated_tools() {
    let (name, text) = fixture("ok_consolidated");
    let json = codegen::consolidated_list_json(&name, &text).expect("valid fixture");
    expectorate::assert_contents(
        golden("ok_consolidated.consolidated.json"),
        &serde_json::to_string_pretty(&json).expect("JSON"),
    );
    let rust = codegen::consolidated_rs(&name, &text).expect("valid fixture");
    expectorate::assert_contents(golden("ok_consolidated.consolidated.rs"), &rust);
    // The whole generated layer (granular and consolidated) still renders.
    settings().generate(&name, &text).unwrap_or_else(|d| panic!("ok_consolidated should be valid:\n{}", join(&d)));
}

#[test]
fn consolidated_tools_are_flat_and_name_their_actions() {
    let (name, text) = fixture("ok_consolidated");
    let json = codegen::consolidated_list_json(&name, &text).expect("valid fixture");
    let tools = json["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["items", "notes"], "one tool per group with tools");
    let items = &tools[0];
    assert_eq!(items["title"], "Stock items");
    let a = &items["annotations"];
    assert_eq!((a["readOnlyHint"].as_bool(), a["destructiveHint"].as_bool()), (Some(false), Some(true)));
    assert_eq!((a["idempotentHint"].as_bool(), a["openWorldHint"].as_bool()), (Some(false), Some(true)));
    assert!(items.get("outputSchema").is_none());
    let schema = &items["inputSchema"];
    for combinator in ["oneOf", "anyOf", "allOf"] {
        assert!(schema.get(combinator).is_none());
    }
    assert_eq!(schema["required"], serde_json::json!(["action"]));
    assert_eq!(schema["properties"]["action"]["enum"], serde_json::json!(["list", "get", "remove", "get_all"]));
    let p = &schema["properties"];
    assert_eq!(p["color"]["type"], "array", "a value and an array of values publish the array");
    assert_eq!((p["limit"]["minimum"].as_i64(), p["limit"]["maximum"].as_i64()), (Some(1), Some(500)));
    assert!(p["limit"].get("default").is_none(), "defaults that differ per action are described instead");
    assert!(p["size"].get("type").is_none(), "types that cannot merge leave the property untyped");
    assert_eq!(p["id"]["description"], "Item ID.", "one text for every action that takes it");
    assert!(p.get("verbose").is_none(), "publish: granular leaves it out of this profile");
    assert_eq!(p["limit"]["description"], "list: Page size. Default 25. get: Page size. Default 50.");
    assert!(p["color"]["description"].as_str().is_some_and(|d| d.contains("as items(action=get) shows it")));
    let description = items["description"].as_str().expect("description");
    assert!(description.contains("\n- get: id*, limit, size\n"), "each action with its parameters: {description}");
    assert!(description.contains("- get_all: ids* [DEPRECATED: use items(action=list)]"), "{description}");
    assert_eq!(
        tools[1]["inputSchema"]["required"],
        serde_json::json!(["action", "text"]),
        "what every action requires"
    );
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
    builtin_template_with_other_params_is_rejected: "err_builtin_template_params" => "builtin-template-params",
    array_without_items_is_rejected: "err_array_without_items" => "array-without-items",
    unknown_error_context_param_is_rejected: "err_unknown_context_param" => "unknown-context-param",
    action_parameter_in_a_group_is_rejected: "err_reserved_action_parameter" => "reserved-parameter",
    two_tools_with_the_same_action_are_rejected: "err_duplicate_action" => "duplicate-action",
    unpublishable_or_undescribed_fields_are_rejected: "err_bad_publish" => "bad-publish",
    samples_that_do_not_fit_the_tool_are_rejected: "err_bad_samples" => "unknown-sample-argument",
    tools_without_a_working_sample_are_rejected: "err_missing_sample" => "missing-sample",
    flatten_of_anything_but_a_named_object_is_rejected: "err_bad_flatten" => "bad-flatten",
}

#[test]
fn the_real_manifest_is_valid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools.yaml");
    let text = std::fs::read_to_string(path).expect("tools.yaml at the repository root");
    let model = codegen::load("tools.yaml", &text).unwrap_or_else(|d| panic!("tools.yaml is invalid:\n{}", join(&d)));
    assert_eq!(model.tools.len(), text.matches("\n  - name: ").count(), "every tool entry is in the model");
}

/// `codegen docs --out=PATH` writes another server's reference where it says, and `--check`
/// compares that file (a manifest without groups says so, without "0 groups").
#[test]
fn the_docs_command_writes_and_checks_the_path_it_is_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ok_minimal.yaml");
    let out = dir.path().join("reference.md");
    let codegen = |check: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_codegen"));
        cmd.arg("docs").arg(format!("--out={}", out.display())).arg(manifest);
        if check {
            cmd.arg("--check");
        }
        cmd.output().expect("codegen runs")
    };
    assert!(!codegen(true).status.success(), "nothing written yet: the check fails");
    assert!(codegen(false).status.success());
    let md = std::fs::read_to_string(&out).expect("the reference was written at --out");
    assert!(md.lines().any(|l| l.ends_with(" tools.") || l == "1 tools."), "{md}");
    assert!(!md.contains("0 groups"), "{md}");
    assert!(codegen(true).status.success(), "the check compares the file at --out");
}
