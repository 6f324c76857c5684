//! The driver: one [`hopnet::proto::Server`] fed by a UDP socket, by WebTransport sessions and
//! by WebSockets.

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};

use hopnet::SideChannel;
use hopnet::{ConnectionId, Delivery, Machine};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Bytes;
use tracing::{info, warn};
use wtransport::{ServerConfig, VarInt};

use crate::address::{is_session_address, is_websocket_address};
use crate::certificate::Certificate;
use crate::certificate::Renewal;
use crate::config::WebTransportConfig;
use crate::error::Error;
use crate::inlet::Inlet;
use crate::sessions::{self, CLOSE_SERVER_STOPPED, Channels, Control, Counters, Inbound, Limits};
use crate::site::{self, Site, Upgrades};
use crate::sockets::Sockets;
use crate::stats::WebStats;
use crate::udp::Udp;
use crate::web::Web;
use crate::websocket::{Handoff, SocketControl, SocketCounters};

/// Datagrams handled per `poll` from each side at most, so that one flood cannot starve the
/// caller's tick.
const MAX_RECV_PER_POLL: usize = 4096;
/// Datagrams per transmit asked of the endpoint.
const BATCH: usize = 64;
/// How often sessions are checked for a hopnet connection that ended.
const UPKEEP_EVERY: Duration = Duration::from_millis(50);
/// How long a dropped server waits for QUIC to tell the sessions it closed.
const CLOSE_WAIT: Duration = Duration::from_millis(100);

/// A hopnet server whose clients come over UDP and, from browsers, over WebTransport (or,
/// where that cannot go, over a WebSocket on the site's port, see
/// [`serve_site`](Server::serve_site)): one [`hopnet::proto::Server`], one game, every kind of
/// client.
///
/// Each WebTransport session's datagrams carry hopnet datagrams, byte for byte what a UDP
/// client sends, so the handshake, delivery modes, ordering and extensions are the same. The
/// endpoint knows a session by an address this driver gives it ([`is_session_address`]), and
/// whatever it sends there goes into the session. A session that ends is, to the endpoint, its
/// peer sending `END`; a hopnet connection that ends (closed by the game, timed out) closes its
/// session a moment later, and a session that goes
/// [`unused_session_timeout`](WebTransportConfig::unused_session_timeout) without a connection
/// is closed too.
///
/// It is driven like [`hopnet::Server`]: [`poll`](Server::poll) does one round
/// of I/O, waiting at most as long as the caller allows, then events are read through
/// [`machine`](Server::machine); both implement [`ServerDriver`](hopnet::ServerDriver), so a
/// game's loop written once runs on either, and its `poll_event`, `send` (which flushes) and
/// `close` are this server's.
/// QUIC runs on a
/// tokio runtime of one worker thread that the server owns; nothing of it shows, but it means a
/// `Server` is for synchronous code: use (and drop) it outside any async runtime, on a thread
/// of its own if the game is async.
///
/// ```no_run
/// use hopnet::ServerDriver;
/// use hopnet_webtransport::{Certificate, Server, WebTransportConfig};
/// use std::time::Duration;
///
/// let certificate = Certificate::self_signed(["localhost", "127.0.0.1"])?;
/// let web = WebTransportConfig::new("127.0.0.1:8080".parse().unwrap(), certificate);
/// let mut server = Server::bind("127.0.0.1:7000".parse().unwrap(), web, hopnet::Config::default())?;
/// loop {
///     server.poll(Duration::from_millis(16))?;
///     while let Some(event) = server.poll_event() {
///         println!("{:?} from {}", event.event, event.peer);
///     }
/// }
/// # Ok::<(), hopnet_webtransport::Error>(())
/// ```
pub struct Server {
    endpoint: hopnet::proto::Server,
    udp: Udp,
    web: Web,
    sockets: Sockets,
    /// What the site hands WebSocket upgrades to.
    handoff: Arc<Handoff>,
    head_timeout: Duration,
    page_hash: Option<[u8; 32]>,
    /// `/webtransport.json` as the site serves it.
    info: site::Info,
    renewal: Option<Renewal>,
    quic_idle_timeout: Duration,
    /// Another protocol's datagrams on the UDP socket (server queries), if set.
    side: Option<SideChannel>,
    buf: Vec<u8>,
    next_upkeep: Instant,
    accepting: tokio::task::JoinHandle<()>,
    // Dropped last: the sockets above are registered with it.
    runtime: Runtime,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("udp", &self.udp.socket.local_addr().ok())
            .field("web", &self.web.addr)
            .field("stats", &self.web_stats())
            .finish_non_exhaustive()
    }
}

/// What woke a wait.
enum Woken {
    Nothing,
    Datagram(Inbound),
    Control(Control),
    Message((SocketAddr, Bytes)),
    Socket(SocketControl),
}

impl Server {
    /// Binds `udp` for hopnet's UDP clients and `web.bind` for WebTransport sessions, and
    /// starts accepting both.
    pub fn bind(
        udp: SocketAddr,
        web: WebTransportConfig,
        config: hopnet::Config,
    ) -> Result<Server, Error> {
        if web.max_sessions == 0 || web.max_websockets == 0 || web.inbox == 0 {
            return Err(Error::Config(
                "max_sessions, max_websockets and inbox must be at least 1".into(),
            ));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hopnet-webtransport")
            .enable_all()
            .build()?;
        let _guard = runtime.enter();

        let socket = std::net::UdpSocket::bind(udp)?;
        socket.set_nonblocking(true)?;
        let udp = Udp::new(socket)?;

        let quic = quic_config(web.bind, &web.certificate, web.quic_idle_timeout)?;
        let wt = Arc::new(wtransport::Endpoint::server(quic)?);
        let addr = wt.local_addr()?;

        let (datagram_tx, datagrams) = mpsc::channel(web.inbox);
        let (control_tx, control) = mpsc::unbounded_channel();
        let counters = Arc::new(Counters::default());
        let limits = Limits {
            max_sessions: web.max_sessions,
            handshake_timeout: web.handshake_timeout,
            min_datagram: hopnet::SPEC_DATAGRAM,
        };
        let accepting = runtime.spawn(sessions::accept(
            wt.clone(),
            limits,
            Channels {
                datagrams: datagram_tx,
                control: control_tx,
            },
            counters.clone(),
        ));
        drop(_guard);
        let (message_tx, messages) = mpsc::channel(web.inbox);
        let (socket_tx, socket_control) = mpsc::unbounded_channel();
        let socket_counters = Arc::new(SocketCounters::default());
        let handoff = Arc::new(Handoff::new(
            message_tx,
            socket_tx,
            socket_counters.clone(),
            web.max_websockets,
        ));
        Ok(Server {
            endpoint: hopnet::proto::Server::new(config),
            udp,
            web: Web::new(
                wt,
                addr,
                Inlet::new(datagrams, control, web.unused_session_timeout),
                counters,
            ),
            sockets: Sockets::new(
                Inlet::new(messages, socket_control, web.unused_session_timeout),
                socket_counters,
            ),
            handoff,
            head_timeout: web.handshake_timeout,
            page_hash: web.certificate.page_hash(),
            info: Arc::new(RwLock::new(
                site::info_json(addr.port(), web.certificate.page_hash())
                    .into_bytes()
                    .into(),
            )),
            renewal: web.certificate.renewal(),
            quic_idle_timeout: web.quic_idle_timeout,
            side: None,
            buf: Vec::new(),
            next_upkeep: Instant::now(),
            accepting,
            runtime,
        })
    }

    /// The UDP address hopnet's clients connect to.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.udp.socket.local_addr()?)
    }

    /// The UDP address WebTransport listens on (`https://host:port/` to a page).
    pub fn web_addr(&self) -> SocketAddr {
        self.web.addr
    }

    /// The SHA-256 hash of the certificate that a page pins, if it is trusted by hash.
    pub fn certificate_hash(&self) -> Option<[u8; 32]> {
        self.page_hash
    }

    /// Serves `site` over HTTP on `addr` (TCP), with `/webtransport.json` added: the
    /// WebTransport port and the certificate's hash, which the page needs to open its session
    /// (see [`Site`]). Returns the bound address.
    ///
    /// The same port takes WebSockets on [`WEBSOCKET_PATH`](crate::WEBSOCKET_PATH)
    /// (`ws://host:port/hopnet`): each binary message one hopnet datagram, each socket a peer
    /// of this server as a session is. Where a browser has no WebTransport, or a network lets
    /// no UDP through, a client plays over it (see the crate's documentation for what TCP
    /// changes). The page must come from the host WebTransport
    /// listens on, and a browser grants WebTransport only to a secure context: `localhost` and
    /// `127.0.0.1` over plain HTTP are one, any other host needs HTTPS in front.
    pub fn serve_site(&mut self, addr: SocketAddr, site: Site) -> Result<SocketAddr, Error> {
        let _guard = self.runtime.enter();
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let bound = listener.local_addr()?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let upgrades = Upgrades {
            handoff: self.handoff.clone(),
            head_timeout: self.head_timeout,
        };
        self.runtime.spawn(site::serve(
            listener,
            Arc::new(site),
            self.info.clone(),
            upgrades,
        ));
        Ok(bound)
    }

    /// One round of I/O: runs due timers, sends what is queued, waits at most `max_wait` for a
    /// datagram from either side (zero: never), takes every datagram already there, and sends
    /// the answers. Then read the events.
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        let now = Instant::now();
        self.run_timers(now);
        self.flush_at(now);
        let received = self.drain(now);
        if received == 0 && !max_wait.is_zero() {
            let mut deadline = now + max_wait;
            if let Some(t) = self.endpoint.poll_timeout() {
                deadline = deadline.min(t);
            }
            if !self.web.inlet.peers.is_empty() || !self.sockets.inlet.peers.is_empty() {
                deadline = deadline.min(self.next_upkeep);
            }
            let woken = self.wait(deadline);
            let now = Instant::now();
            match woken {
                Woken::Nothing => {}
                Woken::Datagram(inbound) => {
                    self.web.inlet.on_datagram(inbound, &mut self.endpoint, now)
                }
                Woken::Control(control) => {
                    self.web.inlet.on_control(control, &mut self.endpoint, now)
                }
                Woken::Message(message) => {
                    self.sockets
                        .inlet
                        .on_datagram(message, &mut self.endpoint, now)
                }
                Woken::Socket(control) => {
                    self.sockets
                        .inlet
                        .on_control(control, &mut self.endpoint, now)
                }
            }
            self.drain(now);
        }
        let now = Instant::now();
        self.run_timers(now);
        if now >= self.next_upkeep {
            self.web.upkeep(&self.endpoint, now);
            self.sockets.upkeep(&self.endpoint, now);
            self.renew_certificate();
            self.next_upkeep = now + UPKEEP_EVERY;
        }
        self.flush_at(now);
        Ok(())
    }

    /// Presents `certificate` to the sessions that open from now on (those open keep theirs),
    /// and names its hash in `/webtransport.json`. A self-signed certificate made here is
    /// renewed this way by itself (see [`Certificate`]).
    pub fn set_certificate(&mut self, certificate: Certificate) -> Result<(), Error> {
        let quic = quic_config(self.web.addr, &certificate, self.quic_idle_timeout)?;
        self.web.endpoint.reload_config(quic, false)?;
        self.page_hash = certificate.page_hash();
        self.renewal = certificate.renewal();
        let json = site::info_json(self.web.addr.port(), self.page_hash);
        let mut info = self.info.write().unwrap_or_else(|e| e.into_inner());
        *info = json.into_bytes().into();
        Ok(())
    }

    /// Replaces a self-signed certificate made here once it is due.
    fn renew_certificate(&mut self) {
        let Some(renewal) = self.renewal.as_ref().filter(|r| SystemTime::now() >= r.due) else {
            return;
        };
        match renewal.renew().and_then(|c| {
            let hash = c.hash_hex();
            self.set_certificate(c).map(|()| hash)
        }) {
            Ok(hash) => info!(certificate_sha256 = %hash, "self-signed certificate renewed"),
            Err(error) => {
                warn!(%error, "cannot renew the self-signed certificate; trying again in a minute");
                if let Some(r) = &mut self.renewal {
                    r.due = SystemTime::now() + Duration::from_secs(60);
                }
            }
        }
    }

    /// Sends what is queued, as far as the congestion windows allow.
    pub fn flush(&mut self) -> Result<(), Error> {
        self.flush_at(Instant::now());
        Ok(())
    }

    /// Queues a message without sending anything yet: the next `flush`,
    /// [`send`](hopnet::ServerDriver::send) or [`poll`](Self::poll) sends it, together with
    /// whatever else is queued.
    pub fn queue(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        Ok(self.endpoint.send(id, bytes, delivery)?)
    }

    /// Hands back a message's buffer once read (see [`hopnet::proto::Server::recycle`]).
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.endpoint.recycle(bytes)
    }

    /// The state machine, for everything else: statistics, connections, events.
    pub fn machine(&mut self) -> &mut hopnet::proto::Server {
        &mut self.endpoint
    }

    /// Hands the UDP datagrams longer than four bytes that start with the side channel's
    /// prefix to it instead of hopnet, and sends what it queues over UDP (see
    /// [`SideChannel`]); `None` removes it (and what it held). As on hopnet's UDP driver:
    /// server queries on the game's port. Sessions' datagrams are always hopnet's.
    pub fn set_side_channel(&mut self, side: Option<SideChannel>) {
        self.side = side;
    }

    /// The side channel, if one is set: read what it claimed and queue the answers here.
    pub fn side_channel(&mut self) -> Option<&mut SideChannel> {
        self.side.as_mut()
    }

    /// The carrier's counters.
    pub fn web_stats(&self) -> WebStats {
        let mut stats = WebStats::default();
        self.web.fill_stats(&mut stats);
        stats.udp_sent = self.udp.sent;
        stats.udp_received = self.udp.received;
        stats.udp_send_errors = self.udp.send_errors;
        stats.websocket = self.sockets.stats();
        stats
    }

    fn run_timers(&mut self, now: Instant) {
        if self.endpoint.poll_timeout().is_some_and(|t| t <= now) {
            self.endpoint.handle_timeout(now);
        }
    }

    /// Sends what the endpoint has, each transmit to its side, until it has nothing more or
    /// the UDP socket is full.
    fn flush_at(&mut self, now: Instant) {
        if !self.udp.send_stalled() {
            return;
        }
        while let Some((to, answer)) = self.side.as_mut().and_then(SideChannel::next_answer) {
            self.udp.send(to, &answer);
        }
        while let Some(transmit) = self.endpoint.poll_transmit(now, &mut self.buf, BATCH) {
            let datagrams = transmit.split(&self.buf);
            if is_websocket_address(transmit.destination) {
                self.sockets.send(transmit.destination, datagrams);
            } else if is_session_address(transmit.destination) {
                self.web.send(transmit.destination, datagrams);
            } else {
                for datagram in datagrams {
                    self.udp.send(transmit.destination, datagram);
                }
                if self.udp.is_stalled() {
                    return;
                }
            }
        }
    }

    /// Takes what both sides hold, without waiting; returns how many datagrams.
    fn drain(&mut self, now: Instant) -> usize {
        let mut count = 0;
        self.web.inlet.drain_control(&mut self.endpoint, now);
        while count < MAX_RECV_PER_POLL {
            let Some((from, datagram)) = self.udp.try_recv() else {
                break;
            };
            if !self.side.as_mut().is_some_and(|s| s.offer(from, datagram)) {
                self.endpoint.handle(now, from, datagram);
            }
            count += 1;
        }
        let endpoint = &mut self.endpoint;
        count
            + self.web.inlet.drain(endpoint, now, MAX_RECV_PER_POLL)
            + self.sockets.inlet.drain(endpoint, now, MAX_RECV_PER_POLL)
    }

    /// Waits until a datagram or a session's or socket's opening or end arrives, the UDP
    /// socket can take
    /// what waits for it, or `deadline`.
    fn wait(&mut self, deadline: Instant) -> Woken {
        let Server {
            runtime,
            udp,
            web,
            sockets,
            ..
        } = self;
        let stalled = udp.is_stalled();
        runtime.block_on(async {
            tokio::select! {
                _ = udp.socket.readable() => Woken::Nothing,
                _ = udp.socket.writable(), if stalled => Woken::Nothing,
                Some(inbound) = web.inlet.datagrams.recv() => Woken::Datagram(inbound),
                Some(control) = web.inlet.control.recv() => Woken::Control(control),
                Some(message) = sockets.inlet.datagrams.recv() => Woken::Message(message),
                Some(control) = sockets.inlet.control.recv() => Woken::Socket(control),
                _ = tokio::time::sleep_until(deadline.into()) => Woken::Nothing,
            }
        })
    }
}

/// A game's loop written for [`ServerDriver`](hopnet::ServerDriver) runs on this carrier
/// as on UDP alone, side channel included.
impl hopnet::Carrier for Server {
    type Error = Error;

    fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        Server::poll(self, max_wait)
    }

    fn flush(&mut self) -> Result<(), Error> {
        Server::flush(self)
    }

    fn local_addr(&self) -> Result<SocketAddr, Error> {
        Server::local_addr(self)
    }
}

/// The machine, and the side channel the carrier has.
impl hopnet::ServerDriver for Server {
    fn machine(&mut self) -> &mut hopnet::proto::Server {
        Server::machine(self)
    }

    fn side_channel(&mut self) -> Option<&mut SideChannel> {
        Server::side_channel(self)
    }

    fn set_side_channel(&mut self, side: Option<SideChannel>) -> Result<(), Error> {
        Server::set_side_channel(self, side);
        Ok(())
    }
}

/// Bytes of datagrams a session may hold before the carrier's task reads them (quinn drops the
/// oldest beyond it); the task reads at once, so this only absorbs a stall.
const SESSION_DATAGRAMS_IN: usize = 128 * 1024;
/// Bytes of datagrams waiting to leave into one session (quinn drops the oldest beyond it):
/// room for the largest hopnet message, 256 datagrams.
const SESSION_DATAGRAMS_OUT: usize = 512 * 1024;
/// Streams a page may open, and what each may hold: HTTP/3 needs a few (the session's request,
/// its control and QPACK streams); hopnet uses none, so what a page sends on others is never
/// read, and these windows are all it can make a server keep.
const SESSION_BIDI_STREAMS: u32 = 4;
const SESSION_UNI_STREAMS: u32 = 8;
const SESSION_STREAM_WINDOW: u32 = 64 * 1024;
const SESSION_RECEIVE_WINDOW: u32 = 256 * 1024;

/// The QUIC side's configuration: where, with which certificate, QUIC's idle timeout, and each
/// session's buffers bounded: with the defaults a page could make the server hold megabytes on
/// streams nobody reads.
fn quic_config(
    bind: SocketAddr,
    certificate: &Certificate,
    idle_timeout: Duration,
) -> Result<ServerConfig, Error> {
    use wtransport::quinn::{IdleTimeout, TransportConfig, VarInt as QuicVarInt};
    let mut transport = TransportConfig::default();
    transport
        .max_idle_timeout(Some(
            IdleTimeout::try_from(idle_timeout)
                .map_err(|_| Error::Config("quic_idle_timeout is too long".into()))?,
        ))
        .datagram_receive_buffer_size(Some(SESSION_DATAGRAMS_IN))
        .datagram_send_buffer_size(SESSION_DATAGRAMS_OUT)
        .max_concurrent_bidi_streams(QuicVarInt::from_u32(SESSION_BIDI_STREAMS))
        .max_concurrent_uni_streams(QuicVarInt::from_u32(SESSION_UNI_STREAMS))
        .stream_receive_window(QuicVarInt::from_u32(SESSION_STREAM_WINDOW))
        .receive_window(QuicVarInt::from_u32(SESSION_RECEIVE_WINDOW));
    Ok(ServerConfig::builder()
        .with_bind_address(bind)
        .with_custom_transport(certificate.identity(), transport)
        .build())
}

impl Drop for Server {
    fn drop(&mut self) {
        // The accepting task ends first: `wtransport` panics in an accept on a closed endpoint.
        self.accepting.abort();
        let _ = self.runtime.block_on(&mut self.accepting);
        if self.sockets.close_all() > 0 {
            // The sockets' tasks send their close frames meanwhile.
            self.runtime
                .block_on(async { tokio::time::sleep(CLOSE_WAIT).await });
        }
        self.web
            .endpoint
            .close(VarInt::from_u32(CLOSE_SERVER_STOPPED), b"server stopped");
        let endpoint = self.web.endpoint.clone();
        self.runtime.block_on(async move {
            let _ = tokio::time::timeout(CLOSE_WAIT, endpoint.wait_idle()).await;
        });
    }
}
