//! Server queries on the browsers' server ([`WebServer`]): the game's host is the same on every
//! carrier, so the WebTransport one answers them as the UDP one does, on the game's UDP port
//! (through the carrier's side channel) or on a port of their own.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::source_query::{
    Challenge, ChallengeNumber, INFO_PAYLOAD, InfoRequest, InfoResponse,
};
use hopnet_webtransport::{Certificate, WebTransportConfig};
use snow_fight::net::{AnswerQueries, GAME, Listing};
use snow_fight::session::{GameServer, ServerConfig};
use snow_fight::web::WebServer;

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn info_request(challenge: Option<i32>) -> Vec<u8> {
    to_bytes(&InfoRequest {
        payload: INFO_PAYLOAD.into(),
        challenge: challenge.map(ChallengeNumber).into_iter().collect(),
    })
    .unwrap()
}

/// Sends `request` to `to` and waits for the answer.
fn ask(socket: &UdpSocket, to: SocketAddr, request: &[u8]) -> Vec<u8> {
    socket
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    socket.send_to(request, to).unwrap();
    let mut buf = [0u8; 2048];
    let (n, from) = socket.recv_from(&mut buf).expect("an answer");
    assert_eq!(from, to, "the answer comes from where the query went");
    buf[..n].to_vec()
}

/// A web server answering queries (on a port of their own if `query_port`), asked for its
/// info with the challenge exchange.
fn info_from_a_web_server(query_port: bool) -> (InfoResponse, SocketAddr, SocketAddr) {
    let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
    let web = WebTransportConfig::new(loopback(), certificate);
    let game = GameServer::new(ServerConfig::default());
    let mut server = WebServer::bind(loopback(), web, hopnet::Config::default(), game, 60).unwrap();
    let listing = Listing {
        name: "Web Yard".into(),
        map: "yard".into(),
    };
    if query_port {
        let socket = UdpSocket::bind(loopback()).unwrap();
        server.answer_queries_on(socket, listing).unwrap();
    } else {
        server.answer_queries(listing).unwrap();
    }
    let game_addr = server.local_addr().unwrap();
    let query_addr = server.query_addr().expect("answering queries");
    let stop = Arc::new(AtomicBool::new(false));
    let running = {
        let stop = stop.clone();
        thread::spawn(move || server.run(|_| stop.load(Ordering::Relaxed)).unwrap())
    };
    let socket = UdpSocket::bind(loopback()).unwrap();
    let Challenge { challenge } =
        from_bytes(&ask(&socket, query_addr, &info_request(None))).expect("a challenge");
    let info = from_bytes(&ask(&socket, query_addr, &info_request(Some(challenge))))
        .expect("A2S_INFO's answer");
    stop.store(true, Ordering::Relaxed);
    running.join().unwrap();
    (info, game_addr, query_addr)
}

#[test]
fn a_web_server_answers_queries_on_the_game_s_port() {
    let (info, game_addr, query_addr) = info_from_a_web_server(false);
    assert_eq!(query_addr, game_addr);
    assert_eq!(
        (info.name.as_str(), info.map.as_str()),
        ("Web Yard", "yard")
    );
    assert_eq!(info.game, GAME);
}

#[test]
fn a_web_server_answers_queries_on_a_port_of_their_own() {
    let (info, game_addr, query_addr) = info_from_a_web_server(true);
    assert_ne!(query_addr.port(), game_addr.port());
    assert_eq!(
        (info.name.as_str(), info.map.as_str()),
        ("Web Yard", "yard")
    );
}
