//! The WebSocket carrier: hopnet clients over a WebSocket beside UDP on one server, and what a
//! hostile socket gets (an oversize message, a text message, upgrades never finished, too many
//! sockets) while the other players play on.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::EchoServer;
use futures_util::{SinkExt, StreamExt};
use hopnet::{ClientDriver, Delivery, DisconnectReason, Event};
use hopnet_webtransport::{MAX_WEBSOCKET_MESSAGE, WebSocketClient, is_websocket_address};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

fn connect(server: &EchoServer) -> WebSocketClient {
    let mut client = WebSocketClient::connect(&server.websocket_url(), hopnet::Config::default())
        .expect("the socket opens");
    client
        .wait_connected()
        .expect("hopnet's handshake runs over the socket");
    client
}

/// Sends `bytes` and polls until the server's echo comes back, or fails after 5 s.
fn echo(client: &mut impl ClientDriver<Error: std::fmt::Debug>, bytes: &[u8], delivery: Delivery) {
    client.send(bytes, delivery).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    while Instant::now() < end {
        client.poll(Duration::from_millis(10)).unwrap();
        while let Some(event) = client.poll_event() {
            if let Event::Message { bytes: got, .. } = event
                && got == bytes
            {
                return;
            }
        }
    }
    panic!("no echo of {} bytes within 5 s", bytes.len());
}

/// A raw WebSocket (not hopnet's client).
type RawSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A raw WebSocket to `server` sends `message`; `read` then reads what comes back.
fn raw_socket<T>(
    server: &EchoServer,
    message: Message,
    read: impl AsyncFnOnce(&mut RawSocket) -> T,
) -> T {
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(server.websocket_url())
            .await
            .unwrap();
        ws.send(message).await.unwrap();
        read(&mut ws).await
    })
}

/// What a raw WebSocket gets back for `message`: its close frame's code and reason.
fn close_after(server: &EchoServer, message: Message) -> (CloseCode, String) {
    raw_socket(server, message, async |ws| {
        let read = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(next) = ws.next().await {
                if let Ok(Message::Close(Some(frame))) = next {
                    return Some((frame.code, frame.reason.to_string()));
                }
            }
            None
        });
        read.await
            .expect("the server answers within 5 s")
            .expect("with a close frame")
    })
}

#[test]
fn a_rust_client_plays_over_a_websocket_beside_a_udp_one() {
    let server = EchoServer::start();
    let mut socket = connect(&server);
    let mut udp = hopnet::Client::connect(server.udp, hopnet::Config::default()).unwrap();
    udp.wait_connected().unwrap();
    // Every mode: a small message, and one of many chunks (many binary messages).
    let big: Vec<u8> = (0..20_000u32).map(|i| (i * 7) as u8).collect();
    echo(&mut socket, b"over tcp", Delivery::Reliable);
    echo(
        &mut socket,
        b"unreliable is delivered anyway",
        Delivery::Unreliable,
    );
    echo(&mut socket, &big, Delivery::ReliableOrdered);
    echo(&mut udp, b"over udp", Delivery::Reliable);
    let seen = server.seen.lock().unwrap();
    let peers = seen.connected();
    assert_eq!(peers.len(), 2, "{peers:?}");
    assert_eq!(
        peers.iter().filter(|p| is_websocket_address(**p)).count(),
        1
    );
    let ws = &seen.stats.websocket;
    assert_eq!((ws.accepted, ws.sockets), (1, 1), "{ws:?}");
    assert!(ws.datagrams_received > 20_000 / 504, "{ws:?}");
    assert_eq!(ws.queue_full + ws.unroutable, 0, "{ws:?}");
}

#[test]
fn a_socket_that_ends_is_its_peer_closing_and_a_closed_connection_closes_its_socket() {
    let server = EchoServer::start();
    let client = connect(&server);
    drop(client);
    server.wait_for(Duration::from_secs(5), "the socket's connection end", |s| {
        s.connected()
            .first()
            .is_some_and(|p| !s.disconnects(*p).is_empty())
    });
    let peer = server.seen.lock().unwrap().connected()[0];
    assert_eq!(
        server.seen.lock().unwrap().disconnects(peer),
        [DisconnectReason::PeerClosed]
    );

    // `bye` makes the echo server close the connection: the socket follows.
    let mut client = connect(&server);
    client.send(b"bye", Delivery::Reliable).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    while client.is_open() && Instant::now() < end {
        client.poll(Duration::from_millis(10)).unwrap();
    }
    assert!(!client.is_open(), "the server closes the socket");
    assert!(client.machine().is_closed());
    server.wait_for(Duration::from_secs(2), "the socket counted closed", |s| {
        s.stats.websocket.closed_by_server == 1
    });
}

/// Another socket sends `message` beside a player: returns the server, and the code and
/// reason that socket was closed with, once the player has had an echo (`delivery`) after it.
fn closed_beside_a_player(message: Message, delivery: Delivery) -> (EchoServer, CloseCode, String) {
    let server = EchoServer::start();
    let mut player = connect(&server);
    let (code, reason) = close_after(&server, message);
    echo(&mut player, b"still playing", delivery);
    (server, code, reason)
}

#[test]
fn an_oversize_message_closes_that_socket_only() {
    let oversize = vec![0u8; MAX_WEBSOCKET_MESSAGE + 1];
    let (server, code, reason) =
        closed_beside_a_player(Message::Binary(oversize.into()), Delivery::Reliable);
    assert_eq!(code, CloseCode::Size);
    assert!(reason.contains("1472"), "{reason}");
    server.wait_for(Duration::from_secs(2), "the socket counted", |s| {
        s.stats.websocket.closed_too_large == 1
    });
}

#[test]
fn a_text_message_closes_that_socket_with_1003() {
    let text = Message::Text("{\"hello\":1}".into());
    let (_server, code, reason) = closed_beside_a_player(text, Delivery::Unreliable);
    assert_eq!(code, CloseCode::Unsupported);
    assert_eq!(reason, "hopnet takes binary messages only");
}

#[test]
fn a_largest_datagram_is_taken() {
    // 1,472 bytes is what hopnet's configuration allows as its largest datagram, no more.
    assert!(
        hopnet::Config::builder()
            .max_datagram_size(MAX_WEBSOCKET_MESSAGE)
            .build()
            .is_ok()
    );
    assert!(
        hopnet::Config::builder()
            .max_datagram_size(MAX_WEBSOCKET_MESSAGE + 1)
            .build()
            .is_err()
    );
    let server = EchoServer::start();
    // Not hopnet's: the endpoint drops it, and the socket stays open.
    let largest = Message::Binary(vec![0xff; MAX_WEBSOCKET_MESSAGE].into());
    raw_socket(&server, largest, async |ws| {
        let next = tokio::time::timeout(Duration::from_millis(500), ws.next()).await;
        assert!(next.is_err(), "nothing comes back: {next:?}");
    });
    server.wait_for(Duration::from_secs(2), "the message handed over", |s| {
        s.stats.websocket.datagrams_received == 1 && s.stats.websocket.closed_too_large == 0
    });
}

#[test]
fn upgrades_never_finished_are_dropped_and_the_players_play_on() {
    let server = EchoServer::start_with(|web| web.handshake_timeout = Duration::from_millis(800));
    let mut player = connect(&server);
    // 100 connections that start an upgrade and never finish its head: the site holds 64 at
    // most, drops the others at once, and those it holds after the head timeout.
    let mut flood: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut s = TcpStream::connect(server.site).unwrap();
            s.write_all(b"GET /hopnet HTTP/1.1\r\nUpgrade: websocket\r\n")
                .unwrap();
            s
        })
        .collect();
    for i in 0..20 {
        echo(
            &mut player,
            format!("tick {i}").as_bytes(),
            Delivery::Unreliable,
        );
    }
    std::thread::sleep(Duration::from_millis(1000));
    for s in &mut flood {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0; 64];
        // Closed: the end of the stream, or a reset for a connection never read.
        let read = s.read(&mut buf);
        assert!(
            matches!(&read, Ok(0))
                || read
                    .as_ref()
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
            "{read:?}"
        );
    }
    // The site takes upgrades again, and the player never stopped.
    let mut late = connect(&server);
    echo(&mut late, b"late", Delivery::Reliable);
    echo(&mut player, b"still here", Delivery::Reliable);
}

#[test]
fn a_socket_that_never_runs_hopnet_is_closed() {
    let server =
        EchoServer::start_with(|web| web.unused_session_timeout = Duration::from_millis(300));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let frame = runtime.block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(server.websocket_url())
            .await
            .unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), ws.next()).await;
        match next {
            Ok(Some(Ok(Message::Close(frame)))) => frame,
            other => panic!("expected a close frame, got {other:?}"),
        }
    });
    let frame = frame.expect("with a code");
    assert_eq!(frame.code, CloseCode::Normal);
    assert_eq!(frame.reason, "hopnet connection ended");
}

#[test]
fn a_bad_upgrade_gets_a_clear_status() {
    let server = EchoServer::start();
    let ask = |request: &str| {
        let mut s = TcpStream::connect(server.site).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    };
    let plain = ask("GET /hopnet HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(plain.starts_with("HTTP/1.1 426 "), "{plain}");
    assert!(plain.contains("Upgrade: websocket"), "{plain}");
    let old = ask(
        "GET /hopnet HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    );
    assert!(old.starts_with("HTTP/1.1 400 "), "{old}");
    assert!(old.ends_with("Sec-WebSocket-Version must be 13"), "{old}");
    server.wait_for(Duration::from_secs(2), "both counted", |s| {
        s.stats.websocket.refused_bad == 2
    });
}

#[test]
fn upgrades_beyond_the_limit_are_refused_with_503() {
    let server = EchoServer::start_with(|web| web.max_websockets = 1);
    let mut player = connect(&server);
    let refused = WebSocketClient::connect(&server.websocket_url(), hopnet::Config::default())
        .expect_err("a second socket is refused");
    assert!(refused.to_string().contains("503"), "{refused}");
    echo(&mut player, b"still playing", Delivery::Reliable);
    server.wait_for(Duration::from_secs(2), "the refusal counted", |s| {
        s.stats.websocket.refused_full == 1
    });
}
