//! One value's encoding, old and new: the rules of widths, bounds and wrappers. What decides
//! each rule is that Rabbit writes no lengths for fixed-width values: a width is known to the
//! reader only from its own schema.

use super::Reading::{self, Breaks, Reads, RejectsWhenMet};
use super::types::Cx;
use crate::export::EncodingDoc as E;

impl Cx<'_> {
    pub(super) fn encoding(&mut self, item: &str, old: &E, new: &E) {
        if let (E::Type { name: a }, E::Type { name: b }) = (old, new) {
            // The type itself is compared under its own name.
            if !self.same_name(a, b) {
                if self.same_type(a, b) {
                    self.push(
                        item,
                        format!("holds `{b}` instead of `{a}`"),
                        Reads,
                        Reads,
                        "the two types are laid out alike: the bytes are unchanged",
                    );
                } else {
                    self.push(
                        item,
                        format!("holds `{b}` instead of `{a}`"),
                        Breaks,
                        Breaks,
                        "the two types are laid out differently: each side reads the other's bits as its own type",
                    );
                }
            }
            return;
        }
        if self.same_json(&Self::json(old), &Self::json(new)) {
            return;
        }
        match (old, new) {
            (
                E::Fixed {
                    bits: a,
                    signed: sa,
                },
                E::Fixed {
                    bits: b,
                    signed: sb,
                },
            ) => {
                if a != b {
                    self.width(item, *a, *b);
                } else if sa != sb {
                    self.push(
                        item,
                        format!("signedness changed ({} bits)", a),
                        Breaks,
                        Breaks,
                        "the same bits, read as two's complement by one side only: values with the top bit set change sign",
                    );
                }
            }
            (
                E::Varint {
                    bytes: a,
                    zigzag: za,
                },
                E::Varint {
                    bytes: b,
                    zigzag: zb,
                },
            ) => {
                if a != b {
                    self.push(
                        item,
                        format!("varint of a {a}-byte integer changed to a {b}-byte one"),
                        Breaks,
                        Breaks,
                        "the spec's varint starts with a length prefix of log2(bytes) bits: the prefix's width changes, so both sides misread it and every bit after it",
                    );
                }
                if za != zb {
                    self.push(
                        item,
                        "zig-zag turned on or off",
                        Breaks,
                        Breaks,
                        "the same bits mean other numbers: zig-zag interleaves positives and negatives",
                    );
                }
            }
            (E::Leb128 { bits: a, form: fa }, E::Leb128 { bits: b, form: fb }) if fa == fb => {
                let (grew, what) = (
                    b > a,
                    format!("LEB128 of a {a}-bit integer changed to {b}-bit"),
                );
                let why = "LEB128 carries its own length, so the bytes of a value are the same at either width; the narrower side refuses a value beyond its range when it meets one";
                self.bound(item, what, grew, why);
            }
            (
                E::Range {
                    min: ma,
                    max: xa,
                    bits: ba,
                },
                E::Range {
                    min: mb,
                    max: xb,
                    bits: bb,
                },
            ) => {
                if ba != bb {
                    self.push(
                        item,
                        format!("range {}..={} in {ba} bits changed to {}..={} in {bb} bits", ma.0, xa.0, mb.0, xb.0),
                        Breaks,
                        Breaks,
                        "a range is written in the fewest bits that hold max - min, with no length: the width changed, so every bit after it moves",
                    );
                } else if ma != mb {
                    self.push(
                        item,
                        format!("range's minimum changed from {} to {}", ma.0, mb.0),
                        Breaks,
                        Breaks,
                        "a range is written as value - min: every value is read shifted by the difference",
                    );
                } else {
                    let what = format!(
                        "range's maximum changed from {} to {} (still {ba} bits)",
                        xa.0, xb.0
                    );
                    self.bound(item, what, xb > xa, "the same bits for every value both allow; the side with the smaller maximum refuses a larger value when it meets one");
                }
            }
            (
                E::Quantized {
                    min: ma,
                    max: xa,
                    step: sa,
                    bits: ba,
                },
                E::Quantized {
                    min: mb,
                    max: xb,
                    step: sb,
                    bits: bb,
                },
            ) if ma == mb && sa == sb && ba == bb => {
                let what = format!("quantized maximum changed from {xa} to {xb} (still {ba} bits)");
                self.bound(item, what, xb > xa, "the same grid and width; the side with the smaller maximum refuses a grid point beyond it when it meets one");
            }
            (E::Option { item: a }, E::Option { item: b }) => {
                self.encoding(&format!("{item} (the option's value)"), a, b);
            }
            (
                E::List {
                    item: a,
                    max_len: la,
                },
                E::List {
                    item: b,
                    max_len: lb,
                },
            ) => {
                self.max_len(item, "list", *la, *lb);
                self.encoding(&format!("{item}[]"), a, b);
            }
            (E::String { max_len: la }, E::String { max_len: lb }) => {
                self.max_len(item, "string", *la, *lb);
            }
            (E::Array { item: a, len: la }, E::Array { item: b, len: lb }) => {
                if la != lb {
                    self.push(
                        item,
                        format!("array length changed from {la} to {lb}"),
                        Breaks,
                        Breaks,
                        "an array's length is not on the wire: both sides read their own number of items",
                    );
                }
                self.encoding(&format!("{item}[]"), a, b);
            }
            (E::Tuple { items: a }, E::Tuple { items: b }) if a.len() == b.len() => {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    self.encoding(&format!("{item}.{i}"), x, y);
                }
            }
            (E::MsbFirst { item: a }, E::MsbFirst { item: b }) => self.encoding(item, a, b),
            (E::Option { item: inner }, other) | (other, E::Option { item: inner })
                if self.same_json(&Self::json(inner), &Self::json(other)) =>
            {
                let wrapped = matches!(new, E::Option { .. });
                self.push(
                    item,
                    if wrapped { "made optional" } else { "no longer optional" },
                    Breaks,
                    Breaks,
                    "an option starts with a presence bit: one side reads a bit the other does not write, and every bit after it moves",
                );
            }
            (E::Float { bits: a }, E::Float { bits: b }) => self.width(item, *a, *b),
            _ if old.kind() != new.kind() => self.push(
                item,
                format!("encoding changed from {} to {}", old.kind(), new.kind()),
                Breaks,
                Breaks,
                "the two encodings write different bits for the same value",
            ),
            _ => self.push(
                item,
                format!(
                    "{} changed: {} -> {}",
                    old.kind(),
                    compact(old),
                    compact(new)
                ),
                Breaks,
                Breaks,
                "its bytes are written differently; no rule says they still meet",
            ),
        }
    }

    /// A plain-bits width, narrowed or widened.
    fn width(&mut self, item: &str, old: u32, new: u32) {
        let (what, why) = if new < old {
            (
                format!("narrowed from {old} to {new} bits"),
                format!(
                    "a new peer reads {new} of the old {old} bits and the rest as what follows; an old peer reads {old} bits, {} of them from what follows",
                    old - new
                ),
            )
        } else {
            (
                format!("widened from {old} to {new} bits"),
                format!(
                    "Rabbit is bit-packed with no lengths: an old peer reads {old} of the new {new} bits and takes the other {} for what follows, and a new peer reads {} bits of what follows as part of this value, so every later bit moves even when the value would fit",
                    new - old,
                    new - old
                ),
            )
        };
        self.push(item, what, Breaks, Breaks, why);
    }

    /// A bound that changes no bytes: the side with the smaller one refuses what lies beyond
    /// it. `grew`: the new bound is the larger.
    fn bound(&mut self, item: &str, what: String, grew: bool, why: &str) {
        let (old_reads_new, new_reads_old): (Reading, Reading) = if grew {
            (RejectsWhenMet, Reads)
        } else {
            (Reads, RejectsWhenMet)
        };
        self.push(item, what, old_reads_new, new_reads_old, why);
    }

    fn max_len(&mut self, item: &str, what: &str, old: Option<u64>, new: Option<u64>) {
        if old == new {
            return;
        }
        let show = |m: Option<u64>| m.map_or("none".to_string(), |m| m.to_string());
        let grew = match (old, new) {
            (Some(a), Some(b)) => b > a,
            (Some(_), None) => true,
            _ => false,
        };
        self.bound(
            item,
            format!("{what}'s max_len changed from {} to {}", show(old), show(new)),
            grew,
            "the count is written the same way whatever the bound; the side with the smaller bound refuses a longer one when it meets it",
        );
    }
}

fn compact(e: &E) -> String {
    serde_json::to_string(e).unwrap_or_default()
}
