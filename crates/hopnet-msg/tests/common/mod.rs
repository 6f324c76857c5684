//! The `rabbit-msg` binary run as a user would, and the test schemas, shared by the tests (a
//! module of each test crate that uses it).

#![allow(dead_code)]

pub mod versions;

use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_rabbit-msg");

/// Runs the binary with `args`, `stdin` on its standard input.
pub fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rabbit-msg");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_string();
    // Written from a thread: a large batch would fill the pipes both ways. The tool may exit
    // before reading its input (a bad argument): a broken pipe is ignored.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The standard output of a run that must succeed.
pub fn run_ok(args: &[&str], stdin: &str) -> String {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "rabbit-msg {args:?}: {}",
        stderr(&out)
    );
    stdout(&out)
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8 errors")
}

/// Fails unless `rabbit-msg types` lists every one of `types`, each on a line of its own.
pub fn assert_listed(types: &[&str]) {
    let text = run_ok(&["types"], "");
    for ty in types {
        assert!(text.lines().any(|l| l == *ty), "{ty}: {text}");
    }
}

/// `rabbit-msg schema TYPE`, which must succeed and start with the type's heading.
pub fn schema(ty: &str) -> String {
    let text = run_ok(&["schema", ty], "");
    assert!(text.starts_with(&format!("## {ty}\n")), "{text}");
    text
}

/// Fails unless `rabbit-msg schema TYPE` succeeds and its text says each of `lines`
/// somewhere: each CLI test checks a type's schema this way.
pub fn assert_schema_says(ty: &str, lines: &[&str]) {
    let text = schema(ty);
    for line in lines {
        assert!(text.contains(line), "{ty} does not say {line:?}: {text}");
    }
}
