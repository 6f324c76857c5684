//! The server's `PostUpdate`: each type's messages encoded once and queued to their clients,
//! then the transport flushed.

use std::time::Instant;

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::Error;

use super::NetServer;
use crate::shared::clock::frame_instant;
use crate::shared::encode::encode_each;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::messages::{SendTo, ToClients};
use crate::shared::plugin::Side;
use crate::shared::protocol::{Direction, NetworkMessage, Protocol};

/// Encodes this frame's [`ToClients<T>`], each once, and queues each to the clients it names.
pub(crate) fn send_to_clients<T: NetworkMessage>(
    protocol: Res<Protocol>,
    mut server: ResMut<NetServer>,
    mut outgoing: MessageReader<ToClients<T>>,
    mut errors: MessageWriter<NetworkError>,
) {
    let server = &mut *server;
    let (transport, clients) = (&mut server.transport, &server.clients);
    let outgoing = outgoing
        .read()
        .map(|out| (&out.message, out.delivery, out.to));
    encode_each(
        &protocol,
        Direction::ToClients,
        outgoing,
        &mut server.buf,
        &mut errors,
        |bytes, delivery, to, errors| {
            let mut send = |client| {
                if let Err(error) = transport.send(client, bytes, delivery) {
                    errors.write(NetworkError::not_sent::<T>(Peer::Client(client), error));
                }
            };
            match to {
                SendTo::One(client) => send(client),
                to => {
                    for &client in clients.keys() {
                        if to.includes(client) {
                            send(client);
                        }
                    }
                }
            }
        },
    );
}

impl Side for NetServer {
    fn flush_transport(&mut self, now: Instant) -> Result<(), Error> {
        self.transport.flush(now)
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
