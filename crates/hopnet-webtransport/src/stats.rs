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
}
