//! The server's answers to a client's requests.

use crate::ids::{ChannelId, PlayerId};
use crate::world::Snapshot;
use hopnet_codec::Rabbit;
use std::sync::Arc;

/// The answer to a [`Request`](crate::Request), sent on the channel the request came on.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Response {
    /// The channel of the request this answers.
    pub channel: ChannelId,
    /// The answer itself.
    pub kind: ResponseKind,
}

/// The kinds of answers.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(2)]
pub enum ResponseKind {
    /// The request failed; the text says why.
    Error(ErrorMessage),
    /// The answer to a ping: the client can measure the round trip with it, and it keeps the
    /// connection from timing out.
    Pong,
    /// The client has joined the game session.
    Connect(Connect),
}

/// Why a request failed, as text for a human (the spec's `Error` message).
///
/// Named so as not to be confused with [`hopnet_codec::Error`], the codec's error. On the wire it is a
/// `u32` byte count and UTF-8 text; unbounded, like any string.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct ErrorMessage {
    /// A UTF-8 text saying what went wrong.
    pub text: Arc<str>,
}

impl ErrorMessage {
    /// An error with this text.
    pub fn new(text: impl Into<Arc<str>>) -> Self {
        ErrorMessage { text: text.into() }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for ErrorMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// The answer to `Init`: the client is now a player of the session.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Connect {
    /// The player id assigned to this client.
    pub player: PlayerId,
    /// The current state of the game, so the client can start drawing at once.
    pub snapshot: Snapshot,
}
