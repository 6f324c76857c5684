//! `Option`, lists, arrays and strings.
//!
//! An `Option` is a presence bit, then the value. A list (`Vec`, slice) is a `u32` count, then the
//! items; a string is its UTF-8 bytes as a list of `u8`. A fixed-size array has no count.

use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::read::{BitRead, BitReader, Decode};
use crate::schema::Encoding;
use crate::write::BitWriter;
use crate::{size, varint};

impl<T: Encode> Encode for Option<T> {
    const MIN_BITS: u64 = 1;
    const MAX_BITS: Option<u64> = size::add_max(Some(1), T::MAX_BITS);
    const WORD_BITS: Option<u32> = match T::WORD_BITS {
        Some(n) if n < 64 => Some(n + 1),
        _ => None,
    };
    #[inline(always)]
    fn encode_word(&self) -> Result<(u64, u32)> {
        if Self::WORD_BITS.is_none() {
            return crate::encode::word_by_encoding(self);
        }
        match self {
            Some(v) => {
                let (bits, n) = v.encode_word()?;
                Ok((1 | bits << 1, n + 1))
            }
            None => Ok((0, 1)),
        }
    }
    #[inline(always)]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        // The presence bit and a small value in one write.
        if Self::WORD_BITS.is_some() {
            let (bits, n) = self.encode_word()?;
            w.write_word(bits, n);
            return Ok(());
        }
        match self {
            Some(v) => {
                w.write_bool(true);
                v.encode(w)
            }
            None => {
                w.write_bool(false);
                Ok(())
            }
        }
    }
    #[inline(always)]
    fn encoded_bits(&self) -> u64 {
        1 + self.as_ref().map_or(0, T::encoded_bits)
    }
    fn schema() -> Encoding {
        Encoding::Option(Box::new(T::schema()))
    }
}

impl<T: Decode> Decode for Option<T> {
    decode_both!(|r| if r.read_bool()? {
        Ok(Some(BitRead::decode_value(r)?))
    } else {
        Ok(None)
    });
}

/// Writes a list's `u32` count, refusing lists a `u32` cannot count, and lists of items that
/// may take no bits longer than the decoder accepts ([`crate::limits::MAX_EMPTY_ITEMS`]), so that
/// whatever encodes also decodes.
#[inline(always)]
fn write_count(len: usize, min_item_bits: u64, w: &mut BitWriter<'_>) -> Result<()> {
    let max = if min_item_bits == 0 {
        crate::limits::MAX_EMPTY_ITEMS
    } else {
        u32::MAX as u64
    };
    if len as u64 > max {
        return Err(Error::TooLong {
            len: len as u64,
            max,
        });
    }
    w.write_varint(len as u64, 4);
    Ok(())
}

/// Reads a list's count and checks that `min_item_bits` per item can fit in the rest.
#[inline(always)]
fn read_count(r: &mut BitReader<'_>, min_item_bits: u64) -> Result<usize> {
    let count = r.read_varint(4)?;
    r.check_count(count, min_item_bits)?;
    Ok(count as usize)
}

/// The most bytes a decoder reserves ahead of the items it has actually read.
pub(crate) const PREALLOC_BYTES: usize = 1 << 20;

#[inline(always)]
pub(crate) fn prealloc<T>(count: usize) -> usize {
    count.min(PREALLOC_BYTES / std::mem::size_of::<T>().max(1))
}

/// Writes every item, in order, with no count: the body of a list, an array and a `to_end`
/// list alike.
#[inline]
pub(crate) fn encode_items<T: Encode>(items: &[T], w: &mut BitWriter<'_>) -> Result<()> {
    for item in items {
        item.encode(w)?;
    }
    Ok(())
}

/// The bits the items take: a multiplication when every item takes the same bits.
#[inline]
pub(crate) fn items_bits<T: Encode>(items: &[T]) -> u64 {
    if T::MAX_BITS == Some(T::MIN_BITS) {
        T::MIN_BITS * items.len() as u64
    } else {
        items.iter().map(T::encoded_bits).sum()
    }
}

impl<T: Encode> Encode for [T] {
    const MIN_BITS: u64 = size::LIST_MIN;
    const MAX_BITS: Option<u64> = match T::MAX_BITS {
        Some(0) => Some(varint::max_bits(4)),
        _ => None,
    };
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        write_count(self.len(), T::MIN_BITS, w)?;
        encode_items(self, w)
    }
    #[inline]
    fn encoded_bits(&self) -> u64 {
        varint::encoded_bits(self.len() as u64, 4) + items_bits(self)
    }
    fn schema() -> Encoding {
        Encoding::List {
            item: Box::new(T::schema()),
            max_len: None,
        }
    }
}

deref_encode! {
    impl[T: Encode] for Vec<T> => [T];
    impl[] for String => str;
}

/// An item whose encoding is longer than its type's `MAX_BITS` claims (a hand-written impl
/// that breaks the contract), read again through the checked reader. Out of line: it never
/// happens with derived or built-in impls, and inline it slowed every item's loop.
#[cold]
#[inline(never)]
fn decode_overrun<T: Decode>(r: &mut BitReader<'_>) -> Result<T> {
    T::decode(r)
}

/// Decodes the first of `count` items through windows, while the input has a whole window
/// left (one bounds check per item, none per read), into `items`; returns how many.
///
/// A loop of its own, apart from the checked one for the rest: with both paths in one loop
/// LLVM kept the cursor in memory across items, on the chain from one item to the next.
#[inline(always)]
pub(crate) fn decode_windowed<T: Decode + Encode>(
    r: &mut BitReader<'_>,
    count: usize,
    items: &mut Vec<T>,
) -> Result<usize> {
    let mut done = 0;
    while done < count {
        let Some(mut w) = r.window::<T>() else {
            break;
        };
        let item = T::decode_window(&mut w);
        if w.overran() {
            items.push(decode_overrun(r)?);
        } else {
            r.resume(&w);
            items.push(item?);
        }
        done += 1;
    }
    Ok(done)
}

impl<T: Decode + Encode> Decode for Vec<T> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        let count = read_count(r, T::MIN_BITS)?;
        decode_list_items(r, count)
    }
}

/// A list's `count` items, the count already read (or found elsewhere) and checked against the
/// input, so at most [`PREALLOC_BYTES`] are reserved ahead of what was read.
#[inline(always)]
pub(crate) fn decode_list_items<T: Decode + Encode>(
    r: &mut BitReader<'_>,
    count: usize,
) -> Result<Vec<T>> {
    let mut items = Vec::with_capacity(prealloc::<T>(count));
    // The items are read with a copy of the reader that lives in this frame, so that its
    // cursor stays in a register across the loop instead of being stored through `r` at
    // every field; `r` gets the final state back, also on error.
    let mut local = r.clone();
    let result = decode_windowed(&mut local, count, &mut items).and_then(|done| {
        for _ in done..count {
            items.push(T::decode(&mut local)?);
        }
        Ok(())
    });
    *r = local;
    result.map(|()| items)
}

impl<T: Decode + Encode> Decode for Box<[T]> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        Vec::<T>::decode(r).map(Vec::into_boxed_slice)
    }
}

impl<T: Encode, const N: usize> Encode for [T; N] {
    const MIN_BITS: u64 = T::MIN_BITS.saturating_mul(N as u64);
    const MAX_BITS: Option<u64> = size::mul_max(T::MAX_BITS, N as u64);
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        encode_items(self, w)
    }
    #[inline]
    fn encoded_bits(&self) -> u64 {
        items_bits(self)
    }
    fn schema() -> Encoding {
        Encoding::Array {
            item: Box::new(T::schema()),
            len: N as u64,
        }
    }
}

/// An array of the `N` items `item(0)`, `item(1)`... read in order, or the first error.
#[inline]
pub(crate) fn try_array<T, const N: usize>(
    mut item: impl FnMut(usize) -> Result<T>,
) -> Result<[T; N]> {
    let mut items = Vec::with_capacity(N);
    for i in 0..N {
        items.push(item(i)?);
    }
    // The vector holds exactly N items, so the conversion cannot fail.
    items
        .try_into()
        .map_err(|_| Error::custom("array length mismatch"))
}

impl<T: Decode, const N: usize> Decode for [T; N] {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        try_array(|_| T::decode(r))
    }
}

impl Encode for str {
    const MIN_BITS: u64 = size::LIST_MIN;
    const MAX_BITS: Option<u64> = None;
    #[inline]
    fn encode(&self, w: &mut BitWriter<'_>) -> Result<()> {
        write_count(self.len(), 8, w)?;
        w.write_bytes(self.as_bytes());
        Ok(())
    }
    #[inline]
    fn encoded_bits(&self) -> u64 {
        varint::encoded_bits(self.len() as u64, 4) + 8 * self.len() as u64
    }
    fn schema() -> Encoding {
        Encoding::String { max_len: None }
    }
}

impl Decode for String {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        let len = read_count(r, 8)?;
        decode_utf8(r, len)
    }
}

/// A string's `len` bytes, the length already read and checked against the input.
#[inline]
pub(crate) fn decode_utf8(r: &mut BitReader<'_>, len: usize) -> Result<String> {
    let mut bytes = vec![0u8; len];
    r.read_bytes(&mut bytes)?;
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        position: r.position(),
        source: e.utf8_error(),
    })
}

impl Decode for Box<str> {
    #[inline]
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        String::decode(r).map(String::into_boxed_str)
    }
}
