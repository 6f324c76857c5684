//! The fuzzer's bytes read as a program of operations: a read past the end gives zeros, so
//! that every input is a whole program and the fuzzer need not learn lengths.

/// What is left of the input.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    /// The next byte, or zero at the end.
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// The next two bytes, big endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.byte(), self.byte()])
    }

    /// The next `n` bytes, or what is left.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head.to_vec()
    }

    /// Whether the program is over.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
