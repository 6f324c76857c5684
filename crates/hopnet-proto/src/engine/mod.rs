//! hopnet's machinery for a wire of your own: the parts of the transport that are not Snow
//! Fight's wire, public so that another protocol's machine (`hopnet-protocols`' Semi-ordered
//! UDP and WOKE, or yours) is built from them rather than from copies.
//!
//! A machine implements [`Machine`](crate::Machine) and runs under the drivers
//! (`hopnet::Driver`, `hopnet::tokio::Driver`) and the
//! simulator ([`sim::SimNetwork::with_machines`](crate::sim::SimNetwork::with_machines)). What
//! it may take from here:
//!
//! | Part | Rule |
//! |---|---|
//! | [`SerialIndex`], [`U24`], [`seq_diff`], [`seq_newer`] | serial-number arithmetic, any width |
//! | [`RttEstimator`] | round trip and retransmission timeout (RFC 6298, Karn, backoff) |
//! | [`Delivered`] | one bit per 16-bit sequence: exactly-once, or "was it received", across the wrap |
//! | [`Orderer`] | exactly-once and semi-ordered (or predecessor-ordered) delivery within a window |
//! | [`Budget`] | a memory budget that a peer's data must fit |
//!
//! These are the same types hopnet's own connections run on: a change to one is a change to
//! both, and hopnet's tests and benchmarks cover them.

pub use crate::packet::{seq_diff, seq_newer};
pub use crate::receive::budget::{Budget, PARTIAL_OVERHEAD, Room};
pub use crate::receive::delivered::Delivered;
pub use crate::receive::order::{HELD_OVERHEAD, Orderer, WINDOW as ORDER_WINDOW};
pub use crate::send::rtt::RttEstimator;
pub use crate::serial::{SerialIndex, U24};
