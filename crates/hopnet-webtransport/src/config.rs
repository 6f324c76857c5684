//! What a WebTransport carrier needs besides hopnet's own [`Config`](hopnet::Config).

use std::net::SocketAddr;
use std::time::Duration;

use crate::certificate::Certificate;

/// Where browser sessions are accepted, with which certificate, and their bounds.
#[derive(Debug)]
#[non_exhaustive]
pub struct WebTransportConfig {
    /// The UDP address WebTransport (HTTP/3 over QUIC) listens on.
    pub bind: SocketAddr,
    /// The certificate it presents.
    pub certificate: Certificate,
    /// Sessions at once, those still in their QUIC or WebTransport handshake included; further
    /// ones are refused. 256 by default.
    pub max_sessions: usize,
    /// How long a session may take from its first QUIC packet to an accepted WebTransport
    /// session before it is dropped; and how long the site waits for a request's head (a
    /// WebSocket's upgrade among them) before it drops the connection. 10 s by default.
    pub handshake_timeout: Duration,
    /// WebSockets open at once (on [`WEBSOCKET_PATH`](crate::WEBSOCKET_PATH) of the site's
    /// port, see [`Server::serve_site`](crate::Server::serve_site)); further upgrades are
    /// refused with 503. 256 by default.
    pub max_websockets: usize,
    /// How long an accepted session or WebSocket may go without a hopnet connection (the handshake inside
    /// it, or after hopnet closed one) before the server closes it. 15 s by default.
    pub unused_session_timeout: Duration,
    /// Datagrams received from all sessions that may wait for the server's next `poll`; more
    /// are dropped (and counted), as a full socket buffer drops UDP. As many from all
    /// WebSockets may wait apart; beyond them a socket is not read until there is room (TCP
    /// holds its sender back), so nothing a socket sent is dropped. 4,096 by default.
    pub inbox: usize,
    /// QUIC's idle timeout. hopnet's keepalive (a datagram every 2 s of silence) keeps a live
    /// session busy, so this only ends sessions whose peer vanished. 30 s by default.
    pub quic_idle_timeout: Duration,
}

impl WebTransportConfig {
    /// Sessions on `bind` with `certificate`, and the default bounds.
    pub fn new(bind: SocketAddr, certificate: Certificate) -> WebTransportConfig {
        WebTransportConfig {
            bind,
            certificate,
            max_sessions: 256,
            max_websockets: 256,
            handshake_timeout: Duration::from_secs(10),
            unused_session_timeout: Duration::from_secs(15),
            inbox: 4096,
            quic_idle_timeout: Duration::from_secs(30),
        }
    }
}
