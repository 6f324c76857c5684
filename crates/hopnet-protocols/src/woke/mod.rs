//! WOKE (`context-woke-transport.txt`), as the issue-28 contract fixes it: a sans-I/O
//! [`Server`] and [`Client`] on hopnet's engine, with the byte order and `command_type`
//! layout that `hopnet_formats::woke` documents.
//!
//! Each end sends one packet per 30 Hz tick: Commands when any are due, else KeepAlive. Its
//! header acknowledges the peer's packets by `ack` and a 32-bit bitfield (kept in the
//! engine's [`Delivered`](hopnet::engine::Delivered)); a reliable command is carried in later
//! packets until a packet that carried it is acknowledged, again each time the engine's RTO
//! ([`RttEstimator`](hopnet::engine::RttEstimator), fed by those acknowledgements) passes;
//! the receiver delivers each reliable id once (another `Delivered`); a reliable command
//! larger than a packet is split and reassembled within a [`Budget`](hopnet::engine::Budget).
//! A connection ends with ConnectionClosed, after 32 packets in a row unacknowledged, or
//! with more than 1,024 reliable commands pending.
//!
//! | File | Rule |
//! |---|---|
//! | `config.rs` | the tick, the packet size, the seed's two limits |
//! | `acks.rs` | `ack` and the bitfield both ways, the unacknowledged run |
//! | `outgoing.rs` | commands to send: reliable ones until acknowledged, split ones, unreliable ones |
//! | `split.rs` | split commands reassembled within a budget |
//! | `ticker.rs` | the 30 Hz loop's clock |
//! | `connection.rs` | one connection: a packet per tick, a packet from the peer |
//! | `server.rs` | the server role: client ids; the contract's echoes, or an application's events and sends |
//! | `client.rs` | the client role: requests until answered |
//! | `echo_check.rs` | the contract's client: what it sends, what it checks of the echoes |

mod acks;
mod client;
mod config;
mod connection;
mod echo_check;
mod outgoing;
mod server;
mod split;
mod ticker;

pub use client::{Client, Event};
pub use config::{Config, HEADER_LEN, MAX_PACKET, MAX_PENDING_RELIABLE, MAX_UNACKED_IN_A_ROW};
pub use connection::{CloseReason, Incoming};
pub use echo_check::{EchoCheck, Summary};
pub use outgoing::{MAX_RELIABLE_DATA, MAX_SPLIT_DATA, MAX_UNRELIABLE_DATA, SendError};
pub use server::{Server, ServerEvent, ServerStats};
