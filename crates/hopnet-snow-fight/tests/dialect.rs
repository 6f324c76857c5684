//! The two encodings of `ClientMessage` (`Dialect`), and the claims PROTOCOL.md makes about
//! telling them apart ("The original implementation"): each claim is checked here against the
//! decoders themselves, exhaustively where the space is small and by property tests where not.

use hopnet_snow_fight::*;
use proptest::prelude::*;

/// The bits of `bytes` in stream order: the first pushed bit (byte 0's least significant) first.
fn bits(bytes: &[u8]) -> Vec<bool> {
    bytes
        .iter()
        .flat_map(|b| (0..8).map(move |i| b >> i & 1 == 1))
        .collect()
}

fn request(channel: u32, init: bool) -> ClientMessage {
    ClientMessage::Request(Request {
        channel: ChannelId(channel),
        kind: if init {
            RequestKind::Init
        } else {
            RequestKind::Ping
        },
    })
}

/// PROTOCOL.md's analysis of an original-dialect `Request` read by a spec decoder: it is a
/// valid spec message exactly when its channel `c` has `2^16 <= c < 2^24` (a 3-byte channel),
/// `c & 0xfff == 0x600`, and the value that the spec reads as an entity id, `c >> 12` with the
/// kind bit (`Init` = 1) above it, needs two bytes (is at least 256). Then it reads as
/// `Action::Break(Some(that entity))`; every other original request is no spec message.
fn misread_as(channel: u32, init: bool) -> Option<ClientMessage> {
    let entity = channel >> 12 | u32::from(init) << 12;
    let three_bytes = (1 << 16..1 << 24).contains(&channel);
    (three_bytes && channel & 0xfff == 0x600 && entity >= 256).then_some(ClientMessage::Action(
        Action::Break(Break {
            entity: Some(EntityId(entity)),
        }),
    ))
}

/// Checks one original-dialect request against [`misread_as`], and that detection then gives
/// what the analysis says.
fn check_original_request(channel: u32, init: bool, buf: &mut Vec<u8>) {
    let message = request(channel, init);
    buf.clear();
    Dialect::Original.encode_into(&message, buf).unwrap();
    let as_spec = Dialect::Spec.from_bytes(buf).ok();
    assert_eq!(
        as_spec,
        misread_as(channel, init),
        "channel {channel}, Init {init}"
    );
    let detected = Dialect::detect(buf).unwrap();
    match as_spec {
        None => assert_eq!(detected, (Dialect::Original, message)),
        Some(wrong) => assert_eq!(detected, (Dialect::Spec, wrong)),
    }
}

#[test]
fn the_original_clients_first_message_is_recognised() {
    // Its Init, on channel 0 (its channels count from 0 and Init is its first request).
    let init = request(0, true);
    let bytes = Dialect::Original.to_bytes(&init).unwrap();
    assert_eq!(bytes, [0x00, 0x08]);
    assert!(Dialect::Spec.from_bytes(&bytes).is_err());
    assert_eq!(Dialect::detect(&bytes), Ok((Dialect::Original, init)));
}

/// Payloads of the original client, taken from a capture of it playing against the original
/// server (the bodies of its first three reliable chunks): its `Init` on channel 0, then
/// "stop walking" and "stop breaking". None is a spec message; each is an original one.
#[test]
fn captured_original_client_payloads_decode_in_the_original_dialect() {
    let captured: [(&[u8], ClientMessage); 3] = [
        (&[0x00, 0x08], request(0, true)),
        (
            &[0x05, 0x00],
            ClientMessage::Action(Action::Move(Move {
                direction: Direction::empty(),
            })),
        ),
        (
            &[0x01],
            ClientMessage::Action(Action::Break(Break { entity: None })),
        ),
    ];
    for (bytes, message) in captured {
        assert!(Dialect::Spec.from_bytes(bytes).is_err(), "{bytes:02x?}");
        assert_eq!(
            Dialect::detect(bytes),
            Ok((Dialect::Original, message.clone()))
        );
        assert_eq!(Dialect::Original.to_bytes(&message).unwrap(), bytes);
    }
}

/// Every channel below 2^20, both kinds: the analysis holds, and in particular no original
/// request on a channel below 65,536 is a spec message.
#[test]
fn original_requests_on_channels_below_2_20_match_the_analysis() {
    let mut buf = Vec::new();
    for channel in 0..1 << 20 {
        check_original_request(channel, false, &mut buf);
        check_original_request(channel, true, &mut buf);
    }
    assert!((0..1 << 16).all(|c| misread_as(c, false).is_none() && misread_as(c, true).is_none()));
}

/// Every channel of the pattern the analysis names, up to 2^24, and its neighbours in each of
/// the 12 low bits.
#[test]
fn original_requests_near_the_misread_pattern_match_the_analysis() {
    let mut buf = Vec::new();
    let mut misread = 0;
    for high in 0..1 << 12 {
        let channel = high << 12 | 0x600;
        for flip in std::iter::once(0).chain((0..12).map(|bit| 1 << bit)) {
            for init in [false, true] {
                check_original_request(channel ^ flip, init, &mut buf);
                misread += usize::from(misread_as(channel ^ flip, init).is_some());
            }
        }
    }
    // Init: 2^12 - 2^4 channels (the 3-byte ones); Ping: 2^12 - 2^8 (an entity id of 256+).
    assert_eq!(misread, (4096 - 16) + (4096 - 256));
    assert_eq!(
        misread_as(67_072, true),
        Some(ClientMessage::Action(Action::Break(Break {
            entity: Some(EntityId(4112))
        })))
    );
}

#[test]
fn unknown_bytes_are_no_client_message_in_either_dialect() {
    for bytes in [&[][..], &[0xff; 6], &[0x02], &[0x00, 0x08, 0x00]] {
        let err = Dialect::detect(bytes).unwrap_err();
        let DetectError::Neither { spec, original } = &err;
        assert_eq!(Dialect::Spec.from_bytes(bytes).unwrap_err(), *spec);
        assert_eq!(Dialect::Original.from_bytes(bytes).unwrap_err(), *original);
        assert!(err.to_string().contains("original"), "{err}");
    }
}

#[test]
fn dialect_names_parse_and_print() {
    for dialect in Dialect::ALL {
        assert_eq!(dialect.to_string().parse::<Dialect>(), Ok(dialect));
    }
    assert_eq!(Dialect::default(), Dialect::Spec);
    assert_eq!("original".parse(), Ok(Dialect::Original));
    let err = "Original".parse::<Dialect>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown dialect `Original` (known: spec, original)"
    );
}

fn float() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("comparable", |f| !f.is_nan())
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        proptest::option::of(any::<u32>()).prop_map(|e| Action::Break(Break {
            entity: e.map(EntityId)
        })),
        (float(), float(), float()).prop_map(|(x, y, z)| Action::Throw(Throw {
            target: Point::new(x, y, z)
        })),
        any::<u8>().prop_map(|d| Action::Move(Move {
            direction: Direction::from_bits_retain(d)
        })),
    ]
}

fn client_message() -> impl Strategy<Value = ClientMessage> {
    prop_oneof![
        (any::<u32>(), any::<bool>()).prop_map(|(c, init)| request(c, init)),
        action().prop_map(ClientMessage::Action),
    ]
}

/// Every direction, and breaking no entity or any entity below 2^16: not one original action is
/// a spec message (the analysis: its first bit, 1, makes the spec's tag 2 or 4 bytes long).
#[test]
fn original_actions_are_never_spec_messages_exhaustive() {
    let moves = (0..=255u8).map(|d| {
        Action::Move(Move {
            direction: Direction::from_bits_retain(d),
        })
    });
    let breaks = std::iter::once(None)
        .chain((0..1u32 << 16).map(Some))
        .map(|e| {
            Action::Break(Break {
                entity: e.map(EntityId),
            })
        });
    for action in moves.chain(breaks) {
        let message = ClientMessage::Action(action);
        let bytes = Dialect::Original.to_bytes(&message).unwrap();
        assert!(Dialect::Spec.from_bytes(&bytes).is_err(), "{action:?}");
        assert_eq!(Dialect::detect(&bytes), Ok((Dialect::Original, message)));
    }
}

proptest! {
    /// The dialects differ in the tag and nowhere else: the original's bits after its 1-bit tag
    /// are the spec's after its 10-bit one (`00`, then the index in one byte).
    #[test]
    fn the_tag_is_the_only_difference(message in client_message()) {
        let spec = bits(&Dialect::Spec.to_bytes(&message).unwrap());
        let original = bits(&Dialect::Original.to_bytes(&message).unwrap());
        let index = matches!(message, ClientMessage::Action(_));
        let body_bits = hopnet_codec::Encode::encoded_bits(&message) as usize - 10;
        prop_assert_eq!(original[0], index);
        prop_assert_eq!(&spec[..10], &[false, false, index, false, false, false, false, false, false, false][..]);
        prop_assert_eq!(&original[1..1 + body_bits], &spec[10..10 + body_bits]);
        prop_assert!(original[1 + body_bits..].iter().all(|b| !b), "zero padding");
    }

    /// `TryFrom` and `From` lose nothing, and each dialect decodes its own encoding back.
    #[test]
    fn conversions_and_round_trips_are_lossless(message in client_message()) {
        let original = original::ClientMessage::try_from(&message).unwrap();
        prop_assert_eq!(original::ClientMessage::try_from(message.clone()).unwrap(), original);
        prop_assert_eq!(ClientMessage::from(original), message.clone());
        for dialect in Dialect::ALL {
            let bytes = dialect.to_bytes(&message).unwrap();
            prop_assert_eq!(dialect.from_bytes(&bytes).unwrap(), message.clone());
        }
        prop_assert_eq!(
            Dialect::Original.to_bytes(&message).unwrap(),
            hopnet_codec::to_bytes(&original).unwrap()
        );
    }

    /// The spec dialect is tried first, so a spec message is never taken for an original one.
    #[test]
    fn spec_messages_are_never_misread(message in client_message()) {
        let bytes = Dialect::Spec.to_bytes(&message).unwrap();
        prop_assert_eq!(Dialect::detect(&bytes), Ok((Dialect::Spec, message)));
    }

    #[test]
    fn original_actions_are_never_spec_messages(action in action()) {
        let message = ClientMessage::Action(action);
        let bytes = Dialect::Original.to_bytes(&message).unwrap();
        prop_assert!(Dialect::Spec.from_bytes(&bytes).is_err());
        prop_assert_eq!(Dialect::detect(&bytes), Ok((Dialect::Original, message)));
    }

    /// Any channel, up to `u32::MAX`: the analysis holds (beyond 2^24 nothing is misread).
    #[test]
    fn original_requests_on_any_channel_match_the_analysis(channel in any::<u32>(), init in any::<bool>()) {
        check_original_request(channel, init, &mut Vec::new());
    }

    #[test]
    fn random_bytes_never_panic_detection(bytes in proptest::collection::vec(any::<u8>(), 0..32)) {
        match Dialect::detect(&bytes) {
            Ok((Dialect::Spec, m)) => prop_assert_eq!(Dialect::Spec.from_bytes(&bytes).unwrap(), m),
            Ok((Dialect::Original, m)) => {
                prop_assert!(Dialect::Spec.from_bytes(&bytes).is_err());
                prop_assert_eq!(Dialect::Original.from_bytes(&bytes).unwrap(), m);
            }
            Err(_) => {
                prop_assert!(Dialect::Spec.from_bytes(&bytes).is_err());
                prop_assert!(Dialect::Original.from_bytes(&bytes).is_err());
            }
        }
    }
}
