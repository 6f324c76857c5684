//! Reads within the input's last eight bytes take their own path: every width at every
//! position there must give the bits a bit-by-bit reading gives, and past the end an error.

use hopnet_codec::{BitReader, Error};

/// The `n` bits at `pos`, the first as the least significant, one bit at a time.
fn bit_by_bit(data: &[u8], pos: u64, n: u32) -> u64 {
    (0..u64::from(n)).fold(0, |acc, i| {
        let at = pos + i;
        let bit = (data[(at / 8) as usize] >> (at % 8)) & 1;
        acc | (u64::from(bit) << i)
    })
}

#[test]
fn every_read_near_the_end_matches_the_bits() {
    for len in 0..=10usize {
        let data: Vec<u8> = (0..len as u8)
            .map(|i| i.wrapping_mul(0x9d) ^ 0xa5)
            .collect();
        let bits = 8 * len as u64;
        for pos in 0..=bits {
            for n in 0..=64u32 {
                let mut r = BitReader::new(&data);
                r.skip_to(pos).unwrap();
                let got = r.read_bits(n);
                if pos + u64::from(n) <= bits {
                    assert_eq!(got.unwrap(), bit_by_bit(&data, pos, n), "{len} {pos} {n}");
                    assert_eq!(r.position(), pos + u64::from(n));
                } else {
                    assert!(
                        matches!(
                            got,
                            Err(Error::UnexpectedEnd { needed, remaining, position })
                                if needed == u64::from(n)
                                    && remaining == bits - pos
                                    && position == pos
                        ),
                        "{len} {pos} {n}: {got:?}"
                    );
                }
            }
            // More than 64 bits at once is refused, whatever is left.
            let mut r = BitReader::new(&data);
            r.skip_to(pos).unwrap();
            assert!(r.read_bits(65).is_err(), "{len} {pos}");
        }
    }
}
