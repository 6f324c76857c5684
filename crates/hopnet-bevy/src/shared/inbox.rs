//! Payloads that arrived this frame, sorted by tag for the systems that decode them.
//!
//! The transport's events are read by one system, which sorts each message by the tag it
//! starts with; one system per registered type then decodes its own slot into typed
//! messages. Their buffers come back to the transport the next frame (`recycle`), so that a
//! steady stream of messages allocates nothing.

use bevy_ecs::resource::Resource;
use hopnet_codec::Decode;

use crate::shared::protocol::{Direction, Protocol, frame};

/// This frame's payloads by tag, from peers named by `P` (a connection id on the server, `()`
/// on a client).
#[derive(Resource, Debug)]
pub(crate) struct Inbox<P> {
    slots: Vec<Vec<(P, Vec<u8>)>>,
    spent: Vec<Vec<u8>>,
}

impl<P> Default for Inbox<P> {
    fn default() -> Self {
        Inbox {
            slots: Vec::new(),
            spent: Vec::new(),
        }
    }
}

impl<P> Inbox<P> {
    /// Files a payload under its tag.
    pub fn put(&mut self, tag: u32, peer: P, bytes: Vec<u8>) {
        let tag = tag as usize;
        if self.slots.len() <= tag {
            self.slots.resize_with(tag + 1, Vec::new);
        }
        self.slots[tag].push((peer, bytes));
    }

    /// Files a payload from `peer` under its tag, if the tag names a type registered for
    /// `direction`; otherwise hands back the tag it starts with (if it has one) and the bytes.
    pub fn file(
        &mut self,
        protocol: &Protocol,
        direction: Direction,
        peer: P,
        bytes: Vec<u8>,
    ) -> Result<(), (Option<u32>, Vec<u8>)> {
        match frame::open(&bytes, protocol.tagged()) {
            Ok((tag, _)) if protocol.entry(direction, tag).is_some() => {
                self.put(tag, peer, bytes);
                Ok(())
            }
            Ok((tag, _)) => Err((Some(tag), bytes)),
            Err(_) => Err((None, bytes)),
        }
    }

    /// Decodes every payload of message type `T` that arrived for `direction`, and hands each
    /// to `each` with its peer.
    pub fn decode<T: Decode + 'static>(
        &mut self,
        protocol: &Protocol,
        direction: Direction,
        mut each: impl FnMut(&P, hopnet_codec::Result<T>),
    ) {
        let Some(tag) = protocol.message_tag::<T>(direction) else {
            return;
        };
        let tagged = protocol.tagged();
        self.drain(tag, |peer, bytes| {
            each(peer, frame::decode::<T>(bytes, tagged))
        });
    }

    /// Runs `f` on every payload filed under `tag`, then keeps their buffers for the
    /// transport.
    pub fn drain(&mut self, tag: u32, mut f: impl FnMut(&P, &[u8])) {
        let Some(slot) = self.slots.get_mut(tag as usize) else {
            return;
        };
        for (peer, bytes) in slot.drain(..) {
            f(&peer, &bytes);
            self.spent.push(bytes);
        }
    }

    /// Buffers done with, and payloads nobody decoded (a type registered on the other side
    /// only), for the transport to reuse.
    pub fn take_spent(&mut self) -> impl Iterator<Item = Vec<u8>> + '_ {
        let leftovers = self.slots.iter_mut().flat_map(|slot| slot.drain(..));
        self.spent
            .drain(..)
            .chain(leftovers.map(|(_, bytes)| bytes))
    }
}
