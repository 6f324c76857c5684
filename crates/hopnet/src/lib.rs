//! Reliable UDP for games: the drivers that run hopnet's protocol over real sockets.
//!
//! Messages of up to 129,024 bytes are split into 504-byte chunks, framed with a 4-byte header
//! `[flags, chunk, sequence_hi, sequence_lo]`, and sent; reliable chunks are acknowledged one by
//! one and retransmitted on an adaptive timer (RFC 6298) under a congestion window. A connection
//! starts with the `Init` / `Challenge` / `ChallengeResponse` handshake and ends with `END` or
//! 15 s of silence. Each message has its [`Delivery`]: unreliable, sequenced, reliable,
//! reliable ordered, semi-ordered, or tracked. Two ends whose configurations enable them agree
//! on hopnet's extensions to the spec's wire (batching, acknowledgement ranges, a CRC-32, LZ4, a
//! larger datagram, receiver-side ordering), invisibly to a peer without them. PROTOCOL.md
//! records every choice the spec leaves open.
//!
//! Two layers, as `quinn` over `quinn-proto`: the protocol is a pair of state machines without
//! I/O in the crate `hopnet-proto` (re-exported as [`proto`]; its simulator as [`sim`]), and this
//! crate holds the drivers that run them over UDP:
//!
//! - [`Server`] and [`Client`]: a blocking-with-deadline driver over `std::net::UdpSocket`,
//!   polled once per game tick or in a loop; `tokio::Server` and `tokio::Client` the same
//!   over tokio (feature `tokio`). Call `poll`, then drain `poll_event`; the machine underneath
//!   ([`Server::machine`]) is where statistics, the connection list and shared payloads live.
//! - Secure mode ([`secure`]; PROTOCOL.md, "Secure mode"), hopnet over netcode 1.02: the same
//!   types, made with [`Server::bind_secure`] (the key your backend seals connect tokens with,
//!   [`secure::ConnectTokenBuilder`]) and [`Client::connect_secure`] (a token).
//! - [`ServerBuilder`] and [`WorkerServer`] (Unix): a server on several cores, its connections
//!   spread over worker threads, each a [`Server`](hopnet_proto::Server) machine on a socket of
//!   its own (`SO_REUSEPORT` on Linux, or one socket sharded by address), behind one handle
//!   for the game's events and sends; one worker is the [`Server`] above.
//! - [`Driver`]: any [`Machine`] of another wire on a UDP socket, with the same batching.
//! - A bad link between real sockets: an [`Impairment`] on a driver's own outgoing datagrams, or
//!   a [`relay::Relay`] thread between unmodified processes.
//! - [`SideChannel`]: another protocol's datagrams (server queries, say) on a server's socket.
//! - [`record`]: what a driver's machine exchanges, recorded to pcapng
//!   ([`Endpoint::record`]); [`replay`]: a recording fed back to a machine offline;
//!   [`StatsSeries`]: a connection's statistics over time.
//!
//! `send` on a driver queues the message on the machine and flushes at once; `queue` only
//! queues (the machine's `send`), for several messages that should leave together.
//!
//! ```no_run
//! use std::time::Duration;
//! use hopnet::{Client, Config, Delivery, Event, Server, ServerEvent};
//!
//! let mut server = Server::bind("127.0.0.1:7777", Config::default())?;
//! let mut client = Client::connect(server.local_addr()?, Config::default())?;
//! client.send(b"hello", Delivery::Reliable)?;
//! loop {
//!     server.poll(Duration::ZERO)?;
//!     client.poll(Duration::from_millis(5))?;
//!     if let Some(ServerEvent { event: Event::Message { bytes, .. }, .. }) = server.poll_event() {
//!         assert_eq!(bytes, b"hello");
//!         break;
//!     }
//! }
//! # Ok::<(), hopnet::Error>(())
//! ```
//!
//! # Two verbs
//!
//! A machine's `send` only queues: nothing leaves until a driver flushes. A driver's `send`
//! queues and flushes, so the message leaves now; its `queue` is the machine's `send`. A tick
//! that produces several messages queues them all (on the driver or its
//! [`machine`](Endpoint::machine)) and flushes once, or lets the next `poll` send them: they
//! leave in fewer system calls.
//!
//! # Secure mode
//!
//! Every driver's server and client also runs hopnet over netcode 1.02 ([`secure`],
//! PROTOCOL.md "Secure mode"), chosen when it is made, as renet's netcode transport is chosen by
//! its `ServerAuthentication` / `ClientAuthentication`: a server binds with the private key it
//! shares with the backend that issues connect tokens (`bind_secure`), a client connects with
//! a token (`connect_secure`). Everything after that is the same calls on the same
//! [`Server`](hopnet_proto::Server) and [`Client`](hopnet_proto::Client); `secure()` gives the
//! netcode side (a client's id and user data from its token, the counters of dropped packets).
//!
//! ```no_run
//! use std::time::{Duration, SystemTime};
//! use hopnet::{Client, Server};
//! use hopnet::secure::{ConnectTokenBuilder, Key};
//! use hopnet::{Config, Delivery};
//!
//! const PROTOCOL_ID: u64 = 0x6d79_6761_6d65; // the game's, shared with the backend
//! let key = Key::read_file("server.key")?;   // 64 hex characters, shared with the backend
//! let mut server = Server::bind_secure("127.0.0.1:40000", Config::default(), PROTOCOL_ID, key.clone())?;
//!
//! // The backend, once it has authenticated player 42, issues a token (sent over HTTPS):
//! let token = ConnectTokenBuilder::new(PROTOCOL_ID, 42, [server.local_addr()?])
//!     .issue(&key, SystemTime::now())?;
//! // The player's client connects with it.
//! let mut client = Client::connect_secure(token, Config::default())?;
//! client.send(b"queued until connected", Delivery::Reliable)?;
//! while !client.machine().is_connected() {
//!     server.poll(Duration::ZERO)?;
//!     client.poll(Duration::from_millis(5))?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Both drivers send and receive the same way (batched through `quinn-udp`: GSO sends, GRO and
//! `recvmmsg` receives, one reused buffer each way, one policy for a full or refusing socket,
//! in `send.rs`); they differ only in how they wait.
//!
//! | File | Rule |
//! |---|---|
//! | `endpoint.rs` | the one driver type, generic over what it runs and how it waits: what every driver has; the roles (server, client, any machine) and what of each the application drives; the plain machine or its secure form behind a server's side channel (the drivers' one dispatcher); a machine on a socket, what the two drivers share but how they wait |
//! | `blocking/`, `tokio.rs` (and `tokio/`) | the two ways of waiting, each with its constructors and `send` |
//! | `carrier.rs` | `Carrier`, `ServerDriver` / `ClientDriver`: what a tick loop needs of any carrier's driver |
//! | `send.rs` | the drivers' one send policy (sendto, GSO, full socket, refused batch), lone datagrams to many destinations gathered into one `sendmmsg`, the socket's three ways to send and its GSO batch size |
//! | `send/tests.rs` | its unit tests, against a socket that records what it is asked |
//! | `recv.rs` | batched receive |
//! | `socket.rs` | socket setup: buffers, GRO, what the kernel attaches to received datagrams |
//! | `socket_stats.rs`, `local_address.rs` | the socket's counters; a client's local address for its server's family |
//! | `side_channel.rs` | another protocol's datagrams on a driver server's socket |
//! | `workers/` | a server on worker threads: the builder and the two ways datagrams reach a worker (`SO_REUSEPORT`, one socket sharded by address), ids naming their worker, waking a sleeping worker, a worker's loop, their counters (its `mod.rs` has the table) |
//! | `relay.rs` | a lossy UDP relay thread between real processes |
//! | `record.rs`, `record/` | recording what crosses a machine's boundary to rotated pcapng: the recorder, the tap a driver puts around its machine, the synthesized IP and UDP headers, secure mode's decrypted datagrams, a file read back |
//! | `replay.rs` | a recording fed to a fresh machine offline |
//! | `stats_series.rs` | connections' statistics sampled into bounded rings |

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod blocking;
mod carrier;
mod endpoint;
mod local_address;
pub mod record;
mod recv;
pub mod relay;
pub mod replay;
mod send;
mod side_channel;
mod socket;
mod socket_stats;
mod stats_series;
#[cfg(feature = "tokio")]
pub mod tokio;
#[cfg(unix)]
pub mod workers;

pub use blocking::{BUSY_POLL, Blocking, Client, Driver, Server};
pub use carrier::{Carrier, ClientDriver, ServerDriver};
pub use endpoint::{AnyMachine, ClientRole, Endpoint, Role, ServerRole, Wait};
pub use hopnet_proto::impairment::Impairment;
pub use side_channel::{MAX_SIDE_DATAGRAM, SIDE_QUEUE, SideChannel, SideChannelStats};
pub use socket_stats::SocketStats;
pub use stats_series::{StatsSample, StatsSeries};
#[cfg(unix)]
pub use workers::{ServerBuilder, Spread, WorkerServer};

/// The protocol without I/O, the `hopnet-proto` crate: the state machines these drivers run
/// ([`proto::Server`], [`proto::Client`]), for a loop of your own or a look inside.
pub use hopnet_proto as proto;
pub use hopnet_proto::{
    CHUNK_SIZE, Config, ConfigBuilder, ConnectionId, Delivery, DisconnectReason, Error, Event,
    Extensions, HEADER_LEN, HandshakeFailure, MAX_CHUNKS, MAX_PAYLOAD, Machine, MessageId, Payload,
    SPEC_DATAGRAM, ServerEvent, ServerStats, Stats, Transmit,
};
pub use hopnet_proto::{MismatchKind, SchemaFingerprint, SchemaMismatch};
pub use hopnet_proto::{engine, secure, sim};
