//! The comparison harness as a library: the codec suite (rabbit and its peers on the
//! 1000-entity snapshot), the transport suite (netproto and its peers over loopback UDP), and
//! the pieces both share (timing, the machine, tables, JSON rows).

pub mod codec;
pub mod deku_types;
pub mod delta;
pub mod dogfight;
pub mod limit;
pub mod mirror;
pub mod report;
pub mod transport;
