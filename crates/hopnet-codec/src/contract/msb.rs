//! `bit_order = "msb"`: containers whose fields fill each byte from its most significant bit.
//!
//! Each run of fixed-width items (fields whose every value takes the same bits, up to 64, and
//! the enum tag) is cut into whole bytes; groups of such bytes, up to 64 bits, are composed as
//! one number, the first item in its most significant bits, and written as that number's
//! bytes, most significant first. The plan is made at compile time from the items' sizes, as
//! for merged writes ([`super::word_plan`]); a run that does not fill whole bytes is a compile
//! error.

use crate::codec::FieldDecode;
use crate::error::Result;
use crate::read::{BitRead, BitReader};
use crate::schema::{Encoding, Tag};

/// How one item of an msb container is written and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsbSlot {
    /// As in [`super::word_plan`]: `0` on its own (not fixed-width), `1` the first item of a
    /// group, `2` a later one; `+ 4` for the last one.
    pub plan: u8,
    /// The bits of the item's group.
    pub group: u32,
    /// The bits of its group below it.
    pub shift: u32,
    /// The item's own bits.
    pub bits: u32,
}

/// The sizes of one item: `MIN_BITS`, `MAX_BITS`, `WORD_BITS`.
pub type Sizes = (u64, Option<u64>, Option<u32>);

const fn fixed(s: Sizes) -> Option<u32> {
    match s {
        (min, Some(max), Some(word)) if min == max && max <= 64 && word as u64 == max => Some(word),
        _ => None,
    }
}

/// The plan of an msb container's items.
///
/// # Panics
///
/// At compile time (the plan is a constant): when a run of fixed-width items does not fill
/// whole bytes, or a stretch of it between byte boundaries is wider than 64 bits.
pub const fn msb_plan<const N: usize>(items: [Sizes; N]) -> [MsbSlot; N] {
    let mut plan = [MsbSlot {
        plan: 0,
        group: 0,
        shift: 0,
        bits: 0,
    }; N];
    let mut i = 0;
    while i < N {
        if fixed(items[i]).is_none() {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < N && fixed(items[end]).is_some() {
            end += 1;
        }
        // The run i..end: groups of whole-byte chunks, each group at most 64 bits.
        let mut k = i;
        while k < end {
            let start = k;
            let mut total = 0u32;
            loop {
                let (next, bits) = chunk(&items, k, end);
                if total > 0 && total + bits > 64 {
                    break;
                }
                total += bits;
                k = next;
                if k == end {
                    break;
                }
            }
            let mut shift = total;
            let mut j = start;
            while j < k {
                let bits = match fixed(items[j]) {
                    Some(b) => b,
                    None => 0,
                };
                shift -= bits;
                plan[j] = MsbSlot {
                    plan: if j == start { 1 } else { 2 },
                    group: total,
                    shift,
                    bits,
                };
                j += 1;
            }
            plan[k - 1].plan += 4;
        }
        i = end;
    }
    plan
}

/// The smallest whole-byte chunk of the run starting at `k` (ending before `end`): where it
/// ends and its bits.
const fn chunk(items: &[Sizes], k: usize, end: usize) -> (usize, u32) {
    let mut bits = 0u32;
    let mut j = k;
    while j < end {
        bits += match fixed(items[j]) {
            Some(b) => b,
            None => 0,
        };
        j += 1;
        if bits.is_multiple_of(8) {
            assert!(
                bits <= 64,
                "bit_order = \"msb\": fixed-width fields between two byte boundaries take more than 64 bits"
            );
            return (j, bits);
        }
    }
    panic!(
        "bit_order = \"msb\": a run of fixed-width fields does not fill whole bytes; fields of another kind (lists, variable-length integers) must start on a byte boundary"
    )
}

/// A group's number as it goes into the stream: its bytes, most significant first.
#[inline(always)]
pub const fn msb_stream(number: u64, bits: u32) -> u64 {
    if bits == 0 {
        0
    } else {
        number.swap_bytes() >> (64 - bits)
    }
}

/// Appends an item's `n`-bit word below a group's number.
#[inline(always)]
pub const fn msb_push(group: u64, word: u64, n: u32) -> u64 {
    if n >= 64 { word } else { (group << n) | word }
}

/// The `bits` bits of an item, `shift` bits from the bottom of its group's number.
#[inline(always)]
pub const fn msb_take(group: u64, shift: u32, bits: u32) -> u64 {
    let v = if shift >= 64 { 0 } else { group >> shift };
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Reads a group: its bytes, as the number they form.
#[inline(always)]
pub fn msb_read<R: BitRead>(r: &mut R, bits: u32) -> Result<u64> {
    Ok(msb_stream(r.read_bits(bits)?, bits))
}

/// Decodes an item of codec `C` from the word taken out of its group.
#[inline(always)]
pub fn msb_decode<T, C: FieldDecode<T>>(word: u64) -> Result<T> {
    let bytes = word.to_le_bytes();
    C::decode(&mut BitReader::new(&bytes))
}

/// The tag of an msb enum: the top `bits` bits of the next whole bytes, read ahead.
#[inline(always)]
pub fn msb_peek_tag<R: BitRead>(r: &mut R, bits: u32) -> Result<u64> {
    if bits == 0 {
        return Ok(0);
    }
    let bytes = bits.div_ceil(8);
    let number = msb_stream(r.peek_bits(8 * bytes)?, 8 * bytes);
    Ok(msb_take(number, 8 * bytes - bits, bits))
}

/// A field's schema in an msb container: marked most significant bit first when it is in a
/// group (fixed-width), as it was otherwise.
pub fn msb_schema(encoding: Encoding, sizes: Sizes) -> Encoding {
    match fixed(sizes) {
        Some(_) => Encoding::MsbFirst(Box::new(encoding)),
        None => encoding,
    }
}

/// An msb enum's tag in the schema.
pub const fn msb_tag(tag: Tag) -> Tag {
    match tag {
        Tag::Bits(n) => Tag::MsbBits(n),
        other => other,
    }
}
