//! R-TYPE (`context-rtype-rfc.txt`, "RFC 4242"): a TCP lobby in front of game instances, each
//! on a UDP port of its own, every message one [`Frame`](hopnet_formats::rtype::Frame) (LZ4
//! and four CRC32s) on either transport.
//!
//! - [`Instance`]: a game instance, a sans-I/O [`hopnet::Machine`]: players, their moves and
//!   bullets as SPRITEs, the CHECK count every second and the resync it may ask for,
//!   PING/PONG, QUIT/DEAD; its bullets go straight, one unit per [`GAME_TICK`]. It runs under hopnet's drivers and in its simulator.
//! - [`InstanceClient`]: a player, a sans-I/O machine too, that plays a list of moves the
//!   RFC's way: its ship's position predicted and corrected by the SPRITEs, CHECK to resync,
//!   never counting on a move being applied once (see [`client`](InstanceClient)'s docs).
//!   The other entities are shown between SPRITEs as the RFC's section 2.3 asks: those going
//!   straight carried on for a bounded time through hopnet-sync's interpolation part
//!   ([`DeadReckoning`]), and its position error measured ([`PositionError`]).
//! - [`LobbySession`]: the lobby, sans-I/O over a byte stream, with [`FrameReader`] cutting
//!   frames out of it and finding its way again after damaged bytes.
//! - [`Host`] (the server: the lobby on std TCP threads, each instance on its own thread and
//!   UDP socket under [`hopnet::Driver`]) and [`play`] (a client's session).
//!
//! PROTOCOL.md, "R-TYPE", says what the RFC leaves open and what we chose.
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use hopnet_protocols::rtype::{Entry, Host, HostConfig, SessionConfig, play};
//!
//! let host = Host::bind("127.0.0.1:0".parse()?, HostConfig::default())?;
//! let summary = play(&SessionConfig {
//!     lobby: host.local_addr(),
//!     entry: Entry::Create("arena".into()),
//!     moves: 20,
//!     deadline: Instant::now() + Duration::from_secs(30),
//!     impairment: None,
//!     extrapolation: Default::default(),
//! })?;
//! assert_eq!(summary.moves, 20);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod body;
mod client;
mod dead_reckoning;
mod frames;
mod host;
mod instance;
mod lobby;
mod position_error;
mod session;
mod stream;
mod world;

pub use body::{Listing, valid_name};
pub use client::{ClientStats, DEFAULT_RTO, InstanceClient, Phase, moves};
pub use dead_reckoning::{
    DEFAULT_CONVERGE, DEFAULT_MAX_EXTRAPOLATION, DeadReckoning, Extrapolation, MAX_KNOWN_ENTITIES,
    MIN_INTERVAL, Position, RUN,
};
pub use frames::{MAX_MESSAGE, MAX_OUTBOX, Rejected, decode, to_bytes};
pub use host::{
    EMPTY_INSTANCE_LIFETIME, Host, HostConfig, HostSummary, LOBBY_IDLE, MAX_INSTANCES,
    MAX_LOBBY_CONNECTIONS,
};
pub use instance::{CHECK_INTERVAL, GAME_TICK, Instance, InstanceStats, PLAYER_TIMEOUT};
pub use lobby::{CreateError, GAME, Instances, LobbySession};
pub use position_error::{ErrorSummary, MAX_ERROR_SAMPLES, PositionError};
pub use session::{
    Entry, SessionConfig, SessionError, SessionProgress, SessionSummary, play, play_tracked,
};
pub use stream::{FrameReader, MAX_STREAM_FRAME};
pub use world::{
    BULLET_TICKS, Entity, Flown, Kind, MAX_BULLETS_PER_PLAYER, MAX_ENTITIES, MAX_PLAYERS, World,
};
