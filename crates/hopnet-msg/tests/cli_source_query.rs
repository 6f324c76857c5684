//! `rabbit-msg` on the Source engine's server queries (`hopnet_formats::source_query`).

mod common;

use common::{assert_listed, assert_schema_says, run, stdout};

/// An A2S_INFO response as a Source server sends it, with the game port and keywords.
const INFO: &str = concat!(
    "ffffffff49",     // header, 'I'
    "11",             // protocol 17
    "536e6f7700",     // "Snow"
    "7961726400",     // "yard"
    "736e6f7700",     // "snow"
    "536e6f7700",     // "Snow"
    "0000",           // app id
    "02100164770000", // players, max, bots, 'd', 'w', visibility, vac
    "302e3100",       // "0.1"
    "a0",             // EDF: port and keywords
    "8769",           // 27015
    "612c6200",       // "a,b"
);

#[test]
fn info_response_decodes_and_encodes_back() {
    let out = run(&["decode", "source_query::InfoResponse", INFO], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout(&out);
    assert!(json.contains("\"name\":\"Snow\""), "{json}");
    assert!(json.contains("\"port\":27015"), "{json}");
    assert!(json.contains("\"keywords\":\"a,b\""), "{json}");
    assert!(json.contains("\"steam_id\":null"), "{json}");
    let back = run(&["encode", "source_query::InfoResponse"], &json);
    assert!(back.status.success(), "{json}");
    assert_eq!(stdout(&back).trim(), INFO);
    // Cut before the last string's terminator: a clear error.
    let out = run(
        &[
            "decode",
            "source_query::InfoResponse",
            &INFO[..INFO.len() - 2],
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: cannot decode"));
}

#[test]
fn types_and_schema_list_the_queries() {
    assert_listed(&[
        "source_query::InfoRequest",
        "source_query::InfoResponse",
        "source_query::Challenge",
        "source_query::PlayerRequest",
        "source_query::PlayerResponse",
        "source_query::RulesRequest",
        "source_query::RulesResponse",
        "source_query::SplitHeader",
    ]);
    assert_schema_says(
        "source_query::InfoResponse",
        &["`name` (u8 up to a zero byte, UTF-8 text)"],
    );
}
