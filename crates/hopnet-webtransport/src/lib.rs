//! Browsers join a hopnet server: WebTransport sessions carry hopnet's datagrams beside its UDP
//! clients, in one [`Server`](hopnet::proto::Server), one game.
//!
//! A browser cannot send UDP, but it can open a [WebTransport] session to a server whose
//! certificate it trusts and exchange unreliable datagrams in it. Here each such datagram is a
//! hopnet datagram, exactly what a UDP client sends: the spec's handshake, its chunks, ACKs and
//! retransmissions, every delivery mode and the extensions run unchanged inside the session,
//! and the game cannot tell a browser player from any other except by its address
//! ([`is_session_address`]). A hopnet client in the page (`web/src/hopnet/` in the
//! repository, TypeScript) speaks the same wire.
//!
//! - [`Server`]: the driver, hopnet's server over a UDP socket and WebTransport together; a
//!   [`ServerDriver`](hopnet::ServerDriver), so a game's loop written for UDP runs on it.
//! - [`Certificate`]: a self-signed ECDSA P-256 certificate of at most 14 days that a page
//!   trusts by its hash, or the operator's own.
//! - [`Site`]: the page and its scripts over HTTP from the same host, with the hash it needs.
//! - The WebSocket fallback: [`Server::serve_site`]'s port takes WebSockets on
//!   [`WEBSOCKET_PATH`] (`ws://host:port/hopnet`), each binary message one hopnet datagram, each
//!   socket a peer of the same endpoint as a session is ([`is_websocket_address`]);
//!   [`WebSocketClient`] is a [`ClientDriver`](hopnet::ClientDriver) over one. For browsers
//!   without WebTransport and networks that let no UDP through. Over TCP every delivery mode
//!   delivers every message, in order: unreliable messages arrive anyway, hopnet's ACKs still
//!   cost their bytes but its retransmissions never fire for loss, and a lost TCP segment holds
//!   up everything behind it until TCP resends it. A message is at most
//!   [`MAX_WEBSOCKET_MESSAGE`] bytes; a larger one, or a text message, closes that socket with
//!   the code that says why ([`WebSocketStats`] counts each).
//!
//! Sizes: a session's datagrams must hold the spec's 508-byte datagram (a browser's hold about
//! 1,200), or the session is refused. A connection that negotiates hopnet's extensions over
//! WebTransport must offer a datagram size its session carries: larger datagrams are dropped
//! and counted ([`WebStats::too_large`]).
//!
//! [WebTransport]: https://www.w3.org/TR/webtransport/

mod address;
mod certificate;
mod config;
mod error;
mod inlet;
mod peers;
mod server;
mod sessions;
mod site;
mod sockets;
mod stats;
mod udp;
mod upgrade;
mod web;
mod websocket;
mod websocket_client;

pub use address::{is_session_address, is_websocket_address};
pub use certificate::{Certificate, MAX_HASH_VALIDITY, Trust};
pub use config::WebTransportConfig;
pub use error::Error;
pub use server::Server;
pub use sessions::{CLOSE_DATAGRAMS_TOO_SMALL, CLOSE_HOPNET_ENDED, CLOSE_SERVER_STOPPED};
pub use site::{INFO_PATH, Site};
pub use stats::{WebSocketStats, WebStats};
pub use websocket::{MAX_WEBSOCKET_MESSAGE, SOCKET_QUEUE, WEBSOCKET_PATH, WRITE_TIMEOUT};
pub use websocket_client::WebSocketClient;
