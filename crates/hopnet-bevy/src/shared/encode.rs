//! A frame's messages of one type, each encoded once for its direction with its tag and handed
//! on with its delivery: what both sides' sending systems do before their transport's `send`.

use std::any::type_name;

use bevy_ecs::message::MessageWriter;
use hopnet::Delivery;

use crate::shared::error::NetworkError;
use crate::shared::protocol::{Direction, NetworkMessage, Protocol, frame};

/// Encodes each message of `outgoing` (the message, its own delivery if any, whom it is for)
/// into `buf`, its tag first when framed with tags, and hands it to `send` with its delivery
/// (its own, else its type's registered one). A message that does not encode is reported and
/// skipped; nothing is sent of a type not registered for `direction`.
pub(crate) fn encode_each<'a, T: NetworkMessage, To>(
    protocol: &Protocol,
    direction: Direction,
    outgoing: impl Iterator<Item = (&'a T, Option<Delivery>, To)>,
    buf: &mut Vec<u8>,
    errors: &mut MessageWriter<NetworkError>,
    mut send: impl FnMut(&[u8], Delivery, To, &mut MessageWriter<NetworkError>),
) {
    let Some((tag, registered)) = protocol.message_tag_and_delivery::<T>(direction) else {
        return;
    };
    let tag = protocol.tagged().then_some(tag);
    for (message, delivery, to) in outgoing {
        if let Err(reason) = frame::encode(tag, message, buf) {
            errors.write(NetworkError::Unencodable {
                message: type_name::<T>(),
                reason,
            });
            continue;
        }
        send(buf, delivery.unwrap_or(registered), to, errors);
    }
}
