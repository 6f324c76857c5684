//! The version every token and packet names, checked before anything else is read.

/// The version string every token and packet carries: "NETCODE 1.02" and a zero byte.
pub const VERSION_INFO: &[u8; 13] = b"NETCODE 1.02\0";
