//! The page's hopnet client (`web/src/hopnet/`, TypeScript) against this server, run by Node
//! over a UDP socket: the same datagrams a WebTransport session carries, so the client's wire
//! is checked against the real server without a browser (the game's browser test runs it in
//! Chromium over WebTransport).

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use common::EchoServer;
use hopnet::{DisconnectReason, Event};

/// `web/` compiled once for this test binary.
fn compiled() -> &'static Path {
    static BUILD: OnceLock<PathBuf> = OnceLock::new();
    BUILD.get_or_init(|| {
        web_toolchain::compile(&PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-build"))
    })
}

/// Runs the client against `server` with `loss` on every datagram both ways; returns what it
/// printed.
fn run_client(server: &EchoServer, loss: f64, seed: u32) -> serde_json::Value {
    let script = web_toolchain::web_dir().join("test/hopnet_udp.mjs");
    let addr = server.udp.to_string();
    let (loss, seed) = (loss.to_string(), seed.to_string());
    let out = web_toolchain::node(
        &[
            &script,
            compiled(),
            Path::new(&addr),
            Path::new(&loss),
            Path::new(&seed),
        ],
        "the TypeScript client",
    );
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn check(result: &serde_json::Value, echoes: usize, ending: &str) {
    assert_eq!(result["connected"], true, "{result}");
    assert_eq!(
        result["echoed"].as_array().map(Vec::len),
        Some(echoes),
        "every message came back, byte for byte: {result}"
    );
    assert_eq!(result["unexpected"], 0, "{result}");
    assert_eq!(result["disconnected"], ending, "{result}");
}

#[test]
fn the_typescript_client_talks_to_the_server() {
    let server = EchoServer::start();
    let result = run_client(&server, 0.0, 1);
    // Seven reliable sizes and one unreliable message.
    check(&result, 8, "peer-closed");
    assert_eq!(result["stats"]["malformed"], 0, "{result}");
    server.wait_for(Duration::from_secs(5), "the client", |s| {
        let peers = s.connected();
        peers.len() == 1 && s.disconnects(peers[0]) == [DisconnectReason::LocalClose]
    });
    let seen = server.seen.lock().unwrap();
    let got = seen
        .events
        .iter()
        .filter(|(_, _, e)| matches!(e, Event::Message { .. }))
        .count();
    assert_eq!(got, 9, "eight messages and `bye`");
}

#[test]
fn the_typescript_client_resends_what_is_lost() {
    let server = EchoServer::start();
    for seed in [2, 3] {
        let result = run_client(&server, 0.1, seed);
        check(&result, 7, "local-close");
        assert!(
            result["stats"]["retransmissions"].as_u64().unwrap() > 0,
            "10 % loss, and nothing resent? {result}"
        );
    }
}

#[test]
fn the_typescript_client_speaks_the_spec_wire_to_a_server_with_extensions() {
    let config = hopnet::Config::builder().extensions(true).build().unwrap();
    let server = EchoServer::start_with_config(config, |_| {});
    let result = run_client(&server, 0.0, 4);
    check(&result, 8, "peer-closed");
}

#[test]
fn the_typescript_client_survives_hostile_datagrams() {
    let script = web_toolchain::web_dir().join("test/hopnet_hostile.mjs");
    for seed in ["1", "2"] {
        let out = web_toolchain::node(
            &[&script, compiled(), Path::new(seed)],
            "the hostile-input run",
        );
        let checked: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert!(checked["datagrams"].as_u64().unwrap() > 40_000, "{checked}");
    }
}
