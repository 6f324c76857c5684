//! [`Transform`]: a field whose bytes pass through a function on the way out and its inverse
//! on the way in.

use crate::error::Result;

/// How a `#[rabbit(transform = "expr")]` field's value becomes bytes and back: compression,
/// encryption, an encoding of its own. `expr` is evaluated in the generated code (it may name
/// earlier fields, as a condition does) and gives a value implementing `Transform<T>` for the
/// field's type `T`.
///
/// The field also has `byte_len = "field"`: its bytes are framed by an earlier length field,
/// which the derive fills in from what [`Transform::apply`] wrote. Decoding hands
/// [`Transform::revert`] exactly those bytes, borrowed from the input.
///
/// `revert` reads untrusted bytes: it must bound what it allocates by what the bytes can
/// justify (a decompressor checks the claimed size against a limit before reserving it).
pub trait Transform<T> {
    /// Appends the bytes `value` is written as.
    fn apply(&self, value: &T, out: &mut Vec<u8>) -> Result<()>;

    /// The value written as `bytes`.
    fn revert(&self, bytes: &[u8]) -> Result<T>;
}
