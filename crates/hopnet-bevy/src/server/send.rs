//! The server's `PostUpdate`: each type's messages encoded once and queued to their clients,
//! then the transport flushed.

use std::any::type_name;

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};

use super::NetServer;
use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::messages::{SendTo, ToClients};
use crate::shared::protocol::{Direction, NetworkMessage, Protocol, frame};

/// Encodes this frame's [`ToClients<T>`] and queues each to the clients it names.
pub(crate) fn send_to_clients<T: NetworkMessage>(
    protocol: Res<Protocol>,
    mut server: ResMut<NetServer>,
    mut outgoing: MessageReader<ToClients<T>>,
    mut errors: MessageWriter<NetworkError>,
) {
    let Some((tag, registered)) = protocol.message_tag_and_delivery::<T>(Direction::ToClients)
    else {
        return;
    };
    let tag = protocol.tagged().then_some(tag);
    let server = &mut *server;
    for out in outgoing.read() {
        if let Err(reason) = frame::encode(tag, &out.message, &mut server.buf) {
            errors.write(NetworkError::Unencodable {
                message: type_name::<T>(),
                reason,
            });
            continue;
        }
        let delivery = out.delivery.unwrap_or(registered);
        let mut send = |client| {
            if let Err(error) = server.transport.send(client, &server.buf, delivery) {
                errors.write(NetworkError::NotSent {
                    peer: Peer::Client(client),
                    message: type_name::<T>(),
                    error,
                });
            }
        };
        match out.to {
            SendTo::One(client) => send(client),
            to => {
                for &client in server.clients.keys() {
                    if to.includes(client) {
                        send(client);
                    }
                }
            }
        }
    }
}

/// Sends what the frame queued.
pub(crate) fn flush(
    mut server: ResMut<NetServer>,
    time: Option<Res<Time<Real>>>,
    mut errors: MessageWriter<NetworkError>,
) {
    if let Err(error) = server.transport.flush(frame_instant(time.as_deref())) {
        errors.write(NetworkError::Transport { error });
    }
}

/// Closes every connection when the app exits, so that clients learn of it at once instead
/// of after their timeout.
pub(crate) fn close_on_exit(mut server: ResMut<NetServer>, time: Option<Res<Time<Real>>>) {
    let clients: Vec<_> = server.clients().collect();
    for client in clients {
        let _ = server.transport.close(client);
    }
    let _ = server.transport.flush(frame_instant(time.as_deref()));
}
