//! `rabbit-msg` on the other seeds' formats (`hopnet-formats`): the same contract as for the
//! spec's messages.

mod common;

use common::{assert_listed, assert_schema_says, run, stdout};

/// Each seed example, hex to JSON and back.
#[test]
fn seed_examples_decode_and_encode() {
    for (ty, hex) in [
        ("semi_ordered::Datagram", "5001a583123456"),
        ("semi_ordered::Datagram", "800000000004d600001100098b"),
        ("woke::Packet", "570301020304050607080900"),
        (
            "dogfight::Event",
            "0335616664316137632d353063362d346135352d626535372d306630326365663865343865",
        ),
    ] {
        let out = run(&["decode", ty, hex], "");
        assert!(
            out.status.success(),
            "{ty} {hex}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json = stdout(&out);
        let back = run(&["encode", ty], &json);
        assert!(back.status.success(), "{ty}: {json}");
        assert_eq!(stdout(&back).trim(), hex, "{ty}");
    }
    let out = run(&["decode", "semi_ordered::Datagram", "5001a583123456"], "");
    assert_eq!(
        stdout(&out),
        "{\"Package\":{\"reliability\":\"SemiOrdered\",\"server_targeted\":true,\"id\":107907,\"payload\":[18,52,86]}}\n"
    );
}

#[test]
fn frames_round_trip_in_batch_and_bad_lines_say_why() {
    let json = "{\"action\":\"Ping\",\"message\":\"hello hello hello\"}\n{\"action\":\"Nope\"}\n";
    let out = run(&["encode", "rtype::Frame", "--batch"], json);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1].starts_with("error: invalid JSON"), "{}", lines[1]);
    let out = run(&["decode", "rtype::Frame", lines[0]], "");
    assert_eq!(
        stdout(&out),
        "{\"action\":\"Ping\",\"message\":\"hello hello hello\"}\n"
    );
    // A CRC flipped: one line, status 1.
    let mut bad = lines[0].to_string();
    let last = if bad.ends_with('0') { "1" } else { "0" };
    bad.replace_range(bad.len() - 1.., last);
    let out = run(&["decode", "rtype::Frame", &bad], "");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: cannot decode") && err.contains("crc_action"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1);
}

#[test]
fn types_and_schema_list_the_seed_types() {
    assert_listed(&[
        "ServerMessage",
        "semi_ordered::Datagram",
        "dogfight::State",
        "dogfight::Event",
        "woke::Packet",
        "rtype::Frame",
    ]);
    assert_schema_says(
        "dogfight::State",
        &[
            "- `total_length` (u32 big-endian, computed:",
            "`players` (`Player` to the end)",
        ],
    );
    let out = run(&["schema", "nope::Nope"], "");
    assert_eq!(out.status.code(), Some(1));
}
