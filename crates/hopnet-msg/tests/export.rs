//! `rabbit-msg schema --json` and the library's export: stable, complete for what decides the
//! bytes, and fingerprinted per type so that a change shows in the changed type only.

mod common;

use hopnet_codec::Rabbit;
use hopnet_msg::export::{EncodingDoc, Schema, SchemaDoc, TypeDoc};

#[test]
fn snow_fights_export_is_stable_and_names_every_type() {
    let json = common::run_ok(&["schema", "--json"], "");
    assert_eq!(json, common::run_ok(&["schema", "--json"], ""));
    let doc = SchemaDoc::from_json(&json).unwrap();
    assert_eq!(doc, hopnet_msg::export::snow_fight().document().unwrap());
    assert_eq!(doc.format, "hopnet-schema/1");
    assert_eq!(
        doc.messages.keys().collect::<Vec<_>>(),
        ["ClientMessage", "ServerMessage"]
    );
    for name in [
        "Snapshot",
        "Player",
        "Point",
        "Direction",
        "Action",
        "Move",
        "ErrorMessage",
    ] {
        assert!(doc.types.contains_key(name), "{name} missing");
    }
    // ClientMessage's tag is the spec's u32 varint.
    let TypeDoc::Enum { tag, .. } = &doc.types["ClientMessage"] else {
        panic!("ClientMessage is an enum")
    };
    assert_eq!(*tag, hopnet_msg::export::TagDoc::Varint { bytes: 4 });
    // The fingerprints fit the handshake's bound (56 types).
    assert!(doc.fingerprints().unwrap().len() <= 56);
}

#[test]
fn every_format_of_the_tool_exports() {
    for ty in common::run_ok(&["types"], "").lines() {
        let json = common::run_ok(&["schema", "--json", ty], "");
        let doc = SchemaDoc::from_json(&json).unwrap();
        assert!(doc.messages.contains_key(ty), "{ty}");
    }
}

use common::versions::{v1, v2};

#[test]
fn the_export_holds_widths_bounds_and_conditions_and_a_fingerprint_moves_with_its_type() {
    let a = Schema::new()
        .message::<v1::Hello>("Hello")
        .document()
        .unwrap();
    let TypeDoc::Struct { fields, .. } = &a.types["Hello"] else {
        panic!()
    };
    assert!(matches!(
        fields[1].encoding,
        EncodingDoc::Range { bits: 3, .. }
    ));
    assert_eq!(fields[3].condition.as_deref(), Some("*open"));
    assert_eq!(
        fields[4].encoding,
        EncodingDoc::String { max_len: Some(12) }
    );
    let b = Schema::new()
        .message::<v2::Hello>("Hello")
        .document()
        .unwrap();
    let (fa, fb) = (a.fingerprints().unwrap(), b.fingerprints().unwrap());
    let changed: Vec<&str> = fa
        .iter()
        .zip(&fb)
        .filter(|(x, y)| x.hash != y.hash)
        .map(|(x, _)| x.name.as_str())
        .collect();
    assert_eq!(changed, ["Point"]);
}

#[test]
fn two_types_of_one_name_are_refused() {
    #[derive(Rabbit)]
    struct Both {
        a: v1::Point,
        b: v2::Point,
    }
    let err = Schema::new()
        .message::<Both>("Both")
        .document()
        .unwrap_err();
    assert!(err.to_string().contains("`Point`"), "{err}");
}

#[test]
fn snow_fights_delta_markers_are_exported() {
    let doc = hopnet_msg::export::snow_fight().document().unwrap();
    assert_eq!(
        doc.types["Snapshot"].delta(),
        Some(hopnet_msg::export::DeltaDoc::PerStruct)
    );
    let TypeDoc::Struct { fields, .. } = &doc.types["Snapshot"] else {
        panic!("Snapshot is a struct")
    };
    assert!(
        fields.iter().any(|f| f.key.as_deref() == Some("id")),
        "{fields:#?}"
    );
}
