//! [`Spread::ByAddress`](super::Spread::ByAddress): one socket, whose receive side one reader
//! thread owns; each datagram goes to the worker its source address hashes to, through that
//! worker's bounded inbox. The workers send on clones of the same socket. A client's address
//! picks its worker, so its handshake and everything after land on one machine, whatever the
//! kernel does; the price is a copy and a channel hop per datagram, and one more thread.

use std::hash::BuildHasher;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::time::{Duration, Instant};

use super::wake::Wake;
use crate::Driver;
use hopnet_proto::{Machine, Transmit};

/// How long the reader waits for a datagram before it looks whether it must stop.
const READER_WAIT: Duration = Duration::from_millis(50);

/// The reader's machine: it only routes.
pub(crate) struct Router {
    hasher: std::collections::hash_map::RandomState,
    inboxes: Vec<SyncSender<(SocketAddr, Vec<u8>)>>,
    wakes: Vec<Arc<Wake>>,
    /// Workers given a datagram since the last wake-up.
    dirty: Vec<bool>,
    counters: Arc<ReaderCounters>,
}

/// What the reader shares with the game's handle.
#[derive(Debug, Default)]
pub(crate) struct ReaderCounters {
    pub(crate) stop: AtomicBool,
    pub(crate) received: AtomicU64,
    pub(crate) inbox_full: AtomicU64,
    pub(crate) cpu_nanos: AtomicU64,
}

impl Router {
    pub(crate) fn new(
        inboxes: Vec<SyncSender<(SocketAddr, Vec<u8>)>>,
        wakes: Vec<Arc<Wake>>,
        counters: Arc<ReaderCounters>,
    ) -> Router {
        Router {
            hasher: Default::default(),
            dirty: vec![false; inboxes.len()],
            inboxes,
            wakes,
            counters,
        }
    }

    /// The worker that owns `from`'s datagrams.
    pub(crate) fn worker_of(&self, from: SocketAddr) -> usize {
        (self.hasher.hash_one(from) % self.inboxes.len() as u64) as usize
    }

    /// Wakes the workers given datagrams since the last call.
    fn wake_dirty(&mut self) {
        for (w, dirty) in self.dirty.iter_mut().enumerate() {
            if std::mem::take(dirty) {
                self.wakes[w].wake();
            }
        }
    }
}

impl Machine for Router {
    fn handle(&mut self, _now: Instant, from: SocketAddr, datagram: &[u8]) {
        let w = self.worker_of(from);
        self.counters.received.fetch_add(1, Ordering::Relaxed);
        match self.inboxes[w].try_send((from, datagram.to_vec())) {
            Ok(()) => self.dirty[w] = true,
            Err(TrySendError::Full(_)) => {
                self.counters.inbox_full.fetch_add(1, Ordering::Relaxed);
                // Wake it now: it is behind.
                self.wakes[w].wake();
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    fn poll_transmit(&mut self, _: Instant, _: &mut Vec<u8>, _: usize) -> Option<Transmit> {
        None
    }

    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn handle_timeout(&mut self, _now: Instant) {}
}

/// The reader thread: reads until told to stop, waking the workers it fed after each round.
pub(crate) fn read(mut reader: Driver<Router>) {
    let counters = reader.machine().counters.clone();
    while !counters.stop.load(Ordering::Relaxed) {
        // A socket error here is the same socket the workers send on: they count theirs.
        let _ = reader.poll(READER_WAIT);
        reader.machine().wake_dirty();
        let cpu = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        let nanos = u64::try_from(cpu.tv_sec).unwrap_or(0) * 1_000_000_000
            + u64::try_from(cpu.tv_nsec).unwrap_or(0);
        counters.cpu_nanos.store(nanos, Ordering::Relaxed);
    }
}
