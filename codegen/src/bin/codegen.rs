//! `codegen check | dump | docs [--check] [--out=PATH] | schema | samples [MANIFEST]`: the generator
//! from the command line.

use std::process::ExitCode;

const USAGE: &str = "usage: codegen <check|dump|docs [--check] [--out=PATH]|schema [--consolidated]|samples> [tools.yaml]\n\
  check   validate the manifest; exit 1 with tools.yaml:LINE:COL diagnostics\n\
  dump    print the Rust that build.rs writes into OUT_DIR\n\
  docs    write the tool reference to docs/tools.md, or to --out=PATH (--check: fail if it differs)\n\
  schema  print the tools/list JSON clients see (--consolidated: of the consolidated profile)\n\
  samples print every tool's sample calls as JSON, in the order the tests and CI clients run them\n\
settings, as build.rs passes them (codegen::Settings): --runtime-path=PATH, --generated-path=PATH";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let check_only = args.iter().any(|a| a == "--check");
    let manifest = args.iter().skip(1).find(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| "tools.yaml".into());
    let text = match std::fs::read_to_string(&manifest) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {manifest}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut settings = codegen::Settings::new();
    for arg in &args {
        if let Some(path) = arg.strip_prefix("--runtime-path=") {
            settings = settings.runtime_path(path);
        } else if let Some(path) = arg.strip_prefix("--generated-path=") {
            settings = settings.generated_path(path);
        }
    }
    let result = match command.as_str() {
        "check" => settings.load(&manifest, &text).map(|m| println!("{manifest}: {} tools, ok", m.tools.len())),
        "dump" => settings.generate(&manifest, &text).map(|out| {
            for (name, body) in out.files {
                println!("// ===== OUT_DIR/{name} =====\n{body}");
            }
        }),
        "schema" => if args.iter().any(|a| a == "--consolidated") {
            codegen::consolidated_list_json(&manifest, &text)
        } else {
            codegen::tool_list_json(&manifest, &text)
        }
        .map(|v| println!("{}", serde_json::to_string_pretty(&v).expect("JSON serializes"))),
        "samples" => codegen::samples_json(&manifest, &text)
            .map(|v| println!("{}", serde_json::to_string_pretty(&v).expect("JSON serializes"))),
        "docs" => match codegen::docs(&manifest, &text) {
            Ok(md) => {
                let out = args.iter().find_map(|a| a.strip_prefix("--out=")).unwrap_or(DOCS);
                return write_docs(&md, out, &manifest, check_only);
            }
            Err(d) => Err(d),
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(diags) => {
            for d in diags {
                eprintln!("{d}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Where `docs` writes the tool reference unless `--out=PATH` says otherwise.
const DOCS: &str = "docs/tools.md";

fn write_docs(md: &str, path: &str, manifest: &str, check_only: bool) -> ExitCode {
    if check_only {
        return if std::fs::read_to_string(path).ok().as_deref() == Some(md) {
            ExitCode::SUCCESS
        } else {
            let out = if path == DOCS { String::new() } else { format!(" --out={path}") };
            eprintln!(
                "{path} is out of date with {manifest}: run `cargo run -p codegen -- docs{out} {manifest}` and commit it"
            );
            ExitCode::FAILURE
        };
    }
    match std::fs::write(path, md) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cannot write {path}: {e}");
            ExitCode::FAILURE
        }
    }
}
