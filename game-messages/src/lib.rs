//! The game protocol messages.
