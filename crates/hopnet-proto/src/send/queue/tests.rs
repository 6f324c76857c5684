//! Unit tests of `queue.rs`, in a file of their own so that `queue.rs` holds its rule alone.

use super::*;

const SPEC: Wire = Wire::Spec { rel: true };
const R: Delivery = Delivery::Reliable;

/// A queue of a 2-chunk message 0, a held 1-chunk message 1, nothing at 2 (unreliable),
/// and a 1-chunk message 3.
fn queue() -> SendQueue {
    let mut q = SendQueue::new(8);
    q.push(0, Data::Borrowed(&[0; 600]), SPEC, R, false);
    q.push(1, Data::Borrowed(&[1; 10]), SPEC, R, true);
    q.push(3, Data::Borrowed(&[3; 10]), SPEC, R, false);
    q
}

#[test]
fn held_chunks_wait_until_released_and_the_cursor_comes_back_for_them() {
    let now = Instant::now();
    let mut q = queue();
    assert!(q.has_unsent());
    let mut sent = Vec::new();
    while let Some(abs) = q.first_unsent() {
        let chunk = q.take_new(abs).unwrap();
        q.sent(abs, chunk, sent.len() as u64 + 1, now).unwrap();
        sent.push((abs, chunk));
    }
    assert_eq!(
        sent,
        [(0, 0), (0, 1), (3, 0)],
        "the held message is passed over"
    );
    assert!(!q.has_waiting());
    q.release(1);
    assert_eq!(q.first_unsent(), Some(1));
    assert_eq!(q.take_new(1), Some(0));
    assert_eq!(q.take_new(1), None, "one chunk only");
    assert!(!q.has_unsent());
}

#[test]
fn a_chunk_lost_waits_once_and_leaves_the_queue_once_acknowledged() {
    let now = Instant::now();
    let mut q = queue();
    for (tx, (abs, chunk)) in [(0, 0), (0, 1), (3, 0)].into_iter().enumerate() {
        assert_eq!(q.take_new(abs), Some(chunk));
        q.sent(abs, chunk, tx as u64 + 1, now);
    }
    q.lost(3, 0);
    q.lost(0, 1);
    q.lost(0, 1);
    assert!(q.has_retransmission());
    // The oldest message's chunk first, whatever order they were lost in.
    assert_eq!(q.retransmit_front(), Some((0, 1)));
    assert_eq!(q.take_retransmission(), Some((0, 1)));
    // Acknowledged while waiting: dropped from the front, never sent again.
    let acked = q.ack(3, 0).unwrap();
    assert_eq!((acked.tx_id, acked.tx_count, acked.complete), (3, 1, true));
    assert_eq!(q.retransmit_front(), None);
    assert!(!q.has_retransmission() && !q.has_waiting());
    assert!(q.ack(3, 0).is_none(), "forgotten once complete");
}

#[test]
fn a_range_acknowledges_each_sent_chunk_once_and_counts_the_messages_it_completes() {
    let now = Instant::now();
    let mut q = queue();
    q.release(1);
    for (tx, (abs, chunk)) in [(0, 0), (1, 0), (3, 0)].into_iter().enumerate() {
        assert_eq!(q.take_new(abs), Some(chunk));
        q.sent(abs, chunk, tx as u64 + 1, now);
    }
    let mut acked = Vec::new();
    // Chunks 0..=1 of messages 0..=9: chunk 1 of message 0 was never sent.
    let complete = q.ack_range(0, 9, 0, 1, |c| acked.push((c.tx_id, c.complete)));
    assert_eq!(acked, [(1, false), (2, true), (3, true)]);
    assert_eq!((complete, q.messages().len()), (2, 1));
    acked.clear();
    assert_eq!(
        q.ack_range(0, 9, 0, 1, |c| acked.push((c.tx_id, c.complete))),
        0
    );
    assert!(acked.is_empty(), "each chunk once");
}

#[test]
fn indexes_count_reliable_messages_and_chain_ordered_ones() {
    let mut s = ExtSender::new(Extensions::ALL, 128);
    let u = s.frame(Delivery::Unreliable, false);
    assert_eq!((u.index, u.after), (None, None));
    let r = s.frame(Delivery::Reliable, false);
    let o1 = s.frame(Delivery::ReliableOrdered, false);
    let t = s.frame(Delivery::Tracked, false);
    let so = s.frame(Delivery::SemiOrdered, false);
    let o2 = s.frame(Delivery::ReliableOrdered, true);
    assert_eq!(r.index, Some(0));
    assert_eq!((o1.index, o1.after), (Some(1), None));
    assert_eq!(t.index, None);
    assert_eq!((so.index, so.after), (Some(2), None));
    assert_eq!(
        (o2.index, o2.after, o2.compressed),
        (Some(3), Some(2), true)
    );
    assert_eq!(o2.chunk_size, 493);
    assert!(s.fits(256 * 493) && !s.fits(256 * 493 + 1));
}

#[test]
fn spec_and_extended_chunks_take_what_they_say() {
    let spec = Wire::Spec { rel: true };
    let mut buf = Vec::new();
    spec.write(&mut buf, 9, 0, true, &[1, 2]);
    assert_eq!(buf, [0x05, 0, 0, 9, 1, 2]);
    assert_eq!(spec.encoded_len(9, 0, true, 2), buf.len());
    let ext = Wire::Ext(ExtSender::new(Extensions::ALL, 128).frame(Delivery::Reliable, false));
    buf.clear();
    ext.write(&mut buf, 9, 0, true, &[1, 2]);
    assert_eq!(ext.encoded_len(9, 0, true, 2), buf.len());
    assert_eq!(buf, [0x64, 0, 9, 2, 0, 0, 1, 2]);
}
