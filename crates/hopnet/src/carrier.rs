//! One driver trait for every carrier, so that a game's tick loop is written once.
//!
//! A carrier is how hopnet's datagrams travel: UDP ([`crate::Server`],
//! plain or secure), WebTransport beside UDP (`hopnet-webtransport`'s `Server`), or one to come.
//! Each has its own driver, but a game does the same with all of them once a tick: a round of
//! I/O, the events and the game's messages through the sans-I/O machine, a flush. These
//! traits are that much, so that the loop is generic over the carrier:
//!
//! ```
//! use std::time::Duration;
//! use hopnet::ServerDriver;
//! use hopnet::{Delivery, Event};
//!
//! /// One tick of a server that echoes every message, over any carrier.
//! fn echo_tick<D: ServerDriver>(driver: &mut D) -> Result<(), D::Error> {
//!     driver.poll(Duration::from_millis(16))?;
//!     while let Some(e) = driver.poll_event() {
//!         if let Event::Message { bytes, .. } = e.event {
//!             // The machine's `send` queues; the flush below sends the tick's messages together.
//!             driver.machine().send(e.connection, &bytes, Delivery::Reliable)?;
//!         }
//!     }
//!     driver.flush()
//! }
//!
//! let mut server = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default())?;
//! echo_tick(&mut server)?;
//! # Ok::<(), hopnet::Error>(())
//! ```
//!
//! What only some carriers have is a provided method with a default of none: a
//! [`SideChannel`] (server queries on the game's port), secure mode. What only one carrier
//! has (a WebTransport server's certificate, a UDP driver's busy-poll) stays on its own type.

use std::net::SocketAddr;
use std::time::Duration;

use super::side_channel::SideChannel;
use hopnet_proto::{Client, ConnectionId, Delivery, Event, Server, ServerEvent, Stats};

/// The I/O of a driver on some carrier, whichever machine it runs: what the loops of
/// [`ServerDriver`] and [`ClientDriver`] share.
pub trait Carrier {
    /// What the carrier's I/O can fail with; the machine's errors convert into it, so a
    /// generic loop can use `?` on both.
    type Error: std::error::Error + From<hopnet_proto::Error>;

    /// One round of I/O: due timers run, what is queued sent, then a wait of at most
    /// `max_wait` (zero: never block) for datagrams, every one already there handed to the
    /// machine, and the answers sent. Read the events after it.
    fn poll(&mut self, max_wait: Duration) -> Result<(), Self::Error>;

    /// Sends what is queued, as far as the congestion windows allow.
    fn flush(&mut self) -> Result<(), Self::Error>;

    /// The local address of the driver's socket: where hopnet's UDP clients reach a server,
    /// where a client sends from.
    fn local_addr(&self) -> Result<SocketAddr, Self::Error>;
}

/// A server's driver on some carrier: a [`Server`] machine and the I/O that feeds it.
///
/// The required methods are the loop's (with [`Carrier`]'s); the provided ones are written
/// with them, and a carrier overrides those it has more of (a side channel, secure mode).
pub trait ServerDriver: Carrier {
    /// The sans-I/O machine: the events, the connections, statistics, and the sends (which
    /// queue: the next [`flush`](Carrier::flush) or [`poll`](Carrier::poll) sends them). In
    /// secure mode the plain machine above netcode: the same API whatever the wire.
    fn machine(&mut self) -> &mut Server;

    /// The next event, after a [`poll`](Carrier::poll).
    fn poll_event(&mut self) -> Option<ServerEvent> {
        self.machine().poll_event()
    }

    /// Queues a message and flushes: the message, and whatever else is queued, leave now as
    /// far as the congestion window allows. To send several together, queue them on the
    /// [`machine`](Self::machine) and [`flush`](Carrier::flush) once.
    fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Self::Error> {
        self.machine().send(id, bytes, delivery)?;
        self.flush()
    }

    /// Closes a connection and flushes (its `END` leaves now).
    fn close(&mut self, id: ConnectionId) -> Result<(), Self::Error> {
        self.machine().close(id)?;
        self.flush()
    }

    /// Whether the server runs in secure mode (netcode 1.02 underneath). Default: no.
    fn is_secure(&self) -> bool {
        false
    }

    /// The side channel, if the carrier has one and it is set (see [`SideChannel`]).
    /// Default: none.
    fn side_channel(&mut self) -> Option<&mut SideChannel> {
        None
    }

    /// Hands the datagrams that a side channel claims to it instead of the machine (`None`
    /// removes it). Default: a carrier without one refuses `Some` with
    /// [`Error::InvalidConfig`](crate::Error::InvalidConfig), and `None` is already so.
    fn set_side_channel(&mut self, side: Option<SideChannel>) -> Result<(), Self::Error> {
        match side {
            None => Ok(()),
            Some(_) => {
                Err(hopnet_proto::Error::InvalidConfig("this carrier has no side channel").into())
            }
        }
    }
}

/// A client's driver on some carrier: a [`Client`] machine and the I/O that feeds it. The
/// same loop as [`ServerDriver`]'s, for one connection.
pub trait ClientDriver: Carrier {
    /// The sans-I/O machine (see [`ServerDriver::machine`]): its sends queue.
    fn machine(&mut self) -> &mut Client;

    /// The next event, after a [`poll`](Carrier::poll).
    fn poll_event(&mut self) -> Option<Event> {
        self.machine().poll_event()
    }

    /// Queues a message and flushes (see [`ServerDriver::send`]).
    fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Self::Error> {
        self.machine().send(bytes, delivery)?;
        self.flush()
    }

    /// Closes the connection and flushes (its `END` leaves now).
    fn close(&mut self) -> Result<(), Self::Error> {
        self.machine().close();
        self.flush()
    }

    /// The connection's statistics.
    fn stats(&mut self) -> Stats {
        self.machine().stats()
    }
}
