//! Containers written as another type (`#[rabbit(from = "W", into = "W")]`).

use crate::error::Error;
use crate::schema::{Body, Encoding, FieldSchema, TypeSchema};

/// The layout of a container written as a `W` whose schema is `wire`: `W`'s own layout when
/// `W` is a derived type (its fields, its doc if it has one), under the container's `name`, so
/// that fields of the container's type show its name; otherwise one field `0` holding `W`.
pub fn via_schema(
    wire: Encoding,
    name: &'static str,
    doc: &'static str,
    wire_ty: &'static str,
    (min_bits, max_bits): (u64, Option<u64>),
) -> TypeSchema {
    match wire {
        Encoding::Type(r) => {
            let inner = r.resolve();
            TypeSchema {
                name,
                doc: if inner.doc.is_empty() { doc } else { inner.doc },
                ..inner
            }
        }
        other => TypeSchema {
            name,
            doc,
            body: Body::Struct(vec![FieldSchema {
                name: "0",
                doc: "",
                ty: wire_ty,
                encoding: other,
                condition: None,
                skipped: false,
                key: None,
            }]),
            min_bits,
            max_bits,
            delta: None,
        },
    }
}

/// The decode error of a `try_from` conversion that refused the value it was given.
#[cold]
pub fn via_error(err: impl std::fmt::Display) -> Error {
    Error::custom(err.to_string())
}
