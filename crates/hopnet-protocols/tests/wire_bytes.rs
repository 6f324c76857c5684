//! The machines' datagrams byte for byte against the seeds' own examples.

use std::net::SocketAddr;
use std::time::Instant;

use hopnet::Machine;
use hopnet_protocols::{semi_ordered_udp as sou, woke};

fn server() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 9000))
}

#[test]
fn a_semi_ordered_package_is_the_seeds_example() {
    // "a semi-reliable package with ID 107907, targeted to the server, payload 12 34 56".
    let now = Instant::now();
    let mut client = sou::Client::new(server(), sou::Config::starting_at(107_907), now);
    client
        .send(
            now,
            sou::Reliability::SemiOrdered,
            true,
            &[0x12, 0x34, 0x56],
        )
        .unwrap();
    let mut buf = Vec::new();
    let t = client.poll_transmit(now, &mut buf, 1).unwrap();
    assert_eq!(t.destination, server());
    assert_eq!(buf, [0x50, 0x01, 0xA5, 0x83, 0x12, 0x34, 0x56]);
}

#[test]
fn confirmations_are_the_seeds_control_datagram() {
    // The seed's example confirms 1238, 17 and 2443: a peer starting at 17 sends them.
    let now = Instant::now();
    let mut client = sou::Client::new(server(), sou::Config::starting_at(17), now);
    let mut buf = Vec::new();
    for id in [1238u32, 17, 2443] {
        let package = hopnet_codec::to_bytes(&hopnet_formats::semi_ordered::Datagram::Package {
            reliability: hopnet_formats::semi_ordered::Reliability::Unordered,
            server_targeted: false,
            id,
            payload: vec![1],
        })
        .unwrap();
        client.handle(now, server(), &package);
    }
    let later = now + std::time::Duration::from_millis(20);
    client.handle_timeout(later);
    client.poll_transmit(later, &mut buf, 1).unwrap();
    assert_eq!(
        buf,
        [
            0x80, 0, 0, 0, 0x00, 0x04, 0xD6, 0x00, 0x00, 0x11, 0x00, 0x09, 0x8B
        ]
    );
}

#[test]
fn a_woke_client_first_sends_a_connection_request() {
    let now = Instant::now();
    let mut client = woke::Client::new(server(), woke::Config::default(), now);
    client.handle_timeout(now);
    let mut buf = Vec::new();
    client.poll_transmit(now, &mut buf, 1).unwrap();
    // 'W', type 0, client id 0, sequence 0, ack 0, bitfield 0: 12 bytes, no payload.
    assert_eq!(buf, [0x57, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    client.handle_timeout(now + woke::Config::default().tick);
    client.poll_transmit(now, &mut buf, 1).unwrap();
    assert_eq!(&buf[4..6], [1, 0], "the sequence counts up, little-endian");
}
