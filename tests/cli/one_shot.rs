//! A one-shot command does one shot's work: a read after another process changed a file or two
//! answers with the change (it re-reads those files) but does not rewrite the index snapshot
//! (two fsyncs, which made every read after a write twice as slow as the next one); once the
//! workspace drifted from the snapshot by many files, the command that notices saves it again.

use crate::common;

use std::path::Path;

use docket::store::generate::generate_workspace;

fn snapshot(ws: &Path) -> Vec<u8> {
    std::fs::read(ws.join(".docket/cache/index.bin")).expect("a snapshot")
}

/// Retitles the issue file `path` in place (the way an editor or another process would).
fn retitle(path: &Path, title: &str) {
    let text = std::fs::read_to_string(path).expect("issue file");
    let out: String = text
        .lines()
        .map(|l| if l.starts_with("title:") { format!("title: {title}") } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(path, out + "\n").expect("write");
}

fn run(ws: &Path, args: &[&str]) -> String {
    let out = common::docket(ws, args);
    assert!(out.status.success(), "docket {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn a_read_after_a_small_change_answers_it_without_rewriting_the_snapshot() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = dir.path();
    generate_workspace(ws, 300, 7);
    run(ws, &["list"]);
    let saved = snapshot(ws);

    let mut files: Vec<_> = std::fs::read_dir(ws.join(".docket/issues"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    retitle(&files[0], "Retitled by another process");
    let id = files[0].file_name().unwrap().to_str().unwrap()[..10].to_string();
    let shown = run(ws, &["show", &id]);
    assert!(shown.contains("Retitled by another process"), "{shown}");
    assert!(snapshot(ws) == saved, "one changed file does not rewrite the snapshot");

    for (n, f) in files.iter().take(80).enumerate() {
        retitle(f, &format!("Drifted {n}"));
    }
    let listed = run(ws, &["list", "--limit", "100"]);
    assert!(listed.contains("Drifted 79"), "{listed}");
    assert!(snapshot(ws) != saved, "80 changed files of 300: the snapshot is saved again");
}
