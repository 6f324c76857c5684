use rabbit::{Decode, Encode, Rabbit};

#[derive(Rabbit, Debug, PartialEq, Clone)]
/// A point.
struct Point {
    #[bits(12)]
    x: i16,
    y: u32,
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
#[bits(2)]
enum Shape {
    Dot,
    Line(Point, Point),
    Named { name: String, at: Option<Point> },
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
#[rabbit(tag = "varint")]
enum Msg {
    A(u8),
    #[rabbit(index = 7)]
    B {
        flag: bool,
        #[rabbit(if = "*flag")]
        extra: Option<u16>,
    },
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Unit;

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Wrap<T>(T, #[rabbit(skip)] u8);

fn rt<T: Encode + Decode + PartialEq + std::fmt::Debug>(v: &T) -> Vec<u8> {
    let bytes = rabbit::to_bytes(v).unwrap();
    let back: T = rabbit::from_bytes(&bytes).unwrap();
    assert_eq!(&back, v);
    let mut buf = Vec::new();
    let mut w = rabbit::BitWriter::new(&mut buf);
    v.encode(&mut w).unwrap();
    assert_eq!(w.bit_len(), v.encoded_bits());
    assert!(v.encoded_bits() >= T::MIN_BITS);
    if let Some(max) = T::MAX_BITS {
        assert!(v.encoded_bits() <= max);
    }
    bytes
}

#[test]
fn smoke() {
    rt(&Point { x: -5, y: 300 });
    rt(&Shape::Dot);
    rt(&Shape::Line(Point { x: 1, y: 2 }, Point { x: 3, y: 4 }));
    rt(&Shape::Named {
        name: "hi".into(),
        at: None,
    });
    rt(&Msg::A(3));
    rt(&Msg::B {
        flag: true,
        extra: Some(9),
    });
    rt(&Msg::B {
        flag: false,
        extra: None,
    });
    assert!(
        rabbit::to_bytes(&Msg::B {
            flag: false,
            extra: Some(1)
        })
        .is_err()
    );
    rt(&Unit);
    rt(&Wrap(5u32, 0));
    println!("{:#?}", <Shape as rabbit::schema::Describe>::type_schema());
    println!("{:#?}", <Msg as rabbit::schema::Describe>::type_schema());
    println!("{:?} {:?}", Point::MIN_BITS, Point::MAX_BITS);
}
