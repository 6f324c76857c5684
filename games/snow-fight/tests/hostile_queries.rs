//! Server queries from hostile or careless senders, over real loopback sockets while bots play:
//! no answer to an unverified address is larger than its request, whatever the request kind;
//! random and truncated query datagrams and floods of challenges from many addresses get no
//! panic, cost no memory per address, and leave the game and honest queries working.

mod queries;

use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::source_query::{
    Challenge, ChallengeNumber, INFO_PAYLOAD, InfoRequest, InfoResponse, PlayerRequest,
    PlayerResponse, RulesRequest,
};
use queries::{Mode, Running, ask};
use snow_fight::rng::Rng;

const WAIT: Duration = Duration::from_secs(2);
/// How long a test waits for an answer that must not come.
const SILENCE: Duration = Duration::from_millis(50);

fn info_request(challenge: Option<i32>) -> Vec<u8> {
    to_bytes(&InfoRequest {
        payload: INFO_PAYLOAD.into(),
        challenge: challenge.map(ChallengeNumber).into_iter().collect(),
    })
    .unwrap()
}

/// Every request kind, with no challenge, the "send me one" challenge (-1), and wrong ones.
fn unverified_requests() -> Vec<Vec<u8>> {
    let mut requests = vec![info_request(None)];
    for challenge in [-1, 0, 1, 0x1234_5678] {
        requests.push(to_bytes(&PlayerRequest { challenge }).unwrap());
        requests.push(to_bytes(&RulesRequest { challenge }).unwrap());
        requests.push(info_request(Some(challenge)));
    }
    requests
}

/// The challenge the server gives `socket`'s address.
fn challenge(socket: &UdpSocket, to: SocketAddr) -> i32 {
    let answer = ask(socket, to, &info_request(None), WAIT).expect("a challenge");
    let Challenge { challenge } = from_bytes(&answer).expect("S2C_CHALLENGE");
    challenge
}

fn no_amplification(mode: Mode) {
    let running = Running::start(mode, 2);
    let to = running.query_addr;
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let real = challenge(&socket, to);
    for (i, request) in unverified_requests().into_iter().enumerate() {
        // The first of each kind truncated too: each prefix that still has a kind byte.
        let shortest = if i < 4 { 5 } else { request.len() };
        for len in shortest..=request.len() {
            let sent = &request[..len];
            // A socket of its own, so that no late answer to another request is taken for
            // this one's.
            let asker = UdpSocket::bind("127.0.0.1:0").unwrap();
            let whole = len == request.len();
            let answer = ask(&asker, to, sent, if whole { WAIT } else { SILENCE });
            if whole {
                assert!(answer.is_some(), "a whole request gets its challenge");
            }
            if let Some(answer) = answer {
                assert!(
                    answer.len() <= sent.len(),
                    "{} bytes answer {} bytes: {sent:02x?}",
                    answer.len(),
                    sent.len()
                );
                let _: Challenge = from_bytes(&answer).expect("only a challenge");
            }
        }
        // The same from the address whose challenge is known: the challenge it is, again.
        let answer = ask(&socket, to, &request, WAIT).expect("a challenge");
        let Challenge { challenge } = from_bytes(&answer).expect("only a challenge");
        assert_eq!(challenge, real);
        assert!(answer.len() <= request.len());
    }
    // The challenge answered, the answers are the full ones (and larger than the request).
    let request = info_request(Some(real));
    let answer = ask(&socket, to, &request, WAIT).unwrap();
    let info: InfoResponse = from_bytes(&answer).unwrap();
    assert_eq!(info.players, 2);
    assert!(answer.len() > request.len());
    // Another address's challenge is not this one's.
    let other = UdpSocket::bind("127.0.0.1:0").unwrap();
    let answer = ask(&other, to, &request, WAIT).unwrap();
    assert_eq!(answer.len(), 9, "a challenge, not the info");
    running.stop();
}

#[test]
fn no_answer_to_an_unverified_address_is_larger_than_its_request() {
    no_amplification(Mode::Plain);
}

#[test]
fn no_amplification_on_a_secure_server_either() {
    no_amplification(Mode::Secure);
}

#[test]
fn random_query_datagrams_and_challenge_floods_leave_the_game_and_queries_working() {
    let running = Running::start(Mode::Plain, 2);
    let to = running.game_addr;
    let mut rng = Rng::new(29);
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    // Random datagrams that start FF FF FF FF, of every length up to past a side channel's
    // limit, many with a request kind's byte after the prefix.
    for i in 0..3_000u32 {
        let len = 5 + rng.below(if i % 100 == 0 { 4_000 } else { 64 }) as usize;
        let mut datagram: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        datagram[..4].copy_from_slice(&[0xff; 4]);
        if i % 2 == 0 {
            datagram[4] = [b'T', b'U', b'V', b'W', b'A', b'i'][rng.below(6) as usize];
        }
        socket.send_to(&datagram, to).unwrap();
        if i % 100 == 99 {
            // Not so fast that the kernel's receive buffer drops most of them.
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    // A flood of challenge requests from many addresses (127.0.0.0/8 is loopback on Linux;
    // elsewhere, from many ports of 127.0.0.1).
    let flooders: Vec<UdpSocket> = (0..200u32)
        .map(|i| {
            let ip = [127, 0, (i / 250) as u8, (2 + i % 250) as u8];
            UdpSocket::bind((std::net::Ipv4Addr::from(ip), 0))
                .or_else(|_| UdpSocket::bind("127.0.0.1:0"))
                .unwrap()
        })
        .collect();
    for round in 0..5 {
        for (i, flooder) in flooders.iter().enumerate() {
            let request = match (round + i) % 3 {
                0 => info_request(None),
                1 => to_bytes(&PlayerRequest { challenge: -1 }).unwrap(),
                _ => to_bytes(&RulesRequest { challenge: -1 }).unwrap(),
            };
            flooder.send_to(&request, to).unwrap();
        }
    }
    // Honest queries still work, and the bots still play.
    std::thread::sleep(Duration::from_millis(200));
    let honest = UdpSocket::bind("127.0.0.1:0").unwrap();
    let real = (0..10)
        .find_map(|_| {
            let answer = ask(&honest, to, &info_request(None), WAIT)?;
            from_bytes::<Challenge>(&answer).ok()
        })
        .expect("a challenge after the flood")
        .challenge;
    let request = to_bytes(&PlayerRequest { challenge: real }).unwrap();
    let list: PlayerResponse = from_bytes(&ask(&honest, to, &request, WAIT).unwrap()).unwrap();
    assert_eq!(list.players.len(), 2);
    let mut server = running.stop();
    assert_eq!(server.game.players(), 2, "the bots stayed in the game");
    let side = server.server.side_channel().unwrap().stats();
    assert!(side.claimed >= 1_000, "{side:?}");
    assert_eq!(
        server.server.machine().server_stats().malformed,
        0,
        "no query datagram reached hopnet"
    );
}
