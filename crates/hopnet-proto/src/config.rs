//! Tunables with sane defaults, built with [`ConfigBuilder`].
//!
//! Every bound that protects memory lives here, so that an operator can see at a glance how much
//! a connection or an endpoint may hold.

use std::time::Duration;

use crate::chunk::MAX_PAYLOAD;
use crate::error::Error;
use crate::ext::Extensions;
use crate::ext::features::{MAX_DATAGRAM, SPEC_DATAGRAM};

/// Configuration shared by [`Client`](crate::Client) and [`Server`](crate::Server).
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) idle_timeout: Duration,
    pub(crate) keepalive_interval: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) handshake_initial_resend: Duration,
    pub(crate) handshake_max_resend: Duration,
    pub(crate) cookie_lifetime: Duration,
    pub(crate) initial_rtt: Duration,
    pub(crate) min_rto: Duration,
    pub(crate) max_rto: Duration,
    pub(crate) initial_window: u32,
    pub(crate) min_window: u32,
    pub(crate) max_window: u32,
    pub(crate) max_reassembly_bytes: usize,
    pub(crate) max_pending_reliable: usize,
    pub(crate) max_pending_bytes: usize,
    pub(crate) max_connections: usize,
    pub(crate) max_queued_datagrams: usize,
    pub(crate) unreliable_timeout: Duration,
    pub(crate) reliable_partial_timeout: Duration,
    pub(crate) sequenced_unreliable: bool,
    pub(crate) pacing: bool,
    pub(crate) extensions: bool,
    pub(crate) batching: bool,
    pub(crate) ack_ranges: bool,
    pub(crate) crc: bool,
    pub(crate) compression: bool,
    pub(crate) compression_threshold: usize,
    pub(crate) max_datagram_size: usize,
    pub(crate) ack_delay: Duration,
    pub(crate) ack_every: usize,
    pub(crate) max_offers: u32,
    pub(crate) tracked_timeout: Duration,
    pub(crate) max_tracked: usize,
    pub(crate) schema: Option<std::sync::Arc<crate::ext::schema::SchemaFingerprint>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            idle_timeout: Duration::from_secs(15),
            keepalive_interval: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(10),
            handshake_initial_resend: Duration::from_millis(250),
            handshake_max_resend: Duration::from_secs(1),
            cookie_lifetime: Duration::from_secs(10),
            initial_rtt: Duration::from_millis(100),
            min_rto: Duration::from_millis(30),
            max_rto: Duration::from_secs(5),
            initial_window: 16,
            min_window: 4,
            max_window: 1024,
            max_reassembly_bytes: 4 << 20,
            max_pending_reliable: 1024,
            max_pending_bytes: 2 << 20,
            max_connections: 1024,
            max_queued_datagrams: 4096,
            unreliable_timeout: Duration::from_secs(1),
            reliable_partial_timeout: Duration::from_secs(30),
            sequenced_unreliable: false,
            pacing: true,
            extensions: false,
            batching: true,
            ack_ranges: true,
            crc: true,
            compression: true,
            compression_threshold: 128,
            max_datagram_size: SPEC_DATAGRAM,
            ack_delay: Duration::from_millis(2),
            ack_every: 16,
            max_offers: 8,
            tracked_timeout: Duration::from_secs(1),
            max_tracked: 1024,
            schema: None,
        }
    }
}

impl Config {
    /// A builder starting from the defaults.
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder {
            config: Config::default(),
        }
    }

    /// Reassembly memory per connection (partial payloads plus delivered payloads not yet
    /// polled). Hard ceiling: this plus one maximum payload.
    pub fn max_reassembly_bytes(&self) -> usize {
        self.max_reassembly_bytes
    }

    /// Maximum connections of an endpoint.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// The silence after which a connection is closed.
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// The extensions this end offers (a client) or accepts (a server), if it enables them.
    pub fn extensions(&self) -> Option<Extensions> {
        self.extensions.then_some(Extensions {
            batching: self.batching,
            ack_ranges: self.ack_ranges,
            crc: self.crc,
            compression: self.compression,
            max_datagram_size: self.max_datagram_size as u16,
        })
    }
}

/// Builds a [`Config`]; [`build`](ConfigBuilder::build) checks the values.
#[derive(Clone, Debug)]
pub struct ConfigBuilder {
    config: Config,
}

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, value: $ty) -> Self {
                self.config.$name = value;
                self
            }
        )*
    };
}

impl ConfigBuilder {
    setters! {
        /// Silence after which a connection ends (spec: 15 s).
        idle_timeout: Duration;
        /// How long a connection may stay quiet before it sends a keepalive (a harmless ACK,
        /// see PROTOCOL.md), so an idle peer does not time us out. Must be below the idle timeout.
        keepalive_interval: Duration;
        /// How long a client tries the handshake before giving up.
        connect_timeout: Duration;
        /// First resend interval of `Init`, and of the probe that follows a `ChallengeResponse`
        /// until the server confirms it; doubled up to the maximum (PROTOCOL.md, "The client's
        /// handshake").
        handshake_initial_resend: Duration;
        /// Cap of the handshake resend interval.
        handshake_max_resend: Duration;
        /// Lifetime of a server's challenge cookie (a `ChallengeResponse` is accepted for one
        /// to two of these after the `Init`).
        cookie_lifetime: Duration;
        /// RTT assumed before the first measurement (RFC 6298 uses 1 s; games want less).
        initial_rtt: Duration;
        /// Lower bound of the retransmission timeout.
        min_rto: Duration;
        /// Upper bound of the retransmission timeout, also of its exponential backoff.
        max_rto: Duration;
        /// Congestion window at start, in chunks.
        initial_window: u32;
        /// Smallest congestion window after losses, in chunks.
        min_window: u32;
        /// Largest congestion window, in chunks.
        max_window: u32;
        /// Reassembly memory per connection, in bytes (at least one maximum payload).
        max_reassembly_bytes: usize;
        /// Reliable messages that may await acknowledgement per connection before `send`
        /// returns [`Error::WouldBlock`].
        max_pending_reliable: usize;
        /// Payload bytes of the reliable messages awaiting acknowledgement per connection
        /// before `send` returns [`Error::WouldBlock`]; a message is always taken when none is
        /// pending, whatever its size. Past a few windows' worth, a deeper queue only adds
        /// latency, and once it outgrows the caches every copy into it and out of it slows
        /// the sender (BENCHMARKS.md, "A backlog bounded in bytes").
        max_pending_bytes: usize;
        /// Connections an endpoint accepts; further handshakes are ignored.
        max_connections: usize;
        /// Datagrams that may wait in a connection's (or endpoint's) transmit queue before
        /// further unreliable chunks, ACKs and challenges are dropped.
        max_queued_datagrams: usize;
        /// How long an incomplete unreliable payload is kept before it is dropped.
        unreliable_timeout: Duration;
        /// How long an incomplete reliable payload may go without receiving any of its chunks
        /// (new or repeated) before it is abandoned. A live sender repeats every unacknowledged
        /// chunk at least every `max_rto`, so only a sender that will never finish (or a
        /// forger) goes quiet this long; abandoning frees the reassembly budget it held. Must
        /// be at least three times `max_rto`.
        reliable_partial_timeout: Duration;
        /// Deliver unreliable messages sequenced: anything older than the newest unreliable
        /// message already delivered is dropped (snapshots).
        sequenced_unreliable: bool;
        /// Pace reliable chunks over the round trip (1.25 × window / SRTT chunks per second,
        /// in bursts of 2 ms of sending, at least 10 and at most 256 chunks) instead of
        /// sending a whole window back to back.
        pacing: bool;
        /// Offer (a client) or accept (a server) hopnet's extensions to the spec's wire
        /// (PROTOCOL.md, "Extensions"); off by default. A peer that does not agree, such as any
        /// spec-only one, sees only the spec's wire. The switches below choose which
        /// extensions; with none of them, an agreement still brings the order information that
        /// lets the receiver, not the sender, keep ordered delivery.
        extensions: bool;
        /// With the extensions: several frames (chunks of several messages, acknowledgements)
        /// in one datagram, up to the datagram size.
        batching: bool;
        /// With the extensions: one frame acknowledges ranges of chunks, sent when
        /// `ack_every` chunks are owed or `ack_delay` after the first, or with any datagram
        /// that leaves before. Off, every chunk is acknowledged at once, as on the spec's wire.
        ack_ranges: bool;
        /// With the extensions: a CRC-32 after every extended datagram; a datagram whose CRC
        /// does not match is dropped and counted (`Stats::crc_failed`).
        crc: bool;
        /// With the extensions: LZ4 for messages of at least `compression_threshold` bytes,
        /// when that makes them shorter.
        compression: bool;
        /// The smallest message that is compressed.
        compression_threshold: usize;
        /// With the extensions: the largest datagram this end sends or accepts, from 508 (the
        /// spec's, the default) to 1,472 bytes (an Ethernet frame's). The two ends use the
        /// smaller of theirs. Beyond 508, a datagram may not cross a path whose MTU is the
        /// IPv4 minimum of 576; 1,200 is QUIC's choice, safe on today's Internet.
        max_datagram_size: usize;
        /// With `ack_ranges`: the longest an acknowledgement waits for others to join it.
        ack_delay: Duration;
        /// With `ack_ranges`: how many owed chunks send an acknowledgement at once.
        ack_every: usize;
        /// How many offers a client sends (at the handshake's resend intervals) before it
        /// settles for the spec's wire.
        max_offers: u32;
        /// How long a tracked message may go unacknowledged before
        /// [`Event::Lost`](crate::Event::Lost) reports it.
        tracked_timeout: Duration;
        /// Tracked messages awaiting acknowledgement per connection; beyond it the oldest is
        /// reported lost.
        max_tracked: usize;
    }

    /// The game's schema, checked against the peer's when the extensions are negotiated: two
    /// ends given different schemas end the connection with
    /// [`DisconnectReason::SchemaMismatch`](crate::DisconnectReason::SchemaMismatch), naming a
    /// type that differs (PROTOCOL.md, "The schema check"). Needs
    /// [`extensions`](Self::extensions). A peer without a schema, or without the extensions,
    /// is not checked and connects as before.
    pub fn schema(mut self, schema: crate::ext::schema::SchemaFingerprint) -> Self {
        self.config.schema = Some(std::sync::Arc::new(schema));
        self
    }

    /// Checks the values and returns the configuration.
    pub fn build(self) -> Result<Config, Error> {
        let c = self.config;
        let day = Duration::from_secs(86_400);
        let durations = [
            c.idle_timeout,
            c.keepalive_interval,
            c.connect_timeout,
            c.handshake_initial_resend,
            c.handshake_max_resend,
            c.cookie_lifetime,
            c.initial_rtt,
            c.min_rto,
            c.max_rto,
            c.unreliable_timeout,
            c.reliable_partial_timeout,
            c.ack_delay,
            c.tracked_timeout,
        ];
        if durations.iter().any(|d| *d > day) {
            return Err(Error::InvalidConfig("durations must be at most one day"));
        }
        if c.idle_timeout.is_zero() {
            return Err(Error::InvalidConfig("idle_timeout must be positive"));
        }
        if c.keepalive_interval.is_zero() || c.keepalive_interval >= c.idle_timeout {
            return Err(Error::InvalidConfig(
                "keepalive_interval must be positive and below idle_timeout",
            ));
        }
        if c.handshake_initial_resend.is_zero() || c.handshake_max_resend.is_zero() {
            return Err(Error::InvalidConfig(
                "handshake resend intervals must be positive",
            ));
        }
        if c.cookie_lifetime.as_millis() == 0 {
            return Err(Error::InvalidConfig(
                "cookie_lifetime must be at least 1 ms",
            ));
        }
        if c.min_rto.is_zero() || c.min_rto > c.max_rto {
            return Err(Error::InvalidConfig("need 0 < min_rto <= max_rto"));
        }
        if c.reliable_partial_timeout < c.max_rto * 3 {
            return Err(Error::InvalidConfig(
                "reliable_partial_timeout must be at least three times max_rto",
            ));
        }
        if c.min_window == 0 || c.min_window > c.initial_window || c.initial_window > c.max_window {
            return Err(Error::InvalidConfig(
                "need 0 < min_window <= initial_window <= max_window",
            ));
        }
        if c.max_reassembly_bytes < MAX_PAYLOAD {
            return Err(Error::InvalidConfig(
                "max_reassembly_bytes must hold at least one maximum payload",
            ));
        }
        if c.max_pending_reliable == 0
            || c.max_pending_bytes == 0
            || c.max_connections == 0
            || c.max_queued_datagrams < 256
        {
            return Err(Error::InvalidConfig(
                "max_pending_reliable, max_pending_bytes and max_connections must be positive, max_queued_datagrams at least 256",
            ));
        }
        if !(SPEC_DATAGRAM..=MAX_DATAGRAM).contains(&c.max_datagram_size) {
            return Err(Error::InvalidConfig(
                "max_datagram_size must be from 508 to 1472 bytes",
            ));
        }
        if c.ack_every == 0 || c.max_tracked == 0 || c.tracked_timeout.is_zero() {
            return Err(Error::InvalidConfig(
                "ack_every, max_tracked and tracked_timeout must be positive",
            ));
        }
        if c.schema.is_some() && !c.extensions {
            return Err(Error::InvalidConfig(
                "a schema is checked in the extensions' negotiation: enable extensions",
            ));
        }
        Ok(c)
    }
}
