//! A snapshot's payload: tag, sequence number, how far back its baseline is, then the
//! snapshot whole or as a delta.

use hopnet_codec::{BitReader, Decode, DeltaDecode, DeltaEncode, Encode};

use crate::shared::protocol::frame;

/// Writes the snapshot of sequence `sequence`, against `base` (its sequence number and value)
/// or whole, into `out`, cleared first.
pub(crate) fn encode<S: DeltaEncode>(
    tag: u32,
    sequence: u32,
    snapshot: &S,
    base: Option<(u32, &S)>,
    out: &mut Vec<u8>,
) -> hopnet_codec::Result<()> {
    frame::write(out, |w| {
        tag.encode(w)?;
        sequence.encode(w)?;
        match base {
            Some((base_sequence, base)) => {
                sequence.wrapping_sub(base_sequence).encode(w)?;
                snapshot.encode_delta(base, w)
            }
            None => {
                0u32.encode(w)?;
                snapshot.encode(w)
            }
        }
    })
}

/// A snapshot payload's header: its sequence number, its baseline's (`None`: whole), and a
/// reader at the snapshot.
pub(crate) fn open(bytes: &[u8]) -> hopnet_codec::Result<(u32, Option<u32>, BitReader<'_>)> {
    let (_, mut r) = frame::open(bytes, true)?;
    let sequence = u32::decode(&mut r)?;
    let since = u32::decode(&mut r)?;
    let base = (since != 0).then(|| sequence.wrapping_sub(since));
    Ok((sequence, base, r))
}

/// Reads the rest of a snapshot payload: the snapshot whole, or against `base`.
pub(crate) fn decode<S: DeltaDecode>(
    mut r: BitReader<'_>,
    base: Option<&S>,
) -> hopnet_codec::Result<S> {
    let snapshot = match base {
        Some(base) => S::decode_delta(base, &mut r)?,
        None => S::decode(&mut r)?,
    };
    r.finish()?;
    Ok(snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delta_names_its_baseline_by_distance_across_the_wrap() {
        let mut out = Vec::new();
        let (base, now) = ([1u32, 2, 3], [1u32, 2, 4]);
        encode(5, 2, &now, Some((u32::MAX - 1, &base)), &mut out).unwrap();
        let (sequence, named, r) = open(&out).unwrap();
        assert_eq!((sequence, named), (2, Some(u32::MAX - 1)));
        assert_eq!(decode(r, Some(&base)).unwrap(), now);

        encode(5, 9, &now, None, &mut out).unwrap();
        let (sequence, named, r) = open(&out).unwrap();
        assert_eq!((sequence, named), (9, None));
        assert_eq!(decode::<[u32; 3]>(r, None).unwrap(), now);
    }
}
