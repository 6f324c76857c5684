//! Counters of the WebTransport carrier.

/// What the carrier did, since the server started. hopnet's own counters, for UDP and
/// WebTransport peers alike, are the endpoint's ([`hopnet::ServerStats`], [`hopnet::Stats`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebStats {
    /// Sessions open now.
    pub sessions: u64,
    /// Sessions accepted.
    pub accepted: u64,
    /// Sessions refused because `max_sessions` were live.
    pub refused_full: u64,
    /// Sessions refused because their datagrams could not carry a spec datagram (508 bytes),
    /// or they carry no datagrams at all.
    pub refused_small: u64,
    /// Sessions that failed or timed out in their QUIC or WebTransport handshake.
    pub failed: u64,
    /// Sessions the server closed: their hopnet connection ended, or never began.
    pub closed_by_server: u64,
    /// Datagrams from sessions handed to the endpoint.
    pub datagrams_received: u64,
    /// Datagrams from sessions dropped because the inbox was full.
    pub inbox_full: u64,
    /// Datagrams sent into sessions.
    pub datagrams_sent: u64,
    /// Datagrams not sent because they were larger than their session carries now (a
    /// connection on hopnet's extended wire that agreed to more than its session holds).
    pub too_large: u64,
    /// Datagrams for a session that had ended.
    pub unroutable: u64,
    /// UDP datagrams sent, received, and refused by the kernel.
    pub udp_sent: u64,
    pub udp_received: u64,
    pub udp_send_errors: u64,
    /// The WebSocket carrier's own counters.
    pub websocket: WebSocketStats,
}

/// What the WebSocket carrier did, since the server started.
///
/// ```
/// let stats = hopnet_webtransport::WebSocketStats::default();
/// assert_eq!(stats.closed_too_large + stats.closed_text, 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebSocketStats {
    /// Sockets open now.
    pub sockets: u64,
    /// Upgrades answered with 101.
    pub accepted: u64,
    /// Upgrades refused with 503 because `max_websockets` were open.
    pub refused_full: u64,
    /// Requests on the WebSocket path refused as no valid upgrade (400 or 426).
    pub refused_bad: u64,
    /// Sockets closed (1009) for a message larger than hopnet's largest datagram.
    pub closed_too_large: u64,
    /// Sockets closed (1003) for a text message.
    pub closed_text: u64,
    /// Sockets closed (1002) for breaking the WebSocket protocol (unmasked frames, bad
    /// opcodes, ...).
    pub closed_protocol: u64,
    /// Sockets closed (1008) for taking nothing of what they were sent for a while.
    pub closed_stalled: u64,
    /// Sockets the server closed (1000): their hopnet connection ended, or never began.
    pub closed_by_server: u64,
    /// Messages handed to the endpoint.
    pub datagrams_received: u64,
    /// Datagrams queued on sockets.
    pub datagrams_sent: u64,
    /// Datagrams dropped because their socket's queue was full.
    pub queue_full: u64,
    /// Datagrams for a socket that had ended.
    pub unroutable: u64,
}
