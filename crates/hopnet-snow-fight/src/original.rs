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
use hopnet_codec::Rabbit;

/// Everything a client sends, as the original client encodes it: a 1-bit tag, then the spec's
/// [`Request`] or [`Action`].
///
/// Convert it to a [`crate::ClientMessage`] with `From`, and back with `TryFrom`: everything
/// but [`crate::ClientMessage::Deltas`] and [`crate::ClientMessage::Scoped`], which the original
/// does not have, converts without loss.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[bits(1)]
pub enum ClientMessage {
    /// A request that the server answers on the same channel.
    Request(Request),
    /// Something the player did.
    Action(Action),
}

impl TryFrom<crate::ClientMessage> for ClientMessage {
    type Error = NotInOriginal;

    fn try_from(message: crate::ClientMessage) -> Result<Self, NotInOriginal> {
        ClientMessage::try_from(&message)
    }
}

impl TryFrom<&crate::ClientMessage> for ClientMessage {
    type Error = NotInOriginal;

    fn try_from(message: &crate::ClientMessage) -> Result<Self, NotInOriginal> {
        match *message {
            crate::ClientMessage::Request(request) => Ok(ClientMessage::Request(request)),
            crate::ClientMessage::Action(action) => Ok(ClientMessage::Action(action)),
            crate::ClientMessage::Deltas(_) => Err(NotInOriginal::Deltas),
            crate::ClientMessage::Scoped(_) => Err(NotInOriginal::Scoped),
        }
    }
}

/// A message of this toolkit that the original has no encoding for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotInOriginal {
    /// [`crate::ClientMessage::Deltas`]: its 1-bit tag has no room, and its server would not
    /// know it.
    #[error("the original dialect has no delta request (its tag has room for two kinds)")]
    Deltas,
    /// [`crate::ClientMessage::Scoped`]: as for `Deltas`.
    #[error(
        "the original dialect has no request for scoped updates (its tag has room for two kinds)"
    )]
    Scoped,
}

impl From<ClientMessage> for crate::ClientMessage {
    fn from(message: ClientMessage) -> Self {
        match message {
            ClientMessage::Request(request) => crate::ClientMessage::Request(request),
            ClientMessage::Action(action) => crate::ClientMessage::Action(action),
        }
    }
}
