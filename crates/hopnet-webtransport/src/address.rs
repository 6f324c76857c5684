//! The address each WebTransport session or WebSocket has toward hopnet's server.
//!
//! hopnet's [`Server`](hopnet::proto::Server) keys its connections by the peer's socket address.
//! A browser's session has no UDP address of its own that the server could send to (its
//! datagrams arrive inside a QUIC connection), so the driver gives each session a synthetic
//! address and routes every datagram the endpoint sends there into that session. The addresses
//! lie in `100::/64`, IPv6's discard-only prefix (RFC 6666): no real peer sends from it, so a
//! session's address can never be a UDP client's, and port 0, which no UDP peer sends from
//! either. A counter fills the 64 low bits, so an address is never given twice by one server:
//! a new session never meets state the endpoint kept for an old one. WebSockets count from
//! the top bit up ([`WEBSOCKET_BIT`]), sessions from 1: the two never meet either.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

/// The first 16 bits of the discard-only prefix `100::/64`.
const DISCARD_PREFIX: u16 = 0x0100;

/// The bit that marks a WebSocket's number: sessions are numbered from 1 and never reach it.
const WEBSOCKET_BIT: u64 = 1 << 63;

/// The address of the WebSocket numbered `n` (below 2^63).
pub(crate) fn websocket_address(n: u64) -> SocketAddr {
    session_address(n | WEBSOCKET_BIT)
}

/// The address of the session numbered `n`.
pub(crate) fn session_address(n: u64) -> SocketAddr {
    let [a, b, c, d] = [
        (n >> 48) as u16,
        (n >> 32) as u16,
        (n >> 16) as u16,
        n as u16,
    ];
    SocketAddr::new(
        IpAddr::V6(Ipv6Addr::new(DISCARD_PREFIX, 0, 0, 0, a, b, c, d)),
        0,
    )
}

/// Whether `addr` is a WebTransport session's or a WebSocket's address (one this crate gives),
/// not a UDP peer's: what a game that treats browser players differently asks of an
/// [`ServerEvent`](hopnet::ServerEvent)'s `peer`. [`is_websocket_address`] tells the two
/// apart.
///
/// ```
/// use hopnet_webtransport::is_session_address;
///
/// assert!(!is_session_address("127.0.0.1:7000".parse().unwrap()));
/// ```
pub fn is_session_address(addr: SocketAddr) -> bool {
    match addr {
        SocketAddr::V6(v6) => {
            let s = v6.ip().segments();
            s[..4] == [DISCARD_PREFIX, 0, 0, 0] && v6.port() == 0
        }
        SocketAddr::V4(_) => false,
    }
}

/// Whether `addr` is a WebSocket's address: a player on the TCP fallback, where a late
/// datagram holds up those behind it (see the crate's documentation).
///
/// ```
/// use hopnet_webtransport::is_websocket_address;
///
/// assert!(!is_websocket_address("[::1]:7000".parse().unwrap()));
/// ```
pub fn is_websocket_address(addr: SocketAddr) -> bool {
    match addr {
        SocketAddr::V6(v6) => is_session_address(addr) && v6.ip().segments()[4] & 0x8000 != 0,
        SocketAddr::V4(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_gives_its_own_session_address() {
        let numbers = [0, 1, 2, 0xffff, 0x1_0000, u64::MAX >> 1, u64::MAX];
        let addresses: std::collections::HashSet<_> =
            numbers.iter().map(|&n| session_address(n)).collect();
        assert_eq!(addresses.len(), numbers.len());
        assert!(addresses.iter().all(|&a| is_session_address(a)));
    }

    #[test]
    fn websockets_and_sessions_never_share_an_address() {
        for n in [1, 2, 0xffff, (1 << 63) - 1] {
            let (session, socket) = (session_address(n), websocket_address(n));
            assert_ne!(session, socket);
            assert!(is_session_address(socket) && is_websocket_address(socket));
            assert!(!is_websocket_address(session));
        }
    }

    #[test]
    fn udp_peers_are_never_session_addresses() {
        for addr in [
            "127.0.0.1:7000",
            "[::1]:7000",
            "[100::1]:7000",
            "[101::1]:0",
            "0.0.0.0:0",
        ] {
            assert!(!is_session_address(addr.parse().unwrap()), "{addr}");
        }
    }
}
