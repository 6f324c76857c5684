//! [`Computed`]: a field on the wire whose value is a function of the others.

use std::fmt;
use std::marker::PhantomData;

/// A field that is on the wire but holds nothing in the value: what it writes is computed
/// from the other fields, and decoding checks that what it reads is what they compute (see
/// `guide::layouts`). A length, a total size, a checksum.
///
/// `T` is the type written; every `Computed<T>` equals every other, so a decoded value equals
/// the one that was encoded.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use hopnet_codec::layout::Computed;
///
/// #[derive(hopnet_codec::Rabbit, Debug, PartialEq)]
/// #[rabbit(endian = "big")]
/// struct Sized {
///     #[rabbit(computed = "text.len() as u16")]
///     len: Computed<u16>,
///     #[rabbit(to_end)]
///     text: String,
/// }
///
/// let msg = Sized { len: Computed::new(), text: "hi".into() };
/// assert_eq!(hopnet_codec::to_bytes(&msg)?, [0, 2, b'h', b'i']);
/// assert_eq!(hopnet_codec::from_bytes::<Sized>(&[0, 2, b'h', b'i'])?, msg);
/// assert!(hopnet_codec::from_bytes::<Sized>(&[0, 3, b'h', b'i']).is_err());
/// # }
/// # Ok::<(), hopnet_codec::Error>(())
/// ```
pub struct Computed<T>(PhantomData<fn() -> T>);

impl<T> Computed<T> {
    /// The field's only value.
    pub const fn new() -> Self {
        Computed(PhantomData)
    }
}

impl<T> Default for Computed<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for Computed<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Computed<T> {}

impl<T> PartialEq for Computed<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Computed<T> {}

impl<T> std::hash::Hash for Computed<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl<T> fmt::Debug for Computed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Computed")
    }
}
