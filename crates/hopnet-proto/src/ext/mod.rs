//! hopnet's extensions to the spec's wire, negotiated per connection (PROTOCOL.md,
//! "Extensions"): batching, acknowledgement ranges with delayed acknowledgements, a CRC-32 per
//! datagram, LZ4 per message, a larger datagram, and the order information that reliable
//! ordered and semi-ordered delivery need.
//!
//! A client whose configuration enables them offers them once connected, in a datagram every
//! spec peer reads as an `ACK` of nothing ([`negotiate`]); a server that also enables them
//! accepts what both support. From then on either end may send extended datagrams
//! ([`datagram`]): a marker byte, frames ([`frame`]) and a CRC. A peer that never accepts
//! sees only the spec's wire.
//!
//! - [`features`]: what was agreed, and the chunk size it gives;
//! - [`negotiate`]: the offer and the accept;
//! - [`datagram`]: the marker, the CRC, padding;
//! - [`frame`]: padding, ping, close, ACK ranges, data;
//! - [`compress`]: the LZ4 framing of a message;
//! - [`schema`]: the schema fingerprint an offer and an accept may carry.

pub mod compress;
pub mod datagram;
pub mod features;
pub mod frame;
pub mod negotiate;
pub mod schema;

pub use features::Extensions;
