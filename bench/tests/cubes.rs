//! `cubes --seconds 2`: exits 0 and ends with one JSON object holding exactly the keys,
//! every value finite and in its range. (bench/ is its own workspace: CI does not run this;
//! `cargo test --release --test cubes` in bench/ does.)

use std::process::Command;

const KEYS: [&str; 8] = [
    "cubes",
    "raw_kbps",
    "sent_kbps_mean",
    "sent_kbps_max_second",
    "position_error_p99_m",
    "orientation_error_p99_deg",
    "near_stale_ticks_p99",
    "budget_exceeded_seconds",
];

fn last_line(args: &[&str]) -> serde_json::Map<String, serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_cubes"))
        .args(args)
        .output()
        .expect("cubes runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cubes {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let line = stdout.lines().last().expect("a last line");
    let value: serde_json::Value = serde_json::from_str(line).expect("the last line is JSON");
    let object = value.as_object().expect("a JSON object").clone();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut want = KEYS.to_vec();
    want.sort_unstable();
    assert_eq!(keys, want);
    for (k, v) in &object {
        let n = v.as_f64().unwrap_or(f64::NAN);
        assert!(n.is_finite() && n >= 0.0, "{k} = {v}");
    }
    object
}

fn number(o: &serde_json::Map<String, serde_json::Value>, k: &str) -> f64 {
    o[k].as_f64().expect("a number")
}

#[test]
fn two_seconds_without_a_budget() {
    let o = last_line(&["--seconds", "2", "--clients", "2"]);
    assert_eq!(o["cubes"], 901);
    // 901 cubes × 321 bits × 60 Hz: the article's 17.35 Mbit/s.
    assert!((number(&o, "raw_kbps") - 17_353.26).abs() < 0.01);
    // Something was received, far less than the raw state.
    let sent = number(&o, "sent_kbps_mean");
    assert!(sent > 1.0 && sent < 17_353.0, "{sent}");
    assert!(number(&o, "sent_kbps_max_second") >= sent);
    // Without a budget every changed cube is sent every tick: errors are the grid's.
    assert!(number(&o, "position_error_p99_m") <= 0.002);
    assert!(number(&o, "orientation_error_p99_deg") <= 0.5);
    assert_eq!(o["budget_exceeded_seconds"], 0);
}

#[test]
fn two_seconds_under_a_budget() {
    let o = last_line(&["--seconds", "2", "--clients", "1", "--budget-kbps", "64"]);
    assert!(number(&o, "sent_kbps_max_second") <= 64.0);
    assert_eq!(o["budget_exceeded_seconds"], 0);
}

#[test]
fn bad_flags_are_refused() {
    for args in [
        &["--hz", "0"][..],
        &["--loss", "2"],
        &["--nope", "1"],
        &["--seed"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_cubes"))
            .args(args)
            .output()
            .expect("cubes runs");
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(!out.stderr.is_empty());
    }
}
