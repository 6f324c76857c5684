//! Each rule of `rabbit-msg compat`, on schemas built with the derive, exported and compared,
//! and checked against real bytes: encoded with one version's type, decoded with the other's.

mod common;

use hopnet_codec::{Decode, Encode, Rabbit, from_bytes, to_bytes};
use hopnet_msg::compat::{Change, Reading, Report, compare};
use hopnet_msg::export::{Schema, SchemaDoc};

fn doc<T: Encode>() -> SchemaDoc {
    Schema::new().message::<T>("M").document().unwrap()
}

fn report<Old: Encode, New: Encode>() -> Report {
    compare(&doc::<Old>(), &doc::<New>())
}

/// The one change of `item`, which must be there.
fn change<'a>(r: &'a Report, item: &str) -> &'a Change {
    r.changes
        .iter()
        .find(|c| c.item == item)
        .unwrap_or_else(|| panic!("no change of {item} in {r:#?}"))
}

/// `value` written by one version, read by the other.
fn cross<A: Encode, B: Decode>(value: &A) -> Result<B, hopnet_codec::Error> {
    from_bytes(&to_bytes(value).unwrap())
}

/// One change: the types before it in `$name::old`, after it in `$name::new`, by the same
/// names, as two releases of a game would have them.
macro_rules! versions {
    ($name:ident, old { $($old:item)* } new { $($new:item)* }) => {
        mod $name {
            pub mod old {
                use super::super::*;
                $($old)*
            }
            pub mod new {
                use super::super::*;
                $($new)*
            }
        }
    };
}

/// The change of `item` from `Old` to `New`, which must say `what`, and back, which must say
/// `back`: breaking both ways.
fn breaks_both_ways<Old: Encode, New: Encode>(item: &str, what: &str, back: &str) -> Change {
    let r = report::<Old, New>();
    let c = change(&r, item).clone();
    assert_eq!(c.what, what);
    assert!(!c.compatible());
    let r = report::<New, Old>();
    assert_eq!(change(&r, item).what, back);
    assert!(r.breaking());
    c
}

versions! {
    tag_room,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        #[bits(2)]
        pub enum Shape {
            Dot,
            Line(u8),
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        #[bits(2)]
        pub enum Shape {
            Dot,
            Line(u8),
            Circle(u16),
        }
    }
}

#[test]
fn a_variant_added_where_the_tag_has_room_is_compatible() {
    use tag_room::{new, old};
    let r = report::<old::Shape, new::Shape>();
    assert_eq!(r.changes.len(), 1, "{r:#?}");
    let c = change(&r, "Shape::Circle");
    assert_eq!(c.old_reads_new, Reading::RejectsWhenMet);
    assert_eq!(c.new_reads_old, Reading::Reads);
    assert!(!r.breaking());
    // The bytes: every old variant reads both ways; the new one is refused, not misread.
    assert_eq!(
        cross::<_, old::Shape>(&new::Shape::Line(7)),
        Ok(old::Shape::Line(7))
    );
    assert_eq!(
        cross::<_, new::Shape>(&old::Shape::Dot),
        Ok(new::Shape::Dot)
    );
    assert!(cross::<_, old::Shape>(&new::Shape::Circle(300)).is_err());
}

versions! {
    tag_full,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub enum Shape {
            Dot,
            Line(u8),
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub enum Shape {
            Dot,
            Line(u8),
            Circle(u16),
        }
    }
}

#[test]
fn a_variant_added_past_the_tags_width_breaks() {
    use tag_full::{new, old};
    let r = report::<old::Shape, new::Shape>();
    let c = change(&r, "Shape");
    assert!(
        c.what.contains("1-bit tag") && c.what.contains("2-bit tag"),
        "{c:#?}"
    );
    assert!(c.why.contains("`Circle` (index 2)"), "{c:#?}");
    assert!(r.breaking());
    // The tag grew by a bit: an old `Line(7)` is no longer `Line(7)` to a new peer.
    assert_ne!(
        cross::<_, new::Shape>(&old::Shape::Line(7)),
        Ok(new::Shape::Line(7))
    );
}

versions! {
    appended,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Odd {
            #[bits(5)]
            pub level: u8,
        }
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Even {
            pub level: u8,
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Odd {
            #[bits(5)]
            pub level: u8,
            pub boost: Option<u8>,
        }
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Even {
            pub level: u8,
            pub boost: Option<u8>,
        }
    }
}

#[test]
fn an_option_appended_breaks_and_says_what_still_holds() {
    use appended::{new, old};
    let r = report::<old::Odd, new::Odd>();
    let c = change(&r, "Odd.boost");
    assert_eq!(c.what, "optional field added at the end");
    assert_eq!(
        (c.old_reads_new, c.new_reads_old),
        (Reading::Breaks, Reading::Breaks)
    );
    assert!(c.why.contains("padding"), "{c:#?}");
    // What the reason says holds: with padding left, `None` costs no byte both ways...
    let none = new::Odd {
        level: 3,
        boost: None,
    };
    assert_eq!(cross::<_, old::Odd>(&none), Ok(old::Odd { level: 3 }));
    assert_eq!(cross::<_, new::Odd>(&old::Odd { level: 3 }), Ok(none));
    // ...a value present does not...
    assert!(
        cross::<_, old::Odd>(&new::Odd {
            level: 3,
            boost: Some(1)
        })
        .is_err()
    );
    // ...and neither does a message that ends on a byte boundary.
    assert!(cross::<_, new::Even>(&old::Even { level: 3 }).is_err());
    assert!(
        cross::<_, old::Even>(&new::Even {
            level: 3,
            boost: None
        })
        .is_err()
    );
}

versions! {
    middle,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Hit {
            pub who: u8,
            pub damage: u8,
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Hit {
            pub who: u8,
            pub weapon: u8,
            pub damage: u8,
        }
    }
}

#[test]
fn a_field_added_or_removed_in_the_middle_breaks() {
    use middle::{new, old};
    breaks_both_ways::<old::Hit, new::Hit>(
        "Hit.weapon",
        "field added in the middle",
        "field removed in the middle",
    );
    let hit = new::Hit {
        who: 1,
        weapon: 2,
        damage: 3,
    };
    assert!(cross::<_, old::Hit>(&hit).is_err());
    assert!(cross::<_, new::Hit>(&old::Hit { who: 1, damage: 3 }).is_err());
}

versions! {
    widths,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Pos {
            #[bits(10)]
            pub x: u16,
            #[bits(10)]
            pub y: u16,
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Pos {
            #[bits(12)]
            pub x: u16,
            #[bits(10)]
            pub y: u16,
        }
    }
}

#[test]
fn a_width_narrowed_or_widened_breaks() {
    use widths::{new, old};
    let c = breaks_both_ways::<old::Pos, new::Pos>(
        "Pos.x",
        "widened from 10 to 12 bits",
        "narrowed from 12 to 10 bits",
    );
    assert!(c.why.contains("bit-packed"), "{c:#?}");
    // A value that fits both widths still moves `y`.
    let moved = cross::<_, old::Pos>(&new::Pos { x: 5, y: 9 });
    assert_ne!(moved, Ok(old::Pos { x: 5, y: 9 }));
}

versions! {
    renamed,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Point {
            pub x: i16,
            pub y: i16,
        }
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Spawn {
            pub at: Point,
            pub team: u8,
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Vec2 {
            pub x: i16,
            pub y: i16,
        }
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Spawn {
            pub at: Vec2,
            pub side: u8,
        }
    }
}

#[test]
fn a_type_or_field_renamed_with_the_same_layout_is_compatible() {
    use renamed::{new, old};
    let r = report::<old::Spawn, new::Spawn>();
    assert!(!r.breaking(), "{r:#?}");
    assert_eq!(change(&r, "Point").what, "type renamed to `Vec2`");
    assert_eq!(change(&r, "Spawn.team").what, "field renamed to `side`");
    assert_eq!(r.changes.len(), 2, "{r:#?}");
    let spawn = old::Spawn {
        at: old::Point { x: -3, y: 4 },
        team: 2,
    };
    let renamed = new::Spawn {
        at: new::Vec2 { x: -3, y: 4 },
        side: 2,
    };
    assert_eq!(to_bytes(&spawn).unwrap(), to_bytes(&renamed).unwrap());
}

/// `renamed::old`'s `Spawn` with its `Point` replaced by a `Cell`.
mod removed {
    use super::*;
    #[derive(Rabbit, Debug, PartialEq)]
    pub struct Cell {
        pub index: u32,
    }
    #[derive(Rabbit, Debug, PartialEq)]
    pub struct Spawn {
        pub at: Cell,
        pub team: u8,
    }
}

#[test]
fn a_type_removed_is_listed_and_the_field_that_held_it_breaks() {
    let r = report::<renamed::old::Spawn, removed::Spawn>();
    assert_eq!(change(&r, "Point").what, "type removed");
    assert_eq!(change(&r, "Cell").what, "type added");
    let c = change(&r, "Spawn.at");
    assert_eq!(c.what, "holds `Cell` instead of `Point`");
    assert!(!c.compatible());
    assert!(r.breaking());
}

versions! {
    ranges,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Score {
            #[rabbit(range = "0..=100")]
            pub points: u8,
            #[rabbit(range = "0..=10")]
            pub lives: u8,
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Score {
            #[rabbit(range = "0..=120")]
            pub points: u8,
            #[rabbit(range = "1..=11")]
            pub lives: u8,
        }
    }
}

#[test]
fn a_range_grown_in_its_width_is_compatible_and_a_moved_minimum_breaks() {
    use ranges::{new, old};
    let r = report::<old::Score, new::Score>();
    let points = change(&r, "Score.points");
    assert_eq!(
        points.what,
        "range's maximum changed from 100 to 120 (still 7 bits)"
    );
    assert_eq!(points.old_reads_new, Reading::RejectsWhenMet);
    assert_eq!(points.new_reads_old, Reading::Reads);
    let lives = change(&r, "Score.lives");
    assert_eq!(lives.what, "range's minimum changed from 0 to 1");
    assert!(!lives.compatible());
    // Value 110 is refused by the old range, 50 reads the same; lives shift by one.
    let score = new::Score {
        points: 50,
        lives: 3,
    };
    assert_eq!(
        cross::<_, old::Score>(&score),
        Ok(old::Score {
            points: 50,
            lives: 2
        })
    );
    assert!(
        cross::<_, old::Score>(&new::Score {
            points: 110,
            lives: 3
        })
        .is_err()
    );
}

versions! {
    encodings,
    old {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Chat {
            #[bits(32)]
            pub id: u32,
            #[rabbit(max_len = 16)]
            pub text: String,
            #[rabbit(leb128)]
            pub size: u32,
        }
    }
    new {
        #[derive(Rabbit, Debug, PartialEq)]
        pub struct Chat {
            #[rabbit(varint)]
            pub id: u32,
            #[rabbit(max_len = 64)]
            pub text: String,
            #[rabbit(leb128)]
            pub size: u64,
        }
    }
}

#[test]
fn an_encoding_changed_breaks_and_a_bound_raised_is_compatible() {
    use encodings::{new, old};
    let r = report::<old::Chat, new::Chat>();
    let id = change(&r, "Chat.id");
    assert!(id.what.starts_with("encoding changed from"), "{id:#?}");
    assert!(!id.compatible());
    let text = change(&r, "Chat.text");
    assert_eq!(text.what, "string's max_len changed from 16 to 64");
    assert_eq!(text.old_reads_new, Reading::RejectsWhenMet);
    let size = change(&r, "Chat.size");
    assert_eq!(size.what, "LEB128 of a 32-bit integer changed to 64-bit");
    assert!(size.compatible());
    // LEB128's bytes do not depend on the width, nor a string's on its bound.
    #[derive(Rabbit)]
    struct OldTail {
        #[rabbit(max_len = 16)]
        text: String,
        #[rabbit(leb128)]
        size: u32,
    }
    #[derive(Rabbit, Debug, PartialEq)]
    struct NewTail {
        #[rabbit(max_len = 64)]
        text: String,
        #[rabbit(leb128)]
        size: u64,
    }
    let tail = OldTail {
        text: "hi".into(),
        size: 300,
    };
    assert_eq!(
        cross::<_, NewTail>(&tail),
        Ok(NewTail {
            text: "hi".into(),
            size: 300
        })
    );
    let long = NewTail {
        text: "x".repeat(40),
        size: 1 << 40,
    };
    assert!(cross::<_, OldTail>(&long).is_err());
}

#[test]
fn no_change_is_an_empty_report_and_snow_fight_against_itself_too() {
    let a = hopnet_msg::export::snow_fight().document().unwrap();
    let b = hopnet_msg::export::snow_fight().document().unwrap();
    assert_eq!(compare(&a, &b), Report::default());
    assert_eq!(a.to_json().unwrap(), b.to_json().unwrap());
    let again = SchemaDoc::from_json(&a.to_json().unwrap()).unwrap();
    assert_eq!(again, a);
}

#[test]
fn the_cli_exits_0_when_compatible_2_when_breaking_1_on_bad_input() {
    let dir = std::env::temp_dir().join(format!("compat-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, d: SchemaDoc| {
        let path = dir.join(name);
        std::fs::write(&path, d.to_json().unwrap()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let room_old = write("room_old.json", doc::<tag_room::old::Shape>());
    let room_new = write("room_new.json", doc::<tag_room::new::Shape>());
    let full_new = write("full_new.json", doc::<tag_full::new::Shape>());
    let full_old = write("full_old.json", doc::<tag_full::old::Shape>());

    let out = common::run(&["compat", &room_old, &room_new], "");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert!(common::stdout(&out).contains("compatible Shape::Circle: variant added at index 2"));

    let out = common::run(&["compat", &full_old, &full_new, "--json"], "");
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert_eq!(json["breaking"], true);
    assert_eq!(json["changes"][0]["item"], "Shape");
    assert_eq!(json["changes"][0]["old_reads_new"], "breaks");

    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"format": "something-else/9"}"#).unwrap();
    let out = common::run(&["compat", &room_old, bad.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(common::stderr(&out).contains("something-else/9"));

    // The tool's own export compares clean against itself.
    let snow = dir.join("snow.json");
    std::fs::write(&snow, common::run_ok(&["schema", "--json"], "")).unwrap();
    let snow = snow.to_str().unwrap();
    assert_eq!(
        common::run(&["compat", snow, snow], "").status.code(),
        Some(0)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

versions! {
    deltas,
    old {
        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit(delta)]
        pub struct Unit {
            pub id: u8,
            pub hp: u8,
        }
        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit(delta)]
        pub struct World {
            #[rabbit(key = "id")]
            pub units: Vec<Unit>,
        }
    }
    new {
        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit(delta = "per_field")]
        pub struct Unit {
            pub id: u8,
            pub hp: u8,
        }
        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit(delta)]
        pub struct World {
            pub units: Vec<Unit>,
        }
    }
}

#[test]
fn a_delta_layout_or_key_changed_breaks_deltas_only() {
    use deltas::{new, old};
    let r = report::<old::World, new::World>();
    let unit = change(&r, "Unit");
    assert_eq!(
        unit.what,
        "delta layout changed from `per_struct` to `per_field`"
    );
    assert!(!unit.compatible());
    let units = change(&r, "World.units");
    assert_eq!(
        units.what,
        "delta key changed from keyed by `id` to not keyed"
    );
    assert!(!units.compatible());
    assert_eq!(r.changes.len(), 2, "{r:#?}");
    // The full encoding is the same bytes...
    let a = old::World {
        units: vec![old::Unit { id: 1, hp: 9 }, old::Unit { id: 2, hp: 7 }],
    };
    let b = new::World {
        units: vec![new::Unit { id: 1, hp: 9 }, new::Unit { id: 2, hp: 7 }],
    };
    assert_eq!(to_bytes(&a).unwrap(), to_bytes(&b).unwrap());
    // ...but a delta written by one is not read back as the same value by the other.
    let a2 = old::World {
        units: vec![old::Unit { id: 1, hp: 8 }, old::Unit { id: 2, hp: 7 }],
    };
    let delta = hopnet_codec::delta::to_bytes(&a2, &a).unwrap();
    let read = hopnet_codec::delta::from_bytes(&b, &delta);
    let expect = new::World {
        units: vec![new::Unit { id: 1, hp: 8 }, new::Unit { id: 2, hp: 7 }],
    };
    assert_ne!(read, Ok(expect));
}

#[test]
fn deltas_added_to_a_type_leave_its_bytes_alone() {
    use widths::old::Pos as Plain;
    #[derive(Rabbit, Debug, Clone, PartialEq)]
    #[rabbit(delta)]
    struct Pos {
        #[bits(10)]
        x: u16,
        #[bits(10)]
        y: u16,
    }
    let r = report::<Plain, Pos>();
    let c = change(&r, "Pos");
    assert_eq!(c.what, "deltas added");
    assert_eq!(
        (c.old_reads_new, c.new_reads_old),
        (Reading::RejectsWhenMet, Reading::Reads)
    );
    assert_eq!(r.changes.len(), 1, "{r:#?}");
    assert_eq!(
        to_bytes(&Plain { x: 3, y: 4 }).unwrap(),
        to_bytes(&Pos { x: 3, y: 4 }).unwrap()
    );
}
