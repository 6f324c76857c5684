//! The Source engine's server queries: bytes written by hand after Valve's wiki, round trips of
//! random values, truncations, and random bytes.

mod common;

use hopnet_codec::layout::Computed;
use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::source_query::*;
use proptest::collection::vec;
use proptest::prelude::*;

/// A C string's bytes.
fn c(s: &str) -> Vec<u8> {
    let mut b = s.as_bytes().to_vec();
    b.push(0);
    b
}

fn info() -> InfoResponse {
    InfoResponse {
        protocol: 17,
        name: "Snow Fight".into(),
        map: "yard".into(),
        folder: "snow-fight".into(),
        game: "Snow Fight".into(),
        app_id: 0,
        players: 2,
        max_players: 16,
        bots: 1,
        server_type: b'd',
        environment: b'l',
        visibility: 0,
        vac: 0,
        version: "0.1.0".into(),
        extra_data: Computed::new(),
        port: Some(27015),
        steam_id: None,
        spectator: None,
        keywords: Some(CText("snow,fun".into())),
        game_id: None,
    }
}

#[test]
fn info_response_bytes() {
    let mut want = vec![0xff, 0xff, 0xff, 0xff, b'I', 17];
    for s in ["Snow Fight", "yard", "snow-fight", "Snow Fight"] {
        want.extend(c(s));
    }
    want.extend([0, 0, 2, 16, 1, b'd', b'l', 0, 0]);
    want.extend(c("0.1.0"));
    want.push(0x80 | 0x20);
    want.extend(27015u16.to_le_bytes());
    want.extend(c("snow,fun"));
    common::both_ways(&info(), &want);
}

#[test]
fn requests_and_challenge_bytes() {
    let first = InfoRequest {
        payload: INFO_PAYLOAD.into(),
        challenge: vec![],
    };
    let mut want = b"\xff\xff\xff\xffTSource Engine Query\0".to_vec();
    assert_eq!(to_bytes(&first).unwrap(), want);
    want.extend(0x1234_5678i32.to_le_bytes());
    let again = InfoRequest {
        challenge: vec![ChallengeNumber(0x1234_5678)],
        ..first
    };
    assert_eq!(
        from_bytes::<InfoRequest>(&want).map_err(|e| e.to_string()),
        Ok(again)
    );
    assert_eq!(
        to_bytes(&PlayerRequest { challenge: -1 }).unwrap(),
        b"\xff\xff\xff\xffU\xff\xff\xff\xff"
    );
    assert_eq!(
        from_bytes::<Challenge>(b"\xff\xff\xff\xffA\x01\x00\x00\x00").unwrap(),
        Challenge { challenge: 1 }
    );
    // The kind byte tells the types apart.
    assert!(from_bytes::<RulesRequest>(b"\xff\xff\xff\xffU\xff\xff\xff\xff").is_err());
}

#[test]
fn player_and_rules_counts_are_checked() {
    let players = PlayerResponse {
        count: Computed::new(),
        players: vec![Player {
            index: 0,
            name: "ann".into(),
            score: 3,
            duration: 1.5,
        }],
    };
    let mut want = b"\xff\xff\xff\xffD\x01\x00ann\0".to_vec();
    want.extend(3i32.to_le_bytes());
    want.extend(1.5f32.to_le_bytes());
    common::both_ways(&players, &want);
    want[5] = 2;
    assert!(from_bytes::<PlayerResponse>(&want).is_err());

    let rules = RulesResponse {
        count: Computed::new(),
        rules: vec![Rule {
            name: "mp_timelimit".into(),
            value: "20".into(),
        }],
    };
    let want = b"\xff\xff\xff\xffE\x01\x00mp_timelimit\x0020\x00";
    common::both_ways(&rules, want);
}

#[test]
fn split_header_bytes() {
    let part = SplitHeader {
        id: 7,
        total: 2,
        number: 1,
        size: 1248,
        payload: vec![1, 2, 3],
    };
    let want = [
        0xfe, 0xff, 0xff, 0xff, 7, 0, 0, 0, 2, 1, 0xe0, 0x04, 1, 2, 3,
    ];
    common::both_ways(&part, &want);
}

fn text() -> impl Strategy<Value = String> {
    "[^\u{0}]{0,12}"
}

fn info_response() -> impl Strategy<Value = InfoResponse> {
    (
        (any::<u8>(), text(), text(), text(), text(), any::<u16>()),
        (any::<[u8; 7]>(), text()),
        (
            proptest::option::of(any::<u16>()),
            proptest::option::of(any::<u64>()),
            proptest::option::of((any::<u16>(), text())),
            proptest::option::of(text()),
            proptest::option::of(any::<u64>()),
        ),
    )
        .prop_map(
            |(
                (protocol, name, map, folder, game, app_id),
                (b, version),
                (port, sid, tv, kw, gid),
            )| {
                InfoResponse {
                    protocol,
                    name,
                    map,
                    folder,
                    game,
                    app_id,
                    players: b[0],
                    max_players: b[1],
                    bots: b[2],
                    server_type: b[3],
                    environment: b[4],
                    visibility: b[5],
                    vac: b[6],
                    version,
                    extra_data: Computed::new(),
                    port,
                    steam_id: sid,
                    spectator: tv.map(|(port, name)| Spectator { port, name }),
                    keywords: kw.map(CText),
                    game_id: gid,
                }
            },
        )
}

fn player_response() -> impl Strategy<Value = PlayerResponse> {
    vec(
        (any::<u8>(), text(), any::<i32>(), 0f32..1e6).prop_map(
            |(index, name, score, duration)| Player {
                index,
                name,
                score,
                duration,
            },
        ),
        0..20,
    )
    .prop_map(|players| PlayerResponse {
        count: Computed::new(),
        players,
    })
}

fn rules_response() -> impl Strategy<Value = RulesResponse> {
    vec(
        (text(), text()).prop_map(|(name, value)| Rule { name, value }),
        0..20,
    )
    .prop_map(|rules| RulesResponse {
        count: Computed::new(),
        rules,
    })
}

proptest! {
    #[test]
    fn info_round_trips(v in info_response()) { test_vectors::round_trip_strict(&v); }

    #[test]
    fn players_round_trip(v in player_response()) { test_vectors::round_trip_strict(&v); }

    #[test]
    fn rules_round_trip(v in rules_response()) { test_vectors::round_trip_strict(&v); }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..200), kind in any::<u8>()) {
        let mut data = vec![0xff, 0xff, 0xff, 0xff, kind];
        data.extend(bytes);
        let _ = from_bytes::<InfoResponse>(&data);
        let _ = from_bytes::<InfoRequest>(&data);
        let _ = from_bytes::<PlayerResponse>(&data);
        let _ = from_bytes::<RulesResponse>(&data);
        let _ = from_bytes::<Challenge>(&data);
        data[0] = 0xfe;
        let _ = from_bytes::<SplitHeader>(&data);
    }
}
