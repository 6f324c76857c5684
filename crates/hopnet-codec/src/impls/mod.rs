//! `Encode` and `Decode` for the standard library's types, as PROTOCOL.md ("Rabbit encoding") lays them out.

/// `decode` and `decode_window` with one body: the reads it makes (`read_bits`,
/// `read_varint`, ...) have the same names and meaning on a `BitReader` and a `BitWindow`.
macro_rules! decode_both {
    (|$r:ident| $body:expr) => {
        #[inline(always)]
        fn decode($r: &mut crate::read::BitReader<'_>) -> crate::error::Result<Self> {
            $body
        }
        #[inline(always)]
        fn decode_window($r: &mut crate::read::BitWindow<'_>) -> crate::error::Result<Self> {
            $body
        }
    };
}

/// `Encode` of a type that is written as what it derefs to (`$target`).
macro_rules! deref_encode {
    ($(impl[$($g:tt)*] for $t:ty => $target:ty;)*) => {$(
        impl<$($g)*> crate::encode::Encode for $t {
            const MIN_BITS: u64 = <$target>::MIN_BITS;
            const MAX_BITS: Option<u64> = <$target>::MAX_BITS;
            const WORD_BITS: Option<u32> = <$target>::WORD_BITS;
            #[inline(always)]
            fn encode_word(&self) -> crate::error::Result<(u64, u32)> {
                (**self).encode_word()
            }
            #[inline(always)]
            fn encode(&self, w: &mut crate::write::BitWriter<'_>) -> crate::error::Result<()> {
                (**self).encode(w)
            }
            #[inline(always)]
            fn encoded_bits(&self) -> u64 {
                (**self).encoded_bits()
            }
            fn schema() -> crate::schema::Encoding {
                <$target>::schema()
            }
        }
    )*};
}

pub(crate) mod collections;
mod numbers;
mod pointers;
mod tuples;
