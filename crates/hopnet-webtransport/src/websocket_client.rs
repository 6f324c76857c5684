//! A hopnet client over a WebSocket: for a player whose network lets no UDP through, and for
//! tests of the carrier from Rust.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{FutureExt, SinkExt, StreamExt};
use hopnet::{ClientDriver, Machine};
use tokio::net::TcpStream;
use tokio::runtime::Runtime;
use tokio_tungstenite::tungstenite::{Bytes, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::error::Error;
use crate::websocket::{WRITE_TIMEOUT, config};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Datagrams per transmit asked of the machine.
const BATCH: usize = 64;
/// Messages taken per `poll` at most, so that a flood cannot hold up the caller's tick.
const MAX_RECV_PER_POLL: usize = 4096;
/// How long opening the socket (TCP and the upgrade) may take: hopnet's connect timeout's
/// default, before its own handshake starts.
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);
/// A header-only `END`, handed to the machine when the socket ends under it.
const END: [u8; 4] = [0x08, 0, 0, 0];

/// A hopnet client whose datagrams travel over a WebSocket, one binary message each, to a
/// [`Server`](crate::Server)'s [`WEBSOCKET_PATH`](crate::WEBSOCKET_PATH). A
/// [`ClientDriver`], so a game's loop written for UDP's [`hopnet::Client`] runs on it.
///
/// The machine runs unchanged: its handshake, ACKs and retransmissions travel as over UDP
/// (TCP loses nothing, so retransmissions never fire for loss). A socket that ends is, to
/// the machine, the server sending `END`. Like the server, it owns a small tokio runtime, so
/// use it from synchronous code.
///
/// ```no_run
/// use std::time::Duration;
/// use hopnet::{ClientDriver, Delivery};
/// use hopnet_webtransport::WebSocketClient;
///
/// let mut client = WebSocketClient::connect("ws://127.0.0.1:8080/hopnet", hopnet::Config::default())?;
/// client.wait_connected()?;
/// client.send(b"hello", Delivery::Reliable)?;
/// loop {
///     client.poll(Duration::from_millis(16))?;
///     while let Some(event) = client.poll_event() {
///         println!("{event:?}");
///     }
/// }
/// # Ok::<(), hopnet_webtransport::Error>(())
/// ```
#[derive(Debug)]
pub struct WebSocketClient {
    machine: hopnet::proto::Client,
    socket: Option<Socket>,
    peer: SocketAddr,
    local: SocketAddr,
    buf: Vec<u8>,
    runtime: Runtime,
}

impl WebSocketClient {
    /// Opens a WebSocket to `url` (`ws://host:port/hopnet`) and starts hopnet's handshake in
    /// it. Fails if the socket cannot be opened within 10 s; the
    /// handshake's outcome comes later, as over UDP ([`wait_connected`](Self::wait_connected)).
    pub fn connect(url: &str, config: hopnet::Config) -> Result<WebSocketClient, Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let opened = runtime.block_on(async {
            tokio::time::timeout(
                OPEN_TIMEOUT,
                tokio_tungstenite::connect_async_with_config(url, Some(self::config()), true),
            )
            .await
        });
        let socket = match opened {
            Ok(Ok((socket, _))) => socket,
            Ok(Err(e)) => return Err(Error::WebSocket(format!("{url}: {e}"))),
            Err(_) => return Err(Error::WebSocket(format!("{url}: timed out opening"))),
        };
        let MaybeTlsStream::Plain(tcp) = socket.get_ref() else {
            return Err(Error::WebSocket(format!("{url}: only ws:// is supported")));
        };
        let (peer, local) = (tcp.peer_addr()?, tcp.local_addr()?);
        Ok(WebSocketClient {
            machine: hopnet::proto::Client::new(config, peer, Instant::now()),
            socket: Some(socket),
            peer,
            local,
            buf: Vec::new(),
            runtime,
        })
    }

    /// Polls until connected, or fails with the handshake's error if the connection closes
    /// first (the connect timeout passed, or the socket ended).
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.machine.is_connected() {
            if self.machine.is_closed() {
                return Err(self.machine.closed_error().into());
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }

    /// Whether the WebSocket is still open (the hopnet connection may have ended first).
    pub fn is_open(&self) -> bool {
        self.socket.is_some()
    }

    /// One round of I/O (see [`hopnet::Carrier::poll`]).
    pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        let now = Instant::now();
        self.run_timers(now);
        self.flush()?;
        if self.drain() == 0 && !max_wait.is_zero() {
            let mut deadline = now + max_wait;
            if let Some(t) = self.machine.poll_timeout() {
                deadline = deadline.min(t);
            }
            match self.socket.as_mut() {
                Some(socket) => {
                    let next = self.runtime.block_on(async {
                        tokio::time::timeout_at(deadline.into(), socket.next()).await
                    });
                    if let Ok(next) = next {
                        self.take(next);
                        self.drain();
                    }
                }
                // Nothing can arrive: the wait is the caller's pace, not a spin.
                None => std::thread::sleep(deadline.saturating_duration_since(now)),
            }
        }
        self.run_timers(Instant::now());
        self.flush()
    }

    /// Sends what the machine has, each datagram a binary message. A socket that takes
    /// nothing for [`WRITE_TIMEOUT`] is dropped, and the connection ends.
    pub fn flush(&mut self) -> Result<(), Error> {
        let now = Instant::now();
        let mut messages = Vec::new();
        while let Some(transmit) = self.machine.poll_transmit(now, &mut self.buf, BATCH) {
            messages.extend(transmit.split(&self.buf).map(Bytes::copy_from_slice));
        }
        let Some(socket) = self.socket.as_mut().filter(|_| !messages.is_empty()) else {
            return Ok(());
        };
        let written = self.runtime.block_on(async {
            tokio::time::timeout(WRITE_TIMEOUT, async {
                for message in messages {
                    socket.feed(Message::Binary(message)).await?;
                }
                socket.flush().await
            })
            .await
        });
        if !matches!(written, Ok(Ok(()))) {
            self.ended();
        }
        Ok(())
    }

    /// The sans-I/O machine (see [`ClientDriver::machine`]).
    pub fn machine(&mut self) -> &mut hopnet::proto::Client {
        &mut self.machine
    }

    /// Takes the messages already there, without waiting.
    fn drain(&mut self) -> usize {
        let mut count = 0;
        while count < MAX_RECV_PER_POLL {
            let Some(socket) = self.socket.as_mut() else {
                break;
            };
            let Some(next) = self
                .runtime
                .block_on(async { socket.next().now_or_never() })
            else {
                break;
            };
            self.take(next);
            count += 1;
        }
        count
    }

    /// Hands one message to the machine; the socket's end is the server's `END`.
    fn take(&mut self, next: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>) {
        match next {
            Some(Ok(Message::Binary(datagram))) => {
                self.machine.handle(Instant::now(), self.peer, &datagram)
            }
            // A server of this crate sends nothing else; pings are answered by the library.
            Some(Ok(_)) => {}
            None | Some(Err(_)) => self.ended(),
        }
    }

    fn ended(&mut self) {
        if self.socket.take().is_some() {
            self.machine.handle(Instant::now(), self.peer, &END);
        }
    }

    fn run_timers(&mut self, now: Instant) {
        if self.machine.poll_timeout().is_some_and(|t| t <= now) {
            self.machine.handle_timeout(now);
        }
    }
}

impl Drop for WebSocketClient {
    /// Sends what is queued (the `END` of a closed connection) and closes the socket.
    fn drop(&mut self) {
        let _ = self.flush();
        if let Some(mut socket) = self.socket.take() {
            self.runtime.block_on(async {
                let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
            });
        }
    }
}

/// A game's loop written for [`ClientDriver`] runs on a WebSocket as on UDP.
impl hopnet::Carrier for WebSocketClient {
    type Error = Error;

    fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
        WebSocketClient::poll(self, max_wait)
    }

    fn flush(&mut self) -> Result<(), Error> {
        WebSocketClient::flush(self)
    }

    fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.local)
    }
}

impl ClientDriver for WebSocketClient {
    fn machine(&mut self) -> &mut hopnet::proto::Client {
        WebSocketClient::machine(self)
    }
}
