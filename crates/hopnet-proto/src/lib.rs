//! hopnet's protocol without I/O: reliable and unreliable messages for games, as state machines.
//!
//! Messages of up to 129,024 bytes are split into 504-byte chunks, framed with a 4-byte header
//! `[flags, chunk, sequence_hi, sequence_lo]`, and sent; reliable chunks are acknowledged one by
//! one and retransmitted on an adaptive timer (RFC 6298) under a congestion window. A connection
//! starts with the `Init` / `Challenge` / `ChallengeResponse` handshake and ends with `END` or
//! 15 s of silence. PROTOCOL.md ("Transport") records every choice the spec leaves open.
//!
//! Each message has its [`Delivery`]: unreliable, sequenced, reliable, reliable ordered,
//! semi-ordered, or tracked (sent once, its acknowledgement reported). Two ends whose
//! configurations enable them ([`ConfigBuilder::extensions`], off by default) agree on
//! hopnet's extensions to the spec's wire ([`Extensions`]): batching, acknowledgement ranges, a
//! CRC-32, LZ4, a larger datagram, and the order information that lets the receiver, not the
//! sender, keep ordered delivery. The negotiation is invisible to a peer without them, which
//! sees only the spec's wire (PROTOCOL.md, "Extensions").
//!
//! The protocol is a pair of state machines with no I/O, in the shape of `quinn-proto`:
//! a client [`Client`] and a server [`Server`]. Datagrams and the current time go in,
//! datagrams, events and the next deadline come out. Because they never read a clock or a
//! socket, everything is testable deterministically: [`sim`] runs them over a seeded lossy
//! network with a virtual clock. The `hopnet` crate's drivers are thin loops around them over
//! real UDP: most games use those (`hopnet::Server`, `hopnet::Client`), which re-export
//! everything named here; this crate is for a loop of your own, a simulator test, or another
//! wire built on the [`engine`].
//!
//! A client and a server, connected, in virtual time ([`sim::Pair`]):
//!
//! ```
//! use hopnet_proto::sim::Pair;
//! use hopnet_proto::{Config, Delivery};
//!
//! let mut pair = Pair::new(Config::default());
//! pair.client().send(b"hello", Delivery::Reliable).unwrap();
//! pair.drive();
//! assert_eq!(pair.server_messages(), [b"hello".to_vec()]);
//! ```
//!
//! # Which piece to use
//!
//! - Tests of an application: [`sim::SimNetwork`] owns a server [`Server`] and any number of
//!   client [`Client`]s on seeded lossy links with a virtual clock; `step` or `run_until`,
//!   then read events from `server()` and `client(i)`. For one connection, [`sim::Pair`].
//! - Your own event loop: drive [`Server`] / [`Client`] through their [`Machine`]
//!   methods: `handle` every datagram, send what `poll_transmit` writes into your buffer, and
//!   call `handle_timeout` when `poll_timeout`'s instant has passed. A snapshot for every client
//!   goes out as one shared [`Payload`] ([`Server::send_payload`]).
//! - On the open internet: secure mode ([`secure`]; PROTOCOL.md, "Secure mode"), hopnet over
//!   netcode 1.02 (the `hopnet-netcode` crate): [`secure::SecureServer`] and
//!   [`secure::SecureClient`] carry the same [`Server`] and [`Client`] over netcode's packets;
//!   the backend issues connect tokens with [`secure::ConnectTokenBuilder`].
//! - A wire of another protocol: a [`Machine`] of your own built from the [`engine`]'s parts.
//! - Real sockets over a bad link: an [`impairment::Impairment`], which `hopnet`'s drivers and
//!   relay apply.
//! - Fuzz targets and wire tests: the `fuzzing` feature opens the wire's internals.
//!
//! `send` never blocks: reliable messages wait in a bounded queue and [`Error::WouldBlock`]
//! says it is full (poll, then retry). Unreliable messages are sent at once or dropped.
//!
//! Memory is bounded everywhere a peer could grow it: reassembly per connection
//! ([`ConfigBuilder::max_reassembly_bytes`]), reliable messages awaiting acknowledgement, in
//! count and in bytes ([`ConfigBuilder::max_pending_bytes`]; [`Error::WouldBlock`] from `send`),
//! queued datagrams, and connections per endpoint. The server keeps no state at all for a
//! half-open handshake (PROTOCOL.md, "Server handshake state").
//!
//! # Where each rule lives
//!
//! One file per rule, of the spec or ours (PROTOCOL.md says why each rule is what it is):
//!
//! | File | Rule |
//! |---|---|
//! | `packet.rs` | the 4-byte header, its `ACK`, serial-number arithmetic, the 4-byte handshake shapes |
//! | `chunk.rs` | payloads split into 504-byte chunks (or an extended message's), at most 256 |
//! | `event.rs` | delivery modes, events, message and connection ids |
//! | `serial.rs` | serial-number arithmetic (RFC 1982) at any width |
//! | `config.rs` | the tunables and their defaults, every memory bound among them |
//! | `error.rs` | the errors a caller can cause (malformed input is counted, never an error) |
//! | `stats.rs` | the counters per connection and per endpoint |
//! | `ext/mod.rs` | the extended wire's parts, and the rule they keep toward spec peers |
//! | `ext/features.rs` | the agreed extensions and the chunk size they give |
//! | `ext/negotiate.rs` | the offer and the accept on the wire |
//! | `ext/datagram.rs` | the extended datagram: marker, CRC, padding |
//! | `ext/frame.rs` | the extended wire's frames: ping, close, ACK ranges, data |
//! | `ext/compress.rs` | LZ4 framing of a message, bounded decompression |
//! | `ext/schema.rs` | the schema field of an offer or accept, and the check that names a type that differs |
//! | `handshake/mod.rs` | the handshake's bare 4-byte datagrams: salt, pepper, seasoning |
//! | `handshake/cookie.rs` | the server's stateless challenge cookie |
//! | `handshake/client.rs` | the client's handshake: probes, and which answers it accepts |
//! | `handshake/failure.rs` | what a client that gave up had tried, for its error |
//! | `client.rs` | the client: handshake phases, then the data phase |
//! | `server.rs` | the server: connections by address, challenges, probe acknowledgements |
//! | `connection/mod.rs` | the data phase of one connection: dispatch, each expired timer handled in one match, close |
//! | `connection/wire.rs` | the wire this end sends on, spec or extended, swapped once when agreed: its ACKs, keepalive, close, deadlines |
//! | `connection/timer.rs` | the connection's timers by name, in the order an expired one is handled |
//! | `connection/acks.rs` | the spec's ACKs owed, sent first and batched |
//! | `connection/ack_ranges.rs` | ACK frames owed on the extended wire: ranges, when they leave |
//! | `connection/negotiation.rs` | one connection's offer and accept, when each end switches |
//! | `connection/extended.rs` | what arrives on the extended wire, and what was not agreed |
//! | `connection/pack.rs` | extended datagrams packed with frames, in batches |
//! | `connection/queue.rs` | control datagrams and messages sent once, sent at once, bounded |
//! | `connection/events.rs` | events held for the application, charged to the budget |
//! | `connection/liveness.rs` | the idle timeout and the keepalive |
//! | `send/mod.rs` | the send half of a connection: its parts, the probe, its deadlines and counters |
//! | `send/sender.rs` | a new message's sequence id and its room; which chunk next, in GSO-shaped batches, under window and pacer; the chunk written; transmissions in flight, by id (the only writer of its counters) |
//! | `send/queue.rs` | a message as kept until acknowledged: its framing (spec or extended, reliable indexes, compression), its storage by sequence (recycled or shared buffers), what is still to send, new or again (the only writer of its counters) |
//! | `send/feedback.rs` | acknowledgements and losses told to the queue and what is in flight, then to RTT and congestion control |
//! | `send/loss.rs` | loss detection (timer, packet threshold), returning what it lost |
//! | `send/hold.rs` | ordered messages the sender holds toward a peer that cannot order |
//! | `send/tracked.rs` | tracked messages: acknowledged, or lost after a timeout |
//! | `send/rtt.rs` | round-trip estimate and retransmission timeout (RFC 6298) |
//! | `send/congestion.rs` | the congestion window, random loss told from congestion |
//! | `send/pacing.rs` | the window spread over a round trip |
//! | `receive/mod.rs` | a chunk's way to a delivered payload |
//! | `receive/delivered.rs` | exactly-once hand-up across the sequence wrap |
//! | `receive/partial.rs` | a payload being reassembled, and what a chunk must agree with |
//! | `receive/budget.rs` | the reassembly memory budget and its one exception |
//! | `receive/oldest.rs` | which reliable partial is the oldest (the exception's test), in one lookup |
//! | `receive/expiry.rs` | when an incomplete payload is given up |
//! | `receive/order.rs` | ordered messages the receiver holds back, by reliable index |
//! | `receive/tests.rs` | the reassembler's unit tests |
//! | `send/queue/tests.rs`, `send/queue/storage_tests.rs`, `send/sender/tests.rs` | the sender's unit tests |
//! | `transmit.rs` | the shape of a batch of datagrams (UDP GSO's) |
//! | `payload.rs` | bytes shared between the connections they go to, compressed once |
//! | `spares.rs` | spare payload buffers, bounded: the sender's, and those the application hands back (`recycle`) |
//! | `machine.rs` | the sans-I/O surface every driver and the simulator call (each machine implements it in its own file) |
//! | `engine/` | the parts above a wire of another protocol builds on, public ([`engine`]) |
//! | `secure/` | secure mode: the server and client over netcode 1.02 (the `hopnet-netcode` crate), their datagrams sealed in batches (see [`secure`]) |
//! | `impairment/` | the loss, delay and jitter draw, and the delay line |
//! | `sim/` | the simulated network, its links, and the `Pair` harness |

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod chunk;
mod client;
mod config;
mod connection;
pub mod engine;
mod error;
mod event;
mod ext;
mod handshake;
pub mod impairment;
mod machine;
mod packet;
mod payload;
mod receive;
pub mod secure;
mod send;
mod serial;
mod server;
pub mod sim;
mod spares;
mod stats;
mod transmit;

pub use chunk::{CHUNK_SIZE, MAX_CHUNKS, MAX_PAYLOAD};
pub use client::Client;
pub use config::{Config, ConfigBuilder};
pub use error::Error;
pub use event::{ConnectionId, Delivery, DisconnectReason, Event, MessageId, ServerEvent};
pub use ext::Extensions;
pub use ext::features::SPEC_DATAGRAM;
pub use ext::schema::{
    MAX_SCHEMA_TYPES, MAX_TYPE_NAME, MismatchKind, SchemaFingerprint, SchemaMismatch,
};
pub use handshake::HandshakeFailure;
pub use machine::Machine;
pub use packet::HEADER_LEN;
pub use payload::Payload;
pub use server::Server;
pub use stats::{ServerStats, Stats};
pub use transmit::Transmit;

/// The wire's internals (headers, chunks, the extended wire's frames, the handshake's shapes),
/// open for fuzz targets and wire tests behind the `fuzzing` feature: not part of the API, no
/// stability promise.
#[cfg(feature = "fuzzing")]
pub mod fuzzing {
    /// The 4-byte header, its flags, serial-number arithmetic, the handshake's shapes.
    pub mod packet {
        pub use crate::packet::*;
    }
    /// Payloads split into chunks.
    pub mod chunk {
        pub use crate::chunk::*;
    }
    /// The extended wire: features, the offer and accept, datagrams, frames, compression.
    pub mod ext {
        pub use crate::ext::*;
    }
    /// The `Init` / `Challenge` / `ChallengeResponse` handshake.
    pub mod handshake {
        pub use crate::handshake::*;
    }
}
