//! Records the version of the compiler building the harness, for the machine line of its
//! tables: the compiler that built the code measured, not whichever `rustc` is first on the
//! path when it runs, and no process spawned while it runs (a child reaped by a harness
//! running at real-time priority can stall it in the kernel: BENCHMARKS.md, "Wave 3: the
//! floor").

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "rustc ?".into());
    println!("cargo:rustc-env=BENCH_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
