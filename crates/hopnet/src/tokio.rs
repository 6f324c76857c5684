//! An async driver over `::tokio::net::UdpSocket` (feature `tokio`).
//!
//! [`Server::recv`] and [`Client::recv`] run the protocol (receive, timers, send)
//! until the next event and return it; `send` queues a message and flushes (`queue` and the
//! machine's `send` only queue). Both are cancel-safe: a `recv` dropped in a `select!` loses no
//! datagram, because the socket read is the only await point that consumes input.
//!
//! It sends and receives as the blocking driver ([`crate::Server`], [`crate::Client`]) does, through the same
//! code (`send.rs`, `recv.rs`); only the waiting is tokio's. As there, [`Server`],
//! [`Client`] and [`Driver`] are one generic type, [`Endpoint`], over what it runs: what
//! they share is written once.
//!
//! ```no_run
//! # async fn demo() -> Result<(), hopnet::Error> {
//! use hopnet::tokio::Client;
//! use hopnet::{Config, Delivery, Event};
//!
//! let mut client = Client::connect("127.0.0.1:7000".parse().unwrap(), Config::default()).await?;
//! while let Event::Connected = client.recv().await? {
//!     client.send(b"hello", Delivery::Reliable).await?;
//!     break;
//! }
//! # Ok(()) }
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ::tokio::net::{ToSocketAddrs, UdpSocket};

use super::Endpoint;
use super::local_address::{any_local, first_server};

use super::endpoint::{AnyMachine, ClientMachine, ClientRole, Role, ServerMachine, ServerRole};
use hopnet_proto::Machine;
use hopnet_proto::secure::{ConnectToken, Key, NetcodeServerConfig};
use hopnet_proto::{Config, ConnectionId, Delivery, Error, Event, ServerEvent};

mod driver;

use super::endpoint::Loop;
use driver::IDLE;
pub use driver::Tokio;

/// How a tokio driver waits: its rounds are `async`.
impl<R: Role> Endpoint<R, Tokio> {
    /// Runs `machine` on `socket`.
    fn on(socket: UdpSocket, machine: R::Machine) -> Result<Endpoint<R, Tokio>, Error> {
        Ok(Endpoint {
            driver: Loop::<Tokio, _>::new(socket, machine)?,
        })
    }

    /// One round: sends what is due, then waits at most `max_wait` for a datagram or the
    /// machine's next deadline, and handles it.
    pub async fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        self.driver.round(max_wait).await
    }

    /// Sends what is queued, as far as the congestion window allows, waiting for room in the
    /// socket.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }

    /// Runs rounds until `next` takes an event from the machine, or `closed` says that none
    /// will come.
    async fn next_event<E>(
        &mut self,
        next: impl Fn(&mut R::App) -> Option<E>,
        closed: impl Fn(&R::App) -> bool,
    ) -> Result<E, Error> {
        loop {
            let app = self.machine();
            if let Some(e) = next(app) {
                return Ok(e);
            }
            if closed(app) {
                return Err(Error::Closed);
            }
            self.driver.round(IDLE).await?;
        }
    }
}

/// A server endpoint on a tokio UDP socket, on the spec's wire ([`bind`](Self::bind)) or in
/// secure mode ([`bind_secure`](Self::bind_secure)).
pub type Server = Endpoint<ServerRole, Tokio>;

/// What a [`Server`] adds to every driver.
impl Endpoint<ServerRole, Tokio> {
    /// Binds and starts accepting connections.
    pub async fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let machine = ServerMachine::plain(hopnet_proto::Server::new(config));
        Server::on(UdpSocket::bind(addr).await?, machine)
    }

    /// Binds and serves hopnet over netcode 1.02: only clients with a connect token sealed
    /// under `private_key` for `protocol_id`, naming this server's bound address, connect (see
    /// [`crate::Server::bind_secure`]).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use hopnet::tokio::Server;
    /// use hopnet::secure::Key;
    /// use hopnet::{Config, Event};
    ///
    /// let key = Key::read_file("server.key")?;
    /// let mut server = Server::bind_secure("127.0.0.1:40000", Config::default(), 0x1234, key).await?;
    /// loop {
    ///     let e = server.recv().await?;
    ///     if let Event::Message { bytes, .. } = e.event {
    ///         let player = server.secure().and_then(|s| s.client_id(e.connection));
    ///         println!("{} bytes from player {player:?}", bytes.len());
    ///     }
    /// }
    /// # }
    /// ```
    pub async fn bind_secure(
        addr: impl ToSocketAddrs,
        config: Config,
        protocol_id: u64,
        private_key: Key,
    ) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr).await?;
        let local = socket.local_addr()?;
        let machine = ServerMachine::new_secure(local, config, protocol_id, private_key)?;
        Server::on(socket, machine)
    }

    /// [`bind_secure`](Self::bind_secure) with every netcode setting (see
    /// [`crate::Server::bind_secure_with`]).
    pub async fn bind_secure_with(
        addr: impl ToSocketAddrs,
        config: Config,
        netcode: NetcodeServerConfig,
    ) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr).await?;
        let machine = ServerMachine::new_secure_with(config, netcode)?;
        Server::on(socket, machine)
    }

    /// Runs the protocol until the next event on any connection.
    pub async fn recv(&mut self) -> Result<ServerEvent, Error> {
        self.next_event(hopnet_proto::Server::poll_event, |_| false)
            .await
    }

    /// Queues a message and flushes: it leaves now, with whatever else is queued, as far as
    /// the congestion window allows. The [`machine`](Self::machine)'s `send` and
    /// [`queue`](Self::queue) only queue.
    pub async fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.queue(id, bytes, delivery)?;
        self.flush().await
    }

    /// Closes a connection and flushes (its `END` leaves now).
    pub async fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.machine().close(id)?;
        self.flush().await
    }
}

/// A client connection on a tokio UDP socket, on the spec's wire
/// ([`connect`](Self::connect)) or in secure mode ([`connect_secure`](Self::connect_secure)).
pub type Client = Endpoint<ClientRole, Tokio>;

/// What a [`Client`] adds to every driver.
impl Endpoint<ClientRole, Tokio> {
    /// Binds an ephemeral port and starts the handshake; the first event will be
    /// [`Event::Connected`] (or `Disconnected` on timeout).
    pub async fn connect(server: SocketAddr, config: Config) -> Result<Client, Error> {
        let conn = hopnet_proto::Client::new(config, server, Instant::now());
        Client::start(any_local(server), ClientMachine::plain(conn)).await
    }

    /// Binds an ephemeral port of the family of the token's first server and connects in
    /// secure mode (see
    /// [`crate::Client::connect_secure`]); the
    /// first event will be [`Event::Connected`] (or `Disconnected` when no server accepted).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use hopnet::tokio::Client;
    /// use hopnet::secure::ConnectToken;
    /// use hopnet::{Config, Delivery, Event};
    ///
    /// let token = ConnectToken::from_bytes(&std::fs::read("client.token")?)?;
    /// let mut client = Client::connect_secure(token, Config::default()).await?;
    /// if let Event::Connected = client.recv().await? {
    ///     client.send(b"hello", Delivery::Reliable).await?;
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn connect_secure(token: ConnectToken, config: Config) -> Result<Client, Error> {
        let local = any_local(first_server(&token)?);
        Client::start(local, ClientMachine::new_secure(config, token)?).await
    }

    /// Binds `local` and sends the machine's first datagram.
    async fn start(local: SocketAddr, machine: ClientMachine) -> Result<Client, Error> {
        let mut client = Client::on(UdpSocket::bind(local).await?, machine)?;
        client.flush().await?;
        Ok(client)
    }

    /// Runs the protocol until the next event. After `Disconnected`, returns
    /// [`Error::Closed`], or [`Error::Handshake`] if the connection never got past its
    /// handshake (what was tried, and which step the server never answered).
    pub async fn recv(&mut self) -> Result<Event, Error> {
        match self
            .next_event(
                hopnet_proto::Client::poll_event,
                hopnet_proto::Client::is_closed,
            )
            .await
        {
            Err(Error::Closed) => Err(self.machine().closed_error()),
            other => other,
        }
    }

    /// Queues a message and flushes: it leaves now, with whatever else is queued, as far as
    /// the congestion window allows. The [`machine`](Self::machine)'s `send` and
    /// [`queue`](Self::queue) only queue.
    pub async fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.queue(bytes, delivery)?;
        self.flush().await
    }

    /// Closes the connection and flushes (its `END` leaves now).
    pub async fn close(&mut self) -> Result<(), Error> {
        self.machine().close();
        self.flush().await
    }
}

/// Any [`Machine`] on a tokio UDP socket: the async form of
/// [`crate::Driver`], for a wire other than Snow Fight's.
///
/// [`poll`](Endpoint::poll) is one round (what is due sent, then a datagram or a deadline
/// handled); read the machine's events through [`machine`](Endpoint::machine) between rounds.
/// It is cancel-safe as [`Client::recv`] is.
pub type Driver<M> = Endpoint<AnyMachine<M>, Tokio>;

/// What a tokio [`Driver`] adds to every driver: it is made from its machine.
impl<M: Machine> Endpoint<AnyMachine<M>, Tokio> {
    /// Runs `machine` on a socket bound to `addr`.
    pub async fn bind(addr: impl ToSocketAddrs, machine: M) -> Result<Driver<M>, Error> {
        Driver::new(UdpSocket::bind(addr).await?, machine)
    }

    /// Runs `machine` on `socket`.
    pub fn new(socket: UdpSocket, machine: M) -> Result<Driver<M>, Error> {
        Driver::on(socket, machine)
    }
}
