//! The WebSocket side of the server's loop: the open sockets by address, what the endpoint
//! sends them, and when the server closes one.
//!
//! A socket is a peer of the endpoint as a session is: its messages are handed to it from the
//! socket's address, a socket that ends is its peer sending `END`, and a hopnet connection
//! that ends closes its socket a moment later.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hopnet::Machine;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_tungstenite::tungstenite::Bytes;

use crate::stats::WebSocketStats;
use crate::websocket::{CLOSE_SERVER_STOPPED, Out, SocketControl, SocketCounters};

/// How long a socket stays open after its hopnet connection ended, so that what was queued for
/// it (the `END`) leaves first.
const CLOSE_GRACE: Duration = Duration::from_millis(250);

/// A header-only `END`, handed to the endpoint when a socket ends under its connection.
const END: [u8; 4] = [0x08, 0, 0, 0];

#[derive(Debug)]
struct Socket {
    out: mpsc::Sender<Out>,
    connected: bool,
    unused_since: Instant,
}

pub(crate) struct Sockets {
    sockets: HashMap<SocketAddr, Socket>,
    pub datagrams: mpsc::Receiver<(SocketAddr, Bytes)>,
    pub control: mpsc::UnboundedReceiver<SocketControl>,
    counters: Arc<SocketCounters>,
    unused_timeout: Duration,
    stats: WebSocketStats,
}

impl Sockets {
    pub fn new(
        datagrams: mpsc::Receiver<(SocketAddr, Bytes)>,
        control: mpsc::UnboundedReceiver<SocketControl>,
        counters: Arc<SocketCounters>,
        unused_timeout: Duration,
    ) -> Sockets {
        Sockets {
            sockets: HashMap::new(),
            datagrams,
            control,
            counters,
            unused_timeout,
            stats: WebSocketStats::default(),
        }
    }

    pub fn has_sockets(&self) -> bool {
        !self.sockets.is_empty()
    }

    pub fn on_control(
        &mut self,
        control: SocketControl,
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) {
        match control {
            SocketControl::Opened { addr, out } => {
                self.sockets.insert(
                    addr,
                    Socket {
                        out,
                        connected: false,
                        unused_since: now,
                    },
                );
            }
            SocketControl::Closed { addr } => {
                self.sockets.remove(&addr);
                if hopnet.connection_of(addr).is_some() {
                    hopnet.handle(now, addr, &END);
                }
            }
        }
    }

    pub fn drain_control(&mut self, hopnet: &mut hopnet::proto::Server, now: Instant) {
        while let Ok(control) = self.control.try_recv() {
            self.on_control(control, hopnet, now);
        }
    }

    /// Hands one socket's message to the endpoint, as a datagram from the socket's address.
    pub fn on_datagram(
        &mut self,
        (from, datagram): (SocketAddr, Bytes),
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) {
        if !self.sockets.contains_key(&from) {
            self.drain_control(hopnet, now);
        }
        let Some(socket) = self.sockets.get_mut(&from) else {
            return;
        };
        hopnet.handle(now, from, &datagram);
        self.stats.datagrams_received += 1;
        if !socket.connected && hopnet.connection_of(from).is_some() {
            socket.connected = true;
            socket.unused_since = now;
        }
    }

    /// Queues the datagrams of one transmit on their socket, each a message of its own.
    pub fn send(&mut self, to: SocketAddr, datagrams: impl Iterator<Item = impl AsRef<[u8]>>) {
        let Some(socket) = self.sockets.get(&to) else {
            self.stats.unroutable += datagrams.count() as u64;
            return;
        };
        for datagram in datagrams {
            let out = Out::Datagram(Bytes::copy_from_slice(datagram.as_ref()));
            match socket.out.try_send(out) {
                Ok(()) => self.stats.datagrams_sent += 1,
                Err(TrySendError::Full(_)) => self.stats.queue_full += 1,
                Err(TrySendError::Closed(_)) => self.stats.unroutable += 1,
            }
        }
    }

    /// Closes the sockets whose hopnet connection ended a moment ago, or that have gone
    /// `unused_timeout` without one: dropping a socket's sender ends its task, which sends
    /// what was queued and then closes with code 1000.
    pub fn upkeep(&mut self, hopnet: &hopnet::proto::Server, now: Instant) {
        let unused_timeout = self.unused_timeout;
        let mut closed = 0;
        self.sockets.retain(|addr, socket| {
            if hopnet.connection_of(*addr).is_some() {
                socket.connected = true;
                socket.unused_since = now;
                return true;
            }
            let limit = if socket.connected {
                CLOSE_GRACE
            } else {
                unused_timeout
            };
            if now.saturating_duration_since(socket.unused_since) < limit {
                return true;
            }
            closed += 1;
            false
        });
        self.stats.closed_by_server += closed;
    }

    /// Asks every socket to close with code 1001 (the server stops); returns how many.
    pub fn close_all(&mut self) -> usize {
        let count = self.sockets.len();
        for (_, socket) in self.sockets.drain() {
            let _ = socket.out.try_send(Out::Close(CLOSE_SERVER_STOPPED));
        }
        count
    }

    pub fn stats(&self) -> WebSocketStats {
        let c = &self.counters;
        WebSocketStats {
            sockets: self.sockets.len() as u64,
            accepted: c.accepted.load(Ordering::Relaxed),
            refused_full: c.refused_full.load(Ordering::Relaxed),
            refused_bad: c.refused_bad.load(Ordering::Relaxed),
            closed_too_large: c.closed_too_large.load(Ordering::Relaxed),
            closed_text: c.closed_text.load(Ordering::Relaxed),
            closed_protocol: c.closed_protocol.load(Ordering::Relaxed),
            closed_stalled: c.closed_stalled.load(Ordering::Relaxed),
            ..self.stats.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::address::websocket_address;
    use crate::websocket::SOCKET_QUEUE;

    #[test]
    fn a_socket_that_takes_nothing_costs_its_own_datagrams_only() {
        let (_, datagrams) = mpsc::channel(1);
        let (_, control) = mpsc::unbounded_channel();
        let mut sockets = Sockets::new(datagrams, control, Arc::default(), Duration::from_secs(15));
        let mut hopnet = hopnet::proto::Server::new(hopnet::Config::default());
        let now = Instant::now();
        // Two sockets whose tasks never read what they are sent.
        let (slow, fine) = (websocket_address(1), websocket_address(2));
        let (slow_tx, _slow_rx) = mpsc::channel(SOCKET_QUEUE);
        let (fine_tx, mut fine_rx) = mpsc::channel(SOCKET_QUEUE);
        for (addr, out) in [(slow, slow_tx), (fine, fine_tx)] {
            sockets.on_control(SocketControl::Opened { addr, out }, &mut hopnet, now);
        }
        let datagram = [0u8; 40];
        sockets.send(slow, std::iter::repeat_n(&datagram, SOCKET_QUEUE + 44));
        sockets.send(fine, std::iter::once(&datagram));
        let stats = sockets.stats();
        assert_eq!(stats.datagrams_sent, SOCKET_QUEUE as u64 + 1);
        assert_eq!(stats.queue_full, 44);
        assert!(matches!(fine_rx.try_recv(), Ok(Out::Datagram(d)) if d.len() == 40));
    }
}
