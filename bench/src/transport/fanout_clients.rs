//! The `fanout-1000` case's clients: hopnet's sans-I/O [`Client`]s, each on a socket of
//! its own bound to an address of its own in 127.0.0.0/8 (Linux routes the whole /8 to the
//! loopback interface), all driven by one thread through one epoll set, so that a thousand
//! clients take one core at most and leave the other to the server.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use hopnet::{Config, Event, Machine, proto::Client};
use rustix::event::{Timespec, epoll};

/// How often every connection's timers are looked at (keepalives, handshake resends).
const SWEEP: Duration = Duration::from_millis(10);
/// Pools larger than this give each socket a [`DEEP_BUFFER`] (`fanout-1000`'s keep the
/// default).
const LARGE_POOL: usize = 1000;
/// Receive buffer asked for each socket of a large pool (the kernel caps it at `rmem_max`).
const DEEP_BUFFER: usize = 1 << 20;
/// Readiness events taken per `epoll_wait`.
const EVENTS: usize = 1024;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Client `i`'s address: 127.0.x.y with x from 1 and y from 1 to 250, distinct for every `i`
/// below 63,750.
pub fn client_addr(i: usize) -> SocketAddr {
    let (x, y) = (1 + i / 250, 1 + i % 250);
    let x = u8::try_from(x).unwrap_or(u8::MAX);
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, x, y as u8), 0))
}

struct PoolClient {
    socket: UdpSocket,
    conn: Client,
}

/// The clients, their epoll set and what they have seen.
pub struct Pool {
    epoll: OwnedFd,
    clients: Vec<PoolClient>,
    events: Vec<epoll::Event>,
    rx: Vec<u8>,
    tx: Vec<u8>,
    next_sweep: Instant,
    /// The size of the messages counted as snapshots.
    snapshot_size: usize,
    /// Connections that completed the handshake.
    pub connected: usize,
    /// Connections that ended.
    pub disconnected: usize,
    /// Snapshots received, all clients together.
    pub snapshots: u64,
    /// Other messages received.
    pub other: u64,
    /// Datagrams the kernel refused to send.
    pub send_errors: u64,
}

impl Pool {
    /// Binds `n` sockets, one address each, and starts every handshake with `server`.
    pub fn connect(
        n: usize,
        server: SocketAddr,
        config: &Config,
        snapshot_size: usize,
    ) -> Result<Pool, String> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC).map_err(err)?;
        let now = Instant::now();
        let mut clients = Vec::with_capacity(n);
        for i in 0..n {
            let addr = client_addr(i);
            let socket = UdpSocket::bind(addr).map_err(|e| format!("bind {addr}: {e}"))?;
            socket.set_nonblocking(true).map_err(err)?;
            if n > LARGE_POOL {
                // The one thread serving thousands of sockets may fall behind on a loaded
                // machine: a deeper buffer keeps the kernel from dropping what it has not
                // read yet (the server's cost is the same).
                rustix::net::sockopt::set_socket_recv_buffer_size(&socket, DEEP_BUFFER)
                    .map_err(err)?;
            }
            epoll::add(
                &epoll,
                &socket,
                epoll::EventData::new_u64(i as u64),
                epoll::EventFlags::IN,
            )
            .map_err(err)?;
            clients.push(PoolClient {
                socket,
                conn: Client::new(config.clone(), server, now),
            });
        }
        let mut pool = Pool {
            epoll,
            clients,
            events: Vec::with_capacity(EVENTS),
            rx: vec![0; 1 << 16],
            tx: Vec::with_capacity(1 << 16),
            next_sweep: now + SWEEP,
            snapshot_size,
            connected: 0,
            disconnected: 0,
            snapshots: 0,
            other: 0,
            send_errors: 0,
        };
        for i in 0..n {
            pool.transmit(i, now);
        }
        Ok(pool)
    }

    /// How many clients there are.
    pub fn len(&self) -> usize {
        self.clients.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// Sends what client `i` has to send.
    fn transmit(&mut self, i: usize, now: Instant) {
        let c = &mut self.clients[i];
        while let Some(t) = c.conn.poll_transmit(now, &mut self.tx, 64) {
            for d in t.split(&self.tx) {
                if c.socket.send_to(d, t.destination).is_err() {
                    self.send_errors += 1;
                }
            }
        }
    }

    /// Hands client `i`'s events to the counters.
    fn events(&mut self, i: usize) {
        while let Some(ev) = self.clients[i].conn.poll_event() {
            match ev {
                Event::Connected => self.connected += 1,
                Event::Message { bytes, .. } if bytes.len() == self.snapshot_size => {
                    self.snapshots += 1
                }
                Event::Message { .. } => self.other += 1,
                Event::Disconnected { .. } => self.disconnected += 1,
                Event::Acknowledged { .. } | Event::Lost { .. } => {}
            }
        }
    }

    /// Waits up to `max_wait` for datagrams, handles every one that came, and runs the timers
    /// that are due.
    pub fn pump(&mut self, max_wait: Duration) -> Result<(), String> {
        let now = Instant::now();
        let wait = max_wait.min(self.next_sweep.saturating_duration_since(now));
        let timeout = Timespec {
            tv_sec: wait.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: wait.subsec_nanos().into(),
        };
        self.events.clear();
        match epoll::wait(
            &self.epoll,
            rustix::buffer::spare_capacity(&mut self.events),
            Some(&timeout),
        ) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(err(e)),
        }
        let now = Instant::now();
        for k in 0..self.events.len() {
            let i = self.events[k].data.u64() as usize;
            // One datagram per readiness: the set is level-triggered, so a socket with more
            // waiting is reported again, without a read that finds nothing.
            let got = match self.clients[i].socket.recv_from(&mut self.rx) {
                Ok(got) => got,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(err(e)),
            };
            let (len, from) = got;
            self.clients[i].conn.handle(now, from, &self.rx[..len]);
            self.events(i);
            self.transmit(i, now);
        }
        if now >= self.next_sweep {
            for i in 0..self.clients.len() {
                if self.clients[i]
                    .conn
                    .poll_timeout()
                    .is_some_and(|t| t <= now)
                {
                    self.clients[i].conn.handle_timeout(now);
                    self.events(i);
                    self.transmit(i, now);
                }
            }
            self.next_sweep = now + SWEEP;
        }
        Ok(())
    }
}
