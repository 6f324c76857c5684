//! `poll_transmit` with room for many datagrams: the batches have the shape UDP GSO sends
//! (equal segments, the last may be shorter, one destination), a connection driven only
//! through batches delivers everything, and batching groups datagrams without changing them.

use std::time::Duration;

use hopnet_proto::fuzzing::packet::{Flags, HEADER_LEN, Header};
use hopnet_proto::sim::{Batch, Pair};
use hopnet_proto::{CHUNK_SIZE, Config, Delivery, Event, Machine};

/// Checks a batch's shape and returns its datagrams.
fn check_shape(batch: &Batch, max: usize) -> Vec<Vec<u8>> {
    let t = &batch.transmit;
    assert_eq!(t.size, batch.bytes.len());
    assert!(t.segment_size > 0 && t.segment_size <= t.size);
    assert!(t.datagrams() <= max, "{} > {max}", t.datagrams());
    let datagrams: Vec<Vec<u8>> = batch.datagrams().map(<[u8]>::to_vec).collect();
    assert_eq!(datagrams.len(), t.datagrams());
    let (last, rest) = datagrams.split_last().unwrap();
    assert!(rest.iter().all(|d| d.len() == t.segment_size));
    assert!(last.len() <= t.segment_size && !last.is_empty());
    datagrams
}

fn pair(max_batch: usize) -> Pair {
    let config = Config::builder()
        .initial_window(256)
        .pacing(false)
        .build()
        .unwrap();
    let mut pair = Pair::with_seed(1, config.clone(), config);
    pair.network().set_max_batch(max_batch);
    pair
}

#[test]
fn batches_are_gso_shaped_and_deliver() {
    let max = 16;
    let mut pair = pair(max);
    pair.network().record_batches(true);
    let sizes = [65536usize, 1024, 0, 100, 3 * CHUNK_SIZE];
    for &n in &sizes {
        pair.client()
            .send(&vec![7u8; n], Delivery::Reliable)
            .unwrap();
    }
    pair.client()
        .send(&[9u8; 2000], Delivery::Unreliable)
        .unwrap();
    // Each message with how it was sent: the unreliable one must arrive as unreliable.
    let mut got = Vec::new();
    pair.run_until(Duration::from_secs(1), |p| {
        while let Some(e) = p.server().poll_event() {
            if let Event::Message { bytes, reliable } = e.event {
                got.push((bytes.len(), reliable));
            }
        }
        got.len() == sizes.len() + 1
    });
    got.sort_unstable();
    let mut want: Vec<(usize, bool)> = sizes.iter().map(|&n| (n, true)).collect();
    want.push((2000, false));
    want.sort_unstable();
    assert_eq!(got, want);

    let (client, server) = (pair.client_addr(), pair.server_addr());
    let (mut data_batches, mut short_batches, mut ack_batches) = (0, 0, 0);
    for batch in pair.network().take_batches() {
        let datagrams = check_shape(&batch, max);
        assert_eq!(
            batch.transmit.destination,
            if batch.from == client { server } else { client }
        );
        if datagrams.len() == 1 {
            continue;
        }
        if batch.from == server {
            // A run of ACKs.
            assert_eq!(batch.transmit.segment_size, HEADER_LEN);
            for d in &datagrams {
                let (h, _) = Header::decode(d).unwrap();
                assert!(h.flags.contains(Flags::ACK));
            }
            ack_batches += 1;
        } else if batch.transmit.segment_size == HEADER_LEN + CHUNK_SIZE {
            // Full chunks, of one or several messages.
            data_batches += 1;
        } else {
            // The equal shorter last chunks of several messages (the 65,536- and 1,024-byte
            // messages both end in a 16-byte chunk).
            assert_eq!(batch.transmit.segment_size, HEADER_LEN + 16);
            short_batches += 1;
        }
    }
    assert!(data_batches > 0 && short_batches > 0 && ack_batches > 0);
    assert_eq!(pair.client().stats().retransmissions, 0);
}

#[test]
fn batching_groups_the_datagrams_of_a_message_without_changing_them() {
    // The same pair (same seed) polled one datagram at a time and 64 at a time: a single
    // message leaves as the same datagrams, in the same order.
    let datagrams = |max| {
        let mut pair = pair(max);
        pair.client()
            .send(&[3u8; 20 * CHUNK_SIZE + 7], Delivery::Reliable)
            .unwrap();
        let batches = pair.take_outgoing();
        let datagrams: Vec<Vec<u8>> = batches.iter().flat_map(|b| check_shape(b, max)).collect();
        (batches.len(), datagrams)
    };
    let (singles, one_by_one) = datagrams(1);
    let (batches, batched) = datagrams(64);
    assert_eq!(singles, 21);
    assert_eq!(batches, 1);
    assert_eq!(one_by_one, batched);
}

#[test]
fn full_chunks_of_queued_messages_share_a_batch() {
    // Ten 1 KiB messages are 20 full chunks and ten 16-byte last chunks: two GSO batches
    // (full chunks with one short last, then the other nine short ones), not ten.
    let mut pair = pair(64);
    for i in 0..10u8 {
        pair.client().send(&[i; 1024], Delivery::Reliable).unwrap();
    }
    let batches = pair.take_outgoing();
    let shapes: Vec<(usize, usize)> = batches
        .iter()
        .map(|b| (b.transmit.datagrams(), b.transmit.segment_size))
        .collect();
    assert_eq!(
        shapes,
        [(21, HEADER_LEN + CHUNK_SIZE), (9, HEADER_LEN + 16)],
        "{shapes:?}"
    );
    let (now, from) = (pair.now(), pair.client_addr());
    for batch in &batches {
        for d in check_shape(batch, 64) {
            pair.server().handle(now, from, &d);
        }
    }
    let mut got = pair.server_messages();
    got.sort();
    let want: Vec<Vec<u8>> = (0..10u8).map(|i| vec![i; 1024]).collect();
    assert_eq!(got, want);
}

/// The lengths of the data frames in each extended datagram of `batches` from `from`.
fn data_frames(batches: &[Batch], from: std::net::SocketAddr) -> Vec<Vec<usize>> {
    use hopnet_proto::fuzzing::ext::datagram::{Frames, open};
    use hopnet_proto::fuzzing::ext::frame::Frame;
    let mut out = Vec::new();
    for batch in batches.iter().filter(|b| b.from == from) {
        for d in batch.datagrams() {
            let frames = open(d, true).expect("an extended datagram with a CRC");
            let lens: Vec<usize> = Frames(frames)
                .filter_map(|f| match f.expect("a frame") {
                    Frame::Data(_, bytes) => Some(bytes.len()),
                    _ => None,
                })
                .collect();
            if !lens.is_empty() {
                out.push(lens);
            }
        }
    }
    out
}

#[test]
fn small_messages_fill_the_room_large_ones_leave() {
    // 1,200-byte datagrams: a 1,000-byte message's frame leaves 188 bytes, room for one
    // 100-byte message (a 107-byte frame) but not two.
    let config = Config::builder()
        .extensions(true)
        .compression(false)
        .max_datagram_size(1200)
        .initial_window(256)
        .pacing(false)
        .build()
        .unwrap();
    let mut pair = Pair::with_seed(3, config.clone(), config);
    pair.drive();
    assert!(pair.client().extensions().is_some());
    let lens = [1000, 100, 100, 100, 1000, 100, 100, 100];
    for (i, &n) in lens.iter().enumerate() {
        pair.client()
            .send(&vec![i as u8; n], Delivery::Reliable)
            .unwrap();
    }
    let batches = pair.take_outgoing();
    let sent = data_frames(&batches, pair.client_addr());
    // In sequence order as long as the next one fits; then the later small messages that
    // fit what the large one left, and the large one alone.
    assert_eq!(
        sent,
        [vec![1000, 100], vec![100, 100, 100, 100, 100], vec![1000]]
    );
    for batch in &batches {
        for d in batch.datagrams() {
            pair.network()
                .inject(batch.from, batch.transmit.destination, d.to_vec());
        }
    }
    let mut got = pair.server_messages();
    pair.run_until(Duration::from_secs(1), |p| {
        got.extend(p.server_messages());
        got.len() == lens.len()
    });
    let mut sizes: Vec<usize> = got.iter().map(Vec::len).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [100, 100, 100, 100, 100, 100, 1000, 1000]);
}
