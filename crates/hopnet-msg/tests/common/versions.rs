//! Two versions of a small game schema that differ in one place only, `Point`'s width: the
//! export and connect tests both need a change that moves exactly one type.

use hopnet_codec::Rabbit;

/// Declares one version, `Point.x` `$bits` wide; everything else is the same in both.
macro_rules! version {
    ($name:ident, $bits:tt) => {
        pub mod $name {
            use super::Rabbit;

            #[derive(Rabbit)]
            pub struct Point {
                #[bits($bits)]
                pub x: u16,
            }

            #[derive(Rabbit)]
            pub struct Hello {
                pub at: Point,
                #[rabbit(range = "1..=8")]
                pub level: u8,
                pub open: bool,
                #[rabbit(if = "*open")]
                pub seats: Option<u8>,
                #[rabbit(max_len = 12)]
                pub name: String,
            }

            #[derive(Rabbit)]
            pub enum Message {
                Hello(u8),
                Move(Point),
            }
        }
    };
}

version!(v1, 10);
version!(v2, 11);
