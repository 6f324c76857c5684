//! Unit tests of `sender.rs`, in a file of their own so that `sender.rs` holds its rule alone.

use std::time::Duration;

use super::*;
use crate::event::Delivery;
use crate::payload::Data;
use crate::send::queue::Wire;

#[test]
fn a_fruitless_packing_scan_is_remembered_and_hides_no_message_queued_after_it() {
    use crate::ext::Extensions;
    use crate::send::queue::ExtSender;
    let ext = Extensions {
        max_datagram_size: 1200,
        ..Extensions::ALL
    };
    let mut framing = ExtSender::new(ext, 128);
    let mut queue = |s: &mut Sender, len: usize| {
        let wire = Wire::Ext(framing.frame(Delivery::Reliable, false));
        let data = vec![1; len];
        s.allocate(Some((Data::Borrowed(&data), wire, Delivery::Reliable)));
    };
    let mut s = Sender::new(64, usize::MAX);
    let (mut stats, mut buf) = (Stats::default(), Vec::new());
    // 0: 1,000 bytes; 1: 100 bytes (a 106-byte frame); 2: 50 bytes (56).
    for len in [1000, 100, 50] {
        queue(&mut s, len);
    }
    let ext_fit = |room| Fit::Ext { room };
    let first = s.choose(64, ext_fit(1200)).unwrap();
    assert_eq!(first, Choice::New(0));
    s.send_choice(Instant::now(), first, &mut stats, &mut buf);
    // 50 bytes left: message 1 does not fit, and the scan past it finds nothing.
    assert_eq!(s.choose(64, ext_fit(50)), None);
    assert_eq!(s.queue.pack_miss(), Some((3, 50)));
    // With less room, the scan starts where the last one ended.
    assert_eq!(s.choose(64, ext_fit(40)), None);
    assert_eq!(s.queue.pack_miss(), Some((3, 40)));
    // With more room than it had, the memory does not apply: message 2 fits 60 bytes.
    assert_eq!(s.choose(64, ext_fit(60)), Some(Choice::New(2)));
    // A message queued after the scan is looked at, though the scan's memory applies:
    // a 10-byte one (16 on the wire) fits 40 bytes.
    queue(&mut s, 10);
    assert_eq!(s.choose(64, ext_fit(40)), Some(Choice::New(3)));
}

#[test]
fn ack_of_unsent_chunk_is_ignored() {
    let mut s = Sender::new(8, usize::MAX);
    let mut stats = Stats::default();
    let wire = Wire::Spec { rel: true };
    let seq = s.allocate(Some((Data::Borrowed(&[0; 2000]), wire, Delivery::Reliable)));
    let abs = s.abs_of(seq).unwrap();
    assert!(s.on_ack(Instant::now(), abs, 0).is_none());
    assert_eq!(s.pending(), 1);
    let now = Instant::now();
    let mut buf = Vec::new();
    for _ in 0..4 {
        assert!(
            s.poll(now, 4, &mut stats, &mut buf, Fit::Spec(Size::Any))
                .is_some()
        );
    }
    assert!(
        s.poll(now, 4, &mut stats, &mut buf, Fit::Spec(Size::Any))
            .is_none()
    );
    assert_eq!(buf.len(), 4 * crate::packet::HEADER_LEN + 2000);
    let later = now + Duration::from_millis(5);
    for c in 0..4 {
        let acked = s.on_ack(later, abs, c).unwrap();
        assert_eq!((acked.tx_id, acked.sent_at), (u64::from(c) + 1, now));
        assert_eq!((acked.tx_count, acked.in_flight), (1, true));
        assert_eq!(acked.complete, c == 3);
        assert_eq!(s.in_flight(), 3 - usize::from(c));
    }
    assert_eq!(s.pending(), 0);
}

#[test]
fn the_pending_queue_is_bounded_in_bytes_but_always_takes_one_message() {
    let mut s = Sender::new(8, 3000);
    let wire = Wire::Spec { rel: true };
    // A message larger than the bound is taken when nothing is pending.
    assert!(s.check_room(true, 5000).is_ok());
    s.allocate(Some((Data::Borrowed(&[0; 5000]), wire, Delivery::Reliable)));
    assert!(matches!(s.check_room(true, 1), Err(Error::WouldBlock)));
    // Unreliable messages do not wait in it.
    assert!(s.check_room(false, 1).is_ok());
    // Below the bound, a message is taken while it fits.
    let mut s = Sender::new(8, 3000);
    s.allocate(Some((Data::Borrowed(&[0; 1000]), wire, Delivery::Reliable)));
    assert_eq!(s.queue.messages().bytes(), 1000);
    assert!(s.check_room(true, 2000).is_ok());
    assert!(matches!(s.check_room(true, 2001), Err(Error::WouldBlock)));
}

#[test]
fn the_front_is_always_in_flight_and_the_count_follows_the_slots() {
    let now = Instant::now();
    let mut f = InFlight::new();
    let ids: Vec<u64> = (0..4).map(|c| f.send(7, c, now)).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!((f.len(), f.next_tx_id()), (4, 5));
    // A hole behind the front stays; the largest acknowledged moves.
    assert!(f.acked(3, now));
    assert_eq!((f.len(), f.largest_acked()), (3, 3));
    assert_eq!(f.oldest().map(|(id, s)| (id, s.chunk)), Some((1, 0)));
    // Acknowledged twice: not in flight the second time.
    assert!(!f.acked(3, now));
    // The front leaves, and the hole behind it with it.
    assert!(f.acked(1, now));
    assert_eq!(f.oldest().map(|(id, _)| id), Some(2));
    assert_eq!(f.take_oldest(|_, _| false), None);
    assert_eq!(
        f.take_oldest(|_, s| s.chunk == 1).map(|(id, _)| id),
        Some(2)
    );
    assert_eq!(f.oldest().map(|(id, _)| id), Some(4));
    // An acknowledgement of a transmission declared lost counts only as the largest.
    let later = now + std::time::Duration::from_millis(1);
    assert!(!f.acked(2, later));
    assert_eq!(f.last_ack_at(), Some(now));
    assert!(f.acked(4, later));
    assert_eq!(
        (f.len(), f.oldest(), f.last_ack_at()),
        (0, None, Some(later))
    );
    // Ids go on after the ring emptied, and after a clear.
    assert_eq!(f.send(8, 0, later), 5);
    f.clear();
    assert_eq!((f.len(), f.send(9, 0, later)), (0, 6));
    assert_eq!(f.oldest().map(|(id, _)| id), Some(6));
}
