//! Messages from a client to the server: requests that expect an answer, and actions of the
//! player that do not.

use crate::ids::{ChannelId, EntityId};
use crate::world::{Direction, Point};
use hopnet_codec::Rabbit;

/// Everything a client sends to the server.
///
/// The spec writes this enum's tag as a `u32`, i.e. a variable-length integer: 10 bits for the
/// spec's two variants, and room for four billion more without changing the encoding of the
/// old ones. This toolkit uses two of them, [`ClientMessage::Deltas`] (index 4) and
/// [`ClientMessage::Scoped`] (index 6).
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(tag = "varint")]
pub enum ClientMessage {
    /// A request that the server answers with a `Response` on the same channel.
    Request(Request),
    /// Something the player did; the server answers with later snapshots, not a response.
    Action(Action),
    /// Not in the spec: asks for snapshots as deltas from now on (see [`crate::delta`]). A
    /// server that does not know it refuses the message, its tag being unknown to it, and
    /// goes on sending full snapshots.
    ///
    /// Index 4, not 2: the spec's conformance vectors hold 2 as an unknown variant that a
    /// decoder must refuse; and an even index keeps the original dialect's requests from
    /// reading as this one (`PROTOCOL.md`, "The original implementation").
    #[rabbit(index = 4)]
    Deltas(DeltaRequest),
    /// Not in the spec: asks for scoped updates from now on (see [`crate::scoped`]): only the
    /// entities near the client's player, nearest first, within its byte budget. A server that
    /// does not know it refuses the message and goes on sending full snapshots.
    ///
    /// Index 6, even for the reason [`ClientMessage::Deltas`]' index is.
    #[rabbit(index = 6)]
    Scoped(ScopedRequest),
}

impl ClientMessage {
    /// A ping on `channel`: asks for a `Pong`.
    pub fn ping(channel: impl Into<ChannelId>) -> Self {
        ClientMessage::Request(Request {
            channel: channel.into(),
            kind: RequestKind::Ping,
        })
    }

    /// A request on `channel` to join the game session.
    pub fn init(channel: impl Into<ChannelId>) -> Self {
        ClientMessage::Request(Request {
            channel: channel.into(),
            kind: RequestKind::Init,
        })
    }

    /// Asks for snapshots as deltas, sent on `channel`; sent again, asks to start over from a
    /// full snapshot.
    pub fn deltas(channel: impl Into<ChannelId>) -> Self {
        ClientMessage::Deltas(DeltaRequest {
            channel: channel.into(),
        })
    }

    /// Asks for scoped updates, sent on `channel`; sent again, asks to start over.
    pub fn scoped(channel: impl Into<ChannelId>) -> Self {
        ClientMessage::Scoped(ScopedRequest {
            channel: channel.into(),
        })
    }
}

/// Not in the spec: asks the server to send this client, on `channel`, scoped updates in place
/// of snapshots (see [`crate::scoped`]). Sent again, it asks to start over: the server forgets
/// what it believed the client held, and sends every entity in scope whole.
///
/// ```
/// use hopnet_snow_fight::{ClientMessage, ScopedRequest};
///
/// let bytes = hopnet_codec::to_bytes(&ClientMessage::scoped(7)).unwrap();
/// // The tag's two-bit prefix and index 6, then the channel.
/// assert_eq!(bytes, [0x18, 0x70, 0x00]);
/// let back: ClientMessage = hopnet_codec::from_bytes(&bytes).unwrap();
/// assert_eq!(back, ClientMessage::Scoped(ScopedRequest { channel: 7.into() }));
/// ```
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ScopedRequest {
    /// The channel the updates come back on, as responses.
    pub channel: ChannelId,
}

/// Not in the spec: asks the server to send this client its snapshots as deltas against
/// snapshots it already has, on `channel` (see [`crate::delta`]). The server starts afresh
/// (a full snapshot first) on every such request, so a client that lost track of its
/// baselines sends it again.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct DeltaRequest {
    /// The channel the deltas come back on, as responses.
    pub channel: ChannelId,
}

from_variants!(ClientMessage: Request, Action);

/// A request from the client; the server answers it with a `Response` on `channel`.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Request {
    /// The channel the response will come back on.
    pub channel: ChannelId,
    /// What is asked for.
    pub kind: RequestKind,
}

/// The kinds of requests.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(1)]
pub enum RequestKind {
    /// Asks for a `Pong`: to measure latency, or to keep the connection alive.
    Ping,
    /// Asks to join the game session; answered with `Connect` (or an error).
    Init,
}

/// Something the player did, sent as it happens.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(2)]
pub enum Action {
    /// Start or stop breaking an entity.
    Break(Break),
    /// Throw the entity being held.
    Throw(Throw),
    /// Change the direction of movement.
    Move(Move),
}

from_variants!(Action: Break, Throw, Move);

/// The player wants to break an entity, or to stop breaking.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Break {
    /// The entity to break; `None` to stop breaking.
    pub entity: Option<EntityId>,
}

/// The player throws the entity it holds.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Throw {
    /// The point to throw the entity towards.
    pub target: Point,
}

/// The player moves in a direction (or stops, with no direction).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Move {
    /// The direction to move in.
    pub direction: Direction,
}
