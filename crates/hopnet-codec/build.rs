//! Names the runtime contract after this release: `__derive_v0_1_0` for version 0.1.0.
//!
//! `#[derive(Rabbit)]` names the module after its own version the same way, and `hopnet-codec`
//! pins `hopnet-derive` with `=`: a derive and a runtime from different releases then fail to
//! compile (no such module) instead of generating code against a contract that changed. An
//! identifier cannot be made from `env!` in Rust source, hence a build script, as serde and
//! thiserror do it.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    // Every character an identifier cannot hold (the dots, a pre-release's `-`) becomes `_`,
    // as in the derive.
    let version: String = version
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let module = format!(
        "#[doc(hidden)]\npub mod __derive_v{version} {{\n    #[doc(hidden)]\n    pub use crate::contract::*;\n}}\n"
    );
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::write(out.join("contract.rs"), module).expect("write the contract module's name");
}
