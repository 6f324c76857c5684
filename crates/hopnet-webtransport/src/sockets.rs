//! The WebSocket side of the server's loop: the open sockets by address, what the endpoint
//! sends them, and when the server closes one.
//!
//! A socket is a peer of the endpoint as a session is (see `peers.rs`): its messages are handed
//! to it from the socket's address, a socket that ends is its peer sending `END`, and a hopnet
//! connection that ends closes its socket a moment later.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_tungstenite::tungstenite::Bytes;

use crate::peers::Peers;
use crate::stats::WebSocketStats;
use crate::websocket::{CLOSE_SERVER_STOPPED, Out, SocketControl, SocketCounters};

pub(crate) struct Sockets {
    /// Each socket's queue of what leaves into it.
    sockets: Peers<mpsc::Sender<Out>>,
    pub datagrams: mpsc::Receiver<(SocketAddr, Bytes)>,
    pub control: mpsc::UnboundedReceiver<SocketControl>,
    counters: Arc<SocketCounters>,
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
            sockets: Peers::new(unused_timeout),
            datagrams,
            control,
            counters,
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
            SocketControl::Opened { addr, out } => self.sockets.opened(addr, out, now),
            SocketControl::Closed { addr } => self.sockets.closed(addr, hopnet, now),
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
        if !self.sockets.contains(&from) {
            self.drain_control(hopnet, now);
        }
        if self.sockets.received(from, &datagram, hopnet, now) {
            self.stats.datagrams_received += 1;
        }
    }

    /// Queues the datagrams of one transmit on their socket, each a message of its own.
    pub fn send(&mut self, to: SocketAddr, datagrams: impl Iterator<Item = impl AsRef<[u8]>>) {
        let Some(out) = self.sockets.get(&to) else {
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
        self.stats.closed_by_server += self.sockets.upkeep(hopnet, now, drop);
    }

    /// Asks every socket to close with code 1001 (the server stops); returns how many.
    pub fn close_all(&mut self) -> usize {
        let count = self.sockets.len();
        self.sockets.drain(|out| {
            let _ = out.try_send(Out::Close(CLOSE_SERVER_STOPPED));
        });
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
