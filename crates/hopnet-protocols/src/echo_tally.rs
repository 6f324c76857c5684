//! What the contract's clients count of the echoes, the same for every protocol: a message
//! names its index in its first 4 bytes (big-endian); each index sent comes back once, intact;
//! a reliable one that comes back again is a duplicate; anything else is corrupt.

/// The echoes of `count` messages, indexed from 0.
#[derive(Debug)]
pub(crate) struct EchoTally {
    /// How many times each index came back intact.
    seen: Vec<u32>,
    /// Distinct indexes back.
    pub echoed: u32,
    /// Reliable echoes that came back more than once.
    pub duplicates: u32,
    /// Echoes that were not a message sent, intact.
    pub corrupt: u32,
}

impl EchoTally {
    pub fn new(count: u32) -> EchoTally {
        EchoTally {
            seen: vec![0; count as usize],
            echoed: 0,
            duplicates: 0,
            corrupt: 0,
        }
    }

    /// The index an echo names, if it is one of the messages sent; `None` is counted as
    /// corrupt.
    pub fn index_of(&mut self, echo: &[u8]) -> Option<u32> {
        let index = echo
            .first_chunk::<4>()
            .map(|b| u32::from_be_bytes(*b))
            .filter(|&i| (i as usize) < self.seen.len());
        if index.is_none() {
            self.corrupt += 1;
        }
        index
    }

    /// Counts an echo of `index` that is intact (the bytes sent, with the reliability sent)
    /// or not; whether it is the first intact echo of that index.
    pub fn back(&mut self, index: u32, intact: bool, reliable: bool) -> bool {
        if !intact {
            self.corrupt += 1;
            return false;
        }
        let seen = &mut self.seen[index as usize];
        *seen += 1;
        if *seen > 1 {
            if reliable {
                self.duplicates += 1;
            }
            return false;
        }
        self.echoed += 1;
        true
    }

    /// Whether `index` came back intact.
    pub fn is_back(&self, index: u32) -> bool {
        self.seen[index as usize] > 0
    }
}
