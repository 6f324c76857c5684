//! A seeded, simulated network: a virtual clock, one server and any number of client
//! [`Client`](crate::Client)s joined by lossy links. Fully deterministic for a seed, and
//! fast: time jumps from one event (a delivery or a timer) to the next, so a minute of virtual
//! traffic costs only the work of its datagrams.
//!
//! It is public so that applications can test themselves over it: run a game server and bots,
//! drain their events between [`step`](SimNetwork::step)s, and assert on what arrived.
//!
//! - [`SimNetwork`]: the network, its clock and its event loop; its server is an
//!   [`Server`](crate::Server) or any [`Machine`](crate::Machine) of your own, its clients
//!   [`Client`](crate::Client)s or any other machine; [`SimNetwork::secure`] runs a
//!   secure server and secure clients (hopnet over netcode 1.02);
//! - [`Pair`]: one client and one server, connected over an instant link: the harness for tests
//!   of one connection;
//! - [`LinkConfig`]: what a link does to datagrams (loss, duplication, delay, jitter,
//!   reordering, corruption, a bottleneck).
//!
//! ```
//! use std::time::Duration;
//! use hopnet_proto::sim::{LinkConfig, SimNetwork};
//! use hopnet_proto::{Config, Delivery, ServerEvent, Event};
//!
//! let link = LinkConfig { loss: 0.2, ..LinkConfig::default() };
//! let mut net = SimNetwork::new(7, Config::default(), link);
//! let bot = net.add_client(Config::default());
//! assert!(net.run_until(Duration::from_secs(30), |n| n.client(bot).is_connected()));
//! net.client(bot).send(b"hello", Delivery::Reliable).unwrap();
//! let mut got = None;
//! net.run_until(Duration::from_secs(30), |n| {
//!     while let Some(ServerEvent { event, .. }) = n.server().poll_event() {
//!         if let Event::Message { bytes, .. } = event {
//!             got = Some(bytes);
//!         }
//!     }
//!     got.is_some()
//! });
//! assert_eq!(got.as_deref(), Some(&b"hello"[..]));
//! ```

mod link;
mod network;
mod pair;

pub use link::{LinkConfig, SimStats};
pub use network::{Batch, SimNetwork};
pub use pair::Pair;
