//! Lists of things with an identity, keyed by a field: what `#[rabbit(key = "id")]` on a
//! `Vec<T>` field writes. A snapshot's entity list is one: entities come and go, and most of
//! those that stay did not change.
//!
//! After the changed bit, a keyed list's changes are, in order (each count and gap a `u32`, the
//! spec's variable-length integer):
//!
//! 1. one bit: whether any item is gone or new; if it is `0`, steps 2 and 3 are left out (no
//!    item came or went: the two lists pair up position by position);
//! 2. the number of the baseline's items that are gone, then their positions in the baseline,
//!    ascending, each as the gap from the position after the previous one;
//! 3. the number of items that are new, then their positions in the new list, coded the same;
//! 4. every item of the new list, in order: a new one whole, one that was kept as its delta
//!    against its baseline item (one bit if it did not change).
//!
//! The kept items are the baseline's that are not gone, in the baseline's order, and the new
//! list's that are not new, in the new list's order: the decoder pairs them up by position and
//! needs no key. The encoder pairs items with equal keys; when both lists are in increasing key
//! order (as a world's entities usually are) it does so in one walk, otherwise through a sorted
//! index of the baseline. An item whose key is new, or that moved before an item it followed in
//! the baseline, is sent whole, so every list encodes exactly, duplicate keys included; lists
//! in one order on both ends encode best.
//!
//! ```
//! use hopnet_codec::delta::keyed;
//!
//! let base = vec![(1u32, 10u8), (2, 20), (3, 30)];
//! let now = vec![(1u32, 10u8), (3, 31), (4, 40)];
//! let key = |item: &(u32, u8)| item.0;
//!
//! let mut bytes = Vec::new();
//! let mut w = hopnet_codec::BitWriter::new(&mut bytes);
//! keyed::encode_delta(&now, &base, |item| &item.0, &mut w)?;
//! w.finish();
//! let decoded = keyed::decode_delta(&base, &mut hopnet_codec::BitReader::new(&bytes))?;
//! assert_eq!(decoded, now);
//! assert_eq!(decoded.iter().map(key).collect::<Vec<_>>(), [1, 3, 4]);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```

use super::containers::preallocated;
use super::{DeltaDecode, DeltaEncode};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::read::BitReader;
use crate::varint;
use crate::write::BitWriter;

/// Whether `list` would be written as unchanged against `base`: the same length, each item
/// unchanged against the one at its position.
#[inline]
pub fn unchanged<T: DeltaEncode>(list: &[T], base: &[T]) -> bool {
    list.len() == base.len() && list.iter().zip(base).all(|(a, b)| a.unchanged(b))
}

/// Writes the changed bit, then the changes if there are any.
#[inline]
pub fn encode_delta<T, K, F>(list: &[T], base: &[T], key: F, w: &mut BitWriter<'_>) -> Result<()>
where
    T: DeltaEncode,
    K: Ord + ?Sized,
    F: Fn(&T) -> &K,
{
    if unchanged(list, base) {
        w.write_bool(false);
        Ok(())
    } else {
        w.write_bool(true);
        encode_changes(list, base, key, w)
    }
}

/// Writes what was removed, what was added and what changed (the module's steps 1 to 4).
pub fn encode_changes<T, K, F>(list: &[T], base: &[T], key: F, w: &mut BitWriter<'_>) -> Result<()>
where
    T: DeltaEncode,
    K: Ord + ?Sized,
    F: Fn(&T) -> &K,
{
    for len in [list.len(), base.len()] {
        if len > u32::MAX as usize {
            return Err(Error::TooLong {
                len: len as u64,
                max: u32::MAX.into(),
            });
        }
    }
    let Edits { gone, fresh } = match edits_in_order(list, base, &key) {
        Some(edits) => edits,
        None => edits_in_any_order(list, base, &key),
    };
    // 1. to 3.: whether anything came or went; the positions of the baseline's items that are
    // gone, of the new items.
    let edits = !gone.is_empty() || !fresh.is_empty();
    w.write_bool(edits);
    for positions in [&gone, &fresh].into_iter().filter(|_| edits) {
        w.write_varint(positions.len() as u64, 4);
        let mut next = 0;
        for &at in positions {
            w.write_varint(u64::from(at - next), 4);
            next = at + 1;
        }
    }
    // 4. Every item, in order: the kept ones against the baseline's kept ones, in order, in
    // runs between two edits (a new item, a gone one) where both lists go in step.
    let (mut j, mut b) = (0, 0);
    let (mut gone, mut fresh) = (gone.iter().peekable(), fresh.iter().peekable());
    while j < list.len() {
        let next_fresh = fresh.peek().map_or(list.len(), |&&at| at as usize);
        while j < next_fresh {
            let next_gone = gone.peek().map_or(base.len(), |&&at| at as usize);
            if b == next_gone {
                gone.next();
                b += 1;
                continue;
            }
            let run = (next_fresh - j).min(next_gone - b);
            let (items, kept) = (&list[j..j + run], &base[b..b + run]);
            for (item, kept) in items.iter().zip(kept) {
                item.encode_delta(kept, w)?;
            }
            j += run;
            b += run;
        }
        if fresh.next().is_some() {
            list[j].encode(w)?;
            j += 1;
        }
    }
    Ok(())
}

/// What changed between two lists, apart from the kept items' own changes: the baseline's
/// positions that are gone and the new list's positions that are new, both ascending. The
/// other items pair up in order.
struct Edits {
    gone: Vec<u32>,
    fresh: Vec<u32>,
}

/// The edits of two lists in strictly increasing key order, found in one merge walk that
/// pairs equal keys; `None` as soon as either list is seen out of order.
fn edits_in_order<'a, T, K, F>(list: &'a [T], base: &'a [T], key: &F) -> Option<Edits>
where
    K: Ord + ?Sized + 'a,
    F: Fn(&'a T) -> &'a K,
{
    let (mut gone, mut fresh) = (Vec::new(), Vec::new());
    let mut i = 0;
    let mut last: Option<&K> = None;
    let mut last_base: Option<&K> = None;
    // Every baseline item is taken once, paired or gone: the walk checks their order too.
    let mut take = |b: &'a T| {
        let k = key(b);
        let in_order = last_base.is_none_or(|l| l < k);
        last_base = Some(k);
        in_order
    };
    for (j, item) in list.iter().enumerate() {
        let k = key(item);
        if last.is_some_and(|l| l >= k) {
            return None;
        }
        last = Some(k);
        while let Some(b) = base.get(i).filter(|b| key(b) < k) {
            if !take(b) {
                return None;
            }
            gone.push(i as u32);
            i += 1;
        }
        match base.get(i) {
            Some(b) if key(b) == k => {
                if !take(b) {
                    return None;
                }
                i += 1;
            }
            _ => fresh.push(j as u32),
        }
    }
    for (i, b) in base.iter().enumerate().skip(i) {
        if !take(b) {
            return None;
        }
        gone.push(i as u32);
    }
    Some(Edits { gone, fresh })
}

/// The edits of lists in any order: each item takes the first baseline item with its key
/// that comes after the previous pair's, found in an index of the baseline sorted by key.
fn edits_in_any_order<T, K, F>(list: &[T], base: &[T], key: &F) -> Edits
where
    K: Ord + ?Sized,
    F: Fn(&T) -> &K,
{
    let mut index: Vec<u32> = (0..base.len() as u32).collect();
    // By key, then by position: equal keys keep their order.
    index.sort_by(|&a, &b| key(&base[a as usize]).cmp(key(&base[b as usize])));
    let mut paired = vec![false; base.len()];
    let mut fresh = Vec::new();
    let mut after: Option<u32> = None;
    for (j, item) in list.iter().enumerate() {
        let k = key(item);
        let first = index.partition_point(|&b| key(&base[b as usize]) < k);
        let found = index[first..]
            .iter()
            .take_while(|&&b| key(&base[b as usize]) == k)
            .find(|&&b| after.is_none_or(|a| b > a));
        match found {
            Some(&b) => {
                paired[b as usize] = true;
                after = Some(b);
            }
            None => fresh.push(j as u32),
        }
    }
    let gone = (0..base.len() as u32)
        .filter(|&b| !paired[b as usize])
        .collect();
    Edits { gone, fresh }
}

/// Reads the changed bit, then the changes if there are any.
#[inline]
pub fn decode_delta<T: DeltaDecode + Encode>(base: &[T], r: &mut BitReader<'_>) -> Result<Vec<T>> {
    if r.read_bool()? {
        decode_changes(base, r)
    } else {
        Ok(base.to_vec())
    }
}

/// Reads what [`encode_changes`] wrote against `base`.
///
/// A removal of an item the baseline does not have, or a new item placed past the new list's
/// end, is [`Error::BadDelta`]; a count of new items that the rest of the input cannot hold is
/// [`Error::CountTooLarge`], before anything is allocated for them.
pub fn decode_changes<T: DeltaDecode + Encode>(
    base: &[T],
    r: &mut BitReader<'_>,
) -> Result<Vec<T>> {
    let edits = r.read_bool()?;
    let gone_count = if edits { r.read_varint(4)? } else { 0 };
    if gone_count > base.len() as u64 {
        return Err(bad(r, "it removes more items than the baseline has"));
    }
    let mut gone = Vec::with_capacity(gone_count as usize);
    let mut next = 0u64;
    for _ in 0..gone_count {
        let at = next + r.read_varint(4)?;
        if at >= base.len() as u64 {
            return Err(bad(r, "it removes an item the baseline does not have"));
        }
        gone.push(at as usize);
        next = at + 1;
    }

    let new_count = if edits { r.read_varint(4)? } else { 0 };
    // Each new item takes its position's gap and the item itself.
    r.check_count(new_count, varint::min_bits(4).saturating_add(T::MIN_BITS))?;
    let len = base.len() as u64 - gone_count + new_count;
    let mut fresh = Vec::with_capacity(preallocated::<u64>(new_count));
    let mut next = 0u64;
    for _ in 0..new_count {
        let at = next + r.read_varint(4)?;
        if at >= len {
            return Err(bad(r, "it places a new item past the end of the list"));
        }
        fresh.push(at);
        next = at + 1;
    }

    let mut items = Vec::with_capacity((len - new_count) as usize + preallocated::<T>(new_count));
    let mut gone = gone.into_iter().peekable();
    let mut kept = (0..base.len()).filter(|&i| gone.next_if_eq(&i).is_none());
    let mut fresh = fresh.into_iter().peekable();
    for at in 0..len {
        if fresh.next_if_eq(&at).is_some() {
            items.push(T::decode(r)?);
        } else {
            // As many positions are not new as the baseline keeps items.
            let Some(b) = kept.next() else {
                return Err(bad(r, "the list holds more kept items than the baseline"));
            };
            items.push(T::decode_delta(&base[b], r)?);
        }
    }
    Ok(items)
}

#[cold]
fn bad(r: &BitReader<'_>, what: &'static str) -> Error {
    Error::BadDelta {
        what,
        position: r.position(),
    }
}
