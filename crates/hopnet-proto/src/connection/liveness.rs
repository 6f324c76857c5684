//! When a connection is dead and when it must speak: it ends after `idle_timeout` without a
//! datagram from the peer, and it sends a keepalive after `keepalive_interval` without sending
//! anything, so that an idle peer does not time it out.
//!
//! The keepalive is an `ACK | FIN` for chunk 255 of the sequence opposite the newest one we
//! have seen from the peer. A sender never has that chunk in flight (its in-flight messages
//! stay within 16,384 ids of its newest), so the ACK acknowledges nothing, yet it is a
//! well-formed header any conforming peer accepts, a strict one included (chunk 255 with
//! `FIN`, no reserved bit): it keeps the peer's 15 s timer from running out. See PROTOCOL.md.
//! On the extended wire it is a ping frame.

use std::time::{Duration, Instant};

/// The sequence of the keepalive's `ACK` (and of an offer's or accept's), given the newest
/// sequence seen from the peer: the one opposite it.
pub(crate) fn keepalive_sequence(newest_seen: Option<u16>) -> u16 {
    newest_seen.map_or(0x8000, |n| n.wrapping_add(0x8000))
}

/// When the peer was last heard and when we last spoke.
#[derive(Debug, Clone)]
pub(crate) struct Liveness {
    last_recv: Instant,
    last_send: Instant,
    idle_timeout: Duration,
    keepalive_interval: Duration,
}

impl Liveness {
    pub fn new(now: Instant, idle_timeout: Duration, keepalive_interval: Duration) -> Liveness {
        Liveness {
            last_recv: now,
            last_send: now,
            idle_timeout,
            keepalive_interval,
        }
    }

    /// The connection starts over at `now` (opened by the layer below after it waited there).
    pub fn restart(&mut self, now: Instant) {
        self.last_recv = now;
        self.last_send = now;
    }

    /// A datagram from the peer arrived.
    pub fn heard(&mut self, now: Instant) {
        self.last_recv = now;
    }

    /// We sent a datagram (or queued a keepalive, so the timer moves even if nobody polls).
    pub fn spoke(&mut self, now: Instant) {
        self.last_send = now;
    }

    /// When the peer will have been silent for the idle timeout.
    pub fn idle_deadline(&self) -> Instant {
        self.last_recv + self.idle_timeout
    }

    /// When we will have been silent for the keepalive interval.
    pub fn keepalive_deadline(&self) -> Instant {
        self.last_send + self.keepalive_interval
    }
}
