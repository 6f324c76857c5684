//! The game for browsers: the server over UDP and WebTransport together
//! ([`hopnet_webtransport`]), and the page that plays it.
//!
//! The page (`page/`: `index.html`, and `js/`, the TypeScript of the repository's `web/src/`
//! compiled by `npm run build --prefix web`) is built into the server, which serves it with
//! [`WebServer::serve_page`] from the host it accepts sessions on. The page reads
//! `/webtransport.json`, opens its session with the certificate's hash, runs hopnet's
//! handshake inside it, and plays as any client does: `Init`, snapshots, actions. Where the
//! browser has no WebTransport, or the session does not open, the page plays the same way over
//! a WebSocket to the port it was served from (`/hopnet`, taken by the same server).

use std::net::SocketAddr;

use hopnet_webtransport::{Error, Server, Site, WebTransportConfig};

use crate::host::GameHost;
use crate::session::GameServer;

/// The page's files: path, content type, contents. `tests/page.rs` checks that this is every
/// file of `page/`, and that `page/js/` is what `tsc` makes of `web/src/` now.
pub const PAGE: &[(&str, &str, &str)] = &[
    ("/", HTML, include_str!("../page/index.html")),
    (
        "/js/game/bot.js",
        JS,
        include_str!("../page/js/game/bot.js"),
    ),
    (
        "/js/game/client.js",
        JS,
        include_str!("../page/js/game/client.js"),
    ),
    (
        "/js/game/display.js",
        JS,
        include_str!("../page/js/game/display.js"),
    ),
    (
        "/js/game/keys.js",
        JS,
        include_str!("../page/js/game/keys.js"),
    ),
    (
        "/js/game/landing.js",
        JS,
        include_str!("../page/js/game/landing.js"),
    ),
    (
        "/js/game/main.js",
        JS,
        include_str!("../page/js/game/main.js"),
    ),
    (
        "/js/game/others.js",
        JS,
        include_str!("../page/js/game/others.js"),
    ),
    (
        "/js/game/rules.js",
        JS,
        include_str!("../page/js/game/rules.js"),
    ),
    (
        "/js/game/view.js",
        JS,
        include_str!("../page/js/game/view.js"),
    ),
    (
        "/js/game/walk.js",
        JS,
        include_str!("../page/js/game/walk.js"),
    ),
    (
        "/js/hopnet/carried.js",
        JS,
        include_str!("../page/js/hopnet/carried.js"),
    ),
    (
        "/js/hopnet/choose.js",
        JS,
        include_str!("../page/js/hopnet/choose.js"),
    ),
    (
        "/js/hopnet/connection.js",
        JS,
        include_str!("../page/js/hopnet/connection.js"),
    ),
    (
        "/js/hopnet/errors.js",
        JS,
        include_str!("../page/js/hopnet/errors.js"),
    ),
    (
        "/js/hopnet/handshake.js",
        JS,
        include_str!("../page/js/hopnet/handshake.js"),
    ),
    (
        "/js/hopnet/header.js",
        JS,
        include_str!("../page/js/hopnet/header.js"),
    ),
    (
        "/js/hopnet/receiver.js",
        JS,
        include_str!("../page/js/hopnet/receiver.js"),
    ),
    (
        "/js/hopnet/rtt.js",
        JS,
        include_str!("../page/js/hopnet/rtt.js"),
    ),
    (
        "/js/hopnet/sender.js",
        JS,
        include_str!("../page/js/hopnet/sender.js"),
    ),
    (
        "/js/hopnet/websocket.js",
        JS,
        include_str!("../page/js/hopnet/websocket.js"),
    ),
    (
        "/js/hopnet/webtransport.js",
        JS,
        include_str!("../page/js/hopnet/webtransport.js"),
    ),
    (
        "/js/messages.js",
        JS,
        include_str!("../page/js/messages.js"),
    ),
    (
        "/js/sync/interpolate.js",
        JS,
        include_str!("../page/js/sync/interpolate.js"),
    ),
    (
        "/js/sync/predict.js",
        JS,
        include_str!("../page/js/sync/predict.js"),
    ),
    (
        "/js/sync/tick_sync.js",
        JS,
        include_str!("../page/js/sync/tick_sync.js"),
    ),
];

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// The page as a [`Site`].
pub fn page() -> Site {
    PAGE.iter().fold(Site::new(), |site, (path, kind, body)| {
        site.file(path, kind, body)
    })
}

/// A game server whose players come over UDP and from browsers: the [`GameHost`] on a
/// [`Server`] of `hopnet-webtransport`, the same loop as [`UdpServer`](crate::net::UdpServer)'s,
/// server queries included (on the game's UDP port, through the carrier's side channel).
pub type WebServer = GameHost<Server>;

impl GameHost<Server> {
    /// Binds `udp` for UDP clients and `web.bind` for browsers, and prepares to tick
    /// `tick_rate` times a second.
    pub fn bind(
        udp: SocketAddr,
        web: WebTransportConfig,
        config: hopnet::Config,
        game: GameServer,
        tick_rate: u32,
    ) -> Result<WebServer, Error> {
        let server = Server::bind(udp, web, config)?;
        Ok(WebServer::with_server(server, game, tick_rate))
    }

    /// Serves the page over HTTP on `addr` (TCP); returns the bound address. Serve it from the
    /// host WebTransport listens on: the page opens its session to its own host.
    pub fn serve_page(&mut self, addr: SocketAddr) -> Result<SocketAddr, Error> {
        self.server.serve_site(addr, page())
    }
}
