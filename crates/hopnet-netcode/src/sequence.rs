//! The prefix byte and the variable-length sequence of every encrypted packet.
//!
//! The prefix's low nibble is the packet type, its high nibble the number of sequence bytes
//! (1 to 8); the sequence follows with its high zero bytes left out, least significant byte
//! first. The prefix is in the associated data, so neither nibble can be altered.

/// The number of bytes a sequence takes: its significant bytes, at least one.
pub(crate) fn sequence_bytes(sequence: u64) -> u8 {
    (8 - sequence.leading_zeros() as u8 / 8).max(1)
}

/// The prefix byte for a packet type and a sequence.
pub(crate) fn prefix_byte(packet_type: u8, sequence: u64) -> u8 {
    (sequence_bytes(sequence) << 4) | packet_type
}

/// Appends the sequence's significant bytes, least significant first.
pub(crate) fn write_sequence(out: &mut Vec<u8>, sequence: u64) {
    let n = sequence_bytes(sequence) as usize;
    out.extend_from_slice(&sequence.to_le_bytes()[..n]);
}

/// Reads `n` sequence bytes (1 to 8, checked by the caller) from the start of `bytes`.
pub(crate) fn read_sequence(bytes: &[u8], n: usize) -> Option<u64> {
    let mut le = [0u8; 8];
    le.get_mut(..n)?.copy_from_slice(bytes.get(..n)?);
    Some(u64::from_le_bytes(le))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standards_example_1000_is_two_bytes_reversed() {
        assert_eq!(sequence_bytes(1000), 2);
        let mut out = Vec::new();
        write_sequence(&mut out, 1000);
        assert_eq!(out, [0xe8, 0x03]);
        assert_eq!(prefix_byte(5, 1000), 0x25);
    }

    #[test]
    fn every_length_round_trips() {
        for (sequence, n) in [(0u64, 1), (255, 1), (256, 2), (1 << 63, 8), (u64::MAX, 8)] {
            assert_eq!(sequence_bytes(sequence), n);
            let mut out = Vec::new();
            write_sequence(&mut out, sequence);
            assert_eq!(out.len(), n as usize);
            assert_eq!(read_sequence(&out, n as usize), Some(sequence));
        }
        assert_eq!(read_sequence(&[1, 2], 3), None);
        assert_eq!(read_sequence(&[0; 9], 9), None);
    }
}
