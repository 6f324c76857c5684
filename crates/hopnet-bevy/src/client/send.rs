//! The client's `PostUpdate`: each type's messages encoded and queued, then the transport
//! flushed.

use std::any::type_name;

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};

use super::NetClient;
use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::messages::ToServer;
use crate::shared::protocol::{Direction, NetworkMessage, Protocol, frame};

/// Encodes this frame's [`ToServer<T>`] and queues them.
pub(crate) fn send_to_server<T: NetworkMessage>(
    protocol: Res<Protocol>,
    mut client: ResMut<NetClient>,
    mut outgoing: MessageReader<ToServer<T>>,
    mut errors: MessageWriter<NetworkError>,
) {
    let Some((tag, registered)) = protocol.message_tag_and_delivery::<T>(Direction::ToServer)
    else {
        return;
    };
    let tag = protocol.tagged().then_some(tag);
    let client = &mut *client;
    for out in outgoing.read() {
        if let Err(reason) = frame::encode(tag, &out.message, &mut client.buf) {
            errors.write(NetworkError::Unencodable {
                message: type_name::<T>(),
                reason,
            });
            continue;
        }
        let delivery = out.delivery.unwrap_or(registered);
        if let Err(error) = client.transport.send(&client.buf, delivery) {
            errors.write(NetworkError::NotSent {
                peer: Peer::Server,
                message: type_name::<T>(),
                error,
            });
        }
    }
}

/// Sends what the frame queued.
pub(crate) fn flush(
    mut client: ResMut<NetClient>,
    time: Option<Res<Time<Real>>>,
    mut errors: MessageWriter<NetworkError>,
) {
    if let Err(error) = client.transport.flush(frame_instant(time.as_deref())) {
        errors.write(NetworkError::Transport { error });
    }
}

/// Closes the connection when the app exits, so that the server learns of it at once instead
/// of after its timeout.
pub(crate) fn close_on_exit(mut client: ResMut<NetClient>, time: Option<Res<Time<Real>>>) {
    let now = frame_instant(time.as_deref());
    client.transport.close(now);
    let _ = client.transport.flush(now);
}
