//! Test support for the browser side: `web/`'s Node.js packages (the TypeScript compiler and
//! `puppeteer-core`, installed by `npm ci` from `web/package-lock.json` when absent), the
//! compiled page, and Debian's Chromium.
//!
//! What is missing makes a test fail with what to install, as the repository's other
//! TypeScript tests do: Node.js 18 or later with npm, and (for the browser test) the
//! `chromium` package.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository's `web/` directory.
pub fn web_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web"))
        .canonicalize()
        .expect("web/ beside crates/")
}

/// The packages every test here needs, by a file each installs.
const PACKAGES: [&str; 2] = [
    "node_modules/typescript/bin/tsc",
    "node_modules/puppeteer-core/package.json",
];

/// Installs `web/`'s packages with `npm ci` unless they are there (once per test binary).
pub fn node_modules() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let web = web_dir();
            if PACKAGES.iter().any(|p| !web.join(p).exists()) {
                let status = Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund", "--prefix"])
                    .arg(&web)
                    .status()
                    .unwrap_or_else(|e| {
                        panic!(
                            "cannot run `npm` ({e}): these tests need Node.js (18 or later) and \
                             npm, which install web/package-lock.json's packages"
                        )
                    });
                assert!(status.success(), "`npm ci --prefix web` failed ({status})");
            }
            for p in PACKAGES {
                assert!(
                    web.join(p).exists(),
                    "`npm ci --prefix web` did not install {p}"
                );
            }
            web.join("node_modules")
        })
        .clone()
}

/// Runs `node` with `args` in `web/`, failing the test with its output unless it succeeds;
/// returns its standard output.
pub fn node(args: &[&Path], what: &str) -> String {
    let out = run_node(args, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Runs `node` with `args` and environment `env` in `web/`, whatever its outcome.
pub fn run_node(args: &[&Path], env: &[(&str, &str)]) -> Output {
    Command::new("node")
        .args(args)
        .envs(env.iter().copied())
        .current_dir(web_dir())
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `node` ({e}): these tests need Node.js (18 or later) on the PATH")
        })
}

/// What a test script that prints its result as JSON printed.
pub struct NodeJson {
    /// Whether `node` exited successfully.
    pub success: bool,
    /// Its standard output, as printed.
    pub stdout: String,
    /// Its standard output, parsed.
    pub result: serde_json::Value,
}

/// Runs `node` with `args` in `web/` and parses what it printed; a script that printed no JSON
/// fails the test with its output, so that a crash in the script reads as one.
pub fn node_json(args: &[&Path]) -> NodeJson {
    let out = run_node(args, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let result = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "the script printed no result ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    NodeJson {
        success: out.status.success(),
        stdout,
        result,
    }
}

/// [`node_json`] of a browser script: fails the test unless it succeeded without an `error`
/// in its result, and returns the result.
pub fn browser_json(args: &[&Path]) -> serde_json::Value {
    let NodeJson {
        success, result, ..
    } = node_json(args);
    assert!(
        success && result.get("error").is_none(),
        "in the browser: {result:#}"
    );
    result
}

/// Compiles `web/`'s TypeScript (`src/` and `test/`) into `out` with `web/tsconfig.json`'s
/// options, strict: any error fails the test. The modules land in `out/src/` and `out/test/`.
pub fn compile(out: &Path) -> PathBuf {
    let tsc = node_modules().join("typescript/bin/tsc");
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).unwrap();
    node(
        &[
            &tsc,
            Path::new("-p"),
            &web_dir().join("tsconfig.json"),
            Path::new("--outDir"),
            out,
            Path::new("--declaration"),
            Path::new("false"),
        ],
        "tsc",
    );
    // The compiled files are ES modules.
    std::fs::write(out.join("package.json"), r#"{ "type": "module" }"#).unwrap();
    out.to_path_buf()
}

/// Debian's Chromium, the browser the page is tested in.
pub fn chromium() -> PathBuf {
    let path = PathBuf::from("/usr/bin/chromium");
    assert!(
        path.exists(),
        "no {}: the browser test needs Debian's `chromium` package (apt-get install chromium)",
        path.display()
    );
    path
}
