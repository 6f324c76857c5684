//! The wire this end sends on: the spec's until the negotiation agrees and this end may send
//! extended datagrams, then the extended one for good. Each form knows its own
//! acknowledgements, keepalive, close and deadlines, so the rest of the connection never asks
//! which one it is on; [`Connection`](super::Connection) swaps it once, when the negotiator
//! says so (see [`negotiation`](super::negotiation)).

use std::time::Instant;

use super::ack_ranges::OwedAcks;
use super::acks::AckQueue;
use super::liveness::keepalive_sequence;
use super::timer::Timer;
use crate::ext::Extensions;
use crate::ext::frame::{CLOSE, PING};
use crate::packet::{Flags, HEADER_LEN, Header};
use crate::receive::Reassembler;
use crate::send::Outbound;

/// How the ACK frames of the extended wire are owed: the configuration's, kept for the swap.
#[derive(Debug, Clone, Copy)]
pub(super) struct AckPolicy {
    pub max: usize,
    pub delay: std::time::Duration,
    pub every: usize,
}

/// A datagram the wire sends on its own: a keepalive or a close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Signal {
    /// A spec-framed control datagram.
    Control([u8; HEADER_LEN]),
    /// A frame of an extended datagram.
    Frame(u8),
}

/// The wire this end sends on.
#[derive(Debug)]
pub(super) enum Wire {
    /// The spec's: a 4-byte `ACK` per reliable chunk, an `ACK` of nothing as the keepalive,
    /// `END` to close.
    Spec { acks: AckQueue },
    /// Extended datagrams of what was agreed: ACK frames, a ping as the keepalive, a close
    /// frame; `spec_acks`, the spec's ACKs owed when the wire was swapped, leave first.
    Extended {
        ext: Extensions,
        owed: OwedAcks,
        spec_acks: AckQueue,
    },
}

impl Wire {
    pub fn spec(max_acks: usize) -> Wire {
        Wire::Spec {
            acks: AckQueue::new(max_acks),
        }
    }

    /// This end sends on the extended wire of `ext` from now on (once; later calls change
    /// nothing).
    pub fn extend(&mut self, ext: Extensions, policy: AckPolicy) {
        let Wire::Spec { acks } = self else {
            return;
        };
        let spec_acks = std::mem::replace(acks, AckQueue::new(0));
        let mut owed = OwedAcks::new(policy.max, policy.delay, policy.every);
        owed.set_ranges(ext.ack_ranges);
        *self = Wire::Extended {
            ext,
            owed,
            spec_acks,
        };
    }

    /// Owes the peer an acknowledgement of `(sequence, chunk)`, received at `now` (`repeated`:
    /// it had arrived before); `false` if it was dropped for want of room.
    #[inline]
    pub fn owe(&mut self, now: Instant, sequence: u16, chunk: u8, repeated: bool) -> bool {
        match self {
            Wire::Spec { acks } => acks.push(chunk, sequence),
            Wire::Extended { owed, .. } => owed.push(now, sequence, chunk, repeated),
        }
    }

    /// The peer asked for its acknowledgements at once (`ACK_NOW`).
    pub fn hurry(&mut self, now: Instant) {
        if let Wire::Extended { owed, .. } = self {
            owed.hurry(now);
        }
    }

    /// Whether no acknowledgement is owed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        match self {
            Wire::Spec { acks } => acks.is_empty(),
            Wire::Extended {
                owed, spec_acks, ..
            } => spec_acks.is_empty() && owed.is_empty(),
        }
    }

    /// Forgets every acknowledgement owed (the connection closed).
    pub fn clear(&mut self) {
        match self {
            Wire::Spec { acks } => acks.clear(),
            Wire::Extended {
                owed, spec_acks, ..
            } => {
                spec_acks.clear();
                owed.clear();
            }
        }
    }

    /// Whether ACK frames are due at `now` (the extended wire's: a spec datagram carries no
    /// frame).
    #[inline]
    pub fn frames_due(&self, now: Instant) -> bool {
        match self {
            Wire::Spec { .. } => false,
            Wire::Extended { owed, .. } => owed.due(now),
        }
    }

    /// Writes the next ACK frame owed into `buf`, in at most `room` bytes; `false` when none
    /// was written. `rx` says what has been received.
    #[inline]
    pub fn write_frame(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        room: usize,
        rx: &Reassembler,
    ) -> bool {
        match self {
            Wire::Spec { .. } => false,
            Wire::Extended { owed, .. } => owed.write(now, buf, room, rx, rx.newest()),
        }
    }

    /// Appends up to `max` of the spec's 4-byte ACKs owed to `buf`; returns how many.
    #[inline]
    pub fn write_spec_acks(&mut self, buf: &mut Vec<u8>, max: usize) -> usize {
        let acks = match self {
            Wire::Spec { acks } => acks,
            Wire::Extended { spec_acks, .. } => spec_acks,
        };
        if acks.is_empty() {
            return 0;
        }
        acks.write(buf, max)
    }

    /// The keepalive (`newest`: the newest sequence seen from the peer; see
    /// [`liveness`](super::liveness)).
    pub fn keepalive(&self, newest: Option<u16>) -> Signal {
        match self {
            Wire::Spec { .. } => {
                Signal::Control(Header::ack(255, keepalive_sequence(newest)).encode())
            }
            Wire::Extended { .. } => Signal::Frame(PING),
        }
    }

    /// The close (`next_sequence`: the sequence the next message would get).
    pub fn close(&self, next_sequence: u16) -> Signal {
        match self {
            Wire::Spec { .. } => {
                Signal::Control(Header::new(Flags::END, 0, next_sequence).encode())
            }
            Wire::Extended { .. } => Signal::Frame(CLOSE),
        }
    }

    /// The deadline of one of the wire's own timers ([`Timer::AckDelay`] and [`Timer::Probe`],
    /// both the extended wire's); `None` for any other.
    #[inline(always)]
    pub fn deadline(&self, timer: Timer, outbound: &Outbound) -> Option<Instant> {
        let Wire::Extended { owed, .. } = self else {
            return None;
        };
        match timer {
            Timer::AckDelay => owed.deadline(),
            Timer::Probe => outbound.probe_deadline(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const POLICY: AckPolicy = AckPolicy {
        max: 8,
        delay: Duration::from_millis(25),
        every: 2,
    };

    #[test]
    fn the_spec_acks_owed_at_the_swap_still_leave_first() {
        let now = Instant::now();
        let mut wire = Wire::spec(8);
        assert!(wire.owe(now, 7, 0, false));
        assert!(wire.owe(now, 7, 1, false));
        wire.extend(Extensions::ALL, POLICY);
        assert!(matches!(wire, Wire::Extended { .. }));
        // Owed on the extended wire from now on: a frame, not a 4-byte ACK.
        assert!(wire.owe(now, 8, 0, false));
        let mut buf = Vec::new();
        assert_eq!(wire.write_spec_acks(&mut buf, 8), 2);
        let mut expected = Header::ack(0, 7).encode().to_vec();
        expected.extend_from_slice(&Header::ack(1, 7).encode());
        assert_eq!(buf, expected);
        assert_eq!(wire.write_spec_acks(&mut buf, 8), 0);
        assert!(
            !wire.is_empty(),
            "the frame's acknowledgement is still owed"
        );
        wire.clear();
        assert!(wire.is_empty());
    }

    #[test]
    fn each_wire_keeps_alive_and_closes_its_own_way() {
        let spec = Wire::spec(8);
        let newest = Some(0x0102);
        assert_eq!(
            spec.keepalive(newest),
            Signal::Control(Header::ack(255, keepalive_sequence(newest)).encode())
        );
        assert_eq!(
            spec.close(9),
            Signal::Control(Header::new(Flags::END, 0, 9).encode())
        );
        let mut ext = Wire::spec(8);
        ext.extend(Extensions::NONE, POLICY);
        assert_eq!(ext.keepalive(newest), Signal::Frame(PING));
        assert_eq!(ext.close(9), Signal::Frame(CLOSE));
        // A second swap changes nothing.
        ext.extend(Extensions::ALL, POLICY);
        assert!(matches!(ext, Wire::Extended { ext, .. } if ext == Extensions::NONE));
    }

    #[test]
    fn only_the_extended_wire_has_ack_and_probe_deadlines() {
        let now = Instant::now();
        let outbound = Outbound::new(&crate::config::Config::default());
        let mut wire = Wire::spec(8);
        wire.owe(now, 1, 0, false);
        assert_eq!(wire.deadline(Timer::AckDelay, &outbound), None);
        wire.extend(Extensions::ALL, POLICY);
        assert_eq!(wire.deadline(Timer::AckDelay, &outbound), None);
        wire.owe(now, 2, 0, false);
        assert_eq!(
            wire.deadline(Timer::AckDelay, &outbound),
            Some(now + POLICY.delay)
        );
        assert_eq!(wire.deadline(Timer::Idle, &outbound), None);
    }
}
