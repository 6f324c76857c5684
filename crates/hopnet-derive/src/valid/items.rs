//! What a struct or a variant writes, in order, with its magic bytes and padding: the one
//! list that encoding, decoding, the sizes and the schema read.

use crate::plan::{Field, Fields, Item, Style};

/// Magic bytes as items of at most eight bytes, the most one word holds.
pub fn magic(bytes: Option<&[u8]>) -> Vec<Item> {
    bytes
        .unwrap_or_default()
        .chunks(8)
        .map(|chunk| Item::Magic(chunk.to_vec()))
        .collect()
}

/// The fields with what they write: `lead` (a struct's magic bytes; a variant's tag and
/// magic bytes), then each field on the wire after its padding (`pads`, by field); skipped
/// fields write nothing.
pub fn fields<'a>(style: Style, list: Vec<Field<'a>>, pads: &[u32], lead: Vec<Item>) -> Fields<'a> {
    let mut items = lead;
    for (i, f) in list.iter().enumerate() {
        if f.wire.is_none() {
            continue;
        }
        if pads[i] > 0 {
            items.push(Item::Pad(pads[i]));
        }
        items.push(Item::Field(i));
    }
    Fields { style, list, items }
}
