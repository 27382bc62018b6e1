//! Generates the typed tool layer from tools.yaml (see codegen/). Diagnostics point at
//! `tools.yaml:LINE:COL`; the generated files land in OUT_DIR.

use std::path::PathBuf;

fn main() {
    let manifest = "tools.yaml";
    println!("cargo::rerun-if-changed={manifest}");
    println!("cargo::rerun-if-changed=build.rs");
    // The wrangler tests also run on a real workspace when DOCKET_REAL_FIXTURE names one
    // (tests/common/wrangler.rs); without it those runs are listed as ignored, saying why.
    println!("cargo::rustc-check-cfg=cfg(docket_real_fixture)");
    println!("cargo::rerun-if-env-changed=DOCKET_REAL_FIXTURE");
    if std::env::var_os("DOCKET_REAL_FIXTURE").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=docket_real_fixture");
    }
    let text = match std::fs::read_to_string(manifest) {
        Ok(text) => text,
        Err(e) => {
            println!("cargo::error=cannot read {manifest}: {e}");
            return;
        }
    };
    // The generated code names the runtime at its default path (`::toolkit_runtime`); the
    // generated tests (tests/generated.rs) name the module through the crate. src/handlers/
    // implements the generated `ToolHandlers` trait for its `Handlers`.
    let settings = codegen::Settings::new().generated_path("::docket::generated");
    let output = match settings.generate(manifest, &text) {
        Ok(output) => output,
        Err(diagnostics) => {
            for d in diagnostics {
                for line in d.to_string().lines() {
                    println!("cargo::error={line}");
                }
            }
            return;
        }
    };
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (name, contents) in output.files {
        let path = out_dir.join(name);
        // Writing only on change keeps the crate from recompiling when nothing changed.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(contents.as_str())
            && let Err(e) = std::fs::write(&path, contents)
        {
            println!("cargo::error=cannot write {}: {e}", path.display());
        }
    }
}
