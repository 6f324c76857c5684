//! `poll_transmit` with room for many datagrams: the batches have the shape UDP GSO sends
//! (equal segments, the last may be shorter, one destination), and a connection driven only
//! through batches delivers everything.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netproto::packet::{Flags, HEADER_LEN, Header};
use netproto::{CHUNK_SIZE, Config, Connection, Delivery, Endpoint, Event, Transmit};

fn check_shape(info: &Transmit, buf: &[u8], max: usize) -> Vec<Vec<u8>> {
    assert_eq!(info.size, buf.len());
    assert!(info.segment_size > 0 && info.segment_size <= info.size);
    assert!(info.datagrams() <= max, "{} > {max}", info.datagrams());
    let datagrams: Vec<Vec<u8>> = info.split(buf).map(<[u8]>::to_vec).collect();
    assert_eq!(datagrams.len(), info.datagrams());
    let (last, rest) = datagrams.split_last().unwrap();
    assert!(rest.iter().all(|d| d.len() == info.segment_size));
    assert!(last.len() <= info.segment_size && !last.is_empty());
    datagrams
}

#[test]
fn batches_are_gso_shaped_and_deliver() {
    let server_addr: SocketAddr = "127.0.0.1:7000".parse().unwrap();
    let client_addr: SocketAddr = "127.0.0.1:7001".parse().unwrap();
    let config = Config::builder().initial_window(256).build().unwrap();
    let mut now = Instant::now();
    let mut server = Endpoint::with_seed(config.clone(), 1);
    let mut client = Connection::with_seed(config, server_addr, now, 2);
    let sizes = [65536usize, 1024, 0, 100, 3 * CHUNK_SIZE];
    for &n in &sizes {
        client.send(&vec![7u8; n], Delivery::Reliable).unwrap();
    }

    let max = 16;
    let mut buf = Vec::new();
    let mut got = Vec::new();
    let (mut data_batches, mut short_batches, mut ack_batches) = (0, 0, 0);
    let mut unreliable_sent = false;
    for _ in 0..200 {
        if client.is_connected() && !unreliable_sent {
            // Unreliable messages sent before the handshake are dropped.
            client.send(&[9u8; 2000], Delivery::Unreliable).unwrap();
            unreliable_sent = true;
        }
        while let Some(info) = client.poll_transmit(now, &mut buf, max) {
            assert_eq!(info.destination, server_addr);
            let datagrams = check_shape(&info, &buf, max);
            if datagrams.len() > 1 {
                // Several chunks: full ones (of one or several messages), or the equal
                // shorter last chunks of several messages (the 65,536- and 1,024-byte
                // messages both end in a 16-byte chunk).
                if info.segment_size == HEADER_LEN + CHUNK_SIZE {
                    data_batches += 1;
                } else {
                    assert_eq!(info.segment_size, HEADER_LEN + 16);
                    short_batches += 1;
                }
            }
            for d in datagrams {
                server.handle(now, client_addr, &d);
            }
        }
        while let Some(info) = server.poll_transmit(now, &mut buf, max) {
            assert_eq!(info.destination, client_addr);
            let datagrams = check_shape(&info, &buf, max);
            if datagrams.len() > 1 {
                // A run of ACKs.
                assert_eq!(info.segment_size, HEADER_LEN);
                for d in &datagrams {
                    let (h, _) = Header::decode(d).unwrap();
                    assert!(h.flags.contains(Flags::ACK));
                }
                ack_batches += 1;
            }
            for d in datagrams {
                client.handle(now, server_addr, &d);
            }
        }
        while let Some(e) = server.poll_event() {
            if let Event::Message { bytes, reliable } = e.event {
                got.push((bytes.len(), reliable));
            }
        }
        now += Duration::from_millis(5);
        client.handle_timeout(now);
        server.handle_timeout(now);
    }
    let mut reliable: Vec<usize> = got.iter().filter(|g| g.1).map(|g| g.0).collect();
    reliable.sort_unstable();
    let mut want = sizes.to_vec();
    want.sort_unstable();
    assert_eq!(reliable, want);
    assert!(got.contains(&(2000, false)));
    assert!(data_batches > 0 && short_batches > 0 && ack_batches > 0);
    let stats = client.stats();
    assert_eq!(stats.retransmissions, 0);
}

#[test]
fn a_batch_of_one_is_poll_transmit() {
    // The same machine state, polled one datagram at a time both ways, gives the same bytes.
    let server_addr: SocketAddr = "127.0.0.1:7000".parse().unwrap();
    let now = Instant::now();
    let mut a = Connection::with_seed(Config::default(), server_addr, now, 3);
    let mut b = Connection::with_seed(Config::default(), server_addr, now, 3);
    let mut buf = Vec::new();
    for _ in 0..3 {
        let mut single = Vec::new();
        let t = a.poll_transmit(now, &mut single, 1);
        let info = b.poll_transmit(now, &mut buf, 1);
        match (t, info) {
            (Some(t), Some(info)) => {
                assert_eq!(t.destination, info.destination);
                assert_eq!(single, buf);
                assert_eq!(info.datagrams(), 1);
            }
            (None, None) => {}
            other => panic!("differ: {other:?}"),
        }
    }
}

#[test]
fn full_chunks_of_queued_messages_share_a_batch() {
    // Ten 1 KiB messages are 20 full chunks and ten 16-byte last chunks: two GSO batches
    // (full chunks with one short last, then the other nine short ones), not ten.
    let server_addr: SocketAddr = "127.0.0.1:7000".parse().unwrap();
    let client_addr: SocketAddr = "127.0.0.1:7001".parse().unwrap();
    let config = Config::builder()
        .initial_window(256)
        .pacing(false)
        .build()
        .unwrap();
    let now = Instant::now();
    let mut server = Endpoint::with_seed(config.clone(), 1);
    let mut client = Connection::with_seed(config, server_addr, now, 2);
    let mut buf = Vec::new();
    for _ in 0..10 {
        if client.is_connected() {
            break;
        }
        while client.poll_transmit(now, &mut buf, 1).is_some() {
            server.handle(now, client_addr, &buf);
        }
        while server.poll_transmit(now, &mut buf, 1).is_some() {
            client.handle(now, server_addr, &buf);
        }
    }
    assert!(client.is_connected());
    for i in 0..10u8 {
        client.send(&[i; 1024], Delivery::Reliable).unwrap();
    }
    let mut shapes = Vec::new();
    let mut datagrams = Vec::new();
    while let Some(info) = client.poll_transmit(now, &mut buf, 64) {
        shapes.push((info.datagrams(), info.segment_size));
        datagrams.extend(check_shape(&info, &buf, 64));
    }
    assert_eq!(
        shapes,
        [(21, HEADER_LEN + CHUNK_SIZE), (9, HEADER_LEN + 16)],
        "{shapes:?}"
    );
    for d in &datagrams {
        server.handle(now, client_addr, d);
    }
    let mut got = Vec::new();
    while let Some(e) = server.poll_event() {
        if let Event::Message { bytes, .. } = e.event {
            got.push(bytes);
        }
    }
    got.sort();
    let want: Vec<Vec<u8>> = (0..10u8).map(|i| vec![i; 1024]).collect();
    assert_eq!(got, want);
}
