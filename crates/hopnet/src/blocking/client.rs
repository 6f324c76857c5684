//! What a blocking [`Client`] adds to every driver: connecting (plain or secure), the sends,
//! and waiting for the connection.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use super::Blocking;
use crate::carrier::ClientDriver;
use crate::endpoint::Endpoint;
use crate::endpoint::{ClientMachine, ClientRole};
use crate::local_address::{any_local, first_server};
use crate::record::RecordConfig;
use hopnet_proto::secure::ConnectToken;
use hopnet_proto::{Config, Delivery, Error};

/// A client: a [`Client`](hopnet_proto::Client) machine on its own UDP socket, on the spec's wire
/// ([`connect`](Self::connect)) or in secure mode ([`connect_secure`](Self::connect_secure)).
pub type Client = Endpoint<ClientRole, Blocking>;

/// What a [`Client`] adds to every driver.
impl Endpoint<ClientRole, Blocking> {
    /// Binds an ephemeral port of the server's address family and starts the handshake.
    pub fn connect(server: SocketAddr, config: Config) -> Result<Client, Error> {
        Self::connect_from(any_local(server), server, config)
    }

    /// Binds `local` and starts the handshake with `server`.
    pub fn connect_from(
        local: SocketAddr,
        server: SocketAddr,
        config: Config,
    ) -> Result<Client, Error> {
        let conn = hopnet_proto::Client::new(config, server, Instant::now());
        Self::start(local, ClientMachine::plain(conn), None)
    }

    /// [`connect`](Self::connect), recording from the first datagram on (see
    /// [`record`](Self::record), which, called after `connect`, misses the handshake's
    /// first datagram: it leaves at once).
    ///
    /// ```no_run
    /// use hopnet::record::RecordConfig;
    /// use hopnet::{Client, Config};
    ///
    /// let server = "127.0.0.1:7000".parse()?;
    /// let client = Client::connect_recorded(server, Config::default(), RecordConfig::new("client.pcapng"))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn connect_recorded(
        server: SocketAddr,
        config: Config,
        record: RecordConfig,
    ) -> Result<Client, Error> {
        let conn = hopnet_proto::Client::new(config, server, Instant::now());
        Self::start(any_local(server), ClientMachine::plain(conn), Some(record))
    }

    /// Binds an ephemeral port of the address family of the token's first server and connects
    /// in secure mode (netcode 1.02, PROTOCOL.md "Secure mode"), trying the token's servers in
    /// order. Messages sent before the connection opens behave as during a plain handshake:
    /// reliable ones wait and go out once connected, unreliable ones are dropped.
    ///
    /// ```no_run
    /// use hopnet::Client;
    /// use hopnet::secure::ConnectToken;
    /// use hopnet::Config;
    ///
    /// // The 2,048 bytes the game's backend issued, fetched over HTTPS.
    /// let bytes = std::fs::read("client.token")?;
    /// let mut client = Client::connect_secure(ConnectToken::from_bytes(&bytes)?, Config::default())?;
    /// client.wait_connected()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn connect_secure(token: ConnectToken, config: Config) -> Result<Client, Error> {
        let first = first_server(&token)?;
        Self::connect_secure_from(any_local(first), token, config)
    }

    /// Binds `local` and connects in secure mode with `token` (see
    /// [`connect_secure`](Self::connect_secure)).
    pub fn connect_secure_from(
        local: SocketAddr,
        token: ConnectToken,
        config: Config,
    ) -> Result<Client, Error> {
        Self::start(local, ClientMachine::new_secure(config, token)?, None)
    }

    /// [`connect_secure`](Self::connect_secure), recording from the first datagram on (see
    /// [`connect_recorded`](Self::connect_recorded)).
    pub fn connect_secure_recorded(
        token: ConnectToken,
        config: Config,
        record: RecordConfig,
    ) -> Result<Client, Error> {
        let local = any_local(first_server(&token)?);
        Self::start(
            local,
            ClientMachine::new_secure(config, token)?,
            Some(record),
        )
    }

    /// Binds `local`, starts recording if asked, and sends the machine's first datagram.
    fn start(
        local: SocketAddr,
        machine: ClientMachine,
        record: Option<RecordConfig>,
    ) -> Result<Client, Error> {
        let mut client = Client::on(UdpSocket::bind(local)?, machine)?;
        if let Some(record) = record {
            client.record(record)?;
        }
        client.flush()?;
        Ok(client)
    }

    /// Queues a message and flushes: it leaves now, with whatever else is queued, as far as
    /// the congestion window allows. The [`machine`](Self::machine)'s `send` and
    /// [`queue`](Self::queue) only queue.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.queue(bytes, delivery)?;
        self.flush()
    }

    /// Closes the connection and flushes (its `END` leaves now).
    pub fn close(&mut self) -> Result<(), Error> {
        self.machine().close();
        self.flush()
    }

    /// Polls until connected, or fails with [`Error::Handshake`] (what was tried, and which
    /// step the server never answered) if the connect timeout passes first.
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.machine().is_connected() {
            if self.machine().is_closed() {
                return Err(self.machine().closed_error());
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }
}

impl ClientDriver for Client {
    fn machine(&mut self) -> &mut hopnet_proto::Client {
        Client::machine(self)
    }
}
