//! Other games' transports, each exactly as its text says, run on hopnet's engine.
//!
//! The repository's `spec/` holds the protocols of four other games; three of them are
//! transports. Each is a sans-I/O machine here ([`hopnet::Machine`]), built from hopnet's
//! parts (its timers, RTT estimation, retransmission bookkeeping, ordering buffers and memory
//! budgets), so it runs under hopnet's std and tokio drivers
//! ([`hopnet::Driver`]) and in its simulator ([`hopnet::sim::SimNetwork`]) as
//! Snow Fight's wire does. Their byte layouts are declared in `hopnet-formats`.
//!
//! PROTOCOL.md has a section per protocol: what its text says, what it leaves open, and what
//! we chose.

mod echo_tally;
mod json;
mod one_at_a_time;
pub mod rto;
pub mod rtype;
pub mod semi_ordered_udp;
pub mod woke;
