//! The spec writes itself: the "Messages" section of the repository's `spec/game-protocol.md`
//! is compared message by message with the definitions generated from the derive's schema data:
//! names, field order, widths and conditions. Every difference must be one of `KNOWN`, each of
//! which `PROTOCOL.md` ("Game messages") lists with its reason; a known difference that goes
//! away fails the test too, so the list stays true.

#[path = "spec/parse.rs"]
mod parse;

use hopnet_snow_fight::notation::{self, Line};
use parse::Message;
use std::collections::BTreeSet;

const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/game-protocol.md");

/// (message, component of the spec that differs, why): mirrored in PROTOCOL.md.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "Object",
        "kind",
        "the one-bit kind is the enum ObjectKind (Tree = 0, Mushroom = 1): same bit",
    ),
    (
        "Object",
        "breakable",
        "breakable + durability is Option<f32>, whose presence bit the notation calls is_durability",
    ),
    (
        "Object",
        "durability",
        "its condition names that presence bit is_durability",
    ),
    (
        "Break",
        "is_breaking",
        "is_breaking + entity is Option<EntityId>, whose presence bit is called is_entity",
    ),
    (
        "Break",
        "entity",
        "its condition names that presence bit is_entity",
    ),
    (
        "ResponseKind",
        "body",
        "the spec's Error message is the Rust type ErrorMessage",
    ),
    (
        "RequestKind",
        "body",
        "Ping and Init have no body: the tag alone says it, printed as one line",
    ),
    (
        "ClientMessage",
        "body",
        "variants 4, Deltas(DeltaRequest), and 6, Scoped(ScopedRequest), are this toolkit's: the u32 tag has room for them",
    ),
];

/// The spec's messages, parsed from its text.
fn spec_messages() -> Vec<Message> {
    let text = std::fs::read_to_string(SPEC).unwrap_or_else(|e| panic!("{SPEC}: {e}"));
    parse::spec(&text)
}

fn short(line: &Line) -> String {
    match &line.condition {
        Some(cond) => format!("`{}` (if {cond} then {})", line.name, line.ty),
        None => format!("`{}` ({})", line.name, line.ty),
    }
}

#[test]
fn the_spec_lists_every_message_of_the_crate() {
    // The crate's list of the spec's messages, less `ObjectKind`: the name this crate gives the
    // spec's `Object.kind`, which the spec defines inline.
    let names: Vec<String> = spec_messages().into_iter().map(|m| m.name).collect();
    let ours: Vec<&str> = notation::MESSAGES
        .iter()
        .copied()
        .filter(|&name| name != "ObjectKind")
        .collect();
    assert_eq!(names, ours);
}

#[test]
fn generated_schema_matches_the_spec() {
    let mut found: BTreeSet<(String, String)> = BTreeSet::new();
    let mut report = Vec::new();
    for spec in spec_messages() {
        let ours = notation::definition(&spec.name)
            .unwrap_or_else(|| panic!("no definition for the spec's {}", spec.name));
        let n = spec.lines.len().max(ours.lines.len());
        for i in 0..n {
            let (s, o) = (spec.lines.get(i), ours.lines.get(i));
            let same = match (s, o) {
                (Some(s), Some(o)) => {
                    s.name == o.name && s.condition == o.condition && s.ty == o.ty
                }
                _ => false,
            };
            if !same {
                let key = s.or(o).map(|l| l.name.clone()).unwrap_or_default();
                report.push(format!(
                    "{}[{i}]: spec {} / ours {}",
                    spec.name,
                    s.map(short).unwrap_or_else(|| "nothing".into()),
                    o.map(short).unwrap_or_else(|| "nothing".into()),
                ));
                found.insert((spec.name.clone(), key));
            }
        }
    }
    let known: BTreeSet<(String, String)> = KNOWN
        .iter()
        .map(|(m, c, _)| (m.to_string(), c.to_string()))
        .collect();
    let unexpected: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        unexpected.is_empty() && gone.is_empty(),
        "differences from the spec:\n{}\n\nnot in KNOWN: {unexpected:?}\nin KNOWN but gone: {gone:?}",
        report.join("\n")
    );
}

/// Widths that matter on the wire, spelled out.
#[test]
fn tag_widths() {
    let tag = |name: &str| notation::definition(name).unwrap().lines[0].ty.clone();
    assert_eq!(tag("ServerMessage"), "u1");
    assert_eq!(tag("EventKind"), "u1");
    assert_eq!(tag("GameOver"), "u1");
    assert_eq!(tag("EntityKind"), "u2");
    assert_eq!(tag("ResponseKind"), "u2");
    assert_eq!(tag("RequestKind"), "u1");
    assert_eq!(tag("Action"), "u2");
    assert_eq!(tag("ClientMessage"), "u32");
}

/// The size bounds PROTOCOL.md states.
#[test]
fn size_bounds() {
    use hopnet_codec::Encode;
    use hopnet_snow_fight::*;
    assert_eq!(Action::MAX_BITS, Some(98));
    assert_eq!(Request::MAX_BITS, Some(35));
    assert_eq!(ClientMessage::MAX_BITS, Some(10 + 98));
    assert_eq!(ClientMessage::MIN_BITS, 10 + 2 + 1); // tag, Action tag, Break { entity: None }
    for unbounded in [
        ServerMessage::MAX_BITS,
        Event::MAX_BITS,
        EventKind::MAX_BITS,
        Response::MAX_BITS,
        ResponseKind::MAX_BITS,
        Connect::MAX_BITS,
        Snapshot::MAX_BITS,
        ErrorMessage::MAX_BITS,
    ] {
        assert_eq!(unbounded, None);
    }
    assert_eq!(Entity::MAX_BITS, Some(34 + 2 + 96 + 8 + 35 + 35 + 3 * 34));
}
