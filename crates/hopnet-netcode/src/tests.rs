//! Known answers from the reference C implementation (`tests/vectors/netcode/`, with
//! its licence notice): every layout and seal of the standard, checked byte for byte both ways.

use std::net::SocketAddr;
use std::path::PathBuf;

use super::challenge_token::ChallengeToken;
use super::connect_token::ConnectToken;
use super::key::Key;
use super::packet::{
    Packet, Receiver, append_packet, open_packet, read_header, read_request, write_request,
};
use super::packet_key::PacketKey;
use super::private_token::{PrivateSeal, PrivateToken};
use super::replay::ReplayWindow;
use super::{MAX_PAYLOAD_BYTES, UserData};

/// A loopback address with this port: the unit tests' peers.
pub(crate) fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

const PROTOCOL_ID: u64 = 0x1122_3344_5566_7788;
const CLIENT_ID: u64 = 0x0102_0304_0506_0708;
const TIMEOUT_SECONDS: i32 = 15;
const CREATE: u64 = 1_720_000_000;
const EXPIRE: u64 = 1_720_000_100;
const CHALLENGE_SEQUENCE: u64 = 1000;
const PACKET_SEQUENCE: u64 = 0x11_2233_4455;

/// The private key of the reference's examples.
const PRIVATE_KEY: [u8; 32] = [
    0x60, 0x6a, 0xbe, 0x6e, 0xc9, 0x19, 0x10, 0xea, 0x9a, 0x65, 0x62, 0xf6, 0x6f, 0x2b, 0x30, 0xe4,
    0x43, 0x71, 0xd6, 0x2c, 0xd1, 0x99, 0x27, 0x26, 0x6b, 0x3c, 0x60, 0xf4, 0xb7, 0x15, 0xab, 0xa1,
];

fn vector(name: &str) -> Vec<u8> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "vectors",
        "netcode",
        name,
    ]
    .iter()
    .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixed<const N: usize>(name: &str) -> [u8; N] {
    vector(name)
        .try_into()
        .unwrap_or_else(|_| panic!("{name} is not {N} bytes"))
}

fn key_from(f: impl Fn(usize) -> usize) -> Key {
    Key::from_bytes(std::array::from_fn(|i| f(i) as u8))
}

fn user_data() -> UserData {
    std::array::from_fn(|i| i as u8)
}

fn nonce() -> [u8; 24] {
    std::array::from_fn(|i| (100 + i) as u8)
}

fn servers() -> Vec<SocketAddr> {
    vec![
        "127.0.0.1:40000".parse().unwrap(),
        "[::1]:50000".parse().unwrap(),
    ]
}

fn private_token() -> PrivateToken {
    PrivateToken {
        client_id: CLIENT_ID,
        timeout_seconds: TIMEOUT_SECONDS,
        server_addresses: servers(),
        client_to_server_key: key_from(|i| i),
        server_to_client_key: key_from(|i| 255 - i),
        user_data: user_data(),
    }
}

fn connect_token() -> ConnectToken {
    ConnectToken {
        protocol_id: PROTOCOL_ID,
        create_timestamp: CREATE,
        expire_timestamp: EXPIRE,
        nonce: nonce(),
        private_data: Box::new(fixed("private_connect_token_encrypted.bin")),
        timeout_seconds: TIMEOUT_SECONDS,
        server_addresses: servers(),
        client_to_server_key: key_from(|i| i),
        server_to_client_key: key_from(|i| 255 - i),
    }
}

#[test]
fn private_token_layout_matches_the_reference() {
    assert_eq!(
        private_token().write().unwrap(),
        fixed::<1024>("private_connect_token_plaintext.bin")
    );
    let read = PrivateToken::read(&fixed("private_connect_token_plaintext.bin")).unwrap();
    assert_eq!(read, private_token());
}

#[test]
fn private_token_seal_matches_the_reference_both_ways() {
    let key = Key::from_bytes(PRIVATE_KEY);
    let nonce = nonce();
    let seal = |protocol_id, expire_timestamp| PrivateSeal {
        protocol_id,
        expire_timestamp,
        nonce: &nonce,
        private_key: &key,
    };
    let mut buf = fixed("private_connect_token_plaintext.bin");
    seal(PROTOCOL_ID, EXPIRE).seal(&mut buf).unwrap();
    assert_eq!(buf, fixed::<1024>("private_connect_token_encrypted.bin"));

    let mut buf = fixed("private_connect_token_encrypted.bin");
    seal(PROTOCOL_ID, EXPIRE).open(&mut buf).unwrap();
    assert_eq!(PrivateToken::read(&buf).unwrap(), private_token());

    // The associated data binds the protocol id and the expiry.
    for (protocol_id, expire) in [(PROTOCOL_ID + 1, EXPIRE), (PROTOCOL_ID, EXPIRE + 1)] {
        let mut buf = fixed("private_connect_token_encrypted.bin");
        assert!(seal(protocol_id, expire).open(&mut buf).is_err());
    }
}

#[test]
fn connect_token_matches_the_reference_both_ways() {
    assert_eq!(
        connect_token().to_bytes().unwrap(),
        fixed::<2048>("connect_token.bin")
    );
    assert_eq!(
        ConnectToken::from_bytes(&vector("connect_token.bin")).unwrap(),
        connect_token()
    );
}

#[test]
fn challenge_token_matches_the_reference_both_ways() {
    let key = PacketKey::new(&key_from(|i| 2 * i));
    let token = ChallengeToken {
        client_id: CLIENT_ID,
        user_data: user_data(),
    };
    let sealed = token.seal(CHALLENGE_SEQUENCE, &key).unwrap();
    assert_eq!(sealed, fixed::<300>("challenge_token_encrypted.bin"));
    assert_eq!(
        ChallengeToken::open(&sealed, CHALLENGE_SEQUENCE, &key).unwrap(),
        token
    );
    assert!(ChallengeToken::open(&sealed, CHALLENGE_SEQUENCE + 1, &key).is_err());
}

/// Writes `packet` as the reference did and compares; reads the reference's bytes back.
fn check_packet(packet: Packet<'_>, name: &str, receiver: Receiver) {
    let key = PacketKey::new(&key_from(|i| i + 17));
    let expected = vector(name);
    let mut out = Vec::new();
    append_packet(&packet, PACKET_SEQUENCE, &key, PROTOCOL_ID, &mut out).unwrap();
    assert_eq!(
        out, expected,
        "{name}: our bytes differ from the reference's"
    );

    let header = read_header(&expected, receiver).unwrap();
    assert_eq!(header.sequence, PACKET_SEQUENCE);
    let mut buf = expected.clone();
    let mut window = ReplayWindow::default();
    let read = open_packet(&mut buf, &header, &key, PROTOCOL_ID, Some(&mut window)).unwrap();
    assert_eq!(read, packet, "{name}: read back differently");
}

#[test]
fn every_encrypted_packet_matches_the_reference_both_ways() {
    let challenge = fixed("challenge_token_encrypted.bin");
    let payload: Vec<u8> = (0..MAX_PAYLOAD_BYTES).map(|i| i as u8).collect();
    check_packet(Packet::Denied, "packet_denied.bin", Receiver::Client);
    check_packet(
        Packet::Challenge {
            token_sequence: CHALLENGE_SEQUENCE,
            token: challenge,
        },
        "packet_challenge.bin",
        Receiver::Client,
    );
    check_packet(
        Packet::Response {
            token_sequence: CHALLENGE_SEQUENCE,
            token: challenge,
        },
        "packet_response.bin",
        Receiver::Server,
    );
    check_packet(
        Packet::KeepAlive {
            client_index: 7,
            max_clients: 32,
        },
        "packet_keep_alive.bin",
        Receiver::Client,
    );
    check_packet(
        Packet::Payload(&payload),
        "packet_payload.bin",
        Receiver::Client,
    );
    check_packet(
        Packet::Disconnect,
        "packet_disconnect.bin",
        Receiver::Server,
    );
}

#[test]
fn connection_request_matches_the_reference_both_ways() {
    let mut out = Vec::new();
    write_request(&connect_token(), &mut out);
    assert_eq!(out, vector("packet_request.bin"));

    let key = Key::from_bytes(PRIVATE_KEY);
    let request = read_request(&out, PROTOCOL_ID, CREATE, &key).unwrap();
    assert_eq!(request.token, private_token());
    assert_eq!(
        request.mac[..],
        vector("private_connect_token_encrypted.bin")[1008..]
    );
}
