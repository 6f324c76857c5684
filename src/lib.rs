//! The toolkit's worked example: a small networked game built on `rabbit`, `game-messages` and
//! `netproto`.
