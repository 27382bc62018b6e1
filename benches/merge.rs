//! The merge driver's line merge against `git merge-file` on issue files of 20,000 and 80,000
//! body lines, both sides editing a quarter of the lines each, spread over the whole body (no
//! conflicts). Prints
//! numbers; asserts only that both produce the same text. Run: `cargo bench --bench merge`.

use std::process::Command;
use std::time::Instant;

use docket::store::git::merge::merge_file;

const FRONT: &str = "---\nid: ISS-000001\ntitle: Big\nstatus: open\npriority: medium\nlabels: []\ncreatedAt: 2026-01-01T00:00:00.000Z\nupdatedAt: 2026-01-01T00:00:00.000Z\n---\n";

/// Base, ours and theirs: every 4th line changed by ours, every 4th (offset 2) by theirs (a
/// quarter of the body on each side, as after a reformat), a line inserted by ours every 400
/// lines and one removed by theirs every 700.
fn texts(lines: usize) -> (String, String, String) {
    let line = |i: usize| format!("line {i}: the quick brown fox jumps over the lazy dog {}\n", i % 97);
    let (mut base, mut ours, mut theirs) = (FRONT.to_string(), FRONT.to_string(), FRONT.to_string());
    for i in 0..lines {
        base.push_str(&line(i));
        if i % 400 == 5 {
            ours.push_str(&format!("inserted by ours before {i}\n"));
        }
        if i % 4 == 0 {
            ours.push_str(&format!("ours changed {i}\n"));
        } else {
            ours.push_str(&line(i));
        }
        if i % 700 == 2 {
            continue;
        }
        if i % 4 == 2 {
            theirs.push_str(&format!("theirs changed {i}\n"));
        } else {
            theirs.push_str(&line(i));
        }
    }
    (base, ours, theirs)
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

fn main() {
    println!("{:>7} | {:>10} | {:>20} | {:>6}", "lines", "docket ms", "git merge-file ms", "ratio");
    for lines in [20_000, 80_000] {
        let (base, ours, theirs) = texts(lines);
        let dir = tempfile::tempdir().expect("tmp");
        let path = |n: &str| dir.path().join(n);
        for (name, text) in [("base", &base), ("ours", &ours), ("theirs", &theirs)] {
            std::fs::write(path(name), text).expect("write");
        }
        let (ours_ms, merged) = best_of(5, || merge_file(&base, &ours, &theirs));
        assert!(!merged.conflicts);
        let (git_ms, out) = best_of(5, || {
            Command::new("git")
                .args(["merge-file", "-p"])
                .arg(path("ours"))
                .arg(path("base"))
                .arg(path("theirs"))
                .output()
                .expect("git merge-file runs")
        });
        assert!(out.status.success(), "git merge-file: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(merged.text, String::from_utf8_lossy(&out.stdout), "the same merge as git");
        println!("{lines:>7} | {ours_ms:>10.1} | {git_ms:>20.1} | {:>6.2}", ours_ms / git_ms);
    }
}
