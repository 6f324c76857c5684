//! The lossy float encodings of the derive (`quaternion`, `unit_vector`, `quantize` on vectors)
//! in the tools: the export records them; the TypeScript generator and the dissector, which
//! have no codec for them, refuse them naming the field rather than write a wrong one.

use hopnet_codec::Rabbit;
use hopnet_msg::codegen::TypeScript;
use hopnet_msg::dissector::Wireshark;
use hopnet_msg::export::{EncodingDoc, Schema, TypeDoc};

#[derive(Rabbit)]
#[allow(dead_code)]
struct Cube {
    #[rabbit(quaternion(bits = 9))]
    orientation: [f32; 4],
    #[rabbit(unit_vector(bits = 12))]
    facing: [f32; 3],
    #[rabbit(quantize(range = "-15.0..=15.0", precision = 0.001, y(range = "0.0..=8.0")))]
    position: [f32; 3],
    #[rabbit(quantize(range = "-32.0..=32.0", precision = 0.01))]
    velocity: [f32; 3],
}

#[derive(Rabbit)]
#[allow(dead_code)]
struct Facing {
    #[rabbit(unit_vector(bits = 12))]
    facing: [f32; 3],
}

#[derive(Rabbit)]
#[allow(dead_code)]
struct Position {
    #[rabbit(quantize(range = "-15.0..=15.0", precision = 0.001, y(range = "0.0..=8.0")))]
    position: [f32; 3],
}

#[test]
fn the_export_records_each_encoding() {
    let doc = Schema::new().message::<Cube>("Cube").document().unwrap();
    let TypeDoc::Struct { fields, .. } = &doc.types["Cube"] else {
        panic!("Cube is a struct")
    };
    assert_eq!(fields[0].encoding, EncodingDoc::SmallestThree { bits: 9 });
    assert_eq!(fields[1].encoding, EncodingDoc::Octahedral { bits: 12 });
    let EncodingDoc::Tuple { items } = &fields[2].encoding else {
        panic!("{:?}", fields[2].encoding)
    };
    assert!(matches!(items[1], EncodingDoc::Quantized { bits: 13, .. }));
    assert!(matches!(
        &fields[3].encoding,
        EncodingDoc::Array { len: 3, item } if matches!(**item, EncodingDoc::Quantized { bits: 13, .. })
    ));
    // And reads back from its JSON.
    let json = doc.to_json().unwrap();
    assert!(json.contains("\"smallest_three\""), "{json}");
    assert_eq!(
        hopnet_msg::export::SchemaDoc::from_json(&json).unwrap(),
        doc
    );
}

#[test]
fn typescript_and_the_dissector_refuse_them_by_name() {
    let err = TypeScript::new()
        .message::<Cube>("Cube")
        .generate()
        .unwrap_err();
    assert_eq!(err.item, "Cube.orientation");
    assert!(err.reason.contains("quaternion"), "{err}");
    let err = TypeScript::new()
        .message::<Facing>("Facing")
        .generate()
        .unwrap_err();
    assert!(err.reason.contains("unit vector"), "{err}");
    let err = TypeScript::new()
        .message::<Position>("Position")
        .generate()
        .unwrap_err();
    assert!(err.reason.contains("quantized"), "{err}");

    let err = Wireshark::new::<Cube, Facing>("Cube", "Facing")
        .generate()
        .unwrap_err();
    assert!(err.to_string().contains("quaternion"), "{err}");
    let err = Wireshark::new::<Facing, Facing>("Facing", "Facing")
        .generate()
        .unwrap_err();
    assert!(err.to_string().contains("unit vector"), "{err}");
}
