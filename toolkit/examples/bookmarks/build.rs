//! Generates the typed tool layer from tools.yaml into OUT_DIR; a manifest error fails the build
//! with `tools.yaml:LINE:COL` diagnostics.

fn main() {
    println!("cargo::rerun-if-changed=tools.yaml");
    let text = std::fs::read_to_string("tools.yaml").expect("tools.yaml beside Cargo.toml");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    match codegen::Settings::new().generate("tools.yaml", &text) {
        Ok(output) => output.files.into_iter().for_each(|(name, code)| std::fs::write(out.join(name), code).unwrap()),
        Err(diagnostics) => {
            diagnostics.iter().for_each(|d| println!("cargo::error={}", d.to_string().replace('\n', " ")))
        }
    }
}
