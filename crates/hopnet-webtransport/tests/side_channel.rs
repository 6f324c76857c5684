//! A side channel on the carrier's UDP socket: datagrams with its prefix reach the
//! application, its answers leave by UDP, and hopnet's clients on the same port are unaffected;
//! set through hopnet's `ServerDriver` trait, as a game's loop written for any carrier sets it.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use hopnet::Client;
use hopnet::{ServerDriver, SideChannel};
use hopnet_webtransport::{Certificate, Server, WebTransportConfig};

const PREFIX: [u8; 4] = [0xff; 4];

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Sets the side channel the way a loop generic over the carrier does.
fn claim_queries<D: ServerDriver>(driver: &mut D) {
    driver
        .set_side_channel(Some(SideChannel::new(PREFIX)))
        .unwrap();
}

/// Answers what the side channel claimed: the prefix, then the query's bytes reversed.
fn answer(server: &mut Server) {
    let side = server.side_channel().expect("set");
    while let Some((from, query)) = side.recv() {
        let mut answer = PREFIX.to_vec();
        answer.extend(query[4..].iter().rev());
        assert!(side.send(from, answer));
    }
}

#[test]
fn claimed_datagrams_reach_the_application_and_hopnet_keeps_the_rest() {
    let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
    let web = WebTransportConfig::new(loopback(), certificate);
    let mut server = Server::bind(loopback(), web, hopnet::Config::default()).unwrap();
    claim_queries(&mut server);
    let addr = server.local_addr().unwrap();

    let asker = UdpSocket::bind(loopback()).unwrap();
    asker.set_nonblocking(true).unwrap();
    asker.send_to(b"\xff\xff\xff\xffquery", addr).unwrap();
    let mut client = Client::connect(addr, hopnet::Config::default()).unwrap();

    let mut buf = [0u8; 64];
    let mut answered = None;
    let end = Instant::now() + Duration::from_secs(10);
    while (answered.is_none() || !client.machine().is_connected()) && Instant::now() < end {
        server.poll(Duration::from_millis(2)).unwrap();
        answer(&mut server);
        server.flush().unwrap();
        client.poll(Duration::from_millis(2)).unwrap();
        if let Ok((n, from)) = asker.recv_from(&mut buf) {
            answered = Some((buf[..n].to_vec(), from));
        }
    }
    assert_eq!(
        answered,
        Some((b"\xff\xff\xff\xffyreuq".to_vec(), addr)),
        "the answer, from the game's port"
    );
    assert!(client.machine().is_connected(), "hopnet's client connected");
    let side = server.side_channel().unwrap().stats();
    assert_eq!((side.claimed, side.queued_out), (1, 1));
    assert_eq!(server.machine().server_stats().malformed, 0);

    // Removed, the same datagram is hopnet's: malformed to it, and never answered.
    server.set_side_channel(None);
    asker.send_to(b"\xff\xff\xff\xffquery", addr).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    while server.machine().server_stats().malformed == 0 && Instant::now() < end {
        server.poll(Duration::from_millis(5)).unwrap();
    }
    assert_eq!(server.machine().server_stats().malformed, 1);
    server.poll(Duration::from_millis(20)).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert!(asker.recv_from(&mut buf).is_err(), "no answer");
}
