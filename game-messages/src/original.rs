//! The client encoding of the spec author's own implementation (`nolanderc/snow-fight`).
//!
//! Its `ClientMessage` derives its tag from the number of variants, as every other enum of the
//! protocol does: 1 bit for `Request` / `Action`, where the spec text says `variant (u32)` (a
//! variable-length integer, 10 bits for 0 or 1). Everything after the tag is the spec's encoding,
//! and so is everything its server sends: [`crate::ServerMessage`] is the same in both.
//!
//! This module declares only what differs. Use it through [`crate::Dialect`], which also tells
//! a server which encoding a client speaks.

use crate::client::{Action, Request};
use rabbit::Rabbit;

/// Everything a client sends, as the original client encodes it: a 1-bit tag, then the spec's
/// [`Request`] or [`Action`].
///
/// Convert to and from [`crate::ClientMessage`] with `From`; nothing is lost either way.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[bits(1)]
pub enum ClientMessage {
    /// A request that the server answers on the same channel.
    Request(Request),
    /// Something the player did.
    Action(Action),
}

impl From<crate::ClientMessage> for ClientMessage {
    fn from(message: crate::ClientMessage) -> Self {
        match message {
            crate::ClientMessage::Request(request) => ClientMessage::Request(request),
            crate::ClientMessage::Action(action) => ClientMessage::Action(action),
        }
    }
}

impl From<&crate::ClientMessage> for ClientMessage {
    fn from(message: &crate::ClientMessage) -> Self {
        match *message {
            crate::ClientMessage::Request(request) => ClientMessage::Request(request),
            crate::ClientMessage::Action(action) => ClientMessage::Action(action),
        }
    }
}

impl From<ClientMessage> for crate::ClientMessage {
    fn from(message: ClientMessage) -> Self {
        match message {
            ClientMessage::Request(request) => crate::ClientMessage::Request(request),
            ClientMessage::Action(action) => crate::ClientMessage::Action(action),
        }
    }
}
