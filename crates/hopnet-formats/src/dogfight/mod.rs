//! Dogfight's binary codec (`spec/context-dogfight-binary-codec.txt`): the game state and the game
//! events, big-endian ("network order"), byte for byte as the seed's `encode` and
//! `encode_event` (Elixir) write them.
//!
//! # What the seed writes
//!
//! The state is a header, `total_length` (4 bytes), then `status` (1 byte), the power-ups'
//! size in bytes (2 bytes, the seed's `power_ups_count`), the power-ups (9 bytes each) and the
//! players (97 bytes each) to the end. A player is its position, hp, alive flag and direction,
//! its id as 36 bytes of UUID text, and exactly five bullets.
//!
//! `total_length` is not the datagram's length. The seed computes it as the players' bytes
//! plus the power-ups' bytes plus `double_word_size() + half_word_size() + word_size()`, and
//! those helpers return sizes in **bits** (32, 8, 16): so it is the payload's bytes plus 56,
//! where the bytes before the payload are 7. [`seed_total_length`] computes exactly that, and
//! decoding checks it.
//!
//! The seed's own `decode` cannot read what `encode` writes: it cuts the players and the
//! power-ups with `binary-size` of constants computed in bits (548 for a 97-byte player, 72 for
//! a 9-byte power-up), and `binary-size` counts bytes. This crate follows `encode`, the
//! format the seed sends; it reads `alive` and `active` as the strict 0 or 1 the encoder
//! writes, and `hp` as the `i8` the seed's field list gives it (its decoder reads the byte
//! unsigned).

pub mod packed;

use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

/// The match's status (the seed's `nil`, `:in_progress`, `:closed`).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(8)]
pub enum Status {
    /// `nil`: 0.
    Unset,
    /// 1.
    InProgress,
    /// 2.
    Closed,
}

/// Where a ship or a bullet points.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(8)]
pub enum Direction {
    /// 0.
    Idle,
    /// 1.
    Up,
    /// 2.
    Down,
    /// 3.
    Left,
    /// 4.
    Right,
}

/// What a power-up gives (the seed's `nil`, `:hp_plus_one`, `:hp_plus_three`,
/// `:ammo_plus_one`).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(8)]
pub enum PowerUpKind {
    /// `nil`: 0.
    Unset,
    /// 1.
    HpPlusOne,
    /// 2.
    HpPlusThree,
    /// 3.
    AmmoPlusOne,
}

/// A power-up on the map: 9 bytes.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct PowerUp {
    /// Position, x.
    pub x: i32,
    /// Position, y.
    pub y: i32,
    /// What it gives.
    pub kind: PowerUpKind,
}

/// A bullet: 10 bytes.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Bullet {
    /// Position, x.
    pub x: i32,
    /// Position, y.
    pub y: i32,
    /// Whether it is flying: one byte, 0 or 1.
    pub active: bool,
    /// Where it goes.
    pub direction: Direction,
}

/// The length of a player id: a UUID as text, 32 hex digits and 4 hyphens.
pub const PLAYER_ID: usize = 36;

/// A player's ship: 97 bytes.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct Player {
    /// Position, x.
    pub x: i32,
    /// Position, y.
    pub y: i32,
    /// Hit points.
    pub hp: i8,
    /// One byte, 0 or 1.
    pub alive: bool,
    /// Where it points.
    pub direction: Direction,
    /// The player's id, a UUID as 36 bytes of text.
    #[rabbit(bytes = 36)]
    pub id: String,
    /// Exactly five bullets, with no count.
    pub bullets: [Bullet; 5],
}

/// The game state, as the seed's `encode` writes it.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "big")]
pub struct State {
    /// What the seed writes as `total_length`: the payload's bytes plus 56 (see the module
    /// documentation).
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "seed_total_length(power_ups, players)")]
    pub total_length: Computed<u32>,
    /// The match's status.
    pub status: Status,
    /// The power-ups' size in bytes (the seed's `power_ups_count`).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub power_ups_size: Computed<u16>,
    /// The power-ups, filling `power_ups_size` bytes.
    #[rabbit(byte_len = "power_ups_size")]
    pub power_ups: Vec<PowerUp>,
    /// The players, to the end.
    #[rabbit(to_end)]
    pub players: Vec<Player>,
}

/// Bytes of a power-up and of a player.
const POWER_UP_BYTES: usize = (<PowerUp as hopnet_codec::Encode>::MIN_BITS / 8) as usize;
const PLAYER_BYTES: usize = (<Player as hopnet_codec::Encode>::MIN_BITS / 8) as usize;

/// The seed's `total_length`: the players' and power-ups' bytes, plus 32 + 8 + 16 (the sizes
/// of the header's integers, in bits). A payload too large for 32 bits gives `u32::MAX`,
/// which no decoded state matches.
pub fn seed_total_length(power_ups: &[PowerUp], players: &[Player]) -> u32 {
    let bytes = power_ups.len() * POWER_UP_BYTES + players.len() * PLAYER_BYTES + 32 + 8 + 16;
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// A game event (the seed's `encode_event`): an action byte, then the player's id, after the
/// direction for a move.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(8)]
pub enum Event {
    /// 0: a player joined.
    PlayerConnection {
        /// The player's id.
        #[rabbit(bytes = 36)]
        player_id: String,
    },
    /// 1: a player left.
    PlayerDisconnection {
        /// The player's id.
        #[rabbit(bytes = 36)]
        player_id: String,
    },
    /// 2: a player turned.
    Move {
        /// Where to.
        direction: Direction,
        /// The player's id.
        #[rabbit(bytes = 36)]
        player_id: String,
    },
    /// 3: a player fired.
    Shoot {
        /// The player's id.
        #[rabbit(bytes = 36)]
        player_id: String,
    },
}
