//! The page falls back to a WebSocket by itself: Debian's Chromium, headless, with
//! `window.WebTransport` removed before the page's scripts run (`web/test/browser_websocket.mjs`),
//! plays a round by itself against a native bot over UDP, on one server; a second page, which
//! has WebTransport but whose session fails (sent to a UDP port nobody listens on), falls back
//! too and plays.
//!
//! Needs Node.js 18 or later with npm (the test installs `web/`'s packages) and Debian's
//! `chromium` package; without them it fails and says what to install.

mod short_rounds;

use std::sync::atomic::Ordering;

use snow_fight::net::play_bot;
use snow_fight::session::BotPlayer;

use crate::short_rounds::{Running, any, game};

#[test]
fn a_page_without_webtransport_plays_a_round_over_a_websocket() {
    let chromium = web_toolchain::chromium();
    web_toolchain::node_modules();

    let running = Running::start(11, 5, |_| {});
    let (page, udp, stop) = (running.site, running.udp, running.stop_flag());
    // The native bot plays until told to stop: the page's round needs a second player.
    let native = std::thread::spawn({
        let stop = stop.clone();
        move || {
            let mut player = BotPlayer::new(game(5), 3);
            play_bot(udp, hopnet::Config::default(), &mut player, |_, _| {
                stop.load(Ordering::Relaxed)
            })
            .unwrap();
            player.results.len()
        }
    });

    let script = web_toolchain::web_dir().join("test/browser_websocket.mjs");
    let url = format!("http://{page}/");
    let closed = std::net::UdpSocket::bind(any())
        .unwrap()
        .local_addr()
        .unwrap();
    let closed = closed.port().to_string();
    let result = web_toolchain::browser_json(&[
        &script,
        std::path::Path::new(&url),
        &chromium,
        std::path::Path::new(&closed),
    ]);
    let server = running.stop();
    let native_rounds = native.join().unwrap();

    assert_eq!(result["sawWebTransport"], false, "{result:#}");
    let page = &result["page"];
    assert_eq!(page["transport"], "websocket", "{result:#}");
    assert_eq!(
        page["fallback"], "this browser has no WebTransport",
        "{result:#}"
    );
    assert_eq!(
        page["won"].as_u64().unwrap() + page["lost"].as_u64().unwrap(),
        1,
        "{result:#}"
    );
    assert!(page["snapshots"].as_u64().unwrap() >= 60, "{page:#}");
    let failed = &result["failed"];
    assert_eq!(failed["transport"], "websocket", "{result:#}");
    assert!(
        failed["fallback"]
            .as_str()
            .unwrap()
            .starts_with("WebTransport failed"),
        "{result:#}"
    );
    assert!(failed["snapshots"].as_u64().unwrap() > 0, "{failed:#}");
    assert!(native_rounds >= 1, "the native bot played the round too");

    let stats = server.server.web_stats();
    assert_eq!(stats.accepted, 0, "no WebTransport session: {stats:?}");
    assert_eq!(stats.websocket.accepted, 2, "{stats:?}");
    assert_eq!(
        stats.websocket.queue_full + stats.websocket.closed_too_large,
        0,
        "{stats:?}"
    );
}
