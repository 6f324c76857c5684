//! A peer: an address that sent a datagram, with both halves of what this end keeps for it,
//! until it has been silent for the forgetting time.

use std::time::Instant;

use super::Config;
use super::confirm::Confirmations;
use super::inbound::Inbound;
use super::outbound::Outbound;

#[derive(Debug)]
pub(super) struct Peer {
    pub last_heard: Instant,
    pub outbound: Outbound,
    pub inbound: Inbound,
    pub confirmations: Confirmations,
}

impl Peer {
    pub fn new(config: &Config, now: Instant) -> Peer {
        Peer {
            last_heard: now,
            outbound: Outbound::new(config),
            inbound: Inbound::new(config.peer_start_id, config.max_held_bytes),
            confirmations: Confirmations::default(),
        }
    }

    /// The earliest instant this peer needs the endpoint's attention.
    pub fn deadline(&self, config: &Config) -> Instant {
        let forget = self.last_heard + config.forget_after;
        [
            self.confirmations.deadline(config.confirm_delay),
            self.outbound.deadline(),
        ]
        .into_iter()
        .flatten()
        .fold(forget, Instant::min)
    }

    /// Bytes this peer holds, counted as the memory bound counts them.
    pub fn bytes(&self) -> usize {
        size_of::<Peer>()
            + self.outbound.bytes()
            + self.inbound.bytes()
            + self.confirmations.bytes()
    }
}
