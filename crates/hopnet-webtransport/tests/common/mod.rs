//! What the tests share: an echo server on UDP and WebTransport in a thread of its own, and a
//! hopnet client over a WebTransport session (what a page runs, in Rust).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hopnet::{ConnectionId, Delivery, Event, Machine, ServerDriver, proto::Client};
use hopnet_webtransport::{Certificate, Server, Site, WebStats, WebTransportConfig};
use tokio::runtime::Runtime;
use wtransport::tls::Sha256Digest;
use wtransport::{ClientConfig, Endpoint};

/// Loopback, any port.
pub fn any() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// What the echo server saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub events: Vec<(ConnectionId, SocketAddr, Event)>,
    pub stats: WebStats,
    /// The certificate hash after the last `set_certificate`.
    pub hash: Option<[u8; 32]>,
}

impl Seen {
    /// The peers of the connections that were reported `Connected`.
    pub fn connected(&self) -> Vec<SocketAddr> {
        self.events
            .iter()
            .filter(|(_, _, e)| *e == Event::Connected)
            .map(|(_, p, _)| *p)
            .collect()
    }

    /// The reason each connection of `peer` ended.
    pub fn disconnects(&self, peer: SocketAddr) -> Vec<hopnet::DisconnectReason> {
        self.events
            .iter()
            .filter_map(|(_, p, e)| match e {
                Event::Disconnected { reason } if *p == peer => Some(*reason),
                _ => None,
            })
            .collect()
    }
}

/// A server in a thread of its own that sends every message back as it came (reliable or
/// not), and closes a connection that sends `bye`.
pub struct EchoServer {
    pub udp: SocketAddr,
    pub web: SocketAddr,
    /// The site's port (TCP), where WebSockets are taken too.
    pub site: SocketAddr,
    pub hash: [u8; 32],
    pub seen: Arc<Mutex<Seen>>,
    /// A certificate for the server to present from its next turn on.
    pub next_certificate: Arc<Mutex<Option<Certificate>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl EchoServer {
    pub fn start() -> EchoServer {
        Self::start_with(|_| {})
    }

    /// With the WebTransport configuration changed by `tweak`.
    pub fn start_with(tweak: impl FnOnce(&mut WebTransportConfig)) -> EchoServer {
        Self::start_with_config(hopnet::Config::default(), tweak)
    }

    /// With hopnet's `config`, and the WebTransport configuration changed by `tweak`.
    pub fn start_with_config(
        config: hopnet::Config,
        tweak: impl FnOnce(&mut WebTransportConfig),
    ) -> EchoServer {
        let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
        let mut web = WebTransportConfig::new(any(), certificate);
        tweak(&mut web);
        let mut server = Server::bind(any(), web, config).unwrap();
        let udp = server.local_addr().unwrap();
        let web = server.web_addr();
        let site = server.serve_site(any(), Site::new()).unwrap();
        let hash = server.certificate_hash().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let next_certificate: Arc<Mutex<Option<Certificate>>> = Arc::default();
        let thread = std::thread::spawn({
            let (seen, stop, next) = (seen.clone(), stop.clone(), next_certificate.clone());
            move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(c) = next.lock().unwrap().take() {
                        server.set_certificate(c).unwrap();
                        seen.lock().unwrap().hash = server.certificate_hash();
                    }
                    server.poll(Duration::from_millis(5)).unwrap();
                    while let Some(ev) = server.poll_event() {
                        if let Event::Message { bytes, reliable } = &ev.event {
                            if bytes == b"bye" {
                                server.close(ev.connection).unwrap();
                            } else {
                                let delivery = if *reliable {
                                    Delivery::Reliable
                                } else {
                                    Delivery::Unreliable
                                };
                                // An echo to a connection that just ended has nowhere to go.
                                let _ = server.queue(ev.connection, bytes, delivery);
                            }
                        }
                        seen.lock()
                            .unwrap()
                            .events
                            .push((ev.connection, ev.peer, ev.event));
                    }
                    seen.lock().unwrap().stats = server.web_stats();
                }
            }
        });
        EchoServer {
            udp,
            web,
            site,
            hash,
            seen,
            next_certificate,
            stop,
            thread: Some(thread),
        }
    }

    /// The URL of the server's WebSocket carrier.
    pub fn websocket_url(&self) -> String {
        format!("ws://{}{}", self.site, hopnet_webtransport::WEBSOCKET_PATH)
    }

    /// Waits until `done` holds of what the server saw, or fails after `within`.
    pub fn wait_for(&self, within: Duration, what: &str, done: impl Fn(&Seen) -> bool) {
        let end = Instant::now() + within;
        while Instant::now() < end {
            if done(&self.seen.lock().unwrap()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!(
            "the server never saw {what}: {:#?}",
            self.seen.lock().unwrap()
        );
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Opens a WebTransport session to `web`, trusting the certificate of hash `hash`.
pub fn open_session(
    runtime: &Runtime,
    web: SocketAddr,
    hash: [u8; 32],
    quic: impl FnOnce(&mut ClientConfig),
) -> Result<wtransport::Connection, wtransport::error::ConnectingError> {
    runtime.block_on(async {
        let mut config = ClientConfig::builder()
            .with_bind_default()
            .with_server_certificate_hashes([Sha256Digest::new(hash)])
            .build();
        quic(&mut config);
        let endpoint = Endpoint::client(config).unwrap();
        endpoint
            .connect(format!("https://127.0.0.1:{}/", web.port()))
            .await
    })
}

/// A hopnet client over a WebTransport session: what a page runs, in Rust.
pub struct WebClient {
    pub runtime: Runtime,
    pub session: wtransport::Connection,
    pub hopnet: Client,
    server: SocketAddr,
    buf: Vec<u8>,
    /// Whether the session ended, and how the server closed it (its application code).
    pub session_closed: Option<wtransport::error::ConnectionError>,
}

impl WebClient {
    pub fn connect(web: SocketAddr, hash: [u8; 32]) -> WebClient {
        // QUIC runs in the background, as in a browser, whether or not the test polls.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let session = open_session(&runtime, web, hash, |_| {}).expect("the session opens");
        WebClient {
            hopnet: Client::new(hopnet::Config::default(), web, Instant::now()),
            runtime,
            session,
            server: web,
            buf: Vec::new(),
            session_closed: None,
        }
    }

    /// Sends a raw datagram into the session (not through hopnet).
    pub fn send_raw(&self, datagram: &[u8]) {
        self.session.send_datagram(datagram).unwrap();
    }

    /// One round: sends what hopnet has, waits at most `wait` for a datagram, runs timers.
    pub fn poll(&mut self, wait: Duration) {
        self.flush();
        let now = Instant::now();
        let deadline = self
            .hopnet
            .poll_timeout()
            .map_or(now + wait, |t| t.min(now + wait));
        if self.session_closed.is_none() {
            let session = self.session.clone();
            let got = self.runtime.block_on(async move {
                tokio::select! {
                    d = session.receive_datagram() => Some(d),
                    _ = tokio::time::sleep_until(deadline.into()) => None,
                }
            });
            match got {
                Some(Ok(d)) => self.hopnet.handle(Instant::now(), self.server, &d),
                Some(Err(e)) => self.session_closed = Some(e),
                None => {}
            }
        } else {
            std::thread::sleep(deadline.saturating_duration_since(now));
        }
        let now = Instant::now();
        if self.hopnet.poll_timeout().is_some_and(|t| t <= now) {
            self.hopnet.handle_timeout(now);
        }
        self.flush();
    }

    fn flush(&mut self) {
        while let Some(t) = self.hopnet.poll_transmit(Instant::now(), &mut self.buf, 64) {
            for d in t.split(&self.buf) {
                // After the session closed, datagrams go nowhere, as over a dead link.
                let _ = self.session.send_datagram(d);
            }
        }
    }

    /// Polls until `done`, collecting events; fails after `within`.
    pub fn run_until(
        &mut self,
        within: Duration,
        what: &str,
        mut done: impl FnMut(&mut WebClient, &[Event]) -> bool,
    ) -> Vec<Event> {
        let end = Instant::now() + within;
        let mut events = Vec::new();
        while Instant::now() < end {
            self.poll(Duration::from_millis(5));
            while let Some(e) = self.hopnet.poll_event() {
                events.push(e);
            }
            if done(self, &events) {
                return events;
            }
        }
        panic!("the web client never saw {what}: {events:?}");
    }

    /// Sends `bytes` reliably and polls until the echo server's copy comes back; fails after
    /// `within`.
    pub fn echo(&mut self, bytes: &[u8], within: Duration) {
        self.hopnet.send(bytes, hopnet::Delivery::Reliable).unwrap();
        self.run_until(within, "the echo", |_, events| {
            events
                .iter()
                .any(|e| matches!(e, Event::Message { bytes: b, .. } if b == bytes))
        });
    }

    /// Polls until hopnet reports `Connected`.
    pub fn wait_connected(&mut self) {
        self.run_until(Duration::from_secs(10), "Connected", |_, e| {
            e.contains(&Event::Connected)
        });
    }
}
