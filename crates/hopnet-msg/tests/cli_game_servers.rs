//! `rabbit-msg` on DNS, Minecraft's server list ping and RakNet's offline messages
//! (`hopnet_formats::{dns, minecraft, raknet}`).

mod common;

use common::{assert_listed, assert_schema_says, run, stderr, stdout};

/// A query for www.example.com's address, id 0xbeef, recursion desired.
const QUERY: &str = concat!(
    "beef01000001000000000000",           // header: RD, one question
    "03777777076578616d706c6503636f6d00", // www.example.com
    "00010001",                           // A, IN
);

/// A handshake for localhost:25565, protocol 767, next state status.
const HANDSHAKE: &str = "1000ff05096c6f63616c686f737463dd01";

#[test]
fn each_decodes_and_encodes_back() {
    for (ty, hex, needle) in [
        (
            "dns::Message",
            QUERY,
            "\"name\":[\"www\",\"example\",\"com\"]",
        ),
        (
            "minecraft::HandshakeFrame",
            HANDSHAKE,
            "\"server_address\":\"localhost\"",
        ),
        ("minecraft::ServerboundFrame", "0100", "StatusRequest"),
        (
            "raknet::Offline",
            "01000000000000000500ffff00fefefefefdfdfdfd123456780000000000000007",
            "\"client_guid\":7",
        ),
    ] {
        let out = run(&["decode", ty, hex], "");
        assert!(out.status.success(), "{ty}: {}", stderr(&out));
        let json = stdout(&out);
        assert!(json.contains(needle), "{ty}: {json}");
        let back = run(&["encode", ty], &json);
        assert!(back.status.success(), "{ty}: {}", stderr(&back));
        assert_eq!(stdout(&back).trim(), hex, "{ty}");
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    // Counts that disagree with the sections: the JSON claims two questions.
    let json = stdout(&run(&["decode", "dns::Message", QUERY], ""));
    let two = json.replace("\"questions\":1", "\"questions\":2");
    let out = run(&["encode", "dns::Message"], &two);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("holds 1 items, but its count says 2"),
        "{}",
        stderr(&out)
    );
    // An answer whose name is a compression pointer to the question's (`c0 0c`); the header
    // counts it.
    let pointer = format!("{QUERY}c00c0001000100000e100004c0000201").replacen(
        "000100000000",
        "000100010000",
        1,
    );
    let out = run(&["decode", "dns::Message", &pointer], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("found 0x3"), "{}", stderr(&out));
    // A frame whose length is past its bytes.
    let out = run(&["decode", "minecraft::HandshakeFrame", "7f00"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: cannot decode"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn types_and_schema_list_them() {
    assert_listed(&[
        "dns::Message",
        "dns::Header",
        "dns::Question",
        "dns::Record",
        "dns::Name",
        "minecraft::HandshakeFrame",
        "minecraft::ServerboundFrame",
        "minecraft::ClientboundFrame",
        "raknet::Offline",
    ]);
    assert_schema_says(
        "dns::Message",
        &["`questions` (`header.questions` * `Question`)"],
    );
    assert_schema_says(
        "dns::Name",
        &["`Label` up to an item where `|label: &Label| label.text.is_empty()`, at most 127"],
    );
    assert_schema_says(
        "minecraft::HandshakeFrame",
        &["i32 LEB128 of its two's complement bits"],
    );
}
