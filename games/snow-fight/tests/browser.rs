//! The game in a real browser: Debian's Chromium, headless, driven by `puppeteer-core` from
//! Node (`web/test/browser.mjs`), plays against the game's server over WebTransport while a
//! native client watches over UDP.
//!
//! Two pages join: one plays by itself (`?bot=1`), one is played with the keyboard. The test
//! holds that both join and receive snapshots, that the bot page walks, that the arrow keys
//! move the keyboard page's player the way they point, that pings come back, and that the
//! native client sees both players move in its own snapshots.
//!
//! Needs Node.js 18 or later with npm (the test installs `web/`'s packages) and Debian's
//! `chromium` package; without them it fails and says what to install.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hopnet::Client;
use hopnet::Event;
use snow_fight::Entity;
use snow_fight::session::{ClientEvent, GameClient};

mod page_host;
mod short_rounds;
use page_host::page_server;
use short_rounds::Running;

/// Where each player was, by owner, in the snapshots a native client received.
type Seen = Arc<Mutex<HashMap<u32, Vec<(f32, f32)>>>>;

/// A native client that joins and records every player's position, until `stop`.
fn watch(server: SocketAddr, seen: Seen, stop: Arc<AtomicBool>) -> Option<u32> {
    let mut client = Client::connect(server, hopnet::Config::default()).unwrap();
    let mut game = GameClient::new();
    while !stop.load(Ordering::Relaxed) {
        client.poll(Duration::from_millis(5)).unwrap();
        while let Some(event) = client.poll_event() {
            match event {
                Event::Connected => game.send_init(client.machine()),
                Event::Message { bytes, .. }
                    if game.handle(&bytes, Instant::now()) == Some(ClientEvent::Snapshot) =>
                {
                    let mut seen = seen.lock().unwrap();
                    for p in game.entities().iter().filter_map(Entity::player) {
                        seen.entry(p.owner).or_default().push((p.pos.x, p.pos.y));
                    }
                }
                _ => {}
            }
        }
    }
    let _ = client.close();
    game.player()
}

fn spread(points: &[(f32, f32)]) -> f32 {
    let Some(&(x0, y0)) = points.first() else {
        return 0.0;
    };
    points
        .iter()
        .map(|&(x, y)| (x - x0).hypot(y - y0))
        .fold(0.0, f32::max)
}

#[test]
fn pages_play_against_our_server_and_a_native_client_sees_them_move() {
    let chromium = web_toolchain::chromium();
    web_toolchain::node_modules();

    let (server, page) = page_server(3);
    let running = Running::serve(server, page);
    let (udp, stop) = (running.udp, running.stop_flag());
    let seen: Seen = Arc::default();
    let watching = std::thread::spawn({
        let (seen, stop) = (seen.clone(), stop.clone());
        move || watch(udp, seen, stop)
    });

    let script = web_toolchain::web_dir().join("test/browser.mjs");
    let url = format!("http://{page}/");
    let result = web_toolchain::browser_json(&[&script, std::path::Path::new(&url), &chromium]);
    let server = running.stop();
    let watcher = watching.join().unwrap();

    let (bot, keyboard) = (&result["bot"], &result["keyboard"]);
    for page in [bot, keyboard] {
        assert_eq!(page["status"], "playing", "{result:#}");
        assert!(page["snapshots"].as_u64().unwrap() >= 30, "{page:#}");
    }
    assert!(bot["snapshots"].as_u64().unwrap() >= 60, "{bot:#}");
    let rtts = bot["rtts"].as_array().unwrap();
    assert!(rtts.len() >= 3, "pings answered: {bot:#}");
    assert!(
        rtts.iter().all(|r| r.as_f64().unwrap() < 1000.0),
        "loopback RTTs: {rtts:?}"
    );

    // The arrow keys moved the keyboard page's player the way they point.
    let walk = &result["walk"];
    let at = |k: &str, axis: &str| walk[k][axis].as_f64().unwrap();
    let across = if walk["keys"][0] == "ArrowRight" {
        1.0
    } else {
        -1.0
    };
    let up_down = if walk["keys"][1] == "ArrowUp" {
        1.0
    } else {
        -1.0
    };
    assert!(
        (at("first", "x") - at("before", "x")) * across > 1.0,
        "{walk:#}"
    );
    assert!(
        (at("second", "y") - at("first", "y")) * up_down > 1.0,
        "{walk:#}"
    );

    // The native client saw both browser players, and saw them move.
    let ids: Vec<u32> = [bot, keyboard]
        .iter()
        .map(|p| p["player"].as_u64().unwrap() as u32)
        .collect();
    assert_ne!(ids[0], ids[1]);
    assert!(
        watcher.is_some_and(|w| !ids.contains(&w)),
        "the watcher joined too"
    );
    let seen = seen.lock().unwrap();
    for id in &ids {
        let positions = seen.get(id).map(Vec::as_slice).unwrap_or_default();
        assert!(
            spread(positions) > 1.0,
            "the native client saw player {id} move: {} snapshots, {positions:?}",
            positions.len()
        );
    }

    let stats = server.server.web_stats();
    assert_eq!(stats.accepted, 2, "{stats:?}");
    assert_eq!(
        stats.too_large + stats.inbox_full + stats.refused_small,
        0,
        "{stats:?}"
    );
}
