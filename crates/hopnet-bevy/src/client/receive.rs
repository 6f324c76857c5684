//! The client's `PreUpdate`: the transport polled, its events read and sorted, each type's
//! payloads decoded.

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::Event;

use super::{ConnectionState, NetClient};
use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::inbox::Inbox;
use crate::shared::messages::{Connected, Disconnected, FromServer};
use crate::shared::protocol::{Direction, NetworkMessage, Protocol};

/// Takes in what arrived; writes the connection changes; files each message under its tag.
pub(crate) fn poll(
    mut client: ResMut<NetClient>,
    protocol: Res<Protocol>,
    mut inbox: ResMut<Inbox<()>>,
    time: Option<Res<Time<Real>>>,
    mut connected: MessageWriter<Connected>,
    mut disconnected: MessageWriter<Disconnected>,
    mut errors: MessageWriter<NetworkError>,
) {
    let client = &mut *client;
    for bytes in inbox.take_spent() {
        client.transport.recycle(bytes);
    }
    client.changed = false;
    let now = frame_instant(time.as_deref());
    client.now = Some(now);
    if let Err(error) = client.transport.update(now) {
        errors.write(NetworkError::Transport { error });
    }
    while let Some(event) = client.transport.poll_event() {
        match event {
            Event::Connected => {
                client.state = ConnectionState::Connected;
                client.changed = true;
                connected.write(Connected);
            }
            Event::Disconnected { reason } => {
                client.state = ConnectionState::Disconnected(reason);
                client.changed = true;
                disconnected.write(Disconnected { reason });
            }
            Event::Message { bytes, .. } => {
                if let Err((tag, bytes)) = inbox.file(&protocol, Direction::ToClients, (), bytes) {
                    errors.write(NetworkError::UnknownTag {
                        peer: Peer::Server,
                        tag,
                    });
                    client.transport.recycle(bytes);
                }
            }
            // The plugin sends nothing tracked from a client; a message registered with
            // `Delivery::Tracked` goes out as one, and its fate is not reported.
            Event::Acknowledged { .. } | Event::Lost { .. } => {}
        }
    }
}

/// Decodes this frame's `T`s from the server into [`FromServer<T>`] messages.
pub(crate) fn decode_from_server<T: NetworkMessage>(
    protocol: Res<Protocol>,
    mut inbox: ResMut<Inbox<()>>,
    mut messages: MessageWriter<FromServer<T>>,
    mut errors: MessageWriter<NetworkError>,
) {
    inbox.decode::<T>(
        &protocol,
        Direction::ToClients,
        |_, decoded| match decoded {
            Ok(message) => {
                messages.write(FromServer { message });
            }
            Err(reason) => {
                errors.write(NetworkError::undecodable::<T>(Peer::Server, reason));
            }
        },
    );
}
