//! A copy of the plain hopnet datagrams a secure machine decrypts and is about to seal, kept
//! only when asked for: what a recording of a secure session holds when its operator wants to
//! read the game's traffic (PROTOCOL.md, "Recording a secure session"). Off, it costs one
//! branch per datagram.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Instant;

use crate::transmit::Transmit;

/// Datagrams kept at most until taken; beyond, the oldest are dropped and counted. A driver
/// takes them after every round, so only a loop that never does reaches it.
pub const PLAIN_CAPTURE_LIMIT: usize = 4096;

/// Which way a plain datagram crossed the secure layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlainDirection {
    /// Decrypted from a peer's payload packet, handed to the plain machine.
    Received,
    /// Written by the plain machine, to be sealed for a peer.
    Sent,
}

/// A plain datagram, as it was before sealing or after opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainDatagram {
    /// When it crossed.
    pub at: Instant,
    /// Which way.
    pub direction: PlainDirection,
    /// The peer it came from or goes to.
    pub peer: SocketAddr,
    /// The hopnet datagram.
    pub bytes: Vec<u8>,
}

/// The kept datagrams, when capture is on.
#[derive(Debug, Default)]
pub(crate) struct PlainCapture {
    kept: Option<VecDeque<PlainDatagram>>,
    dropped: u64,
}

impl PlainCapture {
    pub(crate) fn set(&mut self, on: bool) {
        if on != self.kept.is_some() {
            self.kept = on.then(VecDeque::new);
        }
    }

    pub(crate) fn received(&mut self, at: Instant, peer: SocketAddr, bytes: &[u8]) {
        self.keep(at, PlainDirection::Received, peer, bytes);
    }

    /// Keeps the datagrams of a batch the plain machine wrote into `buf`.
    pub(crate) fn sent(&mut self, at: Instant, transmit: Option<Transmit>, buf: &[u8]) {
        if self.kept.is_none() {
            return;
        }
        if let Some(t) = transmit {
            let written = buf.get(..t.size).unwrap_or(buf);
            for datagram in t.split(written) {
                self.keep(at, PlainDirection::Sent, t.destination, datagram);
            }
        }
    }

    fn keep(&mut self, at: Instant, direction: PlainDirection, peer: SocketAddr, bytes: &[u8]) {
        let Some(kept) = &mut self.kept else {
            return;
        };
        if kept.len() >= PLAIN_CAPTURE_LIMIT {
            kept.pop_front();
            self.dropped += 1;
        }
        kept.push_back(PlainDatagram {
            at,
            direction,
            peer,
            bytes: bytes.to_vec(),
        });
    }

    pub(crate) fn take(&mut self) -> Option<PlainDatagram> {
        self.kept.as_mut()?.pop_front()
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }
}
