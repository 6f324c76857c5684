//! The Source engine's server queries, as Valve's developer wiki ("Server queries") documents
//! them: what server browsers, Steam and community server lists send to a game server's UDP
//! port, beside its game traffic. Every number is little-endian; every string is a C string
//! (UTF-8 here; see below).
//!
//! Each type is one datagram and starts with its header: [`SINGLE`] (`FF FF FF FF`), then the
//! kind byte (`'T'` for [`InfoRequest`], `'I'` for [`InfoResponse`], ...). Both are written as
//! `magic`, so decoding a datagram as the wrong type is an error at the kind byte. A response
//! too long for one datagram comes in parts, each behind a [`SplitHeader`] (`FE FF FF FF`).
//!
//! Choices this crate made where the wiki leaves something open:
//!
//! - **Strings are UTF-8.** The wiki does not name an encoding; servers send UTF-8 in practice.
//!   A name that is not UTF-8 is a decode error rather than lossy text.
//! - **`A2S_INFO`'s extra-data flag byte (EDF) is required.** Every Source server since 2009
//!   sends it; a GoldSource-era response without it is a decode error. Which optional fields
//!   follow is computed from which of them are `Some` when encoding, and read from the flag
//!   when decoding, so a value cannot claim a field it does not hold.
//! - **The Ship's extra fields** (mode, witnesses, duration, sent only by app id 2400) are not
//!   modelled: a response from The Ship decodes wrongly or fails.
//! - **The request's challenge** (sent since Valve's 2020 change to `A2S_INFO`) is a list of at
//!   most one number to the end of the datagram: absent in a first request, present after an
//!   [`S2C_CHALLENGE`](Challenge).
//! - **Player and rule counts** are computed from the lists when encoding and checked against
//!   them when decoding; a count that disagrees with the entries that follow is an error.
//! - **Split packets** are Source's layout (an id, the total, the number, the size); the
//!   compressed form (the id's high bit set, with a bzip2 body) is read as plain bytes, not
//!   decompressed, and GoldSource's layout is not modelled.

use hopnet_codec::Rabbit;
use hopnet_codec::layout::Computed;

/// The header of a response or request that fits one datagram.
pub const SINGLE: [u8; 4] = [0xff; 4];
/// The header of one part of a split response.
pub const SPLIT: [u8; 4] = [0xfe, 0xff, 0xff, 0xff];
/// The payload of every [`InfoRequest`].
pub const INFO_PAYLOAD: &str = "Source Engine Query";

/// `A2S_INFO`: what is this server?
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffT")]
pub struct InfoRequest {
    /// Always [`INFO_PAYLOAD`].
    #[rabbit(cstring)]
    pub payload: String,
    /// The challenge the server handed out, if the client has one.
    #[rabbit(to_end, max_len = 1)]
    pub challenge: Vec<ChallengeNumber>,
}

/// A challenge number as a list item: four bytes, little-endian (a list's items take their
/// type's own encoding, so the byte order is the item type's).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[rabbit(endian = "little")]
pub struct ChallengeNumber(pub i32);

/// `S2C_CHALLENGE`: repeat the request with this number.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffA")]
pub struct Challenge {
    /// The challenge.
    pub challenge: i32,
}

/// The `A2S_INFO` response.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffI")]
pub struct InfoResponse {
    /// The query protocol's version (17 for current servers).
    pub protocol: u8,
    /// The server's name.
    #[rabbit(cstring)]
    pub name: String,
    /// The current map.
    #[rabbit(cstring)]
    pub map: String,
    /// The game's folder.
    #[rabbit(cstring)]
    pub folder: String,
    /// The game's full name.
    #[rabbit(cstring)]
    pub game: String,
    /// The Steam application id (0 for a game not on Steam).
    pub app_id: u16,
    /// Players on the server, bots included.
    pub players: u8,
    /// The most players the server takes.
    pub max_players: u8,
    /// Bots on the server.
    pub bots: u8,
    /// `'d'` dedicated, `'l'` listen (non-dedicated), `'p'` SourceTV relay.
    pub server_type: u8,
    /// `'l'` Linux, `'w'` Windows, `'m'` or `'o'` macOS.
    pub environment: u8,
    /// 1 if a password is needed.
    pub visibility: u8,
    /// 1 if Valve Anti-Cheat is on.
    pub vac: u8,
    /// The game's version.
    #[rabbit(cstring)]
    pub version: String,
    /// The extra-data flag: which of the fields below follow.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "extra_data_flag(port, steam_id, spectator, keywords, game_id)")]
    pub extra_data: Computed<u8>,
    /// The game's port (EDF `0x80`).
    #[rabbit(if = "*extra_data & 0x80 != 0")]
    pub port: Option<u16>,
    /// The server's Steam id (EDF `0x10`).
    #[rabbit(if = "*extra_data & 0x10 != 0")]
    pub steam_id: Option<u64>,
    /// SourceTV's port and name (EDF `0x40`).
    #[rabbit(if = "*extra_data & 0x40 != 0")]
    pub spectator: Option<Spectator>,
    /// Tags that describe the game (EDF `0x20`).
    #[rabbit(if = "*extra_data & 0x20 != 0")]
    pub keywords: Option<CText>,
    /// The full 64-bit game id (EDF `0x01`); its low 24 bits are the app id.
    #[rabbit(if = "*extra_data & 0x01 != 0")]
    pub game_id: Option<u64>,
}

/// The EDF of the optional fields present.
fn extra_data_flag(
    port: &Option<u16>,
    steam_id: &Option<u64>,
    spectator: &Option<Spectator>,
    keywords: &Option<CText>,
    game_id: &Option<u64>,
) -> u8 {
    (u8::from(port.is_some()) << 7)
        | (u8::from(spectator.is_some()) << 6)
        | (u8::from(keywords.is_some()) << 5)
        | (u8::from(steam_id.is_some()) << 4)
        | u8::from(game_id.is_some())
}

/// SourceTV's address, in an [`InfoResponse`].
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little")]
pub struct Spectator {
    /// SourceTV's port.
    pub port: u16,
    /// SourceTV's name.
    #[rabbit(cstring)]
    pub name: String,
}

/// A C string on its own (a field of an option).
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct CText(#[rabbit(cstring)] pub String);

/// `A2S_PLAYER`: who is playing? The challenge is -1 to ask for one.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffU")]
pub struct PlayerRequest {
    /// The challenge, or -1.
    pub challenge: i32,
}

/// The `A2S_PLAYER` response.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffD")]
pub struct PlayerResponse {
    /// How many players follow.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "players.len() as u8")]
    pub count: Computed<u8>,
    /// The players.
    #[rabbit(to_end, max_len = 255)]
    pub players: Vec<Player>,
}

/// One player of a [`PlayerResponse`].
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little")]
pub struct Player {
    /// The player's slot (servers often send 0 for all).
    pub index: u8,
    /// The player's name.
    #[rabbit(cstring)]
    pub name: String,
    /// The player's score.
    pub score: i32,
    /// Seconds connected.
    pub duration: f32,
}

/// `A2S_RULES`: the server's settings. The challenge is -1 to ask for one.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffV")]
pub struct RulesRequest {
    /// The challenge, or -1.
    pub challenge: i32,
}

/// The `A2S_RULES` response.
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xff\xff\xff\xffE")]
pub struct RulesResponse {
    /// How many rules follow.
    #[cfg_attr(feature = "serde", serde(skip))]
    #[rabbit(computed = "rules.len() as u16")]
    pub count: Computed<u16>,
    /// The rules.
    #[rabbit(to_end, max_len = 65_535)]
    pub rules: Vec<Rule>,
}

/// One setting of a [`RulesResponse`].
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rule {
    /// The setting's name.
    #[rabbit(cstring)]
    pub name: String,
    /// Its value.
    #[rabbit(cstring)]
    pub value: String,
}

/// One part of a response split over several datagrams (Source's layout).
#[derive(Rabbit, Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[rabbit(endian = "little", magic = b"\xfe\xff\xff\xff")]
pub struct SplitHeader {
    /// The response's id, shared by its parts; the high bit marks a compressed response.
    pub id: u32,
    /// How many parts.
    pub total: u8,
    /// This part's number, from 0.
    pub number: u8,
    /// The largest part's size before splitting (1,248 by default).
    pub size: u16,
    /// This part's bytes.
    #[rabbit(to_end)]
    pub payload: Vec<u8>,
}
