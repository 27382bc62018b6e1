//! Shared helpers of the store's tests: the wrangler workspaces they run on.
#![allow(dead_code)]

pub mod fixture;
pub mod quirky;

/// A test body run on each fixture: `NAME::generated` always, `NAME::real_fixture` on the real
/// workspace when `DOCKET_REAL_FIXTURE` names one (store/build.rs), listed as ignored otherwise.
#[macro_export]
macro_rules! on_each_fixture {
    ($(#[$meta:meta])* fn $name:ident($fx:ident) $body:block $($rest:tt)*) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::common::fixture::Fixture;

            fn body($fx: Fixture) $body

            #[test]
            fn generated() {
                body(Fixture::generated())
            }

            #[test]
            #[cfg_attr(not(docket_real_fixture), ignore = "no real wrangler workspace: set DOCKET_REAL_FIXTURE=PATH")]
            fn real_fixture() {
                body(Fixture::real())
            }
        }
        $crate::on_each_fixture! { $($rest)* }
    };
    () => {};
}
