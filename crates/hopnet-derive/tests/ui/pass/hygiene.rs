// The generated code relies on no import of the user's and triggers no warning.
#![no_implicit_prelude]
#![deny(warnings)]

// Names that would break generated code that leaned on the prelude or on user imports.
#[allow(dead_code)]
struct Ok;
#[allow(dead_code)]
struct Some;
#[allow(dead_code)]
type Result = ();
#[allow(dead_code)]
struct Vec;

#[derive(::hopnet_codec::Rabbit, ::std::clone::Clone)]
#[rabbit(delta)]
/// Every attribute at once.
struct Everything {
    #[bits(3)]
    small: u8,
    #[rabbit(varint)]
    id: u32,
    #[rabbit(zigzag)]
    dx: i32,
    #[rabbit(range = "-4..=3")]
    tilt: i8,
    present: bool,
    #[rabbit(if = "*present")]
    extra: ::std::option::Option<u16>,
    #[rabbit(max_len = 4)]
    name: ::std::string::String,
    #[rabbit(skip)]
    cache: u64,
    #[rabbit(with = "codec")]
    custom: u8,
    #[rabbit(quantize(range = "-1.0..=1.0", precision = 0.5))]
    grid: f32,
    #[rabbit(key = "0")]
    keyed: ::std::vec::Vec<Single>,
    __w: u8,
    __base: u8,
    __e: u8,
    __r: u8,
    r: u8,
    w: u8,
}

#[derive(::hopnet_codec::Rabbit, ::std::clone::Clone)]
#[rabbit(tag = "varint", delta = "per_field")]
enum Kinds<T> {
    Unit,
    Tuple(u8, T, #[rabbit(if = "*_0 == 0")] ::std::option::Option<u8>),
    #[rabbit(index = 9)]
    Named {
        #[bits(1)]
        flag: bool,
    },
}

#[derive(::hopnet_codec::Rabbit, ::std::clone::Clone)]
#[rabbit(delta)]
struct Single(u8);

#[derive(::hopnet_codec::Rabbit, ::std::clone::Clone)]
#[rabbit(delta)]
enum OnlyOne {
    It,
}

mod codec {
    pub fn encode(v: &u8, w: &mut ::hopnet_codec::BitWriter<'_>) -> ::hopnet_codec::Result<()> {
        w.write_bits(*v as u64, 8);
        ::std::result::Result::Ok(())
    }
    pub fn decode(r: &mut ::hopnet_codec::BitReader<'_>) -> ::hopnet_codec::Result<u8> {
        ::std::result::Result::Ok(r.read_bits(8)? as u8)
    }
}

const _: () = ::std::assert!(::std::matches!(
    <Everything as ::hopnet_codec::Encode>::MAX_BITS,
    ::std::option::Option::None
));
const _: () = ::std::assert!(<Kinds<u8> as ::hopnet_codec::Encode>::MIN_BITS == 10);

fn main() {
    let _ = ::hopnet_codec::to_bytes(&Single(1));
    let _ = ::hopnet_codec::to_bytes(&OnlyOne::It);
    let _ = ::hopnet_codec::to_bytes(&Kinds::<u8>::Unit);
    let _ = ::hopnet_codec::delta::to_bytes(&Single(2), &Single(1));
    let _ = ::hopnet_codec::delta::to_bytes(&OnlyOne::It, &OnlyOne::It);
    let _ = ::hopnet_codec::delta::to_bytes(&Kinds::<u8>::Unit, &Kinds::<u8>::Unit);
}
