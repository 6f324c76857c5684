//! A capture on the sending host's loopback sees a GSO batch (several datagrams of one size
//! handed to the kernel in one send, the last one possibly shorter: hopnet's drivers send so)
//! as one datagram, because the kernel splits it only on the receiving side. The segment size is
//! not in the capture, so the datagram is read whole when it is one datagram of hopnet's shape
//! whose message (if it holds a whole one) decodes, and else split at the smallest size at which
//! every segment is a datagram of hopnet's shape and every whole message in them decodes.

/// The spec's largest datagram: a header and a full chunk.
const SPEC_DATAGRAM: usize = 508;
/// How far apart (in sequence ids) the datagrams of one batch may be: the driver takes the
/// chunks of the next 64 sequences into one batch (PROTOCOL.md, "Chunk order").
const BATCH_SPAN: u16 = 64;

/// What the splitting asks of the wire and of the messages.
pub(crate) struct Shapes<'a> {
    /// Whether a datagram is an extended one whose frames all parse.
    pub extended_parses: &'a dyn Fn(&[u8]) -> bool,
    /// Whether a whole message decodes (always true when nobody can tell).
    pub decodes: &'a dyn Fn(&[u8]) -> bool,
}

/// Whether `seg` is one spec packet: reserved bits clear, an `ACK` or `END` header alone, a
/// chunk before the last exactly a full one, and a whole message (chunk 0 and last) that
/// decodes.
fn spec_packet(seg: &[u8], shapes: &Shapes<'_>) -> bool {
    if seg.len() < 4 || seg.len() > SPEC_DATAGRAM || seg[0] & 0xf0 != 0 {
        return false;
    }
    let (flags, chunk) = (seg[0], seg[1]);
    if flags & 0x0a != 0 {
        return seg.len() == 4;
    }
    if flags & 0x04 == 0 {
        return seg.len() == SPEC_DATAGRAM;
    }
    chunk != 0 || (shapes.decodes)(&seg[4..])
}

/// The datagrams in one captured datagram: itself, or the segments of a GSO batch.
pub(crate) fn segments<'a>(d: &'a [u8], shapes: &Shapes<'_>) -> Vec<&'a [u8]> {
    if d.len() < 8 {
        return vec![d];
    }
    if d[0] == 0xe2 {
        if (shapes.extended_parses)(d) {
            return vec![d];
        }
        let split = split_at_first(d, 5, |seg| seg[0] == 0xe2 && (shapes.extended_parses)(seg));
        return split.unwrap_or_else(|| vec![d]);
    }
    if spec_packet(d, shapes) {
        return vec![d];
    }
    let first = u16::from_be_bytes([d[2], d[3]]);
    let near = |seg: &[u8]| {
        let sequence = u16::from_be_bytes([seg[2], seg[3]]);
        sequence.wrapping_sub(first) < BATCH_SPAN || first.wrapping_sub(sequence) < BATCH_SPAN
    };
    split_at_first(d, 4, |seg| spec_packet(seg, shapes) && near(seg)).unwrap_or_else(|| vec![d])
}

/// Splits `d` into segments of the smallest size from `min` (the last may be shorter) at which
/// `valid` holds for every segment; `None` if no size gives two or more.
fn split_at_first(d: &[u8], min: usize, valid: impl Fn(&[u8]) -> bool) -> Option<Vec<&[u8]>> {
    (min..d.len()).find_map(|size| {
        let segs: Vec<&[u8]> = d.chunks(size).collect();
        (segs.len() >= 2 && segs.iter().all(|s| valid(s))).then_some(segs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(d: &[u8], decodes: bool) -> Vec<Vec<u8>> {
        let shapes = Shapes {
            extended_parses: &|_| false,
            decodes: &move |_| decodes,
        };
        segments(d, &shapes)
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect()
    }

    #[test]
    fn acknowledgements_sent_together_come_apart() {
        let two = [0x02, 0, 0, 7, 0x02, 0, 0, 8];
        assert_eq!(
            split(&two, true),
            [vec![0x02, 0, 0, 7], vec![0x02, 0, 0, 8]]
        );
    }

    #[test]
    fn a_datagram_whose_message_decodes_stays_whole() {
        // Read whole: sequence 11 and a 10-byte message; as a batch: two 7-byte datagrams.
        let d = [5, 0, 0, 11, 4, 0x90, 10, 5, 0, 0, 12, 4, 8, 0];
        assert_eq!(split(&d, true), [d.to_vec()]);
        assert_eq!(
            split(&d, false).len(),
            1,
            "nothing decodes, so no split is better"
        );
    }

    #[test]
    fn sequences_far_apart_are_not_one_batch() {
        let d = [0x02, 0, 0, 7, 0x02, 0, 0x80, 8];
        assert_eq!(split(&d, true), [d.to_vec()]);
    }
}
