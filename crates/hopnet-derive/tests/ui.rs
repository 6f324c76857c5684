//! Compile errors of `#[derive(Rabbit)]`: every misuse has a case in `tests/ui/` with its
//! expected diagnostics checked in. Regenerate with
//! `TRYBUILD=overwrite cargo test -p hopnet-derive --test ui`
//! and read the `.stderr` files before committing them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
