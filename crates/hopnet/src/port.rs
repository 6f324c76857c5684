//! A machine on a socket: what the blocking and the tokio driver share, everything but how
//! they wait.

use std::io;
use std::time::Instant;

use quinn_udp::UdpSocketState;

use super::SocketStats;
use super::recv::RecvBuf;
use super::send::Outbox;
use super::socket::Socket;
use hopnet_proto::Machine;

/// The socket, quinn-udp's state for it, the machine, the receive and send sides, and the
/// counters.
#[derive(Debug)]
pub struct Port<S, M> {
    pub(crate) socket: S,
    pub(crate) state: UdpSocketState,
    pub(crate) machine: M,
    pub(crate) recv: RecvBuf,
    pub(crate) outbox: Outbox,
    pub(crate) stats: SocketStats,
}

impl<S: Socket, M: Machine> Port<S, M> {
    pub fn new(socket: S, machine: M) -> io::Result<Port<S, M>> {
        Ok(Port {
            state: socket.prepare()?,
            socket,
            machine,
            recv: RecvBuf::new(),
            outbox: Outbox::new(),
            stats: SocketStats::default(),
        })
    }

    /// Sends what is due (see [`Outbox::flush`]); `false` if a batch waits for room.
    pub fn flush(&mut self, now: Instant) -> bool {
        let Port {
            socket,
            state,
            machine,
            outbox,
            stats,
            ..
        } = self;
        outbox.flush(socket, state, machine, now, stats)
    }

    /// Hands the datagrams of `filled` receive slots to the machine; returns how many.
    pub fn deliver(&mut self, filled: usize, now: Instant) -> usize {
        let datagrams = self.recv.deliver(filled, &mut self.machine, now);
        self.stats.received += datagrams as u64;
        datagrams
    }

    /// Runs the machine's timers if they are due.
    pub fn run_timers(&mut self, now: Instant) {
        if self.machine.poll_timeout().is_some_and(|t| t <= now) {
            self.machine.handle_timeout(now);
        }
    }

    /// The next instant something is due: a timer, or a datagram held by the impairment.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        let timer = self.machine.poll_timeout();
        match (timer, self.outbox.next_due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
