//! The frontmatter reader's tests also run on a real wrangler workspace when DOCKET_REAL_FIXTURE
//! names one (as the server's wrangler tests do, see the top-level build.rs); without it that
//! test is listed as ignored, saying why.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(docket_real_fixture)");
    println!("cargo::rerun-if-env-changed=DOCKET_REAL_FIXTURE");
    if std::env::var_os("DOCKET_REAL_FIXTURE").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=docket_real_fixture");
    }
}
