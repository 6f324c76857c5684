//! The WebSocket side of the server's loop: the open sockets by address, what the endpoint
//! sends them, and when the server closes one.
//!
//! A socket is a peer of the endpoint as a session is (see `peers.rs`): its messages are handed
//! to it from the socket's address, a socket that ends is its peer sending `END`, and a hopnet
//! connection that ends closes its socket a moment later.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_tungstenite::tungstenite::Bytes;

use crate::inlet::Inlet;
use crate::stats::WebSocketStats;
use crate::websocket::{CLOSE_SERVER_STOPPED, Out, SocketCounters};

pub(crate) struct Sockets {
    /// The sockets, each with its queue of what leaves into it, and what their tasks send
    /// the loop.
    pub inlet: Inlet<mpsc::Sender<Out>, Bytes>,
    counters: Arc<SocketCounters>,
    stats: WebSocketStats,
}

impl Sockets {
    pub fn new(inlet: Inlet<mpsc::Sender<Out>, Bytes>, counters: Arc<SocketCounters>) -> Sockets {
        Sockets {
            inlet,
            counters,
            stats: WebSocketStats::default(),
        }
    }

    /// Queues the datagrams of one transmit on their socket, each a message of its own.
    pub fn send(&mut self, to: SocketAddr, datagrams: impl Iterator<Item = impl AsRef<[u8]>>) {
        let Some(out) = self.inlet.peers.get(&to) else {
            self.stats.unroutable += datagrams.count() as u64;
            return;
        };
        for datagram in datagrams {
            let datagram = Out::Datagram(Bytes::copy_from_slice(datagram.as_ref()));
            match out.try_send(datagram) {
                Ok(()) => self.stats.datagrams_sent += 1,
                Err(TrySendError::Full(_)) => self.stats.queue_full += 1,
                Err(TrySendError::Closed(_)) => self.stats.unroutable += 1,
            }
        }
    }

    /// Closes the sockets whose hopnet connection ended a moment ago, or that have gone
    /// `unused_timeout` without one: dropping a socket's queue ends its task, which sends what
    /// was queued and then closes with code 1000.
    pub fn upkeep(&mut self, hopnet: &hopnet::proto::Server, now: Instant) {
        self.stats.closed_by_server += self.inlet.peers.upkeep(hopnet, now, drop);
    }

    /// Asks every socket to close with code 1001 (the server stops); returns how many.
    pub fn close_all(&mut self) -> usize {
        let count = self.inlet.peers.len();
        self.inlet.peers.drain(|out| {
            let _ = out.try_send(Out::Close(CLOSE_SERVER_STOPPED));
        });
        count
    }

    pub fn stats(&self) -> WebSocketStats {
        let c = &self.counters;
        WebSocketStats {
            sockets: self.inlet.peers.len() as u64,
            datagrams_received: self.inlet.received,
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
    use std::time::Duration;

    use crate::address::websocket_address;
    use crate::websocket::{SOCKET_QUEUE, SocketControl};

    #[test]
    fn a_socket_that_takes_nothing_costs_its_own_datagrams_only() {
        let (_, datagrams) = mpsc::channel(1);
        let (_, control) = mpsc::unbounded_channel();
        let inlet = Inlet::new(datagrams, control, Duration::from_secs(15));
        let mut sockets = Sockets::new(inlet, Arc::default());
        let mut hopnet = hopnet::proto::Server::new(hopnet::Config::default());
        let now = Instant::now();
        // Two sockets whose tasks never read what they are sent.
        let (slow, fine) = (websocket_address(1), websocket_address(2));
        let (slow_tx, _slow_rx) = mpsc::channel(SOCKET_QUEUE);
        let (fine_tx, mut fine_rx) = mpsc::channel(SOCKET_QUEUE);
        for (addr, out) in [(slow, slow_tx), (fine, fine_tx)] {
            let opened = SocketControl::Opened { addr, handle: out };
            sockets.inlet.on_control(opened, &mut hopnet, now);
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
