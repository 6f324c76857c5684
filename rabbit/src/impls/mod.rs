//! `Encode` and `Decode` for the standard library's types, as DESIGN.md lays them out.

/// `decode` and `decode_window` with one body: the reads it makes (`read_bits`,
/// `read_varint`, ...) have the same names and meaning on a `BitReader` and a `BitWindow`.
macro_rules! decode_both {
    (|$r:ident| $body:expr) => {
        #[inline(always)]
        fn decode($r: &mut crate::BitReader<'_>) -> crate::Result<Self> {
            $body
        }
        #[inline(always)]
        fn decode_window($r: &mut crate::BitWindow<'_>) -> crate::Result<Self> {
            $body
        }
    };
}

mod collections;
mod numbers;
mod pointers;
mod tuples;
