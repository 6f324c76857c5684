//! hopnet's simulator under the plugins: one seeded, lossy [`SimNetwork`] in virtual time,
//! shared by a server app and any number of client apps, for deterministic tests of a game.
//!
//! [`SimNet`] is a handle to the network (cheap to clone); [`SimNet::server`] and
//! [`SimNet::client`] make the transports the server's and each client's app run on. The
//! network's clock follows the apps': a transport's `update` runs the network up to its app's
//! time, measured from the first frame it saw, so apps stepped together with the same manual
//! time (`TimeUpdateStrategy::ManualDuration`) share one virtual clock and the whole run is
//! the same for the same seed. Nothing is sent before the next `update` of any app: what a
//! frame queued leaves at the start of the next one.
//!
//! ```
//! use std::time::Duration;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use hopnet::sim::LinkConfig;
//! use hopnet_bevy::prelude::*;
//! use hopnet_bevy::sim::SimNet;
//!
//! let net = SimNet::new(7, hopnet::Config::default(), LinkConfig { loss: 0.2, ..default() });
//! let app = || {
//!     let mut app = App::new();
//!     app.add_plugins(MinimalPlugins)
//!         .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(10)));
//!     app
//! };
//! let mut server = app();
//! server
//!     .add_plugins(HopnetServerPlugin)
//!     .insert_resource(NetServer::new(net.server()));
//! let mut client = app();
//! client
//!     .add_plugins(HopnetClientPlugin)
//!     .insert_resource(NetClient::new(net.client(hopnet::Config::default())));
//! for _ in 0..300 {
//!     server.update();
//!     client.update();
//! }
//! assert!(client.world().resource::<NetClient>().is_connected());
//! assert_eq!(server.world().resource::<NetServer>().clients().count(), 1);
//! ```

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet::{Config, ConnectionId, Delivery, Error, Event, MessageId, ServerEvent};

use super::{ClientTransport, ConnectionStats, ServerTransport};

/// A simulated network shared by the apps of a test: one server, any number of clients.
#[derive(Clone, Debug)]
pub struct SimNet {
    network: Arc<Mutex<SimNetwork>>,
}

impl SimNet {
    /// A network whose server is configured with `server_config`, with `link` both ways;
    /// `seed` fixes every draw (loss, delay, the machines' salts).
    pub fn new(seed: u64, server_config: Config, link: LinkConfig) -> SimNet {
        SimNet {
            network: Arc::new(Mutex::new(SimNetwork::new(seed, server_config, link))),
        }
    }

    /// The server's transport, for [`NetServer::new`](crate::NetServer::new).
    pub fn server(&self) -> SimServer {
        SimServer {
            net: self.clone(),
            clock: Clock::default(),
        }
    }

    /// A new client that starts connecting now: its transport, for
    /// [`NetClient::new`](crate::NetClient::new).
    pub fn client(&self, config: Config) -> SimClient {
        let index = self.lock().add_client(config);
        SimClient {
            net: self.clone(),
            index,
            clock: Clock::default(),
        }
    }

    /// Runs `f` on the network itself: its statistics, its links
    /// ([`SimNetwork::set_uplink`]), datagrams to inject, or time to step by hand.
    pub fn with<R>(&self, f: impl FnOnce(&mut SimNetwork) -> R) -> R {
        f(&mut self.lock())
    }

    fn lock(&self) -> MutexGuard<'_, SimNetwork> {
        // A test that panicked while holding the lock left the network as it was: go on.
        self.network.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One app's view of the network's clock: the app's instant and the network's at the first
/// frame, so that virtual time runs as the app's time does from there.
#[derive(Debug, Default)]
struct Clock {
    anchor: Option<(Instant, Instant)>,
}

impl Clock {
    /// Runs `net` up to the app's `now`, unless another app already took it further.
    fn advance(&mut self, net: &mut SimNetwork, now: Instant) {
        let (app, virtual_start) = *self.anchor.get_or_insert((now, net.now()));
        let target = virtual_start + now.saturating_duration_since(app);
        if target > net.now() {
            net.step(target - net.now());
        }
    }
}

/// The server of a [`SimNet`], as a [`ServerTransport`].
#[derive(Debug)]
pub struct SimServer {
    net: SimNet,
    clock: Clock,
}

impl ServerTransport for SimServer {
    fn update(&mut self, now: Instant) -> Result<(), Error> {
        self.clock.advance(&mut self.net.lock(), now);
        Ok(())
    }

    fn poll_event(&mut self) -> Option<ServerEvent> {
        self.net.lock().server().poll_event()
    }

    fn send(
        &mut self,
        client: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.net.lock().server().send(client, bytes, delivery)
    }

    fn send_tracked(&mut self, client: ConnectionId, bytes: &[u8]) -> Result<MessageId, Error> {
        self.net.lock().server().send_tracked(client, bytes)
    }

    fn close(&mut self, client: ConnectionId) -> Result<(), Error> {
        self.net.lock().server().close(client)
    }

    fn recycle(&mut self, bytes: Vec<u8>) {
        self.net.lock().server().recycle(bytes);
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        // The network sends what the machines queued when it next runs.
        Ok(())
    }

    fn stats(&mut self, client: ConnectionId) -> Option<ConnectionStats> {
        self.net
            .lock()
            .server()
            .stats(client)
            .map(ConnectionStats::from)
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        Some(self.net.lock().server_addr())
    }
}

/// A client of a [`SimNet`], as a [`ClientTransport`].
#[derive(Debug)]
pub struct SimClient {
    net: SimNet,
    index: usize,
    clock: Clock,
}

impl SimClient {
    /// The client's index in the network ([`SimNetwork::client`]).
    pub fn index(&self) -> usize {
        self.index
    }
}

impl ClientTransport for SimClient {
    fn update(&mut self, now: Instant) -> Result<(), Error> {
        self.clock.advance(&mut self.net.lock(), now);
        Ok(())
    }

    fn poll_event(&mut self) -> Option<Event> {
        self.net.lock().client(self.index).poll_event()
    }

    fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.net.lock().client(self.index).send(bytes, delivery)
    }

    fn send_tracked(&mut self, bytes: &[u8]) -> Result<MessageId, Error> {
        self.net.lock().client(self.index).send_tracked(bytes)
    }

    fn close(&mut self, _now: Instant) {
        self.net.lock().client(self.index).close();
    }

    fn recycle(&mut self, bytes: Vec<u8>) {
        self.net.lock().client(self.index).recycle(bytes);
    }

    fn flush(&mut self, _now: Instant) -> Result<(), Error> {
        Ok(())
    }

    fn stats(&mut self) -> ConnectionStats {
        self.net.lock().client(self.index).stats().into()
    }

    fn local_addr(&self) -> Option<SocketAddr> {
        Some(self.net.lock().client_addr(self.index))
    }
}
