//! Real query clients list a running game server: python-a2s (PyPI `python-a2s`, the module
//! `a2s`) asks a server with two bots playing on loopback for its info, players and rules, over
//! a plain server, a secure one, and a separate query port, and sees the live game; so does
//! gamedig (npm, installed in `tools/gamedig`).
//!
//! Without a client its tests print a notice and pass, except under CI (`CI=true`), where a
//! missing client is a failure: `.ci/run` installs both.

mod queries;

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::Ordering;

use queries::{Mode, Running, listing};
use serde_json::Value;

/// Asks with python-a2s; prints the info, players and rules as one JSON object.
const A2S_QUERY: &str = r#"
import json, sys
import a2s
addr = (sys.argv[1], int(sys.argv[2]))
info = a2s.info(addr, timeout=5)
players = a2s.players(addr, timeout=5)
rules = a2s.rules(addr, timeout=5)
print(json.dumps({
    "info": {
        "server_name": info.server_name, "map_name": info.map_name, "folder": info.folder,
        "game": info.game, "player_count": info.player_count, "max_players": info.max_players,
        "bot_count": info.bot_count, "version": info.version, "port": info.port,
    },
    "players": [{"name": p.name, "score": p.score, "duration": p.duration} for p in players],
    "rules": rules,
}))
"#;

/// Whether python-a2s can run here; under CI its absence fails the test.
fn python_a2s() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import a2s"])
        .output()
        .is_ok_and(|o| o.status.success());
    found
        || missing(
            "python-a2s is not installed (python3 -c 'import a2s' failed): \
             pip install python-a2s (.ci/run installs it)",
        )
}

/// Where gamedig is installed, if it is and Node.js runs; under CI its absence fails the test.
fn gamedig() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/gamedig");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if node && dir.join("node_modules/gamedig").is_dir() {
        return Some(dir);
    }
    missing(
        "gamedig is not installed (no Node.js, or no tools/gamedig/node_modules): \
         npm ci --prefix tools/gamedig (.ci/run installs it)",
    );
    None
}

/// Says a query client is missing: a failure under CI, else a notice (and `false`).
fn missing(help: &str) -> bool {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{help}");
    }
    eprintln!("skipped: {help}");
    false
}

/// python-a2s's view of the server at `running.query_addr`.
fn query(running: &Running) -> Value {
    let addr = running.query_addr;
    let out = Command::new("python3")
        .args([
            "-c",
            A2S_QUERY,
            &addr.ip().to_string(),
            &addr.port().to_string(),
        ])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python-a2s failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("python-a2s printed JSON")
}

/// Starts a server in `mode` with two bots, lets python-a2s query it, and checks what it saw
/// against the live game.
fn listed_with_two_bots(mode: Mode) {
    if !python_a2s() {
        return;
    }
    let secure = matches!(mode, Mode::Secure);
    let running = Running::start(mode, 2);
    let seen = query(&running);
    let players_now = running.players.load(Ordering::Relaxed);
    let game_port = running.game_addr.port();
    let server = running.stop();

    let info = &seen["info"];
    assert_eq!(info["server_name"], listing().name.as_str());
    assert_eq!(info["map_name"], "yard");
    assert_eq!(info["game"], "Snow Fight");
    assert_eq!(info["folder"], "snow-fight");
    assert_eq!(info["player_count"], 2, "{seen}");
    assert_eq!(players_now, 2);
    assert_eq!(info["max_players"], 8);
    assert_eq!(info["bot_count"], 0);
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["port"], game_port);

    let names: Vec<&str> = seen["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["player 1", "player 2"]);
    for p in seen["players"].as_array().unwrap() {
        let duration = p["duration"].as_f64().unwrap();
        assert!(duration > 0.0 && duration < 60.0, "{p}");
        assert_eq!(p["score"], 0, "no round ended yet: {p}");
    }
    let rules = &seen["rules"];
    assert_eq!(rules["tick_rate"], "60");
    assert_eq!(rules["min_players"], "2");
    assert_eq!(rules["round_secs"], "600");
    assert_eq!(rules["secure"], if secure { "1" } else { "0" });
    assert_eq!(server.game.players(), 2);
}

#[test]
fn python_a2s_lists_a_plain_server_with_its_players() {
    listed_with_two_bots(Mode::Plain);
}

#[test]
fn python_a2s_lists_a_secure_server_on_its_game_port() {
    listed_with_two_bots(Mode::Secure);
}

#[test]
fn python_a2s_lists_a_server_on_its_query_port() {
    listed_with_two_bots(Mode::QueryPort);
}

#[test]
fn gamedig_lists_a_server_with_its_players() {
    let Some(dir) = gamedig() else {
        return;
    };
    let running = Running::start(Mode::Plain, 2);
    let addr = running.query_addr;
    let out = Command::new("node")
        .current_dir(&dir)
        .args([
            "query.mjs",
            &addr.ip().to_string(),
            &addr.port().to_string(),
        ])
        .output()
        .expect("node runs");
    let game_port = running.game_addr.port();
    running.stop();
    assert!(
        out.status.success(),
        "gamedig failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("gamedig printed JSON");
    assert_eq!(seen["name"], listing().name.as_str());
    assert_eq!(seen["map"], "yard");
    assert_eq!(seen["game"], "Snow Fight");
    assert_eq!(seen["numplayers"], 2, "{seen}");
    assert_eq!(seen["maxplayers"], 8);
    assert_eq!(seen["bots"], 0);
    assert_eq!(seen["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(seen["port"], game_port);
    let mut names: Vec<&str> = seen["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    // gamedig lists them in an order of its own.
    names.sort();
    assert_eq!(names, ["player 1", "player 2"]);
    assert_eq!(seen["rules"]["tick_rate"], "60", "{seen}");
}
