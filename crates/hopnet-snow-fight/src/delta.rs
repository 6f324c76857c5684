//! Snapshots as deltas: not in the spec, this toolkit's extension for clients that ask.
//!
//! A client sends [`ClientMessage::Deltas`](crate::ClientMessage::Deltas) with a channel. From
//! then on its server may send it, in place of a snapshot event, a *snapshot delta*: the
//! snapshot of tick `time` written against the snapshot of an earlier tick that the client
//! holds, the *baseline* ([`hopnet_codec::delta`]: an entity that did not change costs one bit).
//! The delta names its baseline's tick; a client that does not hold that snapshot cannot decode
//! it, says so by asking for deltas again, and gets a full snapshot next.
//!
//! On the wire a snapshot delta starts as a `ServerMessage::Response` on the request's
//! channel, with `ResponseKind` index 3, which the spec's 2-bit tag leaves unused: a spec
//! decoder refuses it (an unknown variant) and never takes it for another message, and only a
//! client that asked is sent one.
//!
//! | Field | Encoding |
//! |---|---|
//! | `ServerMessage` tag | `1` (1 bit: `Response`) |
//! | `channel` | `u32`: the channel of the client's `Deltas` request |
//! | `ResponseKind` tag | `3` (2 bits) |
//! | `time` | `u32`: the tick of the snapshot |
//! | `since` | `u32`: how many ticks before `time` the baseline is (its tick is `time - since`, wrapping) |
//! | `snapshot` | the `Snapshot`'s delta against the baseline |
//!
//! The snapshot's delta is its derived one (`#[rabbit(delta)]` on the world's types): a bit
//! for "changed", then its entity list keyed by id: the baseline's entities that are gone, by
//! position, those that are new, by position, then every entity in order, a new one whole
//! and a kept one as its changes against the baseline's (one bit if none).
//!
//! ```
//! use hopnet_snow_fight::{delta, ChannelId, Entity, Object, ObjectKind, Point, Snapshot};
//!
//! let tree = |x| Entity::new(1, Object {
//!     position: Point::new(x, 2.0, 0.0),
//!     kind: ObjectKind::Tree,
//!     durability: None,
//!     health: 10,
//!     max_health: 10,
//! });
//! let base = Snapshot::new(vec![tree(1.0)]);
//! let now = Snapshot::new(vec![tree(1.5)]);
//! let header = delta::DeltaHeader { channel: ChannelId(7), time: 12, base: 10 };
//!
//! let mut bytes = Vec::new();
//! header.encode(&now, &base, &mut bytes)?;
//! // A client tells it from a spec message by its header, then decodes it against the
//! // snapshot of tick 10.
//! assert_eq!(delta::DeltaHeader::of(&bytes), Some(header));
//! assert_eq!(delta::decode(&bytes, &base)?, (header, now));
//! // No spec decoder takes it for a message.
//! assert!(hopnet_codec::from_bytes::<hopnet_snow_fight::ServerMessage>(&bytes).is_err());
//! # Ok::<(), hopnet_codec::Error>(())
//! ```

use crate::ids::ChannelId;
use crate::world::Snapshot;
use hopnet_codec::{BitReader, BitWriter, Decode, DeltaDecode, DeltaEncode, Encode, Rabbit};

/// What a snapshot delta says before its snapshot: on which channel it answers, the tick of its
/// snapshot, and the tick of its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeltaHeader {
    /// The channel of the client's `Deltas` request.
    pub channel: ChannelId,
    /// The tick of the snapshot.
    pub time: u32,
    /// The tick of the baseline the snapshot is written against.
    pub base: u32,
}

// The header's bits, as the derive writes them: the envelope of a `ServerMessage::Response`
// whose `ResponseKind` index is 3.
#[derive(Rabbit)]
#[bits(1)]
enum Envelope {
    #[rabbit(index = 1)]
    Response { channel: ChannelId, kind: Kind },
}

#[derive(Rabbit)]
#[bits(2)]
enum Kind {
    #[rabbit(index = 3)]
    SnapshotDelta { time: u32, since: u32 },
}

impl DeltaHeader {
    /// The header of `bytes` if they are a snapshot delta (and not a `ServerMessage`).
    pub fn of(bytes: &[u8]) -> Option<DeltaHeader> {
        DeltaHeader::read(&mut BitReader::new(bytes)).ok()
    }

    pub(crate) fn read(r: &mut BitReader<'_>) -> hopnet_codec::Result<DeltaHeader> {
        let Envelope::Response {
            channel,
            kind: Kind::SnapshotDelta { time, since },
        } = Envelope::decode(r)?;
        Ok(DeltaHeader {
            channel,
            time,
            base: time.wrapping_sub(since),
        })
    }

    /// Appends the header and `snapshot`'s delta against `base`, the snapshot of tick
    /// `self.base`, to `out` (left as it was on error).
    pub fn encode(
        &self,
        snapshot: &Snapshot,
        base: &Snapshot,
        out: &mut Vec<u8>,
    ) -> hopnet_codec::Result<()> {
        let start = out.len();
        let mut w = BitWriter::new(out);
        let result = self
            .write(&mut w)
            .and_then(|()| snapshot.encode_delta(base, &mut w));
        w.finish();
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

impl DeltaHeader {
    /// Writes the header's bits.
    pub(crate) fn write(&self, w: &mut BitWriter<'_>) -> hopnet_codec::Result<()> {
        Envelope::Response {
            channel: self.channel,
            kind: Kind::SnapshotDelta {
                time: self.time,
                since: self.time.wrapping_sub(self.base),
            },
        }
        .encode(w)
    }
}

/// Decodes a whole snapshot delta against `base`, the snapshot of tick `header.base` (read it
/// first with [`DeltaHeader::of`]).
pub fn decode(bytes: &[u8], base: &Snapshot) -> hopnet_codec::Result<(DeltaHeader, Snapshot)> {
    let mut r = BitReader::new(bytes);
    let header = DeltaHeader::read(&mut r)?;
    let snapshot = Snapshot::decode_delta(base, &mut r)?;
    r.finish()?;
    Ok((header, snapshot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{DEFAULT_SEED, sample_snapshot};
    use crate::{Dialect, ServerMessage};

    #[test]
    fn no_spec_message_has_a_delta_header_and_no_delta_is_a_spec_message() {
        let snapshot = sample_snapshot(20, DEFAULT_SEED);
        for message in [
            ServerMessage::snapshot(3, snapshot.clone()),
            ServerMessage::response(7u32, crate::ResponseKind::Pong),
            ServerMessage::game_over(9, crate::GameOver::Won),
        ] {
            let bytes = hopnet_codec::to_bytes(&message).unwrap();
            assert_eq!(DeltaHeader::of(&bytes), None, "{message:?}");
        }
        let header = DeltaHeader {
            channel: ChannelId(u32::MAX),
            time: 5,
            base: u32::MAX - 2,
        };
        let mut bytes = Vec::new();
        header
            .encode(&snapshot, &Snapshot::default(), &mut bytes)
            .unwrap();
        assert_eq!(DeltaHeader::of(&bytes), Some(header));
        assert!(hopnet_codec::from_bytes::<ServerMessage>(&bytes).is_err());
        assert_eq!(
            decode(&bytes, &Snapshot::default()).unwrap(),
            (header, snapshot)
        );
    }

    #[test]
    fn the_request_is_the_spec_tag_4_and_has_no_original_form() {
        let request = crate::ClientMessage::deltas(5u32);
        let bytes = Dialect::Spec.to_bytes(&request).unwrap();
        // Tag 4 (prefix 00, then the byte 4), then the channel (prefix 00, the byte 5).
        assert_eq!(bytes, [0b0001_0000, 0b0101_0000, 0b0000_0000]);
        assert_eq!(
            Dialect::detect(&bytes),
            Ok((Dialect::Spec, request.clone()))
        );
        assert!(Dialect::Original.to_bytes(&request).is_err());
    }
}
