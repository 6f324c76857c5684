//! The contract's client: which packages it sends (index, mode, payload) and what it checks
//! of the echoes: every reliable package back once, intact, the semi-ordered ones after every
//! reliable package sent before them. The example program and the tests share it.

use hopnet_formats::semi_ordered::{MAX_PAYLOAD, Reliability};

use crate::echo_tally::EchoTally;

/// The `--mode` of the contract's client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientMode {
    /// Every package unreliable.
    Unreliable,
    /// Every package unordered.
    Unordered,
    /// Every package semi-ordered.
    SemiOrdered,
    /// Unreliable, unordered, semi-ordered, in turn.
    Mixed,
}

impl ClientMode {
    /// The mode of package `index`.
    pub fn of(self, index: u32) -> Reliability {
        match self {
            ClientMode::Unreliable => Reliability::Unreliable,
            ClientMode::Unordered => Reliability::Unordered,
            ClientMode::SemiOrdered => Reliability::SemiOrdered,
            ClientMode::Mixed => [
                Reliability::Unreliable,
                Reliability::Unordered,
                Reliability::SemiOrdered,
            ][index as usize % 3],
        }
    }
}

/// The client's summary, the contract's JSON fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Packages sent.
    pub sent: u32,
    /// Of them, reliable.
    pub reliable: u32,
    /// Distinct packages whose echo came back intact.
    pub echoed: u32,
    /// Reliable echoes that came back more than once.
    pub duplicates: u32,
    /// Semi-ordered echoes that came before a reliable echo of a smaller index.
    pub order_violations: u32,
}

/// The bookkeeping of the contract's client.
#[derive(Debug)]
pub struct EchoCheck {
    count: u32,
    size: usize,
    mode: ClientMode,
    tally: EchoTally,
    /// The lowest reliable index not back yet.
    lowest_missing: u32,
    /// What is not in the tally.
    summary: Summary,
}

impl EchoCheck {
    /// `count` packages of `size` bytes (4 to 504) in `mode`.
    pub fn new(count: u32, size: usize, mode: ClientMode) -> EchoCheck {
        let size = size.clamp(4, MAX_PAYLOAD);
        let reliable = (0..count)
            .filter(|&i| mode.of(i) != Reliability::Unreliable)
            .count() as u32;
        let mut check = EchoCheck {
            count,
            size,
            mode,
            tally: EchoTally::new(count),
            lowest_missing: 0,
            summary: Summary {
                reliable,
                ..Summary::default()
            },
        };
        check.advance();
        check
    }

    /// The mode of package `index`.
    pub fn mode(&self, index: u32) -> Reliability {
        self.mode.of(index)
    }

    /// The payload of package `index`: the index big-endian, then bytes that depend on it.
    pub fn payload(&self, index: u32) -> Vec<u8> {
        let mut p = index.to_be_bytes().to_vec();
        p.extend((4..self.size).map(|k| (index as usize).wrapping_mul(31).wrapping_add(k) as u8));
        p
    }

    /// Package `index` went out.
    pub fn sent(&mut self) {
        self.summary.sent += 1;
    }

    fn is_reliable(&self, index: u32) -> bool {
        self.mode.of(index) != Reliability::Unreliable
    }

    fn advance(&mut self) {
        while self.lowest_missing < self.count
            && (!self.is_reliable(self.lowest_missing) || self.tally.is_back(self.lowest_missing))
        {
            self.lowest_missing += 1;
        }
    }

    /// An echo came back.
    pub fn echo(&mut self, reliability: Reliability, payload: &[u8]) {
        let Some(index) = self.tally.index_of(payload) else {
            return;
        };
        let intact = payload == self.payload(index) && reliability == self.mode.of(index);
        let reliable = reliability != Reliability::Unreliable;
        if !self.tally.back(index, intact, reliable) {
            return;
        }
        if reliability == Reliability::SemiOrdered && self.lowest_missing < index {
            self.summary.order_violations += 1;
        }
        self.advance();
    }

    /// Whether every reliable package came back.
    pub fn all_reliable_back(&self) -> bool {
        self.lowest_missing >= self.count
    }

    /// Echoes that were not a package sent, intact.
    pub fn corrupt(&self) -> u32 {
        self.tally.corrupt
    }

    /// The contract's success: every reliable package back exactly once, intact, in order.
    pub fn succeeded(&self) -> bool {
        self.all_reliable_back()
            && self.tally.duplicates == 0
            && self.summary.order_violations == 0
            && self.tally.corrupt == 0
            && self.summary.sent == self.count
    }

    /// The summary so far.
    pub fn summary(&self) -> Summary {
        Summary {
            echoed: self.tally.echoed,
            duplicates: self.tally.duplicates,
            ..self.summary
        }
    }
}

impl Summary {
    /// The contract's JSON line.
    pub fn to_json(&self) -> String {
        crate::json::object(&[
            ("sent", self.sent.into()),
            ("reliable", self.reliable.into()),
            ("echoed", self.echoed.into()),
            ("duplicates", self.duplicates.into()),
            ("order_violations", self.order_violations.into()),
        ])
    }
}
