//! Connect tokens already used, each bound to the first address that used it.
//!
//! A token read off the wire (the request is in the clear) is worthless from another address:
//! the server remembers each token's tag with the address that first presented it, and
//! ignores the token from any other. The table is bounded; when full, the entry recorded
//! earliest makes room (it is the likeliest to have expired already).

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;

use super::aead::MAC_BYTES;

#[derive(Debug)]
pub(crate) struct TokenHistory {
    capacity: usize,
    first_address: HashMap<[u8; MAC_BYTES], SocketAddr>,
    /// Tags in the order they were recorded, for eviction.
    order: VecDeque<[u8; MAC_BYTES]>,
}

impl TokenHistory {
    pub(crate) fn new(capacity: usize) -> TokenHistory {
        TokenHistory {
            capacity: capacity.max(1),
            first_address: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Whether the token with this tag may be used from `from`: a token never seen (now
    /// recorded as `from`'s), or one seen only from `from`.
    pub(crate) fn admit(&mut self, mac: &[u8; MAC_BYTES], from: SocketAddr) -> bool {
        if let Some(first) = self.first_address.get(mac) {
            return *first == from;
        }
        if self.order.len() >= self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.first_address.remove(&oldest);
        }
        self.first_address.insert(*mac, from);
        self.order.push_back(*mac);
        true
    }

    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::addr;

    #[test]
    fn a_token_belongs_to_its_first_address() {
        let mut h = TokenHistory::new(4);
        assert!(h.admit(&[1; 16], addr(1)));
        assert!(h.admit(&[1; 16], addr(1)));
        assert!(!h.admit(&[1; 16], addr(2)));
        assert!(h.admit(&[2; 16], addr(2)));
    }

    #[test]
    fn bounded_the_earliest_makes_room() {
        let mut h = TokenHistory::new(2);
        for i in 0..10u8 {
            assert!(h.admit(&[i; 16], addr(u16::from(i))));
            assert!(h.len() <= 2);
        }
        // Token 9 is still bound; token 0 was forgotten.
        assert!(!h.admit(&[9; 16], addr(1)));
        assert!(h.admit(&[0; 16], addr(5)));
    }
}
