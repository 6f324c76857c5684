//! Messages from the server to a client: timed events and responses to requests.

use crate::ids::ChannelId;
use crate::response::{Response, ResponseKind};
use crate::world::Snapshot;
use hopnet_codec::Rabbit;

/// Everything a server sends to a client: either something that happened in the game, or an
/// answer to one of the client's requests.
///
/// Unbounded in size: it may carry a whole snapshot or an error text.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(1)]
pub enum ServerMessage {
    /// Something happened in the game at a given tick.
    Event(Event),
    /// The answer to a request of this client.
    Response(Response),
}

impl ServerMessage {
    /// The state of the world at tick `time`, the message a server sends every tick.
    pub fn snapshot(time: u32, snapshot: Snapshot) -> Self {
        ServerMessage::Event(Event {
            time,
            kind: EventKind::Snapshot(snapshot),
        })
    }

    /// The end of the game at tick `time`, as seen by the receiving client.
    pub fn game_over(time: u32, result: GameOver) -> Self {
        ServerMessage::Event(Event {
            time,
            kind: EventKind::GameOver(result),
        })
    }

    /// The answer on `channel`.
    pub fn response(channel: impl Into<ChannelId>, kind: ResponseKind) -> Self {
        ServerMessage::Response(Response {
            channel: channel.into(),
            kind,
        })
    }
}

from_variants!(ServerMessage: Event, Response);

/// Something that happened in the game, stamped with the tick it happened at.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Event {
    /// The tick index at which the event happened.
    pub time: u32,
    /// What happened.
    pub kind: EventKind,
}

/// What kind of event happened.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(1)]
pub enum EventKind {
    /// The state of the world at this tick, sent every tick.
    Snapshot(Snapshot),
    /// The game has ended, won or lost for the receiving client.
    GameOver(GameOver),
}

/// How the game ended for the client that receives this.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(1)]
pub enum GameOver {
    /// The client lost.
    Lost,
    /// The client won.
    Won,
}
