//! The canonical JSON form of the conformance vectors, through serde (the `serde` feature).
//!
//! Every message type implements `Serialize` and `Deserialize` so that `serde_json` produces and
//! reads exactly the form that the repository's `vectors/README.md` defines:
//!
//! - enums are externally tagged: `{"Event": {...}}`, and a variant without a body is its name as
//!   a string (`"Dead"`, `"Pong"`, `"Won"`);
//! - optional values are `null` or the value;
//! - ids are plain numbers;
//! - a [`Direction`] is its byte as a number (`5` for north and south), all eight bits of it;
//! - an error response's text is a string: `{"Error": "no such player"}`.
//! - reading refuses fields that the message does not have (a typo is an error, not ignored).
//!
//! Floats are `f32`; a JSON number means the `f32` it rounds to. JSON has no NaN or infinity, so
//! a message holding one cannot be written in this form.

use crate::world::Direction;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

impl Serialize for Direction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.bits())
    }
}

impl<'de> Deserialize<'de> for Direction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        u8::deserialize(deserializer).map(Direction::from_bits_retain)
    }
}
