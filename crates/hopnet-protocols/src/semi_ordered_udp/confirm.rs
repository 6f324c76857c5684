//! Confirmations owed to one peer: every reliable package received, duplicates too, is
//! confirmed, many ids to a control datagram, sent once a datagram's worth is owed or the
//! confirmation delay has passed since the first.

use std::time::{Duration, Instant};

use hopnet::engine::U24;
use hopnet_formats::semi_ordered::{Datagram, PackageId};

use super::MAX_CONFIRMED_IDS;

/// Ids owed at most; beyond this a new one is not recorded (its sender retransmits, and it is
/// confirmed then), so a flood of reliable packages cannot grow the list.
const MAX_OWED: usize = 64 * MAX_CONFIRMED_IDS;

/// The ids owed and since when.
#[derive(Debug, Default)]
pub(super) struct Confirmations {
    owed: Vec<U24>,
    since: Option<Instant>,
}

impl Confirmations {
    pub fn owe(&mut self, id: U24, now: Instant) {
        if self.owed.len() < MAX_OWED {
            self.owed.push(id);
            self.since.get_or_insert(now);
        }
    }

    /// When the next confirmation datagram is due.
    pub fn deadline(&self, delay: Duration) -> Option<Instant> {
        let since = self.since?;
        Some(if self.owed.len() >= MAX_CONFIRMED_IDS {
            since
        } else {
            since + delay
        })
    }

    /// The next confirmation datagram, if one is due at `now`.
    pub fn take_due(&mut self, now: Instant, delay: Duration) -> Option<Datagram> {
        if self.deadline(delay)? > now {
            return None;
        }
        let n = self.owed.len().min(MAX_CONFIRMED_IDS);
        let ids = self.owed.drain(..n).map(|id| PackageId(id.get())).collect();
        if self.owed.is_empty() {
            self.since = None;
        }
        Some(Datagram::Confirmation { ids })
    }

    pub fn bytes(&self) -> usize {
        self.owed.capacity() * size_of::<U24>()
    }
}
