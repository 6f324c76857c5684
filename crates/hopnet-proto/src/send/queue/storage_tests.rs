//! Unit tests of `queue.rs`, in a file of their own so that `queue.rs` holds its rule alone.

use super::*;

const SPEC: Wire = Wire::Spec { rel: true };
const R: Delivery = Delivery::Reliable;
/// Spares kept in flight, as the default `max_pending_reliable`.
const SPARES: usize = 1024;

#[test]
fn slots_follow_sequence_numbers_and_trim_from_the_front() {
    let mut o = Outgoing::new(SPARES);
    o.insert(10, Data::Borrowed(&[1; 600]), SPEC, R);
    // 11 and 12 were unreliable.
    let shared = Payload::from(&[2u8; 10][..]);
    o.insert(13, Data::Shared(&shared), SPEC, R);
    assert_eq!((o.len(), o.bytes()), (2, 610));
    assert_eq!(o.oldest(), Some(10));
    assert_eq!(o.get(13).map(|m| m.bytes()), Some(&shared[..]));
    assert!(o.get(11).is_none() && o.get(9).is_none() && o.get(14).is_none());
    assert_eq!(
        o.get(10).map(|m| (m.chunks.len(), m.full_chunks())),
        Some((2, 1))
    );
    let live: Vec<u64> = o.iter_from(0).map(|(abs, _)| abs).collect();
    assert_eq!(live, [10, 13]);
    o.remove(13);
    assert_eq!(o.oldest(), Some(10), "a hole behind the front stays");
    assert_eq!(o.bytes(), 600);
    o.remove(10);
    assert_eq!((o.len(), o.oldest(), o.bytes()), (0, None, 0));
    // A later message starts the ring afresh, in a recycled buffer.
    o.insert(40_000, Data::Borrowed(&[3; 5]), SPEC, R);
    assert_eq!(o.oldest(), Some(40_000));
    assert_eq!(o.get(40_000).map(|m| m.bytes()), Some(&[3u8; 5][..]));
    assert!(o.iter_from(40_001).next().is_none());
}

#[test]
fn spares_are_bounded_and_trimmed_when_idle() {
    let mut o = Outgoing::new(SPARES);
    o.insert(0, Data::Borrowed(&vec![0; MAX_SPARE_CAPACITY + 1]), SPEC, R);
    o.remove(0);
    assert_eq!(o.spare_data.len(), 0);
    // Two chunks each, so that their chunk states are vectors too.
    let last = SPARES as u64 + 10;
    for abs in 1..=last {
        o.insert(abs, Data::Borrowed(&[0; 600]), SPEC, R);
    }
    for abs in 1..last {
        o.remove(abs);
    }
    assert_eq!(o.spare_data.len(), SPARES);
    assert_eq!(o.spare_chunks.len(), SPARES);
    // Once nothing is in flight, a few are kept.
    o.remove(last);
    assert_eq!(o.spare_data.len(), SPARE_IDLE);
    assert_eq!(o.spare_chunks.len(), SPARE_IDLE);
}

#[test]
fn the_kept_length_of_the_last_chunk_is_what_framing_it_takes() {
    use super::ExtSender;
    use crate::ext::Extensions;
    let mut ext = ExtSender::new(Extensions::ALL, 128);
    let mut o = Outgoing::new(SPARES);
    let deliveries = [
        Delivery::Reliable,
        Delivery::ReliableOrdered,
        Delivery::Tracked,
    ];
    let lens = [0, 1, 127, 128, 492, 493, 494, 1024, 5000];
    let mut abs = 0;
    for len in lens {
        for (i, delivery) in deliveries.into_iter().enumerate() {
            let wire = if i == 0 {
                SPEC
            } else {
                Wire::Ext(ext.frame(delivery, false))
            };
            o.insert(abs, Data::Borrowed(&vec![7; len]), wire, delivery);
            let m = o.get(abs).unwrap();
            let last = m.chunks.len() - 1;
            let framed = m
                .wire
                .encoded_len(m.seq, last as u8, true, m.chunk(last).len());
            assert_eq!(m.encoded_len(last), framed, "{len} bytes, {delivery:?}");
            let mut buf = Vec::new();
            m.wire
                .write(&mut buf, m.seq, last as u8, true, m.chunk(last));
            assert_eq!(buf.len(), framed, "{len} bytes, {delivery:?}");
            abs += 1;
        }
    }
}

#[test]
fn a_one_chunk_message_keeps_its_state_inline() {
    let mut o = Outgoing::new(SPARES);
    o.insert(0, Data::Borrowed(&[1; 600]), SPEC, R);
    o.insert(1, Data::Borrowed(&[2; 100]), SPEC, R);
    assert!(matches!(o.get(0).map(|m| &m.chunks), Some(ChunkStates::Many(v)) if v.len() == 2));
    assert!(matches!(
        o.get(1).map(|m| &m.chunks),
        Some(ChunkStates::One(_))
    ));
    o.get_mut(1).unwrap().chunks[0].acked = true;
    assert!(o.get(1).unwrap().chunks.iter().all(|c| c.acked));
    o.remove(1);
    assert!(
        o.spare_chunks.is_empty(),
        "nothing to recycle of an inline state"
    );
}
