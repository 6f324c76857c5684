//! The real tshark (Debian's `tshark` package), run on the tests' captures with the generated
//! dissector. Absent, the tests that need it skip with a notice; under `CI=true` they fail.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The game server's port in the tests' captures (the simulator's server listens there).
pub const PORT: u16 = 7000;

/// Whether tshark runs here; a notice (or, under CI, a failure) when it does not.
pub fn available() -> bool {
    tool_available("tshark")
}

/// Whether `tool` (Debian's package of that name) runs here; a notice when it does not, a
/// failure under `CI=true`.
pub fn tool_available(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let help =
            format!("{tool} is not installed (Debian's `{tool}` package; .ci/run installs it)");
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{help}");
        }
        eprintln!("skipped: {help}");
    }
    ok
}

/// A directory of its own for one test's files, removed when the test passes (kept, to look
/// at, when it fails).
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("hopnet-dissector-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// `datagrams` as the pcap file `NAME.pcap` of the test `name`, in a scratch directory of its
/// own where the dissector is generated beside it.
pub fn written(name: &str, datagrams: &[crate::capture::Datagram]) -> (Scratch, PathBuf) {
    let dir = scratch(name);
    let pcap = dir.join(format!("{name}.pcap"));
    crate::capture::write_pcap(&pcap, datagrams);
    (dir, pcap)
}

/// The dissector for the game's port in `dir`, or `None` (with [`available`]'s notice) without
/// tshark to run it.
pub fn game_dissector(dir: &Path) -> Option<PathBuf> {
    available().then(|| dissector(dir, &[PORT]))
}

/// `rabbit-msg dissector wireshark --port PORT --out DIR/hopnet.lua`.
pub fn dissector(dir: &Path, ports: &[u16]) -> PathBuf {
    let lua = dir.join("hopnet.lua");
    let mut args = vec!["dissector".to_string(), "wireshark".to_string()];
    for p in ports {
        args.extend(["--port".to_string(), p.to_string()]);
    }
    args.extend(["--out".to_string(), lua.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crate::common::run_ok(&args, "");
    lua
}

/// tshark on `capture` with the dissector, with `args` after.
pub fn run(capture: &Path, lua: &Path, args: &[&str]) -> String {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(capture)
        .arg("-X")
        .arg(format!("lua_script:{}", lua.display()))
        .args(args)
        .output()
        .expect("run tshark");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark: {stderr}");
    assert!(!stderr.contains("Lua"), "tshark's Lua: {stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 from tshark")
}

/// Per frame, the values tshark shows of each field named (`-T json -e ...`), in order.
pub fn fields(capture: &Path, lua: &Path, names: &[&str]) -> Vec<Vec<(String, Vec<String>)>> {
    fields_in(capture, lua, names, false)
}

/// [`fields`], from tshark's second pass (`-2`) when `two_pass`: the dissector has seen the
/// whole capture once before it shows a frame.
pub fn fields_in(
    capture: &Path,
    lua: &Path,
    names: &[&str],
    two_pass: bool,
) -> Vec<Vec<(String, Vec<String>)>> {
    let mut args = vec!["-T", "json"];
    if two_pass {
        args.push("-2");
    }
    for n in names {
        args.extend(["-e", n]);
    }
    let text = run(capture, lua, &args);
    let frames: Vec<Value> = serde_json::from_str(&text).expect("tshark's JSON");
    frames
        .iter()
        .map(|f| {
            let layers = &f["_source"]["layers"];
            names
                .iter()
                .map(|n| {
                    let values = layers[*n]
                        .as_array()
                        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
                        .unwrap_or_default();
                    (n.to_string(), values)
                })
                .collect()
        })
        .collect()
}
