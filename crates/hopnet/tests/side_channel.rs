//! A side channel on a blocking driver server's socket, over loopback: datagrams that start
//! with its prefix reach the application and its answers leave through the same socket, while
//! a client connects and exchanges messages as usual; plain and secure.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant, SystemTime};

use hopnet::SideChannel;
use hopnet::secure::{ConnectTokenBuilder, Key};
use hopnet::{Client, Server};
use hopnet::{Config, Delivery, Event, ServerEvent};

const PREFIX: [u8; 4] = [0xff; 4];

/// Polls both until `done`, or fails after 5 s.
fn until(server: &mut Server, client: &mut Client, mut done: impl FnMut(&mut Server) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !done(server) {
        assert!(Instant::now() < deadline, "timed out");
        server.poll(Duration::from_millis(1)).unwrap();
        client.poll(Duration::from_millis(1)).unwrap();
    }
}

/// Connects `client`, sends it a query's worth of side traffic from `outsider`, answers it, and
/// checks the game traffic went on beside it.
fn side_traffic_beside_a_connection(mut server: Server, mut client: Client) {
    server.set_side_channel(Some(SideChannel::new(PREFIX)));
    let addr = server.local_addr().unwrap();
    let outsider = UdpSocket::bind("127.0.0.1:0").unwrap();
    outsider
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // Claimed before and during the handshake alike.
    outsider.send_to(b"\xff\xff\xff\xffTquery", addr).unwrap();
    client.send(b"hello", Delivery::Reliable).unwrap();
    let mut got = None;
    let mut claimed = Vec::new();
    until(&mut server, &mut client, |s| {
        while let Some(e) = s.poll_event() {
            if let ServerEvent {
                event: Event::Message { bytes, .. },
                connection,
                ..
            } = e
            {
                got = Some((connection, bytes));
            }
        }
        let side = s.side_channel().unwrap();
        while let Some((from, datagram)) = side.recv() {
            assert!(side.send(from, b"\xff\xff\xff\xffAanswer".to_vec()));
            claimed.push((from, datagram));
        }
        got.is_some() && !claimed.is_empty()
    });
    let outsider_addr: SocketAddr = outsider.local_addr().unwrap();
    assert_eq!(
        claimed,
        [(outsider_addr, b"\xff\xff\xff\xffTquery".to_vec())]
    );
    server.flush().unwrap();
    let mut buf = [0u8; 64];
    let (n, from) = outsider.recv_from(&mut buf).unwrap();
    assert_eq!((&buf[..n], from), (&b"\xff\xff\xff\xffAanswer"[..], addr));
    let (connection, bytes) = got.unwrap();
    assert_eq!(bytes, b"hello");
    // The connection still carries messages both ways.
    server
        .send(connection, b"world", Delivery::Reliable)
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let reply = loop {
        assert!(Instant::now() < deadline, "timed out");
        server.poll(Duration::from_millis(1)).unwrap();
        client.poll(Duration::from_millis(1)).unwrap();
        if let Some(Event::Message { bytes, .. }) = client.poll_event() {
            break bytes;
        }
    };
    assert_eq!(reply, b"world");
    let side = server.side_channel().unwrap().stats();
    assert_eq!((side.claimed, side.dropped_in, side.queued_out), (1, 0, 1));
    assert_eq!(server.machine().server_stats().malformed, 0);
}

#[test]
fn a_plain_server_hands_prefixed_datagrams_to_its_side_channel() {
    let server = Server::bind("127.0.0.1:0", Config::default()).unwrap();
    let client = Client::connect(server.local_addr().unwrap(), Config::default()).unwrap();
    side_traffic_beside_a_connection(server, client);
}

#[test]
fn a_secure_server_hands_prefixed_datagrams_to_its_side_channel() {
    let key = Key::generate();
    let server = Server::bind_secure("127.0.0.1:0", Config::default(), 7, key.clone()).unwrap();
    let token = ConnectTokenBuilder::new(7, 1, [server.local_addr().unwrap()])
        .issue(&key, SystemTime::now())
        .unwrap();
    let client = Client::connect_secure(token, Config::default()).unwrap();
    side_traffic_beside_a_connection(server, client);
}
