//! Counters per connection and per endpoint, for dashboards and for tests that check bounds.

use std::time::Duration;

/// Statistics of one connection. A snapshot: fields are filled in when it is taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Smoothed round-trip time (RFC 6298 SRTT); `None` before the first sample.
    pub smoothed_rtt: Option<Duration>,
    /// Smallest round-trip time measured.
    pub min_rtt: Option<Duration>,
    /// Current retransmission timeout, with backoff.
    pub rto: Duration,
    /// Datagrams sent to the peer (handshake included).
    pub packets_sent: u64,
    /// Bytes of those datagrams.
    pub bytes_sent: u64,
    /// Datagrams received from the peer.
    pub packets_received: u64,
    /// Bytes of those datagrams.
    pub bytes_received: u64,
    /// Reliable chunks sent again.
    pub retransmissions: u64,
    /// Reliable chunks declared lost (by timer or by later acknowledgements).
    pub chunks_lost: u64,
    /// Messages accepted by `send`.
    pub messages_sent: u64,
    /// Reliable messages fully acknowledged by the peer.
    pub messages_acked: u64,
    /// Messages handed up to the application.
    pub messages_delivered: u64,
    /// Reliable chunks in flight now.
    pub chunks_in_flight: u64,
    /// Congestion window now, in chunks.
    pub congestion_window: u64,
    /// Reliable messages awaiting acknowledgement now.
    pub pending_reliable: u64,
    /// Bytes held for reassembly and for delivered payloads not yet polled.
    pub reassembly_bytes: u64,
    /// Datagrams or chunks dropped as malformed.
    pub malformed: u64,
    /// Chunks already received, dropped (reliable ones acknowledged again).
    pub duplicates: u64,
    /// Chunks dropped because the reassembly budget was full.
    pub over_budget: u64,
    /// Unreliable messages dropped as older than the newest delivered (sequenced mode).
    pub stale: u64,
    /// Incomplete unreliable payloads dropped by their timeout.
    pub unreliable_expired: u64,
    /// Incomplete reliable payloads abandoned after `reliable_partial_timeout` without a chunk.
    pub reliable_abandoned: u64,
    /// Outgoing datagrams dropped because the transmit queue was full (or the handshake had
    /// not yet reached the data phase, for unreliable chunks).
    pub datagrams_dropped: u64,
    /// Extended datagrams dropped because their CRC-32 did not match (corrupted on the way).
    pub crc_failed: u64,
    /// Datagrams of the extended protocol the connection never agreed to (extended datagrams
    /// without an agreement, an accept that claims what was never offered, a second offer
    /// that contradicts the first), and corrupt offers or accepts: dropped.
    pub extensions_refused: u64,
    /// Messages held back now by the receiver until the messages they follow arrive
    /// (reliable ordered and semi-ordered delivery on the extended wire).
    pub held_back: u64,
    /// Ordered messages the sender holds now until the messages they follow are acknowledged
    /// (ordered delivery toward a peer without the extensions).
    pub ordered_waiting: u64,
    /// Messages sent LZ4-compressed.
    pub compressed: u64,
    /// Tracked messages acknowledged by the peer.
    pub tracked_acked: u64,
    /// Tracked messages reported lost.
    pub tracked_lost: u64,
}

impl Stats {
    /// What the congestion controller says the link carries now, in bytes per second: the
    /// congestion window's chunks, each a full spec datagram ([`CHUNK_SIZE`](crate::CHUNK_SIZE)
    /// bytes and the [`HEADER_LEN`](crate::HEADER_LEN)-byte header), once per smoothed round
    /// trip. `None` before the first round-trip sample.
    ///
    /// A sender that keeps its own traffic under this figure (a replicator's byte budget per
    /// client) sends a client on a slow or congested link less, instead of queueing what the
    /// link cannot carry. On the extended wire's larger datagrams it understates the window.
    ///
    /// ```
    /// use std::time::Duration;
    /// use hopnet_proto::Stats;
    ///
    /// let stats = Stats {
    ///     congestion_window: 16,
    ///     smoothed_rtt: Some(Duration::from_millis(100)),
    ///     ..Stats::default()
    /// };
    /// // 16 datagrams of 508 bytes every 100 ms.
    /// assert_eq!(stats.send_rate(), Some(81_280));
    /// assert_eq!(Stats::default().send_rate(), None);
    /// ```
    pub fn send_rate(&self) -> Option<u64> {
        let rtt = self.smoothed_rtt?.as_micros().max(1);
        let window = u128::from(self.congestion_window)
            * (crate::chunk::CHUNK_SIZE + crate::packet::HEADER_LEN) as u128;
        Some(u64::try_from(window * 1_000_000 / rtt).unwrap_or(u64::MAX))
    }
}

/// Statistics of an [`Server`](crate::Server) as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Datagrams received on the endpoint.
    pub datagrams_received: u64,
    /// Datagrams dropped as malformed or unexpected (unknown peer, wrong size, bad seasoning).
    pub malformed: u64,
    /// `Init` messages answered with a `Challenge`.
    pub challenges_sent: u64,
    /// Handshakes refused because the endpoint had `max_connections`.
    pub refused_full: u64,
    /// Challenges not sent because the transmit queue was full.
    pub challenges_dropped: u64,
    /// Connections established.
    pub connections_accepted: u64,
    /// Connections open now.
    pub connections: u64,
}
