//! Identifiers that the spec keeps apart: entities, players and request channels.
//!
//! Each is its own type so that a player id cannot be passed where an entity id is expected, but
//! on the wire all three are a plain `u32` (the spec's variable-length integer), and in the JSON
//! form a plain number.

use hopnet_codec::schema::Encoding;
use hopnet_codec::{
    BitReader, BitWindow, BitWriter, Decode, DeltaDecode, DeltaEncode, Encode, Result,
};
use std::fmt;

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(transparent)
        )]
        pub struct $name(pub u32);

        impl $name {
            /// The id as a plain number.
            pub const fn get(self) -> u32 {
                self.0
            }
        }

        impl From<u32> for $name {
            fn from(id: u32) -> Self {
                $name(id)
            }
        }

        impl From<$name> for u32 {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($what, " {}"), self.0)
            }
        }

        /// A plain `u32` on the wire.
        impl Encode for $name {
            const MIN_BITS: u64 = <u32 as Encode>::MIN_BITS;
            const MAX_BITS: Option<u64> = <u32 as Encode>::MAX_BITS;
            const WORD_BITS: Option<u32> = <u32 as Encode>::WORD_BITS;

            #[inline(always)]
            fn encode_word(&self) -> Result<(u64, u32)> {
                self.0.encode_word()
            }

            #[inline(always)]
            fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
                self.0.encode(w)
            }

            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                self.0.encoded_bits()
            }

            fn schema() -> Encoding {
                <u32 as Encode>::schema()
            }
        }

        /// A plain `u32` in deltas too: one bit when unchanged.
        impl DeltaEncode for $name {
            #[inline(always)]
            fn unchanged(&self, base: &Self) -> bool {
                self.0 == base.0
            }

            #[inline(always)]
            fn encode_changes(&self, _: &Self, w: &mut BitWriter<'_>) -> Result<()> {
                self.0.encode(w)
            }
        }

        impl DeltaDecode for $name {
            #[inline(always)]
            fn decode_changes(_: &Self, r: &mut BitReader<'_>) -> Result<Self> {
                u32::decode(r).map($name)
            }
        }

        impl Decode for $name {
            #[inline(always)]
            fn decode(r: &mut BitReader<'_>) -> Result<Self> {
                u32::decode(r).map($name)
            }

            #[inline(always)]
            fn decode_window(w: &mut BitWindow<'_>) -> Result<Self> {
                u32::decode_window(w).map($name)
            }
        }
    };
}

id_type!(
    /// Names one entity of the world (an object or a player's avatar) for as long as it exists.
    EntityId,
    "entity"
);

id_type!(
    /// Names one connected player: the server hands it out in [`Connect`](crate::Connect) and
    /// marks the avatar that player controls with it ([`Player::owner`](crate::Player::owner)).
    PlayerId,
    "player"
);

id_type!(
    /// Pairs a [`Response`](crate::Response) with the [`Request`](crate::Request) it answers: the
    /// client picks the channel, the server answers on the same one.
    ChannelId,
    "channel"
);
