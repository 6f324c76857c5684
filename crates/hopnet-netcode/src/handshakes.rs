//! The server's handshakes under way: for each address whose connection request was accepted,
//! the keys from its token, until the client answers the challenge or the token's timeout
//! passes without an answer.
//!
//! This is the standard's "encryption mapping" for addresses without a slot. A request from
//! the same address replaces its entry (and restarts its timeout). The table is bounded: when
//! it is full, expired entries are cleared, and if none has expired the request is ignored.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::packet_key::PacketKey;

#[derive(Debug, Clone)]
pub(crate) struct Handshake {
    pub send_key: PacketKey,
    pub receive_key: PacketKey,
    pub timeout_seconds: i32,
    /// `None` when the token disables timeouts (zero or negative seconds).
    expires: Option<Instant>,
}

impl Handshake {
    pub(crate) fn new(
        now: Instant,
        send_key: PacketKey,
        receive_key: PacketKey,
        timeout_seconds: i32,
    ) -> Self {
        let expires = u64::try_from(timeout_seconds)
            .ok()
            .filter(|&s| s > 0)
            .and_then(|s| now.checked_add(Duration::from_secs(s)));
        Handshake {
            send_key,
            receive_key,
            timeout_seconds,
            expires,
        }
    }

    fn expired(&self, now: Instant) -> bool {
        self.expires.is_some_and(|at| now >= at)
    }
}

#[derive(Debug)]
pub(crate) struct Handshakes {
    capacity: usize,
    by_address: HashMap<SocketAddr, Handshake>,
}

impl Handshakes {
    pub(crate) fn new(capacity: usize) -> Handshakes {
        Handshakes {
            capacity: capacity.max(1),
            by_address: HashMap::new(),
        }
    }

    /// Records (or replaces) `from`'s handshake; `false` if the table is full of live ones.
    pub(crate) fn insert(&mut self, now: Instant, from: SocketAddr, handshake: Handshake) -> bool {
        if !self.by_address.contains_key(&from) && self.by_address.len() >= self.capacity {
            self.by_address.retain(|_, h| !h.expired(now));
            if self.by_address.len() >= self.capacity {
                return false;
            }
        }
        self.by_address.insert(from, handshake);
        true
    }

    /// `from`'s live handshake; an expired one is removed.
    pub(crate) fn get(&mut self, now: Instant, from: SocketAddr) -> Option<&Handshake> {
        if self.by_address.get(&from).is_some_and(|h| h.expired(now)) {
            self.by_address.remove(&from);
        }
        self.by_address.get(&from)
    }

    pub(crate) fn remove(&mut self, from: SocketAddr) -> Option<Handshake> {
        self.by_address.remove(&from)
    }

    pub(crate) fn len(&self) -> usize {
        self.by_address.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;
    use crate::tests::addr;

    fn hs(now: Instant, timeout: i32) -> Handshake {
        Handshake::new(
            now,
            PacketKey::new(&Key::from_bytes([1; 32])),
            PacketKey::new(&Key::from_bytes([2; 32])),
            timeout,
        )
    }

    #[test]
    fn expires_after_the_tokens_timeout() {
        let t0 = Instant::now();
        let mut table = Handshakes::new(4);
        assert!(table.insert(t0, addr(1), hs(t0, 5)));
        assert!(
            table
                .get(t0 + Duration::from_millis(4999), addr(1))
                .is_some()
        );
        assert!(table.get(t0 + Duration::from_secs(5), addr(1)).is_none());
        assert_eq!(table.len(), 0);
    }

    #[test]
    fn full_of_live_entries_refuses_then_makes_room_as_they_expire() {
        let t0 = Instant::now();
        let mut table = Handshakes::new(2);
        assert!(table.insert(t0, addr(1), hs(t0, 1)));
        assert!(table.insert(t0, addr(2), hs(t0, -1)));
        assert!(!table.insert(t0, addr(3), hs(t0, 1)));
        // Replacing an existing address needs no room.
        assert!(table.insert(t0, addr(1), hs(t0, 1)));
        let t1 = t0 + Duration::from_secs(1);
        assert!(table.insert(t1, addr(3), hs(t1, 1)));
        assert_eq!(table.len(), 2);
        // A negative timeout never expires.
        assert!(table.get(t0 + Duration::from_secs(3600), addr(2)).is_some());
    }
}
