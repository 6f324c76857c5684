//! One sender's packages as the receiver keeps them: unreliable ones handed up as they come,
//! reliable ones once, semi-ordered ones after every reliable package with a smaller id, the
//! ones held back within a memory budget. The exactly-once and ordering state is the engine's
//! [`Orderer`] over 24-bit ids.

use hopnet::Delivery;
use hopnet::engine::{Budget, HELD_OVERHEAD, ORDER_WINDOW, Orderer, SerialIndex, U24};
use hopnet_formats::semi_ordered::Reliability;

/// What became of a reliable package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Accepted (handed up or held back), or a duplicate of one accepted: confirm it.
    Confirm,
    /// Not taken (too far ahead, or no room to hold it): not confirmed, so its sender sends
    /// it again.
    Refuse,
}

/// The receiving half from one peer.
#[derive(Debug)]
pub(super) struct Inbound {
    order: Orderer<U24>,
    anchored: bool,
    max_held_bytes: usize,
}

impl Inbound {
    pub fn new(peer_start_id: u32, max_held_bytes: usize) -> Inbound {
        Inbound {
            order: Orderer::starting_at(U24::new(peer_start_id)),
            anchored: false,
            max_held_bytes,
        }
    }

    /// A reliable package `id` arrived: what it releases goes to `out` in delivery order.
    pub fn reliable(
        &mut self,
        id: U24,
        reliability: Reliability,
        payload: Vec<u8>,
        out: &mut Vec<(Vec<u8>, bool)>,
    ) -> Verdict {
        let ahead = id.diff(self.order.prefix());
        if !self.anchored && !(0..ORDER_WINDOW).contains(&ahead) {
            // A peer that did not start where expected (started elsewhere, or forgotten and
            // back): its numbering starts here.
            self.order = Orderer::starting_at(id);
        }
        self.anchored = true;
        let ahead = id.diff(self.order.prefix());
        if !self.order.accepts(id, None) {
            return if ahead < ORDER_WINDOW {
                Verdict::Confirm
            } else {
                Verdict::Refuse
            };
        }
        let delivery = match reliability {
            Reliability::SemiOrdered => Delivery::SemiOrdered,
            _ => Delivery::Reliable,
        };
        let held = delivery == Delivery::SemiOrdered && id != self.order.prefix();
        let budget = Budget {
            used: self.order.bytes(),
            limit: self.max_held_bytes,
        };
        if held && !budget.fits(payload.capacity() + HELD_OVERHEAD) {
            return Verdict::Refuse;
        }
        self.order.arrive(id, delivery, None, payload, out);
        Verdict::Confirm
    }

    /// Bytes held: the held packages and the engine's 8 KiB of bits.
    pub fn bytes(&self) -> usize {
        self.order.bytes() + 8192
    }
}
