//! The carrier end to end over loopback: hopnet clients in WebTransport sessions (a Rust
//! client over `wtransport`, as a page runs one) beside UDP clients, on one server.

mod common;

use std::time::{Duration, Instant};

use common::{EchoServer, WebClient};
use hopnet::Client;
use hopnet::{DisconnectReason, Event};
use hopnet_webtransport::{CLOSE_HOPNET_ENDED, is_session_address};
use wtransport::VarInt;
use wtransport::error::ConnectionError;

/// Sizes that cross the chunk boundaries: empty, one byte, one chunk, one byte more, many
/// chunks, the largest payload.
const SIZES: [usize; 6] = [0, 1, 504, 505, 20_000, hopnet::MAX_PAYLOAD];

fn message(size: usize, seed: u8) -> Vec<u8> {
    (0..size)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn messages(events: &[Event]) -> Vec<(Vec<u8>, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Message { bytes, reliable } => Some((bytes.clone(), *reliable)),
            _ => None,
        })
        .collect()
}

#[test]
fn browser_and_udp_clients_share_one_server() {
    let server = EchoServer::start();
    let mut web = WebClient::connect(server.web, server.hash);
    let mut udp = Client::connect(server.udp, hopnet::Config::default()).unwrap();
    udp.wait_connected().unwrap();
    web.wait_connected();

    for (i, &size) in SIZES.iter().enumerate() {
        web.hopnet
            .send(&message(size, i as u8), hopnet::Delivery::Reliable)
            .unwrap();
        udp.send(&message(size, 100 + i as u8), hopnet::Delivery::Reliable)
            .unwrap();
    }
    // An unreliable message of one chunk: over loopback it arrives.
    web.hopnet
        .send(b"unreliable", hopnet::Delivery::Unreliable)
        .unwrap();

    let events = web.run_until(Duration::from_secs(20), "every echo", |_, e| {
        messages(e).len() == SIZES.len() + 1
    });
    let mut got = messages(&events);
    got.sort();
    let mut want: Vec<_> = SIZES
        .iter()
        .enumerate()
        .map(|(i, &s)| (message(s, i as u8), true))
        .chain([(b"unreliable".to_vec(), false)])
        .collect();
    want.sort();
    assert_eq!(got, want, "the web client's echoes");

    let mut udp_got = Vec::new();
    let end = Instant::now() + Duration::from_secs(20);
    while udp_got.len() < SIZES.len() && Instant::now() < end {
        udp.poll(Duration::from_millis(5)).unwrap();
        while let Some(e) = udp.poll_event() {
            if let Event::Message { bytes, .. } = e {
                udp_got.push(bytes);
            }
        }
        // The web client keeps its side alive meanwhile.
        web.poll(Duration::ZERO);
    }
    udp_got.sort();
    let mut udp_want: Vec<_> = SIZES
        .iter()
        .enumerate()
        .map(|(i, &s)| message(s, 100 + i as u8))
        .collect();
    udp_want.sort();
    assert_eq!(udp_got, udp_want, "the UDP client's echoes");

    let seen = server.seen.lock().unwrap();
    let peers = seen.connected();
    assert_eq!(peers.len(), 2, "{peers:?}");
    assert_eq!(
        peers.iter().filter(|p| is_session_address(**p)).count(),
        1,
        "one peer is the session, one the UDP client: {peers:?}"
    );
    assert!(peers.contains(&udp.local_addr().unwrap()) || peers.iter().any(|p| p.is_ipv4()));
    assert_eq!(seen.stats.accepted, 1);
    assert_eq!(seen.stats.too_large, 0);
    assert_eq!(seen.stats.inbox_full, 0);
}

#[test]
fn a_session_that_ends_is_its_peer_closing() {
    let server = EchoServer::start();
    let mut web = WebClient::connect(server.web, server.hash);
    web.wait_connected();
    server.wait_for(Duration::from_secs(5), "the connection", |s| {
        s.connected().len() == 1
    });
    let peer = server.seen.lock().unwrap().connected()[0];
    // The page is closed: the session ends without a word from hopnet.
    web.session.close(VarInt::from_u32(0), b"tab closed");
    server.wait_for(Duration::from_secs(5), "the peer closing", |s| {
        s.disconnects(peer) == [DisconnectReason::PeerClosed]
    });
    server.wait_for(Duration::from_secs(5), "the session gone", |s| {
        s.stats.sessions == 0
    });
}

#[test]
fn a_connection_the_server_closes_closes_its_session() {
    let server = EchoServer::start();
    let mut web = WebClient::connect(server.web, server.hash);
    web.wait_connected();
    web.hopnet.send(b"bye", hopnet::Delivery::Reliable).unwrap();
    let events = web.run_until(Duration::from_secs(5), "the session closed", |c, _| {
        c.session_closed.is_some()
    });
    assert!(
        events.contains(&Event::Disconnected {
            reason: DisconnectReason::PeerClosed
        }),
        "hopnet's END arrived before the session closed: {events:?}"
    );
    match web.session_closed {
        Some(ConnectionError::ApplicationClosed(close)) => {
            assert_eq!(close.code(), VarInt::from_u32(CLOSE_HOPNET_ENDED));
        }
        other => panic!("closed how? {other:?}"),
    }
    server.wait_for(Duration::from_secs(5), "the close counted", |s| {
        s.stats.closed_by_server == 1 && s.stats.sessions == 0
    });
}

#[test]
fn a_session_that_never_connects_is_closed() {
    let server = EchoServer::start_with(|c| c.unused_session_timeout = Duration::from_millis(300));
    let mut web = WebClient::connect(server.web, server.hash);
    // No hopnet at all: the session only waits.
    let started = Instant::now();
    while web.session_closed.is_none() && started.elapsed() < Duration::from_secs(5) {
        let session = web.session.clone();
        let closed = web.runtime.block_on(async move {
            tokio::time::timeout(Duration::from_millis(50), session.closed()).await
        });
        if let Ok(e) = closed {
            web.session_closed = Some(e);
        }
    }
    match &web.session_closed {
        Some(ConnectionError::ApplicationClosed(close)) => {
            assert_eq!(close.code(), VarInt::from_u32(CLOSE_HOPNET_ENDED));
        }
        other => panic!("closed how? {other:?}"),
    }
    assert!(started.elapsed() >= Duration::from_millis(250));
}

#[test]
fn sessions_beyond_the_limit_are_refused() {
    let server = EchoServer::start_with(|c| c.max_sessions = 1);
    let mut first = WebClient::connect(server.web, server.hash);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let second = common::open_session(&runtime, server.web, server.hash, |_| {});
    assert!(second.is_err(), "a second session was accepted");
    server.wait_for(Duration::from_secs(5), "the refusal", |s| {
        s.stats.refused_full == 1
    });
    // The first is unharmed.
    first.wait_connected();
    first.echo(b"still here", Duration::from_secs(5));
}

#[test]
fn a_session_without_datagrams_is_refused() {
    let server = EchoServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let session = common::open_session(&runtime, server.web, server.hash, |config| {
        let mut transport = wtransport::quinn::TransportConfig::default();
        transport.datagram_receive_buffer_size(None);
        config
            .quic_config_mut()
            .transport_config(std::sync::Arc::new(transport));
    });
    // The session may open before the server looks at its datagram size; then it closes.
    if let Ok(session) = session {
        let closed = runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(5), session.closed()).await
        });
        match closed {
            Ok(ConnectionError::ApplicationClosed(close)) => assert_eq!(
                close.code(),
                VarInt::from_u32(hopnet_webtransport::CLOSE_DATAGRAMS_TOO_SMALL)
            ),
            other => panic!("closed how? {other:?}"),
        }
    }
    server.wait_for(Duration::from_secs(5), "the refusal", |s| {
        s.stats.refused_small == 1 && s.stats.accepted == 0
    });
}

#[test]
fn garbage_in_a_session_changes_nothing_for_anyone_else() {
    use rand::{Rng, SeedableRng};
    let server = EchoServer::start();
    let mut udp = Client::connect(server.udp, hopnet::Config::default()).unwrap();
    udp.wait_connected().unwrap();
    let mut web = WebClient::connect(server.web, server.hash);
    web.wait_connected();
    // A page that sends anything at all, in a session of its own.
    let noisy = WebClient::connect(server.web, server.hash);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for i in 0..2_000 {
        let len = match i % 4 {
            0 => 4,
            1 => rng.random_range(0..8),
            _ => rng.random_range(0..1_200),
        };
        let datagram: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        noisy.send_raw(&datagram);
    }
    // QUIC may drop datagrams, as UDP does (its buffers are bounded): wait until most arrived
    // and no more come.
    let count = |s: &common::Seen| s.stats.datagrams_received + s.stats.inbox_full;
    server.wait_for(Duration::from_secs(10), "most of the garbage", |s| {
        count(s) >= 1_000
    });
    let mut last = 0;
    while count(&server.seen.lock().unwrap()) != last {
        last = count(&server.seen.lock().unwrap());
        std::thread::sleep(Duration::from_millis(300));
    }
    web.echo(b"after the noise", Duration::from_secs(10));
    udp.send(b"udp too", hopnet::Delivery::Reliable).unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    let mut echoed = false;
    while !echoed && Instant::now() < end {
        udp.poll(Duration::from_millis(5)).unwrap();
        while let Some(e) = udp.poll_event() {
            echoed |= matches!(e, Event::Message { bytes, .. } if bytes == b"udp too");
        }
    }
    assert!(echoed, "the UDP client's echo");
    let seen = server.seen.lock().unwrap();
    assert_eq!(
        seen.connected().len(),
        2,
        "random bytes never complete a handshake: {:?}",
        seen.events
    );
    assert!(
        seen.events
            .iter()
            .all(|(_, _, e)| !matches!(e, Event::Disconnected { .. }))
    );
}

#[test]
fn a_new_certificate_serves_new_sessions_and_keeps_the_open_ones() {
    let server = EchoServer::start();
    let mut open = WebClient::connect(server.web, server.hash);
    open.wait_connected();
    let renewed = hopnet_webtransport::Certificate::self_signed(["localhost"]).unwrap();
    let new = renewed.hash();
    *server.next_certificate.lock().unwrap() = Some(renewed);
    server.wait_for(Duration::from_secs(5), "the new certificate", |s| {
        s.hash == Some(new)
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    assert!(
        common::open_session(&runtime, server.web, server.hash, |_| {}).is_err(),
        "a new session pinned to the old hash"
    );
    let mut fresh = WebClient::connect(server.web, new);
    fresh.wait_connected();
    for client in [&mut open, &mut fresh] {
        client.echo(b"still", Duration::from_secs(5));
    }
}

#[test]
fn what_a_page_sends_on_streams_nobody_reads_is_bounded() {
    let server = EchoServer::start();
    let mut web = WebClient::connect(server.web, server.hash);
    web.wait_connected();
    let session = web.session.clone();
    // hopnet uses no streams: a stream's bytes wait unread, within its flow-control window.
    let written = web.runtime.block_on(async move {
        let (mut send, _recv) = session.open_bi().await.unwrap().await.unwrap();
        let chunk = vec![7u8; 16 * 1024];
        let mut written = 0usize;
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while send.write_all(&chunk).await.is_ok() {
                written += chunk.len();
            }
        })
        .await;
        written
    });
    assert!(
        written <= 256 * 1024,
        "the server took {written} bytes on a stream it never reads"
    );
    // The hopnet connection in the same session is unharmed.
    web.echo(b"still", Duration::from_secs(5));
}
