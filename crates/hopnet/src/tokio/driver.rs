//! The tokio driver's loop: a round sends what is due, then waits for the socket to be
//! readable or the next deadline, whichever comes first; tokio does the waiting.

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::Interest;
use tokio::net::UdpSocket;

use crate::endpoint::{Loop, Port, Sealed, Wait};
use crate::recv::{RECV_SLOTS, is_transient};
use hopnet_proto::Error;
use hopnet_proto::Machine;

/// How long `recv` sleeps when the machine has no deadline at all (a closed connection).
pub(super) const IDLE: Duration = Duration::from_secs(3600);

impl<M: Machine> Loop<Tokio, M> {
    pub(super) fn new(socket: UdpSocket, machine: M) -> Result<Loop<Tokio, M>, Error> {
        // The socket is already non-blocking.
        Ok(Loop {
            port: Port::new(socket, machine)?,
            wait: (),
        })
    }

    /// Sends what is due, waiting for room in the socket when it is full.
    pub(super) async fn flush(&mut self) -> Result<(), Error> {
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
    pub(super) async fn round(&mut self, max_wait: Duration) -> Result<(), Error> {
        self.flush().await?;
        let limit = Instant::now() + max_wait;
        let deadline = self.port.next_deadline().map_or(limit, |t| t.min(limit));
        tokio::select! {
            r = self.port.socket.readable() => {
                r?;
                self.receive()?;
            }
            _ = tokio::time::sleep_until(deadline.into()) => {
                self.port.run_timers(Instant::now());
            }
        }
        Ok(())
    }
}

/// The tokio driver's way of waiting: `async`, on `tokio::net::UdpSocket`.
#[derive(Debug)]
pub struct Tokio;

impl Sealed for Tokio {}

impl Wait for Tokio {
    type Socket = UdpSocket;
    type State = ();
    fn local_addr(socket: &UdpSocket) -> io::Result<SocketAddr> {
        socket.local_addr()
    }
}
