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
    /// When this end last sent the peer a datagram (none yet: `None`).
    pub last_sent: Option<Instant>,
    pub outbound: Outbound,
    pub inbound: Inbound,
    pub confirmations: Confirmations,
}

impl Peer {
    pub fn new(config: &Config, now: Instant) -> Peer {
        Peer {
            last_heard: now,
            last_sent: None,
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
            self.keepalive_due(config),
        ]
        .into_iter()
        .flatten()
        .fold(forget, Instant::min)
    }

    /// When the peer is owed a keepalive, if this end sends them: at once if it was never
    /// sent anything.
    pub fn keepalive_due(&self, config: &Config) -> Option<Instant> {
        let every = config.keepalive?;
        Some(self.last_sent.map_or(self.last_heard, |sent| sent + every))
    }

    /// Bytes this peer holds, counted as the memory bound counts them.
    pub fn bytes(&self) -> usize {
        size_of::<Peer>()
            + self.outbound.bytes()
            + self.inbound.bytes()
            + self.confirmations.bytes()
    }
}
