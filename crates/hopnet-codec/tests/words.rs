//! `Encode::WORD_BITS` / `encode_word` and the merged writes of derived `encode`: the bytes
//! are exactly those of one write per field (a hand-written reference encoder below), for
//! every codec, generic fields, enum tags (fixed and varint), `skip` and `if` fields; words
//! are what `encode` writes; hand-written impls without `encode_word` still work.
#![cfg(feature = "derive")]

use hopnet_codec::{BitWriter, Encode, Error, Rabbit};
use proptest::prelude::*;

mod common;
use common::nibble;

#[derive(Rabbit, Debug, Clone, Copy, PartialEq)]
#[bits(2)]
enum Kind {
    A,
    B,
    C,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(tag = "varint")]
enum Tagged {
    Empty,
    Small(#[bits(3)] u8),
    #[rabbit(index = 300)]
    Far {
        x: f32,
        y: Option<u8>,
    },
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Small {
    #[bits(5)]
    a: u8,
    b: bool,
    kind: Kind,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
struct Mixed<T> {
    #[bits(5)]
    small: u8,
    #[bits(13)]
    signed: i16,
    flag: bool,
    generic: T,
    #[rabbit(varint)]
    twos: i32,
    #[rabbit(zigzag)]
    dx: i16,
    #[rabbit(range = "-100..=1000")]
    level: i32,
    position: (f32, f32),
    x: f32,
    y: f32,
    z: f32,
    present: bool,
    #[rabbit(if = "*present")]
    extra: Option<u32>,
    maybe: Option<f32>,
    id: u32,
    #[rabbit(with = "nibble")]
    custom: u8,
    #[rabbit(skip)]
    cache: u32,
    big: u64,
    tagged: Tagged,
    small_struct: Small,
    byte: i8,
    wide: f64,
    ch: char,
    last: Option<Kind>,
}

/// The reference: every field written on its own, as the derive did before merging.
fn reference(m: &Mixed<u16>) -> Vec<u8> {
    fn small(s: &Small, w: &mut BitWriter<'_>) {
        w.write_bits(s.a as u64, 5);
        w.write_bool(s.b);
        w.write_bits(s.kind as u64, 2);
    }
    let mut out = Vec::new();
    let mut w = BitWriter::new(&mut out);
    w.write_bits(m.small as u64, 5);
    w.write_bits(m.signed as u64, 13);
    w.write_bool(m.flag);
    w.write_varint(m.generic as u64, 2);
    w.write_varint(m.twos as u32 as u64, 4);
    w.write_varint(hopnet_codec::varint::zigzag_encode(m.dx as i64), 2);
    w.write_bits((m.level + 100) as u64, 11);
    w.write_bits(m.position.0.to_bits() as u64, 32);
    w.write_bits(m.position.1.to_bits() as u64, 32);
    for f in [m.x, m.y, m.z] {
        w.write_bits(f.to_bits() as u64, 32);
    }
    w.write_bool(m.present);
    if let Some(e) = m.extra {
        w.write_varint(e as u64, 4);
    }
    w.write_bool(m.maybe.is_some());
    if let Some(f) = m.maybe {
        w.write_bits(f.to_bits() as u64, 32);
    }
    w.write_varint(m.id as u64, 4);
    w.write_bits(m.custom as u64, 4);
    w.write_varint(m.big, 8);
    match &m.tagged {
        Tagged::Empty => w.write_varint(0, 4),
        Tagged::Small(v) => {
            w.write_varint(1, 4);
            w.write_bits(*v as u64, 3);
        }
        Tagged::Far { x, y } => {
            w.write_varint(300, 4);
            w.write_bits(x.to_bits() as u64, 32);
            w.write_bool(y.is_some());
            if let Some(y) = y {
                w.write_bits(*y as u64, 8);
            }
        }
    }
    small(&m.small_struct, &mut w);
    w.write_bits(hopnet_codec::varint::zigzag_encode(m.byte as i64), 8);
    w.write_bits(m.wide.to_bits(), 64);
    w.write_varint(m.ch as u64, 4);
    w.write_bool(m.last.is_some());
    if let Some(k) = m.last {
        w.write_bits(k as u64, 2);
    }
    w.finish();
    out
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::A), Just(Kind::B), Just(Kind::C)]
}

fn tagged() -> impl Strategy<Value = Tagged> {
    prop_oneof![
        Just(Tagged::Empty),
        (0u8..8).prop_map(Tagged::Small),
        (any::<f32>(), any::<Option<u8>>()).prop_map(|(x, y)| Tagged::Far { x, y }),
    ]
}

prop_compose! {
    fn mixed()(
        small in 0u8..32,
        signed in -4096i16..4096,
        flag in any::<bool>(),
        generic in any::<u16>(),
        twos in any::<i32>(),
        dx in any::<i16>(),
        level in -100i32..=1000,
        position in any::<(f32, f32)>(),
        xyz in any::<(f32, f32, f32)>(),
        extra in any::<Option<u32>>(),
        maybe in any::<Option<f32>>(),
        id in any::<u32>(),
        custom in 0u8..16,
        big in any::<u64>(),
        tagged in tagged(),
        small_struct in (0u8..32, any::<bool>(), kind()).prop_map(|(a, b, kind)| Small { a, b, kind }),
        byte in any::<i8>(),
        wide in any::<f64>(),
        ch in any::<char>(),
        last in prop::option::of(kind()),
    ) -> Mixed<u16> {
        Mixed {
            small, signed, flag, generic, twos, dx, level, position,
            x: xyz.0, y: xyz.1, z: xyz.2,
            present: extra.is_some(), extra, maybe, id, custom, cache: 0, big, tagged,
            small_struct, byte, wide, ch, last,
        }
    }
}

proptest! {
    #[test]
    fn merged_writes_are_the_bytes_of_one_write_per_field(m in mixed()) {
        let bytes = hopnet_codec::to_bytes(&m).unwrap();
        prop_assert_eq!(&bytes, &reference(&m));
        prop_assert_eq!(bytes.len(), hopnet_codec::encoded_len(&m));
        // Behind a reference, a `Box` and an `Option` the same bits follow a presence bit.
        let boxed = Some(Box::new(&m));
        let mut expected = vec![];
        let mut w = BitWriter::new(&mut expected);
        w.write_bool(true);
        m.encode(&mut w).unwrap();
        w.finish();
        prop_assert_eq!(hopnet_codec::to_bytes(&boxed).unwrap(), expected);
    }

    #[test]
    fn words_are_what_encode_writes(
        small in (0u8..32, any::<bool>(), kind()).prop_map(|(a, b, kind)| Small { a, b, kind }),
        tagged in tagged(),
        opt in any::<Option<u16>>(),
        i in any::<i32>(),
        c in any::<char>(),
    ) {
        fn check<T: Encode>(v: &T) -> Result<(), TestCaseError> {
            prop_assert!(T::WORD_BITS.is_some());
            let (word, n) = v.encode_word().unwrap();
            prop_assert!(n <= T::WORD_BITS.unwrap());
            prop_assert!(n == 64 || word >> n == 0);
            let mut out = vec![];
            let mut w = BitWriter::new(&mut out);
            w.write_bits(word, n);
            w.finish();
            prop_assert_eq!(out, hopnet_codec::to_bytes(v).unwrap());
            prop_assert_eq!(n as u64, v.encoded_bits());
            Ok(())
        }
        check(&small)?;
        check(&Some(small.clone()))?;
        check(&opt)?;
        check(&i)?;
        check(&c)?;
        check(&&small)?;
        check(&tagged)?;
    }
}

#[test]
fn word_bits_of_the_types() {
    assert_eq!(<bool as Encode>::WORD_BITS, Some(1));
    assert_eq!(<u8 as Encode>::WORD_BITS, Some(8));
    assert_eq!(<u16 as Encode>::WORD_BITS, Some(17));
    assert_eq!(<u32 as Encode>::WORD_BITS, Some(34));
    assert_eq!(<u64 as Encode>::WORD_BITS, None);
    assert_eq!(<f32 as Encode>::WORD_BITS, Some(32));
    assert_eq!(<f64 as Encode>::WORD_BITS, Some(64));
    assert_eq!(<Option<f32> as Encode>::WORD_BITS, Some(33));
    assert_eq!(<Option<f64> as Encode>::WORD_BITS, None);
    assert_eq!(<Box<Option<u32>> as Encode>::WORD_BITS, Some(35));
    assert_eq!(<Kind as Encode>::WORD_BITS, Some(2));
    assert_eq!(<Small as Encode>::WORD_BITS, Some(8));
    // The varint tag of index 300 (2 + 16 bits), then 32 + 1 + 8.
    assert_eq!(<Tagged as Encode>::WORD_BITS, Some(59));
    // An `if` field, a `with` codec and a `u64` are never words.
    assert_eq!(<Mixed<u8> as Encode>::WORD_BITS, None);
    assert_eq!(<Vec<u8> as Encode>::WORD_BITS, None);
    assert_eq!(<String as Encode>::WORD_BITS, None);
}

#[test]
fn errors_in_a_merged_run_name_their_field() {
    #[derive(Rabbit, Debug)]
    struct Run {
        a: bool,
        #[bits(3)]
        b: u8,
        c: f32,
    }
    let err = hopnet_codec::to_bytes(&Run {
        a: true,
        b: 9,
        c: 1.0,
    })
    .unwrap_err();
    assert!(err.to_string().contains("Run.b"), "{err}");
    assert_eq!(Run::WORD_BITS, Some(36));
    assert!(
        Run {
            a: true,
            b: 8,
            c: 0.0
        }
        .encode_word()
        .is_err()
    );
}

/// A hand-written impl that claims to be a word but keeps the provided `encode_word`.
struct Claimed(u16);

impl Encode for Claimed {
    const MIN_BITS: u64 = 12;
    const MAX_BITS: Option<u64> = Some(12);
    const WORD_BITS: Option<u32> = Some(12);
    fn encode(&self, w: &mut BitWriter<'_>) -> hopnet_codec::Result<()> {
        w.write_bits(self.0 as u64, 12);
        Ok(())
    }
    fn encoded_bits(&self) -> u64 {
        12
    }
}

impl hopnet_codec::Decode for Claimed {
    fn decode(r: &mut hopnet_codec::BitReader<'_>) -> hopnet_codec::Result<Self> {
        Ok(Claimed(r.read_bits(12)? as u16))
    }
}

/// One with only what `Encode` requires: no `WORD_BITS`, as every impl written before it
/// existed, and the provided `encoded_bits`.
struct Plain(u16);

impl Encode for Plain {
    const MIN_BITS: u64 = 12;
    const MAX_BITS: Option<u64> = Some(12);
    fn encode(&self, w: &mut BitWriter<'_>) -> hopnet_codec::Result<()> {
        w.write_bits(self.0 as u64, 12);
        Ok(())
    }
}

impl hopnet_codec::Decode for Plain {
    fn decode(r: &mut hopnet_codec::BitReader<'_>) -> hopnet_codec::Result<Self> {
        Ok(Plain(r.read_bits(12)? as u16))
    }
}

/// One that lies: claims a word but writes 70 bits.
struct Liar;

impl Encode for Liar {
    const MIN_BITS: u64 = 70;
    const MAX_BITS: Option<u64> = Some(70);
    const WORD_BITS: Option<u32> = Some(64);
    fn encode(&self, w: &mut BitWriter<'_>) -> hopnet_codec::Result<()> {
        w.write_bits(u64::MAX, 64);
        w.write_bits(0, 6);
        Ok(())
    }
    fn encoded_bits(&self) -> u64 {
        70
    }
}

#[test]
fn hand_written_impls_keep_working() {
    #[derive(Rabbit)]
    struct Around {
        a: bool,
        claimed: Claimed,
        plain: Plain,
        b: bool,
    }
    let v = Around {
        a: true,
        claimed: Claimed(0xabc),
        plain: Plain(0x123),
        b: true,
    };
    let mut expected = vec![];
    let mut w = BitWriter::new(&mut expected);
    w.write_bool(true);
    w.write_bits(0xabc, 12);
    w.write_bits(0x123, 12);
    w.write_bool(true);
    w.finish();
    assert_eq!(hopnet_codec::to_bytes(&v).unwrap(), expected);
    assert_eq!(Claimed(0xabc).encode_word().unwrap(), (0xabc, 12));
    // The provided `encode_word` of a type that is not a word refuses rather than truncates.
    assert!(matches!(Liar.encode_word(), Err(Error::Custom(_))));
    assert!(Plain(1).encode_word().is_ok());
    // The provided `encoded_bits`: the constant width.
    assert_eq!(Plain(1).encoded_bits(), 12);
    assert_eq!(v.encoded_bits(), 1 + 12 + 12 + 1);
}
