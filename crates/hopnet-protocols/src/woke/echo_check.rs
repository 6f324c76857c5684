//! The contract's WOKE client: command `i` has type `i % 1024` and data starting with `i`
//! big-endian; every reliable command must come back once, intact.

use crate::echo_tally::EchoTally;

/// The client's summary, the contract's JSON fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Commands sent.
    pub sent: u32,
    /// Distinct commands whose echo came back intact.
    pub echoed: u32,
    /// Reliable echoes that came back more than once.
    pub duplicates: u32,
    /// The id the server gave.
    pub client_id: u16,
}

impl Summary {
    /// The contract's JSON line.
    pub fn to_json(&self) -> String {
        crate::json::object(&[
            ("sent", self.sent.into()),
            ("echoed", self.echoed.into()),
            ("duplicates", self.duplicates.into()),
            ("client_id", self.client_id.into()),
        ])
    }
}

/// The bookkeeping of the contract's client.
#[derive(Debug)]
pub struct EchoCheck {
    count: u32,
    size: usize,
    reliable: bool,
    tally: EchoTally,
    /// What is not in the tally.
    summary: Summary,
}

impl EchoCheck {
    /// `count` commands of `size` bytes (at least 4), reliable or not.
    pub fn new(count: u32, size: usize, reliable: bool) -> EchoCheck {
        EchoCheck {
            count,
            size: size.max(4),
            reliable,
            tally: EchoTally::new(count),
            summary: Summary::default(),
        }
    }

    /// Command `index`: its type and data.
    pub fn command(&self, index: u32) -> (u16, Vec<u8>) {
        let mut data = index.to_be_bytes().to_vec();
        data.extend((4..self.size).map(|k| (index as usize).wrapping_mul(7).wrapping_add(k) as u8));
        ((index % 1024) as u16, data)
    }

    /// Whether the commands are reliable.
    pub fn reliable(&self) -> bool {
        self.reliable
    }

    /// A command went out.
    pub fn sent(&mut self) {
        self.summary.sent += 1;
    }

    /// The server gave this id.
    pub fn connected(&mut self, client_id: u16) {
        self.summary.client_id = client_id;
    }

    /// Commands sent and not back yet (reliable: they are still on their way).
    pub fn outstanding(&self) -> u32 {
        self.summary.sent - self.tally.echoed
    }

    /// An echo came back.
    pub fn echo(&mut self, kind: u16, data: &[u8], reliable: bool) {
        let Some(index) = self.tally.index_of(data) else {
            return;
        };
        let intact = (kind, data.to_vec()) == self.command(index) && reliable == self.reliable;
        self.tally.back(index, intact, reliable);
    }

    /// Echoes that were not a command sent, intact.
    pub fn corrupt(&self) -> u32 {
        self.tally.corrupt
    }

    /// Whether every command came back (for reliable ones, the goal).
    pub fn all_back(&self) -> bool {
        self.tally.echoed == self.count
    }

    /// The contract's success: every reliable command back once, intact (unreliable ones:
    /// all sent, none corrupt, none duplicated beyond what the link did).
    pub fn succeeded(&self) -> bool {
        let back = !self.reliable || self.all_back();
        back && self.tally.duplicates == 0
            && self.tally.corrupt == 0
            && self.summary.sent == self.count
            && self.summary.client_id != 0
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
