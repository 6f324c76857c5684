//! A blocking-with-deadline driver over `std::net::UdpSocket`.
//!
//! [`Server::poll`] / [`Client::poll`] do one round of I/O: run due timers, send what is
//! queued, wait for a datagram until the next protocol deadline (or the `max_wait` the caller
//! allows, zero for a game tick that must not block), drain every datagram already queued in
//! the kernel, and send the answers. Events are then read with `poll_event`.
//!
//! An optional [`Impairment`] drops and delays outgoing datagrams, so that an application can
//! try itself over real loopback sockets through a lossy link.
//!
//! The socket calls are batched through `quinn-udp`: where the platform has them (Linux),
//! equal-sized datagrams to one peer (the chunks of a message, the ACKs answering a received
//! batch) leave in one `sendmsg` with UDP GSO, and receiving uses `recvmmsg` with UDP GRO, so
//! one system call carries many datagrams. Elsewhere it falls back to one datagram per call.
//! A lone datagram (a small message, one ACK) leaves with a plain `sendto`, which costs the
//! kernel less than a `sendmsg` with control messages.
//! The state machine writes every outgoing batch into one reused buffer, and received
//! datagrams are handed to it straight from the receive buffer: nothing is allocated per
//! datagram.

use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::time::{Duration, Instant};

use quinn_udp::UdpSocketState;
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::{Machine, RECV_SLOTS, RecvBuf, SEND_BUF, gso_segments, skip_tos, socket_state};
use crate::{
    Config, Connection, ConnectionId, Delivery, Endpoint, EndpointEvent, Error, Event, Stats,
    Transmit,
};

/// Datagrams handled per `poll` at most, so one flood cannot starve the caller's tick.
const MAX_RECV_PER_POLL: usize = 4096;
/// Datagrams received before the answers (ACKs) go out, within one drain.
const FLUSH_EVERY: usize = 64;
/// How long `poll`, when it may wait, keeps reading without blocking before it sleeps (see
/// [`Server::set_busy_poll`]).
pub const BUSY_POLL: Duration = Duration::from_micros(30);

/// A gap this long between two reads of a busy-poll means that the thread lost its core for a
/// while (a scheduler's slice is at least about 0.75 ms).
const SLOW_TURN: Duration = Duration::from_micros(250);
/// This many slow turns within [`STRIKES_WITHIN`] mean that another thread wants this core.
/// Fewer may be the host's hiccups: a virtual machine's core is taken away now and then, and
/// with two strikes an idle echo's busy-poll stood down a few times per second, which put
/// its 99th percentile round trip at 30 µs instead of 13.
const STRIKES: u32 = 4;
/// See [`STRIKES`].
const STRIKES_WITHIN: Duration = Duration::from_millis(50);
/// How long `poll` then sleeps at once instead of busy-polling, at first; doubled for each
/// further calm that begins within [`CONTENTION_MEMORY`] of the last one's end, up to
/// [`MAX_CALM`].
const MIN_CALM: Duration = Duration::from_millis(4);
/// The longest calm.
const MAX_CALM: Duration = Duration::from_millis(128);
/// How long a contention is remembered after its calm ended.
const CONTENTION_MEMORY: Duration = Duration::from_secs(1);

/// Whether the busy-poll should stand down because another thread wants the core.
///
/// On a machine with more runnable threads than cores, a yield hands the core to another
/// thread for a whole scheduler slice (milliseconds), while a thread sleeping in poll(2) is
/// woken, and usually scheduled at once, when its datagram arrives. So when a busy-poll's
/// turns keep getting slow, `poll` sleeps at once for a while (a "calm"), then tries
/// busy-polling again.
#[derive(Debug, Clone, Default)]
struct Contention {
    /// The first slow turn of the current strike window, and the slow turns in it.
    strikes_from: Option<Instant>,
    strikes: u32,
    /// No busy-poll before this.
    calm_until: Option<Instant>,
    /// The last calm's length.
    calm: Duration,
}

impl Contention {
    /// Whether `poll` may busy-poll at `now`.
    fn may_spin(&self, now: Instant) -> bool {
        self.calm_until.is_none_or(|t| now >= t)
    }

    /// A turn of the busy-poll that ended at `at` took `took`; `true` if the busy-poll should
    /// stop (a calm has begun).
    fn turn(&mut self, at: Instant, took: Duration) -> bool {
        if took < SLOW_TURN {
            return false;
        }
        match self.strikes_from {
            Some(from) if at.saturating_duration_since(from) < STRIKES_WITHIN => {
                self.strikes += 1;
            }
            _ => {
                self.strikes_from = Some(at);
                self.strikes = 1;
            }
        }
        if self.strikes < STRIKES {
            return false;
        }
        self.strikes_from = None;
        self.strikes = 0;
        let again = self
            .calm_until
            .is_some_and(|t| at.saturating_duration_since(t) < CONTENTION_MEMORY);
        self.calm = if again {
            (self.calm * 2).clamp(MIN_CALM, MAX_CALM)
        } else {
            MIN_CALM
        };
        self.calm_until = Some(at + self.calm);
        true
    }
}

/// Loss and delay applied to outgoing datagrams (for testing over real sockets).
#[derive(Debug, Clone, PartialEq)]
pub struct Impairment {
    /// Probability that an outgoing datagram is dropped.
    pub loss: f64,
    /// Delay added to every outgoing datagram.
    pub delay: Duration,
    /// Uniform extra delay in `0..=jitter`.
    pub jitter: Duration,
    /// Seed of the loss and jitter draws.
    pub seed: u64,
}

impl Default for Impairment {
    fn default() -> Self {
        Impairment {
            loss: 0.0,
            delay: Duration::ZERO,
            jitter: Duration::ZERO,
            seed: 0,
        }
    }
}

#[derive(Debug)]
struct Impaired {
    config: Impairment,
    rng: StdRng,
    queue: VecDeque<(Instant, SocketAddr, Vec<u8>)>,
}

/// Counters of the socket layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocketStats {
    /// Datagrams handed to the kernel.
    pub sent: u64,
    /// Datagrams read from the kernel.
    pub received: u64,
    /// Datagrams the kernel refused (e.g. an unreachable spoofed address); dropped.
    pub send_errors: u64,
    /// Datagrams dropped by the [`Impairment`].
    pub impaired_drops: u64,
    /// Times the busy-poll stood down because its turns got slow (another thread wanted the
    /// core; see [`Server::set_busy_poll`]).
    pub busy_poll_calms: u64,
}

#[derive(Debug)]
struct Driver<M> {
    socket: UdpSocket,
    state: UdpSocketState,
    machine: M,
    recv: RecvBuf,
    /// The batch being sent; holds the stalled one until the kernel takes it.
    send_buf: Vec<u8>,
    nonblocking: bool,
    /// How long `poll` keeps reading without blocking before it sleeps.
    busy_poll: Duration,
    /// When the last read of this `poll` found datagrams.
    recv_time: Option<Instant>,
    contention: Contention,
    stalled: Option<Transmit>,
    impaired: Option<Impaired>,
    stats: SocketStats,
}

impl<M: Machine> Driver<M> {
    fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.impaired = impairment.map(|config| Impaired {
            rng: StdRng::seed_from_u64(config.seed),
            config,
            queue: VecDeque::new(),
        });
    }

    fn new(socket: UdpSocket, machine: M) -> io::Result<Driver<M>> {
        let state = socket_state(&socket)?;
        skip_tos(&socket);
        socket.set_nonblocking(true)?;
        Ok(Driver {
            socket,
            state,
            machine,
            recv: RecvBuf::new(),
            send_buf: Vec::with_capacity(SEND_BUF),
            nonblocking: true,
            busy_poll: BUSY_POLL,
            recv_time: None,
            contention: Contention::default(),
            stalled: None,
            impaired: None,
            stats: SocketStats::default(),
        })
    }

    /// Datagrams one send may carry.
    fn max_batch(&self) -> usize {
        if self.impaired.is_some() {
            // The impairment decides per datagram.
            1
        } else {
            gso_segments(&self.state)
        }
    }

    fn set_nonblocking(&mut self, on: bool) -> io::Result<()> {
        if self.nonblocking != on {
            self.socket.set_nonblocking(on)?;
            self.nonblocking = on;
        }
        Ok(())
    }

    /// Sends the batch in `send_buf` (one system call with GSO); `false` if the kernel buffer
    /// is full (try again later).
    fn send_batch(&mut self, info: Transmit) -> io::Result<bool> {
        self.set_nonblocking(true)?;
        let datagrams = info.datagrams();
        let contents = &self.send_buf[..info.size];
        let sent = if datagrams == 1 {
            send_one(&self.socket, contents, info.destination)
        } else {
            let transmit = quinn_udp::Transmit {
                destination: info.destination,
                ecn: None,
                contents,
                segment_size: Some(info.segment_size),
                src_ip: None,
            };
            self.state.try_send((&self.socket).into(), &transmit)
        };
        match sent {
            Ok(()) => {
                self.stats.sent += datagrams as u64;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
            Err(_) if datagrams > 1 => {
                // GSO refused (quinn-udp then stops using it): send the datagrams one by one.
                for datagram in info.split(&self.send_buf) {
                    match send_one(&self.socket, datagram, info.destination) {
                        Ok(()) => self.stats.sent += 1,
                        // Dropped like UDP may drop; the protocol repeats what matters.
                        Err(_) => self.stats.send_errors += 1,
                    }
                }
                Ok(true)
            }
            Err(_) => {
                // Unreachable or refused destination: UDP may drop, and so do we.
                self.stats.send_errors += 1;
                Ok(true)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_at(Instant::now())
    }

    fn flush_at(&mut self, now: Instant) -> io::Result<()> {
        if let Some(info) = self.stalled.take()
            && !self.send_batch(info)?
        {
            self.stalled = Some(info);
            return Ok(());
        }
        self.flush_impaired(now)?;
        loop {
            let max = self.max_batch();
            let Some(info) = self.machine.poll_transmit(now, &mut self.send_buf, max) else {
                return Ok(());
            };
            if let Some(imp) = &mut self.impaired {
                if imp.rng.random_bool(imp.config.loss.clamp(0.0, 1.0)) {
                    self.stats.impaired_drops += 1;
                    continue;
                }
                let mut delay = imp.config.delay;
                if !imp.config.jitter.is_zero() {
                    delay += imp.config.jitter.mul_f64(imp.rng.random::<f64>());
                }
                if !delay.is_zero() {
                    let contents = self.send_buf[..info.size].to_vec();
                    imp.queue
                        .push_back((now + delay, info.destination, contents));
                    continue;
                }
            }
            if !self.send_batch(info)? {
                self.stalled = Some(info);
                return Ok(());
            }
        }
    }

    fn flush_impaired(&mut self, now: Instant) -> io::Result<()> {
        loop {
            let Some(imp) = &mut self.impaired else {
                return Ok(());
            };
            // Jitter may reorder: send every due datagram, not just a due prefix.
            let Some(pos) = imp.queue.iter().position(|(at, _, _)| *at <= now) else {
                return Ok(());
            };
            let Some((_, destination, contents)) = imp.queue.remove(pos) else {
                return Ok(());
            };
            self.send_buf.clear();
            self.send_buf.extend_from_slice(&contents);
            let info = Transmit {
                destination,
                size: contents.len(),
                segment_size: contents.len(),
            };
            if !self.send_batch(info)? {
                self.stalled = Some(info);
                return Ok(());
            }
        }
    }

    /// One `recvmmsg` (or `recvmsg`) into up to `slots` slots; hands every datagram to the
    /// machine (a GRO slot is split at its stride) and returns how many there were, and how
    /// many slots were filled.
    fn recv_batch(&mut self, slots: usize) -> io::Result<(usize, usize)> {
        let filled = self.recv.recv(&self.state, (&self.socket).into(), slots)?;
        let now = Instant::now();
        self.recv_time = Some(now);
        let datagrams = self.recv.deliver(filled, &mut self.machine, now);
        self.stats.received += datagrams as u64;
        Ok((datagrams, filled))
    }

    fn run_timers(&mut self, now: Instant) {
        if self.machine.poll_timeout().is_some_and(|t| t <= now) {
            self.machine.handle_timeout(now);
        }
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
            let now = self.recv_time.unwrap_or_else(Instant::now);
            let calm = self
                .contention
                .turn(now, now.saturating_duration_since(last));
            self.stats.busy_poll_calms += u64::from(calm);
            match read {
                // Fewer than we asked for: the queue is empty, as in `drain`. Skipping the read
                // that would say so takes a system call off the answer's way (the echo's
                // round trip fell by about 0.3 µs on loopback).
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
        let mut fds = [PollFd::new(&self.socket, PollFlags::IN)];
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
        self.socket.set_read_timeout(Some(wait))?;
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

    fn poll(&mut self, max_wait: Duration) -> io::Result<()> {
        let now = Instant::now();
        self.run_timers(now);
        self.flush_at(now)?;
        let mut deadline = now + max_wait;
        if let Some(t) = self.machine.poll_timeout() {
            deadline = deadline.min(t);
        }
        if let Some(t) = self
            .impaired
            .as_ref()
            .and_then(|imp| imp.queue.iter().map(|(at, _, _)| *at).min())
        {
            deadline = deadline.min(t);
        }
        if self.stalled.is_some() {
            deadline = deadline.min(now + Duration::from_millis(1));
        }
        let busy = if self.contention.may_spin(now) {
            self.busy_poll.min(deadline.saturating_duration_since(now))
        } else {
            Duration::ZERO
        };
        self.recv_time = None;
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
        let now = self.recv_time.take().unwrap_or_else(Instant::now);
        self.run_timers(now);
        self.flush_at(now)
    }
}

/// Sends one datagram with a plain `sendto`: quinn-udp's `sendmsg` also builds an `IP_TOS`
/// control message (its ECN bits, which netproto does not use) that the kernel must parse, about
/// 0.1 µs per datagram on loopback. A batch of several still goes through quinn-udp (GSO).
fn send_one(socket: &UdpSocket, datagram: &[u8], to: SocketAddr) -> io::Result<()> {
    loop {
        match socket.send_to(datagram, to) {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock
            | io::ErrorKind::TimedOut
            | io::ErrorKind::Interrupted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
}

/// A server: an [`Endpoint`] on a UDP socket.
#[derive(Debug)]
pub struct Server {
    driver: Driver<Endpoint>,
}

impl Server {
    /// Binds a socket and starts accepting connections.
    pub fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        Ok(Server {
            driver: Driver::new(socket, Endpoint::new(config))?,
        })
    }

    /// Drops and delays outgoing datagrams from now on.
    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.driver.set_impairment(impairment);
    }

    /// How long [`poll`](Self::poll), when allowed to wait, keeps reading the socket without
    /// blocking (yielding the CPU before each attempt) before it sleeps until a datagram or the
    /// next deadline; zero sleeps at once. A reply on loopback or a LAN often comes within
    /// microseconds, sooner than a sleeping thread wakes up: on a 2-core loopback test the
    /// default [`BUSY_POLL`] (30 µs) took the echo's median round trip from 16-23 µs to about
    /// 10 µs. It costs at most that much CPU per idle `poll`; `poll(Duration::ZERO)` never
    /// waits and so never busy-polls.
    ///
    /// When the busy-poll's turns keep getting slow (four of more than 0.25 ms within 50 ms:
    /// another thread wants this core, and each yield hands it over for a scheduler slice),
    /// `poll` sleeps at once for a while instead (4 ms, doubled while the contention lasts, up
    /// to 128 ms): a sleeping thread is woken when its datagram arrives. With two busy loops
    /// beside the echo on a 2-core machine this took its median from 4 ms to 18-40 µs.
    /// [`SocketStats::busy_poll_calms`] counts these stand-downs.
    pub fn set_busy_poll(&mut self, duration: Duration) {
        self.driver.busy_poll = duration;
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.driver.socket.local_addr()?)
    }

    /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Ok(self.driver.poll(max_wait)?)
    }

    /// The next event, after a [`poll`](Self::poll).
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        Machine::poll_event(&mut self.driver.machine)
    }

    /// Queues a message and sends what the congestion window allows.
    pub fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.driver.machine.send(id, bytes, delivery)?;
        Ok(self.driver.flush()?)
    }

    /// Queues a message without sending anything yet: the next [`flush`](Self::flush),
    /// [`poll`](Self::poll) or [`send`](Self::send) sends it, together with whatever else is
    /// queued. Messages queued together leave in fewer system calls (the full chunks of
    /// several messages share one GSO batch), which pays when a tick produces several
    /// messages for one peer.
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.driver.machine.send(id, bytes, delivery)
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub fn flush(&mut self) -> Result<(), Error> {
        Ok(self.driver.flush()?)
    }

    /// Closes a connection (sends `END`).
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.driver.machine.close(id)?;
        Ok(self.driver.flush()?)
    }

    /// The state machine, for everything else (stats, connection list).
    pub fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.driver.machine
    }

    /// Socket-level counters.
    pub fn socket_stats(&self) -> SocketStats {
        self.driver.stats.clone()
    }
}

/// A client: a [`Connection`] on its own UDP socket.
#[derive(Debug)]
pub struct Client {
    driver: Driver<Connection>,
}

impl Client {
    /// Binds an ephemeral port of the server's address family and starts the handshake.
    pub fn connect(server: SocketAddr, config: Config) -> Result<Client, Error> {
        let local: SocketAddr = if server.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            ([0u16; 8], 0).into()
        };
        Self::connect_from(local, server, config)
    }

    /// Binds `local` and starts the handshake with `server`.
    pub fn connect_from(
        local: SocketAddr,
        server: SocketAddr,
        config: Config,
    ) -> Result<Client, Error> {
        let socket = UdpSocket::bind(local)?;
        let conn = Connection::new(config, server, Instant::now());
        let mut driver = Driver::new(socket, conn)?;
        driver.flush()?;
        Ok(Client { driver })
    }

    /// Drops and delays outgoing datagrams from now on.
    pub fn set_impairment(&mut self, impairment: Option<Impairment>) {
        self.driver.set_impairment(impairment);
    }

    /// How long [`poll`](Self::poll), when allowed to wait, keeps reading the socket without
    /// blocking before it sleeps, and when it stands down: as [`Server::set_busy_poll`].
    pub fn set_busy_poll(&mut self, duration: Duration) {
        self.driver.busy_poll = duration;
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.driver.socket.local_addr()?)
    }

    /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Ok(self.driver.poll(max_wait)?)
    }

    /// Polls until connected, or fails with [`Error::Closed`] if the handshake times out.
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.driver.machine.is_connected() {
            if self.driver.machine.is_closed() {
                return Err(Error::Closed);
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }

    /// The next event, after a [`poll`](Self::poll).
    pub fn poll_event(&mut self) -> Option<Event> {
        Machine::poll_event(&mut self.driver.machine)
    }

    /// Queues a message and sends what the congestion window allows.
    pub fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.driver.machine.send(bytes, delivery)?;
        Ok(self.driver.flush()?)
    }

    /// Queues a message without sending anything yet: the next [`flush`](Self::flush),
    /// [`poll`](Self::poll) or [`send`](Self::send) sends it, together with whatever else is
    /// queued. Messages queued together leave in fewer system calls (the full chunks of
    /// several messages share one GSO batch), which pays when a tick produces several
    /// messages.
    ///
    /// ```no_run
    /// use netproto::io::std::Client;
    /// use netproto::{Config, Delivery};
    /// use std::time::Duration;
    ///
    /// let mut client = Client::connect("127.0.0.1:4000".parse().unwrap(), Config::default())?;
    /// client.wait_connected()?;
    /// for input in [b"jump".as_slice(), b"shoot", b"chat: gg"] {
    ///     client.queue(input, Delivery::Reliable)?;
    /// }
    /// client.poll(Duration::ZERO)?; // sends all three, then reads what has arrived
    /// # Ok::<(), netproto::Error>(())
    /// ```
    pub fn queue(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error> {
        self.driver.machine.send(bytes, delivery)
    }

    /// Sends what is queued, as far as the congestion window allows.
    pub fn flush(&mut self) -> Result<(), Error> {
        Ok(self.driver.flush()?)
    }

    /// Closes the connection (sends `END`).
    pub fn close(&mut self) -> Result<(), Error> {
        self.driver.machine.close();
        Ok(self.driver.flush()?)
    }

    /// The state machine.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.driver.machine
    }

    /// The connection's statistics.
    pub fn stats(&self) -> Stats {
        self.driver.machine.stats()
    }

    /// Socket-level counters.
    pub fn socket_stats(&self) -> SocketStats {
        self.driver.stats.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: Duration = Duration::from_micros(2);
    const SLOW: Duration = Duration::from_millis(3);

    /// `STRIKES` slow turns `gap` apart, starting at `from`; whether the last began a calm.
    fn strikes(c: &mut Contention, from: Instant, gap: Duration) -> (bool, Instant) {
        let mut at = from;
        let mut calm = false;
        for i in 0..STRIKES {
            at = from + gap * i;
            calm = c.turn(at, SLOW);
            assert_eq!(
                calm,
                i + 1 == STRIKES && gap * (STRIKES - 1) < STRIKES_WITHIN
            );
        }
        (calm, at)
    }

    #[test]
    fn fast_turns_and_scattered_slow_ones_never_calm() {
        let t0 = Instant::now();
        let mut c = Contention::default();
        for i in 0..1000 {
            assert!(!c.turn(t0 + FAST * i, FAST));
        }
        // Host hiccups: slow turns, but never STRIKES of them within the window.
        let gap = STRIKES_WITHIN / (STRIKES - 1) + FAST;
        let (calm, at) = strikes(&mut c, t0, gap);
        assert!(!calm && c.may_spin(at));
        let (calm, at) = strikes(&mut c, at + gap, gap);
        assert!(!calm && c.may_spin(at));
    }

    #[test]
    fn repeated_slow_turns_calm_and_contention_soon_after_calms_longer() {
        let t0 = Instant::now();
        let mut c = Contention::default();
        let (calm, at) = strikes(&mut c, t0, SLOW);
        assert!(calm);
        assert!(!c.may_spin(at + MIN_CALM - FAST));
        assert!(c.may_spin(at + MIN_CALM));
        // Contention again soon after each calm: the calm doubles, up to its cap.
        let mut at = at + MIN_CALM;
        let mut expect = MIN_CALM;
        for _ in 0..12 {
            let (calm, end) = strikes(&mut c, at, SLOW);
            assert!(calm);
            expect = (expect * 2).min(MAX_CALM);
            assert!(!c.may_spin(end + expect - FAST));
            assert!(c.may_spin(end + expect));
            at = end + expect;
        }
        assert_eq!(expect, MAX_CALM);
        // Long after the last calm, contention is forgotten: the shortest calm again.
        let far = at + CONTENTION_MEMORY;
        let (calm, end) = strikes(&mut c, far, SLOW);
        assert!(calm);
        assert!(!c.may_spin(end + MIN_CALM - FAST));
        assert!(c.may_spin(end + MIN_CALM));
    }
}
