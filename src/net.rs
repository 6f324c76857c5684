//! Real UDP: thin socket loops around `netproto`'s sans-I/O state machines, and a lossy relay
//! that injects loss and delay between real sockets.
//!
//! - [`UdpServer`]: one socket, an [`Endpoint`] and a [`GameServer`], ticking at a fixed rate.
//! - [`UdpClient`]: one socket and a [`Connection`].
//! - [`LossyRelay`]: sits between clients and a server and drops and delays datagrams; each
//!   client gets its own upstream socket, so the server sees them as distinct peers.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netproto::{Connection, Endpoint, Event};
use tracing::{debug, warn};

use crate::rng::Rng;
use crate::session::{BotPlayer, GameServer};

/// Largest datagram we expect (a 504-byte chunk and its 4-byte header, with room to spare).
const MAX_DATAGRAM: usize = 2048;

/// Waits at most this long in one `recv`, so loops notice a stop flag.
const MAX_WAIT: Duration = Duration::from_millis(50);

/// Receives one datagram, waiting until `deadline` at the latest. `Ok(None)` on timeout.
fn recv_until(
    socket: &UdpSocket,
    buf: &mut [u8],
    deadline: Instant,
) -> io::Result<Option<(usize, SocketAddr)>> {
    let now = Instant::now();
    let wait = deadline
        .saturating_duration_since(now)
        .clamp(Duration::from_micros(200), MAX_WAIT);
    socket.set_read_timeout(Some(wait))?;
    match socket.recv_from(buf) {
        Ok(r) => Ok(Some(r)),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Ok(None)
        }
        // A peer's port was closed (ICMP port unreachable on some platforms): not our problem.
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => Ok(None),
        Err(e) => Err(e),
    }
}

fn send_logged(socket: &UdpSocket, bytes: &[u8], to: SocketAddr) {
    if let Err(e) = socket.send_to(bytes, to) {
        debug!(%to, error = %e, "send_to failed");
    }
}

/// A game server on a UDP socket.
pub struct UdpServer {
    socket: UdpSocket,
    /// The transport state machine.
    pub endpoint: Endpoint,
    /// The game.
    pub game: GameServer,
    tick: Duration,
    next_tick: Instant,
    buf: Vec<u8>,
}

impl UdpServer {
    /// Binds `addr` and prepares to tick `tick_rate` times a second.
    pub fn bind(
        addr: SocketAddr,
        endpoint: Endpoint,
        game: GameServer,
        tick_rate: u32,
    ) -> io::Result<UdpServer> {
        let socket = UdpSocket::bind(addr)?;
        let tick = Duration::from_secs(1) / tick_rate.max(1);
        Ok(UdpServer {
            socket,
            endpoint,
            game,
            tick,
            next_tick: Instant::now() + tick,
            buf: vec![0; MAX_DATAGRAM],
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// One turn of the loop: waits for a datagram or the next deadline, handles it, ticks if a
    /// tick is due, and sends what there is to send. Returns whether a tick ran.
    pub fn turn(&mut self) -> io::Result<bool> {
        let mut deadline = self.next_tick;
        if let Some(t) = self.endpoint.poll_timeout() {
            deadline = deadline.min(t);
        }
        if let Some((n, from)) = recv_until(&self.socket, &mut self.buf, deadline)? {
            self.endpoint.handle(Instant::now(), from, &self.buf[..n]);
        }
        let now = Instant::now();
        if self.endpoint.poll_timeout().is_some_and(|t| t <= now) {
            self.endpoint.handle_timeout(now);
        }
        self.game.poll(&mut self.endpoint);
        let mut ticked = false;
        if now >= self.next_tick {
            self.game.tick(&mut self.endpoint);
            self.next_tick += self.tick;
            // Far behind (a debugger, a suspended laptop): skip rather than burst.
            if now > self.next_tick + self.tick * 10 {
                self.next_tick = now + self.tick;
            }
            ticked = true;
        }
        while let Some(t) = self.endpoint.poll_transmit(now) {
            send_logged(&self.socket, &t.contents, t.destination);
        }
        Ok(ticked)
    }

    /// Runs until `stop` returns true; it is asked after every tick.
    pub fn run(&mut self, mut stop: impl FnMut(&mut UdpServer) -> bool) -> io::Result<()> {
        loop {
            if self.turn()? && stop(self) {
                return Ok(());
            }
        }
    }
}

/// A client connection on a UDP socket.
pub struct UdpClient {
    socket: UdpSocket,
    /// The transport state machine.
    pub conn: Connection,
    buf: Vec<u8>,
}

impl UdpClient {
    /// Binds an ephemeral port and starts the handshake with `server`.
    pub fn connect(server: SocketAddr, config: netproto::Config) -> io::Result<UdpClient> {
        let local: SocketAddr = if server.is_ipv4() {
            "0.0.0.0:0".parse()
        } else {
            "[::]:0".parse()
        }
        .expect("valid address");
        let socket = UdpSocket::bind(local)?;
        let conn = Connection::new(config, server, Instant::now());
        let mut client = UdpClient {
            socket,
            conn,
            buf: vec![0; MAX_DATAGRAM],
        };
        client.flush();
        Ok(client)
    }

    /// Sends everything the connection has to send.
    pub fn flush(&mut self) {
        let now = Instant::now();
        while let Some(t) = self.conn.poll_transmit(now) {
            send_logged(&self.socket, &t.contents, t.destination);
        }
    }

    /// One turn: waits for a datagram until `deadline` (or the connection's own timer), handles
    /// it, and hands every event to `on_event` with the connection (to answer on). Sends what
    /// there is to send afterwards.
    pub fn turn(
        &mut self,
        deadline: Instant,
        mut on_event: impl FnMut(&mut Connection, Event),
    ) -> io::Result<()> {
        let mut wait = deadline;
        if let Some(t) = self.conn.poll_timeout() {
            wait = wait.min(t);
        }
        if let Some((n, from)) = recv_until(&self.socket, &mut self.buf, wait)? {
            self.conn.handle(Instant::now(), from, &self.buf[..n]);
        }
        let now = Instant::now();
        if self.conn.poll_timeout().is_some_and(|t| t <= now) {
            self.conn.handle_timeout(now);
        }
        while let Some(e) = self.conn.poll_event() {
            on_event(&mut self.conn, e);
        }
        self.flush();
        Ok(())
    }
}

/// How the relay mistreats datagrams (both directions alike).
#[derive(Clone, Copy, Debug)]
pub struct RelayConfig {
    /// Probability that a datagram is dropped.
    pub loss: f64,
    /// Delay added to every datagram.
    pub delay: Duration,
    /// Seed of the drop decisions.
    pub seed: u64,
}

/// What a relay did.
#[derive(Debug, Default)]
pub struct RelayStats {
    /// Datagrams forwarded.
    pub forwarded: AtomicU64,
    /// Datagrams dropped on purpose.
    pub dropped: AtomicU64,
}

/// A lossy UDP relay running on its own thread; stops when dropped.
pub struct LossyRelay {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    stats: Arc<RelayStats>,
    thread: Option<JoinHandle<()>>,
}

struct Pending {
    due: Instant,
    bytes: Vec<u8>,
    /// `None`: to the server through the client's upstream socket `via`; `Some(client)`: back
    /// to the client through the listening socket.
    to_client: Option<SocketAddr>,
    via: usize,
}

impl LossyRelay {
    /// Listens on `listen` (port 0 for any) and forwards to `upstream`.
    pub fn spawn(
        listen: SocketAddr,
        upstream: SocketAddr,
        config: RelayConfig,
    ) -> io::Result<LossyRelay> {
        let front = UdpSocket::bind(listen)?;
        front.set_nonblocking(true)?;
        let addr = front.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stats = Arc::new(RelayStats::default());
        let thread = {
            let (stop, stats) = (stop.clone(), stats.clone());
            std::thread::Builder::new()
                .name("lossy-relay".into())
                .spawn(move || relay_loop(front, upstream, config, &stop, &stats))?
        };
        Ok(LossyRelay {
            addr,
            stop,
            stats,
            thread: Some(thread),
        })
    }

    /// Where clients should send.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What it did so far.
    pub fn stats(&self) -> &RelayStats {
        &self.stats
    }
}

impl Drop for LossyRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn relay_loop(
    front: UdpSocket,
    upstream: SocketAddr,
    config: RelayConfig,
    stop: &AtomicBool,
    stats: &RelayStats,
) {
    let mut rng = Rng::new(config.seed);
    // One upstream socket per client, so the server sees distinct peers.
    let mut clients: HashMap<SocketAddr, usize> = HashMap::new();
    let mut uplinks: Vec<(UdpSocket, SocketAddr)> = Vec::new();
    let mut queue: VecDeque<Pending> = VecDeque::new();
    let mut buf = vec![0u8; 65536];
    let bind_any: SocketAddr = if upstream.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    }
    .parse()
    .expect("valid");
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        let drop_it = |rng: &mut Rng| (rng.unit_f32() as f64) < config.loss;
        // From clients.
        while let Ok((n, from)) = front.recv_from(&mut buf) {
            let via = match clients.get(&from) {
                Some(&i) => i,
                None => match UdpSocket::bind(bind_any)
                    .and_then(|s| s.set_nonblocking(true).map(|()| s))
                {
                    Ok(s) => {
                        uplinks.push((s, from));
                        clients.insert(from, uplinks.len() - 1);
                        uplinks.len() - 1
                    }
                    Err(e) => {
                        warn!(error = %e, "relay cannot open an upstream socket");
                        continue;
                    }
                },
            };
            if drop_it(&mut rng) {
                stats.dropped.fetch_add(1, Ordering::Relaxed);
            } else {
                queue.push_back(Pending {
                    due: now + config.delay,
                    bytes: buf[..n].to_vec(),
                    to_client: None,
                    via,
                });
            }
        }
        // From the server.
        for (i, (s, client)) in uplinks.iter().enumerate() {
            while let Ok((n, _)) = s.recv_from(&mut buf) {
                if drop_it(&mut rng) {
                    stats.dropped.fetch_add(1, Ordering::Relaxed);
                } else {
                    queue.push_back(Pending {
                        due: now + config.delay,
                        bytes: buf[..n].to_vec(),
                        to_client: Some(*client),
                        via: i,
                    });
                }
            }
        }
        // The delay is the same for all, so the queue is in due order.
        while queue.front().is_some_and(|p| p.due <= now) {
            let p = queue.pop_front().expect("non-empty");
            let sent = match p.to_client {
                Some(client) => front.send_to(&p.bytes, client),
                None => uplinks[p.via].0.send_to(&p.bytes, upstream),
            };
            if sent.is_ok() {
                stats.forwarded.fetch_add(1, Ordering::Relaxed);
            }
        }
        let next = queue.front().map_or(Duration::from_millis(1), |p| {
            p.due.saturating_duration_since(now)
        });
        std::thread::sleep(next.min(Duration::from_millis(1)));
    }
}

/// Plays as a bot over UDP: connects to `server`, sends `Init`, answers every snapshot with the
/// bot's actions and pings every `player.ping_every`, until `done(&player, &connection)` says so
/// (checked every few milliseconds) or the connection closes. Then it lingers 100 ms (so the last
/// acknowledgements get out), closes the connection and returns the connection's statistics.
pub fn play_bot(
    server: SocketAddr,
    config: netproto::Config,
    player: &mut BotPlayer,
    mut done: impl FnMut(&BotPlayer, &Connection) -> bool,
) -> io::Result<netproto::Stats> {
    let mut client = UdpClient::connect(server, config)?;
    let mut closed = None;
    while closed.is_none() && !done(player, &client.conn) {
        let deadline = Instant::now() + Duration::from_millis(5);
        client.turn(deadline, |conn, event| match event {
            Event::Connected => player.start(conn),
            Event::Message { bytes, .. } => {
                player.handle(conn, &bytes, Instant::now());
            }
            Event::Disconnected { reason } => closed = Some(reason),
        })?;
        player.maybe_ping(&mut client.conn, Instant::now());
        client.flush();
    }
    if let Some(reason) = closed {
        warn!(?reason, "disconnected");
    } else {
        let linger = Instant::now() + Duration::from_millis(100);
        while Instant::now() < linger {
            client.turn(linger, |_, _| {})?;
        }
    }
    let stats = client.conn.stats();
    client.conn.close();
    client.flush();
    Ok(stats)
}
