//! The generated TypeScript codecs against the Rust ones: each module is generated, compiled by
//! `tsc` with `web/tsconfig.json` (strict, and stricter), and run with Node by
//! `web/test/conformance.mjs` on byte strings and values whose fate the Rust side decided.
//!
//! Needs `node` on the `PATH` and the TypeScript compiler installed in `web/` (`npm ci --prefix
//! web`); without them these tests fail and say what to install.

mod cases;
#[path = "../common/mod.rs"]
mod common;
mod encodings;
mod snow_fight;
mod toolchain;
