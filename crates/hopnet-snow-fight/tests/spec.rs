//! The spec writes itself: the "Messages" section of `../shared/spec/game-protocol.md` is
//! compared message by message with the definitions generated from the derive's schema data:
//! names, field order, widths and conditions. Every difference must be one of `KNOWN`, each of
//! which `PROTOCOL.md` ("Game messages") lists with its reason; a known difference that goes
//! away fails the test too, so the list stays true.
//!
//! The section's facts are checked in as `tests/spec/messages.md`, so the comparison runs in a
//! clone with nothing beside it. When the spec is there (`../shared` beside the repository),
//! the section is parsed too and must yield exactly that table, so the table cannot drift from
//! the spec; without it, that one check says so and passes.

#[path = "spec/parse.rs"]
mod parse;

use hopnet_snow_fight::notation::{self, Line};
use parse::Message;
use std::collections::BTreeSet;
use std::io::Write;

const SPEC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/spec/game-protocol.md"
);
const TABLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/spec/messages.md");

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
        "variant 4, Deltas(DeltaRequest), is this toolkit's: the u32 tag has room for it",
    ),
];

/// The spec's messages, from our table.
fn spec_messages() -> Vec<Message> {
    let text = std::fs::read_to_string(TABLE).unwrap_or_else(|e| panic!("{TABLE}: {e}"));
    parse::table(&text).unwrap_or_else(|e| panic!("{TABLE}: {e}"))
}

fn short(line: &Line) -> String {
    match &line.condition {
        Some(cond) => format!("`{}` (if {cond} then {})", line.name, line.ty),
        None => format!("`{}` ({})", line.name, line.ty),
    }
}

/// Where two readings of the spec's messages part, one line per difference.
fn differences(spec: &[Message], table: &[Message]) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..spec.len().max(table.len()) {
        let (s, t) = (spec.get(i), table.get(i));
        let name = |m: Option<&Message>| m.map(|m| m.name.clone()).unwrap_or("nothing".into());
        if s.map(|m| &m.name) != t.map(|m| &m.name) {
            out.push(format!("message {i}: spec {} / table {}", name(s), name(t)));
            continue;
        }
        let (s, t) = (s.unwrap(), t.unwrap());
        for j in 0..s.lines.len().max(t.lines.len()) {
            let (sl, tl) = (s.lines.get(j), t.lines.get(j));
            if sl != tl {
                out.push(format!(
                    "{}[{j}]: spec {} / table {}",
                    s.name,
                    sl.map(short).unwrap_or_else(|| "nothing".into()),
                    tl.map(short).unwrap_or_else(|| "nothing".into()),
                ));
            }
        }
    }
    out
}

#[test]
fn the_table_is_what_the_spec_says() {
    let text = match std::fs::read_to_string(SPEC) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Straight to stderr: the harness captures print!/eprint! of passing tests, and a
            // check that did not run should be seen.
            let _ = writeln!(
                std::io::stderr(),
                "note: {SPEC} is absent (no ../shared beside the repository): \
                 tests/spec/messages.md not checked against the spec"
            );
            return;
        }
        Err(e) => panic!("{SPEC}: {e}"),
    };
    let spec = parse::spec(&text);
    let table = spec_messages();
    let diff = differences(&spec, &table);
    assert!(
        diff.is_empty() && spec == table,
        "tests/spec/messages.md differs from the spec:\n{}\n\nthe spec's section reads:\n{}",
        diff.join("\n"),
        parse::render(&spec)
    );
}

/// A slip in the table is an error, not a component or message quietly lost.
#[test]
fn the_table_format_is_strict() {
    let ok = "prose\n\n## A\n\n- `x` (u1)\n- `y` (if `x` = 1 then `B`)\n\n## B\n\nEmpty\n";
    let parsed = parse::table(ok).unwrap();
    assert_eq!(parsed.len(), 2);
    assert_eq!(parsed[0].lines[1].condition.as_deref(), Some("`x` = 1"));
    assert!(parsed[1].lines.is_empty());
    assert_eq!(parse::table(&parse::render(&parsed)).unwrap(), parsed);
    for bad in [
        "## A\n",                            // neither components nor Empty
        "## A\nEmpty\n- `x` (u1)\n",         // both
        "## A\n- `x` (u1)\nEmpty\n",         // both, the other way round
        "## A\n- `x` (u1): a description\n", // not the normal form
        "## A\n- `x` (1-bit integer)\n",     // the spec's spelling, not the table's
        "## A\n- `x`  (u1)\n",               // spacing
        "## A\n- `x` (u1\n",                 // unclosed
        "## A\n- `x` (if `y` = 1 u8)\n",     // if without then
        "## A\n* `x` (u1)\n",                // another bullet
        "## A B\n- `x` (u1)\n",              // a name of two words
    ] {
        assert!(parse::table(bad).is_err(), "accepted {bad:?}");
    }
}

#[test]
fn the_table_holds_every_message_of_the_spec() {
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
