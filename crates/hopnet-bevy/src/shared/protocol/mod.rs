//! The protocol both ends register: which message types travel in which direction, each with
//! its tag and its default delivery, and how a payload is framed.
//!
//! Tags are given in registration order, one sequence per direction, so the server's app and
//! the clients' apps must register the same types in the same order (as with bevy_replicon);
//! registering them in one shared function keeps them so. A payload whose tag names nothing
//! registered for its direction is reported and dropped.

pub(crate) mod frame;

use std::any::{TypeId, type_name};

use bevy_ecs::resource::Resource;
use hopnet::Delivery;

/// A message type the plugins can carry: anything that derives `Rabbit` (or implements
/// [`Encode`](hopnet_codec::Encode) and [`Decode`](hopnet_codec::Decode)) and can live in a
/// Bevy message.
pub trait NetworkMessage:
    hopnet_codec::Encode + hopnet_codec::Decode + Send + Sync + 'static
{
}

impl<T: hopnet_codec::Encode + hopnet_codec::Decode + Send + Sync + 'static> NetworkMessage for T {}

/// A snapshot type the plugins can replicate as deltas: one that derives `Rabbit` with
/// `#[rabbit(delta)]` (or implements [`DeltaEncode`](hopnet_codec::DeltaEncode) and
/// [`DeltaDecode`](hopnet_codec::DeltaDecode)).
pub trait NetworkSnapshot:
    hopnet_codec::DeltaEncode + hopnet_codec::DeltaDecode + Send + Sync + 'static
{
}

impl<S: hopnet_codec::DeltaEncode + hopnet_codec::DeltaDecode + Send + Sync + 'static>
    NetworkSnapshot for S
{
}

/// How the plugins frame a message on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Framing {
    /// Every payload starts with its type's tag (a Rabbit `u32`: 10 bits for the first 256
    /// types of a direction), then the message, in one bit stream. Any number of types each
    /// way, and snapshots.
    #[default]
    Tagged,
    /// A payload is the message alone, as [`hopnet_codec::to_bytes`] writes it: for a peer
    /// that is not a hopnet-bevy app and speaks one message type each way (the Snow Fight
    /// server takes a `ClientMessage` and sends a `ServerMessage`, each an enum with its own
    /// tag). One registered type per direction; no snapshots.
    Untagged,
}

/// Which way a message type travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From a client to the server.
    ToServer,
    /// From the server to its clients.
    ToClients,
}

/// What a tag stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A message type, sent with this delivery unless the sender says otherwise.
    Message(Delivery),
    /// A replicated snapshot type's frames (server to clients).
    Snapshot,
    /// A client's request that a snapshot type start again from a full snapshot.
    SnapshotReset,
    /// A replicated component type's updates (server to clients).
    Replication,
}

/// One registered type of one direction.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub type_id: TypeId,
    pub kind: Kind,
}

/// The registered types of both directions, and the framing.
#[derive(Resource, Debug, Default)]
pub(crate) struct Protocol {
    framing: Framing,
    /// Registrations so far (a type registered both ways counts once).
    registrations: u32,
    to_server: Vec<Entry>,
    to_clients: Vec<Entry>,
}

impl Protocol {
    pub fn framing(&self) -> Framing {
        self.framing
    }

    pub fn tagged(&self) -> bool {
        self.framing == Framing::Tagged
    }

    fn table(&self, direction: Direction) -> &Vec<Entry> {
        match direction {
            Direction::ToServer => &self.to_server,
            Direction::ToClients => &self.to_clients,
        }
    }

    /// The entry a tag names in `direction`.
    pub fn entry(&self, direction: Direction, tag: u32) -> Option<&Entry> {
        self.table(direction).get(usize::try_from(tag).ok()?)
    }

    /// The tag of `T` registered as `kind` in `direction` (any delivery for a message).
    pub fn tag_of<T: 'static>(&self, direction: Direction, kind: Kind) -> Option<(u32, Kind)> {
        let id = TypeId::of::<T>();
        let kind = std::mem::discriminant(&kind);
        let at = self
            .table(direction)
            .iter()
            .position(|e| e.type_id == id && std::mem::discriminant(&e.kind) == kind)?;
        Some((at as u32, self.table(direction)[at].kind))
    }

    /// The tag of message type `T` in `direction`.
    pub fn message_tag<T: 'static>(&self, direction: Direction) -> Option<u32> {
        self.message_tag_and_delivery::<T>(direction)
            .map(|(tag, _)| tag)
    }

    /// The tag of message type `T` in `direction`, and its registered delivery.
    pub fn message_tag_and_delivery<T: 'static>(
        &self,
        direction: Direction,
    ) -> Option<(u32, Delivery)> {
        match self.tag_of::<T>(direction, Kind::Message(Delivery::Reliable))? {
            (tag, Kind::Message(delivery)) => Some((tag, delivery)),
            _ => None,
        }
    }

    /// Registers `T` as `kind` in `direction`; returns its tag.
    ///
    /// # Panics
    ///
    /// If `T` is registered as the same kind in that direction already, or if the framing is
    /// [`Framing::Untagged`] and the direction has a type already: mistakes in building the
    /// app, found when it is built.
    pub fn register<T: 'static>(&mut self, direction: Direction, kind: Kind) -> u32 {
        let untagged = self.framing == Framing::Untagged;
        let table = match direction {
            Direction::ToServer => &mut self.to_server,
            Direction::ToClients => &mut self.to_clients,
        };
        let same = |e: &Entry| {
            e.type_id == TypeId::of::<T>()
                && std::mem::discriminant(&e.kind) == std::mem::discriminant(&kind)
        };
        assert!(
            !table.iter().any(same),
            "hopnet-bevy: {} is registered twice for {direction:?}",
            type_name::<T>()
        );
        assert!(
            !untagged || table.is_empty(),
            "hopnet-bevy: Framing::Untagged carries one message type per direction, and {} \
             would be a second one for {direction:?}",
            type_name::<T>()
        );
        table.push(Entry {
            type_id: TypeId::of::<T>(),
            kind,
        });
        u32::try_from(table.len() - 1).expect("fewer than 2^32 message types")
    }

    /// Numbers the next registration: its sending systems run after those of the ones before.
    pub fn next_registration(&mut self) -> u32 {
        self.registrations += 1;
        self.registrations - 1
    }

    /// Sets the framing.
    ///
    /// # Panics
    ///
    /// If [`Framing::Untagged`] is asked for while a direction has more than one type, or a
    /// snapshot type.
    pub fn set_framing(&mut self, framing: Framing) {
        if framing == Framing::Untagged {
            for direction in [Direction::ToServer, Direction::ToClients] {
                let table = self.table(direction);
                assert!(
                    table.len() <= 1,
                    "hopnet-bevy: Framing::Untagged carries one message type per direction, \
                     and {direction:?} has {}",
                    table.len()
                );
                assert!(
                    table.iter().all(|e| matches!(e.kind, Kind::Message(_))),
                    "hopnet-bevy: snapshots need Framing::Tagged"
                );
            }
        }
        self.framing = framing;
    }
}
