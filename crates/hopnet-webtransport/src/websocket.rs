//! The WebSocket carrier's async side: the upgrade the site hands over, then one task per
//! socket that moves its binary messages to the server's loop and the loop's datagrams to it.
//!
//! Every bound is per socket or fixed: a message is at most [`MAX_WEBSOCKET_MESSAGE`] bytes
//! (a larger one closes the socket, code 1009), a socket holds at most [`SOCKET_QUEUE`]
//! datagrams waiting to leave (more are dropped and counted, as a full UDP buffer drops), and
//! a socket that cannot take what it is sent for [`WRITE_TIMEOUT`] is closed; only its own
//! task ever waits on it, so a slow socket never holds up another.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message};
use tracing::debug;

use crate::address::websocket_address;
use crate::inlet::{PeerControl, bump};

/// The path on the site's port where WebSocket upgrades are accepted.
pub const WEBSOCKET_PATH: &str = "/hopnet";

/// The largest binary message taken: hopnet's largest datagram, extensions included (the
/// spec's is 508 bytes). One message carries one datagram, so nothing larger is ever needed.
pub const MAX_WEBSOCKET_MESSAGE: usize = 1472;

/// Datagrams that may wait to leave into one socket; more are dropped and counted
/// ([`WebSocketStats::queue_full`](crate::WebSocketStats::queue_full)): room for the largest
/// hopnet message, as a session's send buffer has.
pub const SOCKET_QUEUE: usize = 256;

/// How long a socket may refuse what it is sent (its TCP window shut) before it is closed.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a closing handshake may take before the TCP connection is dropped anyway.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// The close codes the server sends, with the reasons it gives (RFC 6455, section 7.4.1).
pub(crate) const CLOSE_HOPNET_ENDED: (u16, &str) = (1000, "hopnet connection ended");
pub(crate) const CLOSE_SERVER_STOPPED: (u16, &str) = (1001, "server stopped");
pub(crate) const CLOSE_TEXT: (u16, &str) = (1003, "hopnet takes binary messages only");
pub(crate) const CLOSE_TOO_LARGE: (u16, &str) = (1009, "message larger than 1472 bytes");
pub(crate) const CLOSE_PROTOCOL: (u16, &str) = (1002, "WebSocket protocol error");
pub(crate) const CLOSE_STALLED: (u16, &str) = (1008, "socket did not take its datagrams");

/// What the server's loop sends a socket.
#[derive(Debug)]
pub(crate) enum Out {
    Datagram(Bytes),
    Close((u16, &'static str)),
}

/// A socket opened or ended, for the server's loop.
pub(crate) type SocketControl = PeerControl<mpsc::Sender<Out>>;

/// What the socket tasks count; read into [`WebSocketStats`](crate::WebSocketStats).
#[derive(Debug, Default)]
pub(crate) struct SocketCounters {
    pub live: AtomicUsize,
    pub accepted: AtomicU64,
    pub refused_full: AtomicU64,
    pub refused_bad: AtomicU64,
    pub closed_too_large: AtomicU64,
    pub closed_text: AtomicU64,
    pub closed_protocol: AtomicU64,
    pub closed_stalled: AtomicU64,
}

/// What the site needs to hand an upgrade over: where the sockets' messages and openings go.
#[derive(Debug)]
pub(crate) struct Handoff {
    pub datagrams: mpsc::Sender<(SocketAddr, Bytes)>,
    pub control: mpsc::UnboundedSender<SocketControl>,
    pub counters: Arc<SocketCounters>,
    pub max_sockets: usize,
    next: AtomicU64,
}

impl Handoff {
    pub fn new(
        datagrams: mpsc::Sender<(SocketAddr, Bytes)>,
        control: mpsc::UnboundedSender<SocketControl>,
        counters: Arc<SocketCounters>,
        max_sockets: usize,
    ) -> Handoff {
        Handoff {
            datagrams,
            control,
            counters,
            max_sockets,
            next: AtomicU64::new(1),
        }
    }

    /// Counts a request refused before the upgrade (see `upgrade.rs`).
    pub fn refused_bad(&self) {
        bump(&self.counters.refused_bad);
    }
}

/// Counts a socket as live until dropped.
struct Live(Arc<SocketCounters>);

impl Drop for Live {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Answers a valid upgrade request (`key` its `Sec-WebSocket-Key`; `leftover` what the client
/// sent after its head), then runs the socket until it ends. Past `max_sockets` the request is
/// refused with 503 instead.
pub(crate) async fn take(
    handoff: Arc<Handoff>,
    mut stream: TcpStream,
    key: String,
    leftover: Vec<u8>,
) {
    let counters = &handoff.counters;
    if counters.live.fetch_add(1, Ordering::Relaxed) >= handoff.max_sockets {
        counters.live.fetch_sub(1, Ordering::Relaxed);
        bump(&counters.refused_full);
        let body = "too many WebSocket players; try again later";
        let answer = format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, stream.write_all(answer.as_bytes())).await;
        return;
    }
    let _live = Live(counters.clone());
    let accept = derive_accept_key(key.as_bytes());
    let answer = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    match tokio::time::timeout(WRITE_TIMEOUT, stream.write_all(answer.as_bytes())).await {
        Ok(Ok(())) => {}
        _ => return,
    }
    let _ = stream.set_nodelay(true);
    bump(&counters.accepted);
    let ws =
        WebSocketStream::from_partially_read(stream, leftover, Role::Server, Some(config())).await;
    let addr = websocket_address(handoff.next.fetch_add(1, Ordering::Relaxed));
    let (out, outbox) = mpsc::channel(SOCKET_QUEUE);
    if handoff
        .control
        .send(SocketControl::Opened { addr, handle: out })
        .is_err()
    {
        return;
    }
    run(ws, addr, outbox, &handoff).await;
    let _ = handoff.control.send(SocketControl::Closed { addr });
}

/// Messages and frames capped at one datagram; what waits to be written capped too.
pub(crate) fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_WEBSOCKET_MESSAGE))
        .max_frame_size(Some(MAX_WEBSOCKET_MESSAGE))
        .max_write_buffer_size(SOCKET_QUEUE * (MAX_WEBSOCKET_MESSAGE + 14))
}

/// How a socket's loop ended.
enum End {
    /// The peer closed, or the connection broke: nothing more to say.
    Gone,
    /// The server closes it, with this code and reason.
    Close((u16, &'static str)),
}

/// Moves messages both ways until the socket ends, then closes it as it must be.
async fn run(
    mut ws: WebSocketStream<TcpStream>,
    addr: SocketAddr,
    mut outbox: mpsc::Receiver<Out>,
    handoff: &Handoff,
) {
    let counters = &handoff.counters;
    let end = loop {
        tokio::select! {
            incoming = ws.next() => match incoming {
                None => break End::Gone,
                Some(Ok(Message::Binary(datagram))) => {
                    // Waiting here holds the peer back through TCP's window, as a full
                    // socket buffer never does for UDP: nothing it sent is dropped.
                    if handoff.datagrams.send((addr, datagram)).await.is_err() {
                        break End::Close(CLOSE_SERVER_STOPPED);
                    }
                }
                Some(Ok(Message::Text(_))) => {
                    bump(&counters.closed_text);
                    break End::Close(CLOSE_TEXT);
                }
                // Pings are answered by the library; a close is answered, and then the
                // stream ends.
                Some(Ok(_)) => {}
                Some(Err(WsError::Capacity(error))) => {
                    debug!(%addr, %error, "WebSocket message too large");
                    bump(&counters.closed_too_large);
                    break End::Close(CLOSE_TOO_LARGE);
                }
                Some(Err(WsError::Protocol(error))) => {
                    debug!(%addr, %error, "WebSocket protocol error");
                    bump(&counters.closed_protocol);
                    break End::Close(CLOSE_PROTOCOL);
                }
                Some(Err(WsError::Utf8(_))) => {
                    bump(&counters.closed_protocol);
                    break End::Close(CLOSE_PROTOCOL);
                }
                Some(Err(_)) => break End::Gone,
            },
            out = outbox.recv() => {
                let Some(out) = out else {
                    break End::Close(CLOSE_HOPNET_ENDED);
                };
                match tokio::time::timeout(WRITE_TIMEOUT, write(&mut ws, out, &mut outbox)).await {
                    Ok(Ok(None)) => {}
                    Ok(Ok(Some(close))) => break End::Close(close),
                    Ok(Err(_)) => break End::Gone,
                    Err(_) => {
                        bump(&counters.closed_stalled);
                        break End::Close(CLOSE_STALLED);
                    }
                }
            }
        }
    };
    if let End::Close((code, reason)) = end {
        let frame = CloseFrame {
            code: CloseCode::from(code),
            reason: reason.into(),
        };
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, ws.close(Some(frame))).await;
    }
}

/// Writes `first` and whatever else waits, then flushes once; a close asked for ends it.
async fn write(
    ws: &mut WebSocketStream<TcpStream>,
    first: Out,
    outbox: &mut mpsc::Receiver<Out>,
) -> Result<Option<(u16, &'static str)>, WsError> {
    let mut next = Some(first);
    while let Some(out) = next.take() {
        match out {
            Out::Datagram(bytes) => ws.feed(Message::Binary(bytes)).await?,
            Out::Close(close) => {
                ws.flush().await?;
                return Ok(Some(close));
            }
        }
        next = outbox.try_recv().ok();
    }
    ws.flush().await?;
    Ok(None)
}
