//! The game's server with the page, for the browser tests: UDP and WebTransport on loopback, a
//! self-signed certificate, the page's site, and a game in which nobody dies or wins while a
//! test looks.

// Each test file compiles its own copy of this module and uses part of it.
#![allow(dead_code)]

use std::net::SocketAddr;

use hopnet_webtransport::{Certificate, WebTransportConfig};
use snow_fight::Config;
use snow_fight::session::{GameServer, ServerConfig};
use snow_fight::web::WebServer;

pub fn any() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A server of world `seed` at 60 ticks a second, and the address its page is served on.
pub fn page_server(seed: u64) -> (WebServer, SocketAddr) {
    let game = GameServer::new(ServerConfig {
        seed,
        sample_every: 0,
        game: Config {
            // Nobody dies or wins while the test looks: the keyboard page must still walk.
            player_health: 1_000_000,
            min_players: 8,
            ..Config::default()
        },
        ..ServerConfig::default()
    });
    let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
    let mut server = WebServer::bind(
        any(),
        WebTransportConfig::new(any(), certificate),
        hopnet::Config::default(),
        game,
        60,
    )
    .unwrap();
    let page = server.serve_page(any()).unwrap();
    (server, page)
}
