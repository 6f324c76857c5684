//! The blocking driver's loop: one round of I/O per `poll`, reading what is queued in the
//! kernel, busy-polling briefly when it may wait, then sleeping in poll(2) until a datagram or
//! the next deadline.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use super::busy_poll::Contention;
use crate::carrier::Carrier;
use crate::endpoint::Endpoint;
use crate::endpoint::{Loop, Port, Role, Sealed, Wait};
use crate::recv::{RECV_SLOTS, is_transient};
use hopnet_proto::Error;
use hopnet_proto::Machine;

/// Datagrams handled per `poll` at most, so one flood cannot starve the caller's tick.
const MAX_RECV_PER_POLL: usize = 4096;
/// Datagrams received before the answers (ACKs) go out, within one drain.
const FLUSH_EVERY: usize = 64;
/// How long `poll`, when it may wait, keeps reading without blocking before it sleeps (see
/// [`Endpoint::set_busy_poll`]).
pub const BUSY_POLL: Duration = Duration::from_micros(30);
/// How soon a batch the kernel had no room for is tried again.
const STALL_RETRY: Duration = Duration::from_millis(1);

/// What the blocking way of waiting keeps.
#[derive(Debug)]
pub struct BusyWait {
    nonblocking: bool,
    /// How long `poll` keeps reading without blocking before it sleeps.
    busy_poll: Duration,
    /// When the last read of this `poll` found datagrams.
    recv_time: Option<Instant>,
    contention: Contention,
}

impl<M: Machine> Loop<Blocking, M> {
    pub fn new(socket: UdpSocket, machine: M) -> io::Result<Loop<Blocking, M>> {
        let port = Port::new(socket, machine)?;
        port.socket.set_nonblocking(true)?;
        Ok(Loop {
            port,
            wait: BusyWait {
                nonblocking: true,
                busy_poll: BUSY_POLL,
                recv_time: None,
                contention: Contention::default(),
            },
        })
    }

    fn set_nonblocking(&mut self, on: bool) -> io::Result<()> {
        if self.wait.nonblocking != on {
            self.port.socket.set_nonblocking(on)?;
            self.wait.nonblocking = on;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.flush_at(Instant::now())
    }

    /// Sends what is due; a batch the kernel has no room for waits for the next `poll`.
    fn flush_at(&mut self, now: Instant) -> io::Result<()> {
        self.set_nonblocking(true)?;
        self.port.flush(now);
        Ok(())
    }

    /// One `recvmmsg` (or `recvmsg`) into up to `slots` slots; hands every datagram to the
    /// machine and returns how many there were, and how many slots were filled.
    fn recv_batch(&mut self, slots: usize) -> io::Result<(usize, usize)> {
        let port = &mut self.port;
        let filled = port.recv.recv(&port.state, (&port.socket).into(), slots)?;
        let now = Instant::now();
        self.wait.recv_time = Some(now);
        Ok((self.port.deliver(filled, now), filled))
    }

    /// Reads without blocking from `start` until `until`, giving the core up (yield) before
    /// each attempt; returns how many datagrams came (what the first successful read found,
    /// and what followed it), zero if none did, or if slow turns showed contention (see
    /// [`Contention`]).
    fn busy_poll(&mut self, start: Instant, until: Instant) -> io::Result<usize> {
        let mut last = start;
        loop {
            // Not a pure spin: on a busy machine the peer may need this very core. Yield before
            // reading, not after: the caller has just sent, and when the peer shares this core
            // its answer comes only once it has run.
            std::thread::yield_now();
            let read = self.recv_batch(RECV_SLOTS);
            // The turn's end: the read's return (before its datagrams were handled), or now.
            let now = self.wait.recv_time.unwrap_or_else(Instant::now);
            let calm = self
                .wait
                .contention
                .turn(now, now.saturating_duration_since(last));
            self.port.stats.busy_poll_calms += u64::from(calm);
            match read {
                // Fewer than we asked for: the queue is empty, as in `drain`, so skip the read
                // that would say so (a system call off the answer's way).
                Ok((n, filled)) if filled < RECV_SLOTS => return Ok(n),
                Ok((n, _)) => return self.drain(n),
                Err(e) if is_transient(&e) => {}
                Err(e) => return Err(e),
            }
            if calm || now >= until {
                return Ok(0);
            }
            last = now;
        }
    }

    /// Waits up to `wait` for a datagram and reads what came (and what follows it).
    #[cfg(unix)]
    fn wait(&mut self, wait: Duration) -> io::Result<()> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let timeout = Timespec {
            tv_sec: wait.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: wait.subsec_nanos().into(),
        };
        let mut fds = [PollFd::new(&self.port.socket, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => Ok(()),
            Ok(_) => self.drain(0).map(|_| ()),
            Err(rustix::io::Errno::INTR) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Waits up to `wait` for a datagram and reads what came (and what follows it).
    #[cfg(not(unix))]
    fn wait(&mut self, wait: Duration) -> io::Result<()> {
        self.set_nonblocking(false)?;
        self.port.socket.set_read_timeout(Some(wait))?;
        // One slot: a blocking recvmmsg would wait for every slot to fill.
        match self.recv_batch(1) {
            Ok((n, _)) => self.drain(n).map(|_| ()),
            Err(e) if is_transient(&e) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Reads every datagram already queued in the kernel (up to a limit), without blocking.
    fn drain(&mut self, mut received: usize) -> io::Result<usize> {
        self.set_nonblocking(true)?;
        let mut unanswered = received;
        while received < MAX_RECV_PER_POLL {
            let filled = match self.recv_batch(RECV_SLOTS) {
                Ok((n, filled)) => {
                    received += n;
                    unanswered += n;
                    filled
                }
                Err(e) if is_transient(&e) => break,
                Err(e) => return Err(e),
            };
            if filled < RECV_SLOTS {
                // The kernel had fewer than we asked for: the queue is empty (anything newer
                // waits for the next poll), so skip the call that would say so.
                break;
            }
            if unanswered >= FLUSH_EVERY {
                // Answer (ACK) as we go, so a burst does not delay every acknowledgement; the
                // ACKs of one batch leave together.
                self.flush()?;
                unanswered = 0;
            }
        }
        Ok(received)
    }

    pub fn poll(&mut self, max_wait: Duration) -> io::Result<()> {
        let now = Instant::now();
        self.port.run_timers(now);
        self.flush_at(now)?;
        let mut deadline = now + max_wait;
        if let Some(t) = self.port.next_deadline() {
            deadline = deadline.min(t);
        }
        if self.port.outbox.is_stalled() {
            deadline = deadline.min(now + STALL_RETRY);
        }
        let busy = if self.wait.contention.may_spin(now) {
            self.wait
                .busy_poll
                .min(deadline.saturating_duration_since(now))
        } else {
            Duration::ZERO
        };
        self.wait.recv_time = None;
        // Under load datagrams are already waiting: a poll that may not wait reads them at
        // once; one that may busy-polls (yielding first, see `busy_poll`). Only an idle socket
        // then sleeps (in poll(2) on Unix, so the socket never leaves non-blocking mode).
        let received = if busy.is_zero() {
            self.drain(0)?
        } else {
            // (Its turns are timed from here: the flush above may have taken a while.)
            self.busy_poll(Instant::now(), now + busy)?
        };
        if received == 0 {
            let wait = deadline.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                self.wait(wait)?;
            }
        }
        // The time of the last read, if there was one (no clock read on the answer's way).
        let now = self.wait.recv_time.take().unwrap_or_else(Instant::now);
        self.port.run_timers(now);
        self.flush_at(now)
    }
}

/// The blocking driver's way of waiting: in poll(2) on `std::net::UdpSocket`, after a short
/// busy-poll (see [`Endpoint::set_busy_poll`]).
#[derive(Debug)]
pub struct Blocking;

impl Sealed for Blocking {}

impl Wait for Blocking {
    type Socket = UdpSocket;
    type State = BusyWait;
    fn local_addr(socket: &UdpSocket) -> io::Result<std::net::SocketAddr> {
        socket.local_addr()
    }
}

/// Every blocking driver (server, client, or another wire's machine) is a [`Carrier`]: a
/// generic loop calls the same `poll`, `flush` and `local_addr` as the inherent ones.
impl<R: Role> Carrier for Endpoint<R, Blocking> {
    type Error = Error;

    fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        self.poll(max_wait)
    }

    fn flush(&mut self) -> Result<(), Error> {
        self.flush()
    }

    fn local_addr(&self) -> Result<SocketAddr, Error> {
        self.local_addr()
    }
}

/// How a blocking driver waits: [`poll`](Endpoint::poll) blocks for at most the time it is
/// given.
impl<R: Role> Endpoint<R, Blocking> {
    /// Runs `machine` on `socket` (made non-blocking).
    pub(crate) fn on(
        socket: UdpSocket,
        machine: R::Machine,
    ) -> Result<Endpoint<R, Blocking>, Error> {
        Ok(Endpoint {
            driver: Loop::<Blocking, _>::new(socket, machine)?,
        })
    }

    /// One round of I/O: due timers run, what is queued sent, then a wait of at most
    /// `max_wait` (zero: never block) for a datagram or the machine's next deadline, every
    /// datagram already in the kernel handed to the machine, and the answers sent.
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Ok(self.driver.poll(max_wait)?)
    }

    /// Sends what is queued, as far as the congestion window allows; a batch the kernel has no
    /// room for waits for the next `poll`.
    pub fn flush(&mut self) -> Result<(), Error> {
        Ok(self.driver.flush()?)
    }

    /// How long [`poll`](Self::poll), when allowed to wait, keeps reading the socket
    /// without blocking (yielding the CPU before each attempt) before it sleeps until a
    /// datagram or the next deadline; zero sleeps at once. A reply on loopback or a LAN
    /// often comes within microseconds, sooner than a sleeping thread wakes up. It costs
    /// at most that much CPU per idle `poll`; `poll(Duration::ZERO)` never waits and so
    /// never busy-polls. Default: [`BUSY_POLL`].
    ///
    /// When the busy-poll's turns keep getting slow (four of more than 0.25 ms within
    /// 50 ms: another thread wants this core, and each yield hands it over for a scheduler
    /// slice), `poll` sleeps at once for a while instead (4 ms, doubled while the
    /// contention lasts, up to 128 ms): a sleeping thread is woken when its datagram
    /// arrives. [`SocketStats::busy_poll_calms`](crate::SocketStats::busy_poll_calms) counts
    /// these stand-downs.
    pub fn set_busy_poll(&mut self, duration: Duration) {
        self.driver.wait.busy_poll = duration;
    }
}
