//! WOKE: the 12-byte header, the three command forms, little-endian (this crate's choice; see
//! the module documentation).

mod common;

use hopnet_codec::Error;
use hopnet_codec::layout::Computed;
use hopnet_formats::woke::{Command, Delivery, Header, Packet};

fn header() -> Header {
    Header {
        client_id: 0x0102,
        sequence: 0x0304,
        ack: 0x0506,
        ack_bitfield: 0x0708_090a,
    }
}

/// The header's 12 bytes for a packet of type `kind`.
fn header_bytes(kind: u8) -> Vec<u8> {
    let mut b = vec![0x57, kind];
    b.extend(0x0102u16.to_le_bytes());
    b.extend(0x0304u16.to_le_bytes());
    b.extend(0x0506u16.to_le_bytes());
    b.extend(0x0708_090au32.to_le_bytes());
    b
}

fn command(kind: u16, delivery: Delivery, data: &[u8]) -> Command {
    Command {
        kind,
        delivery,
        data_size: Computed::new(),
        data: data.to_vec(),
    }
}

#[test]
fn a_keep_alive_is_the_header_alone() {
    let packet = Packet::KeepAlive { header: header() };
    let bytes = header_bytes(3);
    assert_eq!(bytes.len(), 12);
    common::both_ways(&packet, &bytes);
    let closed = Packet::ConnectionClosed { header: header() };
    assert_eq!(hopnet_codec::to_bytes(&closed).unwrap(), header_bytes(1));
}

#[test]
fn the_three_command_forms() {
    let packet = Packet::Commands {
        header: header(),
        commands: vec![
            command(0x3ff, Delivery::Unreliable, &[0xaa]),
            command(
                5,
                Delivery::Reliable {
                    reliable_id: 0x1234,
                },
                &[],
            ),
            command(
                6,
                Delivery::Split {
                    reliable_id: 1,
                    split_id: 2,
                    split_index: 3,
                    split_count: 4,
                },
                &[1, 2, 3],
            ),
        ],
    };
    let mut bytes = header_bytes(2);
    // command_type: the type in the low 10 bits, flags 00; data_size 1; the data.
    bytes.extend(0x03ffu16.to_le_bytes());
    bytes.extend(1u16.to_le_bytes());
    bytes.push(0xaa);
    // Flags 10: bit 15, then reliable_id; no data.
    bytes.extend((5u16 | 0b10 << 14).to_le_bytes());
    bytes.extend(0x1234u16.to_le_bytes());
    bytes.extend(0u16.to_le_bytes());
    // Flags 11: bits 15 and 14, then the four ids, then three bytes of data.
    bytes.extend((6u16 | 0b11 << 14).to_le_bytes());
    for id in [1u16, 2, 3, 4] {
        bytes.extend(id.to_le_bytes());
    }
    bytes.extend(3u16.to_le_bytes());
    bytes.extend([1, 2, 3]);
    common::both_ways(&packet, &bytes);
}

#[test]
fn a_connection_request_carries_its_payload() {
    let packet = Packet::ConnectionRequest {
        header: header(),
        payload: b"token".to_vec(),
    };
    let mut bytes = header_bytes(0);
    bytes.extend(b"token");
    common::both_ways(&packet, &bytes);
}

#[test]
fn what_the_format_refuses() {
    // Another magic byte.
    let mut bytes = header_bytes(3);
    bytes[0] = 0x58;
    assert!(matches!(
        hopnet_codec::from_bytes::<Packet>(&bytes)
            .unwrap_err()
            .root(),
        Error::Constant {
            expected: 0x57,
            found: 0x58,
            ..
        }
    ));
    // An unknown packet type.
    assert!(hopnet_codec::from_bytes::<Packet>(&header_bytes(4)).is_err());
    // A header cut short; something after a keep-alive.
    assert!(hopnet_codec::from_bytes::<Packet>(&header_bytes(3)[..11]).is_err());
    let mut bytes = header_bytes(3);
    bytes.push(0);
    assert!(hopnet_codec::from_bytes::<Packet>(&bytes).is_err());
    // A split command that is not reliable (flags 01), and reserved flag bits set.
    for command_type in [7u16 | 0b01 << 14, 7 | 1 << 10] {
        let mut bytes = header_bytes(2);
        bytes.extend(command_type.to_le_bytes());
        bytes.extend(0u16.to_le_bytes());
        assert!(
            hopnet_codec::from_bytes::<Packet>(&bytes).is_err(),
            "{command_type:#x}"
        );
    }
    // A type wider than 10 bits does not encode.
    let packet = Packet::Commands {
        header: header(),
        commands: vec![command(0x400, Delivery::Unreliable, &[])],
    };
    assert!(hopnet_codec::to_bytes(&packet).is_err());
    // data_size past the end.
    let mut bytes = header_bytes(2);
    bytes.extend(1u16.to_le_bytes());
    bytes.extend(9u16.to_le_bytes());
    bytes.extend([0; 4]);
    assert!(hopnet_codec::from_bytes::<Packet>(&bytes).is_err());
}
