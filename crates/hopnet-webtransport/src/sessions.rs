//! The async side: accepting sessions and reading their datagrams, in tokio tasks.
//!
//! One task accepts; each session gets a task of its own that reads its datagrams and hands
//! them, with the session's address, to the server's loop through one bounded channel. What
//! the server sends leaves from its own thread (`Connection::send_datagram` does not wait), so
//! these tasks only ever receive.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use tracing::debug;
use wtransport::datagram::Datagram;
use wtransport::endpoint::IncomingSession;
use wtransport::endpoint::endpoint_side::Server;
use wtransport::{Connection, Endpoint, VarInt};

use crate::address::session_address;
use crate::inlet::{PeerControl, bump};

/// The application error code a session is closed with when its datagrams cannot carry a
/// spec datagram.
pub const CLOSE_DATAGRAMS_TOO_SMALL: u32 = 1;
/// The code a session is closed with when its hopnet connection ended or never began.
pub const CLOSE_HOPNET_ENDED: u32 = 2;
/// The code every session is closed with when the server stops.
pub const CLOSE_SERVER_STOPPED: u32 = 3;

/// A datagram from a session.
pub(crate) type Inbound = (SocketAddr, Datagram);

/// A session opened or ended.
pub(crate) type Control = PeerControl<Connection>;

/// Counters the tasks keep; the server reads them into [`WebStats`](crate::WebStats).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Sessions in any state, handshakes included: what `max_sessions` bounds.
    pub live: AtomicUsize,
    pub accepted: AtomicU64,
    pub refused_full: AtomicU64,
    pub refused_small: AtomicU64,
    pub failed: AtomicU64,
    pub inbox_full: AtomicU64,
}

/// What the tasks need to know.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_sessions: usize,
    pub handshake_timeout: Duration,
    /// The smallest datagram a session must carry: the spec's 508 bytes.
    pub min_datagram: usize,
}

/// Where the tasks send what they learn.
#[derive(Clone)]
pub(crate) struct Channels {
    pub datagrams: mpsc::Sender<Inbound>,
    pub control: mpsc::UnboundedSender<Control>,
}

/// Accepts sessions until the endpoint is dropped, each into a task of its own.
pub(crate) async fn accept(
    endpoint: Arc<Endpoint<Server>>,
    limits: Limits,
    channels: Channels,
    counters: Arc<Counters>,
) {
    let mut next: u64 = 1;
    loop {
        let incoming = endpoint.accept().await;
        if counters.live.load(Ordering::Relaxed) >= limits.max_sessions {
            bump(&counters.refused_full);
            incoming.refuse();
            continue;
        }
        counters.live.fetch_add(1, Ordering::Relaxed);
        let addr = session_address(next);
        next += 1;
        tokio::spawn(session(
            incoming,
            addr,
            limits,
            channels.clone(),
            counters.clone(),
        ));
    }
}

/// Counts a session as live until dropped.
struct Live(Arc<Counters>);

impl Drop for Live {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One session: its handshakes, then its datagrams into the channel until it ends.
async fn session(
    incoming: IncomingSession,
    addr: SocketAddr,
    limits: Limits,
    channels: Channels,
    counters: Arc<Counters>,
) {
    let _live = Live(counters.clone());
    let opened = tokio::time::timeout(limits.handshake_timeout, async {
        let request = incoming.await?;
        debug!(path = request.path(), origin = ?request.origin(), "WebTransport session request");
        request.accept().await
    })
    .await;
    let connection = match opened {
        Ok(Ok(connection)) => connection,
        Ok(Err(error)) => {
            debug!(%error, "WebTransport session failed to open");
            bump(&counters.failed);
            return;
        }
        Err(_) => {
            debug!("WebTransport session timed out opening");
            bump(&counters.failed);
            return;
        }
    };
    match connection.max_datagram_size() {
        Some(size) if size >= limits.min_datagram => {}
        size => {
            debug!(
                ?size,
                "WebTransport session refused: its datagrams are too small"
            );
            bump(&counters.refused_small);
            connection.close(
                VarInt::from_u32(CLOSE_DATAGRAMS_TOO_SMALL),
                b"datagrams too small for hopnet",
            );
            return;
        }
    }
    bump(&counters.accepted);
    let opened = Control::Opened {
        addr,
        handle: connection.clone(),
    };
    if channels.control.send(opened).is_err() {
        return;
    }
    while let Ok(datagram) = connection.receive_datagram().await {
        match channels.datagrams.try_send((addr, datagram)) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => bump(&counters.inbox_full),
            Err(mpsc::error::TrySendError::Closed(_)) => break,
        }
    }
    let _ = channels.control.send(Control::Closed { addr });
}
