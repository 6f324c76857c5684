//! Scoped updates: not in the spec, this toolkit's extension for clients that ask.
//!
//! A client sends [`ClientMessage::Scoped`](crate::ClientMessage::Scoped) with a channel. From
//! then on its server sends it, in place of snapshot events, *scoped updates*: only the
//! entities in the client's scope (near its player), the most urgent first, as many as its byte
//! budget allows, each new one whole and each known one as a delta against a state the client
//! acknowledged. What an update holds is the game's business (the snow-fight game sends
//! `hopnet_sync::replicate::Update<EntityId, EntityKind>`); this module is its envelope.
//!
//! On the wire a scoped update is a snapshot delta's header ([`crate::delta`]) whose baseline is
//! its own tick (`since` = 0, which no snapshot delta has: a delta is always written against an
//! earlier snapshot), then the update's bytes:
//!
//! | Field | Encoding |
//! |---|---|
//! | `ServerMessage` tag | `1` (1 bit: `Response`) |
//! | `channel` | `u32`: the channel of the client's `Scoped` request |
//! | `ResponseKind` tag | `3` (2 bits) |
//! | `time` | `u32`: the update's tick |
//! | `since` | `u32`: `0` |
//! | `update` | `Vec<u8>`: a `u32` length, then the update's bytes |
//!
//! A spec decoder refuses it as it refuses a snapshot delta (`ResponseKind` index 3 is
//! unknown to it), and only a client that asked is sent one.
//!
//! ```
//! use hopnet_snow_fight::{delta::DeltaHeader, scoped, ChannelId};
//!
//! let header = scoped::ScopedHeader { channel: ChannelId(7), time: 12 };
//! let mut bytes = Vec::new();
//! header.encode(&[1, 2, 3], &mut bytes)?;
//! assert_eq!(scoped::ScopedHeader::of(&bytes), Some(header));
//! assert_eq!(scoped::decode(&bytes)?, (header, vec![1, 2, 3]));
//! // To a reader of snapshot deltas it is one against its own tick, which none is.
//! let delta = DeltaHeader::of(&bytes).unwrap();
//! assert_eq!(delta.base, delta.time);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```

use hopnet_codec::{BitReader, BitWriter, Decode, Encode};

use crate::delta::DeltaHeader;
use crate::ids::ChannelId;

/// The most bytes the envelope adds to an update: the header's bits (1 + 34 + 2 + 34 + 10)
/// and the update's length (34), rounded up. A server that keeps each message within one
/// chunk keeps its updates this much smaller.
pub const MAX_ENVELOPE_BYTES: usize = 15;

/// What a scoped update says before the update: on which channel it answers, and its tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScopedHeader {
    /// The channel of the client's `Scoped` request.
    pub channel: ChannelId,
    /// The update's tick.
    pub time: u32,
}

impl ScopedHeader {
    /// The header of `bytes` if they are a scoped update.
    pub fn of(bytes: &[u8]) -> Option<ScopedHeader> {
        let header = DeltaHeader::read(&mut BitReader::new(bytes)).ok()?;
        ScopedHeader::from_delta(header)
    }

    /// The scoped update a snapshot delta's header names, if it is one (its baseline is its
    /// own tick).
    pub fn from_delta(header: DeltaHeader) -> Option<ScopedHeader> {
        (header.base == header.time).then_some(ScopedHeader {
            channel: header.channel,
            time: header.time,
        })
    }

    /// Appends the header and `update` to `out` (left as it was on error).
    pub fn encode(&self, update: &[u8], out: &mut Vec<u8>) -> hopnet_codec::Result<()> {
        let start = out.len();
        let mut w = BitWriter::new(out);
        let header = DeltaHeader {
            channel: self.channel,
            time: self.time,
            base: self.time,
        };
        let result = header
            .write(&mut w)
            .and_then(|()| update.to_vec().encode(&mut w));
        w.finish();
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

/// Decodes a whole scoped update: its header and the update's bytes.
pub fn decode(bytes: &[u8]) -> hopnet_codec::Result<(ScopedHeader, Vec<u8>)> {
    let mut r = BitReader::new(bytes);
    let header = DeltaHeader::read(&mut r)?;
    let header = ScopedHeader::from_delta(header)
        .ok_or_else(|| hopnet_codec::Error::custom("a snapshot delta, not a scoped update"))?;
    let update = Vec::<u8>::decode(&mut r)?;
    r.finish()?;
    Ok((header, update))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerMessage;
    use crate::sample::{DEFAULT_SEED, sample_snapshot};

    #[test]
    fn a_scoped_update_is_no_spec_message_and_no_snapshot_delta() {
        let header = ScopedHeader {
            channel: ChannelId(u32::MAX),
            time: u32::MAX,
        };
        let update = vec![0xAB; 600];
        let mut bytes = Vec::new();
        header.encode(&update, &mut bytes).unwrap();
        assert!(bytes.len() <= update.len() + MAX_ENVELOPE_BYTES);
        assert_eq!(decode(&bytes).unwrap(), (header, update));
        assert!(hopnet_codec::from_bytes::<ServerMessage>(&bytes).is_err());
        let base = sample_snapshot(3, DEFAULT_SEED);
        assert!(crate::delta::decode(&bytes, &base).is_err());
    }

    #[test]
    fn a_snapshot_delta_is_no_scoped_update() {
        let base = sample_snapshot(3, DEFAULT_SEED);
        let header = DeltaHeader {
            channel: ChannelId(1),
            time: 10,
            base: 9,
        };
        let mut bytes = Vec::new();
        header.encode(&base, &base, &mut bytes).unwrap();
        assert_eq!(ScopedHeader::of(&bytes), None);
        assert!(decode(&bytes).is_err());
    }

    #[test]
    fn truncated_or_padded_updates_are_refused() {
        let header = ScopedHeader {
            channel: ChannelId(3),
            time: 99,
        };
        let mut bytes = Vec::new();
        header.encode(&[1, 2, 3, 4], &mut bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "{len} bytes");
        }
        bytes.push(0);
        assert!(decode(&bytes).is_err());
    }
}
