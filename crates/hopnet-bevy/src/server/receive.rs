//! The server's `PreUpdate`: the transport polled, its events read and sorted, each type's
//! payloads decoded.

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::{ConnectionId, Event, ServerEvent};

use super::NetServer;
use super::snapshot::TrackedReports;
use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::inbox::Inbox;
use crate::shared::messages::{ClientConnected, ClientDisconnected, FromClient};
use crate::shared::protocol::{Direction, NetworkMessage, Protocol};

/// Takes in what arrived; writes the connection changes; files each message under its tag.
#[allow(clippy::too_many_arguments)]
pub(crate) fn poll(
    mut server: ResMut<NetServer>,
    protocol: Res<Protocol>,
    mut inbox: ResMut<Inbox<ConnectionId>>,
    mut tracked: ResMut<TrackedReports>,
    time: Option<Res<Time<Real>>>,
    mut connected: MessageWriter<ClientConnected>,
    mut disconnected: MessageWriter<ClientDisconnected>,
    mut errors: MessageWriter<NetworkError>,
) {
    let server = &mut *server;
    for bytes in inbox.take_spent() {
        server.transport.recycle(bytes);
    }
    tracked.clear();
    if let Err(error) = server.transport.update(frame_instant(time.as_deref())) {
        errors.write(NetworkError::Transport { error });
    }
    while let Some(ServerEvent {
        connection: client,
        peer: address,
        event,
    }) = server.transport.poll_event()
    {
        match event {
            Event::Connected => {
                server.clients.insert(client, address);
                connected.write(ClientConnected { client, address });
            }
            Event::Disconnected { reason } => {
                server.clients.remove(&client);
                disconnected.write(ClientDisconnected { client, reason });
            }
            Event::Message { bytes, .. } => {
                if let Err((tag, bytes)) = inbox.file(&protocol, Direction::ToServer, client, bytes)
                {
                    errors.write(NetworkError::UnknownTag {
                        peer: Peer::Client(client),
                        tag,
                    });
                    server.transport.recycle(bytes);
                }
            }
            Event::Acknowledged { id } => tracked.report(client, id, true),
            Event::Lost { id } => tracked.report(client, id, false),
        }
    }
}

/// Decodes this frame's `T`s from clients into [`FromClient<T>`] messages.
pub(crate) fn decode_from_clients<T: NetworkMessage>(
    protocol: Res<Protocol>,
    mut inbox: ResMut<Inbox<ConnectionId>>,
    mut messages: MessageWriter<FromClient<T>>,
    mut errors: MessageWriter<NetworkError>,
) {
    inbox.decode::<T>(
        &protocol,
        Direction::ToServer,
        |&client, decoded| match decoded {
            Ok(message) => {
                messages.write(FromClient { client, message });
            }
            Err(reason) => {
                errors.write(NetworkError::undecodable::<T>(Peer::Client(client), reason));
            }
        },
    );
}
