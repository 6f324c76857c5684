//! Node and the TypeScript compiler of `web/`, and the run of the conformance harness.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's `web/` directory.
pub fn web_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web"))
}

/// An empty directory of this test's own under the target directory.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("typescript")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    dir
}

/// The TypeScript compiler that `web/package-lock.json` pins, installed into `web/node_modules`
/// by `npm ci` the first time a test needs it (once per test binary), so that the README's one
/// test command is enough wherever Node.js and npm are.
fn typescript_compiler() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let tsc = web_dir().join("node_modules/typescript/bin/tsc");
            if !tsc.exists() {
                let status = Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund", "--prefix"])
                    .arg(web_dir())
                    .status()
                    .unwrap_or_else(|e| {
                        panic!(
                            "cannot run `npm` ({e}): these tests need Node.js (v18 or later) and \
                             npm, which install the TypeScript compiler of web/package-lock.json"
                        )
                    });
                assert!(status.success(), "`npm ci --prefix web` failed ({status})");
            }
            assert!(
                tsc.exists(),
                "`npm ci --prefix web` did not install {}",
                tsc.display()
            );
            tsc
        })
        .clone()
}

/// Runs `node` with `args`, failing the test with its output unless it succeeds.
fn node(args: &[&Path], what: &str) -> String {
    let out = Command::new("node")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `node` ({e}): these tests need Node.js (v18 or later) on the PATH")
        });
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}{stderr}",
        out.status
    );
    stdout
}

/// Compiles the TypeScript of `dir` (its `src/`, and `test/` when there is one) into
/// `dir/build` with the options of `web/tsconfig.json`; fails the test on any error.
pub fn compile(dir: &Path) {
    let tsc = typescript_compiler();
    let config = serde_json::json!({
        "extends": web_dir().join("tsconfig.json").canonicalize().unwrap(),
        "compilerOptions": { "rootDir": ".", "outDir": "build" },
        "include": ["src/**/*.ts", "test/**/*.ts"],
    });
    let config_path = dir.join("tsconfig.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    // The compiled files are ES modules.
    std::fs::write(dir.join("package.json"), r#"{ "type": "module" }"#).unwrap();
    node(&[&tsc, Path::new("-p"), &config_path], "tsc");
}

/// Runs the conformance harness on `dir/build/src/<module>.js` with the cases in `cases`;
/// returns its summary line.
pub fn conformance(dir: &Path, module: &str, cases: &serde_json::Value) -> String {
    let cases_path = dir.join("cases.json");
    std::fs::write(&cases_path, cases.to_string()).unwrap();
    let harness = web_dir().join("test/conformance.mjs");
    let module = dir.join("build/src").join(format!("{module}.js"));
    node(&[&harness, &module, &cases_path], "the conformance harness")
}
