//! The client's `PostUpdate`: each type's messages encoded and queued, then the transport
//! flushed.

use std::time::Instant;

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::Error;

use super::NetClient;
use crate::shared::clock::frame_instant;
use crate::shared::encode::encode_each;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::messages::ToServer;
use crate::shared::plugin::Side;
use crate::shared::protocol::{Direction, NetworkMessage, Protocol};

/// Encodes this frame's [`ToServer<T>`] and queues them.
pub(crate) fn send_to_server<T: NetworkMessage>(
    protocol: Res<Protocol>,
    mut client: ResMut<NetClient>,
    mut outgoing: MessageReader<ToServer<T>>,
    mut errors: MessageWriter<NetworkError>,
) {
    let client = &mut *client;
    let transport = &mut client.transport;
    let outgoing = outgoing.read().map(|out| (&out.message, out.delivery, ()));
    encode_each(
        &protocol,
        Direction::ToServer,
        outgoing,
        &mut client.buf,
        &mut errors,
        |bytes, delivery, (), errors| {
            if let Err(error) = transport.send(bytes, delivery) {
                errors.write(NetworkError::not_sent::<T>(Peer::Server, error));
            }
        },
    );
}

impl Side for NetClient {
    fn flush_transport(&mut self, now: Instant) -> Result<(), Error> {
        self.transport.flush(now)
    }
}

/// Closes the connection when the app exits, so that the server learns of it at once instead
/// of after its timeout.
pub(crate) fn close_on_exit(mut client: ResMut<NetClient>, time: Option<Res<Time<Real>>>) {
    let now = frame_instant(time.as_deref());
    client.transport.close(now);
    let _ = client.transport.flush(now);
}
