//! What comes in from one carrier of peers (WebTransport's sessions, the WebSockets), written
//! once for both: the peers' openings and ends, and their datagrams, each from the peer's
//! address, handed to the endpoint in the order the peers' tasks sent them.

use std::net::SocketAddr;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::peers::Peers;

/// A peer's task's news for the server's loop: its carrier opened (with what the server sends
/// through, `H`) or ended.
pub(crate) enum PeerControl<H> {
    Opened { addr: SocketAddr, handle: H },
    Closed { addr: SocketAddr },
}

/// The open peers of one carrier and the channels their tasks feed: datagrams (`D`, a
/// session's datagram or a socket's message) bounded, openings and ends not, so that an end
/// is never lost.
pub(crate) struct Inlet<H, D> {
    pub peers: Peers<H>,
    pub datagrams: mpsc::Receiver<(SocketAddr, D)>,
    pub control: mpsc::UnboundedReceiver<PeerControl<H>>,
    /// Datagrams handed to the endpoint.
    pub received: u64,
}

impl<H, D: Deref<Target = [u8]>> Inlet<H, D> {
    pub fn new(
        datagrams: mpsc::Receiver<(SocketAddr, D)>,
        control: mpsc::UnboundedReceiver<PeerControl<H>>,
        unused_timeout: Duration,
    ) -> Inlet<H, D> {
        Inlet {
            peers: Peers::new(unused_timeout),
            datagrams,
            control,
            received: 0,
        }
    }

    /// Takes one peer's opening or end.
    pub fn on_control(
        &mut self,
        control: PeerControl<H>,
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) {
        match control {
            PeerControl::Opened { addr, handle } => self.peers.opened(addr, handle, now),
            PeerControl::Closed { addr } => self.peers.closed(addr, hopnet, now),
        }
    }

    /// Takes every opening and end waiting.
    pub fn drain_control(&mut self, hopnet: &mut hopnet::proto::Server, now: Instant) {
        while let Ok(control) = self.control.try_recv() {
            self.on_control(control, hopnet, now);
        }
    }

    /// Hands one peer's datagram to the endpoint, as a datagram from the peer's address.
    pub fn on_datagram(
        &mut self,
        (from, datagram): (SocketAddr, D),
        hopnet: &mut hopnet::proto::Server,
        now: Instant,
    ) {
        if !self.peers.contains(&from) {
            // Its opening may still wait in the other channel.
            self.drain_control(hopnet, now);
        }
        if self.peers.received(from, &datagram, hopnet, now) {
            self.received += 1;
        }
    }

    /// Takes the openings and ends waiting, then up to `max` datagrams, without waiting;
    /// returns how many datagrams.
    pub fn drain(&mut self, hopnet: &mut hopnet::proto::Server, now: Instant, max: usize) -> usize {
        self.drain_control(hopnet, now);
        let mut count = 0;
        while count < max {
            let Ok(datagram) = self.datagrams.try_recv() else {
                break;
            };
            self.on_datagram(datagram, hopnet, now);
            count += 1;
        }
        count
    }
}

/// Counts one more of something the peers' tasks saw.
pub(crate) fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}
