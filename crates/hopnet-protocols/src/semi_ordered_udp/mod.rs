//! Semi-ordered UDP (`context-semi-ordered-udp.txt`), as the issue-28 contract fixes it: a
//! sans-I/O [`Server`] and [`Client`] that keep the seed's delivery rules on hopnet's engine.
//!
//! There is no handshake: a peer is an address that sent a datagram, forgotten after 15 s of
//! silence. Every reliable package (unordered or semi-ordered) is confirmed, in batches of at
//! most 168 ids within 20 ms, and retransmitted until confirmed on the engine's RTO
//! ([`hopnet::engine::RttEstimator`]). The receiver hands up unordered packages once and
//! semi-ordered ones once, after every reliable package of the same sender with a smaller id
//! in wrapping 24-bit order ([`hopnet::engine::Orderer`] over [`hopnet::engine::U24`]).
//!
//! | File | Rule |
//! |---|---|
//! | `config.rs` | the limits and timers, and their defaults |
//! | `outbound.rs` | one peer's packages to send: 24-bit counters, the unconfirmed window, the RTO |
//! | `confirm.rs` | confirmations owed to a peer: batched, due within the delay |
//! | `inbound.rs` | one sender's packages: once, semi-ordered, within a memory budget |
//! | `peer.rs` | a peer: both halves and when it was last heard |
//! | `endpoint.rs` | peers by address, the datagrams in and out, the timers |
//! | `server.rs` | the server role: the contract's echo and forward, or an application's events |
//! | `client.rs` | the client role: one server, events for the application |
//! | `echo_check.rs` | the contract's client: what it sends, what it checks of the echoes |

mod client;
mod config;
mod confirm;
mod echo_check;
mod endpoint;
mod inbound;
mod outbound;
mod peer;
mod server;

pub use client::{Client, Event};
pub use config::Config;
pub use echo_check::{ClientMode, EchoCheck, Summary};
pub use endpoint::Delivered;
pub use hopnet_formats::semi_ordered::{MAX_PAYLOAD, Reliability};
pub use outbound::SendError;
pub use server::{Server, ServerEvent, ServerStats};

/// The most ids one confirmation datagram carries: 4 header bytes and 168 ids of 3 bytes are
/// 508 bytes, the largest datagram the seed allows.
pub const MAX_CONFIRMED_IDS: usize = 168;
