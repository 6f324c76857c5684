//! The reassembler's unit tests: reassembly, exactly-once across the wrap, sequencing, the
//! budget, malformed chunks, expiry.

use super::*;
use crate::receive::budget::PARTIAL_OVERHEAD;
use crate::receive::expiry::Expired;

fn h(flags: Flags, chunk: u8, seq: u16) -> Header {
    Header::new(flags, chunk, seq)
}

/// A reliable message's last chunk.
const LAST: Flags = Flags::REL.union(Flags::FIN);

/// [`on`] with nothing else held and a budget no test reaches.
fn chunk(r: &mut Reassembler, now: Instant, h: Header, data: &[u8]) -> Got {
    on(r, now, h, data, 0, 1 << 20)
}

/// What one spec chunk did: the `Received`, and the message it completed.
struct Got {
    ack: bool,
    dropped: Option<Dropped>,
    message: Option<(Vec<u8>, bool)>,
}

fn on(
    r: &mut Reassembler,
    now: Instant,
    h: Header,
    data: &[u8],
    outside: usize,
    budget: usize,
) -> Got {
    let mut out = Vec::new();
    let mut spares = Spares::received();
    let got = r.on_chunk(
        now,
        Incoming::spec(h, data),
        outside,
        budget,
        &mut spares,
        &mut out,
    );
    assert!(out.len() <= 1);
    Got {
        ack: got.ack,
        dropped: got.dropped,
        message: out.pop(),
    }
}

#[test]
fn reassembles_out_of_order_once() {
    let now = Instant::now();
    let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
    let payload: Vec<u8> = (0..1200u32).map(|i| i as u8).collect();
    let c2 = chunk(&mut r, now, h(LAST, 2, 7), &payload[1008..]);
    assert!(c2.ack && c2.message.is_none());
    let c0 = chunk(&mut r, now, h(Flags::REL, 0, 7), &payload[..504]);
    assert!(c0.message.is_none());
    let again = chunk(&mut r, now, h(Flags::REL, 0, 7), &payload[..504]);
    assert_eq!(again.dropped, Some(Dropped::Duplicate));
    let c1 = chunk(&mut r, now, h(Flags::REL, 1, 7), &payload[504..1008]);
    assert_eq!(c1.message.unwrap().0, payload);
    assert_eq!(r.partial_bytes(), 0);
    let late = chunk(&mut r, now, h(Flags::REL, 1, 7), &payload[504..1008]);
    assert!(late.ack && late.message.is_none());
}

#[test]
fn delivered_bits_clear_as_the_window_moves() {
    let now = Instant::now();
    let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
    let one = |r: &mut Reassembler, seq: u16| {
        chunk(r, now, h(Flags::FIN, 0, seq), &[1]).message.is_some()
    };
    for seq in (0..=65535u16)
        .step_by(1000)
        .chain([65535, 0, 1, 63, 64, 65, 129])
    {
        assert!(one(&mut r, seq) || seq < 1000, "seq {seq}");
    }
    // Everything at or behind the newest (129) within half the space counts as delivered.
    assert!(!one(&mut r, 129));
    assert!(!one(&mut r, 65000));
    // 32,000 ahead clears the bits it passes over: the ids are new again next time round.
    assert!(one(&mut r, 32_129));
    assert!(one(&mut r, 64_000));
    assert!(one(&mut r, 1000));
    assert!(!one(&mut r, 1000));
}

#[test]
fn sequenced_unreliable_drops_older() {
    let now = Instant::now();
    let mut r = Reassembler::new(true, Duration::from_secs(1), Duration::from_secs(30));
    let got = |r: &mut Reassembler, flags: Flags, seq: u16| {
        chunk(r, now, h(flags | Flags::FIN, 0, seq), &[1])
    };
    assert!(got(&mut r, Flags::NONE, 65534).message.is_some());
    assert!(got(&mut r, Flags::NONE, 2).message.is_some());
    assert_eq!(
        got(&mut r, Flags::NONE, 65535).dropped,
        Some(Dropped::Stale)
    );
    // Reliable messages are never dropped as stale.
    assert!(got(&mut r, Flags::REL, 1).message.is_some());
    assert!(got(&mut r, Flags::NONE, 3).message.is_some());
}

#[test]
fn in_order_chunks_reserve_ahead_while_memory_is_plentiful() {
    let now = Instant::now();
    let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
    let budget = 1 << 20;
    on(&mut r, now, h(Flags::REL, 0, 1), &[1; 504], 0, budget);
    // Room for two more chunks, and charged: a 1 KiB message needs no more.
    assert_eq!(r.partial_bytes(), 3 * CHUNK_SIZE + PARTIAL_OVERHEAD);
    on(&mut r, now, h(Flags::REL, 1, 1), &[2; 504], 0, budget);
    assert_eq!(r.partial_bytes(), 3 * CHUNK_SIZE + PARTIAL_OVERHEAD);
    let done = on(&mut r, now, h(LAST, 2, 1), &[3; 16], 0, budget);
    let (bytes, _) = done.message.expect("complete");
    assert_eq!(bytes.len(), 1024);
    assert!(bytes[..504].iter().all(|&b| b == 1) && bytes[1008..].iter().all(|&b| b == 3));
    assert_eq!(r.partial_bytes(), 0);
    // A larger payload: then the buffer doubles.
    for chunk in 0..3 {
        on(&mut r, now, h(Flags::REL, chunk, 3), &[4; 504], 0, budget);
    }
    assert_eq!(r.partial_bytes(), 6 * CHUNK_SIZE + PARTIAL_OVERHEAD);
    for chunk in 3..7 {
        on(&mut r, now, h(Flags::REL, chunk, 3), &[4; 504], 0, budget);
    }
    assert_eq!(r.partial_bytes(), 12 * CHUNK_SIZE + PARTIAL_OVERHEAD);
    let done = on(&mut r, now, h(LAST, 7, 3), &[5; 1], 0, budget);
    assert_eq!(done.message.map(|(m, _)| m.len()), Some(7 * CHUNK_SIZE + 1));
    assert_eq!(r.partial_bytes(), 0);
    // With the partials near half the budget, the reservation is exact again.
    on(&mut r, now, h(Flags::REL, 0, 2), &[1; 504], 600, 2400);
    assert_eq!(r.partial_bytes(), CHUNK_SIZE + PARTIAL_OVERHEAD);
}

#[test]
fn over_budget_reliable_chunks_are_not_acknowledged() {
    let now = Instant::now();
    let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
    let budget = 1500;
    let a = on(&mut r, now, h(Flags::REL, 0, 1), &[0; 504], 0, budget);
    assert!(a.ack);
    let b = on(&mut r, now, h(Flags::REL, 0, 2), &[0; 504], 0, budget);
    assert!(b.ack);
    // A third partial does not fit.
    let c = on(&mut r, now, h(Flags::REL, 0, 3), &[0; 504], 0, budget);
    assert_eq!(c.dropped, Some(Dropped::OverBudget));
    assert!(!c.ack);
    // The oldest reliable partial may still grow, so it can complete.
    let d = on(&mut r, now, h(Flags::REL, 1, 1), &[0; 504], 0, budget);
    assert!(d.ack && d.dropped.is_none());
    // The newer one may not.
    let e = on(&mut r, now, h(Flags::REL, 1, 2), &[0; 504], 0, budget);
    assert_eq!(e.dropped, Some(Dropped::OverBudget));
    let f = on(&mut r, now, h(LAST, 2, 1), &[0; 10], 0, budget);
    assert_eq!(f.message.map(|m| m.0.len()), Some(1018));
}

#[test]
fn rejects_malformed() {
    let now = Instant::now();
    let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
    let short = chunk(&mut r, now, h(Flags::REL, 0, 1), &[0; 10]);
    assert_eq!(short.dropped, Some(Dropped::Malformed));
    assert!(!short.ack);
    let long = chunk(&mut r, now, h(Flags::FIN, 0, 2), &[0; 505]);
    assert_eq!(long.dropped, Some(Dropped::Malformed));
}

#[test]
fn unreliable_partials_expire() {
    let now = Instant::now();
    let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
    chunk(&mut r, now, h(Flags::NONE, 0, 9), &[0; 504]);
    assert!(r.partial_bytes() > 0);
    assert_eq!(r.next_expiry(), Some(now + Duration::from_secs(1)));
    assert_eq!(
        r.expire(now + Duration::from_millis(999)),
        Expired::default()
    );
    let expired = r.expire(now + Duration::from_secs(1));
    assert_eq!((expired.unreliable, expired.reliable), (1, 0));
    assert_eq!(r.partial_bytes(), 0);
}

#[test]
fn silent_reliable_partials_are_abandoned_and_repeats_keep_them() {
    let now = Instant::now();
    let secs = Duration::from_secs;
    let mut r = Reassembler::new(false, secs(1), secs(30));
    chunk(&mut r, now, h(Flags::REL, 0, 5), &[1; 504]);
    chunk(&mut r, now, h(Flags::REL, 0, 6), &[2; 504]);
    assert_eq!(r.next_expiry(), Some(now + secs(30)));
    // A repeated chunk of sequence 5 at 20 s: its sender is alive, its deadline moves.
    let again = chunk(&mut r, now + secs(20), h(Flags::REL, 0, 5), &[1; 504]);
    assert!(again.ack);
    assert_eq!(r.expire(now + secs(29)), Expired::default());
    let expired = r.expire(now + secs(30));
    assert_eq!((expired.unreliable, expired.reliable), (0, 1));
    assert_eq!(r.next_expiry(), Some(now + secs(50)));
    // Sequence 5 still completes.
    let done = chunk(&mut r, now + secs(40), h(LAST, 1, 5), &[3; 10]);
    assert_eq!(done.message.map(|(m, _)| m.len()), Some(514));
    assert_eq!(r.partial_bytes(), 0);
}
