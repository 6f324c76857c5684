//! Independent implementations in Python (dnspython, mcstatus), run as a script with its input
//! on standard input: what the round-trip tests compare against.
//!
//! A missing interpreter or module fails the test under `CI=true` (CI installs them, see
//! `.ci/run`); elsewhere the test prints why it skipped and passes.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `script` with `python3`, `input` on its standard input, and returns its standard
/// output; `None` (after a notice) if `module` cannot be imported outside CI.
pub fn python(module: &str, package: &str, script: &str, input: &str) -> Option<String> {
    let import = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output();
    if !import.is_ok_and(|out| out.status.success()) {
        let why = format!(
            "python3 with the `{module}` module ({package} on PyPI) is needed: `pip install {package}`"
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}");
        }
        // Straight to the standard error, past the test harness's capture: a skip is seen.
        let _ = writeln!(std::io::stderr(), "skipped: {why}");
        return None;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the {package} script failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("UTF-8 output"))
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of lowercase or uppercase hex.
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}
