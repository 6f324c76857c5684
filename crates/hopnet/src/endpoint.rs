//! The one driver type: a machine on a UDP socket, generic over what it runs ([`Role`]) and
//! how it waits ([`Wait`]). What every driver has is written here once; how a driver waits
//! (`poll` and `flush`, blocking or async) is in its own module, [`blocking`](super::blocking)
//! or `async_tokio`, with the constructors.

use std::fmt;
use std::io;
use std::net::SocketAddr;

use super::port::Port;
use super::role::{AnyMachine, ClientRole, Role, ServerRole};
use super::socket::Socket;
use super::socket_stats::SocketStats;
use hopnet_proto::Machine;
use hopnet_proto::impairment::Impairment;
use hopnet_proto::secure::{SecureClient, SecureServer};
use hopnet_proto::{ConnectionId, Delivery, Error, Event, ServerEvent, Stats};

/// How a driver waits: [`Blocking`](super::blocking::Blocking), or tokio's (`Tokio`, feature
/// `tokio`). Sealed.
pub trait Wait: sealed::Sealed {
    /// The socket it waits on.
    type Socket: Socket;
    /// What its waiting keeps beside the socket and the machine.
    type State: fmt::Debug;
    /// The socket's bound address.
    fn local_addr(socket: &Self::Socket) -> io::Result<SocketAddr>;
}

/// A machine on a socket and what waiting on it keeps: a driver's loop, whose rounds (how it
/// waits) are in the driver's own module.
#[derive(Debug)]
pub struct Loop<W: Wait, M> {
    pub(crate) port: Port<W::Socket, M>,
    pub(crate) wait: W::State,
}

/// A machine on a UDP socket: hopnet's server, its client, or a machine of any protocol
/// (`R`), blocking or async (`W`). Its names are the ones to use:
/// [`blocking::Server`](super::blocking::Server), [`blocking::Client`](super::blocking::Client),
/// [`blocking::Driver`](super::blocking::Driver), and the tokio driver's `TokioServer`,
/// `TokioClient` and `Driver`; this page lists what all of them have, then what each adds.
pub struct Endpoint<R: Role, W: Wait> {
    pub(crate) driver: Loop<W, R::Machine>,
}

impl<R: Role, W: Wait> fmt::Debug for Endpoint<R, W>
where
    Loop<W, R::Machine>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("driver", &self.driver)
            .finish()
    }
}

/// What every driver has.
impl<R: Role, W: Wait> Endpoint<R, W> {
    /// The machine: for a server the [`Server`](hopnet_proto::Server) machine, for a client the
    /// [`Client`](hopnet_proto::Client) one (in secure mode, the plain machine above netcode: the
    /// same API whatever the wire), for a `Driver` the machine it was given. Its sends queue:
    /// the next `flush` or round of I/O sends them.
    pub fn machine(&mut self) -> &mut R::App {
        R::app(&mut self.driver.port.machine)
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(W::local_addr(&self.driver.port.socket)?)
    }

    /// Drops and delays outgoing datagrams from now on.
    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.driver.port.outbox.set_impairment(impairment);
    }

    /// Socket-level counters.
    pub fn socket_stats(&self) -> SocketStats {
        self.driver.port.stats.clone()
    }

    /// What the socket feeds, below what the application drives.
    fn running(&mut self) -> &mut R::Machine {
        &mut self.driver.port.machine
    }
}

/// What every server has, blocking or async.
impl<W: Wait> Endpoint<ServerRole, W> {
    /// The next event, after a round of I/O.
    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.machine().poll_event()
    }

    /// Queues a message without sending anything yet: the next `flush`, `send` or round of
    /// I/O sends it, together with whatever else is queued. Messages queued together
    /// leave in fewer system calls (the full chunks of several messages share one GSO
    /// batch), which pays when a tick produces several messages for one peer.
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.machine().send(id, bytes, delivery)
    }

    /// Hands back a message's buffer once read, for a later message to be copied into
    /// (see [`Server::recycle`](hopnet_proto::Server::recycle)).
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.machine().recycle(bytes)
    }

    /// The secure server (netcode's clients, their client ids and user data, its
    /// counters), if this server is secure.
    pub fn secure(&mut self) -> Option<&mut SecureServer> {
        self.running().secure()
    }
}

/// What every client has, blocking or async.
impl<W: Wait> Endpoint<ClientRole, W> {
    /// The next event, after a round of I/O.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.machine().poll_event()
    }

    /// Queues a message without sending anything yet: the next `flush`, `send` or round of
    /// I/O sends it, together with whatever else is queued. Messages queued together
    /// leave in fewer system calls (the full chunks of several messages share one GSO
    /// batch), which pays when a tick produces several messages.
    pub fn queue(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.machine().send(bytes, delivery)
    }

    /// Hands back a message's buffer once read, for a later message to be copied into
    /// (see [`Client::recycle`](hopnet_proto::Client::recycle)).
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.machine().recycle(bytes)
    }

    /// The secure client (netcode's state, its counters), if this client is secure.
    pub fn secure(&mut self) -> Option<&mut SecureClient> {
        self.running().secure()
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        self.driver.port.machine.stats()
    }
}

/// What every `Driver` of a machine of any protocol has.
impl<M: Machine, W: Wait> Endpoint<AnyMachine<M>, W> {
    /// The machine, the socket closed.
    pub fn into_machine(self) -> M {
        self.driver.port.machine
    }
}

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;
