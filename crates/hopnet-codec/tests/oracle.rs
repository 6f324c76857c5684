//! The fast bit writer and reader against an independent oracle built on `bitvec`.

use bitvec::prelude::*;
use hopnet_codec::{BitReader, BitWriter};
use proptest::prelude::*;

/// One push onto the stream.
#[derive(Debug, Clone)]
enum Op {
    Bits(u64, u32),
    Varint(u64, u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<u64>(), 0u32..=64).prop_map(|(v, n)| Op::Bits(v, n)),
        (
            any::<u64>(),
            prop::sample::select(vec![1u32, 2, 4, 8]),
            0u32..=64
        )
            .prop_map(|(v, bytes, keep)| {
                // Bias towards small values, where the byte count varies most.
                let v = if keep < 64 {
                    v & ((1u64 << keep) - 1)
                } else {
                    v
                };
                let v = if bytes < 8 {
                    v & ((1u64 << (8 * bytes)) - 1)
                } else {
                    v
                };
                Op::Varint(v, bytes)
            }),
    ]
}

/// Pushes `n` bits of `value`, least significant first, the way the spec describes it.
fn oracle_push(bits: &mut BitVec<u8, Lsb0>, value: u64, n: u32) {
    for i in 0..n {
        bits.push(value >> i & 1 == 1);
    }
}

/// The spec's variable-length integer, written out from its prose, bit by bit.
fn oracle_varint(bits: &mut BitVec<u8, Lsb0>, value: u64, bytes: u32) {
    let mut m = 1;
    while m < bytes && value >> (8 * m) != 0 {
        m += 1;
    }
    let mut k = 0;
    while (1u32 << k) < bytes {
        k += 1;
    }
    oracle_push(bits, (m - 1) as u64, k);
    for byte in 0..m {
        oracle_push(bits, value >> (8 * byte) & 0xff, 8);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed), ..ProptestConfig::default() })]

    #[test]
    fn writer_matches_the_oracle(ops in prop::collection::vec(op(), 0..64)) {
        let mut oracle: BitVec<u8, Lsb0> = BitVec::new();
        let mut buf = Vec::new();
        let mut w = BitWriter::new(&mut buf);
        for op in &ops {
            match *op {
                Op::Bits(v, n) => {
                    w.write_bits(v, n);
                    oracle_push(&mut oracle, v, n);
                }
                Op::Varint(v, bytes) => {
                    w.write_varint(v, bytes);
                    oracle_varint(&mut oracle, v, bytes);
                }
            }
            prop_assert_eq!(w.bit_len(), oracle.len() as u64);
        }
        w.finish();
        let expected = oracle.clone().into_vec();
        prop_assert_eq!(&buf, &expected);

        // And the reader takes every value back out.
        let mut r = BitReader::new(&buf);
        for op in &ops {
            match *op {
                Op::Bits(v, n) => {
                    let want = if n < 64 { v & ((1u64 << n) - 1) } else { v };
                    prop_assert_eq!(r.read_bits(n).unwrap(), want);
                }
                Op::Varint(v, bytes) => prop_assert_eq!(r.read_varint(bytes).unwrap(), v),
            }
        }
        prop_assert!(r.finish().is_ok());
    }

    #[test]
    fn writer_appends_after_existing_bytes(prefix in prop::collection::vec(any::<u8>(), 0..16), v in any::<u64>(), n in 0u32..=64) {
        let mut buf = prefix.clone();
        let mut w = BitWriter::new(&mut buf);
        w.write_bits(v, n);
        prop_assert_eq!(w.bit_len(), n as u64);
        w.finish();
        prop_assert_eq!(&buf[..prefix.len()], &prefix[..]);
        let mut r = BitReader::new(&buf[prefix.len()..]);
        let want = if n < 64 { v & ((1u64 << n) - 1) } else { v };
        prop_assert_eq!(r.read_bits(n).unwrap(), want);
    }

    #[test]
    fn bytes_round_trip_at_any_alignment(shift in 0u32..8, data in prop::collection::vec(any::<u8>(), 0..40)) {
        let mut buf = Vec::new();
        let mut w = BitWriter::new(&mut buf);
        w.write_bits(0, shift);
        w.write_bytes(&data);
        w.finish();
        let mut r = BitReader::new(&buf);
        r.read_bits(shift).unwrap();
        let mut out = vec![0u8; data.len()];
        r.read_bytes(&mut out).unwrap();
        prop_assert_eq!(out, data);
    }
}
