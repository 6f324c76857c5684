//! The send half of a connection: sequence ids, reliable chunks until acknowledged, and the
//! rules that decide when a chunk may leave or must leave again.
//!
//! - [`sender`]: sequence numbering and the state of every reliable chunk;
//! - [`outgoing`]: the reliable messages held, by sequence, and their recycled buffers;
//! - [`batch`]: which chunk goes next, in GSO-shaped batches, under the window and the pacer;
//! - [`loss`]: when a chunk in flight is lost (timer or packet threshold);
//! - [`rtt`]: the round-trip estimate and retransmission timeout (RFC 6298);
//! - [`congestion`]: the congestion window, which tells random loss from congestion;
//! - [`pacing`]: the window spread over a round trip.

mod batch;
mod congestion;
mod loss;
mod outgoing;
mod pacing;
mod rtt;
mod sender;

use std::time::Instant;

use crate::Error;
use crate::config::Config;
use crate::payload::Data;
use crate::stats::Stats;
use congestion::Congestion;
use pacing::Pacer;
use rtt::RttEstimator;
use sender::Sender;

/// The send half of a connection: the sender and the estimators and controllers it answers to.
#[derive(Debug)]
pub(crate) struct Outbound {
    sender: Sender,
    rtt: RttEstimator,
    cc: Congestion,
    pacer: Option<Pacer>,
    /// When the pacer next lets a chunk go, if it held one back.
    paced_until: Option<Instant>,
}

impl Outbound {
    pub fn new(config: &Config) -> Outbound {
        Outbound {
            sender: Sender::new(config.max_pending_reliable),
            rtt: RttEstimator::new(config.initial_rtt, config.min_rto, config.max_rto),
            cc: Congestion::new(config.initial_window, config.min_window, config.max_window),
            pacer: config.pacing.then(Pacer::new),
            paced_until: None,
        }
    }

    /// Whether a message may be given a sequence id now.
    pub fn check_room(&self, reliable: bool) -> Result<(), Error> {
        self.sender.check_room(reliable)
    }

    /// Gives the next sequence id to a message, keeping a reliable one until acknowledged.
    pub fn allocate(&mut self, reliable: Option<Data<'_>>) -> u16 {
        self.sender.allocate(reliable)
    }

    /// The sequence id the next message will get.
    pub fn next_sequence(&self) -> u16 {
        self.sender.next_sequence()
    }

    /// An ACK for `(sequence, chunk)` arrived. Returns whether it completed a message.
    pub fn on_ack(&mut self, now: Instant, sequence: u16, chunk: u8, stats: &mut Stats) -> bool {
        let Outbound {
            sender, rtt, cc, ..
        } = self;
        sender.on_ack(now, sequence, chunk, rtt, cc, stats)
    }

    /// Declares lost what the retransmission timer says is lost.
    pub fn on_timeout(&mut self, now: Instant, stats: &mut Stats) {
        let Outbound {
            sender, rtt, cc, ..
        } = self;
        sender.on_timeout(now, rtt, cc, stats);
    }

    /// When [`on_timeout`](Self::on_timeout) or the pacer next has something to do.
    pub fn deadline(&mut self) -> Option<Instant> {
        let timer = self.sender.next_timeout(self.rtt.rto());
        let paced = self
            .paced_until
            .filter(|_| self.sender.has_sendable(self.cc.window() as usize));
        match (timer, paced) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Forgets everything (the connection closed).
    pub fn clear(&mut self) {
        self.sender.clear();
    }

    /// Fills the send half's fields of `stats`.
    pub fn fill_stats(&self, stats: &mut Stats) {
        stats.smoothed_rtt = self.rtt.smoothed();
        stats.min_rtt = self.rtt.min();
        stats.rto = self.rtt.rto();
        stats.chunks_in_flight = self.sender.in_flight() as u64;
        stats.congestion_window = u64::from(self.cc.window());
        stats.pending_reliable = self.sender.pending() as u64;
    }
}
