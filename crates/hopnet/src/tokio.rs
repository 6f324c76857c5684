//! An async driver over `::tokio::net::UdpSocket` (feature `tokio`).
//!
//! [`Server::recv`] and [`Client::recv`] run the protocol (receive, timers, send)
//! until the next event and return it; `send` queues a message and writes what the
//! congestion window allows. Both are cancel-safe: a `recv` dropped in a `select!` loses no
//! datagram, because the socket read is the only await point that consumes input.
//!
//! It sends and receives as the blocking driver ([`crate::Server`], [`crate::Client`]) does, through the same
//! code (see [`io`](super)); only the waiting is tokio's.
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

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ::tokio::io::Interest;
use ::tokio::net::{ToSocketAddrs, UdpSocket};

use super::machines::{ClientMachine, ServerMachine};
use super::port::Port;
use super::recv::{RECV_SLOTS, is_transient};
use super::{Driven, any_local, first_server};
use hopnet_proto::Machine;
use hopnet_proto::secure::{ConnectToken, Key, NetcodeServerConfig};
use hopnet_proto::{Config, Error, Event, ServerEvent};

/// How long `recv` sleeps when the machine has no deadline at all (a closed connection).
const IDLE: Duration = Duration::from_secs(3600);

#[derive(Debug)]
struct Loop<M> {
    port: Port<UdpSocket, M>,
}

impl<M: Machine> Loop<M> {
    fn new(socket: UdpSocket, machine: M) -> Result<Loop<M>, Error> {
        // The socket is already non-blocking.
        Ok(Loop {
            port: Port::new(socket, machine)?,
        })
    }

    /// Sends what is due, waiting for room in the socket when it is full.
    async fn flush(&mut self) -> Result<(), Error> {
        while !self.port.flush(Instant::now()) {
            self.port.socket.writable().await?;
        }
        Ok(())
    }

    /// Reads what the socket holds (one `recvmmsg`) into the machine.
    fn receive(&mut self) -> io::Result<()> {
        let Port {
            socket,
            state,
            recv,
            ..
        } = &mut self.port;
        let read = socket.try_io(Interest::READABLE, || {
            recv.recv(state, (&*socket).into(), RECV_SLOTS)
        });
        match read {
            Ok(filled) => {
                self.port.deliver(filled, Instant::now());
                Ok(())
            }
            Err(e) if is_transient(&e) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// One round: sends what is due, then waits for a datagram or the next deadline (at most
    /// `max_wait`) and hands it to the machine.
    async fn round(&mut self, max_wait: Duration) -> Result<(), Error> {
        self.flush().await?;
        let limit = Instant::now() + max_wait;
        let deadline = self.port.next_deadline().map_or(limit, |t| t.min(limit));
        ::tokio::select! {
            r = self.port.socket.readable() => {
                r?;
                self.receive()?;
            }
            _ = ::tokio::time::sleep_until(deadline.into()) => {
                self.port.run_timers(Instant::now());
            }
        }
        Ok(())
    }
}

impl<M: Driven> Loop<M> {
    async fn next_event(&mut self, closed: impl Fn(&M) -> bool) -> Result<M::Event, Error> {
        loop {
            if let Some(e) = self.port.machine.poll_event() {
                return Ok(e);
            }
            if closed(&self.port.machine) {
                return Err(Error::Closed);
            }
            self.round(IDLE).await?;
        }
    }
}

/// A server endpoint on a tokio UDP socket, on the spec's wire ([`bind`](Self::bind)) or in
/// secure mode ([`bind_secure`](Self::bind_secure)).
#[derive(Debug)]
pub struct Server {
    driver: Loop<ServerMachine>,
}

impl Server {
    /// Binds and starts accepting connections.
    pub async fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let machine = ServerMachine::Plain(hopnet_proto::Server::new(config));
        Ok(Server {
            driver: Loop::new(UdpSocket::bind(addr).await?, machine)?,
        })
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
        Ok(Server {
            driver: Loop::new(socket, machine)?,
        })
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
        Ok(Server {
            driver: Loop::new(socket, machine)?,
        })
    }

    server_methods!(async, .await);

    /// Runs the protocol until the next event on any connection.
    pub async fn recv(&mut self) -> Result<ServerEvent, Error> {
        self.driver.next_event(|_| false).await
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }
}

/// A client connection on a tokio UDP socket, on the spec's wire
/// ([`connect`](Self::connect)) or in secure mode ([`connect_secure`](Self::connect_secure)).
#[derive(Debug)]
pub struct Client {
    driver: Loop<ClientMachine>,
}

impl Client {
    /// Binds an ephemeral port and starts the handshake; the first event will be
    /// [`Event::Connected`] (or `Disconnected` on timeout).
    pub async fn connect(server: SocketAddr, config: Config) -> Result<Client, Error> {
        let mut driver = Loop::new(
            UdpSocket::bind(any_local(server)).await?,
            ClientMachine::Plain(hopnet_proto::Client::new(config, server, Instant::now())),
        )?;
        driver.flush().await?;
        Ok(Client { driver })
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
        let socket = UdpSocket::bind(any_local(first_server(&token)?)).await?;
        let mut driver = Loop::new(socket, ClientMachine::new_secure(config, token)?)?;
        driver.flush().await?;
        Ok(Client { driver })
    }

    client_methods!(async, .await);

    /// Runs the protocol until the next event. After `Disconnected`, returns
    /// [`Error::Closed`], or [`Error::Handshake`] if the connection never got past its
    /// handshake (what was tried, and which step the server never answered).
    pub async fn recv(&mut self) -> Result<Event, Error> {
        match self.driver.next_event(ClientMachine::is_closed).await {
            Err(Error::Closed) => Err(self.machine().closed_error()),
            other => other,
        }
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }
}

/// Any [`Machine`] on a tokio UDP socket: the async form of
/// [`crate::Driver`], for a wire other than Snow Fight's.
///
/// [`poll`](Self::poll) is one round (what is due sent, then a datagram or a deadline
/// handled); read the machine's events through [`machine`](Self::machine) between rounds. It
/// is cancel-safe as [`Client::recv`] is.
#[derive(Debug)]
pub struct Driver<M> {
    driver: Loop<M>,
}

impl<M: Machine> Driver<M> {
    /// Runs `machine` on a socket bound to `addr`.
    pub async fn bind(addr: impl ToSocketAddrs, machine: M) -> Result<Driver<M>, Error> {
        Driver::new(UdpSocket::bind(addr).await?, machine)
    }

    /// Runs `machine` on `socket`.
    pub fn new(socket: UdpSocket, machine: M) -> Result<Driver<M>, Error> {
        Ok(Driver {
            driver: Loop::new(socket, machine)?,
        })
    }

    /// The machine, for its application side (events, sends).
    pub fn machine(&mut self) -> &mut M {
        &mut self.driver.port.machine
    }

    /// One round: sends what is due, then waits at most `max_wait` for a datagram or the
    /// machine's next deadline, and handles it.
    pub async fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        self.driver.round(max_wait).await
    }

    /// Sends what the machine has to send now, waiting for room in the socket.
    pub async fn flush(&mut self) -> Result<(), Error> {
        self.driver.flush().await
    }

    socket_methods!();
}
