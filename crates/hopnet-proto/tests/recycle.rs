//! Buffers handed back with `recycle`: the next message of one datagram is copied into one of
//! them, on either side and on either wire, and receiving into them allocates nothing for the
//! messages themselves.

use alloc_counter::{Counting, peak_allocation};
use hopnet_proto::sim::Pair;
use hopnet_proto::{Config, Delivery, Event, Machine};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Each wire, with a message length that fits one of its datagrams. The congestion window
/// starts wide enough and the pacer is off, so that a test's messages leave at once.
fn cases() -> [(&'static str, Config, usize); 2] {
    let spec = Config::builder()
        .initial_window(64)
        .pacing(false)
        .build()
        .unwrap();
    let extended = Config::builder()
        .initial_window(64)
        .pacing(false)
        .extensions(true)
        .compression(false)
        .max_datagram_size(1200)
        .build()
        .unwrap();
    [("spec", spec, 400), ("extended", extended, 1000)]
}

fn connected(config: Config) -> Pair {
    let extended = config.extensions().is_some();
    let mut pair = Pair::new(config);
    pair.drive();
    assert_eq!(pair.client().extensions().is_some(), extended);
    pair
}

fn message(len: usize, salt: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(salt)).collect()
}

/// One direction of a connection: how a message is sent, how the receiver's messages are
/// taken, how the receiver hands a buffer back.
struct Direction {
    name: &'static str,
    send: fn(&mut Pair, &[u8]),
    take: fn(&mut Pair) -> Vec<Vec<u8>>,
    recycle: fn(&mut Pair, Vec<u8>),
}

const DIRECTIONS: [Direction; 2] = [
    Direction {
        name: "server to client",
        send: |p, m| {
            let id = p.id();
            p.server().send(id, m, Delivery::Reliable).unwrap()
        },
        take: Pair::client_messages,
        recycle: |p, bytes| p.client().recycle(bytes),
    },
    Direction {
        name: "client to server",
        send: |p, m| p.client().send(m, Delivery::Reliable).unwrap(),
        take: Pair::server_messages,
        recycle: |p, bytes| p.server().recycle(bytes),
    },
];

#[test]
fn a_buffer_handed_back_carries_the_next_message_both_ways() {
    for (wire, config, len) in cases() {
        let mut pair = connected(config);
        for d in &DIRECTIONS {
            let first = message(len, 3);
            (d.send)(&mut pair, &first);
            pair.drive();
            let got = (d.take)(&mut pair).pop().unwrap();
            assert_eq!(got, first, "{wire}, {}", d.name);
            let at = got.as_ptr();
            (d.recycle)(&mut pair, got);
            let second = message(len, 5);
            (d.send)(&mut pair, &second);
            pair.drive();
            let got = (d.take)(&mut pair);
            assert_eq!(got, [second], "{wire}, {}", d.name);
            assert_eq!(
                got[0].as_ptr(),
                at,
                "{wire}, {}: the buffer handed back",
                d.name
            );
        }
    }
}

#[test]
fn a_buffer_too_small_or_full_of_old_bytes_still_yields_the_message() {
    let (_, config, len) = cases()[1].clone();
    let mut pair = connected(config);
    let id = pair.id();
    pair.client().recycle(Vec::with_capacity(8));
    pair.client().recycle(vec![0xee; 3000]);
    for salt in [11, 13] {
        let m = message(len, salt);
        pair.server().send(id, &m, Delivery::Reliable).unwrap();
        pair.drive();
        assert_eq!(pair.client_messages(), [m]);
    }
}

#[test]
fn receiving_into_buffers_handed_back_allocates_nothing_for_the_messages() {
    const MESSAGES: usize = 64;
    for (name, config, len) in cases() {
        for recycled in [false, true] {
            let mut pair = connected(config.clone());
            let id = pair.id();
            if recycled {
                for _ in 0..MESSAGES {
                    pair.client().recycle(Vec::with_capacity(len));
                }
            }
            for i in 0..MESSAGES {
                let m = message(len, i as u8);
                pair.server().send(id, &m, Delivery::Reliable).unwrap();
            }
            let (now, server) = (pair.now(), pair.server_addr());
            let batches = pair.take_outgoing();
            let datagrams: Vec<&[u8]> = batches
                .iter()
                .filter(|b| b.from == server)
                .flat_map(|b| b.datagrams())
                .collect();
            // Kept until the end, as a receiver holds a poll's messages while it reads them.
            let mut kept = Vec::with_capacity(MESSAGES);
            let ((), peak) = peak_allocation(|| {
                for d in &datagrams {
                    pair.client().handle(now, server, d);
                }
                while let Some(e) = pair.client().poll_event() {
                    if let Event::Message { bytes, .. } = e {
                        kept.push(bytes);
                    }
                }
            });
            let delivered = kept.len();
            for (i, bytes) in kept.iter().enumerate() {
                assert_eq!(*bytes, message(len, i as u8), "{name}");
            }
            assert_eq!(delivered, MESSAGES, "{name}");
            let copies = MESSAGES * len;
            if recycled {
                assert!(
                    peak < copies / 4,
                    "{name}: {peak} bytes with buffers handed back"
                );
            } else {
                assert!(peak >= copies, "{name}: {peak} bytes without");
            }
        }
    }
}
