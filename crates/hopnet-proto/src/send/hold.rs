//! Ordered delivery kept by the sender: toward a peer that cannot hold messages back (one
//! without the extensions, or one message framed the spec's way), an ordered message is not
//! sent before the messages it must follow are acknowledged. A conforming receiver hands a
//! message up as soon as it is complete and acknowledges a chunk only once it has it, so
//! "acknowledged" means "handed up", and the order holds whatever the receiver is. The price
//! is a round trip per ordered step.
//!
//! What a message must follow: a semi-ordered one every reliable message sent before it, a
//! reliable ordered one every ordered message sent before it. A message framed for the
//! extended wire needs only those framed the spec's way to be acknowledged (the receiver
//! orders it after the extended ones, by their reliable indexes). Held messages leave in the
//! order they were sent: each one held waits for the one held before it.

use std::collections::VecDeque;

use super::queue::{Outgoing, Wire};

use crate::event::Delivery;

/// The ordered messages held, and the live messages they may wait for (each list oldest
/// first, cleaned lazily: an entry no longer live is dropped when it reaches the front, so a
/// list holds at most the sequence window's worth).
///
/// The lists of spec-framed messages are kept only once the connection sends extended
/// messages (only those wait for them): a connection on the spec's wire pays nothing for
/// them.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// Ordered messages not yet released, oldest first.
    waiting: VecDeque<u64>,
    /// Live ordered messages, whatever their framing.
    ordered: VecDeque<u64>,
    /// Whether extended messages are sent, so that the lists below are kept.
    extended: bool,
    /// Live reliable messages framed the spec's way.
    spec_reliable: VecDeque<u64>,
    /// Live ordered messages framed the spec's way.
    spec_ordered: VecDeque<u64>,
}

/// The oldest entry of `list` that is still live.
fn oldest(list: &mut VecDeque<u64>, messages: &Outgoing) -> Option<u64> {
    while let Some(&abs) = list.front() {
        if messages.get(abs).is_some() {
            return Some(abs);
        }
        list.pop_front();
    }
    None
}

impl Held {
    /// Ordered messages held now.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether a new message (not yet inserted) must wait.
    #[inline]
    pub fn must_wait(&mut self, messages: &Outgoing, wire: Wire, delivery: Delivery) -> bool {
        if !delivery.is_ordered() {
            return false;
        }
        let semi = delivery == Delivery::SemiOrdered;
        let older = match (wire.is_spec(), semi) {
            (true, true) => messages.len() > 0,
            (true, false) => oldest(&mut self.ordered, messages).is_some(),
            (false, true) => oldest(&mut self.spec_reliable, messages).is_some(),
            (false, false) => oldest(&mut self.spec_ordered, messages).is_some(),
        };
        older || !self.waiting.is_empty()
    }

    /// Records a new live reliable message.
    #[inline]
    pub fn note(&mut self, messages: &Outgoing, abs: u64, wire: Wire, delivery: Delivery) {
        if delivery.is_ordered() {
            oldest(&mut self.ordered, messages);
            self.ordered.push_back(abs);
        }
        if self.extended && wire.is_spec() {
            oldest(&mut self.spec_reliable, messages);
            self.spec_reliable.push_back(abs);
            if delivery.is_ordered() {
                oldest(&mut self.spec_ordered, messages);
                self.spec_ordered.push_back(abs);
            }
        }
    }

    /// The connection starts sending extended messages: from now on the spec-framed ones
    /// (all those live now) are what extended ordered messages may wait for.
    pub fn start_extended(&mut self, messages: &Outgoing) {
        if self.extended {
            return;
        }
        self.extended = true;
        for (abs, m) in messages.iter_from(0) {
            if m.wire.is_spec() {
                self.spec_reliable.push_back(abs);
                if m.delivery.is_ordered() {
                    self.spec_ordered.push_back(abs);
                }
            }
        }
    }

    /// Holds message `abs` (the newest).
    pub fn push(&mut self, abs: u64) {
        self.waiting.push_back(abs);
    }

    /// The oldest held message, taken from the list if it may leave now (the queue then
    /// counts its chunks as waiting); `None` once the oldest must go on waiting.
    pub fn release(&mut self, messages: &Outgoing) -> Option<u64> {
        while let Some(&abs) = self.waiting.front() {
            let Some(m) = messages.get(abs) else {
                self.waiting.pop_front();
                continue;
            };
            if !self.may_leave(messages, abs, m.wire, m.delivery) {
                return None;
            }
            self.waiting.pop_front();
            return Some(abs);
        }
        None
    }

    /// Whether held message `abs` may leave: nothing it follows is still live.
    fn may_leave(&mut self, messages: &Outgoing, abs: u64, wire: Wire, delivery: Delivery) -> bool {
        let semi = delivery == Delivery::SemiOrdered;
        let older = |list: &mut VecDeque<u64>| oldest(list, messages).is_some_and(|o| o < abs);
        !match (wire.is_spec(), semi) {
            (true, true) => messages.oldest().is_some_and(|o| o < abs),
            (true, false) => older(&mut self.ordered),
            (false, true) => older(&mut self.spec_reliable),
            (false, false) => older(&mut self.spec_ordered),
        }
    }
}
