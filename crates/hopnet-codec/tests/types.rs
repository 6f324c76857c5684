//! The standard types: round trips, sizes, and the errors decoding must give.

use hopnet_codec::{Encode, Error, from_bytes, to_bytes};
use proptest::prelude::*;
use std::borrow::Cow;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;
use test_vectors::round_trip_strict as round_trip;

#[test]
fn spec_example_is_2f_1a() {
    let mut buf = Vec::new();
    let mut w = hopnet_codec::BitWriter::new(&mut buf);
    w.write_bits(15, 5);
    w.write_bits(81, 7);
    w.write_bits(1, 2);
    drop(w); // dropping flushes too
    assert_eq!(buf, [0x2f, 0x1a]);
}

#[test]
fn integer_encodings() {
    assert_eq!(round_trip(&0u8), [0x00]);
    assert_eq!(round_trip(&0xabu8), [0xab]);
    // u32 zero: two zero bits for m - 1, then one zero byte.
    assert_eq!(round_trip(&0u32), [0x00, 0x00]);
    assert_eq!(0u32.encoded_bits(), 10);
    assert_eq!(u32::MAX.encoded_bits(), 34);
    assert_eq!(round_trip(&-1i8), [0x01]);
    assert_eq!(round_trip(&i8::MIN), [0xff]);
    assert_eq!((-1i32).encoded_bits(), 10);
    for v in [
        0u128,
        1,
        255,
        256,
        u64::MAX as u128,
        u64::MAX as u128 + 1,
        u128::MAX,
    ] {
        round_trip(&v);
    }
    assert_eq!(u128::MAX.encoded_bits(), 4 + 128);
    for v in [0i128, -1, i128::MIN, i128::MAX] {
        round_trip(&v);
    }
    // usize is u64 everywhere.
    assert_eq!(to_bytes(&300usize).unwrap(), to_bytes(&300u64).unwrap());
    assert_eq!(to_bytes(&-300isize).unwrap(), to_bytes(&-300i64).unwrap());
}

#[test]
fn floats_keep_their_bits() {
    for v in [
        0.0f32,
        -0.0,
        1.5,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::INFINITY,
    ] {
        let bytes = round_trip(&v);
        assert_eq!(bytes, v.to_bits().to_le_bytes());
    }
    let nan = from_bytes::<f32>(&to_bytes(&f32::NAN).unwrap()).unwrap();
    assert!(nan.is_nan());
    for v in [0.0f64, -2.5, f64::MAX] {
        assert_eq!(round_trip(&v), v.to_bits().to_le_bytes());
    }
}

#[test]
fn containers_round_trip() {
    round_trip(&Some(7u32));
    round_trip(&None::<u32>);
    round_trip(&vec![1u16, 2, 300]);
    round_trip(&Vec::<u8>::new());
    round_trip(&String::from("héllo, wörld"));
    round_trip(&String::new());
    round_trip(&[1u32, 2, 3]);
    round_trip(&Box::new(5u64));
    round_trip(&Rc::new(true));
    round_trip(&Arc::new(-3i32));
    round_trip(&Arc::<[u8]>::from(vec![1, 2, 3]));
    round_trip(&Arc::<str>::from("shared"));
    round_trip(&Box::<str>::from("boxed"));
    round_trip(&Cow::<str>::Owned("cow".into()));
    round_trip(&(1u8, 2u16, 3u32, 4u64, true, -1i8, 0.5f32, String::from("x")));
    round_trip(&());
    round_trip(&PhantomData::<String>);
    round_trip(&'€');
    // A slice and a str encode exactly like the owned forms.
    assert_eq!(
        to_bytes(&[1u8, 2][..]).unwrap(),
        to_bytes(&vec![1u8, 2]).unwrap()
    );
    assert_eq!(
        to_bytes("ab").unwrap(),
        to_bytes(&String::from("ab")).unwrap()
    );
}

#[test]
fn size_constants() {
    assert_eq!(<Option<u32>>::MIN_BITS, 1);
    assert_eq!(<Option<u32>>::MAX_BITS, Some(35));
    assert_eq!(<Vec<u8>>::MIN_BITS, 10);
    assert_eq!(<Vec<u8>>::MAX_BITS, None);
    assert_eq!(<[u16; 3]>::MIN_BITS, 27);
    assert_eq!(<[u16; 3]>::MAX_BITS, Some(51));
    assert_eq!(<(bool, f32)>::MAX_BITS, Some(33));
    assert_eq!(<String>::MAX_BITS, None);
}

#[test]
fn decode_errors_say_what_and_where() {
    // Input ended.
    let err = from_bytes::<u32>(&[0x01]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::UnexpectedEnd {
                needed: 16,
                remaining: 6,
                position: 2
            }
        ),
        "{err}"
    );
    // A whole zero byte after the value.
    assert_eq!(
        from_bytes::<u8>(&[1, 0]).unwrap_err(),
        Error::TrailingBytes { bytes: 1 }
    );
    // Non-zero padding.
    assert_eq!(
        from_bytes::<bool>(&[0b11]).unwrap_err(),
        Error::NonZeroPadding
    );
    // A count of 4 billion in a 6-byte message is refused before allocating.
    let mut bytes = to_bytes(&u32::MAX).unwrap();
    bytes.resize(6, 0);
    let err = from_bytes::<Vec<u64>>(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            Error::CountTooLarge {
                count: 4294967295,
                ..
            }
        ),
        "{err}"
    );
    let err = from_bytes::<String>(&bytes).unwrap_err();
    assert!(matches!(err, Error::CountTooLarge { .. }), "{err}");
    // Zero-bit items cannot spin the decoder either.
    let err = from_bytes::<Vec<()>>(&bytes).unwrap_err();
    assert!(matches!(err, Error::CountTooLarge { .. }), "{err}");
    // Invalid UTF-8.
    let mut bytes = Vec::new();
    let mut w = hopnet_codec::BitWriter::new(&mut bytes);
    w.write_varint(2, 4);
    w.write_bytes(&[0xc0, 0xaf]);
    w.finish();
    assert!(matches!(
        from_bytes::<String>(&bytes).unwrap_err(),
        Error::InvalidUtf8 { .. }
    ));
    // Longer varints than needed are not the spec's encoding.
    let mut bytes = Vec::new();
    let mut w = hopnet_codec::BitWriter::new(&mut bytes);
    w.write_bits(1, 2); // m - 1 = 1: two bytes
    w.write_bits(5, 16); // but 5 fits one
    w.finish();
    assert!(matches!(
        from_bytes::<u32>(&bytes).unwrap_err(),
        Error::NonCanonicalVarint {
            value: 5,
            bytes: 2,
            ..
        }
    ));
    // char rejects surrogates.
    let bytes = to_bytes(&0xd800u32).unwrap();
    assert!(matches!(
        from_bytes::<char>(&bytes).unwrap_err(),
        Error::OutOfRange { .. }
    ));
    // read_bits beyond 64 is an error, not a panic.
    assert!(
        hopnet_codec::BitReader::new(&[0; 16])
            .read_bits(65)
            .is_err()
    );
}

#[test]
fn encode_into_appends_and_reuses() {
    let mut buf = vec![0xaa];
    hopnet_codec::encode_into(&7u8, &mut buf).unwrap();
    hopnet_codec::encode_into(&true, &mut buf).unwrap();
    assert_eq!(buf, [0xaa, 7, 1]);
    buf.clear();
    let cap = buf.capacity();
    hopnet_codec::encode_into(&1u8, &mut buf).unwrap();
    assert_eq!(buf.capacity(), cap);
}

#[test]
fn to_bytes_reserves_from_the_sizes() {
    // Bounded and small: room for the most it can take, so one allocation.
    let v = to_bytes(&(7u8, Some(u32::MAX), [1.5f64; 3])).unwrap();
    assert_eq!(v.len(), (8 + 35 + 192usize).div_ceil(8));
    assert!(v.capacity() >= v.len());
    // Unbounded: a growing buffer that still holds exactly the encoding.
    let big: Vec<u32> = (0..5000).collect();
    let bytes = to_bytes(&big).unwrap();
    assert_eq!(bytes.len(), hopnet_codec::encoded_len(&big));
    assert_eq!(from_bytes::<Vec<u32>>(&bytes).unwrap(), big);
    // A hand-written impl claiming an absurd minimum does not make it reserve that much.
    struct Huge;
    impl Encode for Huge {
        const MIN_BITS: u64 = u64::MAX;
        const MAX_BITS: Option<u64> = None;
        fn encode(&self, w: &mut hopnet_codec::BitWriter<'_>) -> hopnet_codec::Result<()> {
            w.write_bits(5, 3);
            Ok(())
        }
        fn encoded_bits(&self) -> u64 {
            3
        }
    }
    assert_eq!(to_bytes(&Huge).unwrap(), [5]);
}

#[test]
fn encode_into_leaves_the_buffer_as_it_was_on_error() {
    // Whole words reach the buffer (two u64, three strings) before the fourth string fails
    // (too long for `max_len`), in the middle of the value.
    let ok = "x".repeat(3);
    let value = (
        u64::MAX,
        u64::MAX,
        [ok.clone(), ok.clone(), ok, "y".repeat(70)],
    );
    #[derive(Debug)]
    struct Capped<'a>(&'a (u64, u64, [String; 4]));
    impl hopnet_codec::Encode for Capped<'_> {
        const MIN_BITS: u64 = 0;
        const MAX_BITS: Option<u64> = None;
        fn encode(&self, w: &mut hopnet_codec::BitWriter<'_>) -> hopnet_codec::Result<()> {
            self.0.0.encode(w)?;
            self.0.1.encode(w)?;
            for s in &self.0.2 {
                <hopnet_codec::codec::MaxLen<64> as hopnet_codec::codec::FieldCodec<String>>::encode(s, w)?;
            }
            Ok(())
        }
        fn encoded_bits(&self) -> u64 {
            0
        }
    }
    let mut buf = vec![0xaa, 0xbb, 0xcc];
    let err = hopnet_codec::encode_into(&Capped(&value), &mut buf).unwrap_err();
    assert!(
        matches!(err, Error::TooLong { len: 70, max: 64 }),
        "{err:?}"
    );
    assert_eq!(buf, [0xaa, 0xbb, 0xcc]);
    // The same buffer still works afterwards.
    hopnet_codec::encode_into(&7u8, &mut buf).unwrap();
    assert_eq!(buf, [0xaa, 0xbb, 0xcc, 7]);
}

fn arb_nested() -> impl Strategy<Value = (Vec<Option<i64>>, String, [u16; 2])> {
    (
        prop::collection::vec(any::<Option<i64>>(), 0..20),
        any::<String>(),
        any::<[u16; 2]>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]

    #[test]
    fn scalars_round_trip(a in any::<u64>(), b in any::<i64>(), c in any::<i16>(), d in any::<u16>(), e in any::<i8>(), f in any::<f64>()) {
        round_trip(&(a, b, c, d, e));
        let back: f64 = from_bytes(&to_bytes(&f).unwrap()).unwrap();
        prop_assert_eq!(back.to_bits(), f.to_bits());
    }

    #[test]
    fn nested_round_trip(v in arb_nested()) {
        round_trip(&v);
    }

    #[test]
    fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = from_bytes::<(Vec<Option<String>>, u128, [i32; 3])>(&bytes);
        let _ = from_bytes::<Vec<Vec<u8>>>(&bytes);
        let _ = from_bytes::<(char, f32, Option<Box<u64>>)>(&bytes);
    }
}
