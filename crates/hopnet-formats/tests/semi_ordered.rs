//! Semi-ordered UDP: the seed's two examples, byte for byte, and what the format refuses.

mod common;

use hopnet_codec::Error;
use hopnet_formats::semi_ordered::{Datagram, MAX_PAYLOAD, PackageId, Reliability};

#[test]
fn the_package_example() {
    // "a semi-reliable package with ID 107907, targeted to the server and containing the
    // payload bytes 0x12 0x34 0x56"
    let package = Datagram::Package {
        reliability: Reliability::SemiOrdered,
        server_targeted: true,
        id: 107_907,
        payload: vec![0x12, 0x34, 0x56],
    };
    let bytes = [0x50, 0x01, 0xa5, 0x83, 0x12, 0x34, 0x56];
    common::both_ways(&package, &bytes);
}

#[test]
fn the_confirmation_example() {
    // "A datagram confirming three packages with IDs 1238, 17, and 2443"
    let confirmation = Datagram::Confirmation {
        ids: vec![PackageId(1238), PackageId(17), PackageId(2443)],
    };
    let bytes = [
        0x80, 0x00, 0x00, 0x00, 0x00, 0x04, 0xd6, 0x00, 0x00, 0x11, 0x00, 0x09, 0x8b,
    ];
    common::both_ways(&confirmation, &bytes);
}

#[test]
fn each_flag_has_its_bit() {
    let flags = |reliability, server_targeted| {
        let d = Datagram::Package {
            reliability,
            server_targeted,
            id: 0,
            payload: vec![],
        };
        hopnet_codec::to_bytes(&d).unwrap()[0]
    };
    assert_eq!(flags(Reliability::Unreliable, false), 0b0000_0000);
    assert_eq!(flags(Reliability::Unordered, false), 0b0010_0000);
    assert_eq!(flags(Reliability::SemiOrdered, false), 0b0100_0000);
    assert_eq!(flags(Reliability::Unreliable, true), 0b0001_0000);
    // The largest id fills the three bytes.
    let d = Datagram::Package {
        reliability: Reliability::Unreliable,
        server_targeted: false,
        id: 0xff_ffff,
        payload: vec![],
    };
    assert_eq!(hopnet_codec::to_bytes(&d).unwrap(), [0, 0xff, 0xff, 0xff]);
}

#[test]
fn what_the_format_refuses() {
    // The reliability bits 11 name no mode.
    let err = hopnet_codec::from_bytes::<Datagram>(&[0b0110_0000, 0, 0, 1]).unwrap_err();
    assert!(matches!(err.root(), Error::UnknownVariant { .. }), "{err}");
    // The four unused bits of a package's flags, and a confirmation's other header bits, are 0.
    for bytes in [[0b0000_0001, 0, 0, 1], [0x80, 0, 1, 0], [0x81, 0, 0, 0]] {
        let err = hopnet_codec::from_bytes::<Datagram>(&bytes).unwrap_err();
        assert!(
            matches!(err.root(), Error::Constant { .. }),
            "{bytes:?}: {err}"
        );
    }
    // An id wider than three bytes does not encode.
    let d = Datagram::Package {
        reliability: Reliability::Unreliable,
        server_targeted: false,
        id: 1 << 24,
        payload: vec![],
    };
    assert!(hopnet_codec::to_bytes(&d).is_err());
    // Nor does a payload over 504 bytes, and one does not decode.
    let long = Datagram::Package {
        reliability: Reliability::Unreliable,
        server_targeted: false,
        id: 1,
        payload: vec![0; MAX_PAYLOAD + 1],
    };
    assert!(hopnet_codec::to_bytes(&long).is_err());
    let mut bytes = vec![0, 0, 0, 1];
    bytes.extend(vec![7; MAX_PAYLOAD + 1]);
    assert!(matches!(
        hopnet_codec::from_bytes::<Datagram>(&bytes)
            .unwrap_err()
            .root(),
        Error::TooLong { .. }
    ));
    // A confirmation's ids are whole: two bytes left over are an error.
    assert!(hopnet_codec::from_bytes::<Datagram>(&[0x80, 0, 0, 0, 0, 0, 1, 0, 0]).is_err());
}
